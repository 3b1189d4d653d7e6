#include "search/agg_validate.h"

#include <cmath>
#include <limits>
#include <set>

#include "search/agg_dates.h"
#include "search/geohash.h"
#include "search/query_builder.h"

namespace ttlstore::search {
namespace {

using model::CellType;
using model::CellValue;
using model::SearchFieldType;
using T = SearchFieldType;

// Elasticsearch's type names, as the service's texts spell them ("type:keyword is invalid").
std::string TypeName(T t) {
  switch (t) {
    case T::kLong: return "long";
    case T::kDouble: return "double";
    case T::kBoolean: return "boolean";
    case T::kKeyword: return "keyword";
    case T::kText: return "text";
    case T::kDate: return "date";
    case T::kGeoPoint: return "geo_point";
    case T::kNested: return "nested";
    case T::kVector: return "vector";
  }
  return "unknown";
}

std::string AggWhat(AggKind k) {
  switch (k) {
    case AggKind::kAvg: return "avg agg";
    case AggKind::kMax: return "max agg";
    case AggKind::kMin: return "min agg";
    case AggKind::kSum: return "sum agg";
    case AggKind::kCount: return "count agg";
    case AggKind::kDistinctCount: return "distinct count agg";
    case AggKind::kTopRows: return "top rows agg";
    case AggKind::kPercentiles: return "percentiles agg";
  }
  return "agg";
}

std::string GroupWhat(GroupByKind k) {
  switch (k) {
    case GroupByKind::kField: return "groupby_field";
    case GroupByKind::kRange: return "groupby_range";
    case GroupByKind::kFilter: return "groupby_filter";
    case GroupByKind::kGeoDistance: return "groupby_geo_distance";
    case GroupByKind::kHistogram: return "groupby_histogram";
    case GroupByKind::kDateHistogram: return "groupby_date_histogram";
    case GroupByKind::kGeoGrid: return "groupby_geo_grid";
    case GroupByKind::kComposite: return "groupby_composite";
  }
  return "groupby";
}

// The field types each aggregation and group-by reads (the service's: sum "allow [long,
// double]" [SDKT]; min and max Long, Double and Date [D]; the rest Chosen after them).
std::vector<T> AllowedTypes(AggKind k) {
  switch (k) {
    case AggKind::kSum: return {T::kLong, T::kDouble};
    case AggKind::kAvg:
    case AggKind::kMax:
    case AggKind::kMin:
    case AggKind::kPercentiles: return {T::kLong, T::kDouble, T::kDate};
    case AggKind::kCount:
    case AggKind::kDistinctCount: return {T::kLong, T::kDouble, T::kBoolean, T::kKeyword, T::kDate};
    case AggKind::kTopRows: return {};
  }
  return {};
}

std::vector<T> AllowedTypes(GroupByKind k) {
  switch (k) {
    case GroupByKind::kField: return {T::kLong, T::kDouble, T::kBoolean, T::kKeyword, T::kDate};
    case GroupByKind::kRange: return {T::kLong, T::kDouble, T::kDate};
    case GroupByKind::kHistogram: return {T::kLong, T::kDouble};
    case GroupByKind::kDateHistogram: return {T::kDate};
    case GroupByKind::kGeoDistance:
    case GroupByKind::kGeoGrid: return {T::kGeoPoint};
    default: return {};
  }
}

std::string AllowList(const std::vector<T>& types) {
  std::string s = "[";
  for (size_t i = 0; i < types.size(); ++i) s += (i ? ", " : "") + TypeName(types[i]);
  return s + "]";
}

Error Bad(std::string_view what, const std::string& text) {
  return Error::Validation("[" + std::string(what) + "] " + text);
}

// The field `name` of type one of `allowed`, with sort_and_agg.
Result<const model::SearchField*> TypedField(const model::SearchIndexMeta& index,
                                             std::string_view what, const std::string& name,
                                             const std::vector<T>& allowed) {
  if (name.empty()) return Bad(what, "field_name must not be empty");
  ASSIGN_OR_RETURN(f, AggField(index, what, name));
  bool ok = false;
  for (T t : allowed) ok |= t == f->type;
  if (!ok) {
    return Bad(what, "field_name:" + name + " type:" + TypeName(f->type) + " is invalid, allow " +
                         AllowList(allowed));
  }
  // The service's FAQ ("field:xx must enable enable_sort_and_agg") and its aggregation pages.
  if (!f->sort_and_agg) {
    return Bad(what, "field:" + name + " must enable enable_sort_and_agg, but " +
                         "enable_sort_and_agg is not enabled");
  }
  return f;
}

class Checker {
 public:
  explicit Checker(const model::SearchIndexMeta& index) : index_(index) {}

