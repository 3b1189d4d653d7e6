// A Search or ParallelScan request as the search engine runs it: the protocol's Query messages
// (tablestore/search_*.cc decodes them) turned into one tree of plain structs, with the values
// already typed as the table's cells. The engine (search/search_engine.h) checks a query against
// the index's fields (Validate) and runs it on the index's documents.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/cell.h"
#include "model/search_index.h"

namespace ttlstore::search {

struct Query {
  enum class Kind : uint8_t {
    kMatchAll,
    kTerm,         // field == terms[0]
    kTerms,        // field == any of terms
    kRange,        // from/to, either may be absent (unbounded)
    kPrefix,       // Keyword (or Text token) starting with `text`
    kWildcard,     // `text` with * and ? on a Keyword field
    kExists,       // the field has a value
    kBool,         // must / must_not / filter / should
    kMatch,        // Text: the analyzed words of `text`, OR (min should match) or AND
    kMatchPhrase,  // Text: the analyzed words of `text`, adjacent and in order
    kKnnVector,    // Vector: the top_k rows nearest to `vector` among those matching
                   // `knn_filter` (issue 32; search/knn.h), scored by similarity
  };
  Kind kind = Kind::kMatchAll;
  std::string field;
  std::vector<model::CellValue> terms;            // kTerm (one), kTerms (1..1024)
  std::optional<model::CellValue> from, to;       // kRange
  bool include_lower = false, include_upper = false;
  std::string text;                               // kPrefix, kWildcard, kMatch, kMatchPhrase
  bool match_and = false;                         // kMatch: QueryOperator AND
  std::optional<int32_t> minimum_should_match;    // kMatch (OR) and kBool (should)
  std::vector<Query> must, must_not, filter, should;  // kBool
  float weight = 1.0f;                            // scoring only
  // kKnnVector: how many rows (at least the Search's limit, as the service widens it), the
  // query vector, an optional filter (0 or 1 query), the smallest score kept, and the
  // candidates looked at (0: the engine's default).
  int32_t top_k = 0;
  std::vector<float> vector;
  std::vector<Query> knn_filter;
  float min_score = 0;
  int32_t num_candidates = 0;
};

struct SortKey {
  model::SearchSortKey key;                      // kField, kPrimaryKey or kScore
  // kField, for rows without the field: first the value of `missing_field` (another field of the
  // same type; FieldSort.missing_field), else `missing_value`, else last or first as `missing`
  // says (the SDKs' "_last" / "_first" missing values; last by default, in either order).
  std::string missing_field;
  std::optional<model::CellValue> missing_value;
  enum class Missing : uint8_t { kLast = 0, kFirst = 1 };
  Missing missing = Missing::kLast;
  // FieldSort.mode (min, max or avg over an array) was given: refused on an array field, whose
  // documents keep only their first element's sort value; meaningless on a single value.
  bool mode_given = false;
};

struct SearchRequest {
  Query query;
  std::vector<SortKey> sort;  // empty: the index's presort (index_sort), else primary key
  // Sort.disable_default_pk_sorter: no primary-key tie-break after `sort`, so hits equal in
  // every sort key are in no defined order and a next page starts after the last hit's keys
  // (ties with it that did not fit the page are not returned), as on the service.
  bool disable_default_pk_sorter = false;
  int32_t offset = 0;
  int32_t limit = 10;         // the protocol's default when absent
  // next_token of the previous page; empty: first page. A token carries the sort (and
  // disable_default_pk_sorter) of its first page: `sort` is then not used.
  std::string token;
  bool total_count = false;   // getTotalCount / trackTotalCount
  int64_t total_count_limit = INT64_MAX;  // trackTotalCount N: the count up to N
  int64_t now_ms = 0;         // rows past the index's or the table's TTL at now_ms are hidden
};

struct Hit {
  std::string row_key;  // the `rows`-family key of the table row (versions/row_key.h)
  double score = 0;
};

struct SearchResult {
  std::vector<Hit> hits;
  int64_t total_hits = -1;  // -1 unless total_count was asked
  std::string next_token;   // empty: no more
};

struct ScanRequest {
  Query query;
  int32_t limit = 100;
  int32_t parallel_id = 0;   // current_parallel_id, in [0, max_parallel)
  int32_t max_parallel = 1;  // at most the splits ComputeSplits gave
  std::string session_id;    // from ComputeSplits
  std::string token;         // next_token of the previous page of this parallel id
  int32_t alive_time_s = 60;  // how long the next_token stays valid (ScanQuery.alive_time)
  int64_t now_ms = 0;
};

struct ScanResult {
  std::vector<std::string> row_keys;
  // Set on every page that returned rows (the scan ends with an empty page, as the service's
  // does); empty: this parallel id is done.
  std::string next_token;
};

}  // namespace ttlstore::search
