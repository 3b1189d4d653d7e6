#include "search/sort_values.h"

#include <algorithm>
#include <cmath>

#include "search/document.h"
#include "search/field_ref.h"
#include "search/geo_field.h"
#include "search/nested_eval.h"
#include "search/query_builder.h"
#include "search/terms.h"

namespace ttlstore::search {
namespace {

using model::CellType;
using model::CellValue;
using model::SearchFieldType;
using Mode = SortKey::Mode;

constexpr size_t kMaxSortPoints = 1000;  // Chosen: the service documents no bound

bool IsNumeric(SearchFieldType t) {
  return t == SearchFieldType::kLong || t == SearchFieldType::kDouble ||
         t == SearchFieldType::kDate;
}

Mode EffectiveMode(const SortKey& k) {
  if (k.mode != Mode::kDefault) return k.mode;
  return k.key.descending ? Mode::kMax : Mode::kMin;
}

// The sub-documents (or the row, for a top-level field) whose values count for `k`.
class ValueSource {
 public:
  ValueSource(const model::SearchIndexMeta& index, const SortKey& k)
      : ref_(*ResolveField(index, k.key.field)), top_(&index.fields[ref_.top]) {
    if (!ref_.scope.empty() && !k.nested_filter.empty()) {
      filter_ = NestedMatcher::Compile(index, *ResolveField(index, ref_.scope), k.nested_filter[0]);
    }
  }
  const FieldRef& ref() const { return ref_; }

  // The field's values in `doc`: points for a GeoPoint field, else values.
  void Collect(const Xapian::Document& doc, std::vector<GeoCode>* points,
               std::vector<CellValue>* values) const {
    std::string slot = doc.get_value(kSlotFieldBase + Xapian::valueno(ref_.top));
    if (ref_.steps.empty()) {  // a top-level GeoPoint field
      *points = DecodeGeoSlot(slot);
      return;
    }
    std::vector<NestedDoc> top;
    if (!DecodeNestedSlot(*top_, slot, &top)) return;
    std::vector<const NestedDoc*> start, docs;
    for (const auto& d : top) start.push_back(&d);
    std::span<const size_t> steps(ref_.steps);
    DescendNested(start, steps.first(steps.size() - 1), &docs);
    size_t j = ref_.steps.back();
    for (const NestedDoc* d : docs) {
      double score;
      if (filter_ && !filter_->Match(*d, &score)) continue;
      if (j >= d->fields.size()) continue;
      const auto& f = d->fields[j];
      points->insert(points->end(), f.points.begin(), f.points.end());
      values->insert(values->end(), f.values.begin(), f.values.end());
    }
  }

