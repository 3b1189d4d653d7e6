#include "tablestore/search_agg_decode.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "search/agg_dates.h"
#include "search/agg_validate.h"
#include "tablestore/search_query_decode.h"
#include "tablestore/search_shapes.h"
#include "tablestore/wire_check.h"

namespace ttlstore::tablestore {
namespace {

namespace pb = ::ttlstore::otssearchpb;
using search::AggKind;
using search::GroupByKind;

// Wire shapes of the aggregation messages (field numbers as in search.proto). An Aggregation's
// and a GroupBy's body is bytes: parsed on its own, one level at a time.
constexpr WireShape kLeaf{};
constexpr WireField kAggregations[] = {{1, true, &kLeaf, CountRule::kNone}};
constexpr WireShape kAggregationsShape{kAggregations};
constexpr WireField kGroupBys[] = {{1, true, &kLeaf, CountRule::kNone}};
constexpr WireShape kGroupBysShape{kGroupBys};
const WireField kTopRows[] = {{2, false, &SortWireShape(), CountRule::kNone}};
const WireShape kTopRowsShape{kTopRows};
constexpr WireField kPercentiles[] = {{2, true, nullptr, CountRule::kNone}};
constexpr WireShape kPercentilesShape{kPercentiles};
constexpr WireField kGroupSorter[] = {
    {1, false, &kLeaf, CountRule::kNone},
    {2, false, &kLeaf, CountRule::kNone},
    {3, false, &kLeaf, CountRule::kNone},
};
constexpr WireShape kGroupSorterShape{kGroupSorter};
constexpr WireField kGroupSort[] = {{1, true, &kGroupSorterShape, CountRule::kNone}};
constexpr WireShape kGroupSortShape{kGroupSort};
constexpr WireField kByField[] = {
    {3, false, &kGroupSortShape, CountRule::kNone},
    {4, false, &kAggregationsShape, CountRule::kNone},
    {5, false, &kGroupBysShape, CountRule::kNone},
};
constexpr WireShape kByFieldShape{kByField};
constexpr WireField kByRange[] = {
    {2, true, &kLeaf, CountRule::kNone},
    {3, false, &kAggregationsShape, CountRule::kNone},
    {4, false, &kGroupBysShape, CountRule::kNone},
};
constexpr WireShape kByRangeShape{kByRange};
constexpr WireField kByFilter[] = {
    {1, true, &kLeaf, CountRule::kNone},
    {2, false, &kAggregationsShape, CountRule::kNone},
    {3, false, &kGroupBysShape, CountRule::kNone},
};
constexpr WireShape kByFilterShape{kByFilter};
constexpr WireField kByGeoDistance[] = {
    {2, false, &kLeaf, CountRule::kNone},
    {3, true, &kLeaf, CountRule::kNone},
    {4, false, &kAggregationsShape, CountRule::kNone},
    {5, false, &kGroupBysShape, CountRule::kNone},
};
constexpr WireShape kByGeoDistanceShape{kByGeoDistance};
constexpr WireField kByGeoGrid[] = {
    {4, false, &kAggregationsShape, CountRule::kNone},
    {5, false, &kGroupBysShape, CountRule::kNone},
};
constexpr WireShape kByGeoGridShape{kByGeoGrid};
constexpr WireField kByHistogram[] = {
    {5, false, &kGroupSortShape, CountRule::kNone},
    {6, false, &kLeaf, CountRule::kNone},
    {7, false, &kAggregationsShape, CountRule::kNone},
    {8, false, &kGroupBysShape, CountRule::kNone},
};
constexpr WireShape kByHistogramShape{kByHistogram};
constexpr WireField kByDateHistogram[] = {
    {2, false, &kLeaf, CountRule::kNone},
    {3, false, &kLeaf, CountRule::kNone},
    {7, false, &kGroupSortShape, CountRule::kNone},
    {8, false, &kAggregationsShape, CountRule::kNone},
    {9, false, &kGroupBysShape, CountRule::kNone},
    {10, false, &kLeaf, CountRule::kNone},
};
constexpr WireShape kByDateHistogramShape{kByDateHistogram};
constexpr WireField kByComposite[] = {
    {1, false, &kGroupBysShape, CountRule::kNone},
    {4, false, &kAggregationsShape, CountRule::kNone},
    {5, false, &kGroupBysShape, CountRule::kNone},
};
constexpr WireShape kByCompositeShape{kByComposite};

template <typename Message>
Status Parse(std::string_view bytes, const WireShape& shape, Message* m) {
  RETURN_IF_ERROR(CheckWire(bytes, shape));
  if (!m->ParsePartialFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return Error::Validation(std::string(kParseFailedMessage));
  }
  return Status::Ok();
}

Status LevelCounts(int aggs, int group_bys, int depth) {
  if (size_t(aggs) > search::kMaxAggsPerLevel) {
    return Error::Validation("The number of aggregations at one level exceeds the limit: " +
                             std::to_string(search::kMaxAggsPerLevel));
  }
  if (size_t(group_bys) > search::kMaxGroupBysPerLevel) {
    return Error::Validation("The number of group-bys at one level exceeds the limit: " +
                             std::to_string(search::kMaxGroupBysPerLevel));
  }
  if (group_bys > 0 && depth >= search::kMaxGroupByDepth) {
    return Error::Validation("Group-bys nest deeper than the limit: " +
                             std::to_string(search::kMaxGroupByDepth) + " levels");
  }
  return Status::Ok();
}

Result<std::optional<model::CellValue>> OptionalValue(bool has, const std::string& bytes) {
  if (!has) return std::optional<model::CellValue>();
  ASSIGN_OR_RETURN(v, DecodeSearchValue(bytes));
  return std::optional<model::CellValue>(std::move(v));
}

// An empty GroupBySort (the Go SDK sends one when no sorter was set) leaves the default order.
std::vector<search::GroupSorter> Sorters(const pb::GroupBySort& sort) {
  std::vector<search::GroupSorter> out;
  for (const auto& s : sort.sorters()) {
    search::GroupSorter g;
    if (s.has_group_key_sort()) {
      g.kind = search::GroupSorter::Kind::kKey;
      g.descending = s.group_key_sort().order() == pb::SORT_ORDER_DESC;
    } else if (s.has_row_count_sort()) {
      g.kind = search::GroupSorter::Kind::kRowCount;
      g.descending = s.row_count_sort().order() == pb::SORT_ORDER_DESC;
    } else if (s.has_sub_agg_sort()) {
      g.kind = search::GroupSorter::Kind::kSubAgg;
      g.sub_agg = s.sub_agg_sort().sub_agg_name();
      g.descending = s.sub_agg_sort().order() == pb::SORT_ORDER_DESC;
    } else {
      continue;  // an empty sorter: nothing to sort by
    }
    out.push_back(std::move(g));
  }
  return out;
}

std::optional<search::DateSpan> Span(const pb::DateTimeValue& v) {
  if (!v.has_unit() || v.unit() < 1 || v.unit() > 9) return std::nullopt;
  search::DateSpan s;
  s.value = v.value();
  s.unit = search::DateUnit(v.unit());
  return s;
}

Status FieldRange(const pb::FieldRange& r, search::GroupBy* g) {
  ASSIGN_OR_RETURN(lo, OptionalValue(r.has_min(), r.min()));
  ASSIGN_OR_RETURN(hi, OptionalValue(r.has_max(), r.max()));
  g->range_min = std::move(lo);
  g->range_max = std::move(hi);
  return Status::Ok();
}

class AggDecoder {
 public:
  Result<std::vector<search::Aggregation>> Aggs(const pb::Aggregations& m, int depth) {
    RETURN_IF_ERROR(LevelCounts(m.aggs_size(), 0, depth));
    std::vector<search::Aggregation> out;
    for (const auto& a : m.aggs()) {
      ASSIGN_OR_RETURN(one, Agg(a));
      out.push_back(std::move(one));
    }
    return out;
  }

