// The Tablestore model's rules as pure functions: what readers see (T2, T3, T5, T6, T8), the
// write window (T9) and the purge verdict, driven by a fake clock.
#include "versions/visibility.h"

#include <gtest/gtest.h>

#include "common/clock.h"

namespace ttlstore::versions {
namespace {

constexpr int64_t kNow = 1'700'000'000'000;

Column ColumnWith(std::initializer_list<int64_t> timestamps) {
  Column c;
  c.name = "c";
  for (int64_t ts : timestamps) PutVersion(c, ts, model::CellValue::Integer(ts));
  return c;
}

model::VersionOptions Options(int32_t ttl, int32_t max_versions, int64_t deviation = 86400) {
  model::VersionOptions o;
  o.time_to_live = ttl;
  o.max_versions = max_versions;
  o.max_time_deviation = deviation;
  return o;
}

TEST(VersionsVisibility, PutVersionKeepsNewestFirstAndReplacesSameTimestamp) {
  Column c = ColumnWith({10, 30, 20});
  ASSERT_EQ(c.versions.size(), 3u);
  EXPECT_EQ(c.versions[0].timestamp_ms, 30);
  EXPECT_EQ(c.versions[2].timestamp_ms, 10);
  PutVersion(c, 20, model::CellValue::String("x"));
  ASSERT_EQ(c.versions.size(), 3u);
  EXPECT_EQ(c.versions[1].value, model::CellValue::String("x"));
  DeleteVersion(c, 30);
  EXPECT_EQ(c.versions.front().timestamp_ms, 20);
}

// Of the versions a row holds: a write drops what the options hide when it is made, so a raise
// brings back only versions no write has dropped (row_ops_test.cc, row_purger_test.cc).
TEST(VersionsVisibility, MaxVersionsHidesOlderVersionsAndRaisingBringsThemBack) {  // T2, T3
  Column c = ColumnWith({kNow - 3, kNow - 2, kNow - 1});
  EXPECT_EQ(VisibleCount(c, Options(-1, 1), kNow), 1u);
  EXPECT_EQ(VisibleCount(c, Options(-1, 2), kNow), 2u);
  EXPECT_EQ(VisibleCount(c, Options(-1, 5), kNow), 3u);
}

TEST(VersionsVisibility, TtlHidesAtOnceAndRaisingBringsBack) {  // T6, T8
  FakeClock clock(kNow);
  Column c = ColumnWith({kNow - 5'000, kNow - 1'000});
  auto opts = Options(3, 10);
  EXPECT_EQ(VisibleCount(c, opts, clock.NowMs()), 1u);
  clock.Advance(2'001);
  EXPECT_EQ(VisibleCount(c, opts, clock.NowMs()), 0u);
  StoredRow row;
  row.columns.push_back(c);
  EXPECT_FALSE(RowVisible(row, opts, clock.NowMs()));  // every column expired: the row is gone
  EXPECT_TRUE(RowVisible(row, Options(10, 10), clock.NowMs()));
  EXPECT_TRUE(RowVisible(row, Options(-1, 10), clock.NowMs()));
}

TEST(VersionsVisibility, TtlBoundaryIsInclusiveOfAgeEqualToTtl) {
  Column c = ColumnWith({kNow - 86'400'000});
  EXPECT_EQ(VisibleCount(c, Options(86400, 1), kNow), 1u);
  EXPECT_EQ(VisibleCount(c, Options(86400, 1), kNow + 1), 0u);
}

TEST(VersionsVisibility, ReadSpecFiltersTimeRangeThenCapsVersions) {  // T5
  StoredRow row;
  Column& c = row.FindOrAdd("col");
  for (int64_t ts : {100, 200, 300, 400}) PutVersion(c, ts, model::CellValue::Integer(ts));
  row.FindOrAdd("other").versions.push_back({50, model::CellValue::Boolean(true)});
  ReadSpec spec;
  spec.max_versions = 2;
  spec.start_ms = 150;
  spec.end_ms = 400;  // [150, 400)
  auto cols = VisibleColumns(row, Options(-1, 10), 1000, spec);
  ASSERT_EQ(cols.size(), 1u);  // "other" has nothing in range
  ASSERT_EQ(cols[0].versions.size(), 2u);
  EXPECT_EQ(cols[0].versions[0].timestamp_ms, 300);
  EXPECT_EQ(cols[0].versions[1].timestamp_ms, 200);
  spec = ReadSpec{};
  spec.max_versions = 10;
  spec.columns = {"other"};
  cols = VisibleColumns(row, Options(-1, 10), 1000, spec);
  ASSERT_EQ(cols.size(), 1u);
  EXPECT_EQ(cols[0].name, "other");
  // The table's max versions caps before the reader's.
  spec = ReadSpec{};
  spec.max_versions = 10;
  cols = VisibleColumns(row, Options(-1, 3), 1000, spec);
  EXPECT_EQ(cols[0].versions.size(), 3u);
}

TEST(VersionsVisibility, WriteWindowSeedExample) {  // T9, the seed's numbers
  // 2016-07-21 00:00 +08:00, deviation one day.
  const int64_t now = 1'469'030'400'000;
  auto opts = Options(-1, 1, 86400);
  EXPECT_TRUE(CheckWriteWindow(1'468'944'000'000, "c", opts, now).ok());
  auto bad = CheckWriteWindow(1'468'943'999'000, "col1", opts, now);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message(), "Invalid timestamp. Cell:col1.");
  EXPECT_TRUE(CheckWriteWindow(1'469'116'799'000, "c", opts, now).ok());
  EXPECT_FALSE(CheckWriteWindow(1'469'116'800'000, "c", opts, now).ok());
}

TEST(VersionsVisibility, WriteWindowLowerBoundIsTheLaterOfDeviationAndTtl) {  // T9
  auto opts = Options(3600, 1, 86400);
  EXPECT_TRUE(CheckWriteWindow(kNow - 3'600'000, "c", opts, kNow).ok());
  EXPECT_FALSE(CheckWriteWindow(kNow - 3'601'000, "c", opts, kNow).ok());
  // A deviation larger than the seconds since 1970 disables the lower bound.
  auto open = Options(-1, 1, 4'000'000'000);
  EXPECT_TRUE(CheckWriteWindow(0, "c", open, kNow).ok());
  EXPECT_TRUE(CheckWriteWindow(kNow + 1'000'000'000, "c", open, kNow).ok());
}

TEST(VersionsVisibility, PurgeDropsExactlyWhatReadersCannotSee) {
  StoredRow row;
  Column& a = row.FindOrAdd("a");
  for (int64_t ts : {kNow - 3, kNow - 2, kNow - 1}) PutVersion(a, ts, model::CellValue::Integer(1));
  Column& b = row.FindOrAdd("b");
  PutVersion(b, kNow - 10'000, model::CellValue::Integer(2));
  uint64_t purged = 0;
  StoredRow copy = row;
  EXPECT_EQ(PurgeRow(copy, Options(-1, 5), kNow, &purged), PurgeVerdict::kKeep);
  EXPECT_EQ(purged, 0u);
  EXPECT_EQ(PurgeRow(row, Options(5, 2), kNow, &purged), PurgeVerdict::kRewrite);
  EXPECT_EQ(purged, 2u);  // a's oldest, and all of b (expired)
  ASSERT_EQ(row.columns.size(), 1u);
  EXPECT_EQ(row.columns[0].versions.size(), 2u);
  EXPECT_EQ(PurgeRow(row, Options(5, 2), kNow + 10'000, &purged), PurgeVerdict::kRemove);
  StoredRow key_only;
  EXPECT_EQ(PurgeRow(key_only, Options(1, 1), kNow, &purged), PurgeVerdict::kKeep);
}

TEST(VersionsRowCodec, RoundTripsEveryValueType) {
  StoredRow row;
  PutVersion(row.FindOrAdd("i"), 5, model::CellValue::Integer(-42));
  PutVersion(row.FindOrAdd("i"), 6, model::CellValue::Integer(INT64_MIN));
  PutVersion(row.FindOrAdd("d"), 7, model::CellValue::Double(3.25));
  PutVersion(row.FindOrAdd("b"), 8, model::CellValue::Boolean(true));
  PutVersion(row.FindOrAdd("s"), 9, model::CellValue::String(std::string("a\0b", 3)));
  PutVersion(row.FindOrAdd("x"), -1, model::CellValue::Blob("\xff\x00"));
  StoredRow back;
  ASSERT_TRUE(DecodeRow(EncodeRow(row), &back));
  ASSERT_EQ(back.columns.size(), 5u);
  EXPECT_EQ(back.columns[0].name, "b");
  const Column* i = back.Find("i");
  ASSERT_NE(i, nullptr);
  EXPECT_EQ(i->versions[0].value, model::CellValue::Integer(INT64_MIN));
  EXPECT_EQ(i->versions[1].timestamp_ms, 5);
  EXPECT_EQ(back.Find("s")->versions[0].value.bytes, std::string("a\0b", 3));
  EXPECT_EQ(back.Find("x")->versions[0].timestamp_ms, -1);
  std::string bytes = EncodeRow(row);
  for (size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_FALSE(DecodeRow(bytes.substr(0, n), &back)) << n;
  }
}

}  // namespace
}  // namespace ttlstore::versions
