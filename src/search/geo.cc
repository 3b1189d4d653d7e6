#include "search/geo.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <numbers>

namespace ttlstore::search {
namespace {

constexpr double kRad = std::numbers::pi / 180.0;
constexpr double kMaxCode = 2147483647.0;
constexpr double kMinCode = -2147483648.0;

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// A decimal number: [+-] digits [. digits] [(e|E) [+-] digits], at least one digit before the
// exponent.
std::optional<double> ParseNumber(std::string_view s) {
  s = Trim(s);
  if (s.empty() || s.size() > 64) return std::nullopt;
  size_t i = 0, digits = 0;
  if (s[i] == '+' || s[i] == '-') ++i;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++digits;
  }
  if (digits == 0) return std::nullopt;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    size_t exp_digits = 0;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++exp_digits;
    if (exp_digits == 0) return std::nullopt;
  }
  if (i != s.size()) return std::nullopt;
  std::string_view body = s;
  if (body.front() == '+') body.remove_prefix(1);
  double d = 0;
  auto [end, ec] = std::from_chars(body.data(), body.data() + body.size(), d);
  if (ec != std::errc() || end != body.data() + body.size() || !std::isfinite(d)) {
    return std::nullopt;
  }
  return d;
}

int32_t Clamp(double v) {
  if (v >= kMaxCode) return INT32_MAX;
  if (v <= kMinCode) return INT32_MIN;
  return static_cast<int32_t>(v);
}

double Hav(double x) {
  double s = std::sin(x / 2);
  return s * s;
}

// The longitude `lon` (degrees, any) moved by whole turns into [lo, hi], if some turn lands
// there.
std::optional<double> LonIn(double lon, double lo, double hi) {
  for (double v : {lon, lon - 360.0, lon + 360.0}) {
    if (v >= lo && v <= hi) return v;
  }
  return std::nullopt;
}

class Circle : public GeoRegion {
 public:
  Circle(GeoPoint c, double m) : center_(c), meters_(m) {
    // Rectangles closer to the edge than this are tested point by point: it covers the
    // rounding of the bound computation many times over.
    margin_ = 0.01 + meters_ * 1e-9;
  }
  bool Contains(GeoCode c) const override { return ArcDistance(center_, DecodeGeo(c)) <= meters_; }
  GeoRelation Relate(const CodeRect& r) const override {
    double lo, hi;
    ArcDistanceBounds(center_, double(r.lat_lo) * kLatStep, double(r.lat_hi) * kLatStep,
                      double(r.lon_lo) * kLonStep, double(r.lon_hi) * kLonStep, &lo, &hi);
    if (hi <= meters_ - margin_) return GeoRelation::kWithin;
    if (lo > meters_ + margin_) return GeoRelation::kDisjoint;
    return GeoRelation::kCrosses;
  }

 private:
  GeoPoint center_;
  double meters_;
  double margin_;
};

// Exact on the grid: every comparison is between integer codes.
class Box : public GeoRegion {
 public:
  Box(GeoPoint top_left, GeoPoint bottom_right) {
    lat_lo_ = EncodeLatCeil(bottom_right.lat);
    lat_hi_ = EncodeLat(top_left.lat);
    int64_t left = EncodeLonCeil(top_left.lon), right = EncodeLon(bottom_right.lon);
    if (top_left.lon <= bottom_right.lon) {
      lons_.push_back({left, right});
    } else {  // across the antimeridian
      lons_.push_back({left, INT32_MAX});
      lons_.push_back({INT32_MIN, right});
    }
  }
  bool Contains(GeoCode c) const override {
    if (c.lat < lat_lo_ || c.lat > lat_hi_) return false;
    for (const auto& [lo, hi] : lons_) {
      if (c.lon >= lo && c.lon <= hi) return true;
    }
    return false;
  }
  GeoRelation Relate(const CodeRect& r) const override {
    if (r.lat_hi < lat_lo_ || r.lat_lo > lat_hi_) return GeoRelation::kDisjoint;
    bool lat_within = r.lat_lo >= lat_lo_ && r.lat_hi <= lat_hi_;
    bool any = false;
    for (const auto& [lo, hi] : lons_) {
      if (r.lon_hi < lo || r.lon_lo > hi) continue;
      any = true;
      if (lat_within && r.lon_lo >= lo && r.lon_hi <= hi) return GeoRelation::kWithin;
    }
    return any ? GeoRelation::kCrosses : GeoRelation::kDisjoint;
  }

