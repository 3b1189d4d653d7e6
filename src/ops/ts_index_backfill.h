// TsIndexBackfill: the background work of Tablestore secondary indexes (docs/tablestore.md,
// "Secondary indexes"; docs/background-jobs.md).
//
// 1. Backfill. CreateIndex with include_base_data marks the index `building` with an empty
//    cursor, in the catalog write that adds it; from that write on every row write keeps the
//    index (ops/row_batch.h). This job then walks the table's rows in key order, 64 at a time:
//    under the rows' locks (as writes and the purge take them) it reads each row, puts the index
//    row it implies, and commits those puts together with the index's new cursor (the last key
//    done) or, after the last chunk, with `building` cleared, in ONE WriteBatch
//    (TableCatalog::CommitWithTable). A kill -9 leaves the cursor and the index rows in step, so
//    the next start resumes after the cursor; redoing a chunk puts the same rows again. Before its
//    first chunk it waits until no request holds a descriptor without the index (such a write
//    would not keep it).
// 2. Dropped indexes. DropIndex removes the index and records its rows id in
//    `dropped_index_rows` in one catalog write; this job waits until no request holds a
//    descriptor that still has the index, then range-deletes the rows and forgets the id in one
//    batch. A crash in between redoes the delete at the next start.
//
// Several processes on one database: the passes run in the process holding kTsIndexLeaseUnit
// (docs/background-jobs.md, "Leases"); every pass reads the work from the catalog, so when the
// holder dies another process takes the unit once it lapses and continues after the cursor its
// catalog shows (a chunk redone puts the same index rows again).
#pragma once

#include <condition_variable>
#include <mutex>
#include <set>
#include <string>
#include <utility>

#include "common/result.h"
#include "common/thread.h"
#include "ops/row_ops.h"
#include "ops/table_ops.h"
#include "storage/lease_keeper.h"
#include "storage/store.h"

namespace ttlstore::ops {

inline const std::string kTsIndexLeaseUnit = "tablestore/indexes";

class TsIndexBackfill {
 public:
  // With a `keeper`, a pass runs only while it holds kTsIndexLeaseUnit.
  TsIndexBackfill(storage::Store& store, TableCatalog& catalog, RowOps& rows,
                  const storage::LeaseKeeper* keeper = nullptr)
      : store_(store), catalog_(catalog), rows_(rows), keeper_(keeper) {}
  ~TsIndexBackfill() { Stop(); }

  // Runs the job on its own thread: at once, after each Wake(), and every second.
  void Start();
  void Stop();
  // Work was added (CreateIndex, DropIndex).
  void Wake();

  // One step over every table: dropped indexes' rows removed, one chunk of each building index.
  // Returns whether work remains. (Tests call it directly.)
  Result<bool> RunOnce();

 private:
  // One chunk of the backfill of index `name` of table `table_id`; true if more remains.
  Result<bool> Chunk(uint32_t table_id, const std::string& name);
  Status RemoveDropped(uint32_t table_id, uint32_t rows_id);
  void Loop();

  storage::Store& store_;
  TableCatalog& catalog_;
  RowOps& rows_;
  const storage::LeaseKeeper* const keeper_;
  // Backfills that have waited out older descriptors (table id, rows id); job thread only.
  std::set<std::pair<uint32_t, uint32_t>> waited_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;  // GUARDED_BY(mu_)
  bool woken_ = false;     // GUARDED_BY(mu_)
  Thread thread_;
};

}  // namespace ttlstore::ops