  Result<std::vector<search::GroupBy>> GroupBys(const pb::GroupBys& m, int depth) {
    RETURN_IF_ERROR(LevelCounts(0, m.group_bys_size(), depth));
    std::vector<search::GroupBy> out;
    for (const auto& g : m.group_bys()) {
      ASSIGN_OR_RETURN(one, Group(g, depth + 1));
      out.push_back(std::move(one));
    }
    return out;
  }

 private:
  Result<search::Aggregation> Agg(const pb::Aggregation& m) {
    search::Aggregation a;
    a.name = m.name();
    if (!m.has_type() || m.type() < 1 || m.type() > 8) {
      return Error::Validation("Aggregation type must be set to a known type.");
    }
    a.kind = AggKind(m.type());
    const std::string& body = m.body();
    switch (a.kind) {
      case AggKind::kAvg:
      case AggKind::kMax:
      case AggKind::kMin:
      case AggKind::kSum:
      case AggKind::kCount:
      case AggKind::kDistinctCount: {
        pb::FieldAggregation f;
        RETURN_IF_ERROR(Parse(body, kLeaf, &f));
        a.field = f.field_name();
        ASSIGN_OR_RETURN(missing, OptionalValue(f.has_missing(), f.missing()));
        a.missing = std::move(missing);
        break;
      }
      case AggKind::kTopRows: {
        pb::TopRowsAggregation t;
        RETURN_IF_ERROR(Parse(body, kTopRowsShape, &t));
        a.limit = t.has_limit() ? t.limit() : 1;
        if (t.has_sort()) {
          ASSIGN_OR_RETURN(sort, DecodeSort(t.sort()));
          a.sort = std::move(sort);
        }
        break;
      }
      case AggKind::kPercentiles: {
        pb::PercentilesAggregation p;
        RETURN_IF_ERROR(Parse(body, kPercentilesShape, &p));
        a.field = p.field_name();
        if (size_t(p.percentiles_size()) > search::kMaxPercentiles) {
          return Error::Validation("[percentiles agg] the number of percentiles exceeds the "
                                   "limit: " + std::to_string(search::kMaxPercentiles));
        }
        a.percentiles.assign(p.percentiles().begin(), p.percentiles().end());
        ASSIGN_OR_RETURN(missing, OptionalValue(p.has_missing(), p.missing()));
        a.missing = std::move(missing);
        break;
      }
    }
    return a;
  }

