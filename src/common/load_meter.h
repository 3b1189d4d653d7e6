// LoadMeter: how busy the foreground is. The HTTP server adds the time it spends handling each
// API request; background work (the TTL sweeper) reads the running total to decide how much CPU
// it may take: all it wants while nobody is waiting, a fixed share while requests are served.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace ttlstore {

class LoadMeter {
 public:
  void AddBusy(std::chrono::nanoseconds d) {
    busy_ns_.fetch_add(d.count(), std::memory_order_relaxed);
  }
  // Total foreground time since start, summed over all serving threads.
  std::chrono::nanoseconds busy() const {
    return std::chrono::nanoseconds(busy_ns_.load(std::memory_order_relaxed));
  }

 private:
  std::atomic<int64_t> busy_ns_{0};
};

}  // namespace ttlstore
