#include "server/metrics.h"

#include <chrono>

#include <fmt/format.h>

namespace ttlstore::server {

void Metrics::RecordRequest(const std::string& operation, const std::string& outcome,
                            double seconds) {
  std::string op = operation.empty() ? std::string("unknown") : operation;
  load_.AddBusy(std::chrono::duration_cast<std::chrono::nanoseconds>(
      std::chrono::duration<double>(seconds)));
  std::lock_guard<std::mutex> lock(mu_);
  if (latency_.size() >= kMaxOperations && !latency_.contains(op)) op = "other";
  ++requests_[{op, outcome}];
  Histogram& h = latency_[op];
  size_t i = 0;
  while (i < kBuckets.size() && seconds > kBuckets[i]) ++i;
  if (i < kBuckets.size()) ++h.counts[i];
  ++h.count;
  h.sum += seconds;
}

std::string Metrics::Render() const {
  std::string out;
  for (const auto& source : sources_) out += source();
  std::lock_guard<std::mutex> lock(mu_);
  out += "# HELP ttlstore_requests_total DynamoDB API requests by operation and outcome.\n";
  out += "# TYPE ttlstore_requests_total counter\n";
  for (const auto& [key, n] : requests_) {
    out += fmt::format("ttlstore_requests_total{{operation=\"{}\",outcome=\"{}\"}} {}\n",
                       key.first, key.second, n);
  }
  out += "# HELP ttlstore_request_duration_seconds Time to handle a request, by operation.\n";
  out += "# TYPE ttlstore_request_duration_seconds histogram\n";
  for (const auto& [op, h] : latency_) {
    uint64_t cumulative = 0;
    for (size_t i = 0; i < kBuckets.size(); ++i) {
      cumulative += h.counts[i];
      out += fmt::format(
          "ttlstore_request_duration_seconds_bucket{{operation=\"{}\",le=\"{}\"}} {}\n", op,
          kBuckets[i], cumulative);
    }
    out += fmt::format(
        "ttlstore_request_duration_seconds_bucket{{operation=\"{}\",le=\"+Inf\"}} {}\n", op,
        h.count);
    out += fmt::format("ttlstore_request_duration_seconds_sum{{operation=\"{}\"}} {}\n", op, h.sum);
    out += fmt::format("ttlstore_request_duration_seconds_count{{operation=\"{}\"}} {}\n", op,
                       h.count);
  }
  return out;
}

}  // namespace ttlstore::server
