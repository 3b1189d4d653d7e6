// The evaluation of aggregations and group-bys over a set of matching documents, shared by
// agg_metrics.cc (avg, max, min, sum, count, distinct_count, percentiles, top_rows),
// agg_group_by.cc (field, range, filter; group sorting and sub-levels), agg_histogram.cc
// (histogram, date histogram), agg_composite.cc and agg_geo.cc (geo distance, geo grid). Not for other layers: search/agg_exec.h
// runs it. REQUIRES everywhere: ValidateAggregations(index, request) was ok.
//
// Every aggregation is exact and reads values through FieldSource (agg_columns.h): a group-by
// splits its documents into groups (DocLists) and runs its sub-aggregations and sub-group-bys
// on each group kept, so a level costs one pass over its documents per aggregation.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <xapian.h>

#include "common/result.h"
#include "model/search_index.h"
#include "search/agg_columns.h"
#include "search/agg_dates.h"
#include "search/agg_types.h"

namespace ttlstore::search {

class Evaluator {
 public:
  Evaluator(const model::SearchIndexMeta& index, const Xapian::Database& db, FieldSource& source)
      : index_(index), db_(db), source_(source) {}

  // One level: its aggregations and group-bys over `docs`.
  Status Level(const std::vector<Aggregation>& aggs, const std::vector<GroupBy>& group_bys,
               const DocList& docs, std::vector<AggResult>* agg_out,
               std::vector<GroupByResult>* group_out);

  Result<AggResult> Metric(const Aggregation& a, const DocList& docs);
  Result<GroupByResult> Group(const GroupBy& g, const DocList& docs);

  // A group of a field, histogram or date-histogram group-by while it is being filled.
  struct Bucket {
    uint64_t key = 0;        // order-preserving: the order of the groups' keys
    int64_t count = 0;       // rows
    DocList docs;            // kept when sub-levels or a sub-aggregation sort need them
    double sub_value = 0;    // the sub-aggregation a sort names
  };

 private:
  Result<GroupByResult> ByField(const GroupBy& g, const DocList& docs);
  Result<GroupByResult> ByRange(const GroupBy& g, const DocList& docs);
  Result<GroupByResult> ByFilter(const GroupBy& g, const DocList& docs);
  Result<GroupByResult> ByHistogram(const GroupBy& g, const DocList& docs);
  Result<GroupByResult> ByDateHistogram(const GroupBy& g, const DocList& docs);
  Result<GroupByResult> ByComposite(const GroupBy& g, const DocList& docs);
  Result<GroupByResult> ByGeoDistance(const GroupBy& g, const DocList& docs);
  Result<GroupByResult> ByGeoGrid(const GroupBy& g, const DocList& docs);
  // The points of GeoPoint field `name` in every match (by MatchSet index), loaded once.
  Result<const std::vector<std::vector<GeoPoint>>*> Points(const std::string& name);

  // Orders `buckets` by g.sort (`default_sort` when none was given), then by key ascending;
  // drops those under min_doc_count (1 unless given); keeps the first `size` (0: all).
  Status SortBuckets(const GroupBy& g, const std::vector<GroupSorter>& default_sort,
                     int32_t size, std::vector<Bucket>* buckets);
  // Counts one group against kMaxGroupsPerResponse and runs g's sub-levels on `docs`.
  Status FillItem(const GroupBy& g, const DocList& docs, GroupItem* item);
  static bool NeedsDocs(const GroupBy& g);
  // The documents of the match set that `q` matches, by MatchSet index (cached per query).
  Result<const std::vector<bool>*> Members(const Query& q);

  const model::SearchIndexMeta& index_;
  const Xapian::Database& db_;
  FieldSource& source_;
  int64_t groups_ = 0;
  std::map<const Query*, std::vector<bool>> members_;
  std::map<std::string, std::vector<std::vector<GeoPoint>>> points_;
};

// How a group-by of a field (field, histogram, date histogram; a composite's sources) turns a
// row's values into group keys: order-preserving 64-bit keys, their typed value and their text.
class GroupKeyer {
 public:
  // REQUIRES: `g` validated, `col` the column of g.field.
  GroupKeyer(const GroupBy& g, const Column& col);

  // The group of a value (a key of `col`); nullopt when outside the field_range.
  std::optional<uint64_t> Key(uint64_t value) const;
  // The group of a row without the field: the missing value's, if given and in range.
  std::optional<uint64_t> MissingKey() const { return missing_; }
  // Every group from the field_range's min to its max (min_doc_count 0), at most
  // kMaxHistogramGroups + 1; empty without a field_range.
  std::vector<uint64_t> Span() const;

  model::CellValue Cell(uint64_t key) const;  // a histogram key as its typed value
  int64_t Timestamp(uint64_t key) const;      // a date-histogram key: its group's start
  std::string Text(uint64_t key) const;       // a composite key's text

 private:
  std::optional<uint64_t> KeyOfNumber(long double x, int64_t xi) const;

  const GroupBy& g_;
  const Column& col_;
  bool integral_ = false;        // histogram: integer keys (Long/Date field, integral interval)
  long double interval_ = 1, offset_ = 0;
  int64_t iinterval_ = 1, ioffset_ = 0;
  std::optional<long double> lo_, hi_;
  std::optional<DateRounding> rounding_;  // date histogram
  std::optional<uint64_t> missing_;
};

// The value of percentile p (0..100) of `sorted` values, interpolated between the two nearest
// ranks as Lucene's and Elasticsearch's t-digest does when every value is its own centroid
// (rank p/100 * (n - 1)). REQUIRES: !sorted.empty().
long double PercentileOf(const std::vector<long double>& sorted, double p);

// The documents of a MatchSet: 0..n-1.
DocList AllDocs(const MatchSet& m);

}  // namespace ttlstore::search
