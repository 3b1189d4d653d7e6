#include "backup/pitr_trimmer.h"

#include <spdlog/spdlog.h>

#include <chrono>

#include "backup/pitr_window.h"
#include "storage/pitr_log.h"

namespace ttlstore::backup {

Result<int> PitrTrimmer::TrimOnce(int64_t now_ms) {
  storage::WriteBatch batch(store_);
  int tables = 0;
  for (const auto& name : catalog_.List(std::nullopt, SIZE_MAX).names) {
    ops::TablePtr t = catalog_.Find(name);
    if (!t || !t->pitr) continue;
    int64_t cutoff = TrimCutoffMs(*t->pitr, now_ms, max_window_ms_);
    if (cutoff <= 0) continue;
    // Nothing that old: no range tombstone (one per table per pass would pile up otherwise).
    auto oldest = store_.ScanFamily(storage::Family::kPitr, storage::PitrLogTableBegin(t->id),
                                    storage::PitrLogBound(t->id, cutoff), false, nullptr);
    if (!oldest->Valid()) {
      RETURN_IF_ERROR(oldest->status());
      continue;
    }
    batch.DeleteRange(storage::Family::kPitr, storage::PitrLogTableBegin(t->id),
                      storage::PitrLogBound(t->id, cutoff));
    ++tables;
  }
  if (tables == 0) return 0;
  RETURN_IF_ERROR(store_.Write(batch));
  return tables;
}

void PitrTrimmer::Start() {
  thread_ = Thread("pitr-trimmer", [this] {
    std::unique_lock<std::mutex> lock(mu_);
    while (!stop_) {
      lock.unlock();
      auto result = TrimOnce(clock_.NowMs());
      if (!result) {
        spdlog::warn("event=pitr_trim_failed message=\"{}\"", result.error().message());
      }
      lock.lock();
      wake_.wait_for(lock, std::chrono::milliseconds(interval_ms_), [this] { return stop_; });
    }
  });
}

void PitrTrimmer::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

}  // namespace ttlstore::backup
