// A search index of a Tablestore table (issue 20; docs/tablestore.md, "Search indexes"): which
// columns it indexes and how, its own lifetime (T11), and where its build stands. Stored in the
// table's TablestoreSchema (model/versioned_table.h) by the catalog; its documents live outside
// RocksDB, in a Xapian database per index (search/), fed from a queue of changed rows that every
// writer of the table's rows fills in the same WriteBatch as the row (ops/row_batch.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/vector_metric.h"

namespace ttlstore::model {

// Numbered as the protocol's FieldType (persisted).
enum class SearchFieldType : uint8_t {
  kLong = 1,
  kDouble = 2,
  kBoolean = 3,
  kKeyword = 4,
  kText = 5,
  kNested = 6,    // a JSON array of objects, each a sub-document of `sub_fields`
  kGeoPoint = 7,  // "latitude,longitude" (search/geo.h)
  kDate = 8,
  kVector = 9,  // float32 vectors for KnnVectorQuery (search/vector_value.h, search/knn.h)
};

struct SearchField {
  std::string name;  // the table column (primary-key or attribute) it indexes
  SearchFieldType type = SearchFieldType::kKeyword;
  bool index = true;               // searchable
  bool sort_and_agg = false;       // the protocol's doc_values: usable in sorts and aggregations
  // The request did not say doc_values: sort_and_agg is the service's default for the type
  // (search/field_defaults.h), and DescribeSearchIndex leaves doc_values out, as it came.
  bool sort_and_agg_defaulted = false;
  bool store = true;               // returned by RETURN_ALL_FROM_INDEX
  bool is_array = false;           // the column holds a JSON array of values of `type`
  std::string analyzer;            // Text only: "single_word" (default), "split", "min_word",
                                   // "max_word", "fuzzy"
  std::string analyzer_parameter;  // the serialized analyzer parameter message, as given
  std::vector<std::string> date_formats;  // Date only
  // Nested only: the schema of each sub-document, in the order given (a sub-field may be Nested
  // itself, at most model::kMaxNestedDepth levels in all). Names are relative ("nk"); queries
  // name them by path ("n.nk").
  std::vector<SearchField> sub_fields;
  bool enable_highlighting = false;  // Text only: Search may ask for highlighted fragments
  // Vector only (VectorOptions): the dimension (1..4096) and the metric; the data type is
  // always float32, the only one the service has.
  uint32_t vector_dimension = 0;
  VectorMetric vector_metric = VectorMetric::kEuclidean;

  friend bool operator==(const SearchField&, const SearchField&) = default;
};

// The service's bounds on Nested fields (help: "Search index limits"): five levels of nesting,
// 256 sub-documents in one value, 100 sub-fields in one Nested field.
inline constexpr int kMaxNestedDepth = 5;
inline constexpr size_t kMaxNestedDocs = 256;
inline constexpr size_t kMaxNestedSubFields = 100;

// One key of a search index's presort (IndexSchema.index_sort) or of a Search's sort.
struct SearchSortKey {
  enum class Kind : uint8_t { kField = 1, kPrimaryKey = 2, kScore = 3 };
  Kind kind = Kind::kPrimaryKey;
  std::string field;  // kField
  bool descending = false;

  friend bool operator==(const SearchSortKey&, const SearchSortKey&) = default;
};

// The rules Text fields are analyzed by (search/analyzer.h). Persisted per index: an index keeps
// the rules its documents were built with, so a newer server reads an older index as it was
// written. 1: before issue 31 (single_word kept a run of CJK text as one word); 2: the service's
// documented single-character split of CJK text, the analyzers' case_sensitive parameters.
inline constexpr uint32_t kAnalysisV1 = 1;
inline constexpr uint32_t kAnalysisV2 = 2;
inline constexpr uint32_t kAnalysisCurrent = kAnalysisV2;

struct SearchIndexMeta {
  std::string name;
  std::vector<SearchField> fields;
  std::vector<SearchSortKey> index_sort;  // empty: by primary key
  // IndexSetting.routing_fields: primary-key columns, in the order given. One shard here, so
  // routing never changes which documents a query sees; kept and shown back.
  std::vector<std::string> routing_fields;
  uint32_t analysis = kAnalysisCurrent;
  // T11: seconds a row stays searchable after its newest version's timestamp; -1 = forever.
  // Never above the table's TTL (when that is not -1).
  int32_t time_to_live = -1;
  // The index's storage: folder <data-dir>/search/<id> and the queue prefix of its changes.
  uint32_t id = 0;
  int64_t create_time_us = 0;  // creation time (microseconds; DescribeSearchIndex shows ms)
  // True until the rows the table had at creation are all indexed (SyncPhase FULL).
  bool building = true;

  const SearchField* FindField(const std::string& n) const {
    for (const auto& f : fields) if (f.name == n) return &f;
    return nullptr;
  }
};

}  // namespace ttlstore::model
