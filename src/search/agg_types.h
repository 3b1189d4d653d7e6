// A Search's aggregations and group-bys (issue 32) as the engine runs them, and what they
// answer: the protocol's Aggregation and GroupBy messages (tablestore/search_agg_decode.h
// decodes them) as plain structs, checked against the index by ValidateAggregations
// (search/agg_validate.h) and evaluated over every match of the Search's query
// (search/agg_exec.h), whatever its offset, limit or token. The rules and their sources:
// docs/tablestore.md, "Aggregations and group-bys".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/cell.h"
#include "search/geo.h"
#include "search/query.h"

namespace ttlstore::search {

// Numbered as the protocol's AggregationType.
enum class AggKind : uint8_t {
  kAvg = 1,
  kMax = 2,
  kMin = 3,
  kSum = 4,
  kCount = 5,
  kDistinctCount = 6,
  kTopRows = 7,
  kPercentiles = 8,
};

// Numbered as the protocol's GroupByType.
enum class GroupByKind : uint8_t {
  kField = 1,
  kRange = 2,
  kFilter = 3,
  kGeoDistance = 4,  // GeoPoint fields
  kHistogram = 5,
  kDateHistogram = 6,
  kGeoGrid = 7,      // GeoPoint fields
  kComposite = 8,
};

// Numbered as the protocol's DateTimeUnit.
enum class DateUnit : uint8_t {
  kYear = 1,
  kQuarter = 2,
  kMonth = 3,
  kWeek = 4,
  kDay = 5,
  kHour = 6,
  kMinute = 7,
  kSecond = 8,
  kMillisecond = 9,
};

struct DateSpan {
  int64_t value = 0;
  DateUnit unit = DateUnit::kDay;
};

struct Aggregation {
  std::string name;
  AggKind kind = AggKind::kCount;
  std::string field;                        // every kind but kTopRows
  // The value of a row without the field (avg, max, min, sum, distinct_count, percentiles);
  // absent: such rows are left out.
  std::optional<model::CellValue> missing;
  std::vector<double> percentiles;          // kPercentiles, each in [0, 100]
  int32_t limit = 1;                        // kTopRows: rows per group
  std::vector<SortKey> sort;                // kTopRows; empty: the index's presort
};

struct GroupSorter {
  enum class Kind : uint8_t { kKey, kRowCount, kSubAgg };
  Kind kind = Kind::kRowCount;
  bool descending = false;
  std::string sub_agg;  // kSubAgg: the name of a single-value sub-aggregation
};

struct GroupRange {
  double from = 0;  // -infinity when absent
  double to = 0;    // +infinity when absent; a value v is in [from, to)
};

struct GroupBy {
  std::string name;
  GroupByKind kind = GroupByKind::kField;
  std::string field;                         // every kind but kFilter and kComposite
  int32_t size = 10;                         // kField, kComposite, kGeoGrid (1..2000)
  std::vector<GroupSorter> sort;             // kField, kHistogram, kDateHistogram; sources: key
  bool sort_given = false;
  std::optional<int64_t> min_doc_count;      // kField, kHistogram, kDateHistogram
  std::vector<GroupRange> ranges;            // kRange, kGeoDistance (meters)
  std::optional<GeoPoint> origin;            // kGeoDistance
  int32_t precision = 0;                     // kGeoGrid: the geohash length, 1..12
  std::vector<Query> filters;                // kFilter
  // kHistogram: interval, offset and missing as typed values; kDateHistogram: missing.
  std::optional<model::CellValue> interval, offset, missing;
  // kHistogram, kDateHistogram: field_range (the groups' bounds; both required).
  std::optional<model::CellValue> range_min, range_max;
  DateSpan date_interval;                    // kDateHistogram
  std::optional<DateSpan> date_offset;       // kDateHistogram
  int64_t time_zone_ms = 0;                  // kDateHistogram: "+hh:mm" as milliseconds
  std::vector<GroupBy> sources;              // kComposite
  std::string next_token;                    // kComposite: the after-key of the last page
  std::vector<Aggregation> sub_aggs;
  std::vector<GroupBy> sub_group_bys;
};

struct AggRequest {
  std::vector<Aggregation> aggs;
  std::vector<GroupBy> group_bys;
  bool empty() const { return aggs.empty() && group_bys.empty(); }
};

// ---- Results ----------------------------------------------------------------------------------

struct AggResult {
  std::string name;
  AggKind kind = AggKind::kCount;
  // avg, max, min, sum. No value: avg and min +infinity, max -infinity, sum 0 (the Go SDK's
  // HasValue tests these infinities).
  double value = 0;
  int64_t count = 0;                                 // count, distinct_count
  // percentiles: (percentile, value of the field's type), in ascending percentile order; none
  // when no row has a value.
  std::vector<std::pair<double, model::CellValue>> percentiles;
  std::vector<std::string> row_keys;                 // top_rows: rows-family keys
};

struct GroupByResult;

struct GroupItem {
  std::string key;                                   // kField; kGeoGrid the geohash
  double from = 0, to = 0;                           // kRange, kGeoDistance
  // kGeoGrid: the cell (top-left and bottom-right corners).
  double top_lat = 0, left_lon = 0, bottom_lat = 0, right_lon = 0;
  model::CellValue histogram_key;                    // kHistogram
  int64_t timestamp_ms = 0;                          // kDateHistogram
  std::vector<std::optional<std::string>> keys;      // kComposite (nullopt: no value)
  int64_t row_count = 0;
  std::vector<AggResult> sub_aggs;                   // one per sub-aggregation asked
  std::vector<GroupByResult> sub_group_bys;          // one per sub-group-by asked
};

struct GroupByResult {
  std::string name;
  GroupByKind kind = GroupByKind::kField;
  std::vector<GroupItem> items;
  std::vector<std::string> source_names;             // kComposite
  std::string next_token;                            // kComposite; empty: no more groups
};

struct AggOutput {
  std::vector<AggResult> aggs;
  std::vector<GroupByResult> group_bys;
};

}  // namespace ttlstore::search
