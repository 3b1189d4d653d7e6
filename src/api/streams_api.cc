// The DynamoDB Streams API (X-Amz-Target DynamoDBStreams_20120810.*): ListStreams,
// DescribeStream, GetShardIterator, GetRecords. Streams are named by ARN
// (arn:aws:dynamodb:<region>:<account>:table/<name>/stream/<label>); shard iterators are opaque
// strings (streams/shard_iterator.h) valid for 15 minutes.
#include <algorithm>
#include <limits>
#include <set>

#include "api/handlers.h"
#include "api/request.h"
#include "api/stream_spec.h"
#include "api/table_schema.h"
#include "model/arn.h"
#include "streams/shard_iterator.h"
#include "streams/shard_rollover.h"
#include "streams/stream_names.h"

namespace ttlstore::api {
namespace {

constexpr char kInvalid[] = "One or more parameter values were invalid: ";

std::string Finish(const rapidjson::StringBuffer& buf) { return {buf.GetString(), buf.GetSize()}; }

// A stream as the API sees it, of a live or a dropped table.
struct StreamRef {
  uint32_t table_id = 0;
  std::string table_name;
  model::KeySchema key;
  model::StreamInfo info;
  bool enabled() const { return info.disabled_ms == 0; }
};

bool Retained(const model::StreamInfo& st, int64_t now_ms) {
  return st.disabled_ms == 0 || st.disabled_ms + streams::kRetentionMs >= now_ms;
}

// Every stream still readable, of live tables and of dropped ones.
std::vector<StreamRef> AllStreams(const Services& s, int64_t now_ms) {
  std::vector<StreamRef> out;
  ops::ListTablesResult names = s.catalog.List(std::nullopt, std::numeric_limits<size_t>::max());
  for (const auto& name : names.names) {
    ops::TablePtr t = s.catalog.Find(name);
    if (!t) continue;
    for (const auto& st : t->streams) {
      if (Retained(st, now_ms)) out.push_back({t->id, t->name, t->key, st});
    }
  }
  std::string lower(1, streams::kDroppedPrefix), upper(1, streams::kDroppedPrefix + 1);
  for (auto it = s.items.store().ScanFamily(storage::Family::kStreams, lower, upper, false,
                                            nullptr);
       it->Valid(); it->Next()) {
    auto d = streams::DecodeDropped(it->key(), it->value());
    if (d && Retained(d->info, now_ms)) {
      out.push_back({d->table_id, d->table_name, d->key, d->info});
    }
  }
  return out;
}

std::string StreamArn(const Services& s, const StreamRef& r) {
  return TableArn(s, r.table_name) + "/stream/" + streams::StreamLabel(r.info.created_ms);
}

Error StreamNotFound(const std::string& arn) {
  return Error::ResourceNotFound("Requested resource not found: Stream: " + arn + " not found");
}

// A stream ARN's table name and stream label (its creation time). Not of the form
// arn:aws:dynamodb:<region>:<account>:table/<name>/stream/<label>: ValidationException
// "Invalid StreamArn", the service's answer (Alternator's test_describe_nonexistent_stream and
// test_list_streams_with_nonexistent_last_stream, and the AWS SDKs' smoke tests, expect a
// ValidationException; its text as users reported it); of another region or account:
// ResourceNotFoundException.
struct StreamName {
  std::string table_name;
  int64_t created_ms = 0;
};
Result<StreamName> ParseStreamArn(const Services& s, const std::string& arn) {
  Error malformed = Error::Validation("Invalid StreamArn");
  constexpr std::string_view kArnStart = "arn:aws:dynamodb:";
  size_t table = arn.find(":table/");
  size_t mark = arn.rfind("/stream/");
  if (arn.rfind(kArnStart, 0) != 0 || table == std::string::npos ||
      mark == std::string::npos || mark <= table + 7) {
    return malformed;
  }
  std::optional<int64_t> ms = streams::ParseStreamLabel(std::string_view(arn).substr(mark + 8));
  if (!ms) return malformed;
  std::string prefix = model::TableArnPrefix(s.region, s.account_id);
  if (arn.rfind(prefix, 0) != 0 || mark < prefix.size()) return StreamNotFound(arn);
  return StreamName{arn.substr(prefix.size(), mark - prefix.size()), *ms};
}

// Resolves a stream ARN (errors as ParseStreamArn's; well formed but naming no readable stream
// here: ResourceNotFoundException).
Result<StreamRef> FindStream(const Services& s, const std::string& arn, int64_t now_ms) {
  ASSIGN_OR_RETURN(parsed, ParseStreamArn(s, arn));
  const std::string& name = parsed.table_name;
  if (ops::TablePtr t = s.catalog.Find(name)) {
    for (const auto& st : t->streams) {
      if (st.created_ms == parsed.created_ms && Retained(st, now_ms)) {
        return StreamRef{t->id, t->name, t->key, st};
      }
    }
  }
  for (const auto& r : AllStreams(s, now_ms)) {
    if (r.table_name == name && r.info.created_ms == parsed.created_ms) return r;
  }
  return StreamNotFound(arn);
}

Result<std::string> RequiredArn(const rapidjson::Value& req, Constraints& c) {
  ASSIGN_OR_RETURN(arn, OptString(req, "StreamArn"));
  c.NotNull("streamArn", arn.has_value());
  c.Length("streamArn", arn, 37, 1024);
  return arn.value_or("");
}

using streams::ShardIterator;

// The shards of the stream, and where in that list the shard named `shard_id` is.
struct ShardLookup {
  std::vector<streams::ShardInfo> all;
  size_t index = 0;
  const streams::ShardInfo& shard() const { return all[index]; }
};

Error ShardMissing() {
  return Error::ResourceNotFound("Requested resource not found: Shard does not exist");
}

Result<ShardLookup> FindShard(const Services& s, const StreamRef& r, const std::string& shard_id) {
  std::optional<uint32_t> no = streams::ParseShardId(shard_id, r.info.created_ms);
  if (!no) return ShardMissing();
  ASSIGN_OR_RETURN(shards, s.items.streams().ListShards(r.table_id, r.info.created_ms));
  for (size_t i = 0; i < shards.size(); ++i) {
    if (shards[i].shard_no == *no) return ShardLookup{std::move(shards), i};
  }
  return ShardMissing();
}

// A shard takes no more records once its stream is disabled or a newer shard is open.
bool ShardClosed(const StreamRef& r, const std::vector<streams::ShardInfo>& all, uint32_t no) {
  return !r.enabled() || no != all.back().shard_no;
}

// DescribeStream's ShardFilter: nullopt when absent, else the parent shard whose children are
// asked for. Type is checked as the service's model declares it (enum CHILD_SHARDS, ShardId 28-65
// characters, in the service's "1 validation error detected" form); a filter without Type or
// without ShardId is refused with texts of ours (the service's are not published).
Result<std::optional<std::string>> ParseShardFilter(const rapidjson::Value& req, Constraints& c) {
  ASSIGN_OR_RETURN(filter, OptObject(req, "ShardFilter"));
  if (!filter) return std::optional<std::string>();
  ASSIGN_OR_RETURN(type, OptString(*filter, "Type"));
  ASSIGN_OR_RETURN(shard_id, OptString(*filter, "ShardId"));
  c.Enum("shardFilter.type", type, {"CHILD_SHARDS"});
  c.Length("shardFilter.shardId", shard_id, 28, 65);
  if (!c.ok()) return std::optional<std::string>();
  if (!type) {
    return Error::Validation(std::string(kInvalid) +
                             "ShardFilter Type is required; the only type is CHILD_SHARDS");
  }
  if (!shard_id) {
    return Error::Validation(std::string(kInvalid) +
                             "ShardFilter of type CHILD_SHARDS requires a ShardId");
  }
  return shard_id;
}

void WriteRecord(JsonWriter& w, const Services& s, const StreamRef& r,
                 const streams::StreamRecord& rec) {
  w.StartObject();
  w.Key("eventID");
  // Unique per record: derived from the table, the stream and the sequence number.
  std::string id_src = std::to_string(r.table_id) + "/" + std::to_string(r.info.created_ms);
  char id[40];
  std::snprintf(id, sizeof id, "%016llx%016llx",
                static_cast<unsigned long long>(streams::Fnv64(id_src, std::to_string(rec.seq))),
                static_cast<unsigned long long>(rec.seq));
  w.String(id);
  w.Key("eventName");
  w.String(rec.event == streams::EventName::kInsert   ? "INSERT"
           : rec.event == streams::EventName::kModify ? "MODIFY"
                                                      : "REMOVE");
  w.Key("eventVersion");
  w.String("1.1");
  w.Key("eventSource");
  w.String("aws:dynamodb");
  w.Key("awsRegion");
  WriteString(w, s.region);
  w.Key("dynamodb");
  w.StartObject();
  w.Key("ApproximateCreationDateTime");
  w.Int64(rec.created_ms / 1000);
  w.Key("Keys");
  WriteItem(w, rec.keys);
  if (rec.new_image) {
    w.Key("NewImage");
    WriteItem(w, *rec.new_image);
  }
  if (rec.old_image) {
    w.Key("OldImage");
    WriteItem(w, *rec.old_image);
  }
  w.Key("SequenceNumber");
  w.String(streams::SequenceNumberText(rec.seq).c_str());
  w.Key("SizeBytes");
  w.Uint64(rec.size_bytes);
  w.Key("StreamViewType");
  w.String(StreamViewTypeName(rec.view_type));
  w.EndObject();
  if (rec.service) {
    // D7: a TTL deletion is the service's, and says so.
    w.Key("userIdentity");
    w.StartObject();
    w.Key("PrincipalId");
    w.String("dynamodb.amazonaws.com");
    w.Key("Type");
    w.String("Service");
    w.EndObject();
  }
  w.EndObject();
}

}  // namespace

Result<std::string> ListStreams(const Services& s, const rapidjson::Value& req) {
  ASSIGN_OR_RETURN(table, OptString(req, "TableName"));
  ASSIGN_OR_RETURN(limit, OptInt(req, "Limit"));
  ASSIGN_OR_RETURN(start, OptString(req, "ExclusiveStartStreamArn"));
  Constraints c;
  c.TableName("tableName", table, 3, /*all_errors=*/true);
  c.Min("limit", limit, 1);
  c.Length("exclusiveStartStreamArn", start, 37, 1024);
  if (!c.ok()) return c.ToError();
  if (limit && *limit > 100) {
    return Error::Validation(std::string(kInvalid) +
                             "Limit cannot be greater than the maximum allowed size: 100");
  }
  int64_t now = s.clock.NowMs();
  std::vector<StreamRef> all = AllStreams(s, now);
  if (table) {
    std::erase_if(all, [&](const StreamRef& r) { return r.table_name != *table; });
  }
  // Table name order, newest stream first within a table.
  std::sort(all.begin(), all.end(), [](const StreamRef& a, const StreamRef& b) {
    if (a.table_name != b.table_name) return a.table_name < b.table_name;
    return a.info.created_ms > b.info.created_ms;
  });
  // Resumes after where the start ARN sorts, whether or not its stream is still listed: a
  // page that ended at the stream of a table deleted since (and a stream past its 24 hours)
  // goes on with the streams after it, none repeated (Alternator's
  // test_list_streams_paged_resume_on_deleted_table, run against the service).
  size_t begin = 0;
  if (start) {
    ASSIGN_OR_RETURN(after, ParseStreamArn(s, *start));
    auto past = [&](const StreamRef& r) {
      if (r.table_name != after.table_name) return r.table_name > after.table_name;
      return r.info.created_ms < after.created_ms;
    };
    while (begin < all.size() && !past(all[begin])) ++begin;
  }
  size_t max = static_cast<size_t>(limit.value_or(100));
  size_t end = std::min(all.size(), begin + max);
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  w.Key("Streams");
  w.StartArray();
  for (size_t i = begin; i < end; ++i) {
    w.StartObject();
    w.Key("StreamArn");
    WriteString(w, StreamArn(s, all[i]));
    w.Key("TableName");
    WriteString(w, all[i].table_name);
    w.Key("StreamLabel");
    WriteString(w, streams::StreamLabel(all[i].info.created_ms));
    w.EndObject();
  }
  w.EndArray();
  if (end < all.size()) {
    w.Key("LastEvaluatedStreamArn");
    WriteString(w, StreamArn(s, all[end - 1]));
  }
  w.EndObject();
  return Finish(buf);
}

Result<std::string> DescribeStream(const Services& s, const rapidjson::Value& req) {
  Constraints c;
  ASSIGN_OR_RETURN(arn, RequiredArn(req, c));
  ASSIGN_OR_RETURN(limit, OptInt(req, "Limit"));
  ASSIGN_OR_RETURN(start, OptString(req, "ExclusiveStartShardId"));
  c.Min("limit", limit, 1);
  c.Max("limit", limit, 100);
  c.Length("exclusiveStartShardId", start, 28, 65);
  ASSIGN_OR_RETURN(parent, ParseShardFilter(req, c));
  if (!c.ok()) return c.ToError();
  ASSIGN_OR_RETURN(r, FindStream(s, arn, s.clock.NowMs()));
  streams::StreamLog& log = s.items.streams();
  // Which shards are closed is taken first, what is in flight second, the ranges last: a shard
  // closed before the in-flight check and without a number in flight then has every record
  // committed before the ranges are read, so its EndingSequenceNumber is its last record.
  ASSIGN_OR_RETURN(before, log.ListShards(r.table_id, r.info.created_ms));
  std::set<uint32_t> settled;
  {
    std::set<uint32_t> in_flight = log.ShardsInFlight(r.table_id, r.info.created_ms);
    for (const auto& sh : before) {
      if (ShardClosed(r, before, sh.shard_no) && !in_flight.count(sh.shard_no)) {
        settled.insert(sh.shard_no);
      }
    }
  }
  ASSIGN_OR_RETURN(all, log.ListShards(r.table_id, r.info.created_ms));
  ASSIGN_OR_RETURN(last_allocated, log.LastAllocated(r.table_id, r.info.created_ms));
  // CHILD_SHARDS: the shard must be one of the stream's, listed or since trimmed (a reader that
  // finished a parent a day ago may still ask for its children).
  std::vector<streams::ShardInfo> shards = all;
  if (parent) {
    std::optional<uint32_t> no = streams::ParseShardId(*parent, r.info.created_ms);
    if (!no || *no > all.back().shard_no) return ShardMissing();
    shards = streams::ChildShards(all, *no);
  }
  // Shard ids sort as their numbers; the start may name a shard trimmed since the last page.
  size_t begin = 0;
  if (start) {
    std::optional<uint32_t> after = streams::ParseShardId(*start, r.info.created_ms);
    begin = shards.size();
    if (after) {
      begin = 0;
      while (begin < shards.size() && shards[begin].shard_no <= *after) ++begin;
    }
  }
  size_t max = static_cast<size_t>(limit.value_or(100));
  size_t end = std::min(shards.size(), begin + max);
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  w.Key("StreamDescription");
  w.StartObject();
  w.Key("StreamArn");
  WriteString(w, arn);
  w.Key("StreamLabel");
  WriteString(w, streams::StreamLabel(r.info.created_ms));
  w.Key("StreamStatus");
  w.String(r.enabled() ? "ENABLED" : "DISABLED");
  w.Key("StreamViewType");
  w.String(StreamViewTypeName(r.info.view_type));
  w.Key("CreationRequestDateTime");
  w.Double(static_cast<double>(r.info.created_ms) / 1000.0);
  w.Key("TableName");
  WriteString(w, r.table_name);
  w.Key("KeySchema");
  WriteKeySchema(w, r.key);
  w.Key("Shards");
  w.StartArray();
  for (size_t i = begin; i < end; ++i) {
    const streams::ShardInfo& sh = shards[i];
    w.StartObject();
    w.Key("ShardId");
    WriteString(w, streams::ShardIdText(r.info.created_ms, sh.shard_no));
    w.Key("SequenceNumberRange");
    w.StartObject();
    w.Key("StartingSequenceNumber");
    w.String(streams::SequenceNumberText(sh.first_seq.value_or(last_allocated + 1)).c_str());
    // Final only once no writer still holds a number of the shard: until then the shard is
    // shown open (it can still receive that record).
    if (settled.count(sh.shard_no) && sh.last_seq) {
      w.Key("EndingSequenceNumber");
      w.String(streams::SequenceNumberText(*sh.last_seq).c_str());
    }
    w.EndObject();
    if (sh.shard_no > 0) {
      // Named even when the parent was trimmed away, as the service does.
      w.Key("ParentShardId");
      WriteString(w, streams::ShardIdText(r.info.created_ms, sh.shard_no - 1));
    }
    w.EndObject();
  }
  w.EndArray();
  if (end < shards.size()) {
    w.Key("LastEvaluatedShardId");
    WriteString(w, streams::ShardIdText(r.info.created_ms, shards[end - 1].shard_no));
  }
  w.EndObject();
  w.EndObject();
  return Finish(buf);
}

Result<std::string> GetShardIterator(const Services& s, const rapidjson::Value& req) {
  Constraints c;
  ASSIGN_OR_RETURN(arn, RequiredArn(req, c));
  ASSIGN_OR_RETURN(shard_id, OptString(req, "ShardId"));
  ASSIGN_OR_RETURN(type, OptString(req, "ShardIteratorType"));
  ASSIGN_OR_RETURN(seq_text, OptString(req, "SequenceNumber"));
  c.NotNull("shardId", shard_id.has_value());
  c.Length("shardId", shard_id, 28, 65);
  c.NotNull("shardIteratorType", type.has_value());
  c.Enum("shardIteratorType", type,
         {"TRIM_HORIZON", "LATEST", "AT_SEQUENCE_NUMBER", "AFTER_SEQUENCE_NUMBER"});
  c.Length("sequenceNumber", seq_text, 21, 40);
  if (!c.ok()) return c.ToError();
  bool by_number = *type == "AT_SEQUENCE_NUMBER" || *type == "AFTER_SEQUENCE_NUMBER";
  if (!by_number && seq_text) {
    return Error::Validation(std::string(kInvalid) +
                             "SequenceNumber should not be passed for this iterator type");
  }
  std::optional<uint64_t> seq = seq_text ? streams::ParseSequenceNumber(*seq_text) : std::nullopt;
  if (by_number && (!seq || *seq == 0)) {
    return Error::Validation(std::string(kInvalid) + "Invalid SequenceNumber");
  }
  int64_t now = s.clock.NowMs();
  ASSIGN_OR_RETURN(r, FindStream(s, arn, now));
  ASSIGN_OR_RETURN(found, FindShard(s, r, *shard_id));
  streams::StreamLog& log = s.items.streams();
  ShardIterator it{arn, found.shard().shard_no, 0, now};
  ASSIGN_OR_RETURN(last_allocated, log.LastAllocated(r.table_id, r.info.created_ms));
  if (*type == "LATEST") {
    // Just past the newest record: the last number handed out (later ones are newer). On a
    // closed shard that is past its end: GetRecords answers with no records and no
    // NextShardIterator.
    it.position = last_allocated;
  } else if (by_number) {
    // Not yet handed out, or a number of another shard of the stream. Except the
    // StartingSequenceNumber DescribeStream gives a shard with no record yet (the next number):
    // the service gives an iterator for it (Alternator's test_get_shard_iterator).
    const bool fresh_start = !found.shard().first_seq && *seq == last_allocated + 1;
    if (!fresh_start && !streams::SequenceInShard(found.all, found.index, *seq, last_allocated)) {
      return Error::Validation(std::string(kInvalid) + "Invalid SequenceNumber");
    }
    it.position = *type == "AT_SEQUENCE_NUMBER" ? *seq - 1 : *seq;
  }
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  w.Key("ShardIterator");
  WriteString(w, streams::EncodeShardIterator(it));
  w.EndObject();
  return Finish(buf);
}

Result<std::string> GetRecords(const Services& s, const rapidjson::Value& req) {
  ASSIGN_OR_RETURN(text, OptString(req, "ShardIterator"));
  ASSIGN_OR_RETURN(limit, OptInt(req, "Limit"));
  Constraints c;
  c.NotNull("shardIterator", text.has_value());
  c.Length("shardIterator", text, 1, 2048);
  c.Min("limit", limit, 1);
  if (!c.ok()) return c.ToError();
  if (limit && *limit > 1000) {
    return Error::Validation(std::string(kInvalid) + "Limit should be less than or equal to 1000");
  }
  std::optional<ShardIterator> it = streams::DecodeShardIterator(*text);
  if (!it) return Error::Validation("Invalid ShardIterator");
  int64_t now = s.clock.NowMs();
  if (now - it->issued_ms > streams::kIteratorLifetimeMs) {
    return Error(ErrorCode::kExpiredIterator,
                 "Iterator expired. The iterator was created at time " +
                     streams::StreamLabel(it->issued_ms) + " while right now it's " +
                     streams::StreamLabel(now) +
                     " which is further in the future than the tolerated delay of " +
                     std::to_string(streams::kIteratorLifetimeMs) + " milliseconds.");
  }
  ASSIGN_OR_RETURN(r, FindStream(s, it->stream_arn, now));
  streams::StreamLog& log = s.items.streams();
  ASSIGN_OR_RETURN(shards, log.ListShards(r.table_id, r.info.created_ms));
  // In this order: once the shard is closed no number of it is handed out any more, so if none
  // is in flight now, every record it will ever have is committed before the read's snapshot
  // and reading to its end really is its end. (Checked after the read, a record committed in
  // between would be neither read nor waited for.)
  bool settled = ShardClosed(r, shards, it->shard_no) &&
                 !log.HasInFlight(r.table_id, r.info.created_ms, it->shard_no);
  // The limit is taken before the read, so every number below it is in the read's snapshot.
  uint64_t stable = log.StableLimit();
  ASSIGN_OR_RETURN(read, log.Read(r.table_id, r.info.created_ms, it->shard_no, it->position,
                                  stable, static_cast<size_t>(limit.value_or(1000))));
  ShardIterator next = *it;
  next.issued_ms = now;
  if (!read.records.empty()) next.position = read.records.back().seq;
  bool exhausted = settled && read.at_end;
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  w.Key("Records");
  w.StartArray();
  for (const auto& rec : read.records) WriteRecord(w, s, r, rec);
  w.EndArray();
  if (!exhausted) {
    w.Key("NextShardIterator");
    WriteString(w, streams::EncodeShardIterator(next));
  }
  w.EndObject();
  return Finish(buf);
}

}  // namespace ttlstore::api
