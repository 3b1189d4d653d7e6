#include "ops/row_purge_scheduler.h"

#include <spdlog/spdlog.h>

namespace ttlstore::ops {

void RowPurgeScheduler::Start() {
  thread_ = Thread("row-purge", [this] { Loop(); });
}

void RowPurgeScheduler::Stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  purger_.Cancel();
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void RowPurgeScheduler::Pass() {
  if (!storage::MayRun(keeper_, kPurgeLeaseUnit)) return;
  auto start = std::chrono::steady_clock::now();
  auto stats = purger_.PurgeAll();
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                std::chrono::steady_clock::now() - start).count();
  if (!stats) {
    spdlog::warn("event=row_purge_failed message=\"{}\"", stats.error().message());
    return;
  }
  spdlog::debug("event=row_purge_done duration_ms={} rows_read={} rows_rewritten={} "
                "rows_removed={} versions_purged={}",
                ms, stats->rows_read, stats->rows_rewritten, stats->rows_removed,
                stats->versions_purged);
}

void RowPurgeScheduler::Loop() {
  auto start = std::chrono::steady_clock::now();
  if (Status s = purger_.BuildIndexIfNeeded(); !s) {
    // Rows not yet indexed are still trimmed when written; the next start tries again.
    spdlog::warn("event=purge_index_build_failed message=\"{}\"", s.error().message());
  } else {
    spdlog::debug("event=purge_index_ready duration_ms={}",
                  std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::steady_clock::now() - start).count());
  }
  std::unique_lock lock(mu_);
  while (!stopping_) {
    lock.unlock();
    Pass();
    lock.lock();
    cv_.wait_for(lock, interval_, [this] { return stopping_; });
  }
}

}  // namespace ttlstore::ops
