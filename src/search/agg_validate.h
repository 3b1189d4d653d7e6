// Checks a Search's aggregations and group-bys (search/agg_types.h) against the index before
// anything runs: the service's limits (help.aliyun.com, "Search index limits": five
// aggregations and five group-bys at one level, group-bys nested three deep, ten filters, a
// hundred ranges, 2000 groups), its field types per aggregation, and its sort_and_agg rule
// (the service's pages: "the fields used for aggregation must enable sort and aggregation").
// Every refusal is ErrorCode::kValidation (400 OTSParameterInvalid) with the service's text
// where a source gives it (docs/tablestore.md, "Aggregations and group-bys").
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "common/result.h"
#include "model/search_index.h"
#include "search/agg_types.h"

namespace ttlstore::search {

inline constexpr size_t kMaxAggsPerLevel = 5;
inline constexpr size_t kMaxGroupBysPerLevel = 5;
inline constexpr int kMaxGroupByDepth = 3;         // a group-by counts itself
inline constexpr size_t kMaxGroupByFilters = 10;
inline constexpr size_t kMaxGroupByRanges = 100;
inline constexpr int32_t kMaxGroupSize = 2000;     // GroupByField and GroupByComposite size
inline constexpr int64_t kMaxHistogramGroups = 2000;  // (max - min) / interval
// Chosen bounds (the service documents none).
inline constexpr size_t kMaxPercentiles = 100;
inline constexpr int32_t kMaxTopRowsLimit = 100;
inline constexpr size_t kMaxGroupSorters = 8;
inline constexpr size_t kMaxCompositeSources = 5;
// Groups in one response, every level counted (Chosen: Elasticsearch's search.max_buckets).
inline constexpr int64_t kMaxGroupsPerResponse = 65536;

// Ok, or the refusal of the first aggregation or group-by that does not fit the index.
Status ValidateAggregations(const model::SearchIndexMeta& index, const AggRequest& req);

// The field an aggregation named `what` ("avg agg", "groupby_field", ...) reads, or its
// refusal ("[avg agg] field: x does not exist"). GeoPoint and Nested sources plug in here.
Result<const model::SearchField*> AggField(const model::SearchIndexMeta& index,
                                           std::string_view what, const std::string& name);

// A typed value given for a field of type `t` (missing, interval, offset, field_range), as the
// field's own form: Long and Date an integer (a double is truncated toward zero, a string of
// digits read), Double a double, Boolean a boolean, Keyword a string; nullopt when it cannot be.
std::optional<model::CellValue> AggValueOf(model::SearchFieldType t, const model::CellValue& v);

// A number given as a typed value (interval, offset): integer or finite double.
std::optional<double> AggNumber(const model::CellValue& v);

// The single-value aggregation kinds (a group may be sorted by them).
bool IsSingleValue(AggKind k);

}  // namespace ttlstore::search
