#include "ops/query_scan.h"

#include <set>

#include "ops_test_util.h"

namespace ttlstore::ops {
namespace {

using SortOp = expr::KeyCondition::SortOp;

class QueryScanTest : public OpsTest {
 protected:
  void SetUp() override {
    OpsTest::SetUp();
    for (const char* sk : {"-5", "0", "1", "2.5", "10", "100"}) Put(Row("a", sk));
    for (int i = 0; i < 50; ++i) Put(Row("p" + std::to_string(i), "1"));
  }
  std::vector<std::string> SortKeys(SortOp op, const char* v1 = "0", const char* v2 = "0",
                                    bool forward = true) {
    expr::KeyCondition c;
    c.partition = S("a");
    c.sort_op = op;
    c.sort1 = N(v1);
    c.sort2 = N(v2);
    auto page = Query(*store_, table_, c, forward, {});
    EXPECT_TRUE(page.ok());
    std::vector<std::string> out;
    for (const auto& item : page->items) out.push_back(item.at("sk").scalar());
    return out;
  }
};

using V = std::vector<std::string>;

TEST_F(QueryScanTest, QueryReadsOnePartitionInSortKeyOrder) {
  EXPECT_EQ(SortKeys(SortOp::kNone), (V{"-5", "0", "1", "2.5", "10", "100"}));
  EXPECT_EQ(SortKeys(SortOp::kNone, "0", "0", /*forward=*/false),
            (V{"100", "10", "2.5", "1", "0", "-5"}));
}

TEST_F(QueryScanTest, EachSortOperatorSelectsItsRange) {
  EXPECT_EQ(SortKeys(SortOp::kEq, "2.50"), (V{"2.5"}));
  EXPECT_EQ(SortKeys(SortOp::kLt, "1"), (V{"-5", "0"}));
  EXPECT_EQ(SortKeys(SortOp::kLe, "1"), (V{"-5", "0", "1"}));
  EXPECT_EQ(SortKeys(SortOp::kGt, "2.5"), (V{"10", "100"}));
  EXPECT_EQ(SortKeys(SortOp::kGe, "2.5"), (V{"2.5", "10", "100"}));
  EXPECT_EQ(SortKeys(SortOp::kBetween, "0", "10"), (V{"0", "1", "2.5", "10"}));
  EXPECT_EQ(SortKeys(SortOp::kEq, "3"), V{});
}

TEST_F(QueryScanTest, BeginsWithOnStringSortKeysUsesThePrefixRange) {
  table_.id = 2;
  table_.key.range = model::KeyElement{"sk", model::ValueType::kS};
  for (const std::string& sk : std::vector<std::string>{"a", "ab", "abc", "abd", "b",
                                                        std::string("ab\0x", 4)}) {
    Put({{"pk", S("x")}, {"sk", S(sk)}});
  }
  expr::KeyCondition c;
  c.partition = S("x");
  c.sort_op = SortOp::kBeginsWith;
  c.sort1 = S("ab");
  auto page = Query(*store_, table_, c, true, {});
  ASSERT_TRUE(page.ok());
  std::vector<std::string> got;
  for (const auto& item : page->items) got.push_back(item.at("sk").scalar());
  EXPECT_EQ(got, (V{"ab", std::string("ab\0x", 4), "abc", "abd"}));
}

TEST_F(QueryScanTest, LimitStopsAndTheLastKeyResumesExactlyAfterIt) {
  expr::KeyCondition c;
  c.partition = S("a");
  std::vector<std::string> all;
  std::optional<model::Item> start;
  int pages = 0;
  do {
    PageOptions options;
    options.limit = 4;
    options.exclusive_start_key = start ? &*start : nullptr;
    auto page = Query(*store_, table_, c, /*forward=*/false, options);
    ASSERT_TRUE(page.ok());
    for (const auto& item : page->items) all.push_back(item.at("sk").scalar());
    start = page->last_evaluated_key;
    ++pages;
  } while (start);
  EXPECT_EQ(all, (V{"100", "10", "2.5", "1", "0", "-5"}));
  EXPECT_EQ(pages, 2);
}

TEST_F(QueryScanTest, ParallelScanSegmentsAreDisjointAndCoverTheTable) {
  for (uint32_t total : {1u, 3u, 7u, 64u}) {
    std::multiset<std::string> seen;
    for (uint32_t seg = 0; seg < total; ++seg) {
      auto page = Scan(*store_, table_, seg, total, {});
      ASSERT_TRUE(page.ok());
      for (const auto& item : page->items) {
        std::string k = item.at("pk").scalar() + "/" + item.at("sk").scalar();
        EXPECT_EQ(SegmentOfKey(EncodedKey(table_, item), total), seg);
        seen.insert(k);
      }
    }
    EXPECT_EQ(seen.size(), 56u) << total << " segments";
    EXPECT_EQ(std::set<std::string>(seen.begin(), seen.end()).size(), 56u);
  }
}

TEST_F(QueryScanTest, ScanPagesStopAtOneMegabyte) {
  table_.id = 3;
  table_.key.range.reset();
  std::string big(300 * 1024, 'x');
  for (int i = 0; i < 8; ++i) Put({{"pk", S("k" + std::to_string(i))}, {"blob", S(big)}});
  size_t total = 0, pages = 0;
  std::optional<model::Item> start;
  do {
    PageOptions options;
    options.exclusive_start_key = start ? &*start : nullptr;
    auto page = Scan(*store_, table_, 0, 1, options);
    ASSERT_TRUE(page.ok());
    EXPECT_LE(page->items.size(), 4u);
    total += page->items.size();
    start = page->last_evaluated_key;
    ++pages;
  } while (start);
  EXPECT_EQ(total, 8u);
  EXPECT_GE(pages, 2u);
}

}  // namespace
}  // namespace ttlstore::ops
