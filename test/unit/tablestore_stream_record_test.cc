// Tablestore stream records: the persisted row record (streams/row_record.h), the record of a
// row change (ops/row_stream_record.h), its PlainBuffer form (tablestore::EncodeStreamRow), the
// stream ids, and, on a real store with a fake clock, records written in the row's batch, their
// expiry by the trimmer and GetStreamRecord's OTSTrimmedDataAccess.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "common/clock.h"
#include "ops/row_ops.h"
#include "ops/row_stream_record.h"
#include "ops/table_ops.h"
#include "streams/row_record.h"
#include "streams/shard_iterator.h"
#include "streams/stream_log.h"
#include "streams/stream_names.h"
#include "streams/stream_record.h"
#include "streams/trimmer.h"
#include "tablestore/error_map.h"
#include "tablestore/handlers.h"
#include "tablestore/plainbuffer.h"
#include "tablestore/stream_ids.h"
#include "tablestore/tablestore.pb.h"

namespace ttlstore {
namespace {

using model::CellValue;
using streams::ColumnOp;
using streams::RowAction;
using streams::RowRecord;

RowRecord Sample() {
  RowRecord r;
  r.action = RowAction::kUpdateRow;
  r.created_ms = 1795335014523;
  r.expires_ms = r.created_ms + 3'600'000;
  r.primary_key = {{"a", CellValue::Integer(-5)}, {"b", CellValue::String("k")},
                   {"c", CellValue::Blob(std::string("\0\xff", 2))}};
  r.columns.push_back({ColumnOp::kPut, "i", CellValue::Integer(7), 10});
  r.columns.push_back({ColumnOp::kPut, "d", CellValue::Double(1.5), 11});
  r.columns.push_back({ColumnOp::kPut, "t", CellValue::Boolean(true), 12});
  r.columns.push_back({ColumnOp::kPut, "s", CellValue::String(""), 13});
  r.columns.push_back({ColumnOp::kDeleteOneVersion, "i", std::nullopt, 9});
  r.columns.push_back({ColumnOp::kDeleteAllVersions, "x", std::nullopt, std::nullopt});
  return r;
}

void ExpectSame(const RowRecord& a, const RowRecord& b) {
  EXPECT_EQ(a.action, b.action);
  EXPECT_EQ(a.created_ms, b.created_ms);
  EXPECT_EQ(a.expires_ms, b.expires_ms);
  ASSERT_EQ(a.primary_key.size(), b.primary_key.size());
  for (size_t i = 0; i < a.primary_key.size(); ++i) {
    EXPECT_EQ(a.primary_key[i].first, b.primary_key[i].first);
    EXPECT_EQ(a.primary_key[i].second, b.primary_key[i].second);
  }
  ASSERT_EQ(a.columns.size(), b.columns.size());
  for (size_t i = 0; i < a.columns.size(); ++i) {
    EXPECT_EQ(a.columns[i].op, b.columns[i].op) << i;
    EXPECT_EQ(a.columns[i].name, b.columns[i].name) << i;
    EXPECT_EQ(a.columns[i].value, b.columns[i].value) << i;
    EXPECT_EQ(a.columns[i].timestamp_ms, b.columns[i].timestamp_ms) << i;
  }
}

TEST(RowRecordCodec, RoundTripsEveryTypeAndOp) {
  RowRecord r = Sample();
  std::string bytes = streams::EncodeRowRecord(r);
  EXPECT_EQ(bytes[0], streams::kRowRecordFormat);
  auto back = streams::DecodeRowRecord(bytes);
  ASSERT_TRUE(back);
  ExpectSame(r, *back);
  // The trimmer and the start-up recovery read the times without decoding the rest.
  EXPECT_EQ(streams::RecordCreatedMs(bytes), r.created_ms);
  EXPECT_EQ(streams::RecordExpiresMs(bytes), r.expires_ms);
  // A DeleteRow: the key only.
  RowRecord d;
  d.action = RowAction::kDeleteRow;
  d.primary_key = {{"a", CellValue::Integer(1)}};
  auto dback = streams::DecodeRowRecord(streams::EncodeRowRecord(d));
  ASSERT_TRUE(dback);
  ExpectSame(d, *dback);
}

TEST(RowRecordCodec, RefusesWhatItDidNotWrite) {
  std::string bytes = streams::EncodeRowRecord(Sample());
  for (size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_FALSE(streams::DecodeRowRecord(bytes.substr(0, n))) << "truncated to " << n;
  }
  EXPECT_FALSE(streams::DecodeRowRecord(bytes + "x"));
  std::string bad_action = bytes;
  bad_action[1] = 4;
  EXPECT_FALSE(streams::DecodeRowRecord(bad_action));
  // A DynamoDB record is not a row record, and its expiry is 24 hours after its creation.
  streams::StreamRecord ddb;
  ddb.created_ms = 1000;
  ddb.keys = {{"pk", model::AttributeValue::String("x")}};
  std::string ddb_bytes = streams::EncodeRecord(ddb);
  EXPECT_FALSE(streams::DecodeRowRecord(ddb_bytes));
  EXPECT_FALSE(streams::DecodeRecord(bytes));
  EXPECT_EQ(streams::RecordExpiresMs(ddb_bytes), 1000 + streams::kRetentionMs);
}

TEST(RowRecordCodec, OriginColumnsRoundTripAndRecordsWithoutThemKeepTheirFormat) {
  RowRecord r = Sample();
  const std::string plain = streams::EncodeRowRecord(r);
  r.origin.push_back({ColumnOp::kPut, "i", CellValue::Integer(6), 8});
  r.origin.push_back({ColumnOp::kPut, "s", CellValue::String("old"), 3});
  const std::string bytes = streams::EncodeRowRecord(r);
  // The origin columns follow the columns; a record without them is byte for byte as before.
  EXPECT_EQ(bytes.substr(0, plain.size()), plain);
  auto back = streams::DecodeRowRecord(bytes);
  ASSERT_TRUE(back);
  ExpectSame(r, *back);
  ASSERT_EQ(back->origin.size(), 2u);
  EXPECT_EQ(back->origin[1].name, "s");
  EXPECT_EQ(back->origin[1].value, CellValue::String("old"));
  EXPECT_EQ(back->origin[1].timestamp_ms, 3);
  EXPECT_TRUE(streams::DecodeRowRecord(plain)->origin.empty());
  for (size_t n = plain.size() + 1; n < bytes.size(); ++n) {
    EXPECT_FALSE(streams::DecodeRowRecord(bytes.substr(0, n))) << "truncated to " << n;
  }
  // An empty origin list is never written, so it is refused, as trailing bytes are.
  EXPECT_FALSE(streams::DecodeRowRecord(plain + std::string(1, '\0')));
  EXPECT_FALSE(streams::DecodeRowRecord(bytes + "x"));
}

TEST(RowStreamRecord, OriginColumnsAreTheNewestVisibleVersionsBeforeTheWrite) {
  model::VersionOptions options;
  options.max_versions = 2;
  options.time_to_live = 100;  // seconds
  const int64_t now = 1'000'000;
  versions::StoredRow old;
  versions::PutVersion(old.FindOrAdd("a"), now - 10, CellValue::String("a2"));
  versions::PutVersion(old.FindOrAdd("a"), now - 20, CellValue::String("a1"));
  versions::PutVersion(old.FindOrAdd("gone"), now - 200'000, CellValue::Integer(1));  // aged out
  versions::PutVersion(old.FindOrAdd("b"), now - 5, CellValue::Integer(7));
  auto origin = ops::OriginColumns(old, {"b", "missing", "gone", "a"}, options, now);
  ASSERT_EQ(origin.size(), 2u);
  EXPECT_EQ(origin[0].name, "b");  // the stream's order
  EXPECT_EQ(origin[0].op, ColumnOp::kPut);
  EXPECT_EQ(origin[0].value, CellValue::Integer(7));
  EXPECT_EQ(origin[0].timestamp_ms, now - 5);
  EXPECT_EQ(origin[1].name, "a");  // the newest version only
  EXPECT_EQ(origin[1].value, CellValue::String("a2"));
  EXPECT_EQ(origin[1].timestamp_ms, now - 10);
  EXPECT_TRUE(ops::OriginColumns(std::nullopt, {"a"}, options, now).empty());
  EXPECT_TRUE(ops::OriginColumns(old, {}, options, now).empty());
}

TEST(RowStreamRecord, EachCellChangeInRequestOrder) {
  ops::RowChange change;
  change.kind = ops::RowChange::Kind::kUpdate;
  change.primary_key = {{"pk", CellValue::String("r")}};
  change.cells.push_back({ops::CellChange::Kind::kPut, "a", CellValue::String("x"), 5});
  change.cells.push_back({ops::CellChange::Kind::kPut, "b", CellValue::Integer(1), std::nullopt});
  change.cells.push_back({ops::CellChange::Kind::kDeleteOneVersion, "a", {}, 4});
  change.cells.push_back({ops::CellChange::Kind::kDeleteAllVersions, "c", {}, std::nullopt});
  change.cells.push_back({ops::CellChange::Kind::kIncrement, "n", CellValue::Integer(2), std::nullopt});
  versions::StoredRow applied;
  versions::PutVersion(applied.FindOrAdd("n"), 100, CellValue::Integer(42));  // the sum, at now
  versions::PutVersion(applied.FindOrAdd("n"), 50, CellValue::Integer(40));
  RowRecord r = ops::RowStreamRecord(change, 100, &applied);
  EXPECT_EQ(r.action, RowAction::kUpdateRow);
  EXPECT_EQ(r.created_ms, 100);
  ASSERT_EQ(r.columns.size(), 5u);
  EXPECT_EQ(r.columns[0].op, ColumnOp::kPut);
  EXPECT_EQ(r.columns[0].timestamp_ms, 5);
  EXPECT_EQ(r.columns[1].timestamp_ms, 100);  // the server's time
  EXPECT_EQ(r.columns[2].op, ColumnOp::kDeleteOneVersion);
  EXPECT_EQ(r.columns[2].timestamp_ms, 4);
  EXPECT_FALSE(r.columns[2].value);
  EXPECT_EQ(r.columns[3].op, ColumnOp::kDeleteAllVersions);
  EXPECT_FALSE(r.columns[3].timestamp_ms);
  EXPECT_EQ(r.columns[4].op, ColumnOp::kPut);  // an increment is the put of its result
  EXPECT_EQ(r.columns[4].value, CellValue::Integer(42));
  EXPECT_EQ(r.columns[4].timestamp_ms, 100);

  change.kind = ops::RowChange::Kind::kDelete;
  RowRecord d = ops::RowStreamRecord(change, 100, nullptr);
  EXPECT_EQ(d.action, RowAction::kDeleteRow);
  EXPECT_TRUE(d.columns.empty());
  ASSERT_EQ(d.primary_key.size(), 1u);
}

TEST(StreamRowEncoding, OpsAndTheSequenceExtension) {
  tablestore::PbRow row;
  row.primary_key.push_back({"pk", CellValue::Integer(1), tablestore::CellOp::kNone, std::nullopt});
  row.attributes.push_back({"a", CellValue::String("v"), tablestore::CellOp::kNone, 7});
  row.attributes.push_back({"a", std::nullopt, tablestore::CellOp::kDeleteOneVersion, 6});
  row.attributes.push_back({"b", std::nullopt, tablestore::CellOp::kDeleteAllVersions, std::nullopt});
  tablestore::PbSequenceInfo seq{0, 1795335014523000, 77};
  std::string bytes = tablestore::EncodeStreamRow(row, seq);
  // The extension sits just before the row checksum: tag, length 24, TAG_SEQ_INFO, length 19,
  // then epoch, timestamp and row index, little-endian.
  const std::string ext = bytes.substr(bytes.size() - 2 - 29, 29);
  const std::string want_ext = std::string("\x0b\x18\x00\x00\x00\x0c\x13\x00\x00\x00", 10) +
                               std::string("\x0d\x00\x00\x00\x00", 5) + "\x0e" +
                               std::string("\x78\x20\xcb\x01\xd9\x60\x06\x00", 8) +
                               std::string("\x0f\x4d\x00\x00\x00", 5);
  EXPECT_EQ(ext, want_ext);
  EXPECT_EQ(bytes[bytes.size() - 2], '\x09');
  // Without the extension it is a row our request decoder (checked against the SDKs' deletes)
  // reads whole: same cells, ops and checksums.
  std::string plain = bytes.substr(0, bytes.size() - 2 - 29) + bytes.substr(bytes.size() - 2);
  auto decoded = tablestore::DecodeRow(plain);
  ASSERT_TRUE(decoded.ok()) << decoded.error().message();
  ASSERT_EQ(decoded->attributes.size(), 3u);
  EXPECT_EQ(decoded->attributes[0].op, tablestore::CellOp::kNone);
  EXPECT_EQ(decoded->attributes[0].timestamp, 7);
  EXPECT_EQ(decoded->attributes[1].op, tablestore::CellOp::kDeleteOneVersion);
  EXPECT_EQ(decoded->attributes[1].timestamp, 6);
  EXPECT_EQ(decoded->attributes[2].op, tablestore::CellOp::kDeleteAllVersions);
  // A response to a read never carries an op: EncodeRow is unchanged.
  tablestore::PbRow read_row;
  read_row.primary_key = row.primary_key;
  EXPECT_EQ(tablestore::EncodeRow(read_row).find('\x0b'), std::string::npos);
}

TEST(StreamIds, RoundTripAndRefusals) {
  std::string id = tablestore::StreamIdText("my_table_1", 1795335014523);
  EXPECT_EQ(id, "my_table_1_1795335014523");
  auto parts = tablestore::ParseStreamId(id);
  ASSERT_TRUE(parts);
  EXPECT_EQ(parts->table_name, "my_table_1");
  EXPECT_EQ(parts->created_ms, 1795335014523);
  for (const char* bad : {"", "_1", "t_", "t_x1", "t_01", "t", "t_-1", "t_99999999999999999999"}) {
    EXPECT_FALSE(tablestore::ParseStreamId(bad)) << bad;
  }
}

// A store, a catalog, a stream log and the row engine, on a fake clock.
class StreamStoreTest : public ::testing::Test {
 protected:
  static constexpr int64_t kStart = 1795335014523;

  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("ttlstore_ts_stream_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    storage::StoreOptions options;
    options.path = dir_.string();
    auto s = storage::Store::Open(options);
    ASSERT_TRUE(s.ok()) << s.error().message();
    store_ = std::move(*s);
    catalog_ = std::make_unique<ops::TableCatalog>(*store_, clock_);
    ASSERT_TRUE(catalog_->Load().ok());
    log_ = std::make_unique<streams::StreamLog>(*store_, &clock_);
    log_->set_rollover_ms(0);
    rows_ = std::make_unique<ops::RowOps>(*store_, clock_);
    rows_->set_streams(log_.get());
    services_.emplace(tablestore::Services{*catalog_, *rows_, clock_});
    services_->action = "GetStreamRecord";

    otspb::CreateTableRequest create;
    create.mutable_table_meta()->set_table_name("t");
    auto* pk = create.mutable_table_meta()->add_primary_key();
    pk->set_name("pk");
    pk->set_type(otspb::STRING);
    create.mutable_reserved_throughput()->mutable_capacity_unit()->set_read(0);
    create.mutable_reserved_throughput()->mutable_capacity_unit()->set_write(0);
    create.mutable_stream_spec()->set_enable_stream(true);
    create.mutable_stream_spec()->set_expiration_time(1);
    auto created = tablestore::CreateTable(*services_, create.SerializeAsString());
    ASSERT_TRUE(created.ok()) << created.error().message();
  }
  void TearDown() override {
    services_.reset();
    rows_.reset();
    log_.reset();
    catalog_.reset();
    store_.reset();
    std::filesystem::remove_all(dir_);
  }

  void Put(const std::string& key, const std::string& value) {
    ops::TablePtr t = catalog_->Find("t", ops::Front::kTablestore);
    ops::RowChange change;
    change.primary_key = {{"pk", CellValue::String(key)}};
    change.cells.push_back({ops::CellChange::Kind::kPut, "c", CellValue::String(value), std::nullopt});
    ASSERT_TRUE(rows_->Write(*t, change).ok());
  }

  Result<std::string> Records(const std::string& iterator,
                              otspb::GetStreamRecordResponse* resp) {
    otspb::GetStreamRecordRequest req;
    req.set_shard_iterator(iterator);
    auto r = tablestore::GetStreamRecord(*services_, req.SerializeAsString());
    if (r.ok()) resp->ParseFromString(*r);
    return r;
  }

  std::string FirstIterator() {
    ops::TablePtr t = catalog_->Find("t", ops::Front::kTablestore);
    const model::StreamInfo* st = t->enabled_stream();
    streams::ShardIterator it;
    it.stream_arn = tablestore::StreamIdText("t", st->created_ms);
    it.issued_ms = clock_.NowMs();
    return streams::EncodeShardIterator(it);
  }

  FakeClock clock_{kStart};
  std::filesystem::path dir_;
  std::unique_ptr<storage::Store> store_;
  std::unique_ptr<ops::TableCatalog> catalog_;
  std::unique_ptr<streams::StreamLog> log_;
  std::unique_ptr<ops::RowOps> rows_;
  std::optional<tablestore::Services> services_;
};

TEST_F(StreamStoreTest, RecordsExpireAfterTheStreamsExpirationTime) {
  Put("a", "1");
  clock_.Advance(1000);
  Put("b", "2");
  otspb::GetStreamRecordResponse resp;
  ASSERT_TRUE(Records(FirstIterator(), &resp).ok());
  ASSERT_EQ(resp.stream_records_size(), 2);
  EXPECT_EQ(resp.stream_records(0).action_type(), otspb::PUT_ROW);
  const std::string after_first = [&] {
    otspb::GetStreamRecordRequest one;
    one.set_shard_iterator(FirstIterator());
    one.set_limit(1);
    auto r = tablestore::GetStreamRecord(*services_, one.SerializeAsString());
    otspb::GetStreamRecordResponse p;
    p.ParseFromString(*r);
    return p.next_shard_iterator();
  }();

  streams::Trimmer trimmer(*log_);
  // One hour after the first record: nothing is past its expiry yet.
  auto stats = trimmer.TrimOnce(kStart + 3'600'000);
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->records, 0u);
  // Just past it: the first goes, the second (1 s younger) stays.
  stats = trimmer.TrimOnce(kStart + 3'600'001);
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->records, 1u);
  ASSERT_TRUE(Records(FirstIterator(), &resp).ok());
  ASSERT_EQ(resp.stream_records_size(), 1);

