// The protocol's search messages (search.proto) turned into the engine's plain structs
// (search/query.h): queries, sorts, typed values. Pure: no catalog, no engine, so the tests in
// test/unit/search_query_decode_test.cc build requests byte by byte.
//
// A Query is a type and the bytes of that type's message; a Bool query holds more Query
// messages, so a request's bytes nest. Decoding recurses along that nesting, bounded by:
//   - kMaxQueryDepth levels of Bool (and ConstScore, function-score) nesting,
//   - kMaxBoolClauses sub-queries in one Bool query,
//   - kMaxQueryNodes queries in the whole tree,
//   - kMaxTerms terms in one Terms query,
// each refused with a validation error before anything below it is parsed. Every message is
// checked by CheckWire (tablestore/wire_check.h) before the generated parser sees it.
#pragma once

#include <string_view>
#include <vector>

#include "common/result.h"
#include "model/cell.h"
#include "search/query.h"
#include "tablestore/search.pb.h"

namespace ttlstore::tablestore {

// Chosen (docs/compatibility.md, "Search indexes"): the service documents no nesting depth.
inline constexpr int kMaxQueryDepth = 16;
// The service's: "too many queries in bool_query" past 1024 sub-queries; Terms: 1024 terms.
inline constexpr int kMaxBoolClauses = 1024;
inline constexpr int kMaxTerms = 1024;
// Chosen: queries in one request's tree.
inline constexpr int kMaxQueryNodes = 4096;
// The service's limits on Search (help: "Search index limits", "How do I increase the value of
// the limit parameter to 1000"): offset + limit <= 100000; at most 1000 rows per page when every
// returned column is stored in the index, else 100 (the handler checks the latter); prefixes
// 1000 bytes (the engine checks wildcards' 32 characters with the service's text).
inline constexpr int kMaxSearchLimit = 1000;
inline constexpr int kMaxSearchLimitFromTable = 100;
inline constexpr int kMaxOffsetPlusLimit = 100000;
inline constexpr size_t kMaxPrefixBytes = 1000;
// ParallelScan's page: the service's limit is 2000 rows.
inline constexpr int kMaxScanLimit = 2000;
// Sorters in one sort (Chosen).
inline constexpr int kMaxSorters = 32;

// A typed value as the SDKs send terms, range bounds and missing values: a type byte (0
// integer, 1 double, 2 boolean, 3 string) then its little-endian bytes (a string with its
// 4-byte length first). Exactly that many bytes, or an error.
Result<model::CellValue> DecodeSearchValue(std::string_view bytes);

// A Query message, with the bounds above.
Result<search::Query> DecodeQuery(const otssearchpb::Query& query);

// A Sort message (Search's sort or an index's index_sort).
Result<std::vector<search::SortKey>> DecodeSort(const otssearchpb::Sort& sort);

// A SearchRequest's serialized SearchQuery: query, sort, offset/limit (checked), token,
// getTotalCount, highlight and collapse; aggregations and group-bys
// (tablestore/search_agg_decode.h).
Result<search::SearchRequest> DecodeSearchQuery(std::string_view bytes);

}  // namespace ttlstore::tablestore
