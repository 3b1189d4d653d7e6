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
  thread_.Start("pitr-trimmer", interval_ms_, [this] {
    if (!storage::MayRun(keeper_, kPitrTrimLeaseUnit)) return;
    auto result = TrimOnce(clock_.NowMs());
    if (!result) {
      spdlog::warn("event=pitr_trim_failed message=\"{}\"", result.error().message());
    }
  });
}

void PitrTrimmer::Stop() { thread_.Stop(); }

}  // namespace ttlstore::backup