 private:
  int64_t lat_lo_ = 0, lat_hi_ = 0;
  std::vector<std::pair<int64_t, int64_t>> lons_;
};

class Polygon : public GeoRegion {
 public:
  explicit Polygon(std::vector<GeoPoint> v) : v_(std::move(v)) {
    if (v_.size() > 3 && v_.front().lat == v_.back().lat && v_.front().lon == v_.back().lon) {
      v_.pop_back();
    }
  }
  bool Contains(GeoCode c) const override {
    GeoPoint p = DecodeGeo(c);
    return Inside(p.lat, p.lon);
  }
  GeoRelation Relate(const CodeRect& r) const override {
    // The rectangle grown by a hair, so that an edge that misses the grown rectangle is clearly
    // away from every point of the real one and the even-odd test is the same for all of them.
    constexpr double kEps = 1e-9;
    double lat0 = double(r.lat_lo) * kLatStep - kEps, lat1 = double(r.lat_hi) * kLatStep + kEps;
    double lon0 = double(r.lon_lo) * kLonStep - kEps, lon1 = double(r.lon_hi) * kLonStep + kEps;
    for (size_t i = 0; i < v_.size(); ++i) {
      const GeoPoint& a = v_[i];
      const GeoPoint& b = v_[(i + 1) % v_.size()];
      if (SegmentMeetsRect(a, b, lat0, lat1, lon0, lon1)) return GeoRelation::kCrosses;
    }
    bool in = Inside((double(r.lat_lo) + double(r.lat_hi)) / 2 * kLatStep,
                     (double(r.lon_lo) + double(r.lon_hi)) / 2 * kLonStep);
    return in ? GeoRelation::kWithin : GeoRelation::kDisjoint;
  }

 private:
  // Even-odd rule: a ray toward growing longitude crosses edges whose latitude span holds `lat`
  // (half-open at the upper end, so a vertex is counted once).
  bool Inside(double lat, double lon) const {
    bool in = false;
    for (size_t i = 0, j = v_.size() - 1; i < v_.size(); j = i++) {
      const GeoPoint& a = v_[i];
      const GeoPoint& b = v_[j];
      if ((a.lat > lat) != (b.lat > lat)) {
        double x = a.lon + (lat - a.lat) * (b.lon - a.lon) / (b.lat - a.lat);
        if (lon < x) in = !in;
      }
    }
    return in;
  }
  // Liang-Barsky clipping of segment a-b against the rectangle.
  static bool SegmentMeetsRect(GeoPoint a, GeoPoint b, double lat0, double lat1, double lon0,
                               double lon1) {
    double t0 = 0, t1 = 1;
    double dx = b.lon - a.lon, dy = b.lat - a.lat;
    auto clip = [&](double p, double q) {
      if (p == 0) return q >= 0;
      double t = q / p;
      if (p < 0) {
        if (t > t1) return false;
        t0 = std::max(t0, t);
      } else {
        if (t < t0) return false;
        t1 = std::min(t1, t);
      }
      return true;
    };
    return clip(-dx, a.lon - lon0) && clip(dx, lon1 - a.lon) && clip(-dy, a.lat - lat0) &&
           clip(dy, lat1 - a.lat) && t0 <= t1;
  }

  std::vector<GeoPoint> v_;
};

}  // namespace

