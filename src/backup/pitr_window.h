// Point-in-time recovery's pure rules: the restorable window of a table, the restore point a
// request names, and which old images a restore takes from the change log
// (storage/pitr_log.h). No I/O here, so every rule has a unit test (test/unit/pitr_test.cc).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "common/result.h"
#include "model/table.h"
#include "storage/pitr_log.h"

namespace ttlstore::backup {

// RecoveryPeriodInDays bounds (API reference: 1 to 35; 35 when not given).
inline constexpr int32_t kMinRecoveryDays = 1;
inline constexpr int32_t kMaxRecoveryDays = 35;
inline constexpr int64_t kDayMs = 86'400'000;

// A restore reads the table only once the wall clock is this far past its restore point, so
// every write dated at or before the point has committed (a write reads the clock, then
// commits a few microseconds later, under its key lock). Chosen; see docs/compatibility.md.
inline constexpr int64_t kCommitLagMs = 1000;

struct RestorableWindow {
  int64_t earliest_ms = 0;
  int64_t latest_ms = 0;
};

// How much history a table keeps: its RecoveryPeriodInDays, capped by the server's
// --pitr-window-hours (`max_window_ms`).
int64_t RetainedMs(const model::PitrSettings& pitr, int64_t max_window_ms);

// EarliestRestorableDateTime = max(when logging began, now - retained);
// LatestRestorableDateTime = now. An enable still pending (enabled_ms 0) counts as now.
RestorableWindow WindowOf(const model::PitrSettings& pitr, int64_t now_ms, int64_t max_window_ms);

// Whether `table` (as the catalog holds it now; nullptr when gone) is still the table of id
// `id`, with PITR on, and its history still reaches back to `from_ms`: what a restore or an
// export started over after a storage outage needs of its source (the restore point, the
// export's first logged time).
bool HistoryStillReaches(const model::TableDescriptor* table, uint32_t id, int64_t from_ms,
                         int64_t now_ms, int64_t max_window_ms);

// Change-log records dated before this are no longer needed by any restore inside the window.
int64_t TrimCutoffMs(const model::PitrSettings& pitr, int64_t now_ms, int64_t max_window_ms);

// The restore point of RestoreTableToPointInTime: `restore_ms` (RestoreDateTime), or the latest
// restorable time when `use_latest`. REQUIRES: exactly one of them was given (the caller has
// answered the ValidationException otherwise). InvalidRestoreTimeException (message naming the
// three times, as the service does) when the point is outside `window`.
Result<int64_t> ChooseRestorePoint(const RestorableWindow& window, std::optional<int64_t> restore_ms,
                                   bool use_latest);

// "2026-10-06T23:16:32Z": the service's rendering of times in InvalidRestoreTimeException.
std::string IsoSeconds(int64_t ms);

// The undo set of a restore to `restore_ms`: for each item written after it, the image its
// first write after it recorded (the item as it was at the restore point; nullopt: absent).
// Feed records in log order (time, then seq); records at or before the point are ignored.
class UndoSet {
 public:
  explicit UndoSet(int64_t restore_ms) : restore_ms_(restore_ms) {}
  void Add(storage::PitrLogRecord record);
  // Item key -> image at the restore point.
  std::map<std::string, std::optional<std::string>>& images() { return images_; }

 private:
  int64_t restore_ms_;
  std::map<std::string, std::optional<std::string>> images_;
};

}  // namespace ttlstore::backup
