#include "client/dynamodb_client.h"

#include <algorithm>
#include <cstdint>
#include <thread>

#include "client/json.h"
#include "common/clock.h"

namespace ttlstore::client {
namespace {

constexpr int64_t kBackoffBaseMs = 50;
constexpr int64_t kBackoffCapMs = 5'000;

}  // namespace

std::string CallResult::Describe() const {
  if (error_message.empty()) return error_type;
  return error_type + ": " + error_message;
}

bool IsRetryable(const CallResult& r) {
  if (r.ok()) return false;
  if (r.http_status == 0) return r.error_type != "TlsError";
  if (r.http_status >= 500) return true;
  return r.error_type == "ProvisionedThroughputExceededException" ||
         r.error_type == "ThrottlingException" || r.error_type == "RequestLimitExceeded" ||
         r.error_type == "InternalServerError" || r.error_type == "ServiceUnavailable";
}

Endpoint StreamsEndpointFor(const Endpoint& dynamodb) {
  Endpoint e = dynamodb;
  if (e.host.rfind("dynamodb.", 0) == 0 && !RegionOfHost(e.host).empty()) {
    e.host = "streams." + e.host;
  }
  return e;
}

DynamoDbClient::DynamoDbClient(ClientOptions options)
    : options_(std::move(options)),
      connection_(options_.endpoint),
      jitter_state_(static_cast<uint64_t>(SystemClock().NowMs()) ^
                    reinterpret_cast<uintptr_t>(this)) {}

CallResult DynamoDbClient::CallOnce(std::string_view operation, const std::string& body) {
  CallResult out;
  out.attempts = 1;
  auth::OwnedHeaders headers = {
      {"Host", options_.endpoint.HostHeader()},
      {"Content-Type", "application/x-amz-json-1.0"},
      {"X-Amz-Target", options_.target_prefix + "." + std::string(operation)},
  };
  auth::SignRequest(options_.identity, "POST", "/", headers, body, SystemClock().NowMs());
  headers.erase(headers.begin());  // Host: the connection sets it (the same value)
  auto response = connection_.Post("/", headers, body, options_.timeout);
  if (!response) {
    out.error_type =
        response.error().code() == ErrorCode::kAccessDenied ? "TlsError" : "ConnectionError";
    out.error_message = response.error().message();
    return out;
  }
  out.http_status = response->status;
  out.body = std::move(response->body);
  if (out.ok()) return out;
  auto doc = ParseJson(out.body);
  std::string type = doc ? StringMember(*doc, "__type") : "";
  if (size_t hash = type.rfind('#'); hash != std::string::npos) type = type.substr(hash + 1);
  out.error_type = type.empty() ? "HTTP " + std::to_string(out.http_status) : type;
  if (doc) {
    out.error_message = StringMember(*doc, "message");
    if (out.error_message.empty()) out.error_message = StringMember(*doc, "Message");
  }
  if (out.error_message.empty() && !doc) out.error_message = out.body.substr(0, 200);
  return out;
}

CallResult DynamoDbClient::Call(std::string_view operation, const std::string& body) {
  for (int attempt = 1;; ++attempt) {
    CallResult r = CallOnce(operation, body);
    r.attempts = attempt;
    bool cancelled = options_.cancel && options_.cancel->load();
    if (!IsRetryable(r) || attempt >= options_.max_attempts || cancelled) return r;
    Backoff(attempt);
  }
}

void DynamoDbClient::Backoff(int attempt) {
  int64_t ceiling = std::min<int64_t>(kBackoffCapMs, kBackoffBaseMs << std::min(attempt, 20));
  // xorshift64: jitter needs no quality, only spread between threads.
  jitter_state_ ^= jitter_state_ << 13;
  jitter_state_ ^= jitter_state_ >> 7;
  jitter_state_ ^= jitter_state_ << 17;
  int64_t wait_ms = static_cast<int64_t>(jitter_state_ % static_cast<uint64_t>(ceiling + 1));
  auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(wait_ms);
  while (std::chrono::steady_clock::now() < until) {
    if (options_.cancel && options_.cancel->load()) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(std::min<int64_t>(wait_ms, 20)));
  }
}

}  // namespace ttlstore::client
