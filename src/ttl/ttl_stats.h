// TtlStats: what the expiry sweeper has done, for GET /metrics (D11). Written by the sweeper
// thread, read by metric scrapes; every member is safe to touch from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

namespace ttlstore::ttl {

class TtlStats {
 public:
  void AddDeleted(const std::string& table, uint64_t n);
  void AddPass(uint64_t busy_us) {
    passes_ += 1;
    busy_us_ += busy_us;
  }
  void SetLagMs(int64_t lag_ms) { lag_ms_ = lag_ms; }
  void AddDroppedEntries(uint64_t n) { dropped_entries_ += n; }

  uint64_t deleted(const std::string& table) const;
  // Prometheus exposition text.
  std::string Render() const;

 private:
  std::atomic<uint64_t> passes_{0};
  std::atomic<uint64_t> busy_us_{0};
  std::atomic<int64_t> lag_ms_{0};
  std::atomic<uint64_t> dropped_entries_{0};
  mutable std::mutex mu_;
  std::map<std::string, uint64_t> deleted_;  // GUARDED_BY(mu_), by table name
};

}  // namespace ttlstore::ttl
