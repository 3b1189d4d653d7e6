// Validate and build: a search/query.h Query checked against a search index's fields, then
// turned into a Xapian query over the document layout of search/terms.h. Numeric ranges become
// an OR of trie buckets (at most ~470 terms, exact at the edges: the buckets of level 0 are
// single values), never Xapian's value-range scan; Prefix is Xapian's OP_WILDCARD with an
// expansion cap; Wildcard enumerates the field's terms under the pattern's literal prefix.
// Every expansion is bounded; past a bound the query is refused (ErrorCode::kValidation).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <xapian.h>

#include "common/result.h"
#include "model/search_index.h"
#include "search/query.h"

namespace ttlstore::search {

inline constexpr int kMaxQueryDepth = 32;
inline constexpr size_t kMaxQueryNodes = 4096;
inline constexpr size_t kMaxTermsPerQuery = 1024;     // Terms query values
inline constexpr Xapian::termcount kMaxExpansion = 10000;  // Prefix, Wildcard, Keyword range terms
inline constexpr size_t kMaxWildcardScan = 200000;    // terms looked at by one Wildcard
inline constexpr size_t kMaxPatternBytes = 1024;       // Prefix
// Wildcard patterns: the service's limit, 32 characters (WildcardQuery's reference page);
// matching is O(pattern x value), so it also bounds the work per term.
inline constexpr size_t kMaxWildcardChars = 32;
inline constexpr size_t kMaxShouldCombinations = 256;  // minimum_should_match expansion
// KnnVectorQuery's top_k (the service's "Search index limits": at most 1,000 rows).
inline constexpr int32_t kMaxKnnTopK = 1000;

// Ok, or kValidation with the message (docs/compatibility.md lists them).
Status ValidateQuery(const model::SearchIndexMeta& index, const Query& q);
// The sort keys of a Search against the index's fields.
Status ValidateSort(const model::SearchIndexMeta& index, const std::vector<SortKey>& sort);

// Runs a KnnVectorQuery met while building (search/knn.h): given the query and the Xapian query
// of its filter (MatchAll when it has none), the Xapian query of its hits, weighted by score.
using KnnRunner =
    std::function<Result<Xapian::Query>(const Query& knn, const Xapian::Query& filter)>;

// REQUIRES: ValidateQuery(index, q) is ok. `db` is read for the expansions (Wildcard, Keyword
// ranges). A KnnVectorQuery needs `knn` (null: refused, as in ParallelScan).
Result<Xapian::Query> BuildQuery(const model::SearchIndexMeta& index, const Xapian::Database& db,
                                 const Query& q, const KnnRunner* knn = nullptr);

// The inclusive trie decomposition of [lo, hi] for field `field` (exposed for tests).
std::vector<std::string> TrieRangeTerms(size_t field, uint64_t lo, uint64_t hi);

// A query value (Term, Terms, Range bound, sort missing value) as a value of field type `t`, or
// nullopt when it does not fit: Long and Date take an integer or a string of one (the Python
// SDK's search_index_test, run against the service, finds TermQuery('l', '900') on a Long field);
// Double an integer, a double or a string of one; Boolean a boolean or "true"/"false";
// Keyword and Text a string.
std::optional<model::CellValue> QueryValueOf(model::SearchFieldType t, const model::CellValue& v);

// The position of the field named `name` in index.fields, or -1.
int FieldIndex(const model::SearchIndexMeta& index, const std::string& name);

}  // namespace ttlstore::search
