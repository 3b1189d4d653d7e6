// StageRowChange: how a Tablestore row enters a WriteBatch. The row and its purge-index entries
// (versions/purge_index.h) always go together, in one batch, so that the index names exactly
// the rows that can hold hidden versions whatever moment a crash picks. Every writer of the
// `rows` family goes through here: RowOps (requests), RowPurger (the purge and the start-up
// index build) and the restore of a backup.
#pragma once

#include <string>

#include "model/versioned_table.h"
#include "storage/store.h"
#include "versions/row.h"

namespace ttlstore::ops {

// Stages the change of the row stored under `key` (its `rows` key) from `before` to `after`;
// nullptr stands for "no row". Index entries of `before` that `after` does not need are
// deleted and those `after` needs are put: only the difference, so a write that keeps the
// row's oldest-version bucket and version count costs no index write. With `put_all_marks`,
// every entry of `after` is put even if `before` had it (rebuilding an index that may lack
// them). The rows of the table's secondary indexes (`schema.indexes`) that `before` implies
// and `after` does not are deleted, those `after` implies are put (versions/index_rows.h), in
// the same batch: index rows have no purge-index entries, the table row's purge keeps them.
// When the table has search indexes (`schema.search_indexes`), an entry naming the row joins
// the search queue (storage/search_queue.h), in the same batch.
void StageRowChange(storage::WriteBatch& batch, const model::TablestoreSchema& schema,
                    const std::string& key,
                    const versions::StoredRow* before, const versions::StoredRow* after,
                    bool put_all_marks = false);

}  // namespace ttlstore::ops
