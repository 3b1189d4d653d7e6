#include "ops/row_purge_scheduler.h"

#include <pthread.h>
#include <spdlog/spdlog.h>

namespace ttlstore::ops {

void RowPurgeScheduler::Start() {
  thread_ = std::thread([this] {
    pthread_setname_np(pthread_self(), "row-purge");
    Loop();
  });
}

void RowPurgeScheduler::Stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void RowPurgeScheduler::Loop() {
  std::unique_lock lock(mu_);
  while (!cv_.wait_for(lock, interval_, [this] { return stopping_; })) {
    if (catalog_.List(std::nullopt, 1, Front::kTablestore).names.empty()) continue;
    lock.unlock();
    auto start = std::chrono::steady_clock::now();
    Status s = store_.CompactRows();
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                  std::chrono::steady_clock::now() - start).count();
    if (!s) {
      spdlog::warn("event=row_purge_failed message=\"{}\"", s.error().message());
    } else {
      spdlog::debug("event=row_purge_done duration_ms={}", ms);
    }
    runs_.fetch_add(1, std::memory_order_relaxed);
    lock.lock();
  }
}

}  // namespace ttlstore::ops
