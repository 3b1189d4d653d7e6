// Filter: a Tablestore filter (GetRow, GetRange, BatchGetRow) or column condition (PutRow,
// UpdateRow, DeleteRow, BatchWriteRow) as a value, and its evaluation as a pure function of the
// row a reader or writer sees. The front end decodes and bounds the wire form
// (tablestore/filter_decode.h); this file only decides.
//
// What a filter sees is the caller's business: a read passes the columns and versions the read
// returns (its columns_to_get, start/end column, time range and max versions, and only versions
// the table's max versions and TTL leave visible), a write the visible versions of the stored
// row. The primary-key columns are seen too (one value each). Rules and their sources are in
// docs/tablestore.md ("Filters and column conditions").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/cell.h"
#include "versions/row.h"
#include "versions/row_key.h"

namespace ttlstore::versions {

// Numbered as table_store_filter.proto's ComparatorType.
enum class Comparator : uint8_t {
  kEqual = 1,
  kNotEqual = 2,
  kGreaterThan = 3,
  kGreaterEqual = 4,
  kLessThan = 5,
  kLessEqual = 6,
};

// Numbered as table_store_filter.proto's LogicalOperator.
enum class LogicOp : uint8_t { kNot = 1, kAnd = 2, kOr = 3 };

struct Filter {
  enum class Kind : uint8_t { kSingle, kComposite, kPagination };
  Kind kind = Kind::kSingle;

  // kSingle: `column <comparator> value`.
  Comparator comparator = Comparator::kEqual;
  std::string column;
  model::CellValue value;
  bool pass_if_missing = true;      // the wire's filter_if_missing, negated
  bool latest_version_only = true;  // false: any seen version may satisfy it

  // kComposite: NOT of exactly one child, AND / OR of two or more.
  LogicOp op = LogicOp::kAnd;
  std::vector<Filter> children;

  // kPagination (ColumnPaginationFilter): skip `offset` attribute columns, keep `limit`.
  int32_t offset = 0;
  int32_t limit = 0;
};

// Compares two values of one type: <0, 0, >0. Strings and binaries compare bytewise (unsigned),
// booleans false < true, numbers numerically. REQUIRES: a.type == b.type.
int CompareSameType(const model::CellValue& a, const model::CellValue& b);

// Whether one value satisfies `value_seen <comparator> filter.value`. Values of different types
// never do, whatever the comparator (docs/tablestore.md).
bool ValueMatches(const Filter& single, const model::CellValue& value_seen);

// Whether the row passes the filter. `columns` are the attribute columns seen, in name order,
// each with its seen versions newest first; `primary_key` the row's key. A pagination filter
// passes every row (it shapes columns, see Paginate).
bool RowPasses(const Filter& filter, const std::vector<PkCell>& primary_key,
               const std::vector<Column>& columns);

// A pagination filter applied to a row's attribute columns (name order): drops the first
// `offset`, keeps at most `limit` of the rest. Other filters leave `columns` unchanged.
void Paginate(const Filter& filter, std::vector<Column>& columns);

}  // namespace ttlstore::versions
