// The purge of the Tablestore model over a real Store with a fake clock: which rows a pass reads
// (only those the purge index names), what it drops (only what the current options hide), and
// that the index stays exactly what the rows need through every kind of write (T2, T3, T6, T8).
#include "ops/row_purger.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <set>

#include "backup/backup_file.h"
#include "backup/backups.h"
#include "check/consistency.h"
#include "ops/item_ops.h"
#include "ops/row_batch.h"
#include "storage/catalog_codec.h"
#include "versions/purge_index.h"

namespace ttlstore::ops {
namespace {

using model::CellValue;

// A round minute, so that bucket boundaries fall where the tests expect them.
constexpr int64_t kNow = 1'700'000'040'000;
static_assert(kNow % versions::kAgeBucketMs == 0);

class RowPurgerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("ttlstore_row_purger_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    Open();
    model::TableDescriptor spec;
    spec.name = "versions";
    spec.key.hash = {"id", model::ValueType::kS};
    spec.tablestore.emplace();
    spec.tablestore->primary_key = {{"id", model::PkType::kString}};
    spec.tablestore->options.max_versions = 1;
    ASSERT_TRUE(catalog_->Create(spec).ok());
    spec.name = "other";
    ASSERT_TRUE(catalog_->Create(spec).ok());
  }
  void Open() {
    storage::StoreOptions options;
    options.path = dir_.string();
    auto s = storage::Store::Open(options);
    ASSERT_TRUE(s.ok()) << s.error().message();
    store_ = std::move(*s);
    catalog_ = std::make_unique<TableCatalog>(*store_, clock_);
    ASSERT_TRUE(catalog_->Load().ok());
    rows_ = std::make_unique<RowOps>(*store_, clock_);
    purger_ = std::make_unique<RowPurger>(*store_, *catalog_, *rows_, clock_, counters_);
  }
  void Close() {
    purger_.reset();
    rows_.reset();
    catalog_.reset();
    store_.reset();
  }
  void TearDown() override {
    Close();
    std::filesystem::remove_all(dir_);
  }

  TablePtr Table(const std::string& name = "versions") {
    return catalog_->Find(name, Front::kTablestore);
  }
  void SetOptions(int32_t ttl, int32_t max_versions, const std::string& name = "versions") {
    auto r = catalog_->Update(
        name,
        [&](model::TableDescriptor& t) {
          t.tablestore->options.time_to_live = ttl;
          t.tablestore->options.max_versions = max_versions;
          return Status::Ok();
        },
        Front::kTablestore);
    ASSERT_TRUE(r.ok());
  }
  static std::vector<versions::PkCell> Pk(const std::string& id) {
    return {{"id", CellValue::String(id)}};
  }
  void Put(const std::string& id, const std::string& column, int64_t ts,
           const std::string& table = "versions") {
    RowChange change;
    change.kind = RowChange::Kind::kUpdate;
    change.primary_key = Pk(id);
    change.cells.push_back({CellChange::Kind::kPut, column, CellValue::Integer(ts), ts});
    ASSERT_TRUE(rows_->Write(*Table(table), change).ok());
  }
  // Visible versions of every column, newest first per column, asking for up to 100.
  std::vector<int64_t> Versions(const std::string& id, const std::string& table = "versions") {
    versions::ReadSpec spec;
    spec.max_versions = 100;
    auto r = rows_->Get(*Table(table), Pk(id), spec);
    EXPECT_TRUE(r.ok());
    std::vector<int64_t> out;
    if (!r.ok() || !r->has_value()) return out;
    for (const auto& c : (*r)->columns) {
      for (const auto& v : c.versions) out.push_back(v.timestamp_ms);
    }
    return out;
  }
  PurgeStats Purge(const std::string& table = "versions") {
    auto stats = purger_->PurgeTable(Table(table)->id);
    EXPECT_TRUE(stats.ok());
    return stats.ok() ? *stats : PurgeStats{};
  }
  // Every entry of the `purge` family, and every entry the stored rows need: equal whenever
  // the index is exact.
  std::set<std::string> IndexEntries() {
    std::set<std::string> out;
    auto it = store_->ScanFamily(storage::Family::kPurge, "", std::string(5, '\xff'), false,
                                 nullptr);
    for (; it->Valid(); it->Next()) {
      if (it->key() != versions::IndexBuiltKey()) out.emplace(it->key());
    }
    return out;
  }
  std::set<std::string> NeededEntries() {
    std::set<std::string> out;
    auto it = store_->ScanFamily(storage::Family::kRows, "", std::string(5, '\xff'), false,
                                 nullptr);
    for (; it->Valid(); it->Next()) {
      versions::StoredRow row;
      EXPECT_TRUE(versions::DecodeRow(it->value(), &row));
      for (auto& m : versions::MarksOf(it->key(), row)) out.insert(std::move(m));
    }
    return out;
  }