  // An iterator standing after the trimmed record: OTSTrimmedDataAccess.
  auto trimmed = Records(after_first, &resp);
  ASSERT_FALSE(trimmed.ok());
  tablestore::OtsError e = tablestore::ToOtsError(trimmed.error());
  EXPECT_EQ(e.http_status, 400);
  EXPECT_EQ(e.code, "OTSTrimmedDataAccess");
  EXPECT_EQ(e.message, tablestore::kTrimmedMessage);

  // A garbled iterator: OTSParameterInvalid.
  auto bad = Records("nonsense", &resp);
  ASSERT_FALSE(bad.ok());
  e = tablestore::ToOtsError(bad.error());
  EXPECT_EQ(e.code, "OTSParameterInvalid");
  EXPECT_EQ(e.message, tablestore::kInvalidIteratorMessage);
}

TEST_F(StreamStoreTest, OriginRecordsCarryTheValuesBeforeEachWrite) {
  // A second table whose stream names origin columns.
  otspb::CreateTableRequest create;
  create.mutable_table_meta()->set_table_name("o");
  auto* pk = create.mutable_table_meta()->add_primary_key();
  pk->set_name("pk");
  pk->set_type(otspb::STRING);
  create.mutable_reserved_throughput()->mutable_capacity_unit();
  create.mutable_stream_spec()->set_enable_stream(true);
  create.mutable_stream_spec()->set_expiration_time(168);
  create.mutable_stream_spec()->add_columns_to_get("c");
  create.mutable_stream_spec()->add_columns_to_get("d");
  ASSERT_TRUE(tablestore::CreateTable(*services_, create.SerializeAsString()).ok());
  ops::TablePtr t = catalog_->Find("o", ops::Front::kTablestore);
  ASSERT_EQ(t->enabled_stream()->origin_columns, (std::vector<std::string>{"c", "d"}));
  ASSERT_EQ(t->enabled_stream()->expiration_hours, 168);

  ops::RowChange put;
  put.primary_key = {{"pk", CellValue::String("k")}};
  put.cells.push_back({ops::CellChange::Kind::kPut, "c", CellValue::String("ori"), std::nullopt});
  put.cells.push_back({ops::CellChange::Kind::kPut, "e", CellValue::Integer(1), std::nullopt});
  ASSERT_TRUE(rows_->Write(*t, put).ok());
  const int64_t put_ms = clock_.NowMs();
  clock_.Advance(5);
  ops::RowChange update;
  update.kind = ops::RowChange::Kind::kUpdate;
  update.primary_key = put.primary_key;
  update.cells.push_back(
      {ops::CellChange::Kind::kPut, "c", CellValue::String("tar"), std::nullopt});
  ASSERT_TRUE(rows_->Write(*t, update).ok());
  clock_.Advance(5);
  ops::RowChange del;
  del.kind = ops::RowChange::Kind::kDelete;
  del.primary_key = put.primary_key;
  ASSERT_TRUE(rows_->Write(*t, del).ok());

  streams::ShardIterator it;
  it.stream_arn = tablestore::StreamIdText("o", t->enabled_stream()->created_ms);
  it.issued_ms = clock_.NowMs();
  otspb::GetStreamRecordResponse resp;
  ASSERT_TRUE(Records(streams::EncodeShardIterator(it), &resp).ok());
  ASSERT_EQ(resp.stream_records_size(), 3);
  // The PutRow of a new row: no origin record (the row had none of the columns).
  EXPECT_FALSE(resp.stream_records(0).has_origin_record());
  // The UpdateRow and the DeleteRow: the key, then c as it was before (d never existed).
  for (int i : {1, 2}) {
    ASSERT_TRUE(resp.stream_records(i).has_origin_record()) << i;
    auto origin = tablestore::DecodeRow(resp.stream_records(i).origin_record());
    ASSERT_TRUE(origin.ok()) << origin.error().message();
    ASSERT_EQ(origin->primary_key.size(), 1u);
    EXPECT_EQ(origin->primary_key[0].value, CellValue::String("k"));
    ASSERT_EQ(origin->attributes.size(), 1u);
    EXPECT_EQ(origin->attributes[0].name, "c");
    EXPECT_EQ(origin->attributes[0].op, tablestore::CellOp::kNone);
    EXPECT_EQ(origin->attributes[0].value, CellValue::String(i == 1 ? "ori" : "tar"));
    EXPECT_EQ(origin->attributes[0].timestamp, i == 1 ? put_ms : put_ms + 5);
  }
}

TEST_F(StreamStoreTest, TheRecordIsInTheRowsBatch) {
  // A write that fails writes neither the row nor a record.
  ops::TablePtr t = catalog_->Find("t", ops::Front::kTablestore);
  ops::RowChange change;
  change.primary_key = {{"pk", CellValue::String("x")}};
  change.condition = ops::RowExistence::kExpectExist;
  change.cells.push_back({ops::CellChange::Kind::kPut, "c", CellValue::String("v"), std::nullopt});
  EXPECT_FALSE(rows_->Write(*t, change).ok());
  otspb::GetStreamRecordResponse resp;
  ASSERT_TRUE(Records(FirstIterator(), &resp).ok());
  EXPECT_EQ(resp.stream_records_size(), 0);
  // A write that succeeds: its record.
  Put("y", "1");
  ASSERT_TRUE(Records(FirstIterator(), &resp).ok());
  EXPECT_EQ(resp.stream_records_size(), 1);
}

}  // namespace
}  // namespace ttlstore
