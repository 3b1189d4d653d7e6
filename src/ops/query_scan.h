// Query and Scan: one page of items read in key order from a key range.
//
// A Query reads one partition, narrowed by the sort-key condition to a contiguous key range
// (storage/key_codec.h keeps a partition's items sorted by sort key), so its cost is the items
// in that range, never the table. A Scan reads the table, or one hash-range segment of it for a
// parallel scan. Both stop at Limit items evaluated or 1 MB read, whichever comes first, and
// then report the last evaluated key, as DynamoDB does. Reads take no locks.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "expr/condition.h"
#include "expr/key_condition.h"
#include "model/table.h"
#include "storage/store.h"

namespace ttlstore::ops {

// DynamoDB's page size limit: a Query or Scan reads at most 1 MB before it stops.
inline constexpr size_t kMaxPageBytes = 1024 * 1024;

struct PageOptions {
  const expr::Condition* filter = nullptr;  // FilterExpression; applied after Limit counting
  std::optional<int64_t> limit;             // items evaluated (before the filter)
  // Validated key attributes: the table key, plus the index key when reading an index.
  const model::Item* exclusive_start_key = nullptr;
  // Read this secondary index of the table instead of the table itself (IndexName). The
  // condition of a Query is then on the index key schema, and LastEvaluatedKey holds the table
  // key and the index key.
  const model::SecondaryIndex* index = nullptr;
  // With `index`: return each entry's item from the table instead of the projected entry
  // (Select ALL_ATTRIBUTES on a local index whose projection is not ALL).
  bool fetch_base_items = false;
  // The request's clock reading; items hidden by the table's hide-expired opt-in
  // (model::IsHiddenExpired) are skipped as if absent.
  int64_t now_ms = 0;
};

struct Page {
  std::vector<model::Item> items;  // evaluated items that passed the filter
  size_t scanned_count = 0;        // items evaluated
  size_t bytes_read = 0;           // DynamoDB size of every item evaluated (for capacity)
  size_t base_bytes_read = 0;      // the part of bytes_read read from the table for an index read
  std::optional<model::Item> last_evaluated_key;
};

// REQUIRES: `condition` was parsed against table.key (or options.index->key).
Result<Page> Query(const storage::Store& store, const model::TableDescriptor& table,
                   const expr::KeyCondition& condition, bool forward, const PageOptions& options);

// segment/total_segments: 0/1 for a whole-table scan.
Result<Page> Scan(const storage::Store& store, const model::TableDescriptor& table,
                  uint32_t segment, uint32_t total_segments, const PageOptions& options);

// The parallel-scan segment an item key falls in (to validate ExclusiveStartKey).
uint32_t SegmentOfKey(const std::string& encoded_key, uint32_t total_segments);
// The same for a partition hash (of an item key or an index entry key).
uint32_t SegmentOfHash(uint32_t hash, uint32_t total_segments);

}  // namespace ttlstore::ops
