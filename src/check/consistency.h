// Consistency check of a data dir (`ttlstore check --data-dir D`): verifies every invariant that
// ties the column families together, so a crash test or an operator can tell whether a data dir
// is whole. The server must not be running on it (RocksDB allows one process at a time).
//
// Invariants:
//   - every item belongs to a live table, decodes, and carries the key attributes its RocksDB key
//     names (no orphans left by a DeleteTable racing a write);
//   - each table's stats (ItemCount, TableSizeBytes) equal the sum over its items;
//   - on a TTL-enabled table, every item whose TTL attribute makes it expire has its expiry-index
//     entry at exactly that due time (otherwise it would never be deleted). Items more than five
//     years past their TTL never expire (D4); the sweeper drops their entries, so none is needed;
//   - every Tablestore row has exactly the purge-index entries its value calls for
//     (versions/purge_index.h), and no entry names a row that does not need it.
// Expiry entries that match no item (left after TTL was turned off, an item saved by an update
// while TTL was off, a dropped table) are harmless, the sweeper drops them, and are only counted.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/result.h"
#include "storage/store.h"

namespace ttlstore::check {

struct CheckReport {
  uint64_t tables = 0;
  uint64_t items = 0;
  uint64_t rows = 0;  // Tablestore rows
  uint64_t expiry_entries = 0;
  uint64_t stale_expiry_entries = 0;
  uint64_t problem_count = 0;
  // The first problems found, one sentence each (at most kMaxListedProblems).
  std::vector<std::string> problems;
  bool ok() const { return problem_count == 0; }
};

inline constexpr size_t kMaxListedProblems = 50;

// `now_ms` decides which TTL values are too old to expire (D4).
Result<CheckReport> CheckStore(const storage::Store& store, int64_t now_ms);

}  // namespace ttlstore::check