  Status Level(const std::vector<Aggregation>& aggs, const std::vector<GroupBy>& group_bys,
               int depth) {
    if (aggs.size() > kMaxAggsPerLevel) {
      return Error::Validation("The number of aggregations at one level exceeds the limit: " +
                               std::to_string(kMaxAggsPerLevel));
    }
    if (group_bys.size() > kMaxGroupBysPerLevel) {
      return Error::Validation("The number of group-bys at one level exceeds the limit: " +
                               std::to_string(kMaxGroupBysPerLevel));
    }
    if (!group_bys.empty() && depth >= kMaxGroupByDepth) {
      return Error::Validation("Group-bys nest deeper than the limit: " +
                               std::to_string(kMaxGroupByDepth) + " levels");
    }
    std::set<std::string> names;
    auto name = [&](const std::string& n) -> Status {
      if (n.empty()) return Error::Validation("The name of an aggregation or group-by must be set.");
      if (!names.insert(n).second) {
        return Error::Validation("Duplicate aggregation or group-by name: " + n);
      }
      return Status::Ok();
    };
    for (const auto& a : aggs) {
      RETURN_IF_ERROR(name(a.name));
      RETURN_IF_ERROR(Agg(a));
    }
    for (const auto& g : group_bys) {
      RETURN_IF_ERROR(name(g.name));
      RETURN_IF_ERROR(Group(g, depth + 1));
    }
    return Status::Ok();
  }

 private:
  Status Missing(std::string_view what, const model::SearchField& f,
                 const std::optional<CellValue>& v) {
    if (v && !AggValueOf(f.type, *v)) {
      return Bad(what, "the missing value does not fit field_name:" + f.name + " type:" +
                           TypeName(f.type));
    }
    return Status::Ok();
  }

  Status Agg(const Aggregation& a) {
    std::string what = AggWhat(a.kind);
    if (a.kind == AggKind::kTopRows) {
      if (a.limit < 1 || a.limit > kMaxTopRowsLimit) {
        return Bad(what, "limit must be in [1, " + std::to_string(kMaxTopRowsLimit) +
                             "], but was " + std::to_string(a.limit));
      }
      return ValidateSort(index_, a.sort);
    }
    ASSIGN_OR_RETURN(f, TypedField(index_, what, a.field, AllowedTypes(a.kind)));
    if (a.kind == AggKind::kCount && a.missing) return Bad(what, "missing is not supported");
    RETURN_IF_ERROR(Missing(what, *f, a.missing));
    if (a.kind == AggKind::kPercentiles) {
      if (a.percentiles.size() > kMaxPercentiles) {
        return Bad(what, "the number of percentiles exceeds the limit: " +
                             std::to_string(kMaxPercentiles));
      }
      for (double p : a.percentiles) {
        if (!(p >= 0 && p <= 100)) {
          return Bad(what, "percentiles must be in [0, 100], but was " + std::to_string(p));
        }
      }
    }
    return Status::Ok();
  }

