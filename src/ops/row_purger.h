// RowPurger: "invisible at once, purged later" (T2, T3, T6, T8). Removes the versions a
// Tablestore table's *current* options hide, and rows left with none, reading only the rows
// the purge index names (versions/purge_index.h): those whose oldest version is past the TTL,
// and those keeping more versions of a column than max versions now allows. Writes already
// trim the row they write (ops/row_ops.h), so these are exactly the rows that can hold hidden
// data, and a pass costs in proportion to them, not to the table or the data dir.
//
// Crash safety. Each group of rows is purged in one WriteBatch that rewrites (or deletes) the
// rows together with their index entries, under the rows' locks, after re-reading them and the
// table's options: a kill -9 at any point leaves every row either as it was or purged, with
// its entries in step, and never removes a version a reader could see at that moment. Nothing
// else is persisted: the index itself is the work still to do, so the next pass (the first one
// runs at start-up) simply finds what is left.
//
// Data dirs written before the index existed: BuildIndexIfNeeded walks every row once, puts
// its entries (purging it at the same time), then records that the index is whole. A crash
// during the walk makes the next start walk again; putting an entry twice is harmless, and
// writes meanwhile keep the entries of the rows they write, so rows written during the walk
// are covered either way.
//
// Thread-safety: one pass at a time (the scheduler's thread); request threads write alongside.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/result.h"
#include "ops/row_ops.h"
#include "ops/table_ops.h"
#include "storage/store.h"

namespace ttlstore::ops {

struct PurgeCounters {
  std::atomic<uint64_t> versions_purged{0};  // versions the purge dropped
  std::atomic<uint64_t> rows_removed{0};     // rows dropped because nothing was left visible
  std::atomic<uint64_t> rows_read{0};        // rows the purge read (what a pass costs)
  std::atomic<uint64_t> passes{0};           // passes finished
};

// What one pass (or one table's share of it) did.
struct PurgeStats {
  uint64_t rows_read = 0;
  uint64_t rows_rewritten = 0;
  uint64_t rows_removed = 0;
  uint64_t versions_purged = 0;
};

class RowPurger {
 public:
  RowPurger(storage::Store& store, const TableCatalog& catalog, RowOps& rows, const Clock& clock,
            PurgeCounters& counters)
      : store_(store), catalog_(catalog), rows_(rows), clock_(clock), counters_(counters) {}

  // Purges every Tablestore table (PurgeTable on each).
  Result<PurgeStats> PurgeAll();
  // Purges the rows of one table that hold versions its options hide now. A table that no
  // longer exists (or is not a Tablestore table) is skipped: DeleteTable dropped its rows and
  // entries with range deletes.
  Result<PurgeStats> PurgeTable(uint32_t table_id);
  // Gives rows stored before the index existed their entries (see the top of this file).
  // Returns at once on a data dir whose index is whole.
  Status BuildIndexIfNeeded();
  // Makes a pass or index build under way stop after its current batch (at shutdown). The
  // work left stays in the index for the next start.
  void Cancel() { cancelled_.store(true); }

 private:
  // Purges the rows under `row_keys` (all of table `table_id`), reached through the index
  // entries `marks` (same length; empty strings when not reached through the index), in one
  // batch under their locks. With `put_all_marks`, every entry each row needs is (re)put.
  Status PurgeRows(uint32_t table_id, const std::vector<std::string>& row_keys,
                   const std::vector<std::string>& marks, bool put_all_marks, PurgeStats* stats);
  // Purges the rows named by the index entries in [begin, end), a chunk at a time.
  Status PurgeMarkRange(uint32_t table_id, const std::string& begin, const std::string& end,
                        PurgeStats* stats);

  storage::Store& store_;
  const TableCatalog& catalog_;
  RowOps& rows_;
  const Clock& clock_;
  PurgeCounters& counters_;
  std::atomic<bool> cancelled_{false};
};

// The versions metrics for /metrics (Prometheus text): what the purge and writes dropped.
std::string RenderVersionMetrics(const PurgeCounters& counters, const RowOps& rows);

}  // namespace ttlstore::ops
