#include "ttl/ttl_stats.h"

#include <fmt/format.h>

namespace ttlstore::ttl {

void TtlStats::AddDeleted(const std::string& table, uint64_t n) {
  std::lock_guard<std::mutex> lock(mu_);
  deleted_[table] += n;
}

void TtlStats::RecordDeletionLags(const std::vector<int64_t>& lags_ms) {
  std::lock_guard<std::mutex> lock(mu_);
  for (int64_t ms : lags_ms) {
    double seconds = static_cast<double>(ms) / 1000.0;
    size_t b = 0;
    while (b < kLagBuckets.size() && seconds > kLagBuckets[b]) ++b;
    ++lag_counts_[b];
    lag_sum_seconds_ += seconds;
  }
}

uint64_t TtlStats::deleted(const std::string& table) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = deleted_.find(table);
  return it == deleted_.end() ? 0 : it->second;
}

std::string TtlStats::Render() const {
  std::string out;
  out += "# HELP ttlstore_ttl_deleted_items_total Items deleted by TTL expiry, by table.\n";
  out += "# TYPE ttlstore_ttl_deleted_items_total counter\n";
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [table, n] : deleted_) {
      out += fmt::format("ttlstore_ttl_deleted_items_total{{table=\"{}\"}} {}\n", table, n);
    }
  }
  out += "# HELP ttlstore_ttl_expiry_lag_seconds Now minus the expiry time of the oldest expired "
         "item not yet deleted (0 when none is due).\n";
  out += "# TYPE ttlstore_ttl_expiry_lag_seconds gauge\n";
  out += fmt::format("ttlstore_ttl_expiry_lag_seconds {}\n", lag_ms_.load() / 1000.0);
  out += "# HELP ttlstore_ttl_deletion_lag_seconds How long after its expiry time each item "
         "was deleted.\n";
  out += "# TYPE ttlstore_ttl_deletion_lag_seconds histogram\n";
  {
    std::lock_guard<std::mutex> lock(mu_);
    uint64_t cumulative = 0;
    for (size_t b = 0; b < kLagBuckets.size(); ++b) {
      cumulative += lag_counts_[b];
      out += fmt::format("ttlstore_ttl_deletion_lag_seconds_bucket{{le=\"{}\"}} {}\n",
                         kLagBuckets[b], cumulative);
    }
    cumulative += lag_counts_.back();
    out += fmt::format("ttlstore_ttl_deletion_lag_seconds_bucket{{le=\"+Inf\"}} {}\n", cumulative);
    out += fmt::format("ttlstore_ttl_deletion_lag_seconds_sum {}\n", lag_sum_seconds_);
    out += fmt::format("ttlstore_ttl_deletion_lag_seconds_count {}\n", cumulative);
  }
  out += "# HELP ttlstore_ttl_sweeper_passes_total Passes of the expiry sweeper.\n";
  out += "# TYPE ttlstore_ttl_sweeper_passes_total counter\n";
  out += fmt::format("ttlstore_ttl_sweeper_passes_total {}\n", passes_.load());
  out += "# HELP ttlstore_ttl_sweeper_busy_seconds_total Time the sweeper spent working.\n";
  out += "# TYPE ttlstore_ttl_sweeper_busy_seconds_total counter\n";
  out += fmt::format("ttlstore_ttl_sweeper_busy_seconds_total {}\n", busy_us_.load() / 1e6);
  out += "# HELP ttlstore_ttl_sweeper_cpu_seconds_total CPU time of the sweeper thread in its "
         "passes (steadier than busy time on a loaded machine).\n";
  out += "# TYPE ttlstore_ttl_sweeper_cpu_seconds_total counter\n";
  out += fmt::format("ttlstore_ttl_sweeper_cpu_seconds_total {}\n", cpu_us_.load() / 1e6);
  out += "# HELP ttlstore_ttl_stale_entries_dropped_total Expiry-index entries dropped without a "
         "delete: the item was saved by an update (D10), too old to expire (D4), or TTL is off.\n";
  out += "# TYPE ttlstore_ttl_stale_entries_dropped_total counter\n";
  out += fmt::format("ttlstore_ttl_stale_entries_dropped_total {}\n", dropped_entries_.load());
  return out;
}

}  // namespace ttlstore::ttl
