// A Search or ParallelScan request as the search engine runs it: the protocol's Query messages
// (tablestore/search_*.cc decodes them) turned into one tree of plain structs, with the values
// already typed as the table's cells. The engine (search/search_engine.h) checks a query against
// the index's fields (Validate) and runs it on the index's documents.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/cell.h"
#include "model/search_index.h"
#include "search/geo.h"

namespace ttlstore::search {

struct AggRequest;  // search/agg_types.h
struct AggOutput;

// Search's highlighting (the protocol's Highlight): for each named Text field, fragments of the
// row's value with the words the query matched between `pre_tag` and `post_tag`.
struct HighlightSpec {
  struct Field {
    std::string name;
    int32_t number_of_fragments = 5;  // 0: the whole value, as one fragment
    int32_t fragment_size = 100;      // characters, approximately (cut at word boundaries)
    std::string pre_tag = "<em>";
    std::string post_tag = "</em>";
    bool order_by_score = false;      // HighlightFragmentOrder SCORE, else TEXT_SEQUENCE
  };
  std::vector<Field> fields;
  bool html = false;  // HighlightEncoder HTML_MODE: the text (not the tags) HTML-escaped
};

// InnerHits of a NestedQuery: which of a hit's matching sub-documents it returns, in what order.
struct InnerSortKey {
  enum class Kind : uint8_t { kDoc, kScore, kField };
  Kind kind = Kind::kDoc;
  std::string field;  // kField: a sub-field of the query's path, by full path ("n.nl")
  bool descending = false;
};
struct InnerHits {
  std::vector<InnerSortKey> sort;  // empty: DocSort ascending (the sub-documents' order)
  int32_t offset = 0;
  int32_t limit = 3;  // the service's default
  // Fragments of each returned sub-document's Text sub-fields (named by full path, "n.nt")
  // holding the words the NestedQuery's query matched.
  std::optional<HighlightSpec> highlight;
};
struct ScoreFunction;

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
    kGeoDistance,     // GeoPoint: within `distance` meters of points[0]
    kGeoBoundingBox,  // GeoPoint: in the box of points[0] (top left) and points[1] (bottom right)
    kGeoPolygon,      // GeoPoint: inside the polygon of `points`
    kNested,          // `field` a Nested path; sub[0] matched within one of its sub-documents
    // FunctionScoreQuery / FunctionsScoreQuery: the rows of `must[0]`, scored anew by
    // `functions` and `function_score` (search/function_score.h).
    kFunctionScore,
    kKnnVector,    // Vector: the top_k rows nearest to `vector` among those matching
                   // `knn_filter` (issue 32; search/knn.h), scored by similarity
  };
  // NestedQuery.score_mode, numbered as the protocol's ScoreMode.
  enum class ScoreMode : uint8_t { kNone = 1, kAvg = 2, kMax = 3, kTotal = 4, kMin = 5 };
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
  std::vector<GeoPoint> points;                   // kGeo*
  double distance = 0;                            // kGeoDistance, meters
  std::vector<Query> sub;                         // kNested: the inner query (one)
  ScoreMode score_mode = ScoreMode::kAvg;         // kNested
  std::optional<InnerHits> inner_hits;            // kNested
  std::vector<ScoreFunction> functions;           // kFunctionScore: at most kMaxScoreFunctions
  struct FunctionScoreOptions {
    // How the functions' values combine (the protocol's FunctionScoreMode) and how that
    // combines with the query's score (FunctionCombineMode); Elasticsearch's defaults.
    enum class ScoreMode : uint8_t { kAvg, kMax, kSum, kMin, kMultiply, kFirst };
    enum class CombineMode : uint8_t { kMultiply, kAvg, kMax, kSum, kMin, kReplace };
    ScoreMode score_mode = ScoreMode::kMultiply;
    CombineMode combine_mode = CombineMode::kMultiply;
    std::optional<double> min_score;  // rows scoring less are not matches
    std::optional<double> max_score;  // caps the functions' combined value
  } function_score;                               // kFunctionScore
  // kKnnVector: how many rows (at least the Search's limit, as the service widens it), the
  // query vector, an optional filter (0 or 1 query), the smallest score kept, and the
  // candidates looked at (0: the engine's default).
  int32_t top_k = 0;
  std::vector<float> vector;
  std::vector<Query> knn_filter;
  float min_score = 0;
  int32_t num_candidates = 0;
};

