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
#include "search/field_ref.h"
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

// Where a query stands: the top level, or inside a NestedQuery of path `path` (whose fields are
// then the only ones it may name); `inner_hits`: whether a NestedQuery here may ask for
// InnerHits (at the top level, or inside a NestedQuery that has them).
struct QueryScope {
  std::string path;
  bool inner_hits = true;
};

// Ok, or kValidation with the message (docs/compatibility.md lists them).
Status ValidateQuery(const model::SearchIndexMeta& index, const Query& q);
// The same for a query standing in `scope` (a NestedQuery's inner query, a nested sort's
// filter).
Status ValidateScopedQuery(const model::SearchIndexMeta& index, const Query& q,
                           const QueryScope& scope);
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

// The inclusive trie decomposition of [lo, hi] for field `field` (exposed for tests), or for the
// field or sub-field of term key `key`.
std::vector<std::string> TrieRangeTerms(size_t field, uint64_t lo, uint64_t hi);
std::vector<std::string> KeyTrieRangeTerms(std::string_view key, uint64_t lo, uint64_t hi);

// The query of leaf `q` on field `ref` (any leaf kind but Bool, MatchAll and Nested). exact:
// false for a sub-field inside a NestedQuery, whose sub-documents are tested afterwards, so that
// a geo query needs no test of its own (geo_query.h).
Result<Xapian::Query> BuildFieldLeaf(const model::SearchIndexMeta& index,
                                     const Xapian::Database& db, const Query& q,
                                     const FieldRef& ref, bool exact);
// OR of `qs` where at least `m` must match: OR, AND, or an OR of the ANDs of every m-subset
// (refused past kMaxShouldCombinations of them).
Result<Xapian::Query> AtLeast(const std::vector<Xapian::Query>& qs, size_t m);
// Whether `s` matches the wildcard pattern (* any run, ? one byte).
bool WildMatch(std::string_view p, std::string_view s);
// The protocol's names of field types ("LONG") and query kinds ("TermQuery"), for messages.
std::string TypeName(model::SearchFieldType t);
std::string KindName(Query::Kind k);

// A query value (Term, Terms, Range bound, sort missing value) as a value of field type `t`, or
// nullopt when it does not fit: Long and Date take an integer or a string of one (the Python
// SDK's search_index_test, run against the service, finds TermQuery('l', '900') on a Long field);
// Double an integer, a double or a string of one; Boolean a boolean or "true"/"false";
// Keyword and Text a string.
std::optional<model::CellValue> QueryValueOf(model::SearchFieldType t, const model::CellValue& v);

// The position of the field named `name` in index.fields, or -1.
int FieldIndex(const model::SearchIndexMeta& index, const std::string& name);

}  // namespace ttlstore::search
