// Counting a table's stats again under the current item-size rule (model/item_size.h,
// kItemSizeRule). A table's item count and size, and each index's entry count and size, are
// kept as sums of deltas that every write adds; when the rule that sizes an item changes (issue
// 35: numbers as the service sizes them), the sums of tables written under the old rule no
// longer match what a write subtracts, so they are counted again once, at start-up, before the
// server serves (docs/background-jobs.md, "Start-up order").
//
// Per table: a scan of its items and index entries, then one catalog commit that adds the
// difference to its stats and records the rule in its descriptor (TableDescriptor::size_rule),
// so a kill -9 leaves each table either counted and marked or neither; the next start counts
// the tables still unmarked. Tablestore tables keep no such stats and are only marked.
#pragma once

#include <cstddef>

#include "common/result.h"
#include "ops/table_ops.h"

namespace ttlstore::ops {

// Counts again every table whose stats were counted by an older rule; returns how many.
Result<size_t> RecountStaleStats(storage::Store& store, TableCatalog& catalog);

}  // namespace ttlstore::ops
