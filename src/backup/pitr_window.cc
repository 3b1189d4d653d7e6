#include "backup/pitr_window.h"

#include <algorithm>
#include <ctime>

namespace ttlstore::backup {

int64_t RetainedMs(const model::PitrSettings& pitr, int64_t max_window_ms) {
  int32_t days = std::clamp(pitr.recovery_period_days, kMinRecoveryDays, kMaxRecoveryDays);
  return std::min<int64_t>(days * kDayMs, max_window_ms);
}

RestorableWindow WindowOf(const model::PitrSettings& pitr, int64_t now_ms, int64_t max_window_ms) {
  int64_t began = pitr.enabled_ms == 0 ? now_ms : pitr.enabled_ms;
  RestorableWindow w;
  w.latest_ms = now_ms;
  w.earliest_ms = std::min(std::max(began, now_ms - RetainedMs(pitr, max_window_ms)), now_ms);
  return w;
}

bool HistoryStillReaches(const model::TableDescriptor* table, uint32_t id, int64_t from_ms,
                         int64_t now_ms, int64_t max_window_ms) {
  if (!table || table->id != id || !table->pitr) return false;
  RestorableWindow w = WindowOf(*table->pitr, now_ms, max_window_ms);
  return from_ms >= w.earliest_ms && from_ms <= w.latest_ms;
}

int64_t TrimCutoffMs(const model::PitrSettings& pitr, int64_t now_ms, int64_t max_window_ms) {
  return now_ms - RetainedMs(pitr, max_window_ms);
}

std::string IsoSeconds(int64_t ms) {
  std::time_t s = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&s, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

Result<int64_t> ChooseRestorePoint(const RestorableWindow& window, std::optional<int64_t> restore_ms,
                                   bool use_latest) {
  if (use_latest) return window.latest_ms;
  int64_t at = restore_ms.value_or(window.latest_ms);
  if (at < window.earliest_ms || at > window.latest_ms) {
    return Error(ErrorCode::kInvalidRestoreTime,
                 "RestoreDateTime '" + IsoSeconds(at) + "' must be within " +
                     "EarliestRestorableDateTime '" + IsoSeconds(window.earliest_ms) +
                     "' and LatestRestorableDateTime '" + IsoSeconds(window.latest_ms) + "'");
  }
  return at;
}

void UndoSet::Add(storage::PitrLogRecord record) {
  if (record.time_ms <= restore_ms_) return;
  // The first record after the point wins: later ones describe later states.
  images_.try_emplace(std::move(record.item_key), std::move(record.old_image));
}

}  // namespace ttlstore::backup
