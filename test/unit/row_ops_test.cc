// RowOps over a real Store with a fake clock: write versions, read them under changing options,
// check what a write trims and what remains for the purge (T2, T3, T6, T8, T9, T10). The purge
// itself: row_purger_test.cc.
#include "ops/row_ops.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "ops/table_ops.h"

namespace ttlstore::ops {
namespace {

using model::CellValue;

constexpr int64_t kNow = 1'700'000'000'000;

class RowOpsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("ttlstore_row_ops_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    storage::StoreOptions options;
    options.path = dir_.string();
    auto s = storage::Store::Open(options);
    ASSERT_TRUE(s.ok()) << s.error().message();
    store_ = std::move(*s);
    catalog_ = std::make_unique<TableCatalog>(*store_, clock_);
    ASSERT_TRUE(catalog_->Load().ok());
    rows_ = std::make_unique<RowOps>(*store_, clock_);
    model::TableDescriptor spec;
    spec.name = "versions";
    spec.key.hash = {"id", model::ValueType::kS};
    spec.tablestore.emplace();
    spec.tablestore->primary_key = {{"id", model::PkType::kString}};
    spec.tablestore->options.max_versions = 1;
    auto t = catalog_->Create(spec);
    ASSERT_TRUE(t.ok());
  }
  void TearDown() override {
    rows_.reset();
    catalog_.reset();
    store_.reset();
    std::filesystem::remove_all(dir_);
  }

