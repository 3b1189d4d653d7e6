// RowPurger: the decision the `rows` family's compaction filter carries out (T2, T3, T6, T8:
// "invisible at once, purged later"). For each row a compaction rewrites, it looks up the
// table's *current* options and drops exactly the versions a reader could not see now; a row
// left with no version is removed. Rows of a table that no longer exists are removed too.
//
// Thread-safety: Purge runs on RocksDB's compaction threads, concurrently.
#pragma once

#include <atomic>
#include <cstdint>

#include "common/clock.h"
#include "ops/table_ops.h"
#include "storage/row_purge_filter.h"

namespace ttlstore::ops {

struct PurgeCounters {
  std::atomic<uint64_t> versions_purged{0};  // versions dropped by compactions
  std::atomic<uint64_t> rows_removed{0};     // rows dropped because nothing was left visible
};

class RowPurger : public storage::RowPurger {
 public:
  RowPurger(const TableCatalog& catalog, const Clock& clock, PurgeCounters& counters)
      : catalog_(catalog), clock_(clock), counters_(counters) {}

  Decision Purge(std::string_view key, std::string_view value,
                 std::string* new_value) const override;

 private:
  const TableCatalog& catalog_;
  const Clock& clock_;
  PurgeCounters& counters_;
};

}  // namespace ttlstore::ops
