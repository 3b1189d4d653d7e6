// The stream side of the Replicator (cli/replicator.h): listing shards, noting the position,
// and applying the stream.
#include <boost/json.hpp>
#include <algorithm>
#include <chrono>
#include <map>
#include <thread>

#include "cli/replicate_writer.h"
#include "cli/replicator.h"
#include "cli/shard_lineage.h"
#include "client/json.h"
#include "common/clock.h"

namespace ttlstore::cli {
namespace {

namespace json = boost::json;

// GetRecords' own maximum [API reference, GetRecords: Limit up to 1000].
constexpr int kRecordsPerCall = 1000;
// Re-list shards this often while reading (a rollover or split adds children).
constexpr auto kRelistEvery = std::chrono::seconds(5);
// A pass over the shards that found nothing waits, 25 ms after the first such pass, doubling up
// to 200 ms while nothing comes: low lag under a steady load, and at most five GetRecords per
// shard per second on an idle stream (DynamoDB throttles a shard's readers beyond that).
constexpr auto kFirstIdleWait = std::chrono::milliseconds(25);
constexpr auto kMaxIdleWait = std::chrono::milliseconds(200);
constexpr auto kSaveEvery = std::chrono::seconds(1);
// Bounds on pages: DescribeStream pages of shards; GetRecords pages while noting the position
// (stopping early only makes the position older, which is allowed).
constexpr int kMaxShardPages = 10'000;
constexpr int kMaxPositionPages = 100'000;

Error Failed(const std::string& what, const client::CallResult& r) {
  return Error(ErrorCode::kInternal, what + ": " + r.Describe());
}

Result<json::value> CallJson(client::DynamoDbClient& c, const char* op, const json::object& req) {
  client::CallResult r = c.Call(op, json::serialize(req));
  if (!r.ok()) return Failed(op, r);
  return client::ParseJson(r.body);
}

Result<std::vector<ListedShard>> ListShards(client::DynamoDbClient& streams,
                                            const std::string& arn) {
  std::vector<ListedShard> out;
  std::string start;
  for (int page = 0; page < kMaxShardPages; ++page) {
    json::object req;
    req["StreamArn"] = arn;
    if (!start.empty()) req["ExclusiveStartShardId"] = start;
    ASSIGN_OR_RETURN(doc, CallJson(streams, "DescribeStream", req));
    const json::value* desc = client::Member(doc, "StreamDescription");
    if (!desc) return Error(ErrorCode::kInternal, "DescribeStream answered no StreamDescription");
    if (const json::value* shards = client::Member(*desc, "Shards"); shards && shards->is_array()) {
      for (const json::value& s : shards->as_array()) {
        ListedShard l;
        l.id = client::StringMember(s, "ShardId");
        l.parent = client::StringMember(s, "ParentShardId");
        if (const json::value* range = client::Member(s, "SequenceNumberRange")) {
          l.starting_seq = client::StringMember(*range, "StartingSequenceNumber");
          l.ending_seq = client::StringMember(*range, "EndingSequenceNumber");
        }
        if (!l.id.empty()) out.push_back(std::move(l));
      }
    }
    start = client::StringMember(*desc, "LastEvaluatedShardId");
    if (start.empty()) return out;
  }
  return Error(ErrorCode::kInternal, "DescribeStream: more shard pages than the replicator reads");
}

// An iterator for `shard` at `state`: after its last applied number, else its start.
Result<std::string> IteratorFor(client::DynamoDbClient& streams, const std::string& arn,
                                const std::string& shard, const ShardState& state) {
  json::object req;
  req["StreamArn"] = arn;
  req["ShardId"] = shard;
  if (state.after.empty()) {
    req["ShardIteratorType"] = "TRIM_HORIZON";
  } else {
    req["ShardIteratorType"] = "AFTER_SEQUENCE_NUMBER";
    req["SequenceNumber"] = state.after;
  }
  client::CallResult r = streams.Call("GetShardIterator", json::serialize(req));
  if (r.error_type == "TrimmedDataAccessException" ||
      (r.error_type == "ResourceNotFoundException" && !state.after.empty())) {
    return Error(ErrorCode::kTrimmedDataAccess,
                 "shard " + shard + " no longer holds the records after " +
                     (state.after.empty() ? std::string("its start") : state.after) +
                     " (trimmed past the stream's retention while the replicator was stopped): "
                     "changes are lost; start a fresh replication (new --checkpoint, emptied "
                     "target)");
  }
  if (!r.ok()) return Failed("GetShardIterator " + shard, r);
  auto doc = client::ParseJson(r.body);
  if (!doc) return doc.error();
  std::string it = client::StringMember(*doc, "ShardIterator");
  if (it.empty()) return Error(ErrorCode::kInternal, "GetShardIterator answered no iterator");
  return it;
}

struct Page {
  json::array records;
  std::string next;  // "" = the shard is closed and read to its end
  bool expired = false;
};

Result<Page> GetRecords(client::DynamoDbClient& streams, const std::string& iterator) {
  json::object req;
  req["ShardIterator"] = iterator;
  req["Limit"] = kRecordsPerCall;
  client::CallResult r = streams.Call("GetRecords", json::serialize(req));
  Page page;
  if (r.error_type == "ExpiredIteratorException") {
    page.expired = true;
    return page;
  }
  if (r.error_type == "TrimmedDataAccessException") {
    return Error(ErrorCode::kTrimmedDataAccess,
                 "GetRecords: " + r.Describe() + " (changes were trimmed before they were applied)");
  }
  if (!r.ok()) return Failed("GetRecords", r);
  auto doc = client::ParseJson(r.body);
  if (!doc) return doc.error();
  if (const json::value* recs = client::Member(*doc, "Records"); recs && recs->is_array()) {
    page.records = std::move(recs->as_array());
  }
  page.next = client::StringMember(*doc, "NextShardIterator");
  return page;
}

}  // namespace

Status NoteStreamPosition(ReplicateContext& ctx) {
  client::DynamoDbClient streams(ctx.source_streams);
  const std::string arn = ctx.checkpoint.stream_arn;
  ASSIGN_OR_RETURN(listed, ListShards(streams, arn));
  std::map<std::string, ShardState> states;
  for (const ListedShard& s : listed) {
    ShardState st;
    if (s.closed()) {
      st.finished = true;  // closed before the copy: all its changes are in what the copy reads
      states[s.id] = st;
      continue;
    }
    ASSIGN_OR_RETURN(iterator, IteratorFor(streams, arn, s.id, st));
    for (int page = 0; page < kMaxPositionPages && !iterator.empty(); ++page) {
      ASSIGN_OR_RETURN(p, GetRecords(streams, iterator));
      if (p.expired) break;  // an older position is still a correct one
      for (const json::value& rec : p.records) {
        if (const json::value* d = client::Member(rec, "dynamodb")) {
          std::string seq = client::StringMember(*d, "SequenceNumber");
          if (!seq.empty()) st.after = seq;
        }
      }
      if (p.next.empty()) st.finished = true;
      if (p.records.empty()) break;
      iterator = p.next;
    }
    states[s.id] = st;
  }
  std::lock_guard lock(ctx.mu);
  ctx.checkpoint.shards = std::move(states);
  return Status::Ok();
}

Status RunStream(ReplicateContext& ctx) {
  client::DynamoDbClient streams(ctx.source_streams);
  client::DynamoDbClient target(ctx.target);
  TargetWriter writer(target, ctx.target_table, *ctx.stop);
  const std::string arn = ctx.checkpoint.stream_arn;
  std::map<std::string, ShardState> states;
  {
    std::lock_guard lock(ctx.mu);
    states = ctx.checkpoint.shards;
  }
  std::map<std::string, std::string> iterators;  // shard -> current iterator (in memory only)
  std::vector<std::string> ready;
  auto listed_at = std::chrono::steady_clock::time_point{};
  auto saved_at = std::chrono::steady_clock::now();
  bool relist = true;
  bool dirty = false;
  int64_t retries_counted = 0;
  auto idle_wait = std::chrono::milliseconds(0);
  auto save = [&]() -> Status {
    {
      std::lock_guard lock(ctx.mu);
      ctx.checkpoint.shards = states;
      ctx.checkpoint.records_applied = ctx.stats->records_applied.load();
    }
    dirty = false;
    saved_at = std::chrono::steady_clock::now();
    return ctx.Save();
  };
  Status result = Status::Ok();
  while (!ctx.stop->load()) {
    auto now = std::chrono::steady_clock::now();
    if (relist || now - listed_at > kRelistEvery) {
      auto listed = ListShards(streams, arn);
      if (!listed) {
        result = listed.error();
        break;
      }
      ShardPlan plan = PlanShards(*listed, states);
      if (!plan.lost.empty()) {
        result = Error(ErrorCode::kTrimmedDataAccess,
                       "shard " + plan.lost.front() +
                           " left the stream (trimmed past its retention) before all its records "
                           "were applied: changes are lost; start a fresh replication");
        break;
      }
      ready = std::move(plan.ready);
      ctx.stats->shards_active = static_cast<int64_t>(ready.size());
      listed_at = now;
      relist = false;
    }
    bool any = false;
    for (const std::string& shard : ready) {
      if (ctx.stop->load()) break;
      ShardState& st = states[shard];
      if (st.finished) continue;
      if (!iterators.contains(shard)) {
        auto it = IteratorFor(streams, arn, shard, st);
        if (!it) {
          result = it.error();
          break;
        }
        iterators[shard] = std::move(*it);
      }
      auto page = GetRecords(streams, iterators[shard]);
      if (!page) {
        result = page.error();
        break;
      }
      if (page->expired) {
        iterators.erase(shard);
        continue;
      }
      if (!page->records.empty()) {
        auto batch = CollapseRecords(page->records);
        if (!batch) {
          result = batch.error();
          break;
        }
        if (Status s = writer.Write(std::move(batch->requests)); !s) {
          if (!ctx.stop->load()) result = s;
          break;
        }
        st.after = batch->last_sequence;
        ctx.stats->records_applied += batch->records;
        ctx.stats->ttl_deletes_applied += batch->ttl_deletes;
        ctx.stats->writes_retried += writer.unprocessed_retries() - retries_counted;
        retries_counted = writer.unprocessed_retries();
        ctx.stats->last_record_created_ms = static_cast<int64_t>(batch->last_created_s * 1000);
        any = true;
        dirty = true;
      }
      if (page->next.empty()) {
        st.finished = true;  // closed and read to its end: its children may start
        iterators.erase(shard);
        relist = true;
        dirty = true;
      } else {
        iterators[shard] = std::move(page->next);
      }
    }
    if (!result) break;
    ctx.stats->caught_up = !any;
    if (dirty && std::chrono::steady_clock::now() - saved_at > kSaveEvery) {
      if (Status s = save(); !s) {
        result = s;
        break;
      }
    }
    if (any || relist) {
      idle_wait = std::chrono::milliseconds(0);
    } else {
      idle_wait = idle_wait.count() == 0 ? kFirstIdleWait : std::min(kMaxIdleWait, idle_wait * 2);
      auto until = std::chrono::steady_clock::now() + idle_wait;
      while (std::chrono::steady_clock::now() < until && !ctx.stop->load()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
    }
  }
  if (Status s = save(); !s && result) result = s;
  return result;
}

}  // namespace ttlstore::cli
