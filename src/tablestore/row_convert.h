// Conversions between PlainBuffer rows (the wire) and the engine's row changes and views, with
// the service's checks and messages for what a request may carry (tablestore-protocol.md 3.3).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "ops/row_ops.h"
#include "tablestore/plainbuffer.h"
#include "versions/visibility.h"

namespace ttlstore::tablestore {

// The primary key of a decoded row (GetRow, BatchGetRow, StartLocalTransaction keys).
Result<std::vector<versions::PkCell>> PrimaryKeyOf(const PbRow& row);
// A range bound (INF_MIN / INF_MAX allowed).
Result<std::vector<versions::PkCell>> BoundOf(const PbRow& row);

// PutRow's row, UpdateRow's row_change, DeleteRow's key: the engine's change. A put's or
// update's key may hold one AUTO_INCREMENT placeholder (model::CellType::kAutoIncrement; the
// engine fills it, ops/row_ops.h); in a delete's key or a read's it is refused with the
// service's messages (docs/tablestore.md, "Auto-increment primary keys").
Result<ops::RowChange> PutChangeOf(const PbRow& row);
Result<ops::RowChange> UpdateChangeOf(const PbRow& row);
Result<ops::RowChange> DeleteChangeOf(const PbRow& row);

// A read's version condition (T5): max_versions and/or a time range, and the columns to get.
// `range_op` selects GetRange's stricter time-range message.
struct TimeRangeArg {
  std::optional<int64_t> start, end, specific;
};
// `batch` selects BatchGetRow's longer message for a read without either condition.
Result<versions::ReadSpec> ReadSpecOf(std::optional<int32_t> max_versions,
                                      const std::optional<TimeRangeArg>& time_range,
                                      const std::vector<std::string>& columns_to_get,
                                      bool range_op, bool batch = false);

// What the service refuses for a whole batch rather than for one of its rows: a column name it
// never accepts (1-255 bytes, no leading '#'), INF_MIN / INF_MAX in a row's key
// (400 OTSParameterInvalid, its texts).
Status CheckRowShape(const PbRow& row);
Status CheckColumnNames(const std::vector<std::string>& names);

// The data a write request carries, as the service sizes it for its 4 MB limit on PutRow,
// UpdateRow and BatchWriteRow: the names and values of the primary-key and attribute cells
// (an integer or double counts 8 bytes, a boolean 1, a string or binary its length) and 8 bytes
// for each timestamp the request gives.
inline constexpr size_t kMaxRequestDataBytes = 4 * 1024 * 1024;
size_t RowDataSize(const PbRow& row);
// 400 "The total data size of <operation> request exceeds the limit, limit size: 4194304,
// data size: N." past kMaxRequestDataBytes.
Status CheckRequestDataSize(std::string_view operation, size_t data_size);

// A row as the SDKs read it: primary key, then every column's versions newest first.
PbRow ToPbRow(const ops::RowView& view);
PbRow ToPbKey(const std::vector<versions::PkCell>& pk);

}  // namespace ttlstore::tablestore
