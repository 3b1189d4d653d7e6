// RestoreTableToPointInTime: a new table holding a PITR-enabled table's items as they were at a
// chosen millisecond of its recovery window (backup/pitr_window.h).
//
// - The change log (storage/pitr_log.h) is an undo log: the source as it was at T is its items
//   now, with every item written after T replaced by the old image its first write after T
//   recorded (absent: the item did not exist at T). The request opens, in this order, a view of
//   the source's items and a view of its change log after T; any write committed between the
//   two is in the log, so it is undone either way. Opening them waits until the clock is
//   kCommitLagMs past T, so that every write dated at or before T has committed.
// - Like RestoreTableFromBackup (backup/backups.h), the target is created at once, CREATING with
//   RestoreInProgress, with the source's key schema, indexes (subset by the overrides) and TTL
//   setting; a thread of its own loads the items through the normal write path (indexes, expiry
//   index and stats built as for any write), then clears the mark.
// - Items whose TTL had expired by T are not restored (docs/compatibility.md: the service
//   restores them and lets TTL delete them later; ttlstore would delete them within a second of
//   the restore anyway, so it leaves them out and the restored table never shows them).
// - Crash: a restore a stop interrupted leaves the target marked in progress. The next start
//   (ResumeInterrupted) drops the partial target and starts the restore again from the source
//   at the same point, with the descriptor the request chose; if the source or the point is
//   gone, the target is only dropped. Either way it is whole or absent
//   (docs/background-jobs.md).
#pragma once

#include <atomic>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "backup/backups.h"
#include "common/clock.h"
#include "common/result.h"
#include "common/thread.h"
#include "ops/item_ops.h"
#include "ops/table_ops.h"
#include "storage/lease_keeper.h"
#include "storage/store.h"

namespace ttlstore::backup {

struct PitrRestoreRequest {
  std::string source;       // source table name
  std::string source_arn;   // its ARN (the RestoreSummary's SourceTableArn)
  std::string target;
  std::optional<int64_t> restore_ms;  // RestoreDateTime
  bool use_latest = false;            // UseLatestRestorableTime
  RestoreOverrides overrides;
};

class PitrRestores {
 public:
  // `max_window_ms`: --pitr-window-hours, the most history any table keeps.
  PitrRestores(storage::Store& store, ops::TableCatalog& catalog, ops::ItemOps& items,
               const Clock& clock, int64_t max_window_ms);
  ~PitrRestores();  // cancels restores under way (their targets are dropped at the next start)

  int64_t max_window_ms() const { return max_window_ms_; }
  // Restores run under their target's lease (backup/restore_lease.h): one another process is
  // running is not resumed here. None without a keeper.
  void set_lease_keeper(storage::LeaseKeeper* keeper) { keeper_ = keeper; }

  // Checks in the service's order (after the request's shape): the source exists
  // (TableNotFoundException), has PITR (PointInTimeRecoveryUnavailableException), the point is
  // in its window (InvalidRestoreTimeException), the target is free
  // (TableAlreadyExistsException); then creates the target (CREATING) and starts loading it.
  Result<ops::TablePtr> Start(const PitrRestoreRequest& request);

  // Restarts the point-in-time restores a stop interrupted (see above). Call after
  // TableCatalog::Load and before DropAbandonedRestores and serving.
  void ResumeInterrupted();

 private:
  // Opens the views of `source` at `restore_ms`, creates the target from `spec` and starts
  // loading it. REQUIRES: the point is inside the source's window.
  Result<ops::TablePtr> Launch(const model::TableDescriptor& source, model::TableDescriptor spec,
                               int64_t restore_ms);

  storage::Store& store_;
  ops::TableCatalog& catalog_;
  ops::ItemOps& items_;
  const Clock& clock_;
  int64_t max_window_ms_;
  storage::LeaseKeeper* keeper_ = nullptr;
  std::mutex mu_;
  std::vector<Thread> threads_;  // GUARDED_BY(mu_)
  std::atomic<bool> cancel_{false};
};

}  // namespace ttlstore::backup
