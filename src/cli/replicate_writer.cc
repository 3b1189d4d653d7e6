#include "cli/replicate_writer.h"

#include <algorithm>
#include <boost/json.hpp>
#include <map>
#include <thread>

#include "client/json.h"

namespace ttlstore::cli {
namespace {

namespace json = boost::json;

// UnprocessedItems come back when the target is throttling: wait, longer each time.
constexpr int kMaxUnprocessedRounds = 60;
constexpr int64_t kUnprocessedBaseMs = 50;
constexpr int64_t kUnprocessedCapMs = 2'000;

// Keys name each attribute once; their order in the JSON is the writer's, so the canonical
// form sorts them.
std::string CanonicalKey(const json::object& keys) {
  std::vector<std::pair<std::string, std::string>> parts;
  for (const auto& kv : keys) parts.emplace_back(std::string(kv.key()), json::serialize(kv.value()));
  std::sort(parts.begin(), parts.end());
  std::string out;
  for (const auto& [k, v] : parts) {
    out += k;
    out += '\0';
    out += v;
    out += '\0';
  }
  return out;
}

}  // namespace

Status TargetWriter::Write(std::vector<json::value> requests) {
  for (size_t i = 0; i < requests.size(); i += kBatchWriteLimit) {
    json::array chunk;
    for (size_t j = i; j < std::min(requests.size(), i + kBatchWriteLimit); ++j) {
      chunk.push_back(std::move(requests[j]));
    }
    RETURN_IF_ERROR(WriteChunk(std::move(chunk)));
  }
  return Status::Ok();
}

Status TargetWriter::WriteChunk(json::array chunk) {
  for (int round = 0; !chunk.empty(); ++round) {
    if (stop_.load()) return Error(ErrorCode::kInternal, "stopped");
    if (round >= kMaxUnprocessedRounds) {
      return Error(ErrorCode::kInternal, "BatchWriteItem to " + table_ + ": items still unprocessed after " +
                                             std::to_string(round) + " attempts");
    }
    if (round > 0) {
      ++unprocessed_retries_;
      int64_t wait = std::min<int64_t>(kUnprocessedCapMs, kUnprocessedBaseMs << std::min(round, 10));
      for (int64_t waited = 0; waited < wait && !stop_.load(); waited += 20) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    }
    json::object req;
    json::object items;
    items[table_] = std::move(chunk);
    req["RequestItems"] = std::move(items);
    client::CallResult r = ddb_.Call("BatchWriteItem", json::serialize(req));
    if (!r.ok()) return Error(ErrorCode::kInternal, "BatchWriteItem to " + table_ + ": " + r.Describe());
    auto doc = client::ParseJson(r.body);
    if (!doc) return doc.error();
    chunk = json::array();
    const json::value* un = client::Member(*doc, "UnprocessedItems");
    if (un && un->is_object()) {
      if (const json::value* mine = un->as_object().if_contains(table_); mine && mine->is_array()) {
        chunk = mine->as_array();
      }
    }
  }
  return Status::Ok();
}

Result<ChangeBatch> CollapseRecords(const json::array& records) {
  ChangeBatch out;
  std::map<std::string, json::value> last;  // canonical key -> request
  for (const json::value& rv : records) {
    const json::object* rec = rv.if_object();
    const json::value* d = rec ? rec->if_contains("dynamodb") : nullptr;
    if (!d || !d->is_object()) return Error(ErrorCode::kValidation, "stream record without dynamodb");
    const json::object& dyn = d->as_object();
    const json::value* keys = dyn.if_contains("Keys");
    const json::value* seq = dyn.if_contains("SequenceNumber");
    if (!keys || !keys->is_object() || !seq || !seq->is_string()) {
      return Error(ErrorCode::kValidation, "stream record without Keys or SequenceNumber");
    }
    std::string event = client::StringMember(rv, "eventName");
    json::object request;
    if (event == "REMOVE") {
      json::object del;
      del["Key"] = *keys;
      request["DeleteRequest"] = std::move(del);
      // The Streams API's Identity is {"PrincipalId", "Type"} [API reference, Identity]; the
      // Lambda event form spells them principalId / type. Either is the service's TTL delete.
      const json::value* who = rec->if_contains("userIdentity");
      if (who) {
        std::string type = client::StringMember(*who, "Type");
        if (type.empty()) type = client::StringMember(*who, "type");
        std::string principal = client::StringMember(*who, "PrincipalId");
        if (principal.empty()) principal = client::StringMember(*who, "principalId");
        if (type == "Service" && principal == "dynamodb.amazonaws.com") ++out.ttl_deletes;
      }
    } else if (event == "INSERT" || event == "MODIFY") {
      const json::value* image = dyn.if_contains("NewImage");
      if (!image || !image->is_object()) {
        return Error(ErrorCode::kValidation,
                     "stream record " + std::string(seq->as_string()) + " has no NewImage");
      }
      json::object put;
      put["Item"] = *image;
      request["PutRequest"] = std::move(put);
    } else {
      return Error(ErrorCode::kValidation, "stream record with eventName '" + event + "'");
    }
    last[CanonicalKey(keys->as_object())] = std::move(request);
    ++out.records;
    out.last_sequence = std::string(seq->as_string());
    if (const json::value* t = dyn.if_contains("ApproximateCreationDateTime"); t && t->is_number()) {
      out.last_created_s = t->to_number<double>();
    }
  }
  out.requests.reserve(last.size());
  for (auto& [k, v] : last) out.requests.push_back(std::move(v));
  return out;
}

}  // namespace ttlstore::cli