// One function of a FunctionsScoreQuery (the protocol's Function): its value for a row, times
// `weight`, counts for the rows that match `filter` (all rows when empty).
struct ScoreFunction {
  enum class Kind : uint8_t { kWeight, kFieldValueFactor, kDecay, kRandom };
  Kind kind = Kind::kWeight;  // kWeight: the value is 1 (only the weight counts)
  double weight = 1;
  std::vector<Query> filter;  // empty or one query
  std::string field;          // kFieldValueFactor, kDecay
  // kFieldValueFactor: modifier(factor * value); a row without the field takes `missing`.
  enum class Modifier : uint8_t {
    kNone, kLog, kLog1p, kLog2p, kLn, kLn1p, kLn2p, kSquare, kSqrt, kReciprocal
  };
  double factor = 1;
  Modifier modifier = Modifier::kNone;
  std::optional<double> missing;
  // kDecay: gauss, exp or linear of max(0, |value - origin| - offset) over `scale`, worth
  // `decay` at a distance of `scale` (values in the field's unit: Date in milliseconds).
  enum class Decay : uint8_t { kGauss, kExp, kLinear };
  Decay decay_kind = Decay::kGauss;
  bool decay_date = false;  // DecayFuncDateParam (a Date field), else numeric (Long, Double)
  // DecayFuncGeoParam (a GeoPoint field): the value is the row's point's great-circle distance
  // in meters from (geo_lat, geo_lon); origin is then 0, scale and offset in meters.
  bool decay_geo = false;
  double geo_lat = 0, geo_lon = 0;
  double origin = 0, scale = 1, offset = 0, decay = 0.5;
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
  // The mode as given (FieldSort and GeoDistanceSort): which of several values orders a row (a
  // GeoPoint array, a sub-field's values over sub-documents). Default: the smallest ascending,
  // the largest descending.
  enum class Mode : uint8_t { kDefault = 0, kMin = 1, kMax = 2, kAvg = 3 };
  Mode mode = Mode::kDefault;
  // GeoDistanceSort: key.field is the GeoPoint field (or sub-field); rows by their distance to
  // the nearest (by `mode`) of `geo_points`, arc or plane.
  bool geo = false;
  std::vector<GeoPoint> geo_points;
  bool plane = false;
  // NestedFilter (a sort on a sub-field): the sub-documents of `nested_path` that count, those
  // matching nested_filter[0] (none: all).
  std::string nested_path;
  std::vector<Query> nested_filter;
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
  // Aggregations and group-bys over every match of `query` (search/agg_types.h); null: none.
  std::shared_ptr<const AggRequest> aggs;
  // Collapse: one hit per distinct value of this field (the first in the sort; the rows
  // without it are one group); paged by offset and limit only, total_hits counts every match.
  std::string collapse_field;
  std::optional<HighlightSpec> highlight;  // applied by the front end to the returned rows
};

// The inner hits of one NestedQuery with InnerHits, for one hit (or one sub-document).
struct InnerHit;
struct InnerHitGroup {
  std::string path;
  std::vector<InnerHit> hits;
};
struct InnerHighlight {
  std::string field;  // full path
  std::vector<std::string> fragments;
};
struct InnerHit {
  int32_t offset = 0;  // the sub-document's position in its JSON array
  double score = 0;
  std::vector<InnerHighlight> highlights;  // InnerHits.highlight: fields with a fragment
  std::vector<InnerHitGroup> inner;  // of NestedQuery with InnerHits inside this one
};

struct Hit {
  std::string row_key;  // the `rows`-family key of the table row (versions/row_key.h)
  double score = 0;
  std::vector<InnerHitGroup> inner_hits;
};

struct SearchResult {
  std::vector<Hit> hits;
  int64_t total_hits = -1;  // -1 unless total_count was asked
  std::string next_token;   // empty: no more
  std::shared_ptr<AggOutput> aggs;  // set when the request had aggregations or group-bys
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
