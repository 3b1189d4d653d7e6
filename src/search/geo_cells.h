// The cells GeoPoint values are indexed under (docs/search-engine.md, "Geo points"): a
// quadtree over the grid of search/geo.h, four bits of the interleaved codes (two per axis) per
// step, so that a cell of level L (L even, 2..kGeoMaxLevel) holds the points whose latitude and
// longitude codes share their top L bits. A point is indexed under its cell at each of the 12
// levels; a query region is covered by a bounded set of disjoint cells, each either within the
// region (its documents match without a look at their values) or crossing its edge (its
// documents are tested one by one on their stored points).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "search/geo.h"

namespace ttlstore::search {

// Levels are the number of top bits kept per axis: 2, 4, ..., 24 (cells of about 1.2 m of
// latitude by 2.4 m of longitude at the equator at the finest).
inline constexpr int kGeoLevelStep = 2;
inline constexpr int kGeoMaxLevel = 24;
// Cells a covering may hold (interior and edge together): a Search's geo query is an OR of at
// most this many terms.
inline constexpr size_t kGeoMaxCoverCells = 256;

struct GeoCell {
  int level = 0;  // 0 is the whole world (never indexed)
  uint32_t x = 0;  // the top `level` bits of the longitude code + 2^31
  uint32_t y = 0;  // the top `level` bits of the latitude code + 2^31
  friend bool operator==(const GeoCell&, const GeoCell&) = default;
};

// The cell of level `level` holding `c`.
GeoCell CellOf(GeoCode c, int level);
// The grid rectangle a cell spans.
CodeRect RectOf(const GeoCell& cell);

struct GeoCovering {
  std::vector<GeoCell> within;    // every point in them is in the region
  std::vector<GeoCell> crossing;  // their points must be tested
};

// Disjoint cells whose union holds every grid point of `region`: refined breadth-first from the
// world while the budget allows and the finest level is not reached.
GeoCovering CoverRegion(const GeoRegion& region, size_t max_cells = kGeoMaxCoverCells);

// The term of `cell` for the field or sub-field of term key `key` (search/terms.h):
// "G" . key . ":" . ('a' + level / 2) . the interleaved cell number, big-endian, in the bytes it
// needs (level / 4 rounded up).
std::string GeoCellTerm(std::string_view key, const GeoCell& cell);
// The terms a point is indexed under, one per level.
std::vector<std::string> GeoPointTerms(std::string_view key, GeoCode c);

}  // namespace ttlstore::search
