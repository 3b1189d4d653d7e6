// Consistency check of a data dir (`ttlstore check --data-dir D`): verifies every invariant that
// ties the column families together, so a crash test or an operator can tell whether a data dir
// is whole. The server must not be running on it (RocksDB allows one process at a time).
//
// Invariants (each is what the write path and the background jobs keep across a crash;
// docs/background-jobs.md says which job keeps which):
//   - every item belongs to a live table, decodes, and carries the key attributes its RocksDB key
//     names (no orphans left by a DeleteTable racing a write);
//   - each table's stats (ItemCount, TableSizeBytes) equal the sum over its items;
//   - on a TTL-enabled table, every item whose TTL attribute makes it expire has its expiry-index
//     entry at exactly that due time (otherwise it would never be deleted). Items more than five
//     years past their TTL never expire (D4); the sweeper drops their entries, so none is needed.
//     While the table's TTL backfill is pending (descriptor tag 26), only the items at or before
//     its cursor are required to have their entry: the rest are the backfill's work still to do.
//   - every secondary-index entry belongs to a live table and to one of its indexes, or to an
//     index whose removal is pending (dropped index id, tag 18: only counted); it points to an
//     item that exists, whose index key gives exactly this entry key and whose projection is
//     exactly the entry's value (no orphan, no stale entry);
//   - every ACTIVE index has an entry for each item that has its key attributes (a CREATING
//     index is still being backfilled: only its existing entries are checked);
//   - each index's stats (entry count and projected size) equal its entries, CREATING included;
//   - every stream record belongs to a stream its table lists, or, for a dropped table, to a
//     stream whose `02` entry DeleteTable kept; records past the 24-hour retention are only
//     counted (the trimmer removes them); no `02` entry names a live table; within a stream,
//     sequence numbers rise with the shard (a shard's numbers are all below its child's, so no
//     record is in two shards); every shard-state (`04`) entry belongs to a live table or a kept dropped stream;
//   - every Tablestore row belongs to a Tablestore table, its key matches the table's primary-key
//     schema and its versions are in order;
//   - every Tablestore row has exactly the purge-index entries its value calls for
//     (versions/purge_index.h), and no entry names a row that does not need it;
//   - every Tablestore secondary index holds exactly the rows its table's rows imply
//     (check/ts_index_check.h);
//   - every row of a table with an AUTO_INCREMENT column has its partition key's `sequences`
//     record at or above its value, and every record belongs to such a live table
//     (check/sequence_check.h);
//   - every PITR change-log record decodes and belongs to a live table with PITR enabled, and
//     its old image carries the key it names (check/pitr_check.h);
//   - every built search index holds exactly the documents its table's rows imply, apart from
//     rows still in its change queue (check/search_check.h).
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
  uint64_t ts_index_rows = 0;          // rows of Tablestore secondary indexes
  uint64_t dropped_ts_index_rows = 0;  // of dropped ones whose removal is pending
  uint64_t expiry_entries = 0;
  uint64_t stale_expiry_entries = 0;
  uint64_t index_entries = 0;
  uint64_t dropped_index_entries = 0;  // of indexes whose removal is pending
  uint64_t stream_records = 0;
  uint64_t expired_stream_records = 0;  // past retention, left for the trimmer
  uint64_t ttl_backfill_items = 0;      // items a pending TTL backfill has still to index
  uint64_t pitr_records = 0;            // PITR change-log records
  uint64_t sequence_records = 0;        // auto-increment records (partition keys' last values)
  uint64_t search_documents = 0;        // documents of search indexes
  uint64_t search_queue_entries = 0;    // search-queue entries not yet applied
  uint64_t problem_count = 0;
  // The first problems found, one sentence each (at most kMaxListedProblems).
  std::vector<std::string> problems;
  bool ok() const { return problem_count == 0; }
};

inline constexpr size_t kMaxListedProblems = 50;

// `now_ms` decides which TTL values are too old to expire (D4) and which stream records are
// past their retention.
// With `search_dir` (<data-dir>/search), the search indexes are checked too
// (check/search_check.h).
Result<CheckReport> CheckStore(const storage::Store& store, int64_t now_ms,
                               const std::string& search_dir = "");

}  // namespace ttlstore::check