  Status Sorters(std::string_view what, const GroupBy& g, bool key_only) {
    if (g.sort.size() > kMaxGroupSorters) {
      return Bad(what, "the number of sorters exceeds the limit: " +
                           std::to_string(kMaxGroupSorters));
    }
    for (const auto& s : g.sort) {
      if (key_only && s.kind != GroupSorter::Kind::kKey) {
        return Bad(what, "a source of a composite group-by sorts by its key only");
      }
      if (s.kind != GroupSorter::Kind::kSubAgg) continue;
      const Aggregation* sub = nullptr;
      for (const auto& a : g.sub_aggs) {
        if (a.name == s.sub_agg) sub = &a;
      }
      if (!sub) return Bad(what, "sub_agg_sort: sub aggregation [" + s.sub_agg + "] is not found");
      if (!IsSingleValue(sub->kind)) {
        return Bad(what, "sub_agg_sort: sub aggregation [" + s.sub_agg +
                             "] is not a single-value aggregation");
      }
    }
    return Status::Ok();
  }

  Status MinDocCount(std::string_view what, const GroupBy& g) {
    if (g.min_doc_count && *g.min_doc_count < 0) {
      return Bad(what, "min_doc_count must be >= 0, but was " + std::to_string(*g.min_doc_count));
    }
    return Status::Ok();
  }

  // A composite's source needs no field_range (its groups are paged by next_token).
  Status Histogram(std::string_view what, const GroupBy& g, const model::SearchField& f,
                   bool source) {
    if (!g.interval) return Bad(what, "interval must be set");
    auto interval = AggNumber(*g.interval);
    if (!interval || !(*interval > 0)) return Bad(what, "interval must be a number > 0");
    if (g.offset && !AggNumber(*g.offset)) return Bad(what, "offset must be a number");
    RETURN_IF_ERROR(Missing(what, f, g.missing));
    if (source && !g.range_min && !g.range_max) return Status::Ok();
    if (!g.range_min || !g.range_max) return Bad(what, "field_range must be set");
    auto lo = AggNumber(*g.range_min), hi = AggNumber(*g.range_max);
    if (!lo || !hi) return Bad(what, "field_range min and max must be numbers");
    if (*lo > *hi) return Bad(what, "field_range min must not be above max");
    if ((*hi - *lo) / *interval > double(kMaxHistogramGroups)) {
      return Bad(what, "(field_range.max - field_range.min) / interval must not exceed " +
                           std::to_string(kMaxHistogramGroups));
    }
    return Status::Ok();
  }

  Status DateHistogram(std::string_view what, const GroupBy& g, const model::SearchField& f,
                       bool source) {
    if (g.date_interval.value < 1) return Bad(what, "interval must be set, with a value >= 1");
    if (g.date_offset && !FixedMillis(*g.date_offset)) {
      return Bad(what, "offset must be in weeks, days, hours, minutes, seconds or milliseconds");
    }
    auto is_ms = [](const std::optional<CellValue>& v) {
      return !v || v->type == CellType::kInteger;
    };
    // String dates are not parsed here (docs/tablestore.md, "What a document holds").
    if (!is_ms(g.missing) || !is_ms(g.range_min) || !is_ms(g.range_max)) {
      return Bad(what, "missing and field_range of a Date field are integer milliseconds: "
                       "string dates are not supported by ttlstore");
    }
    RETURN_IF_ERROR(Missing(what, f, g.missing));
    if (source && !g.range_min && !g.range_max) return Status::Ok();
    if (!g.range_min || !g.range_max) return Bad(what, "field_range must be set");
    if (g.range_min->integer > g.range_max->integer) {
      return Bad(what, "field_range min must not be above max");
    }
    int64_t offset = g.date_offset ? *FixedMillis(*g.date_offset) : 0;
    DateRounding r(g.date_interval, offset, g.time_zone_ms);
    int64_t at = r.Floor(g.range_min->integer);
    for (int64_t n = 0; at <= g.range_max->integer; ++n) {
      if (n > kMaxHistogramGroups) {
        return Bad(what, "(field_range.max - field_range.min) / interval must not exceed " +
                             std::to_string(kMaxHistogramGroups));
      }
      int64_t next = r.Next(at);
      if (next <= at) break;
      at = next;
    }
    return Status::Ok();
  }

