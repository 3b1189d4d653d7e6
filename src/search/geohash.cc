#include "search/geohash.h"

namespace ttlstore::search {
namespace {

constexpr char kDigits[] = "0123456789bcdefghjkmnpqrstuvwxyz";

int DigitValue(char c) {
  for (int i = 0; i < 32; ++i) {
    if (kDigits[i] == c) return i;
  }
  return -1;
}

}  // namespace

std::string GeoHash(GeoPoint p, int length) {
  double lat_lo = -90, lat_hi = 90, lon_lo = -180, lon_hi = 180;
  std::string out;
  out.reserve(size_t(length));
  bool lon_bit = true;
  int value = 0, bits = 0;
  while (int(out.size()) < length) {
    double& lo = lon_bit ? lon_lo : lat_lo;
    double& hi = lon_bit ? lon_hi : lat_hi;
    double x = lon_bit ? p.lon : p.lat;
    double mid = (lo + hi) / 2;
    value <<= 1;
    if (x >= mid) {
      value |= 1;
      lo = mid;
    } else {
      hi = mid;
    }
    lon_bit = !lon_bit;
    if (++bits == 5) {
      out.push_back(kDigits[value]);
      value = 0;
      bits = 0;
    }
  }
  return out;
}

bool GeoHashBounds(std::string_view hash, GeoHashCell* out) {
  GeoHashCell c;
  bool lon_bit = true;
  for (char ch : hash) {
    int v = DigitValue(ch);
    if (v < 0) return false;
    for (int b = 4; b >= 0; --b) {
      double& lo = lon_bit ? c.lon_lo : c.lat_lo;
      double& hi = lon_bit ? c.lon_hi : c.lat_hi;
      double mid = (lo + hi) / 2;
      if ((v >> b) & 1) {
        lo = mid;
      } else {
        hi = mid;
      }
      lon_bit = !lon_bit;
    }
  }
  *out = c;
  return true;
}

}  // namespace ttlstore::search
