// How a GetRange page goes back to the caller: the request's data_block_type_hint (PlainBuffer
// or SimpleRowMatrix, tablestore/simple_row_matrix.h), return_entire_primary_keys (the whole
// key, or only the key columns columns_to_get names) and compress_type_hint (CPT_NONE only).
// The rules and their sources: docs/tablestore.md, "GetRange: data block type, key columns,
// compression".
#pragma once

#include <string>
#include <vector>

#include "common/result.h"
#include "tablestore/plainbuffer.h"
#include "tablestore/tablestore.pb.h"

namespace ttlstore::tablestore {

struct RangeOutput {
  bool matrix = false;                   // DBT_SIMPLE_ROW_MATRIX asked for
  std::vector<std::string> table_key;    // the table's key columns, in key order
  std::vector<std::string> key_columns;  // those each returned row carries, in key order
  std::vector<std::string> columns_to_get;
};

// The output `req` asks for from a table whose key columns are `table_key`. Errors, 400
// OTSParameterInvalid: a data_block_type_hint or compress_type_hint value the protocol does
// not have (protobuf keeps such an enum value among the unknown fields: it is looked for
// there); DBT_SIMPLE_ROW_MATRIX without columns_to_get (the service's BulkExport text,
// "DBT_SIMPLE_ROW_MATRIX need at least one column to get.").
Result<RangeOutput> RangeOutputOf(const otspb::GetRangeRequest& req,
                                  std::vector<std::string> table_key);

// The response's `rows` for `rows` (each with its whole key, as the read returns them): a
// PlainBuffer of the rows (nothing for none, as before) or a SimpleRowMatrix block (a valid
// block for none too), the key cut to output.key_columns in both.
Result<std::string> EncodeRangeRows(const RangeOutput& output, std::vector<PbRow> rows);

}  // namespace ttlstore::tablestore