  Status Composite(std::string_view what, const GroupBy& g) {
    if (g.sources.empty()) return Bad(what, "sources must not be empty");
    if (g.sources.size() > kMaxCompositeSources) {
      return Bad(what, "the number of sources exceeds the limit: " +
                           std::to_string(kMaxCompositeSources));
    }
    if (g.size < 1 || g.size > kMaxGroupSize) {
      return Bad(what, "size must be in [1, " + std::to_string(kMaxGroupSize) + "], but was " +
                           std::to_string(g.size));
    }
    std::set<std::string> names;
    for (const auto& s : g.sources) {
      if (s.kind != GroupByKind::kField && s.kind != GroupByKind::kHistogram &&
          s.kind != GroupByKind::kDateHistogram) {
        return Bad(what, "a source must be a GroupByField, GroupByHistogram or "
                         "GroupByDateHistogram");
      }
      if (s.name.empty()) return Bad(what, "the name of a source must be set");
      if (!names.insert(s.name).second) return Bad(what, "duplicate source name: " + s.name);
      if (!s.sub_aggs.empty() || !s.sub_group_bys.empty()) {
        return Bad(what, "a source has no sub-aggregations or sub-group-bys");
      }
      RETURN_IF_ERROR(Group(s, 0, /*source=*/true));
    }
    return Status::Ok();
  }

  Status Group(const GroupBy& g, int depth, bool source = false) {
    std::string what = GroupWhat(g.kind);
    switch (g.kind) {
      case GroupByKind::kGeoDistance: {
        ASSIGN_OR_RETURN(f, TypedField(index_, what, g.field, AllowedTypes(g.kind)));
        (void)f;
        if (!g.origin) return Bad(what, "origin must be set");
        if (!(g.origin->lat >= -90 && g.origin->lat <= 90 && g.origin->lon >= -180 &&
              g.origin->lon <= 180)) {
          return Bad(what, "origin is not a valid point: latitude must be in [-90, 90] and "
                           "longitude in [-180, 180]");
        }
        if (g.ranges.empty()) return Bad(what, "ranges must not be empty");
        if (g.ranges.size() > kMaxGroupByRanges) {
          return Bad(what, "the number of ranges exceeds the limit: " +
                               std::to_string(kMaxGroupByRanges));
        }
        for (const auto& r : g.ranges) {
          if (std::isnan(r.from) || std::isnan(r.to)) return Bad(what, "a range bound is NaN");
        }
        break;
      }
      case GroupByKind::kGeoGrid: {
        ASSIGN_OR_RETURN(f, TypedField(index_, what, g.field, AllowedTypes(g.kind)));
        (void)f;
        if (g.precision < 1 || g.precision > kMaxGeoHashLength) {
          return Bad(what, "precision must be set to a GeoHashPrecision (1 to " +
                               std::to_string(kMaxGeoHashLength) + ")");
        }
        if (g.size < 1 || g.size > kMaxGroupSize) {
          return Bad(what, "size must be in [1, " + std::to_string(kMaxGroupSize) +
                               "], but was " + std::to_string(g.size));
        }
        break;
      }
      case GroupByKind::kField: {
        ASSIGN_OR_RETURN(f, TypedField(index_, what, g.field, AllowedTypes(g.kind)));
        (void)f;
        if (!source && (g.size < 1 || g.size > kMaxGroupSize)) {
          return Bad(what, "size must be in [1, " + std::to_string(kMaxGroupSize) +
                               "], but was " + std::to_string(g.size));
        }
        RETURN_IF_ERROR(MinDocCount(what, g));
        RETURN_IF_ERROR(Sorters(what, g, source));
        break;
      }
      case GroupByKind::kRange: {
        ASSIGN_OR_RETURN(f, TypedField(index_, what, g.field, AllowedTypes(g.kind)));
        (void)f;
        if (g.ranges.empty()) return Bad(what, "ranges must not be empty");
        if (g.ranges.size() > kMaxGroupByRanges) {
          return Bad(what, "the number of ranges exceeds the limit: " +
                               std::to_string(kMaxGroupByRanges));
        }
        for (const auto& r : g.ranges) {
          if (std::isnan(r.from) || std::isnan(r.to)) return Bad(what, "a range bound is NaN");
        }
        break;
      }
      case GroupByKind::kFilter: {
        if (g.filters.empty()) return Bad(what, "filters must not be empty");
        if (g.filters.size() > kMaxGroupByFilters) {
          return Bad(what, "the number of filters exceeds the limit: " +
                               std::to_string(kMaxGroupByFilters));
        }
        for (const auto& q : g.filters) RETURN_IF_ERROR(ValidateQuery(index_, q));
        break;
      }
      case GroupByKind::kHistogram: {
        ASSIGN_OR_RETURN(f, TypedField(index_, what, g.field, AllowedTypes(g.kind)));
        RETURN_IF_ERROR(MinDocCount(what, g));
        RETURN_IF_ERROR(Sorters(what, g, source));
        RETURN_IF_ERROR(Histogram(what, g, *f, source));
        break;
      }
      case GroupByKind::kDateHistogram: {
        ASSIGN_OR_RETURN(f, TypedField(index_, what, g.field, AllowedTypes(g.kind)));
        RETURN_IF_ERROR(MinDocCount(what, g));
        RETURN_IF_ERROR(Sorters(what, g, source));
        RETURN_IF_ERROR(DateHistogram(what, g, *f, source));
        break;
      }
      case GroupByKind::kComposite:
        if (source) return Bad(what, "a source must not be a composite group-by");
        RETURN_IF_ERROR(Composite(what, g));
        break;
    }
    if (source) return Status::Ok();
    return Level(g.sub_aggs, g.sub_group_bys, depth);
  }

