// The wire form of Tablestore filters and column conditions (table_store_filter.proto:
// Filter, SingleColumnValueFilter, CompositeColumnValueFilter, ColumnPaginationFilter), decoded
// into versions::Filter with the service's bounds and messages.
//
// A filter is untrusted bytes nested through `bytes` fields: every composite level is a Filter
// whose `filter` bytes hold a CompositeColumnValueFilter whose sub_filters are Filters again.
// The decoder reads the wire format itself, without allocating per entry, and counts nodes
// before it descends: a filter of more than kMaxFilterNodes nodes is refused as soon as the
// count is passed (and a composite's sub-filters are counted before any is decoded), so neither
// the nesting nor the breadth of the input reaches the stack or the heap beyond 32 nodes.
#pragma once

#include <cstddef>
#include <memory>
#include <string_view>

#include "common/result.h"
#include "versions/filter.h"

namespace ttlstore::tablestore {

// The service's limit on the filters in one filter or column condition, composite filters
// included: 32 (its SDK tests assert "The count of filter exceeds the max: 32." at 33, for
// trees deep, wide and binary; the older filter pages said 10).
inline constexpr size_t kMaxFilterNodes = 32;

// What the filter bytes are for: a read's filter may be a ColumnPaginationFilter; a write's
// column condition may not.
enum class FilterUse { kRead, kCondition };

// The filter of `bytes` (a serialized Filter). Errors (400 OTSParameterInvalid):
//   "The count of filter exceeds the max: 32."                            [SDK]
//   "Invalid NOT operator: the number of sub-filters must be 1."            [SDK]
//   "Invalid AND/OR operator: the number of sub-filters must be more than 1." [SDK]
//   "The length of attribute column: 'c' exceeds the MaxLength:2097152 with CurrentLength:N." [SDK]
//   "Invalid column name: 'c'."  (as for rows)
//   "Parse PBMessage from RawString failed." for bytes that do not parse or lack a required field
// and ttlstore's own texts for what the service's documents do not settle (an unknown filter
// type, a pagination filter inside a composite or as a column condition, a negative offset or
// limit, a regular-expression rule). docs/tablestore.md lists each with its source.
Result<std::shared_ptr<const versions::Filter>> DecodeFilter(std::string_view bytes, FilterUse use);

}  // namespace ttlstore::tablestore