  // Sub-aggregations and sub-group-bys of a group-by at `depth`.
  Status Subs(bool has_aggs, const pb::Aggregations& aggs, bool has_groups,
              const pb::GroupBys& groups, int depth, search::GroupBy* g) {
    if (has_aggs) {
      ASSIGN_OR_RETURN(a, Aggs(aggs, depth));
      g->sub_aggs = std::move(a);
    }
    if (has_groups) {
      ASSIGN_OR_RETURN(s, GroupBys(groups, depth));
      g->sub_group_bys = std::move(s);
    }
    return Status::Ok();
  }

  Result<search::GroupBy> Group(const pb::GroupBy& m, int depth) {
    search::GroupBy g;
    g.name = m.name();
    if (!m.has_type() || m.type() < 1 || m.type() > 8) {
      return Error::Validation("GroupBy type must be set to a known type.");
    }
    g.kind = GroupByKind(m.type());
    const std::string& body = m.body();
    switch (g.kind) {
      case GroupByKind::kField: {
        pb::GroupByField f;
        RETURN_IF_ERROR(Parse(body, kByFieldShape, &f));
        g.field = f.field_name();
        if (f.has_size()) g.size = f.size();
        if (f.has_sort()) g.sort = Sorters(f.sort());
        g.sort_given = !g.sort.empty();
        if (f.has_min_doc_count()) g.min_doc_count = f.min_doc_count();
        RETURN_IF_ERROR(Subs(f.has_sub_aggs(), f.sub_aggs(), f.has_sub_group_bys(),
                             f.sub_group_bys(), depth, &g));
        break;
      }
      case GroupByKind::kRange: {
        pb::GroupByRange r;
        RETURN_IF_ERROR(Parse(body, kByRangeShape, &r));
        g.field = r.field_name();
        if (size_t(r.ranges_size()) > search::kMaxGroupByRanges) {
          return Error::Validation("[groupby_range] the number of ranges exceeds the limit: " +
                                   std::to_string(search::kMaxGroupByRanges));
        }
        for (const auto& x : r.ranges()) {
          search::GroupRange one;
          one.from = x.has_from() ? x.from() : -std::numeric_limits<double>::infinity();
          one.to = x.has_to() ? x.to() : std::numeric_limits<double>::infinity();
          g.ranges.push_back(one);
        }
        RETURN_IF_ERROR(Subs(r.has_sub_aggs(), r.sub_aggs(), r.has_sub_group_bys(),
                             r.sub_group_bys(), depth, &g));
        break;
      }
      case GroupByKind::kFilter: {
        pb::GroupByFilter f;
        RETURN_IF_ERROR(Parse(body, kByFilterShape, &f));
        if (size_t(f.filters_size()) > search::kMaxGroupByFilters) {
          return Error::Validation("[groupby_filter] the number of filters exceeds the limit: " +
                                   std::to_string(search::kMaxGroupByFilters));
        }
        for (const auto& q : f.filters()) {
          ASSIGN_OR_RETURN(one, DecodeQuery(q));
          g.filters.push_back(std::move(one));
        }
        RETURN_IF_ERROR(Subs(f.has_sub_aggs(), f.sub_aggs(), f.has_sub_group_bys(),
                             f.sub_group_bys(), depth, &g));
        break;
      }
      case GroupByKind::kGeoDistance: {
        pb::GroupByGeoDistance r;
        RETURN_IF_ERROR(Parse(body, kByGeoDistanceShape, &r));
        g.field = r.field_name();
        if (r.has_origin()) {
          // Absent coordinates are 0, as the SDKs' GeoPoint defaults them.
          g.origin = search::GeoPoint{r.origin().lat(), r.origin().lon()};
        }
        if (size_t(r.ranges_size()) > search::kMaxGroupByRanges) {
          return Error::Validation(
              "[groupby_geo_distance] the number of ranges exceeds the limit: " +
              std::to_string(search::kMaxGroupByRanges));
        }
        for (const auto& x : r.ranges()) {
          search::GroupRange one;
          one.from = x.has_from() ? x.from() : -std::numeric_limits<double>::infinity();
          one.to = x.has_to() ? x.to() : std::numeric_limits<double>::infinity();
          g.ranges.push_back(one);
        }
        RETURN_IF_ERROR(Subs(r.has_sub_aggs(), r.sub_aggs(), r.has_sub_group_bys(),
                             r.sub_group_bys(), depth, &g));
        break;
      }
      case GroupByKind::kGeoGrid: {
        pb::GroupByGeoGrid r;
        RETURN_IF_ERROR(Parse(body, kByGeoGridShape, &r));
        g.field = r.field_name();
        g.precision = r.has_precision() ? int32_t(r.precision()) : 0;
        if (r.has_size()) {
          g.size = r.size() < 0 || r.size() > std::numeric_limits<int32_t>::max() ? -1 : int32_t(r.size());
        }
        RETURN_IF_ERROR(Subs(r.has_sub_aggs(), r.sub_aggs(), r.has_sub_group_bys(),
                             r.sub_group_bys(), depth, &g));
        break;
      }
      case GroupByKind::kHistogram: {
        pb::GroupByHistogram h;
        RETURN_IF_ERROR(Parse(body, kByHistogramShape, &h));
        g.field = h.field_name();
        ASSIGN_OR_RETURN(interval, OptionalValue(h.has_interval(), h.interval()));
        ASSIGN_OR_RETURN(offset, OptionalValue(h.has_offset(), h.offset()));
        ASSIGN_OR_RETURN(missing, OptionalValue(h.has_missing(), h.missing()));
        g.interval = std::move(interval);
        g.offset = std::move(offset);
        g.missing = std::move(missing);
        if (h.has_min_doc_count()) g.min_doc_count = h.min_doc_count();
        if (h.has_sort()) g.sort = Sorters(h.sort());
        g.sort_given = !g.sort.empty();
        if (h.has_field_range()) RETURN_IF_ERROR(FieldRange(h.field_range(), &g));
        RETURN_IF_ERROR(Subs(h.has_sub_aggs(), h.sub_aggs(), h.has_sub_group_bys(),
                             h.sub_group_bys(), depth, &g));
        break;
      }
      case GroupByKind::kDateHistogram: {
        pb::GroupByDateHistogram h;
        RETURN_IF_ERROR(Parse(body, kByDateHistogramShape, &h));
        g.field = h.field_name();
        if (h.has_interval()) {
          auto span = Span(h.interval());
          if (!span) {
            return Error::Validation("[groupby_date_histogram] interval must have a unit");
          }
          g.date_interval = *span;
        }
        if (h.has_offset()) {
          auto span = Span(h.offset());
          if (!span) return Error::Validation("[groupby_date_histogram] offset must have a unit");
          g.date_offset = *span;
        }
        ASSIGN_OR_RETURN(missing, OptionalValue(h.has_missing(), h.missing()));
        g.missing = std::move(missing);
        if (h.has_min_doc_count()) g.min_doc_count = h.min_doc_count();
        if (h.has_time_zone()) {
          auto tz = search::ParseZoneOffset(h.time_zone());
          if (!tz) {
            return Error::Validation("[groupby_date_histogram] time_zone must be +hh:mm or "
                                     "-hh:mm, but was " + h.time_zone());
          }
          g.time_zone_ms = *tz;
        }
        if (h.has_sort()) g.sort = Sorters(h.sort());
        g.sort_given = !g.sort.empty();
        if (h.has_field_range()) RETURN_IF_ERROR(FieldRange(h.field_range(), &g));
        RETURN_IF_ERROR(Subs(h.has_sub_aggs(), h.sub_aggs(), h.has_sub_group_bys(),
                             h.sub_group_bys(), depth, &g));
        break;
      }
      case GroupByKind::kComposite: {
        pb::GroupByComposite c;
        RETURN_IF_ERROR(Parse(body, kByCompositeShape, &c));
        if (size_t(c.sources().group_bys_size()) > search::kMaxCompositeSources) {
          return Error::Validation(
              "[groupby_composite] the number of sources exceeds the limit: " +
              std::to_string(search::kMaxCompositeSources));
        }
        for (const auto& s : c.sources().group_bys()) {
          // A source is one group-by: its own nesting is refused by ValidateAggregations; it is
          // decoded one level below so that a source's sub-group-bys cannot nest further.
          ASSIGN_OR_RETURN(one, Group(s, search::kMaxGroupByDepth));
          g.sources.push_back(std::move(one));
        }
        if (c.has_size()) {
          g.size = c.size();
        } else if (c.has_suggested_size()) {
          // A suggestion: the service answers with at most its limit (the Go SDK's
          // TestGroupByGroupByComposite sends 3000 and reads the groups), where `size` 3000 is
          // refused.
          g.size = std::clamp<int32_t>(c.suggested_size(), 1, search::kMaxGroupSize);
        }
        g.next_token = c.next_token();
        RETURN_IF_ERROR(Subs(c.has_sub_aggs(), c.sub_aggs(), c.has_sub_group_bys(),
                             c.sub_group_bys(), depth, &g));
        break;
      }
    }
    return g;
  }
};

}  // namespace

Result<search::AggRequest> DecodeAggregations(const std::string* aggs,
                                              const std::string* group_bys) {
  AggDecoder d;
  search::AggRequest out;
  if (aggs) {
    pb::Aggregations m;
    RETURN_IF_ERROR(Parse(*aggs, kAggregationsShape, &m));
    ASSIGN_OR_RETURN(a, d.Aggs(m, 0));
    out.aggs = std::move(a);
  }
  if (group_bys) {
    pb::GroupBys m;
    RETURN_IF_ERROR(Parse(*group_bys, kGroupBysShape, &m));
    ASSIGN_OR_RETURN(g, d.GroupBys(m, 0));
    out.group_bys = std::move(g);
  }
  return out;
}

}  // namespace ttlstore::tablestore
