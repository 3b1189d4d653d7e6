// ListStream, DescribeStream, GetShardIterator, GetStreamRecord: a Tablestore table's stream,
// served from the stream log the DynamoDB Streams API reads (src/streams), with Tablestore's
// names, messages and record encoding (docs/tablestore.md, "Streams").
#include "streams/shard_iterator.h"
#include "streams/stream_log.h"
#include "streams/stream_names.h"
#include "tablestore/handlers.h"
#include "tablestore/ots_error.h"
#include "tablestore/plainbuffer.h"
#include "tablestore/row_request.h"
#include "tablestore/stream_ids.h"
#include "tablestore/tablestore.pb.h"

namespace ttlstore::tablestore {
namespace {

namespace pb = ::ttlstore::otspb;

// A stream found by its id: the table (as of now) and the enabled stream the id names.
struct FoundStream {
  ops::TablePtr table;
  model::StreamInfo info;
};

Error StreamNotExist() { return Error::ResourceNotFound(std::string(kStreamNotExistMessage)); }

// The enabled stream `id` names. A disabled stream is gone for readers (the service: "once
// Stream is enabled again, the previous data cannot be queried"), like an unknown id.
Result<FoundStream> FindStream(const Services& s, const std::string& id) {
  std::optional<StreamIdParts> parts = ParseStreamId(id);
  if (!parts) return StreamNotExist();
  RETURN_IF_ERROR(AuthorizeTable(s, parts->table_name));
  ops::TablePtr table = s.catalog.Find(parts->table_name, ops::Front::kTablestore);
  if (!table) return StreamNotExist();
  const model::StreamInfo* st = table->enabled_stream();
  if (!st || st->created_ms != parts->created_ms) return StreamNotExist();
  return FoundStream{table, *st};
}

streams::StreamLog& Log(const Services& s) { return *s.rows.streams(); }

Status NeedLog(const Services& s) {
  if (!s.rows.streams()) return Error::Internal("no stream log");
  return Status::Ok();
}

void AddStream(const model::TableDescriptor& t, pb::ListStreamResponse* resp) {
  const model::StreamInfo* st = t.enabled_stream();
  if (!st || !t.tablestore) return;
  auto* out = resp->add_streams();
  out->set_stream_id(StreamIdText(t.name, st->created_ms));
  out->set_table_name(t.name);
  out->set_creation_time(st->created_ms * 1000);
}

// A PlainBuffer row holding a record's primary key.
PbRow KeyRow(const streams::RowRecord& r) {
  PbRow row;
  for (const auto& [name, value] : r.primary_key) {
    PbCell c;
    c.name = name;
    c.value = value;
    row.primary_key.push_back(std::move(c));
  }
  return row;
}

// The PlainBuffer row of a record: the key, then one cell per column operation.
PbRow RecordRow(const streams::RowRecord& r) {
  PbRow row = KeyRow(r);
  for (const auto& col : r.columns) {
    PbCell c;
    c.name = col.name;
    c.value = col.value;
    c.timestamp = col.timestamp_ms;
    c.op = col.op == streams::ColumnOp::kDeleteAllVersions ? CellOp::kDeleteAllVersions
           : col.op == streams::ColumnOp::kDeleteOneVersion ? CellOp::kDeleteOneVersion
                                                            : CellOp::kNone;
    row.attributes.push_back(std::move(c));
  }
  row.delete_marker = r.action == streams::RowAction::kDeleteRow;
  return row;
}

// The PlainBuffer row of a record's origin columns: the key, then each column's value and
// timestamp, as the Go SDK (api.go, GetStreamRecord) and the Java SDK
// (PlainBufferConversion.toStreamRecord) read `origin_record`: a row with header, puts only.
PbRow OriginRow(const streams::RowRecord& r) {
  PbRow row = KeyRow(r);
  for (const auto& col : r.origin) {
    PbCell c;
    c.name = col.name;
    c.value = col.value;
    c.timestamp = col.timestamp_ms;
    row.attributes.push_back(std::move(c));
  }
  return row;
}

}  // namespace

Result<std::string> ListStream(const Services& s, std::string_view body) {
  pb::ListStreamRequest req;
  RETURN_IF_ERROR(ParseMessage(body, &req));
  pb::ListStreamResponse resp;
  if (req.has_table_name()) {
    ASSIGN_OR_RETURN(table, FindTable(s, req.table_name()));
    AddStream(*table, &resp);
    return Serialize(resp);
  }
  RETURN_IF_ERROR(AuthorizeTable(s, "*"));
  auto list = s.catalog.List(std::nullopt, SIZE_MAX, ops::Front::kTablestore);
  for (const auto& name : list.names) {
    if (ops::TablePtr t = s.catalog.Find(name, ops::Front::kTablestore)) AddStream(*t, &resp);
  }
  return Serialize(resp);
}

Result<std::string> DescribeStream(const Services& s, std::string_view body) {
  pb::DescribeStreamRequest req;
  RETURN_IF_ERROR(ParseMessage(body, &req));
  if (!req.has_stream_id()) return Error::Validation("Missing stream id.");
  if (req.has_shard_limit() && req.shard_limit() <= 0) {
    return Error::Validation("Invalid shard limit: " + std::to_string(req.shard_limit()) + ".");
  }
  RETURN_IF_ERROR(NeedLog(s));
  ASSIGN_OR_RETURN(found, FindStream(s, req.stream_id()));
  const int64_t ms = found.info.created_ms;
  uint32_t from = 0;
  if (req.has_inclusive_start_shard_id()) {
    std::optional<uint32_t> no = streams::ParseShardId(req.inclusive_start_shard_id(), ms);
    if (!no) return Error::ResourceNotFound(std::string(kShardNotExistMessage));
    from = *no;
  }
  ASSIGN_OR_RETURN(shards, Log(s).ListShards(found.table->id, ms));
  pb::DescribeStreamResponse resp;
  resp.set_stream_id(req.stream_id());
  resp.set_expiration_time(found.info.expiration_hours);
  resp.set_table_name(found.table->name);
  resp.set_creation_time(ms * 1000);
  resp.set_stream_status(pb::STREAM_ACTIVE);
  size_t limit = req.has_shard_limit() ? static_cast<size_t>(req.shard_limit()) : SIZE_MAX;
  for (const auto& sh : shards) {
    if (sh.shard_no < from) continue;
    if (static_cast<size_t>(resp.shards_size()) == limit) {
      resp.set_next_shard_id(streams::ShardIdText(ms, sh.shard_no));
      break;
    }
    auto* out = resp.add_shards();
    out->set_shard_id(streams::ShardIdText(ms, sh.shard_no));
    // Shards roll over one to one (streams/shard_rollover.h): shard k's parent is k - 1, named
    // even after its records were trimmed, as DynamoDB's ParentShardId.
    if (sh.shard_no > 0) out->set_parent_id(streams::ShardIdText(ms, sh.shard_no - 1));
  }
  return Serialize(resp);
}

Result<std::string> GetShardIterator(const Services& s, std::string_view body) {
  pb::GetShardIteratorRequest req;
  RETURN_IF_ERROR(ParseMessage(body, &req));
  if (!req.has_stream_id()) return Error::Validation("Missing stream id.");
  if (!req.has_shard_id()) return Error::Validation("Missing shard id.");
  RETURN_IF_ERROR(NeedLog(s));
  ASSIGN_OR_RETURN(found, FindStream(s, req.stream_id()));
  const int64_t ms = found.info.created_ms;
  std::optional<uint32_t> no = streams::ParseShardId(req.shard_id(), ms);
  if (!no) return Error::ResourceNotFound(std::string(kShardNotExistMessage));
  ASSIGN_OR_RETURN(shards, Log(s).ListShards(found.table->id, ms));
  bool listed = false;
  for (const auto& sh : shards) listed = listed || sh.shard_no == *no;
  if (!listed) return Error::ResourceNotFound(std::string(kShardNotExistMessage));
  // The oldest record still kept: position 0 stands before every record of the shard.
  streams::ShardIterator it;
  it.stream_arn = req.stream_id();
  it.shard_no = *no;
  it.position = 0;
  it.issued_ms = s.clock.NowMs();
  pb::GetShardIteratorResponse resp;
  resp.set_shard_iterator(streams::EncodeShardIterator(it));
  return Serialize(resp);
}

Result<std::string> GetStreamRecord(const Services& s, std::string_view body) {
  pb::GetStreamRecordRequest req;
  RETURN_IF_ERROR(ParseMessage(body, &req));
  if (!req.has_shard_iterator()) return Error::Validation("Missing shard iterator.");
  if (req.has_limit() && (req.limit() <= 0 || req.limit() > kMaxStreamRecordLimit)) {
    return Error::Validation("Invalid limit: " + std::to_string(req.limit()) +
                             ", it must be in range [1, " +
                             std::to_string(kMaxStreamRecordLimit) + "].");
  }
  RETURN_IF_ERROR(NeedLog(s));
  std::optional<streams::ShardIterator> it = streams::DecodeShardIterator(req.shard_iterator());
  if (!it) return Error::Validation(std::string(kInvalidIteratorMessage));
  // The service reads no record of a stream whose table name is longer than 238 characters,
  // while it lists and describes it (the Java SDK's APITest.testStreamWithLongTableName:
  // OTSParameterInvalid with a message starting "Invalid stream id").
  if (auto parts = ParseStreamId(it->stream_arn);
      parts && parts->table_name.size() > kMaxStreamRecordTableNameBytes) {
    return Error::Validation("Invalid stream id: " + EchoForError(it->stream_arn) + ".");
  }
  ASSIGN_OR_RETURN(found, FindStream(s, it->stream_arn));
  streams::StreamLog& log = Log(s);
  const uint32_t table_id = found.table->id;
  const int64_t ms = found.info.created_ms;
  ASSIGN_OR_RETURN(shards, log.ListShards(table_id, ms));
  // The record the iterator stands after is gone: the trimmer took it, and perhaps records
  // after it that the reader never saw (trimming removes a shard's oldest records first).
  if (it->position > 0) {
    auto kept = s.rows.streams()->store().Get(
        storage::Family::kStreams, streams::RecordKey(table_id, ms, it->shard_no, it->position));
    if (!kept) return std::move(kept).error();
    if (!*kept) return Error(ErrorCode::kTrimmedDataAccess, std::string(kTrimmedMessage));
  }
  // As GetRecords (api/streams_api.cc): a closed shard with no number in flight is settled, so
  // reading to its end is its end; the stable limit is taken before the read.
  bool settled = it->shard_no != shards.back().shard_no &&
                 !log.HasInFlight(table_id, ms, it->shard_no);
  uint64_t stable = log.StableLimit();
  bool at_end = false;
  size_t limit = req.has_limit() ? static_cast<size_t>(req.limit()) : kMaxStreamRecordLimit;
  ASSIGN_OR_RETURN(records,
                   log.ReadRows(table_id, ms, it->shard_no, it->position, stable, limit, &at_end));
  pb::GetStreamRecordResponse resp;
  for (const auto& r : records) {
    auto* out = resp.add_stream_records();
    out->set_action_type(static_cast<pb::ActionType>(r.action));
    PbSequenceInfo seq;
    seq.timestamp = r.created_ms * 1000;
    seq.row_index = static_cast<uint32_t>(r.seq & 0x7fffffff);
    out->set_record(EncodeStreamRow(RecordRow(r), seq));
    if (!r.origin.empty()) out->set_origin_record(EncodeRow(OriginRow(r)));
  }
  if (!(settled && at_end)) {
    if (records.empty()) {
      // Nothing new: the same iterator back, byte for byte. Readers stop polling a shard when
      // the iterator comes back unchanged (the Go SDK's exhaustStreamRecords); a fresh stamp
      // made them spin for as long as the network kept two calls in different milliseconds.
      resp.set_next_shard_iterator(req.shard_iterator());
    } else {
      streams::ShardIterator next = *it;
      next.issued_ms = s.clock.NowMs();
      next.position = records.back().seq;
      resp.set_next_shard_iterator(streams::EncodeShardIterator(next));
    }
  }
  FillConsumed(1, 0, resp.mutable_consumed());
  resp.set_may_more_record(records.size() == limit);
  return Serialize(resp);
}

}  // namespace ttlstore::tablestore
