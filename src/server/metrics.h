// Metrics: request counters and latency histograms, rendered in the Prometheus text format at
// GET /metrics. Cheap to record from any thread (one short lock per request).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <vector>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "common/load_meter.h"

namespace ttlstore::server {

class Metrics {
 public:
  // Records one finished request. `operation` is the DynamoDB action ("" if unknown);
  // `outcome` is "ok" or the error's short type. Operation names can come from the request (a
  // Tablestore action is the URL path), so at most kMaxOperations distinct names get series of
  // their own; requests for further names are counted under "other", and the metrics of a
  // stream of made-up names stay the same size.
  void RecordRequest(const std::string& operation, const std::string& outcome,
                     double seconds);

  // The foreground time of every recorded request, for background work to pace itself by.
  const LoadMeter& load() const { return load_; }

  // Adds a source of further metric text (e.g. the TTL sweeper's), appended on every scrape.
  // Call before serving.
  void AddSource(std::function<std::string()> source) { sources_.push_back(std::move(source)); }
  // A source of one counter without labels: `name`, its HELP text and its value when scraped.
  void AddCounter(std::string name, std::string help, std::function<uint64_t()> value) {
    AddSource([name = std::move(name), help = std::move(help), value = std::move(value)] {
      return "# HELP " + name + " " + help + "\n# TYPE " + name + " counter\n" + name + " " +
             std::to_string(value()) + "\n";
    });
  }

  // Prometheus exposition text.
  std::string Render() const;

 private:
  // Upper bounds of the latency buckets, in seconds (+Inf is implicit).
  static constexpr std::array<double, 12> kBuckets = {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005,
                                                      0.01,   0.025,   0.05,   0.1,   0.5,    1.0};
  struct Histogram {
    std::array<uint64_t, kBuckets.size()> counts{};  // non-cumulative
    uint64_t count = 0;
    double sum = 0;
  };

  // More than every operation of both APIs (about 60); see RecordRequest.
  static constexpr size_t kMaxOperations = 256;

  LoadMeter load_;
  std::vector<std::function<std::string()>> sources_;  // constant after start-up
  mutable std::mutex mu_;
  std::map<std::pair<std::string, std::string>, uint64_t> requests_;  // GUARDED_BY(mu_)
  std::map<std::string, Histogram> latency_;                          // GUARDED_BY(mu_)
};

}  // namespace ttlstore::server
