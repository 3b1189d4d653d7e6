// The Tablestore side of a table (rules T1-T14): its primary-key schema and version options.
// A table created through the Tablestore front end carries one (TableDescriptor::tablestore);
// its rows live in the `rows` family as versioned cells (versions/), not as DynamoDB items.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/search_index.h"

namespace ttlstore::model {

// Numbered as the protocol's PrimaryKeyType (persisted).
enum class PkType : uint8_t { kInteger = 1, kString = 2, kBinary = 3 };

struct PrimaryKeyColumn {
  std::string name;
  PkType type = PkType::kString;
  // AUTO_INCREMENT (docs/tablestore.md, "Auto-increment primary keys"): the server generates
  // the column's value in a write that sends the placeholder. Never the first column, at most one.
  bool auto_increment = false;
};

// Numbered as the protocol's DefinedColumnType (persisted). Declared only; not enforced.
struct DefinedColumn {
  std::string name;
  uint8_t type = 4;
};

// The table options of the Tablestore model. Defaults are the service's.
struct VersionOptions {
  // T6/T7: seconds a version stays visible after its timestamp; -1 = forever.
  int32_t time_to_live = -1;
  // T1: versions kept per column.
  int32_t max_versions = 1;
  // T9: how far (seconds) a written version may lie from now.
  int64_t max_time_deviation = 86400;
  // T10: whether UpdateRow is allowed.
  bool allow_update = true;
  // TableOptions.update_full_row: an UpdateRow rewrites the whole row, every column the row
  // keeps stamped again with the write's time (docs/tablestore.md, "Update full row"). Set at
  // CreateTable only.
  bool update_full_row = false;

  friend bool operator==(const VersionOptions&, const VersionOptions&) = default;
};

// A secondary index of a Tablestore table (docs/tablestore.md, "Secondary indexes"). Its rows
// live in the `rows` family under their own id (rows_id), kept in step with the table's rows by
// every writer of them, in the same WriteBatch (ops/row_batch.h, versions/index_rows.h).
struct TsIndex {
  std::string name;
  bool local = false;                        // IT_LOCAL_INDEX (else IT_GLOBAL_INDEX)
  std::vector<std::string> primary_key;      // the index columns, 1-4
  std::vector<std::string> defined_columns;  // attribute columns copied from the table
  uint32_t rows_id = 0;                      // the key prefix of the index's rows
  // Whether the rows the table had when the index was created are indexed (include_base_data,
  // and every index made by CreateTable). While `building`, the backfill has indexed the rows
  // up to and including `cursor` (a `rows` key of the table; empty: none yet).
  bool include_base_data = false;
  bool building = false;
  std::string cursor;
};

struct TablestoreSchema {
  std::vector<PrimaryKeyColumn> primary_key;  // 1-4 columns, in key order
  std::vector<DefinedColumn> defined_columns;
  VersionOptions options;
  // Whether StartLocalTransaction is allowed (CreateTable's enable_local_txn; absent means
  // true here, docs/tablestore.md "Local transactions").
  bool local_transactions = true;
  // Set by the table's first StartLocalTransaction, never cleared: from then on every write from
  // outside a transaction reads the lock record of its partition key (ops/local_transactions.h),
  // a cost a table that never had a transaction does not pay.
  bool had_transactions = false;
  // Secondary indexes, in creation order (at most 5).
  std::vector<TsIndex> indexes;
  // Indexes dropped whose rows are still to be removed (rows_id); a restart finishes it.
  std::vector<uint32_t> dropped_index_rows;
  // Search indexes (model/search_index.h), in creation order; their documents are kept by
  // search::SearchEngine, not in RocksDB.
  std::vector<SearchIndexMeta> search_indexes;
  // Set on the view of an index (never stored): the table it indexes. Writes are refused.
  std::string index_of;

  const TsIndex* FindIndex(std::string_view name) const {
    for (const auto& i : indexes) if (i.name == name) return &i;
    return nullptr;
  }
  const SearchIndexMeta* FindSearchIndex(std::string_view name) const {
    for (const auto& i : search_indexes) if (i.name == name) return &i;
    return nullptr;
  }
  // The position of the AUTO_INCREMENT primary-key column, or -1 if the table has none.
  int AutoIncrementColumn() const {
    for (size_t i = 0; i < primary_key.size(); ++i) {
      if (primary_key[i].auto_increment) return static_cast<int>(i);
    }
    return -1;
  }
};

}  // namespace ttlstore::model
