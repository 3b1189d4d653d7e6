// PitrTrimmer: keeps each table's PITR change log (storage/pitr_log.h) to its recovery window.
// A pass drops, per table with PITR, the records dated before TrimCutoffMs (backup/
// pitr_window.h) with one DeleteRange; all tables' ranges go in one WriteBatch. A range delete
// is idempotent, so a pass a crash cuts short is simply run again by the next start's first
// pass: nothing to resume (docs/background-jobs.md).
#pragma once

#include <cstdint>

#include "common/clock.h"
#include "common/periodic_thread.h"
#include "common/result.h"
#include "ops/table_ops.h"
#include "storage/lease_keeper.h"
#include "storage/store.h"

namespace ttlstore::backup {

// The trimmer's unit of work (storage/lease.h): one process at a time trims.
inline const std::string kPitrTrimLeaseUnit = "pitr/trim";

class PitrTrimmer {
 public:
  // Passes run every `interval_ms`; `max_window_ms` is --pitr-window-hours. With a `keeper`,
  // passes run only while it holds kPitrTrimLeaseUnit.
  PitrTrimmer(storage::Store& store, const ops::TableCatalog& catalog, const Clock& clock,
              int64_t max_window_ms, int64_t interval_ms,
              const storage::LeaseKeeper* keeper = nullptr)
      : store_(store),
        catalog_(catalog),
        clock_(clock),
        max_window_ms_(max_window_ms),
        interval_ms_(interval_ms),
        keeper_(keeper) {}
  ~PitrTrimmer() { Stop(); }

  // One pass at `now_ms`. Returns the number of tables whose log was trimmed.
  Result<int> TrimOnce(int64_t now_ms);

  void Start();
  void Stop();

 private:
  storage::Store& store_;
  const ops::TableCatalog& catalog_;
  const Clock& clock_;
  int64_t max_window_ms_;
  int64_t interval_ms_;
  const storage::LeaseKeeper* keeper_;
  PeriodicThread thread_;
};

}  // namespace ttlstore::backup