std::optional<GeoPoint> ParseGeoPoint(std::string_view text) {
  size_t comma = text.find(',');
  if (comma == std::string_view::npos || text.find(',', comma + 1) != std::string_view::npos) {
    return std::nullopt;
  }
  auto lat = ParseNumber(text.substr(0, comma));
  auto lon = ParseNumber(text.substr(comma + 1));
  if (!lat || !lon || *lat < -90 || *lat > 90 || *lon < -180 || *lon > 180) return std::nullopt;
  return GeoPoint{*lat, *lon};
}

int32_t EncodeLat(double lat) { return Clamp(std::floor(lat / kLatStep)); }
int32_t EncodeLatCeil(double lat) { return Clamp(std::ceil(lat / kLatStep)); }
int32_t EncodeLon(double lon) { return Clamp(std::floor(lon / kLonStep)); }
int32_t EncodeLonCeil(double lon) { return Clamp(std::ceil(lon / kLonStep)); }

double ArcDistance(GeoPoint a, GeoPoint b) {
  double p1 = a.lat * kRad, p2 = b.lat * kRad;
  double h = Hav(p2 - p1) + std::cos(p1) * std::cos(p2) * Hav((b.lon - a.lon) * kRad);
  return 2 * kEarthRadiusM * std::asin(std::sqrt(std::clamp(h, 0.0, 1.0)));
}

double PlaneDistance(GeoPoint a, GeoPoint b) {
  double dlon = b.lon - a.lon;
  if (dlon > 180) dlon -= 360;
  if (dlon < -180) dlon += 360;
  double x = dlon * kRad * std::cos((a.lat + b.lat) / 2 * kRad);
  double y = (b.lat - a.lat) * kRad;
  return std::sqrt(x * x + y * y) * kEarthRadiusM;
}

void ArcDistanceBounds(GeoPoint c, double lat0, double lat1, double lon0, double lon1,
                       double* lo, double* hi) {
  // On a meridian at longitude m, cos(central angle) = A sin(lat) + B cos(lat) with
  // A = sin(c.lat), B = cos(c.lat) cos(m - c.lon): its extremes over [lat0, lat1] are at the
  // ends or where atan2(A, B) (+- pi) falls inside. Across longitudes, at each latitude the
  // nearest point is on the meridian of c (or the rectangle's edge nearer to it) and the
  // farthest on the antimeridian of c (or the other edge), so these few meridians hold both
  // extremes; each candidate's distance is then measured with the haversine formula.
  double a = std::sin(c.lat * kRad);
  auto scan = [&](double m, double* best, bool want_min) {
    double b = std::cos(c.lat * kRad) * std::cos((m - c.lon) * kRad);
    double crit = std::atan2(a, b) / kRad;
    for (double lat : {lat0, lat1, crit, crit - 180.0, crit + 180.0}) {
      if (lat < lat0 || lat > lat1) continue;
      double d = ArcDistance(c, GeoPoint{lat, m});
      *best = want_min ? std::min(*best, d) : std::max(*best, d);
    }
  };
  *lo = INFINITY;
  *hi = 0;
  for (double m : {lon0, lon1}) {
    scan(m, lo, true);
    scan(m, hi, false);
  }
  if (auto m = LonIn(c.lon, lon0, lon1)) scan(*m, lo, true);
  if (auto m = LonIn(c.lon + 180.0, lon0, lon1)) scan(*m, hi, false);
}

std::shared_ptr<const GeoRegion> MakeGeoCircle(GeoPoint center, double meters) {
  return std::make_shared<Circle>(center, meters);
}

std::shared_ptr<const GeoRegion> MakeGeoBox(GeoPoint top_left, GeoPoint bottom_right) {
  return std::make_shared<Box>(top_left, bottom_right);
}

std::shared_ptr<const GeoRegion> MakeGeoPolygon(std::vector<GeoPoint> vertices) {
  return std::make_shared<Polygon>(std::move(vertices));
}

}  // namespace ttlstore::search
