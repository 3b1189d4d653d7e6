// The copy phase of the Replicator (cli/replicator.h): a parallel Scan of the source, one
// thread per segment, each page written to the target before its LastEvaluatedKey is saved.
#include <boost/json.hpp>
#include <chrono>
#include <thread>
#include <vector>

#include "cli/replicate_writer.h"
#include "cli/replicator.h"
#include "client/json.h"

namespace ttlstore::cli {
namespace {

namespace json = boost::json;

// Saving after every page of every segment would fsync tens of times a second; a restart from
// a checkpoint up to this old copies those pages again, which is harmless.
constexpr auto kSaveEvery = std::chrono::milliseconds(500);

}  // namespace

Status ReplicateContext::Save() {
  ReplicateCheckpoint copy;
  {
    std::lock_guard lock(mu);
    copy = checkpoint;
  }
  return copy.Save(checkpoint_path);
}

Status RunCopy(ReplicateContext& ctx) {
  int segments;
  {
    std::lock_guard lock(ctx.mu);
    segments = static_cast<int>(ctx.checkpoint.segments.size());
  }
  std::mutex err_mu;
  Status first_error = Status::Ok();
  std::atomic<bool> abort{false};
  std::mutex save_mu;  // one save at a time; the others skip theirs
  auto saved_at = std::chrono::steady_clock::now();

  auto worker = [&](int segment) {
    client::ClientOptions src_opts = ctx.source;
    client::ClientOptions dst_opts = ctx.target;
    src_opts.cancel = ctx.stop;
    dst_opts.cancel = ctx.stop;
    client::DynamoDbClient source(src_opts);
    client::DynamoDbClient target(dst_opts);
    TargetWriter writer(target, ctx.target_table, *ctx.stop);
    auto fail = [&](Status s) {
      std::lock_guard lock(err_mu);
      if (first_error) first_error = std::move(s);
      abort = true;
    };
    json::value start;
    int64_t retries_counted = 0;
    {
      std::lock_guard lock(ctx.mu);
      const SegmentState& st = ctx.checkpoint.segments[segment];
      if (st.done) return;
      start = st.last_key;
    }
    while (!ctx.stop->load() && !abort.load()) {
      json::object req;
      req["TableName"] = ctx.source_table;
      req["ConsistentRead"] = true;
      if (segments > 1) {
        req["Segment"] = segment;
        req["TotalSegments"] = segments;
      }
      if (start.is_object()) req["ExclusiveStartKey"] = start;
      if (ctx.scan_limit > 0) req["Limit"] = ctx.scan_limit;
      client::CallResult r = source.Call("Scan", json::serialize(req));
      if (!r.ok()) {
        if (!ctx.stop->load()) fail(Error(ErrorCode::kInternal, "Scan " + ctx.source_table + ": " + r.Describe()));
        return;
      }
      auto doc = client::ParseJson(r.body);
      if (!doc) return fail(doc.error());
      std::vector<json::value> puts;
      if (const json::value* items = client::Member(*doc, "Items"); items && items->is_array()) {
        for (const json::value& item : items->as_array()) {
          json::object put;
          put["Item"] = item;
          json::object request;
          request["PutRequest"] = std::move(put);
          puts.push_back(std::move(request));
        }
      }
      int64_t n = static_cast<int64_t>(puts.size());
      if (Status s = writer.Write(std::move(puts)); !s) {
        if (!ctx.stop->load()) fail(std::move(s));
        return;
      }
      const json::value* lek = client::Member(*doc, "LastEvaluatedKey");
      start = lek && lek->is_object() ? *lek : json::value();
      bool done = start.is_null();
      ctx.stats->items_copied += n;
      ctx.stats->writes_retried += writer.unprocessed_retries() - retries_counted;
      retries_counted = writer.unprocessed_retries();
      {
        std::lock_guard lock(ctx.mu);
        SegmentState& st = ctx.checkpoint.segments[segment];
        st.last_key = start;
        st.done = done;
        st.items += n;
        ctx.checkpoint.items_copied += n;
      }
      std::unique_lock save_lock(save_mu, std::try_to_lock);
      if (save_lock.owns_lock() &&
          (done || std::chrono::steady_clock::now() - saved_at > kSaveEvery)) {
        saved_at = std::chrono::steady_clock::now();
        if (Status s = ctx.Save(); !s) return fail(std::move(s));
      }
      if (done) return;
    }
  };
  std::vector<std::thread> threads;
  for (int i = 0; i < segments; ++i) threads.emplace_back(worker, i);
  for (auto& t : threads) t.join();
  bool all_done = true;
  {
    std::lock_guard lock(ctx.mu);
    for (const auto& s : ctx.checkpoint.segments) all_done = all_done && s.done;
    ctx.checkpoint.copy_done = all_done && first_error.ok();
  }
  RETURN_IF_ERROR(ctx.Save());
  return first_error;
}

}  // namespace ttlstore::cli
