// ExpiryBackfiller: indexes the items a table already holds when UpdateTimeToLive enables TTL,
// so items written before TTL was turned on expire too (D1, D8).
//
// What is durable at each step, and how it resumes (docs/background-jobs.md):
//   1. Enable: one catalog write sets TTL on and marks the backfill pending (descriptor tag 26,
//      ops::TableCatalog::SetTimeToLive). From then on every write keeps the expiry index.
//   2. Each chunk of kChunk items, in key order after the cursor, is read in one storage
//      read-modify-write of its items' keys, which commits their expiry entries; then the
//      descriptor's new cursor (the chunk's last key) is committed
//      (TableCatalog::AdvanceTtlBackfill). So every item at or before the cursor has its entry,
//      and the cursor never claims an entry that was lost.
//   3. The last chunk's cursor write removes the pending mark.
//   A crash between any two steps leaves TTL enabled with the backfill pending and a cursor at
//   a chunk boundary; at start-up Resume() queues the table again and the job continues after
//   the cursor. Rewriting an entry that exists is harmless, so nothing depends on where in a
//   chunk the crash fell.
//
// The race with writers: writers that looked the table up before TTL was enabled add no expiry
// entry. A job waits until no request holds such an older version
// (TableCatalog::WaitForOlderVersions) before it reads any item; from then on writers keep the
// index and the backfill covers the rest, each item in a read-modify-write of its key. While the backfill is
// pending UpdateTimeToLive refuses further changes (the service's "modified multiple times"),
// so a job never races a disable and re-enable; it stops by itself when the table is deleted.
//
// Several processes on one database (docs/background-jobs.md, "Leases"): each table's backfill
// is a lease unit (`ttl/backfill/<table id>`), run by the process that holds it; every process
// finds pending backfills in its catalog once a second, so when the process running one dies
// another takes it over once the lease has lapsed and continues after the cursor. A process that
// lost its lease stops at its next chunk; a chunk it was finishing only puts entries again (and
// may set the cursor back one chunk, which the holder then redoes): no fencing is needed.
#pragma once

#include "common/thread.h"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "common/result.h"
#include "model/table.h"
#include "ops/item_ops.h"
#include "ops/table_ops.h"
#include "storage/lease_keeper.h"

namespace ttlstore::ttl {

class ExpiryBackfiller {
 public:
  // `keeper` (may be null: every job runs here at once) holds the jobs' lease units.
  ExpiryBackfiller(ops::TableCatalog& catalog, ops::ItemOps& items,
                   storage::LeaseKeeper* keeper = nullptr)
      : catalog_(catalog), items_(items), keeper_(keeper) {}
  ~ExpiryBackfiller();  // Stop()s
  ExpiryBackfiller(const ExpiryBackfiller&) = delete;
  ExpiryBackfiller& operator=(const ExpiryBackfiller&) = delete;

  void Start();
  // Ends the job under way at the next chunk boundary and joins the thread. Unfinished
  // backfills stay pending in their descriptors for Resume() after the next start.
  void Stop();

  // Queues the backfill of table `table_id` (its descriptor marks it pending).
  void Enqueue(uint32_t table_id);
  // Queues the table's backfill if its descriptor marks one pending (start-up).
  void Resume(const model::TableDescriptor& table);
  // Waits until the table's queued or running backfill is over, at most `timeout`. True if no
  // backfill of the table is queued or running any more.
  bool WaitUntilDone(uint32_t table_id, std::chrono::milliseconds timeout);

  // Runs the table's pending backfill to its end on the caller's thread (what the worker runs
  // for each job). Ok, doing nothing, if none is pending; stops early (ok) if the table goes
  // away or Stop() is called, and with kStorageUnavailable if `unit` (when given) is no longer
  // held.
  Status RunNow(uint32_t table_id, const std::string* unit = nullptr);

  // Items per chunk: one lock round and one WriteBatch (with the descriptor) each, so a writer
  // to those items waits at most one chunk.
  static constexpr size_t kChunk = 1000;

 private:
  void Loop();
  bool stopping();
  // Runs the table's backfill if this process holds (or takes) its unit; true once it is over.
  bool RunJob(uint32_t table_id);

  ops::TableCatalog& catalog_;
  ops::ItemOps& items_;
  storage::LeaseKeeper* const keeper_;
  std::mutex mu_;
  std::condition_variable wake_;    // a job was queued, or stop
  std::condition_variable done_;    // a job ended
  std::deque<uint32_t> jobs_;       // GUARDED_BY(mu_)
  std::set<uint32_t> active_;       // GUARDED_BY(mu_): tables queued or running
  bool stop_ = false;               // GUARDED_BY(mu_)
  bool woken_ = false;              // GUARDED_BY(mu_): a job was queued since the loop looked
  Thread thread_;
};

}  // namespace ttlstore::ttl
