// TtlStats: what the expiry sweeper has done, for GET /metrics (D11). Written by the sweeper
// thread, read by metric scrapes; every member is safe to touch from any thread.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace ttlstore::ttl {

class TtlStats {
 public:
  void AddDeleted(const std::string& table, uint64_t n);
  // One pass that took `busy_us` of wall time and `cpu_us` of the sweeper thread's CPU time.
  void AddPass(uint64_t busy_us, uint64_t cpu_us) {
    passes_ += 1;
    busy_us_ += busy_us;
    cpu_us_ += cpu_us;
  }
  void SetLagMs(int64_t lag_ms) { lag_ms_ = lag_ms; }
  void AddDroppedEntries(uint64_t n) { dropped_entries_ += n; }
  // Records how long after their expiry time items were deleted (one value per item, in ms).
  void RecordDeletionLags(const std::vector<int64_t>& lags_ms);

  uint64_t deleted(const std::string& table) const;
  // Prometheus exposition text.
  std::string Render() const;

 private:
  std::atomic<uint64_t> passes_{0};
  std::atomic<uint64_t> busy_us_{0};
  std::atomic<uint64_t> cpu_us_{0};
  std::atomic<int64_t> lag_ms_{0};
  std::atomic<uint64_t> dropped_entries_{0};
  // Upper bounds of the deletion-lag buckets, in seconds (+Inf is implicit).
  static constexpr std::array<double, 12> kLagBuckets = {0.1, 0.2, 0.3, 0.5, 0.75, 1,
                                                         1.5, 2,   5,   10,  60,   300};
  mutable std::mutex mu_;
  std::map<std::string, uint64_t> deleted_;  // GUARDED_BY(mu_), by table name
  std::array<uint64_t, kLagBuckets.size() + 1> lag_counts_{};  // GUARDED_BY(mu_), non-cumulative
  double lag_sum_seconds_ = 0;                                  // GUARDED_BY(mu_)
};

}  // namespace ttlstore::ttl
