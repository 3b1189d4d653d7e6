// SplitPointPicker (ops/split_points.h): where ComputeSplitPointsBySize starts its ranges.
#include "ops/split_points.h"

#include <gtest/gtest.h>

namespace ttlstore::ops {
namespace {

// Feeds rows (first column value, bytes) and returns the values a range starts at.
std::vector<std::string> Pick(uint64_t split_bytes, size_t max_points,
                              const std::vector<std::pair<std::string, uint64_t>>& rows) {
  SplitPointPicker picker(split_bytes, max_points);
  std::vector<std::string> out;
  for (const auto& [first, bytes] : rows) {
    if (picker.Add(first, bytes)) out.push_back(first);
  }
  return out;
}

TEST(SplitPointPicker, SmallTableHasNoPoint) {
  EXPECT_TRUE(Pick(1000, 10, {{"a", 100}, {"b", 100}, {"c", 100}}).empty());
  EXPECT_TRUE(Pick(1000, 10, {}).empty());
}

TEST(SplitPointPicker, CutsOnceARangeHoldsTheSize) {
  // 10 rows of 100 bytes, ranges of 300: a b c | d e f | g h i | j
  std::vector<std::pair<std::string, uint64_t>> rows;
  for (char c = 'a'; c <= 'j'; ++c) rows.push_back({std::string(1, c), 100});
  EXPECT_EQ(Pick(300, 10, rows), (std::vector<std::string>{"d", "g", "j"}));
}

TEST(SplitPointPicker, NeverCutsInsideOneFirstColumnValue) {
  // Rows sharing the first column's value stay in one range, however big.
  EXPECT_EQ(Pick(100, 10, {{"a", 100}, {"a", 100}, {"a", 100}, {"b", 10}, {"b", 10}}),
            (std::vector<std::string>{"b"}));
  EXPECT_TRUE(Pick(100, 10, {{"a", 500}, {"a", 500}}).empty());
}

TEST(SplitPointPicker, StopsAtTheLimit) {
  std::vector<std::pair<std::string, uint64_t>> rows;
  for (char c = 'a'; c <= 'z'; ++c) rows.push_back({std::string(1, c), 100});
  EXPECT_EQ(Pick(100, 2, rows), (std::vector<std::string>{"b", "c"}));
  EXPECT_TRUE(Pick(100, 0, rows).empty());
}

TEST(SplitPointPicker, ZeroSizeIsOneByte) {
  EXPECT_EQ(Pick(0, 10, {{"a", 1}, {"b", 1}}), (std::vector<std::string>{"b"}));
}

}  // namespace
}  // namespace ttlstore::ops