  TablePtr Table() { return catalog_->Find("versions", Front::kTablestore); }
  void SetOptions(int32_t ttl, int32_t max_versions) {
    auto r = catalog_->Update(
        "versions",
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
  Status PutVersion(const std::string& id, int64_t ts, int64_t v) {
    RowChange change;
    change.kind = RowChange::Kind::kUpdate;
    change.primary_key = Pk(id);
    change.cells.push_back({CellChange::Kind::kPut, "col", CellValue::Integer(v), ts});
    return rows_->Write(*Table(), change);
  }
  // Visible versions of "col" (newest first), asking for up to 100.
  std::vector<int64_t> Versions(const std::string& id) {
    versions::ReadSpec spec;
    spec.max_versions = 100;
    auto r = rows_->Get(*Table(), Pk(id), spec);
    EXPECT_TRUE(r.ok());
    std::vector<int64_t> out;
    if (!r.ok() || !r->has_value()) return out;
    for (const auto& c : (*r)->columns) {
      for (const auto& v : c.versions) out.push_back(v.timestamp_ms);
    }
    return out;
  }

  // Versions of "col" the `rows` family holds for the row, hidden ones included.
  size_t StoredVersions(const std::string& id) {
    auto key = versions::EncodeRowKey(Table()->id, Table()->tablestore->primary_key, Pk(id));
    EXPECT_TRUE(key.ok());
    auto raw = store_->Get(storage::Family::kRows, *key);
    EXPECT_TRUE(raw.ok());
    if (!raw.ok() || !raw->has_value()) return 0;
    versions::StoredRow row;
    EXPECT_TRUE(versions::DecodeRow(**raw, &row));
    const versions::Column* c = row.Find("col");
    if (!c) c = row.Find("n");
    return c ? c->versions.size() : 0;
  }

  std::filesystem::path dir_;
  FakeClock clock_{kNow};
  std::unique_ptr<storage::Store> store_;
  std::unique_ptr<TableCatalog> catalog_;
  std::unique_ptr<RowOps> rows_;
};

TEST_F(RowOpsTest, MaxVersionsHidesAtOnceAndRaisingBringsBackWhatNoWriteTrimmed) {  // T2, T3
  SetOptions(-1, 3);
  for (int i = 1; i <= 3; ++i) ASSERT_TRUE(PutVersion("r", kNow - 10 + i, i).ok());
  SetOptions(-1, 1);
  EXPECT_EQ(Versions("r"), (std::vector<int64_t>{kNow - 7}));  // hidden at once
  SetOptions(-1, 3);  // nobody wrote "r" since: everything comes back
  EXPECT_EQ(Versions("r"), (std::vector<int64_t>{kNow - 7, kNow - 8, kNow - 9}));
  SetOptions(-1, 2);
  EXPECT_EQ(Versions("r").size(), 2u);
}

TEST_F(RowOpsTest, AWriteTrimsWhatMaxVersionsHides) {
  for (int i = 1; i <= 3; ++i) ASSERT_TRUE(PutVersion("r", kNow - 10 + i, i).ok());
  EXPECT_EQ(StoredVersions("r"), 1u);  // max versions 1: each write dropped the one before
  SetOptions(-1, 3);
  EXPECT_EQ(Versions("r"), (std::vector<int64_t>{kNow - 7}));  // trimmed data is gone for good
  // An older timestamp than the newest version is hidden the moment it is written: not kept.
  SetOptions(-1, 1);
  ASSERT_TRUE(PutVersion("r", kNow - 100, 9).ok());
  EXPECT_EQ(StoredVersions("r"), 1u);
  EXPECT_EQ(Versions("r"), (std::vector<int64_t>{kNow - 7}));
}

TEST_F(RowOpsTest, AWriteAfterLoweringMaxVersionsTrimsForGood) {  // T3, the new rule
  SetOptions(-1, 3);
  for (int i = 1; i <= 3; ++i) ASSERT_TRUE(PutVersion("w", kNow - 10 + i, i).ok());
  for (int i = 1; i <= 3; ++i) ASSERT_TRUE(PutVersion("x", kNow - 10 + i, i).ok());
  SetOptions(-1, 1);
  // A write to another column of "w" trims "col" too: the whole row is rewritten.
  RowChange other;
  other.kind = RowChange::Kind::kUpdate;
  other.primary_key = Pk("w");
  other.cells.push_back({CellChange::Kind::kPut, "other", CellValue::Integer(0), kNow});
  ASSERT_TRUE(rows_->Write(*Table(), other).ok());
  SetOptions(-1, 3);
  EXPECT_EQ(Versions("w"), (std::vector<int64_t>{kNow - 7, kNow}));  // "col", then "other"
  EXPECT_EQ(Versions("x"), (std::vector<int64_t>{kNow - 7, kNow - 8, kNow - 9}));  // untouched
}

TEST_F(RowOpsTest, DeletingTheNewestVersionDoesNotReviveAHiddenOne) {
  SetOptions(-1, 3);
  for (int i = 1; i <= 3; ++i) ASSERT_TRUE(PutVersion("d", kNow - 10 + i, i).ok());
  SetOptions(-1, 2);  // kNow - 9 is hidden
  RowChange del;
  del.kind = RowChange::Kind::kUpdate;
  del.primary_key = Pk("d");
  del.cells.push_back({CellChange::Kind::kDeleteOneVersion, "col", {}, kNow - 7});
  ASSERT_TRUE(rows_->Write(*Table(), del).ok());
  EXPECT_EQ(Versions("d"), (std::vector<int64_t>{kNow - 8}));
  SetOptions(-1, 3);
  EXPECT_EQ(Versions("d"), (std::vector<int64_t>{kNow - 8}));
}

TEST_F(RowOpsTest, IncrementsKeepTheRowAtMaxVersions) {
  RowChange inc;
  inc.kind = RowChange::Kind::kUpdate;
  inc.primary_key = Pk("n");
  inc.cells.push_back({CellChange::Kind::kIncrement, "n", CellValue::Integer(1), std::nullopt});
  for (int i = 0; i < 1000; ++i) {
    clock_.Advance(1);
    ASSERT_TRUE(rows_->Write(*Table(), inc).ok());
  }
  EXPECT_EQ(StoredVersions("n"), 1u);
  EXPECT_EQ(rows_->versions_trimmed(), 999u);
  SetOptions(-1, 3);
  for (int i = 0; i < 10; ++i) {
    clock_.Advance(1);
    ASSERT_TRUE(rows_->Write(*Table(), inc).ok());
  }
  EXPECT_EQ(StoredVersions("n"), 3u);
  versions::ReadSpec spec;
  auto row = rows_->Get(*Table(), Pk("n"), spec);
  ASSERT_TRUE(row.ok() && row->has_value());
  EXPECT_EQ((*row)->columns[0].versions[0].value, CellValue::Integer(1010));
}

TEST_F(RowOpsTest, AWriteTrimsWhatTheTtlHidesAndARaiseBringsBackOnlyUnwrittenRows) {  // T6, T8
  SetOptions(60, 5);
  ASSERT_TRUE(PutVersion("written", kNow - 50'000, 1).ok());
  ASSERT_TRUE(PutVersion("idle", kNow - 50'000, 1).ok());
  clock_.Advance(20'000);  // both versions are now 70 s old: hidden
  EXPECT_TRUE(Versions("written").empty());
  RowChange other;
  other.kind = RowChange::Kind::kUpdate;
  other.primary_key = Pk("written");
  other.cells.push_back({CellChange::Kind::kPut, "other", CellValue::Integer(0), std::nullopt});
  ASSERT_TRUE(rows_->Write(*Table(), other).ok());
  SetOptions(120, 5);
  EXPECT_EQ(Versions("written"), (std::vector<int64_t>{kNow + 20'000}));  // "col" was trimmed
  EXPECT_EQ(Versions("idle"), (std::vector<int64_t>{kNow - 50'000}));     // revived
}

TEST_F(RowOpsTest, TtlHidesRowsAtOnceAndRaisingBringsThemBack) {
  SetOptions(60, 5);
  ASSERT_TRUE(PutVersion("old", kNow - 50'000, 1).ok());
  ASSERT_TRUE(PutVersion("new", kNow, 2).ok());
  clock_.Advance(20'000);  // "old" is now 70 s old
  EXPECT_TRUE(Versions("old").empty());
  EXPECT_EQ(Versions("new").size(), 1u);
  RangeRequest all;
  all.start = {{"id", CellValue::Marker(model::CellType::kInfMin)}};
  all.end = {{"id", CellValue::Marker(model::CellType::kInfMax)}};
  auto range = rows_->GetRange(*Table(), all);
  ASSERT_TRUE(range.ok());
  ASSERT_EQ(range->rows.size(), 1u);
  EXPECT_EQ(range->rows[0].primary_key[0].value, CellValue::String("new"));
  SetOptions(120, 5);  // raising before the purge brings it back (T8)
  EXPECT_EQ(Versions("old").size(), 1u);
}

TEST_F(RowOpsTest, WriteWindowFailsTheWholeRow) {
  RowChange change;
  change.kind = RowChange::Kind::kPut;
  change.primary_key = Pk("w");
  change.cells.push_back({CellChange::Kind::kPut, "ok", CellValue::Integer(1), kNow});
  change.cells.push_back({CellChange::Kind::kPut, "bad", CellValue::Integer(2),
                          kNow - 86'401'000});
  auto s = rows_->Write(*Table(), change);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message(), "Invalid timestamp. Cell:bad.");
  EXPECT_TRUE(Versions("w").empty());
  versions::ReadSpec spec;
  EXPECT_FALSE(rows_->Get(*Table(), Pk("w"), spec)->has_value());
}

TEST_F(RowOpsTest, ConditionsAllowUpdateAndIncrement) {
  RowChange put;
  put.kind = RowChange::Kind::kPut;
  put.primary_key = Pk("c");
  put.condition = RowExistence::kExpectExist;
  auto s = rows_->Write(*Table(), put);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code(), ErrorCode::kConditionalCheckFailed);
  put.condition = RowExistence::kExpectNotExist;
  put.cells.push_back({CellChange::Kind::kPut, "n", CellValue::Integer(40), std::nullopt});
  ASSERT_TRUE(rows_->Write(*Table(), put).ok());
  EXPECT_FALSE(rows_->Write(*Table(), put).ok());

  RowChange inc;
  inc.kind = RowChange::Kind::kUpdate;
  inc.primary_key = Pk("c");
  clock_.Advance(1);
  inc.cells.push_back({CellChange::Kind::kIncrement, "n", CellValue::Integer(2), std::nullopt});
  ASSERT_TRUE(rows_->Write(*Table(), inc).ok());
  versions::ReadSpec spec;
  auto row = rows_->Get(*Table(), Pk("c"), spec);
  ASSERT_TRUE(row.ok() && row->has_value());
  EXPECT_EQ((*row)->columns[0].versions[0].value, CellValue::Integer(42));

  ASSERT_TRUE(catalog_->Update("versions", [](model::TableDescriptor& t) {
    t.tablestore->options.allow_update = false;
    return Status::Ok();
  }, Front::kTablestore).ok());
  EXPECT_FALSE(rows_->Write(*Table(), inc).ok());
}

TEST_F(RowOpsTest, UpdateThatLeavesNoCellDeletesTheRowButKeyOnlyPutKeepsIt) {
  ASSERT_TRUE(PutVersion("u", kNow, 1).ok());
  RowChange drop;
  drop.kind = RowChange::Kind::kUpdate;
  drop.primary_key = Pk("u");
  drop.cells.push_back({CellChange::Kind::kDeleteAllVersions, "col", {}, std::nullopt});
  ASSERT_TRUE(rows_->Write(*Table(), drop).ok());
  versions::ReadSpec spec;
  EXPECT_FALSE(rows_->Get(*Table(), Pk("u"), spec)->has_value());
  RowChange key_only;
  key_only.kind = RowChange::Kind::kPut;
  key_only.primary_key = Pk("k");
  ASSERT_TRUE(rows_->Write(*Table(), key_only).ok());
  auto row = rows_->Get(*Table(), Pk("k"), spec);
  ASSERT_TRUE(row.ok() && row->has_value());
  EXPECT_TRUE((*row)->columns.empty());
  EXPECT_EQ((*row)->primary_key.size(), 1u);
}

TEST_F(RowOpsTest, UpdateFullRowStampsEveryColumnAgain) {
  auto set_full_row = [&](bool on) {
    ASSERT_TRUE(catalog_->Update("versions", [&](model::TableDescriptor& t) {
      t.tablestore->options.update_full_row = on;
      t.tablestore->options.max_versions = 2;
      return Status::Ok();
    }, Front::kTablestore).ok());
  };
  set_full_row(false);
  RowChange put;
  put.kind = RowChange::Kind::kPut;
  put.primary_key = Pk("f");
  put.cells.push_back({CellChange::Kind::kPut, "a", CellValue::Integer(1), kNow - 1000});
  put.cells.push_back({CellChange::Kind::kPut, "b", CellValue::Integer(2), kNow - 1000});
  ASSERT_TRUE(rows_->Write(*Table(), put).ok());
  RowChange update;
  update.kind = RowChange::Kind::kUpdate;
  update.primary_key = Pk("f");
  update.cells.push_back({CellChange::Kind::kPut, "a", CellValue::Integer(3), std::nullopt});
  versions::StoredRow after;
  // Without the option, only the named column changes.
  ASSERT_TRUE(rows_->Write(*Table(), update, &after).ok());
  EXPECT_EQ(after.Find("b")->versions.size(), 1u);
  EXPECT_EQ(after.Find("b")->versions[0].timestamp_ms, kNow - 1000);
  // With it, every other column gets its newest value again, stamped with the write's time.
  set_full_row(true);
  clock_.Advance(10);
  ASSERT_TRUE(rows_->Write(*Table(), update, &after).ok());
  const versions::Column* b = after.Find("b");
  ASSERT_EQ(b->versions.size(), 2u);
  EXPECT_EQ(b->versions[0].timestamp_ms, kNow + 10);
  EXPECT_EQ(b->versions[0].value, CellValue::Integer(2));
  EXPECT_EQ(after.Find("a")->versions[0].timestamp_ms, kNow + 10);
  EXPECT_EQ(after.Find("a")->versions[0].value, CellValue::Integer(3));
  // A PutRow is whole anyway; a new row has nothing to stamp again.
  update.primary_key = Pk("new");
  ASSERT_TRUE(rows_->Write(*Table(), update, &after).ok());
  EXPECT_EQ(after.columns.size(), 1u);
}

TEST_F(RowOpsTest, WriteAllWritesEveryRowOrNone) {
  auto put = [](const std::string& id, int64_t v, RowExistence cond = RowExistence::kIgnore) {
    RowChange c;
    c.kind = RowChange::Kind::kPut;
    c.primary_key = Pk(id);
    c.condition = cond;
    c.cells.push_back({CellChange::Kind::kPut, "col", CellValue::Integer(v), std::nullopt});
    return c;
  };
  ASSERT_TRUE(PutVersion("x", kNow, 1).ok());
  // The third change's condition fails: nothing of the first two is written.
  std::vector<RowChange> changes{put("y", 2), put("z", 3),
                                 put("x", 4, RowExistence::kExpectNotExist)};
  size_t failed = 99;
  Status st = rows_->WriteAll(*Table(), changes, nullptr, &failed);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code(), ErrorCode::kConditionalCheckFailed);
  EXPECT_EQ(failed, 2u);
  versions::ReadSpec spec;
  EXPECT_FALSE(rows_->Get(*Table(), Pk("y"), spec)->has_value());
  EXPECT_FALSE(rows_->Get(*Table(), Pk("z"), spec)->has_value());
  // A key twice: the second change sees the first one's row (EXPECT_EXIST passes on a row the
  // batch itself made), and the row ends as the last change left it.
  RowChange inc;
  inc.kind = RowChange::Kind::kUpdate;
  inc.primary_key = Pk("y");
  inc.condition = RowExistence::kExpectExist;
  inc.cells.push_back({CellChange::Kind::kIncrement, "col", CellValue::Integer(5), std::nullopt});
  RowChange del;
  del.kind = RowChange::Kind::kDelete;
  del.primary_key = Pk("x");
  changes = {put("y", 2), inc, put("z", 3), del};
  std::vector<versions::StoredRow> afters;
  ASSERT_TRUE(rows_->WriteAll(*Table(), changes, &afters, &failed).ok());
  ASSERT_EQ(afters.size(), 4u);
  EXPECT_EQ(afters[0].Find("col")->versions[0].value, CellValue::Integer(2));
  EXPECT_EQ(afters[1].Find("col")->versions[0].value, CellValue::Integer(7));
  EXPECT_TRUE(afters[3].columns.empty());
  auto y = rows_->Get(*Table(), Pk("y"), spec);
  ASSERT_TRUE(y.ok() && y->has_value());
  EXPECT_EQ((*y)->columns[0].versions[0].value, CellValue::Integer(7));
  EXPECT_TRUE(rows_->Get(*Table(), Pk("z"), spec)->has_value());
  EXPECT_FALSE(rows_->Get(*Table(), Pk("x"), spec)->has_value());
}

TEST_F(RowOpsTest, DeleteTableDropsRowsAndTablesAreInvisibleToTheOtherFront) {
  ASSERT_TRUE(PutVersion("r", kNow, 1).ok());
  EXPECT_EQ(catalog_->Find("versions"), nullptr);  // the DynamoDB front end does not see it
  EXPECT_TRUE(catalog_->List(std::nullopt, 100).names.empty());
  EXPECT_EQ(catalog_->List(std::nullopt, 100, Front::kTablestore).names.size(), 1u);
  EXPECT_FALSE(catalog_->Delete("versions").ok());
  uint32_t id = Table()->id;
  ASSERT_TRUE(catalog_->Delete("versions", Front::kTablestore).ok());
  auto it = store_->ScanFamily(storage::Family::kRows, versions::TableRowsBegin(id),
                               versions::TableRowsEnd(id), false, nullptr);
  EXPECT_FALSE(it->Valid());
}

}  // namespace
}  // namespace ttlstore::ops
