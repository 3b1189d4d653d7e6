// Geohash cells (GroupByGeoGrid, issue 32): the base-32 geohash of a point at a length of 1 to 12
// characters, and the latitude/longitude rectangle a geohash names. The standard encoding
// (Niemeyer's, as Elasticsearch's geohash_grid uses): bits alternate longitude, latitude,
// starting with longitude, each halving its range; five bits per character of
// "0123456789bcdefghjkmnpqrstuvwxyz". A point on a cell's lower or left edge is in that cell; one
// on its upper or right edge in the next (the world's top and right edges stay in the last).
#pragma once

#include <string>
#include <string_view>

#include "search/geo.h"

namespace ttlstore::search {

inline constexpr int kMaxGeoHashLength = 12;

// REQUIRES: 1 <= length <= kMaxGeoHashLength.
std::string GeoHash(GeoPoint p, int length);

struct GeoHashCell {
  double lat_lo = -90, lat_hi = 90, lon_lo = -180, lon_hi = 180;
};
// The rectangle of `hash`; false when it holds a character that is not a geohash digit.
bool GeoHashBounds(std::string_view hash, GeoHashCell* out);

}  // namespace ttlstore::search
