// Tablestore secondary indexes over a real Store with a fake clock: the rows a table row implies
// (versions/index_rows.h), their upkeep by every writer of rows in the write's own batch (a put,
// an update of an indexed column, a delete, the purge after the TTL), the lifetime column that
// hides an index row the moment its table row ages out, the resumable backfill
// (ops/ts_index_backfill.h) and `ttlstore check`'s view of it all (check/ts_index_check.h).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "check/consistency.h"
#include "ops/row_ops.h"
#include "ops/row_purger.h"
#include "ops/table_ops.h"
#include "ops/ts_index_backfill.h"
#include "versions/index_rows.h"
#include "versions/row_key.h"

namespace ttlstore::ops {
namespace {

using model::CellValue;

constexpr int64_t kNow = 1'700'000'040'000;
constexpr int64_t kDayMs = 86'400'000;

class TsIndexTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("ttlstore_ts_index_test_" + std::to_string(::getpid()) + "_" +
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
    purger_ = std::make_unique<RowPurger>(*store_, *catalog_, *rows_, clock_, counters_);
    backfill_ = std::make_unique<TsIndexBackfill>(*store_, *catalog_, *rows_);
    model::TableDescriptor spec;
    spec.name = "users";
    spec.key.hash = {"id", model::ValueType::kS};
    auto& ts = spec.tablestore.emplace();
    ts.primary_key = {{"region", model::PkType::kString}, {"id", model::PkType::kInteger}};
    ts.defined_columns = {{"email", 4}, {"age", 1}, {"score", 2}};
    ts.options.max_versions = 1;
    ts.options.time_to_live = 86400;
    ts.options.allow_update = false;
    ASSERT_TRUE(catalog_->Create(spec).ok());
  }
  void TearDown() override {
    backfill_.reset();
    purger_.reset();
    rows_.reset();
    catalog_.reset();
    store_.reset();
    std::filesystem::remove_all(dir_);
  }

  TablePtr Table() { return catalog_->Find("users", Front::kTablestore); }
  // Adds the index (email) with attribute `age`, as CreateIndex does.
  void AddIndex(bool base_data) {
    auto id = catalog_->AllocateId();
    ASSERT_TRUE(id.ok());
    auto r = catalog_->Update(
        "users",
        [&](model::TableDescriptor& t) {
          model::TsIndex ix;
          ix.name = "by_email";
          ix.primary_key = {"email"};
          ix.defined_columns = {"age"};
          ix.rows_id = *id;
          ix.include_base_data = base_data;
          ix.building = base_data;
          t.tablestore->indexes.push_back(ix);
          return Status::Ok();
        },
        Front::kTablestore);
    ASSERT_TRUE(r.ok());
  }
  // The view of the index as readers get it (tablestore/index_handlers.cc builds the same).
  model::TableDescriptor IndexView() {
    TablePtr t = Table();
    const model::TsIndex& ix = t->tablestore->indexes.front();
    model::TableDescriptor v;
    v.id = ix.rows_id;
    v.name = ix.name;
    v.tablestore = versions::IndexSchema(*t->tablestore, ix);
    return v;
  }
  static std::vector<versions::PkCell> Pk(const std::string& region, int64_t id) {
    return {{"region", CellValue::String(region)}, {"id", CellValue::Integer(id)}};
  }
  Status Put(const std::string& region, int64_t id, std::optional<std::string> email,
             int64_t age, int64_t ts) {
    RowChange change;
    change.kind = RowChange::Kind::kPut;
    change.primary_key = Pk(region, id);
    if (email) change.cells.push_back({CellChange::Kind::kPut, "email", CellValue::String(*email), ts});
    change.cells.push_back({CellChange::Kind::kPut, "age", CellValue::Integer(age), ts});
    return rows_->Write(*Table(), change);
  }
  Status Delete(const std::string& region, int64_t id) {
    RowChange change;
    change.kind = RowChange::Kind::kDelete;
    change.primary_key = Pk(region, id);
    return rows_->Write(*Table(), change);
  }
  // Every row of the index, as GetRange returns them: "email/region/id age".
  std::vector<std::string> IndexRows() {
    RangeRequest req;
    for (const char* c : {"email", "region", "id"}) {
      req.start.push_back({c, CellValue::Marker(model::CellType::kInfMin)});
      req.end.push_back({c, CellValue::Marker(model::CellType::kInfMax)});
    }
    auto r = rows_->GetRange(IndexView(), req);
    EXPECT_TRUE(r.ok()) << r.error().message();
    std::vector<std::string> out;
    if (!r.ok()) return out;
    for (const auto& row : r->rows) {
      EXPECT_EQ(row.primary_key.size(), 3u);
      std::string s = row.primary_key[0].value.bytes + "/" + row.primary_key[1].value.bytes +
                      "/" + std::to_string(row.primary_key[2].value.integer);
      for (const auto& c : row.columns) {
        s += " " + c.name + "=" + std::to_string(c.versions.front().value.integer);
      }
      out.push_back(s);
    }
    return out;
  }
  uint64_t Problems() {
    auto r = check::CheckStore(*store_, clock_.NowMs());
    EXPECT_TRUE(r.ok());
    for (const auto& p : r->problems) ADD_FAILURE() << p;
    return r.ok() ? r->problem_count : 1;
  }