 private:
  FieldRef ref_;
  const model::SearchField* top_;
  std::shared_ptr<const NestedMatcher> filter_;
};

std::string DoubleForm(double d) { return std::string(1, '\x01') + KeyBytes(DoubleKey(d)); }

}  // namespace

bool IsSlotSort(const model::SearchIndexMeta& index, const SortKey& k) {
  if (k.geo || !k.nested_path.empty() || !k.nested_filter.empty()) return true;
  auto ref = ResolveField(index, k.key.field);
  if (!ref) return k.key.field.find('.') != std::string::npos;
  return !ref->steps.empty() || ref->field->type == SearchFieldType::kGeoPoint ||
         ref->field->type == SearchFieldType::kNested;
}

Status ValidateSlotSort(const model::SearchIndexMeta& index, const SortKey& k) {
  const std::string& name = k.key.field;
  auto ref = ResolveField(index, name);
  if (!ref) return Error::Validation("field:" + name + " is not found in index schema");
  const model::SearchField& f = *ref->field;
  std::string type = TypeName(f.type);
  if (k.geo) {
    if (f.type != SearchFieldType::kGeoPoint) {
      return Error::Validation("GeoDistanceSort is only supported on GEO_POINT fields, field:" +
                               name + " type:" + type);
    }
    if (k.geo_points.empty()) {
      return Error::Validation("[geo_distance_sort] points must not be empty");
    }
    if (k.geo_points.size() > kMaxSortPoints) {
      return Error::Validation("[geo_distance_sort] points must hold at most " +
                               std::to_string(kMaxSortPoints) + " points");
    }
  } else if (f.type == SearchFieldType::kGeoPoint) {
    return Error::Validation("field:" + name + " type:GEO_POINT can not be sorted by FieldSort: "
                             "use GeoDistanceSort");
  } else if (f.type == SearchFieldType::kNested) {
    return Error::Validation("field:" + name + " is a NESTED field: sort by one of its "
                             "sub-fields");
  }
  if (!f.sort_and_agg || f.type == SearchFieldType::kText) {
    return Error::Validation("field:" + name + " must enable enable_sort_and_agg, but " +
                             "enable_sort_and_agg is not enabled");
  }
  if (!k.geo && k.mode == Mode::kAvg && !IsNumeric(f.type)) {
    return Error::Validation("field:" + name + " type:" + type +
                             ": sort mode AVG is only for numeric fields");
  }
  if (k.missing_value && (k.geo || !QueryValueOf(f.type, *k.missing_value))) {
    return Error::Validation("field:" + name + " missing value type does not match the field type");
  }
  if (!k.missing_field.empty()) {
    return Error::Validation("missing_field is not supported on field:" + name +
                             " (a sub-field of a NESTED field or a GeoDistanceSort)");
  }
  if (ref->scope.empty()) {
    if (!k.nested_path.empty() || !k.nested_filter.empty()) {
      return Error::Validation("[nested_filter] field:" + name + " is not in a NESTED field");
    }
    return Status::Ok();
  }
  if (!k.nested_path.empty() && k.nested_path != ref->scope) {
    return Error::Validation("[nested_filter] path must be " + ref->scope +
                             ", the nested path of field:" + name + ", but was " + k.nested_path);
  }
  if (!k.nested_filter.empty()) {
    RETURN_IF_ERROR(ValidateScopedQuery(index, k.nested_filter[0], QueryScope{ref->scope, false}));
  }
  return Status::Ok();
}

SortValueFn MakeSlotSortValue(const model::SearchIndexMeta& index, const SortKey& k) {
  auto source = std::make_shared<const ValueSource>(index, k);
  Mode mode = EffectiveMode(k);
  if (k.geo) {
    std::vector<GeoPoint> origins = k.geo_points;
    bool plane = k.plane;
    return [source, origins, plane, mode](const Xapian::Document& doc) -> std::string {
      std::vector<GeoCode> points;
      std::vector<CellValue> unused;
      source->Collect(doc, &points, &unused);
      if (points.empty()) return std::string();
      double lo = INFINITY, hi = 0, sum = 0;
      size_t n = 0;
      for (const auto& c : points) {
        GeoPoint p = DecodeGeo(c);
        for (const auto& o : origins) {
          double d = plane ? PlaneDistance(o, p) : ArcDistance(o, p);
          lo = std::min(lo, d);
          hi = std::max(hi, d);
          sum += d;
          ++n;
        }
      }
      return DoubleForm(mode == Mode::kMin ? lo : mode == Mode::kMax ? hi : sum / double(n));
    };
  }
  const model::SearchField* f = source->ref().field;
  return [source, f, mode](const Xapian::Document& doc) -> std::string {
    std::vector<GeoCode> unused;
    std::vector<CellValue> values;
    source->Collect(doc, &unused, &values);
    if (values.empty()) return std::string();
    if (mode == Mode::kAvg) {
      double sum = 0;
      for (const auto& v : values) sum += v.type == CellType::kInteger ? double(v.integer) : v.dbl;
      return DoubleForm(sum / double(values.size()));
    }
    std::string best;
    for (const auto& v : values) {
      std::string form = SortValue(*f, v);
      if (best.empty() || (mode == Mode::kMin ? form < best : form > best)) best = std::move(form);
    }
    return best;
  };
}

std::string SlotSortMissingValue(const model::SearchIndexMeta& index, const SortKey& k) {
  if (!k.missing_value || k.geo) return std::string();
  auto ref = ResolveField(index, k.key.field);
  auto v = QueryValueOf(ref->field->type, *k.missing_value);
  if (!v) return std::string();
  if (EffectiveMode(k) == Mode::kAvg) {
    return DoubleForm(v->type == CellType::kInteger ? double(v->integer) : v->dbl);
  }
  return SortValue(*ref->field, *v);
}

}  // namespace ttlstore::search
