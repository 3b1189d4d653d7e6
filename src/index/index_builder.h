// IndexBuilder: the background work of UpdateTable's GlobalSecondaryIndexUpdates. A new index
// is published at once with status CREATING, so every write from then on maintains it; this
// worker then indexes the items the table already had (the backfill) and marks the index
// ACTIVE. A deleted index disappears from the table at once; this worker then removes its
// entries and stats. Both survive a restart: the catalog remembers CREATING indexes and dropped
// index ids, and Resume() queues them again.
//
// The race with writers, and why the result is exact:
//   1. Writers that resolved the table before the index was published do not know the index.
//      The worker first waits until no request holds such an older table version
//      (IndexCatalog::WaitForOlderVersions); from then on every writer maintains the index.
//   2. The backfill indexes each item in a storage read-modify-write of the item's key, and
//      only if the item has no entry yet (a writer may have indexed it already).
//   3. While an index is CREATING, writers check whether the old item's entry really exists
//      before removing it (index_writer.cc), so the per-index stats stay exact.
//
// Several processes on one database (docs/background-jobs.md, "Leases"): each job is a lease
// unit (`index/<table id>/<index id>/build` or `/drop`), so one process runs it at a time, and
// every process finds the pending jobs in its catalog (a pass a second), so when the process
// running one dies another takes it over once the lease has lapsed and resumes it: a backfill
// from the start (each chunk indexes only items without an entry, so one run after another, or
// a late chunk of a process that lost its lease, adds nothing twice), a drop by deleting the
// range again. No fencing is needed: every step is idempotent.
#pragma once

#include "common/thread.h"

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>
#include <thread>

#include "common/result.h"
#include "model/table.h"
#include "storage/lease_keeper.h"
#include "storage/store.h"

namespace ttlstore::index {

// What the builder needs from the table catalog (ops::TableCatalog implements it).
class IndexCatalog {
 public:
  virtual ~IndexCatalog() = default;
  // The current version of the table with this id, or null once it is deleted.
  virtual std::shared_ptr<const model::TableDescriptor> FindById(uint32_t table_id) const = 0;
  // Returns once no request holds a version of the table older than the current one (or after
  // a bounded wait).
  virtual void WaitForOlderVersions(uint32_t table_id) const = 0;
  // Publishes index `index_id` as ACTIVE (no-op if it is gone).
  virtual Status SetIndexActive(uint32_t table_id, uint32_t index_id) = 0;
  // Forgets a dropped index whose entries are removed (no-op if the table is gone).
  virtual Status ForgetDroppedIndex(uint32_t table_id, uint32_t index_id) = 0;
  // Every table, for the pass that finds jobs another process left (none by default).
  virtual std::vector<std::shared_ptr<const model::TableDescriptor>> AllTables() const {
    return {};
  }
};

class IndexBuilder {
 public:
  // `keeper` (may be null: every job runs here at once) holds the jobs' lease units.
  IndexBuilder(storage::Store& store, IndexCatalog& catalog,
               storage::LeaseKeeper* keeper = nullptr);
  ~IndexBuilder();  // Stop()s
  IndexBuilder(const IndexBuilder&) = delete;
  IndexBuilder& operator=(const IndexBuilder&) = delete;

  void Start();
  // Finishes the job under way at the next chunk boundary and joins the thread. Queued jobs
  // are left for Resume() after the next start.
  void Stop();

  // Queues the backfill of index `index_id` (status CREATING) of table `table_id`.
  void Build(uint32_t table_id, uint32_t index_id);
  // Queues the removal of the entries of dropped index `index_id` of table `table_id`.
  void Drop(uint32_t table_id, uint32_t index_id);
  // Queues the unfinished work recorded in `table` (CREATING indexes, dropped index ids).
  void Resume(const model::TableDescriptor& table);

  // A Build or Drop job run on the caller's thread (what the worker runs for each job).
  Status BuildNow(uint32_t table_id, uint32_t index_id);
  Status DropNow(uint32_t table_id, uint32_t index_id);

  // Indexes the table's existing items into `index_id`; stops early (ok) if the table or the
  // index goes away or the builder is stopping, and with kStorageUnavailable if `unit` (when
  // given) is no longer held.
  Status Backfill(uint32_t table_id, uint32_t index_id, const std::string* unit = nullptr);

 private:
  struct Job {
    bool drop = false;
    uint32_t table_id = 0;
    uint32_t index_id = 0;
  };
  enum class Outcome { kDone, kAgain, kElsewhere };
  static std::string UnitOf(const Job& job);
  void Loop();
  void Enqueue(Job job);
  // Queues the jobs the catalog records that are not queued yet (another process's included).
  void Discover();
  // Runs `job` if this process holds (or takes) its unit.
  Outcome RunJob(const Job& job);
  Status BuildJob(uint32_t table_id, uint32_t index_id, const std::string* unit);
  Status RemoveEntries(uint32_t table_id, uint32_t index_id);

  storage::Store& store_;
  IndexCatalog& catalog_;
  storage::LeaseKeeper* const keeper_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::deque<Job> jobs_;  // GUARDED_BY(mu_)
  bool stop_ = false;     // GUARDED_BY(mu_)
  bool woken_ = false;    // GUARDED_BY(mu_): a job was queued since the loop last looked
  Thread thread_;
};

}  // namespace ttlstore::index
