// SimpleRowMatrix: the row-oriented block a GetRange answers with when its request asks for
// DBT_SIMPLE_ROW_MATRIX (data_block_type_hint = 1); the Tablestore service answers BulkExport in
// it too. Wire only, never persisted.
//
// The layout, as the SDKs' readers take it apart (the Go SDK's matrix.go, parseMatrixRows /
// ensureMatrixMeta / readMatrixData; the Java SDK's SimpleRowMatrixBlockParser, which also
// checks the option order and the footer). Every integer is little-endian.
//
//   offset 0   int32  api version 0x304d5253 ("SRM0")
//          4   int32  data offset   (where the first row starts)
//          8   int32  option offset (where the options start)
//         12   int32  pk count      (key columns in the block)
//         16   int32  attr count    (attribute columns in the block)
//         20   field names, pk count + attr count of them, key columns first:
//                int16 length, then that many bytes of the name
//   option offset:
//                byte 10 (TAG_ENTIRE_PRIMARY_KEYS), byte 0 or 1: whether the key columns
//                  are all of the table's key (Java requires this option first)
//                byte 3 (TAG_ROW_COUNT), int32 the number of rows
//   data offset: each row is byte 2 (TAG_ROW), then one cell per field, in field order:
//                byte type, then the value:
//                  0x00 INTEGER  int64
//                  0x01 DOUBLE   IEEE-754 binary64
//                  0x02 BOOLEAN  one byte, 0 or 1
//                  0x03 STRING   int32 length, UTF-8 bytes
//                  0x07 BINARY   int32 length, bytes
//                  0x06 NULL     nothing: the row has no such column (never a key column)
//   then the footer: byte 1 (TAG_CHECKSUM), byte CRC-8 (PlainBuffer's, tablestore/plainbuffer.h)
//                of every byte before it, the tag included.
//
// What the matrix can say: one value per column and row, no timestamps. A column's cell is the
// newest version of the column among those the read selects (max_versions, time_range, TTL);
// a column the row does not show (absent, outside the column range, cut by a
// ColumnPaginationFilter) is NULL. Every row has the same fields, so the field list is fixed
// per block (see MatrixFieldsOf). Sources and the rules of GetRange around it:
// docs/tablestore.md, "GetRange: data block type, key columns, compression".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "tablestore/plainbuffer.h"

namespace ttlstore::tablestore {

inline constexpr uint32_t kMatrixApiVersion = 0x304d5253;
inline constexpr uint8_t kMatrixTagChecksum = 1;
inline constexpr uint8_t kMatrixTagRow = 2;
inline constexpr uint8_t kMatrixTagRowCount = 3;
inline constexpr uint8_t kMatrixTagEntirePrimaryKeys = 10;
inline constexpr uint8_t kMatrixNull = 0x06;

// The columns a block carries, in order.
struct MatrixFields {
  std::vector<std::string> primary_key;  // key columns, in the table's key order
  std::vector<std::string> attributes;   // attribute columns
  bool entire_primary_key = true;        // primary_key is the table's whole key
};

// The fields of a GetRange page: `key_columns` (the key columns returned, in key order; the
// whole key when they are all of `table_key`, the table's key columns), then each name of
// `columns_to_get` that is not a key column of the table, in the order asked, each once.
MatrixFields MatrixFieldsOf(const std::vector<std::string>& table_key,
                            const std::vector<std::string>& key_columns,
                            const std::vector<std::string>& columns_to_get);

// The block of `rows` (each with its key cells and attribute versions newest first, as
// ToPbRow makes them; at most one cell is taken per field). A key field the row lacks is
// written NULL (not reached by GetRange, whose rows have the whole key). Zero rows make a
// valid block: the SDKs parse every non-empty `rows`.
// Bounds: the caller's page (5000 rows, 4 MB of values) and names of at most 255 bytes keep a
// block far below 2 GB; the encoder still refuses (kInternal) a name longer than an int16 or a
// block whose size does not fit the int32 offsets, never writing a wrong offset.
Result<std::string> EncodeSimpleRowMatrix(const MatrixFields& fields,
                                          const std::vector<PbRow>& rows);

}  // namespace ttlstore::tablestore
