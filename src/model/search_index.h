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

// Numbered as the protocol's FieldType (persisted). Nested and GeoPoint are refused.
enum class SearchFieldType : uint8_t {
  kLong = 1,
  kDouble = 2,
  kBoolean = 3,
  kKeyword = 4,
  kText = 5,
  kDate = 8,
  kVector = 9,  // float32 vectors for KnnVectorQuery (issue 32; search/vector_graphs.h)
};

struct SearchField {
  std::string name;  // the table column (primary-key or attribute) it indexes
  SearchFieldType type = SearchFieldType::kKeyword;
  bool index = true;               // searchable
  bool sort_and_agg = false;       // the protocol's doc_values: usable in sorts
  bool store = true;               // returned by RETURN_ALL_FROM_INDEX
  bool is_array = false;           // the column holds a JSON array of values of `type`
  std::string analyzer;            // Text only: "single_word" (default), "split", "min_word",
                                   // "max_word", "fuzzy"
  std::string analyzer_parameter;  // the serialized analyzer parameter message, as given
  std::vector<std::string> date_formats;  // Date only
  // Vector only (VectorOptions): the dimension (1..4096) and the metric; the data type is
  // always float32, the only one the service has.
  uint32_t vector_dimension = 0;
  VectorMetric vector_metric = VectorMetric::kEuclidean;

  friend bool operator==(const SearchField&, const SearchField&) = default;
};

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
