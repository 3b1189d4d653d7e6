// The protocol's aggregations and group-bys (search.proto: SearchQuery.aggs and .group_bys)
// turned into the engine's plain structs (search/agg_types.h), and the engine's results back
// into the protocol's AggregationsResult and GroupBysResult, as the Java, Go, Python and Node
// SDKs decode them. Pure: no catalog, no engine.
//
// An Aggregation or GroupBy is a type and the bytes of that type's message; a group-by's message
// holds more Aggregations and GroupBys, so a request nests. Decoding recurses along that
// nesting and refuses, before parsing anything below, more than the service's five aggregations
// or five group-bys at one level, group-bys nested deeper than three, more than five composite
// sources or ten filters (search/agg_validate.h has the limits and their texts). Every message
// is checked by CheckWire (tablestore/wire_check.h) before the generated parser sees it.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"
#include "search/agg_types.h"

namespace ttlstore::tablestore {

// A SearchQuery's `aggs` (an Aggregations message) and `group_bys` (a GroupBys message); either
// may be null (absent).
Result<search::AggRequest> DecodeAggregations(const std::string* aggs,
                                              const std::string* group_bys);

// The PlainBuffer row a top_rows aggregation returns for a rows-family key; nullopt when the
// row is gone (it is then left out).
using TopRowBytes = std::function<Result<std::optional<std::string>>(const std::string& key)>;

// The serialized AggregationsResult and GroupBysResult of `out`.
Result<std::string> EncodeAggResults(const std::vector<search::AggResult>& aggs,
                                     const TopRowBytes& rows);
Result<std::string> EncodeGroupByResults(const std::vector<search::GroupByResult>& group_bys,
                                         const TopRowBytes& rows);

// A typed value as the SDKs read a percentile's value or a histogram's key (the inverse of
// DecodeSearchValue): integer, double, boolean or string.
std::string EncodeSearchValue(const model::CellValue& v);

}  // namespace ttlstore::tablestore
