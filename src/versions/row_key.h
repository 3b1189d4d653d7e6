// RowKey: the `rows` family's key of a Tablestore-model row: table id (4 bytes BE) then each
// primary-key column in an order-preserving form, so that RocksDB's byte order is the service's
// row order (INTEGER numerically, STRING and BINARY bytewise) and GetRange is one iterator walk.
//   INTEGER  sign bit flipped, 8 bytes BE
//   STRING / BINARY  bytes with 0x00 escaped as 00 FF, terminated by 00 01
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/result.h"
#include "model/cell.h"
#include "model/versioned_table.h"

namespace ttlstore::versions {

// Checks `pk` against the schema (count, names in order, types) and encodes it. Errors are the
// service's OTSInvalidPK messages (ErrorCode::kValidation with the "OTSInvalidPK:" prefix the
// front end maps): wrong count or type -> "Primary key schema mismatch.", wrong name ->
// "Validate PK name fail. Input: X, Meta: Y.".
struct PkCell {
  std::string name;
  model::CellValue value;
};
Result<std::string> EncodeRowKey(uint32_t table_id, const std::vector<model::PrimaryKeyColumn>& schema,
                                 const std::vector<PkCell>& pk);

// A range bound (GetRange's inclusive start / exclusive end): like EncodeRowKey, but a column may
// be INF_MIN or INF_MAX, which makes the columns after it irrelevant. INF_MIN encodes as the
// prefix so far (below every row with it), INF_MAX as that prefix's successor (above them all).
Result<std::string> EncodeRangeBound(uint32_t table_id,
                                     const std::vector<model::PrimaryKeyColumn>& schema,
                                     const std::vector<PkCell>& bound);

// The primary key back from a stored key (the schema gives names and types). False on corruption.
bool DecodeRowKey(std::string_view key, const std::vector<model::PrimaryKeyColumn>& schema,
                  std::vector<PkCell>* pk);

// [begin, end) covering every row of the table.
std::string TableRowsBegin(uint32_t table_id);
std::string TableRowsEnd(uint32_t table_id);

// The service's names of the types, for messages.
std::string_view TypeName(model::CellType t);
std::string_view TypeName(model::PkType t);

// Errors of the OTSInvalidPK kind carry this prefix in their message (ErrorCode::kValidation).
inline constexpr std::string_view kInvalidPkPrefix = "OTSInvalidPK:";

}  // namespace ttlstore::versions
