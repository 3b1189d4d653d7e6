// The geometry of GeoPoint fields (issue 32; docs/search-engine.md, "Geo points"): the service's
// "latitude,longitude" text, the 32-bit-per-axis grid a point is kept at, distances, and the
// three query regions (a circle, a latitude/longitude box, a polygon), each with an exact test of
// a point and a conservative relation to a rectangle of the grid (search/geo_cells.h covers a
// region with cells from it).
//
// A point is kept quantized, as the service keeps it: latitude as floor(lat / (180 / 2^32)),
// longitude as floor(lon / (360 / 2^32)), each an int32 (90 and 180, which would overflow, are
// the largest codes). Its decoded value (code * step, exact in a double) is the point every query
// and sort sees. The service shows the same grid: the Python SDK's search_index_test, run
// against the service, finds 500 rows in a box whose bottom edge is latitude 30.2 where 100 more
// rows were written at "30.200000,...": their quantized latitude lies just below the edge.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

namespace ttlstore::search {

struct GeoPoint {
  double lat = 0;  // degrees, [-90, 90]
  double lon = 0;  // degrees, [-180, 180]
};

// A point on the grid: the quantized latitude and longitude.
struct GeoCode {
  int32_t lat = 0;
  int32_t lon = 0;
  friend bool operator==(const GeoCode&, const GeoCode&) = default;
};

// The mean Earth radius distances are measured on (meters).
inline constexpr double kEarthRadiusM = 6371008.7714;
// Grid steps in degrees: exact binary fractions (45 * 2^-30 and 45 * 2^-29).
inline constexpr double kLatStep = 180.0 / 4294967296.0;
inline constexpr double kLonStep = 360.0 / 4294967296.0;

// "lat,lon": two decimal numbers (an optional sign, digits, an optional fraction and exponent)
// separated by a comma, spaces allowed around each; latitude in [-90, 90], longitude in
// [-180, 180]. nullopt for anything else.
std::optional<GeoPoint> ParseGeoPoint(std::string_view text);

int32_t EncodeLat(double lat);      // floor, clamped to the int32 range
int32_t EncodeLatCeil(double lat);  // ceil, clamped
int32_t EncodeLon(double lon);
int32_t EncodeLonCeil(double lon);
inline GeoCode EncodeGeo(GeoPoint p) { return GeoCode{EncodeLat(p.lat), EncodeLon(p.lon)}; }
inline GeoPoint DecodeGeo(GeoCode c) { return GeoPoint{c.lat * kLatStep, c.lon * kLonStep}; }

// Great-circle distance in meters (haversine on kEarthRadiusM).
double ArcDistance(GeoPoint a, GeoPoint b);
// The equirectangular approximation (GeoDistanceType PLANE): the longitude difference (taken
// the short way round) scaled by the cosine of the mean latitude, and the latitude difference,
// as a plane distance on kEarthRadiusM.
double PlaneDistance(GeoPoint a, GeoPoint b);

// A rectangle of the grid, inclusive on every side: codes lat_lo..lat_hi, lon_lo..lon_hi.
struct CodeRect {
  int64_t lat_lo = 0, lat_hi = 0, lon_lo = 0, lon_hi = 0;
};

enum class GeoRelation : uint8_t {
  kDisjoint,  // no point of the rectangle is in the region
  kWithin,    // every point of the rectangle is in the region
  kCrosses,   // either may hold (the points must be tested one by one)
};

class GeoRegion {
 public:
  virtual ~GeoRegion() = default;
  // Whether the grid point is in the region (exact on its decoded value).
  virtual bool Contains(GeoCode c) const = 0;
  // Conservative: kWithin and kDisjoint are only said when certain.
  virtual GeoRelation Relate(const CodeRect& r) const = 0;
};

// Points within `meters` (arc distance, inclusive) of `center`. REQUIRES: meters >= 0, finite.
std::shared_ptr<const GeoRegion> MakeGeoCircle(GeoPoint center, double meters);
// Points with latitude in [bottom_right.lat, top_left.lat] and longitude from top_left.lon
// eastward to bottom_right.lon: a box whose left longitude is greater than its right one crosses
// the antimeridian. Bounds are compared on the grid (a bound's own code rounds inward).
// REQUIRES: top_left.lat >= bottom_right.lat.
std::shared_ptr<const GeoRegion> MakeGeoBox(GeoPoint top_left, GeoPoint bottom_right);
// Points inside the polygon of `vertices` (closed implicitly; a last vertex equal to the first is
// the same polygon), its edges straight lines in the latitude/longitude plane, as the service's
// Lucene-based polygon query: a polygon does not wrap around the antimeridian. Inside by the
// even-odd rule. REQUIRES: at least 3 vertices.
std::shared_ptr<const GeoRegion> MakeGeoPolygon(std::vector<GeoPoint> vertices);

// The smallest and largest arc distance (meters) from `c` to the points of the closed rectangle
// [lat0, lat1] x [lon0, lon1] (degrees; lon0 <= lon1, both within [-180, 180]). Exposed for
// tests.
void ArcDistanceBounds(GeoPoint c, double lat0, double lat1, double lon0, double lon1,
                       double* lo, double* hi);

}  // namespace ttlstore::search
