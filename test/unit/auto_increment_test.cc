// AUTO_INCREMENT primary keys (docs/tablestore.md, "Auto-increment primary keys"): the value
// rule and record of versions/auto_increment.h, the descriptor's tag, RowOps' generated writes
// over a real Store with a fake clock (values per partition key, across a reopen and a clock
// that goes back, never reissued after a delete, concurrent writers), the rule that a write
// naming a value only modifies an existing row, the front end's checks, and `ttlstore check`.
#include "versions/auto_increment.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <thread>

#include "check/consistency.h"
#include "ops/row_batch.h"
#include "ops/row_ops.h"
#include "ops/table_ops.h"
#include "storage/catalog_codec.h"
#include "streams/row_record.h"
#include "streams/stream_log.h"
#include "tablestore/row_convert.h"
#include "tablestore/row_request.h"
#include "versions/row.h"

namespace ttlstore {
namespace {

using model::CellType;
using model::CellValue;
using versions::PkCell;

TEST(AutoIncrementRule, TakesTheTimeOrOneAboveTheLast) {
  EXPECT_EQ(versions::NextAutoIncrement(std::nullopt, 1'700'000'000'000'000),
            1'700'000'000'000'000);
  EXPECT_EQ(versions::NextAutoIncrement(5, 1'000), 1'000);
  // The clock behind the last value (a burst within one tick, or a clock set back).
  EXPECT_EQ(versions::NextAutoIncrement(1'000, 1'000), 1'001);
  EXPECT_EQ(versions::NextAutoIncrement(1'000, 10), 1'001);
  // Never below 1, even with a clock at or before the epoch.
  EXPECT_EQ(versions::NextAutoIncrement(std::nullopt, 0), 1);
  EXPECT_EQ(versions::NextAutoIncrement(std::nullopt, -5), 1);
  EXPECT_EQ(versions::NextAutoIncrement(INT64_MAX - 1, 10), INT64_MAX);
  EXPECT_FALSE(versions::NextAutoIncrement(INT64_MAX, 10).has_value());
}

TEST(AutoIncrementRecord, ValueRoundTripsAndRefusesOtherSizes) {
  for (int64_t v : {int64_t{1}, int64_t{1'700'000'000'000'123}, INT64_MAX}) {
    std::string e = versions::EncodeSequenceValue(v);
    EXPECT_EQ(e.size(), 8u);
    EXPECT_EQ(versions::DecodeSequenceValue(e), v);
  }
  EXPECT_FALSE(versions::DecodeSequenceValue("1234567").has_value());
  EXPECT_FALSE(versions::DecodeSequenceValue("123456789").has_value());
}

std::vector<model::PrimaryKeyColumn> Schema() {
  std::vector<model::PrimaryKeyColumn> s = {{"user", model::PkType::kString},
                                            {"seq", model::PkType::kInteger},
                                            {"tag", model::PkType::kBinary}};
  s[1].auto_increment = true;
  return s;
}

TEST(AutoIncrementRecord, KeyIsThePrefixOfThePartitionKeysRows) {
  auto schema = Schema();
  auto key = versions::SequenceKey(7, schema, {"user", CellValue::String(std::string("a\0b", 3))});
  ASSERT_TRUE(key.ok()) << key.error().message();
  std::vector<PkCell> pk = {{"user", CellValue::String(std::string("a\0b", 3))},
                            {"seq", CellValue::Integer(42)},
                            {"tag", CellValue::Blob("x")}};
  auto row = versions::EncodeRowKey(7, schema, pk);
  ASSERT_TRUE(row.ok());
  EXPECT_EQ(row->substr(0, key->size()), *key);
  EXPECT_EQ(versions::AutoIncrementValueOf(schema, pk), 42);
  // Another partition key, another record; a wrong first column is the key's error.
  EXPECT_NE(*versions::SequenceKey(7, schema, {"user", CellValue::String("a")}), *key);
  EXPECT_FALSE(versions::SequenceKey(7, schema, {"user", CellValue::Integer(1)}).ok());
  EXPECT_FALSE(versions::SequenceKey(7, schema, {"other", CellValue::String("a")}).ok());
  EXPECT_FALSE(versions::AutoIncrementValueOf({{"user", model::PkType::kString}},
                                              {{"user", CellValue::String("a")}})
                   .has_value());
}

TEST(AutoIncrementDescriptor, TheColumnOptionIsPersisted) {
  model::TableDescriptor t;
  t.name = "timeline";
  t.key.hash = {"user", model::ValueType::kS};
  t.tablestore.emplace();
  t.tablestore->primary_key = Schema();
  auto back = storage::DecodeTableDescriptor(storage::EncodeTableDescriptor(t));
  ASSERT_TRUE(back.has_value());
  ASSERT_EQ(back->tablestore->primary_key.size(), 3u);
  EXPECT_FALSE(back->tablestore->primary_key[0].auto_increment);
  EXPECT_TRUE(back->tablestore->primary_key[1].auto_increment);
  EXPECT_FALSE(back->tablestore->primary_key[2].auto_increment);
  EXPECT_EQ(back->tablestore->AutoIncrementColumn(), 1);
  // A table without one reads back without one.
  t.tablestore->primary_key[1].auto_increment = false;
  back = storage::DecodeTableDescriptor(storage::EncodeTableDescriptor(t));
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->tablestore->AutoIncrementColumn(), -1);
}

// --- RowOps over a real store ---

constexpr int64_t kNow = 1'700'000'000'000;

class AutoIncrementRowsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("ttlstore_auto_increment_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    Open();
    model::TableDescriptor spec;
    spec.name = "timeline";
    spec.key.hash = {"user", model::ValueType::kS};
    spec.tablestore.emplace();
    spec.tablestore->primary_key = {{"user", model::PkType::kString},
                                    {"seq", model::PkType::kInteger}};
    spec.tablestore->primary_key[1].auto_increment = true;
    spec.tablestore->local_transactions = false;
    ASSERT_TRUE(catalog_->Create(spec).ok());
  }
  void TearDown() override {
    Close();
    std::filesystem::remove_all(dir_);
  }
  void Open() {
    storage::StoreOptions options;
    options.path = dir_.string();
    auto s = storage::Store::Open(options);
    ASSERT_TRUE(s.ok()) << s.error().message();
    store_ = std::move(*s);
    catalog_ = std::make_unique<ops::TableCatalog>(*store_, clock_);
    ASSERT_TRUE(catalog_->Load().ok());
    rows_ = std::make_unique<ops::RowOps>(*store_, clock_);
  }
  void Close() {
    rows_.reset();
    catalog_.reset();
    store_.reset();
  }
  ops::TablePtr Table() { return catalog_->Find("timeline", ops::Front::kTablestore); }

  static ops::RowChange Change(ops::RowChange::Kind kind, const std::string& user, CellValue seq,
                               ops::RowExistence condition = ops::RowExistence::kIgnore) {
    ops::RowChange c;
    c.kind = kind;
    c.primary_key = {{"user", CellValue::String(user)}, {"seq", std::move(seq)}};
    c.condition = condition;
    if (kind != ops::RowChange::Kind::kDelete) {
      c.cells.push_back({ops::CellChange::Kind::kPut, "msg", CellValue::String("hi"), {}});
    }
    return c;
  }
  static CellValue Placeholder() { return CellValue::Marker(CellType::kAutoIncrement); }

  // A PutRow with the placeholder; returns the generated value (or fails the test).
  int64_t PutNew(const std::string& user) {
    std::vector<PkCell> key;
    Status s = rows_->Write(*Table(), Change(ops::RowChange::Kind::kPut, user, Placeholder()),
                            nullptr, &key);
    EXPECT_TRUE(s.ok()) << s.error().message();
    if (!s.ok() || key.size() != 2 || key[1].value.type != CellType::kInteger) return -1;
    EXPECT_EQ(key[0].value.bytes, user);
    return key[1].value.integer;
  }
  bool Exists(const std::string& user, int64_t seq) {
    versions::ReadSpec spec;
    spec.max_versions = 1;
    auto r = rows_->Get(
        *Table(), {{"user", CellValue::String(user)}, {"seq", CellValue::Integer(seq)}}, spec);
    EXPECT_TRUE(r.ok());
    return r.ok() && r->has_value();
  }
  check::CheckReport Check() {
    auto r = check::CheckStore(*store_, clock_.NowMs());
    EXPECT_TRUE(r.ok());
    return r.ok() ? *r : check::CheckReport{};
  }

  std::filesystem::path dir_;
  FakeClock clock_{kNow};
  std::unique_ptr<storage::Store> store_;
  std::unique_ptr<ops::TableCatalog> catalog_;
  std::unique_ptr<ops::RowOps> rows_;
};

TEST_F(AutoIncrementRowsTest, ValuesRisePerPartitionKeyAndAreTimeBased) {
  int64_t a1 = PutNew("a");
  EXPECT_EQ(a1, kNow * 1000);  // the write's time in microseconds
  int64_t a2 = PutNew("a");    // same millisecond: one above
  EXPECT_EQ(a2, a1 + 1);
  int64_t b1 = PutNew("b");  // another partition key starts from the time again
  EXPECT_EQ(b1, kNow * 1000);
  clock_.Advance(5);
  int64_t a3 = PutNew("a");
  EXPECT_EQ(a3, (kNow + 5) * 1000);
  EXPECT_TRUE(Exists("a", a1) && Exists("a", a2) && Exists("a", a3) && Exists("b", b1));
  auto report = Check();
  EXPECT_TRUE(report.ok()) << (report.problems.empty() ? "" : report.problems[0]);
  EXPECT_EQ(report.sequence_records, 2u);
}

TEST_F(AutoIncrementRowsTest, NeverGoesBackAcrossAReopenOrADeleteOrAClockSetBack) {
  int64_t last = 0;
  for (int i = 0; i < 20; ++i) {
    int64_t v = PutNew("a");
    EXPECT_GT(v, last);
    last = v;
  }
  // The row holding the last value is deleted; the process "restarts" and its clock is behind.
  ASSERT_TRUE(
      rows_->Write(*Table(), Change(ops::RowChange::Kind::kDelete, "a", CellValue::Integer(last)))
          .ok());
  Close();
  clock_.Set(kNow - 3'600'000);
  Open();
  int64_t next = PutNew("a");
  EXPECT_EQ(next, last + 1);
  EXPECT_TRUE(Check().ok());
}

TEST_F(AutoIncrementRowsTest, AnUpdateThatLeavesNoRowStillUsesUpItsValue) {
  ops::RowChange c = Change(ops::RowChange::Kind::kUpdate, "a", Placeholder());
  c.cells = {{ops::CellChange::Kind::kDeleteAllVersions, "msg", {}, {}}};
  std::vector<PkCell> key;
  ASSERT_TRUE(rows_->Write(*Table(), c, nullptr, &key).ok());
  ASSERT_EQ(key.size(), 2u);
  EXPECT_FALSE(Exists("a", key[1].value.integer));
  EXPECT_EQ(PutNew("a"), key[1].value.integer + 1);
}

TEST_F(AutoIncrementRowsTest, ANamedValueOnlyModifiesAnExistingRow) {
  using K = ops::RowChange::Kind;
  using E = ops::RowExistence;
  int64_t v = PutNew("a");
  // IGNORE and EXPECT_EXIST write an existing row.
  EXPECT_TRUE(rows_->Write(*Table(), Change(K::kPut, "a", CellValue::Integer(v))).ok());
  EXPECT_TRUE(
      rows_->Write(*Table(), Change(K::kUpdate, "a", CellValue::Integer(v), E::kExpectExist)).ok());
  // A missing row is never created under a chosen value, whatever the condition.
  for (K kind : {K::kPut, K::kUpdate}) {
    for (E e : {E::kIgnore, E::kExpectExist, E::kExpectNotExist}) {
      Status s = rows_->Write(*Table(), Change(kind, "a", CellValue::Integer(v + 1000), e));
      ASSERT_FALSE(s.ok());
      EXPECT_EQ(s.error().code(), ErrorCode::kConditionalCheckFailed);
    }
  }
  EXPECT_FALSE(Exists("a", v + 1000));
  // Deleting by value works as on any table, a missing row included.
  EXPECT_TRUE(rows_->Write(*Table(), Change(K::kDelete, "a", CellValue::Integer(v + 1000))).ok());
  EXPECT_TRUE(rows_->Write(*Table(), Change(K::kDelete, "a", CellValue::Integer(v))).ok());
  EXPECT_FALSE(Exists("a", v));
  EXPECT_TRUE(Check().ok());
}

TEST_F(AutoIncrementRowsTest, APlaceholderElsewhereIsAKeyOfTheWrongType) {
  ops::RowChange c = Change(ops::RowChange::Kind::kPut, "a", CellValue::Integer(1));
  c.primary_key[0].value = Placeholder();
  Status s = rows_->Write(*Table(), c);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message().find("AUTO_INCREMENT"), std::string::npos);
}

TEST_F(AutoIncrementRowsTest, ConcurrentWritersToOnePartitionKeyGetDistinctValues) {
  constexpr int kThreads = 4, kEach = 50;
  std::vector<std::vector<int64_t>> got(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) got[t].push_back(PutNew("hot"));
    });
  }
  for (auto& th : threads) th.join();
  std::set<int64_t> all;
  for (const auto& g : got) {
    EXPECT_TRUE(std::is_sorted(g.begin(), g.end()));  // each writer sees its values rise
    all.insert(g.begin(), g.end());
  }
  EXPECT_EQ(all.size(), size_t{kThreads * kEach});
  for (int64_t v : all) EXPECT_TRUE(Exists("hot", v));
  EXPECT_TRUE(Check().ok());
}

TEST_F(AutoIncrementRowsTest, CheckFindsARowAboveItsRecordAndAnOrphanRecord) {
  int64_t v = PutNew("a");
  // A row slipped in under a value the record never issued (what no writer can do).
  {
    auto key = versions::EncodeRowKey(
        Table()->id, Table()->tablestore->primary_key,
        {{"user", CellValue::String("a")}, {"seq", CellValue::Integer(v + 10)}});
    ASSERT_TRUE(key.ok());
    versions::StoredRow row;
    versions::PutVersion(row.FindOrAdd("msg"), kNow, CellValue::String("x"));
    storage::WriteBatch batch(*store_);
    ops::StageRowChange(batch, *Table()->tablestore, *key, nullptr, &row);
    ASSERT_TRUE(store_->Write(batch).ok());
  }
  // A record of a table id that is no table.
  {
    storage::WriteBatch batch(*store_);
    batch.Put(storage::Family::kSequences, std::string("\0\0\x30\x39", 4) + "zz",
              versions::EncodeSequenceValue(1));
    ASSERT_TRUE(store_->Write(batch).ok());
  }
  auto report = Check();
  EXPECT_EQ(report.problem_count, 2u);
  // DeleteTable removes the table's records with it: only the orphan is left.
  ASSERT_TRUE(catalog_->Delete("timeline", ops::Front::kTablestore).ok());
  report = Check();
  EXPECT_EQ(report.problem_count, 1u);
  EXPECT_EQ(report.sequence_records, 1u);
}

TEST_F(AutoIncrementRowsTest, TheStreamRecordCarriesTheGeneratedKey) {
  ASSERT_TRUE(catalog_
                  ->Update(
                      "timeline",
                      [](model::TableDescriptor& t) {
                        model::StreamInfo st;
                        st.created_ms = kNow;
                        st.expiration_hours = 24;
                        t.streams.push_back(st);
                        return Status::Ok();
                      },
                      ops::Front::kTablestore)
                  .ok());
  streams::StreamLog log(*store_, &clock_);
  rows_->set_streams(&log);
  int64_t v = PutNew("a");
  std::vector<std::vector<std::pair<std::string, CellValue>>> keys;
  auto it =
      store_->ScanFamily(storage::Family::kStreams, "", std::string(8, '\xff'), false, nullptr);
  for (; it->Valid(); it->Next()) {
    if (it->value().empty() || it->value()[0] != streams::kRowRecordFormat) continue;
    auto record = streams::DecodeRowRecord(it->value());
    ASSERT_TRUE(record.has_value());
    keys.push_back(record->primary_key);
  }
  rows_->set_streams(nullptr);
  ASSERT_EQ(keys.size(), 1u);
  ASSERT_EQ(keys[0].size(), 2u);
  EXPECT_EQ(keys[0][1].first, "seq");
  EXPECT_EQ(keys[0][1].second.type, CellType::kInteger);
  EXPECT_EQ(keys[0][1].second.integer, v);
}

// --- the front end's checks ---

tablestore::PbRow Row(std::vector<std::pair<std::string, CellValue>> pk) {
  tablestore::PbRow row;
  for (auto& [name, v] : pk) {
    tablestore::PbCell c;
    c.name = name;
    c.value = v;
    row.primary_key.push_back(std::move(c));
  }
  return row;
}

TEST(AutoIncrementFrontEnd, WhereThePlaceholderMayBe) {
  const CellValue ph = CellValue::Marker(CellType::kAutoIncrement);
  auto one = Row({{"user", CellValue::String("a")}, {"seq", ph}});
  EXPECT_TRUE(tablestore::PutChangeOf(one).ok());
  EXPECT_TRUE(tablestore::UpdateChangeOf(one).ok());
  auto del = tablestore::DeleteChangeOf(one);
  ASSERT_FALSE(del.ok());
  EXPECT_EQ(del.error().message(), "Invalid row to delete which with pk auto increment.");
  auto read = tablestore::PrimaryKeyOf(one);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.error().message(), "PKAutoIncr can't be used for read operations.");
  auto bound = tablestore::BoundOf(one);
  ASSERT_FALSE(bound.ok());
  EXPECT_EQ(bound.error().message(), "PKAutoIncr can't be used for read operations.");
  auto two =
      tablestore::PutChangeOf(Row({{"user", CellValue::String("a")}, {"seq", ph}, {"more", ph}}));
  ASSERT_FALSE(two.ok());
  EXPECT_EQ(two.error().message(), "2 pk auto increment exist in row.");
}

TEST(AutoIncrementFrontEnd, ConditionsAWriteMayCarry) {
  model::TablestoreSchema schema;
  schema.primary_key = Schema();
  model::TablestoreSchema plain;
  plain.primary_key = {{"user", model::PkType::kString}, {"seq", model::PkType::kInteger}};
  ops::RowChange c;
  c.kind = ops::RowChange::Kind::kPut;
  c.primary_key = {{"user", CellValue::String("a")},
                   {"seq", CellValue::Marker(CellType::kAutoIncrement)},
                   {"tag", CellValue::Blob("t")}};
  EXPECT_TRUE(tablestore::CheckAutoIncrement(schema, c).ok());
  c.condition = ops::RowExistence::kExpectNotExist;
  auto s = tablestore::CheckAutoIncrement(schema, c);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message(),
            "Invalid expect:EXPECT_NOT_EXIST when modify row with pk auto increment.");
  c.condition = ops::RowExistence::kExpectExist;
  s = tablestore::CheckAutoIncrement(schema, c);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message(),
            "Invalid expect:EXPECT_EXIST when modify row with pk auto increment.");
  c.condition = ops::RowExistence::kIgnore;
  c.column_condition = std::make_shared<versions::Filter>();
  s = tablestore::CheckAutoIncrement(schema, c);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message(), "Can't set condition when modify row with pk auto increment.");
  // A named value: EXPECT_NOT_EXIST is refused on a table with the column, not elsewhere.
  c.column_condition.reset();
  c.primary_key[1].value = CellValue::Integer(5);
  c.condition = ops::RowExistence::kExpectNotExist;
  s = tablestore::CheckAutoIncrement(schema, c);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message(),
            "Invalid expect: EXPECT_NOT_EXIST when modify a specific row for table with pk auto "
            "increment.");
  EXPECT_TRUE(tablestore::CheckAutoIncrement(plain, c).ok());
  c.kind = ops::RowChange::Kind::kDelete;
  EXPECT_TRUE(tablestore::CheckAutoIncrement(schema, c).ok());
  c.kind = ops::RowChange::Kind::kUpdate;
  c.condition = ops::RowExistence::kIgnore;
  EXPECT_TRUE(tablestore::CheckAutoIncrement(schema, c).ok());
}

}  // namespace
}  // namespace ttlstore
