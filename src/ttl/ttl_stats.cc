#include "ttl/ttl_stats.h"

#include <fmt/format.h>

namespace ttlstore::ttl {

void TtlStats::AddDeleted(const std::string& table, uint64_t n) {
  std::lock_guard<std::mutex> lock(mu_);
  deleted_[table] += n;
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
  out += "# HELP ttlstore_ttl_sweeper_passes_total Passes of the expiry sweeper.\n";
  out += "# TYPE ttlstore_ttl_sweeper_passes_total counter\n";
  out += fmt::format("ttlstore_ttl_sweeper_passes_total {}\n", passes_.load());
  out += "# HELP ttlstore_ttl_sweeper_busy_seconds_total Time the sweeper spent working.\n";
  out += "# TYPE ttlstore_ttl_sweeper_busy_seconds_total counter\n";
  out += fmt::format("ttlstore_ttl_sweeper_busy_seconds_total {}\n", busy_us_.load() / 1e6);
  out += "# HELP ttlstore_ttl_stale_entries_dropped_total Expiry-index entries dropped without a "
         "delete: the item was saved by an update (D10), too old to expire (D4), or TTL is off.\n";
  out += "# TYPE ttlstore_ttl_stale_entries_dropped_total counter\n";
  out += fmt::format("ttlstore_ttl_stale_entries_dropped_total {}\n", dropped_entries_.load());
  return out;
}

}  // namespace ttlstore::ttl
