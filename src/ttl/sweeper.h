// Sweeper: the background process that deletes expired items (rules D3-D10).
//
// It reads the `expiry` index from its start up to now, so each pass costs in proportion to what
// is due, never to table size. Every candidate is re-checked under its item's lock before it is
// deleted: an item whose TTL was moved into the future or removed since (D10), whose value is
// more than five years old (D4), or whose table no longer has TTL on, only loses its stale index
// entry. A deletion is a full delete through ItemOps::AddDelete (item, stats, expiry entry, and
// the index and stream upkeep that join that path later: D6, D7), committed in one WriteBatch
// per group of items.
//
// With several processes on one database (Store::SharedByProcesses) each process deletes the
// items of the shards it holds (ttl/sweep_shards.h) and every wave starts again from the start
// of the index: another process's write of an entry behind this process's cursor is announced
// only to that process (Store::TakeEarliestCommittedExpiry), so the watermark below stays at 0.
//
// Foreground first (D5), in the spirit of Redis's active expiry: a pass stops after
// `budget_ms` of work. While a backlog remains, the pause before the next pass depends on the
// foreground (a LoadMeter fed by the HTTP server): with requests being served, the sweeper keeps
// to `busy_percent` of one core; with the server idle, it runs passes back to back and clears the
// wave as fast as it can. Without a backlog it sleeps `interval_ms`.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/clock.h"
#include "common/load_meter.h"
#include "common/thread.h"
#include "ops/item_ops.h"
#include "ops/table_ops.h"
#include "storage/lease_keeper.h"
#include "ttl/sweep_workers.h"
#include "ttl/ttl_stats.h"

namespace ttlstore::ttl {

struct SweeperOptions {
  // How often the sweeper looks for due items when there is no backlog. An item is deleted
  // within about this long of its expiry under normal load. Unit: milliseconds. Default: 200.
  int interval_ms = 200;
  // The most work one pass does before yielding to foreground requests. Unit: milliseconds.
  // Default: 25.
  int budget_ms = 25;
  // The share of one core the sweeper may take during a backlog while requests are being
  // served. Unit: percent. Default: 25.
  int busy_percent = 25;
  // Items deleted per WriteBatch (one WAL write and one lock acquisition round). Default: 256.
  size_t batch_size = 256;
  // Batches deleted at once, each on its own thread (and, with a database, its own connection)
  // while the sweeper reads the next (ttl/sweep_workers.h). 1: every batch on the sweeper's own
  // thread, one after another. Default: 1 (main sets the backend's own default).
  size_t threads = 1;
};

// Below this share of one core spent on requests, the server counts as idle for the sweeper.
inline constexpr double kIdleForegroundShare = 0.05;

// The pause after a pass that took `took` of the sweeper thread's CPU time (not wall time: with a
// database on another machine most of a pass is spent waiting for it, and that costs this
// process's cores nothing). `foreground_share` is the time spent serving requests over the last
// pass and pause, as a share of one core (may exceed 1 with several threads).
std::chrono::nanoseconds PauseAfterPass(const SweeperOptions& options, bool backlog,
                                        std::chrono::nanoseconds took, double foreground_share);

class Sweeper {
 public:
  // `load` (may be null: the server counts as always busy) paces the sweeper during a backlog.
  // `keeper` (may be null: every shard) says which shards this process holds on a store other
  // processes share; on any other store the sweeper deletes every due item.
  Sweeper(SweeperOptions options, ops::TableCatalog& catalog, ops::ItemOps& items,
          const Clock& clock, TtlStats& stats, const LoadMeter* load = nullptr,
          const storage::LeaseKeeper* keeper = nullptr);
  ~Sweeper();  // stops the thread

  void Start();
  void Stop();

  // One pass at the clock's now; returns true if a backlog remains (the budget ran out).
  // Public so tests can drive time themselves.
  Result<bool> RunPass();

 private:
  struct DueEntry {
    int64_t due_ms;
    std::string item_key;
  };

  // The shards this process deletes from now (a mask of ttl/sweep_shards.h's bits).
  uint32_t HeldShards() const;
  // Reads up to batch_size due entries of the shards in `shards` (skipping others', reading at
  // most kScanFactor times as many) and deletes them (on a worker when threads > 1); returns
  // whether more are due (a full batch or read, or a wave that ended with entries written
  // behind it).
  Result<bool> SweepBatch(int64_t now_ms, uint32_t shards);
  // Deletes the items of `due` still due at now_ms and drops the other entries, in one
  // read-modify-write. Safe on several threads at once.
  Status DeleteDue(const std::vector<DueEntry>& due, int64_t now_ms);
  // A batch whose delete failed: its entries are behind the cursor and still there, so they are
  // folded in like entries written behind it (invariant I), and its error is kept for RunPass.
  void RecordFailure(int64_t first_due_ms, Status status);
  void Loop();

  // Where the next batch starts, touched only by the thread running passes. Swept entries leave
  // tombstones that an LSM tree keeps until compaction; scanning over them again and again would
  // cost as much as the wave itself, so the sweeper does not rescan what it emptied, except to go
  // back for entries written behind it (invariant I in sweeper.cc):
  //   cursor_    the last expiry key handled in the current wave (the next batch resumes after it);
  //   watermark_ every entry due before it is gone, as of the last drained wave; moved back when
  //              a write commits an entry due earlier (Store::TakeEarliestCommittedExpiry);
  //   behind_    the earliest entry committed during the wave at or behind cursor_ (INT64_MAX:
  //              none); the wave's end moves the watermark back to it.
  std::string cursor_;
  int64_t watermark_ = 0;
  // CPU time of the sweeper thread during the last pass, in µs (touched only by that thread).
  uint64_t last_pass_cpu_us_ = 0;
  int64_t behind_ = INT64_MAX;

  // Failed batches since the last batch began: the earliest due time among them, INT64_MAX for
  // none, and the first error since the pass began; CPU time of workers' batches, in µs.
  std::mutex failed_mu_;
  int64_t failed_due_ = INT64_MAX;  // GUARDED_BY(failed_mu_)
  Status failed_status_;            // GUARDED_BY(failed_mu_)
  std::atomic<uint64_t> worker_cpu_us_{0};

  const SweeperOptions options_;
  ops::TableCatalog& catalog_;
  ops::ItemOps& items_;
  const Clock& clock_;
  TtlStats& stats_;
  const LoadMeter* load_;
  const storage::LeaseKeeper* keeper_;
  const bool shared_;  // the store is shared by processes: shards and no watermark
  std::unique_ptr<SweepWorkers> workers_;  // null when threads == 1
  std::mutex mu_;
  std::condition_variable wake_;
  bool stop_ = false;  // GUARDED_BY(mu_)
  Thread thread_;
};

}  // namespace ttlstore::ttl
