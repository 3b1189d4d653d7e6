// The purge index's key layout as pure functions: which entries a row needs, and that the scan
// ranges the purge uses hold exactly the rows that can hold hidden versions.
#include "versions/purge_index.h"

#include <gtest/gtest.h>

#include "common/coding.h"
#include "versions/visibility.h"

namespace ttlstore::versions {
namespace {

constexpr int64_t kMinute = kAgeBucketMs;
constexpr int64_t kNow = 28'333'334 * kMinute;  // a bucket boundary, Nov 2023

std::string RowKey(uint32_t table_id, std::string_view pk) {
  std::string key;
  PutFixed32BE(&key, table_id);
  key.append(pk);
  return key;
}

StoredRow RowWith(std::initializer_list<std::pair<const char*, std::vector<int64_t>>> columns) {
  StoredRow row;
  for (const auto& [name, timestamps] : columns) {
    for (int64_t ts : timestamps) PutVersion(row.FindOrAdd(name), ts, model::CellValue::Integer(1));
  }
  return row;
}

bool InRange(const std::string& key, const std::string& begin, const std::string& end) {
  return key >= begin && key < end;
}

TEST(PurgeIndex, AgeBucketsAreFloorDivision) {
  EXPECT_EQ(AgeBucket(0), 0);
  EXPECT_EQ(AgeBucket(kMinute - 1), 0);
  EXPECT_EQ(AgeBucket(kMinute), 1);
  EXPECT_EQ(AgeBucket(-1), -1);  // negative timestamps are legal with a huge deviation (T9)
  EXPECT_EQ(AgeBucket(-kMinute), -1);
  EXPECT_EQ(AgeBucket(-kMinute - 1), -2);
}

TEST(PurgeIndex, ARowNeedsAnAgeEntryAndACountEntryOnlyWithSeveralVersions) {
  std::string key = RowKey(7, "pk");
  EXPECT_TRUE(MarksOf(key, StoredRow{}).empty());  // primary key only: nothing can be hidden
  auto single = MarksOf(key, RowWith({{"a", {kNow}}, {"b", {kNow - 5}}}));
  ASSERT_EQ(single.size(), 1u);
  auto multi = MarksOf(key, RowWith({{"a", {kNow, kNow - 1, kNow - 2}}, {"b", {kNow - 5}}}));
  ASSERT_EQ(multi.size(), 2u);
  for (const auto& m : multi) {
    std::string back;
    ASSERT_TRUE(RowKeyOfMark(m, &back));
    EXPECT_EQ(back, key);
    EXPECT_TRUE(InRange(m, TableMarksBegin(7), TableMarksEnd(7)));
    EXPECT_FALSE(InRange(m, TableMarksBegin(8), TableMarksEnd(8)));
  }
  // The count entry names the most versions any column keeps: due from max versions 2 down.
  const std::string& count = multi[1];
  EXPECT_TRUE(InRange(count, CountMarksBegin(7, 1), CountMarksEnd(7)));
  EXPECT_TRUE(InRange(count, CountMarksBegin(7, 2), CountMarksEnd(7)));
  EXPECT_FALSE(InRange(count, CountMarksBegin(7, 3), CountMarksEnd(7)));
  EXPECT_FALSE(InRange(count, CountMarksBegin(7, INT32_MAX), CountMarksEnd(7)));
  EXPECT_FALSE(InRange(multi[0], CountMarksBegin(7, 1), CountMarksEnd(7)));
}

TEST(PurgeIndex, AnAgeEntryIsDueExactlyWhenItsBucketHasEndedBeforeTheCutoff) {
  std::string key = RowKey(3, "r");
  // Oldest version kNow - 90 s: bucket [kNow - 120 s, kNow - 60 s).
  auto marks = MarksOf(key, RowWith({{"a", {kNow, kNow - 90'000}}, {"b", {kNow - 10}}}));
  const std::string& age = marks[0];
  auto due = [&](int64_t cutoff) {
    return InRange(age, AgeMarksBegin(3), AgeMarksEnd(3, cutoff));
  };
  EXPECT_FALSE(due(kNow - 90'000));     // the version itself is only just at the cutoff
  EXPECT_FALSE(due(kNow - 60'001));     // hidden, but its bucket has not ended
  EXPECT_TRUE(due(kNow - 60'000));      // the bucket ended at the cutoff
  EXPECT_TRUE(due(kNow + 86'400'000));  // and stays due
  EXPECT_FALSE(InRange(age, AgeMarksBegin(4), AgeMarksEnd(4, kNow)));
}

TEST(PurgeIndex, EveryRowWithAHiddenVersionUnderTheTtlIsInTheRangeOneBucketLater) {
  // Whatever the TTL and the clock, a row whose oldest version is hidden by the TTL at `now`
  // is due at now + one bucket, and a due row always holds a hidden version.
  std::string key = RowKey(1, "x");
  for (int64_t oldest : {kNow - 1, kNow - 59'999, kNow - 60'000, kNow - 3'600'000, int64_t{-5}}) {
    StoredRow row = RowWith({{"c", {kNow + 1000, oldest}}});
    std::string age = MarksOf(key, row)[0];
    for (int32_t ttl : {0, 1, 59, 60, 61, 3600}) {
      for (int64_t now = kNow; now < kNow + 3 * kMinute; now += 7'001) {
        model::VersionOptions options;
        options.time_to_live = ttl;
        options.max_versions = 5;
        int64_t cutoff = now - int64_t{ttl} * 1000;
        bool hidden = VisibleCount(row.columns[0], options, now) < 2;
        bool is_due = InRange(age, AgeMarksBegin(1), AgeMarksEnd(1, cutoff));
        if (is_due) {
          EXPECT_TRUE(hidden) << "oldest " << oldest << " ttl " << ttl << " now " << now;
        }
        if (hidden) {
          EXPECT_TRUE(InRange(age, AgeMarksBegin(1), AgeMarksEnd(1, cutoff + kMinute)))
              << "oldest " << oldest << " ttl " << ttl << " now " << now;
        }
      }
    }
  }
}

TEST(PurgeIndex, TheBuiltRecordIsNoEntryOfAnyTable) {
  std::string back;
  EXPECT_FALSE(RowKeyOfMark(IndexBuiltKey(), &back));
  EXPECT_LT(IndexBuiltKey(), TableMarksBegin(1));
}

}  // namespace
}  // namespace ttlstore::versions
