// AUTO_INCREMENT primary-key columns (docs/tablestore.md, "Auto-increment primary keys"): the
// rule that picks a partition key's next value and the `sequences` family's record that makes
// it durable (docs/formats.md, "Auto-increment sequences").
//
// A write with the placeholder (model::CellType::kAutoIncrement) in a table's AUTO_INCREMENT
// column gets NextAutoIncrement(last, now) where `last` is the value its partition key (the
// first primary-key column's value) last issued, read from the record under SequenceKey; the
// new value is written back to that record in the same WriteBatch as the row
// (ops::RowOps::Write), so the record is never behind a row and never goes back: a value is
// issued at most once per partition key in the table's whole life, rows deleted or purged
// included. The rule is a read-modify-write of one record, so it holds as it is when several
// processes share one database.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "model/versioned_table.h"
#include "versions/row_key.h"

namespace ttlstore::versions {

// The `sequences` key of the partition key `first` (a table's first primary-key column) of
// table `table_id`: table id (4 bytes BE) . the column as the `rows` key encodes it, so it is
// the prefix every row key of that partition key starts with. Errors: OTSInvalidPK as
// EncodeRowKey's for a first column of the wrong name or type.
Result<std::string> SequenceKey(uint32_t table_id,
                                const std::vector<model::PrimaryKeyColumn>& schema,
                                const PkCell& first);

// The record's value: the last value issued, int64 8 bytes BE (two's complement).
std::string EncodeSequenceValue(int64_t last);
std::optional<int64_t> DecodeSequenceValue(std::string_view value);

// The value a placeholder write takes: max(last + 1, now_us), and at least 1. `last` is the
// partition key's last issued value (nullopt: none yet), `now_us` the write's time in
// microseconds since the epoch. nullopt when `last` is INT64_MAX (no value is left).
std::optional<int64_t> NextAutoIncrement(std::optional<int64_t> last, int64_t now_us);

// The value of the AUTO_INCREMENT column in a row key's primary key (`pk` as DecodeRowKey
// gives it for `schema`), or nullopt if the schema has none.
std::optional<int64_t> AutoIncrementValueOf(const std::vector<model::PrimaryKeyColumn>& schema,
                                            const std::vector<PkCell>& pk);

}  // namespace ttlstore::versions