  std::filesystem::path dir_;
  FakeClock clock_{kNow};
  PurgeCounters counters_;
  std::unique_ptr<storage::Store> store_;
  std::unique_ptr<TableCatalog> catalog_;
  std::unique_ptr<RowOps> rows_;
  std::unique_ptr<RowPurger> purger_;
};

TEST_F(RowPurgerTest, NothingHiddenMeansNothingRead) {
  SetOptions(-1, 3);
  for (int i = 0; i < 50; ++i) {
    Put("r" + std::to_string(i), "c", kNow - 3);
    Put("r" + std::to_string(i), "c", kNow - 2);
  }
  PurgeStats stats = Purge();
  EXPECT_EQ(stats.rows_read, 0u);
  EXPECT_EQ(stats.versions_purged, 0u);
}

TEST_F(RowPurgerTest, LoweringMaxVersionsPurgesOnlyTheRowsKeepingMore) {  // T2, T3
  SetOptions(-1, 3);
  for (int i = 0; i < 100; ++i) Put("one" + std::to_string(i), "c", kNow - 5);
  for (int i = 0; i < 5; ++i) {
    for (int v = 1; v <= 3; ++v) Put("three" + std::to_string(i), "c", kNow - 10 + v);
  }
  for (int v = 1; v <= 2; ++v) Put("two", "c", kNow - 10 + v);
  SetOptions(-1, 2);
  PurgeStats stats = Purge();
  EXPECT_EQ(stats.rows_read, 5u);  // the rows keeping 3 versions, and no other
  EXPECT_EQ(stats.rows_rewritten, 5u);
  EXPECT_EQ(stats.versions_purged, 5u);
  EXPECT_EQ(IndexEntries(), NeededEntries());
  // Purged data is gone for good; the rest is as it was.
  SetOptions(-1, 3);
  EXPECT_EQ(Versions("three0"), (std::vector<int64_t>{kNow - 7, kNow - 8}));
  EXPECT_EQ(Versions("two"), (std::vector<int64_t>{kNow - 8, kNow - 9}));
  EXPECT_EQ(Versions("one7"), (std::vector<int64_t>{kNow - 5}));
  EXPECT_EQ(Purge().rows_read, 0u);  // a second pass finds nothing left
}

TEST_F(RowPurgerTest, RaisingBeforeThePassRevivesAndThePassThenTouchesNothing) {  // T3
  SetOptions(-1, 3);
  for (int v = 1; v <= 3; ++v) Put("r", "c", kNow - 10 + v);
  SetOptions(-1, 1);
  EXPECT_EQ(Versions("r"), (std::vector<int64_t>{kNow - 7}));
  SetOptions(-1, 3);
  EXPECT_EQ(Purge().versions_purged, 0u);
  EXPECT_EQ(Versions("r"), (std::vector<int64_t>{kNow - 7, kNow - 8, kNow - 9}));
}

TEST_F(RowPurgerTest, TtlPurgesOnlyRowsWhoseOldestVersionIsPastIt) {  // T6, T8
  SetOptions(-1, 5);
  for (int i = 0; i < 50; ++i) Put("fresh" + std::to_string(i), "c", kNow);
  Put("old", "c", kNow - 200'000);       // only an old column
  Put("mixed", "a", kNow - 200'000);     // an old column and
  Put("mixed", "b", kNow);               // a fresh one
  Put("versions", "c", kNow - 200'000);  // an old version and
  Put("versions", "c", kNow - 1'000);    // a fresh one
  SetOptions(120, 5);  // hides the old versions at once
  EXPECT_EQ(Versions("old"), std::vector<int64_t>{});
  // kNow - 200 s lies in the age bucket [kNow - 240 s, kNow - 180 s), which ended before the
  // cutoff now - 120 s: due. The fresh rows' bucket is not.
  PurgeStats stats = Purge();
  EXPECT_EQ(stats.rows_read, 3u);
  EXPECT_EQ(stats.rows_removed, 1u);
  EXPECT_EQ(stats.rows_rewritten, 2u);
  EXPECT_EQ(stats.versions_purged, 3u);
  EXPECT_EQ(IndexEntries(), NeededEntries());
  SetOptions(-1, 5);  // after the purge, raising the TTL brings nothing back
  EXPECT_EQ(Versions("old"), std::vector<int64_t>{});
  EXPECT_EQ(Versions("mixed"), (std::vector<int64_t>{kNow}));
  EXPECT_EQ(Versions("versions"), (std::vector<int64_t>{kNow - 1'000}));
  EXPECT_EQ(Versions("fresh3"), (std::vector<int64_t>{kNow}));
}

TEST_F(RowPurgerTest, ARowInTheBucketStraddlingTheCutoffWaitsForTheBucketToEnd) {
  SetOptions(60, 5);
  Put("r", "c", kNow + 10'000);  // bucket [kNow, kNow + 60 s)
  clock_.Set(kNow + 75'000);     // 65 s old: hidden; cutoff kNow + 15 s is inside the bucket
  EXPECT_EQ(Versions("r"), std::vector<int64_t>{});
  EXPECT_EQ(Purge().rows_read, 0u);
  SetOptions(120, 5);  // not purged yet: a raise still revives it
  EXPECT_EQ(Versions("r"), (std::vector<int64_t>{kNow + 10'000}));
  SetOptions(60, 5);
  clock_.Set(kNow + 120'000);  // the bucket ended at the cutoff: due
  PurgeStats stats = Purge();
  EXPECT_EQ(stats.rows_read, 1u);
  EXPECT_EQ(stats.rows_removed, 1u);
}

TEST_F(RowPurgerTest, LoweringTheTtlMakesOlderBucketsDueWithoutMovingAnyEntry) {
  SetOptions(-1, 1);
  Put("a", "c", kNow - 3'600'000);
  Put("b", "c", kNow - 60'000);
  Put("c", "c", kNow);
  EXPECT_EQ(Purge().rows_read, 0u);  // no TTL: age entries are never due
  SetOptions(1800, 1);
  PurgeStats stats = Purge();
  EXPECT_EQ(stats.rows_read, 1u);
  EXPECT_EQ(stats.rows_removed, 1u);
  EXPECT_EQ(Versions("b"), (std::vector<int64_t>{kNow - 60'000}));
}

TEST_F(RowPurgerTest, APurgeOfOneTableReadsNothingOfAnother) {
  SetOptions(-1, 3, "other");
  for (int v = 1; v <= 3; ++v) Put("r", "c", kNow - 10 + v, "other");
  SetOptions(-1, 3);
  for (int v = 1; v <= 3; ++v) Put("r", "c", kNow - 10 + v);
  SetOptions(-1, 1);
  EXPECT_EQ(Purge().rows_read, 1u);
  SetOptions(-1, 3);
  EXPECT_EQ(Versions("r", "other").size(), 3u);
}

TEST_F(RowPurgerTest, TheIndexIsExactAfterEveryKindOfWrite) {
  SetOptions(3600, 3);
  Put("u", "a", kNow - 120'000);
  Put("u", "a", kNow - 60'000);
  Put("u", "b", kNow);
  EXPECT_EQ(IndexEntries(), NeededEntries());
  EXPECT_EQ(IndexEntries().size(), 2u);  // one age entry, one count entry (2 versions of "a")
  RowChange put;
  put.kind = RowChange::Kind::kPut;
  put.primary_key = Pk("u");
  put.cells.push_back({CellChange::Kind::kPut, "z", CellValue::Integer(1), kNow});
  ASSERT_TRUE(rows_->Write(*Table(), put).ok());  // PutRow replaces the row
  EXPECT_EQ(IndexEntries(), NeededEntries());
  EXPECT_EQ(IndexEntries().size(), 1u);
  RowChange key_only;
  key_only.kind = RowChange::Kind::kPut;
  key_only.primary_key = Pk("k");
  ASSERT_TRUE(rows_->Write(*Table(), key_only).ok());
  EXPECT_EQ(IndexEntries().size(), 1u);  // a row with no version needs no entry
  RowChange del;
  del.kind = RowChange::Kind::kDelete;
  del.primary_key = Pk("u");
  ASSERT_TRUE(rows_->Write(*Table(), del).ok());
  EXPECT_TRUE(IndexEntries().empty());
  Put("v", "a", kNow - 10);
  RowChange drop;
  drop.kind = RowChange::Kind::kUpdate;
  drop.primary_key = Pk("v");
  drop.cells.push_back({CellChange::Kind::kDeleteAllVersions, "a", {}, std::nullopt});
  ASSERT_TRUE(rows_->Write(*Table(), drop).ok());
  EXPECT_TRUE(IndexEntries().empty());
  Put("w", "a", kNow - 10);
  ASSERT_TRUE(catalog_->Delete("versions", Front::kTablestore).ok());
  EXPECT_TRUE(IndexEntries().empty());  // DeleteTable drops the table's entries
}

TEST_F(RowPurgerTest, AHotRowRewrittenWithinOneBucketCostsNoIndexWrite) {
  SetOptions(-1, 1);
  Put("hot", "c", kNow);
  std::set<std::string> first = IndexEntries();
  for (int i = 1; i < 100; ++i) {
    clock_.Set(kNow + i);
    Put("hot", "c", kNow + i);
  }
  EXPECT_EQ(IndexEntries(), first);  // same bucket, one version: the same single entry
}

TEST_F(RowPurgerTest, BuildIndexCoversRowsStoredBeforeTheIndexAndPurgesThem) {
  SetOptions(-1, 1);
  // Rows as a server before the purge index wrote them: the row only, with hidden versions.
  versions::StoredRow row;
  for (int v = 1; v <= 3; ++v) {
    versions::PutVersion(row.FindOrAdd("c"), kNow - 10 + v, CellValue::Integer(v));
  }
  for (const char* id : {"p", "q"}) {
    auto key = versions::EncodeRowKey(Table()->id, Table()->tablestore->primary_key, Pk(id));
    storage::WriteBatch batch(*store_);
    batch.Put(storage::Family::kRows, *key, versions::EncodeRow(row));
    ASSERT_TRUE(store_->Write(batch).ok());
  }
  ASSERT_TRUE(purger_->BuildIndexIfNeeded().ok());
  EXPECT_EQ(IndexEntries(), NeededEntries());
  EXPECT_EQ(IndexEntries().size(), 2u);  // age entries; the hidden versions are already purged
  EXPECT_EQ(counters_.versions_purged.load(), 4u);
  // Recorded as built: a second call reads no row.
  uint64_t read = counters_.rows_read.load();
  ASSERT_TRUE(purger_->BuildIndexIfNeeded().ok());
  EXPECT_EQ(counters_.rows_read.load(), read);
}

TEST_F(RowPurgerTest, ThePurgeIndexSurvivesAReopen) {
  SetOptions(-1, 3);
  for (int v = 1; v <= 3; ++v) Put("r", "c", kNow - 10 + v);
  SetOptions(-1, 1);
  Close();
  Open();
  PurgeStats stats = Purge();
  EXPECT_EQ(stats.rows_read, 1u);
  EXPECT_EQ(stats.versions_purged, 2u);
}

TEST_F(RowPurgerTest, AStaleEntryIsDroppedWithoutTouchingTheRow) {
  SetOptions(-1, 1);
  Put("r", "c", kNow);
  // An entry the row does not need (a count entry: "r" keeps one version).
  versions::StoredRow fake;
  for (int v = 1; v <= 3; ++v) {
    versions::PutVersion(fake.FindOrAdd("c"), kNow - v, CellValue::Integer(v));
  }
  auto key = versions::EncodeRowKey(Table()->id, Table()->tablestore->primary_key, Pk("r"));
  std::string stale;
  for (const auto& m : versions::MarksOf(*key, fake)) {
    if (m != *NeededEntries().begin()) stale = m;
  }
  storage::WriteBatch batch(*store_);
  batch.Put(storage::Family::kPurge, stale, {});
  ASSERT_TRUE(store_->Write(batch).ok());
  PurgeStats stats = Purge();
  EXPECT_EQ(stats.rows_read, 1u);
  EXPECT_EQ(stats.rows_rewritten, 0u);
  EXPECT_EQ(IndexEntries(), NeededEntries());
  EXPECT_EQ(Versions("r"), (std::vector<int64_t>{kNow}));
}

TEST_F(RowPurgerTest, TtlstoreCheckFindsAMissingOrAnExtraEntry) {
  ASSERT_TRUE(purger_->BuildIndexIfNeeded().ok());  // the index is whole from here on
  SetOptions(-1, 3);
  for (int v = 1; v <= 3; ++v) Put("r", "c", kNow - 10 + v);
  Put("s", "c", kNow);
  auto check = [&] {
    auto report = check::CheckStore(*store_, clock_.NowMs());
    EXPECT_TRUE(report.ok());
    return report.ok() ? report->problem_count : 999;
  };
  EXPECT_EQ(check(), 0u);
  std::string entry = *IndexEntries().begin();
  storage::WriteBatch drop(*store_);
  drop.Delete(storage::Family::kPurge, entry);
  ASSERT_TRUE(store_->Write(drop).ok());
  EXPECT_EQ(check(), 1u);  // a row lacks its entry
  storage::WriteBatch restore(*store_);
  restore.Put(storage::Family::kPurge, entry, {});
  auto key = versions::EncodeRowKey(Table()->id, Table()->tablestore->primary_key, Pk("gone"));
  versions::StoredRow row;
  versions::PutVersion(row.FindOrAdd("c"), kNow, CellValue::Integer(1));
  restore.Put(storage::Family::kPurge, versions::MarksOf(*key, row)[0], {});
  ASSERT_TRUE(store_->Write(restore).ok());
  EXPECT_EQ(check(), 1u);  // an entry names a row that does not exist
}

TEST_F(RowPurgerTest, ARestoredTableHasItsPurgeIndex) {
  SetOptions(-1, 3);
  for (int v = 1; v <= 3; ++v) Put("r", "c", kNow - 10 + v);
  Put("s", "c", kNow);
  std::string path = (dir_ / "versions.ttlbak").string();
  backup::BackupHeader header;
  header.backup_arn = "arn:test/backup/1";
  header.table_descriptor = storage::EncodeTableDescriptor(*Table());
  ASSERT_TRUE(backup::ExportTable(*store_, *Table(), header, path, nullptr).ok());
  auto reader = backup::BackupReader::Open(path);
  ASSERT_TRUE(reader.ok());
  backup::BackupRecord record;
  record.header = (*reader)->header();
  record.source = *Table();
  auto spec = backup::RestoredDescriptor(record, "restored", {}, kNow);
  ASSERT_TRUE(spec.ok());
  auto restored = catalog_->Create(std::move(*spec));
  ASSERT_TRUE(restored.ok());
  ItemOps items(*store_);
  std::atomic<bool> cancel{false};
  ASSERT_TRUE(backup::ImportRecords(*store_, items, *catalog_, **restored, **reader, cancel,
                                    nullptr).ok());
  EXPECT_EQ(IndexEntries(), NeededEntries());
  EXPECT_EQ(IndexEntries().size(), 6u);  // each table: age entries of r and s, count entry of r
  SetOptions(-1, 1, "restored");
  EXPECT_EQ(Purge("restored").rows_read, 1u);
  EXPECT_EQ(Versions("r", "versions").size(), 3u);  // the source table is its own
}

}  // namespace
}  // namespace ttlstore::ops