  std::filesystem::path dir_;
  FakeClock clock_{kNow};
  PurgeCounters counters_;
  std::unique_ptr<storage::Store> store_;
  std::unique_ptr<TableCatalog> catalog_;
  std::unique_ptr<RowOps> rows_;
  std::unique_ptr<RowPurger> purger_;
  std::unique_ptr<TsIndexBackfill> backfill_;
};

TEST(TsIndexRows, KeyIsIndexColumnsThenRemainingPrimaryKey) {
  model::TablestoreSchema base;
  base.primary_key = {{"a", model::PkType::kString}, {"b", model::PkType::kInteger}};
  base.defined_columns = {{"c", 4}, {"d", 2}};
  model::TsIndex ix;
  ix.name = "i";
  ix.primary_key = {"c", "b"};
  ix.defined_columns = {"d"};
  ix.rows_id = 77;
  auto schema = versions::IndexSchema(base, ix);
  ASSERT_EQ(schema.primary_key.size(), 3u);
  EXPECT_EQ(schema.primary_key[0].name, "c");
  EXPECT_EQ(schema.primary_key[0].type, model::PkType::kString);
  EXPECT_EQ(schema.primary_key[1].name, "b");
  EXPECT_EQ(schema.primary_key[2].name, "a");

  auto key = versions::EncodeRowKey(9, base.primary_key,
                                    {{"a", CellValue::String("x")}, {"b", CellValue::Integer(5)}});
  ASSERT_TRUE(key.ok());
  versions::StoredRow row;
  row.columns = {{"c", {{2000, CellValue::String("cv")}}},
                 {"d", {{3000, CellValue::Double(1.5)}}},
                 {"e", {{4000, CellValue::Integer(1)}}}};
  auto ir = versions::IndexRowOf(base, ix, *key, row);
  ASSERT_TRUE(ir.has_value());
  std::vector<versions::PkCell> pk;
  ASSERT_TRUE(versions::DecodeRowKey(ir->key, schema.primary_key, &pk));
  EXPECT_EQ(pk[0].value.bytes, "cv");
  EXPECT_EQ(pk[1].value.integer, 5);
  EXPECT_EQ(pk[2].value.bytes, "x");
  // The lifetime column (the oldest indexed column's timestamp), then the attribute "d" only.
  ASSERT_EQ(ir->row.columns.size(), 2u);
  EXPECT_EQ(ir->row.columns[0].name, "");
  EXPECT_EQ(ir->row.columns[0].versions[0].timestamp_ms, 2000);
  EXPECT_EQ(ir->row.columns[1].name, "d");
  EXPECT_EQ(ir->row.columns[1].versions[0].timestamp_ms, 3000);

  // A row without the indexed column, or with it of another type, has no index row.
  versions::StoredRow missing;
  missing.columns = {{"d", {{3000, CellValue::Double(1.5)}}}};
  EXPECT_FALSE(versions::IndexRowOf(base, ix, *key, missing).has_value());
  versions::StoredRow wrong;
  wrong.columns = {{"c", {{2000, CellValue::Integer(3)}}}};
  EXPECT_FALSE(versions::IndexRowOf(base, ix, *key, wrong).has_value());
}

TEST_F(TsIndexTest, WritesKeepTheIndexInTheirBatch) {
  AddIndex(false);
  ASSERT_TRUE(Put("eu", 1, "b@x", 30, kNow).ok());
  ASSERT_TRUE(Put("eu", 2, "a@x", 40, kNow).ok());
  ASSERT_TRUE(Put("us", 3, std::nullopt, 50, kNow).ok());  // no email: not indexed
  EXPECT_EQ(IndexRows(), (std::vector<std::string>{"a@x/eu/2 age=40", "b@x/eu/1 age=30"}));
  // A put that changes the indexed column moves the index row.
  ASSERT_TRUE(Put("eu", 1, "c@x", 31, kNow + 1).ok());
  EXPECT_EQ(IndexRows(), (std::vector<std::string>{"a@x/eu/2 age=40", "c@x/eu/1 age=31"}));
  // A put without it removes the row from the index.
  ASSERT_TRUE(Put("eu", 2, std::nullopt, 41, kNow + 2).ok());
  EXPECT_EQ(IndexRows(), (std::vector<std::string>{"c@x/eu/1 age=31"}));
  ASSERT_TRUE(Delete("eu", 1).ok());
  EXPECT_TRUE(IndexRows().empty());
  EXPECT_EQ(Problems(), 0u);
}

TEST_F(TsIndexTest, RowsPastTheTtlVanishFromTheIndexAtOnceAndThePurgeRemovesThem) {
  AddIndex(false);
  ASSERT_TRUE(Put("eu", 1, "old@x", 1, kNow - kDayMs + 60'000).ok());
  ASSERT_TRUE(Put("eu", 2, "new@x", 2, kNow).ok());
  EXPECT_EQ(IndexRows().size(), 2u);
  clock_.Advance(120'000);  // row 1 is past the one-day TTL now
  EXPECT_EQ(IndexRows(), (std::vector<std::string>{"new@x/eu/2 age=2"}));
  auto stored = store_->Get(storage::Family::kRows,
                            *versions::EncodeRowKey(IndexView().id,
                                                    IndexView().tablestore->primary_key,
                                                    {{"email", CellValue::String("old@x")},
                                                     {"region", CellValue::String("eu")},
                                                     {"id", CellValue::Integer(1)}}));
  ASSERT_TRUE(stored.ok());
  EXPECT_TRUE(stored->has_value());  // hidden, not yet purged
  clock_.Advance(120'000);
  ASSERT_TRUE(purger_->PurgeAll().ok());
  EXPECT_EQ(IndexRows(), (std::vector<std::string>{"new@x/eu/2 age=2"}));
  EXPECT_EQ(Problems(), 0u);
  auto r = check::CheckStore(*store_, clock_.NowMs());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->ts_index_rows, 1u);  // the purge removed the old one
}

TEST_F(TsIndexTest, BackfillIndexesExistingRowsAndResumesFromItsCursor) {
  for (int i = 0; i < 150; ++i) {
    ASSERT_TRUE(Put("eu", i, "m" + std::to_string(1000 + i), i, kNow).ok());
  }
  AddIndex(true);
  // One chunk: the cursor is persisted with it, the rest still owed.
  auto more = backfill_->RunOnce();
  ASSERT_TRUE(more.ok());
  EXPECT_TRUE(*more);
  EXPECT_TRUE(Table()->tablestore->indexes[0].building);
  EXPECT_FALSE(Table()->tablestore->indexes[0].cursor.empty());
  EXPECT_EQ(IndexRows().size(), 64u);
  EXPECT_EQ(Problems(), 0u);  // what is done is right; the rest is after the cursor
  // A write during the backfill keeps the index itself.
  ASSERT_TRUE(Put("eu", 149, "zzz", 7, kNow + 1).ok());
  // A new backfill object (as after a restart) takes it up from the cursor.
  backfill_ = std::make_unique<TsIndexBackfill>(*store_, *catalog_, *rows_);
  while (true) {
    auto r = backfill_->RunOnce();
    ASSERT_TRUE(r.ok());
    if (!*r) break;
  }
  EXPECT_FALSE(Table()->tablestore->indexes[0].building);
  auto all = IndexRows();
  ASSERT_EQ(all.size(), 150u);
  EXPECT_EQ(all.back(), "zzz/eu/149 age=7");
  EXPECT_EQ(Problems(), 0u);
}

TEST_F(TsIndexTest, CheckFindsAMissingAndAStaleIndexRow) {
  AddIndex(true);
  ASSERT_TRUE(backfill_->RunOnce().ok());  // nothing to backfill: built
  ASSERT_TRUE(Put("eu", 1, "a@x", 1, kNow).ok());
  ASSERT_TRUE(Put("eu", 2, "b@x", 2, kNow).ok());
  EXPECT_EQ(Problems(), 0u);
  auto view = IndexView();
  auto key = versions::EncodeRowKey(view.id, view.tablestore->primary_key,
                                    {{"email", CellValue::String("a@x")},
                                     {"region", CellValue::String("eu")},
                                     {"id", CellValue::Integer(1)}});
  ASSERT_TRUE(key.ok());
  auto stale_key = versions::EncodeRowKey(view.id, view.tablestore->primary_key,
                                          {{"email", CellValue::String("b@x")},
                                           {"region", CellValue::String("eu")},
                                           {"id", CellValue::Integer(2)}});
  ASSERT_TRUE(stale_key.ok());
  versions::StoredRow stale;  // the attribute column lost: not what the table row implies
  stale.columns = {{"", {{kNow, CellValue::Integer(0)}}}};
  storage::WriteBatch batch(*store_);
  batch.Delete(storage::Family::kRows, *key);
  batch.Put(storage::Family::kRows, *stale_key, versions::EncodeRow(stale));
  ASSERT_TRUE(store_->Write(batch).ok());
  auto r = check::CheckStore(*store_, clock_.NowMs());
  ASSERT_TRUE(r.ok());
  // The missing row (table side) and the stale one, seen from both sides.
  EXPECT_EQ(r->problem_count, 3u);
  for (const auto& p : r->problems) std::printf("check said: %s\n", p.c_str());
}

TEST_F(TsIndexTest, DroppedIndexRowsAreRemovedAndTheIdForgotten) {
  AddIndex(false);
  ASSERT_TRUE(Put("eu", 1, "a@x", 1, kNow).ok());
  uint32_t rows_id = Table()->tablestore->indexes[0].rows_id;
  auto r = catalog_->Update(
      "users",
      [&](model::TableDescriptor& t) {
        t.tablestore->dropped_index_rows.push_back(rows_id);
        t.tablestore->indexes.clear();
        return Status::Ok();
      },
      Front::kTablestore);
  ASSERT_TRUE(r.ok());
  auto before = check::CheckStore(*store_, clock_.NowMs());
  ASSERT_TRUE(before.ok());
  EXPECT_EQ(before->dropped_ts_index_rows, 1u);
  ASSERT_TRUE(backfill_->RunOnce().ok());
  EXPECT_TRUE(Table()->tablestore->dropped_index_rows.empty());
  auto after = check::CheckStore(*store_, clock_.NowMs());
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->dropped_ts_index_rows, 0u);
  EXPECT_EQ(after->problem_count, 0u);
  EXPECT_EQ(after->rows, 1u);
}

}  // namespace
}  // namespace ttlstore::ops