  const model::SearchIndexMeta& index_;
};

}  // namespace

bool IsSingleValue(AggKind k) {
  return k != AggKind::kTopRows && k != AggKind::kPercentiles;
}

Result<const model::SearchField*> AggField(const model::SearchIndexMeta& index,
                                           std::string_view what, const std::string& name) {
  if (const model::SearchField* f = index.FindField(name)) return f;
  // "n.nl": a field of the Nested field "n" (issue 32's geo32 part adds Nested fields; their
  // values are another source, not read here).
  if (auto dot = name.find('.'); dot != std::string::npos && index.FindField(name.substr(0, dot))) {
    return Bad(what, "field: " + name + " is inside a Nested field: aggregations and group-bys "
                     "on Nested fields are not supported by ttlstore.");
  }
  return Bad(what, "field: " + name + " does not exist");
}

std::optional<CellValue> AggValueOf(SearchFieldType t, const CellValue& v) {
  if ((t == T::kLong || t == T::kDate) && v.type == CellType::kDouble) {
    // Elasticsearch coerces a decimal given for a long field to its integer part.
    if (!std::isfinite(v.dbl) || std::fabs(v.dbl) >= 9.2e18) return std::nullopt;
    return CellValue::Integer(int64_t(std::trunc(v.dbl)));
  }
  auto out = QueryValueOf(t, v);
  if (out && t == T::kDouble && out->type == CellType::kInteger) {
    return CellValue::Double(double(out->integer));
  }
  if (out && t == T::kDouble && !std::isfinite(out->dbl)) return std::nullopt;
  return out;
}

std::optional<double> AggNumber(const CellValue& v) {
  if (v.type == CellType::kInteger) return double(v.integer);
  if (v.type == CellType::kDouble && std::isfinite(v.dbl)) return v.dbl;
  return std::nullopt;
}

Status ValidateAggregations(const model::SearchIndexMeta& index, const AggRequest& req) {
  return Checker(index).Level(req.aggs, req.group_bys, 0);
}

}  // namespace ttlstore::search
