#include "search/geo_query.h"

#include <cmath>

#include "search/geo_cells.h"
#include "search/geo_field.h"
#include "search/slot_source.h"
#include "search/terms.h"

namespace ttlstore::search {
namespace {

size_t PolygonVertices(const std::vector<GeoPoint>& p) {
  size_t n = p.size();
  if (n > 3 && p.front().lat == p.back().lat && p.front().lon == p.back().lon) --n;
  return n;
}

std::string Num(double d) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", d);
  return buf;
}

Xapian::Query OrOf(const std::string& key, const std::vector<GeoCell>& cells) {
  std::vector<std::string> terms;
  terms.reserve(cells.size());
  for (const auto& c : cells) terms.push_back(GeoCellTerm(key, c));
  if (terms.empty()) return Xapian::Query::MatchNothing;
  return Xapian::Query(Xapian::Query::OP_OR, terms.begin(), terms.end());
}

}  // namespace

Status ValidateGeoQuery(const Query& q) {
  switch (q.kind) {
    case Query::Kind::kGeoDistance:
      if (q.points.size() != 1) {
        return Error::Validation("[geo_distance_query] center_point must be set");
      }
      if (!std::isfinite(q.distance) || q.distance <= 0) {
        return Error::Validation("[geo_distance_query] distance must be greater than 0, but was " +
                                 Num(q.distance));
      }
      return Status::Ok();
    case Query::Kind::kGeoBoundingBox:
      if (q.points.size() != 2) {
        return Error::Validation("[geo_bounding_box_query] top_left and bottom_right must be set");
      }
      if (q.points[0].lat < q.points[1].lat) {
        return Error::Validation("[geo_bounding_box_query] the latitude of top_left (" +
                                 Num(q.points[0].lat) + ") is below the latitude of bottom_right (" +
                                 Num(q.points[1].lat) + ")");
      }
      return Status::Ok();
    case Query::Kind::kGeoPolygon: {
      size_t n = PolygonVertices(q.points);
      if (n < 3) {
        return Error::Validation("[geo_polygon_query] points must hold at least 3 vertices, but "
                                 "held " + std::to_string(n));
      }
      if (q.points.size() > kMaxPolygonPoints) {
        return Error::Validation("[geo_polygon_query] points must hold at most " +
                                 std::to_string(kMaxPolygonPoints) + " vertices, but held " +
                                 std::to_string(q.points.size()));
      }
      return Status::Ok();
    }
    default: return Status::Ok();
  }
}

std::shared_ptr<const GeoRegion> RegionOf(const Query& q) {
  switch (q.kind) {
    case Query::Kind::kGeoDistance: return MakeGeoCircle(q.points[0], q.distance);
    case Query::Kind::kGeoBoundingBox: return MakeGeoBox(q.points[0], q.points[1]);
    default: return MakeGeoPolygon(q.points);
  }
}

Xapian::Query BuildGeoQuery(const FieldRef& ref, const Query& q, bool exact) {
  std::shared_ptr<const GeoRegion> region = RegionOf(q);
  GeoCovering cover = CoverRegion(*region);
  Xapian::Query out;
  if (!exact) {
    cover.within.insert(cover.within.end(), cover.crossing.begin(), cover.crossing.end());
    out = OrOf(ref.key, cover.within);
  } else {
    auto test = std::make_shared<const SlotTestSource::Test>(
        [region](std::string_view value, double* weight) {
          *weight = 0;
          for (const auto& c : DecodeGeoSlot(value)) {
            if (region->Contains(c)) return true;
          }
          return false;
        });
    Xapian::Query edge(Xapian::Query::OP_FILTER,
                       Xapian::Query((new SlotTestSource(kSlotFieldBase + Xapian::valueno(ref.top),
                                                         test, 0))
                                         ->release()),
                       OrOf(ref.key, cover.crossing));
    if (cover.crossing.empty()) edge = Xapian::Query::MatchNothing;
    out = Xapian::Query(Xapian::Query::OP_OR, OrOf(ref.key, cover.within), edge);
  }
  return Xapian::Query(Xapian::Query::OP_SCALE_WEIGHT, out, 0.0);
}

}  // namespace ttlstore::search
