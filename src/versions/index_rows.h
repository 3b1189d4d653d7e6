// The rows a Tablestore secondary index holds, as pure functions of the table's rows
// (docs/tablestore.md, "Secondary indexes"). An index row's primary key is the index columns,
// then the table's primary-key columns the index does not name, in the table's order; its
// attribute columns are the index's defined columns, copied with their versions' timestamps.
// A row that lacks an index column, or holds it with another type than the predefined column
// declares, has no index row (as on the service: "rows missing an indexed column are not in the
// index").
//
// Lifetime. An index row carries one reserved column, named "" (no user column can be: names
// start with a letter or an underscore), whose one version is stamped with the moment the row
// stops being implied by its table row under the table's TTL: the oldest timestamp among the
// indexed attribute columns, or the row's newest timestamp if that is older (when every column
// of the table row has aged out the row is gone, T6). Readers of the index see the row while that
// version is visible (versions/visibility.h), so a table row past the TTL vanishes from the
// table and from each of its indexes at the same moment; the purge of the table row removes or
// rewrites the index rows in its own batch (ops/row_batch.h).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "model/versioned_table.h"
#include "versions/row.h"

namespace ttlstore::versions {

// The reserved lifetime column of index rows.
inline constexpr std::string_view kIndexLifeColumn = "";

// The schema of the index `ix` of a table with schema `base`, as readers of the index see it:
// primary key as above, defined columns the index's (types from the table), options the table's,
// index_of left empty (the caller names the table).
model::TablestoreSchema IndexSchema(const model::TablestoreSchema& base, const model::TsIndex& ix);

// The primary-key type an index column of a predefined column of type `dct` gets, or nullopt if
// that type cannot be in a primary key (DOUBLE, BOOLEAN).
std::optional<model::PkType> IndexKeyType(uint8_t dct);

struct IndexRow {
  std::string key;  // its `rows` key, under ix.rows_id
  StoredRow row;
};

// The row the table row `row`, stored under `base_key`, makes in the index, or nullopt.
std::optional<IndexRow> IndexRowOf(const model::TablestoreSchema& base, const model::TsIndex& ix,
                                   std::string_view base_key, const StoredRow& row);

}  // namespace ttlstore::versions
