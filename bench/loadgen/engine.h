// The measuring engine: each Worker owns an epoll instance and a share of the connections and
// drives them on one thread, one request in flight per connection (no pipelining, like SDK
// clients), keep-alive, re-connecting after errors.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "histogram.h"
#include "http.h"
#include "workload.h"

namespace loadgen {

uint64_t NowNs();  // CLOCK_MONOTONIC

struct Phase {
  enum Kind { kPreload, kWarmup, kMeasure } kind = kMeasure;
  Workload workload = Workload::kPut;
  uint64_t deadline_ns = 0;     // no new requests after this; preload: hard limit
  // Preload only: items [0, total_items) handed out 25 at a time from a shared counter.
  std::atomic<uint64_t>* next_item = nullptr;
  uint64_t total_items = 0;
};

struct Stats {
  Histogram hist;
  uint64_t ops = 0;    // successful requests completed before the deadline
  uint64_t items = 0;  // items written by those requests (batch-put: 25 per request)
  std::map<std::string, uint64_t> errors;
  void Merge(const Stats& o);
  uint64_t ErrorCount() const;
};

class Worker {
 public:
  Worker(const Endpoint& ep, SigV4Signer& signer, const Settings& settings, int connections,
         uint64_t seed, int timeout_ms);
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Runs one phase to its end: until the deadline (then waits for in-flight requests, at most the
  // request timeout), or for a preload until every item is written. Statistics accumulate into
  // stats(); reset them between phases with ResetStats().
  void Run(const Phase& phase);
  Stats& stats() { return stats_; }
  void ResetStats() { stats_ = Stats{}; }
  void set_settings(const Settings& s) { settings_ = s; }

 private:
  struct Conn;
  void Connect(Conn& c, uint64_t now, const Phase& p);
  void Issue(Conn& c, const Phase& p, uint64_t now);
  void OnEvent(Conn& c, uint32_t events, const Phase& p);
  void Complete(Conn& c, const Phase& p);
  void Fail(Conn& c, const char* type, const Phase& p);
  void Watch(Conn& c, uint32_t events);
  void CloseConn(Conn& c);
  void AddError(const Phase& p, std::string_view type);

  const Endpoint& ep_;
  SigV4Signer& signer_;  // one per worker thread: it keeps scratch buffers
  Settings settings_;
  int timeout_ms_;
  int epfd_ = -1;
  std::vector<std::unique_ptr<Conn>> conns_;
  Stats stats_;
  int in_flight_ = 0;
  bool issuing_ = true;
};

}  // namespace loadgen
