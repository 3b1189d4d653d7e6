#include "search/geo_cells.h"

#include <deque>

namespace ttlstore::search {
namespace {

// The bits of v spread to the even positions of a 64-bit word.
uint64_t Spread(uint32_t v) {
  uint64_t x = v;
  x = (x | (x << 16)) & 0x0000FFFF0000FFFFull;
  x = (x | (x << 8)) & 0x00FF00FF00FF00FFull;
  x = (x | (x << 4)) & 0x0F0F0F0F0F0F0F0Full;
  x = (x | (x << 2)) & 0x3333333333333333ull;
  x = (x | (x << 1)) & 0x5555555555555555ull;
  return x;
}

uint32_t Biased(int32_t code) { return static_cast<uint32_t>(int64_t(code) + (int64_t{1} << 31)); }

}  // namespace

GeoCell CellOf(GeoCode c, int level) {
  GeoCell cell;
  cell.level = level;
  if (level == 0) return cell;
  cell.x = Biased(c.lon) >> (32 - level);
  cell.y = Biased(c.lat) >> (32 - level);
  return cell;
}

CodeRect RectOf(const GeoCell& cell) {
  int shift = 32 - cell.level;
  auto span = [&](uint32_t v, int64_t* lo, int64_t* hi) {
    int64_t base = cell.level == 0 ? 0 : (int64_t(v) << shift);
    *lo = base - (int64_t{1} << 31);
    *hi = *lo + (int64_t{1} << shift) - 1;
  };
  CodeRect r;
  span(cell.y, &r.lat_lo, &r.lat_hi);
  span(cell.x, &r.lon_lo, &r.lon_hi);
  return r;
}

GeoCovering CoverRegion(const GeoRegion& region, size_t max_cells) {
  GeoCovering out;
  std::deque<GeoCell> pending;  // crossing cells still to refine, coarsest first
  auto children = [&](const GeoCell& parent, std::vector<GeoCell>* within,
                      std::vector<GeoCell>* crossing) {
    const uint32_t n = 1u << kGeoLevelStep;
    for (uint32_t dy = 0; dy < n; ++dy) {
      for (uint32_t dx = 0; dx < n; ++dx) {
        GeoCell c{parent.level + kGeoLevelStep, (parent.x << kGeoLevelStep) | dx,
                  (parent.y << kGeoLevelStep) | dy};
        switch (region.Relate(RectOf(c))) {
          case GeoRelation::kDisjoint: break;
          case GeoRelation::kWithin: within->push_back(c); break;
          case GeoRelation::kCrosses: crossing->push_back(c); break;
        }
      }
    }
  };
  // The world is never a cell of its own: its children always stand in for it.
  std::vector<GeoCell> w, x;
  children(GeoCell{}, &w, &x);
  out.within = std::move(w);
  pending.assign(x.begin(), x.end());
  while (!pending.empty()) {
    GeoCell c = pending.front();
    pending.pop_front();
    size_t others = out.within.size() + out.crossing.size() + pending.size();
    if (c.level + kGeoLevelStep > kGeoMaxLevel || others + 1 >= max_cells) {
      out.crossing.push_back(c);
      continue;
    }
    std::vector<GeoCell> cw, cx;
    children(c, &cw, &cx);
    if (others + cw.size() + cx.size() > max_cells) {
      out.crossing.push_back(c);
      continue;
    }
    out.within.insert(out.within.end(), cw.begin(), cw.end());
    pending.insert(pending.end(), cx.begin(), cx.end());
  }
  return out;
}

std::string GeoCellTerm(std::string_view key, const GeoCell& cell) {
  uint64_t id = (Spread(cell.y) << 1) | Spread(cell.x);  // 2 * level bits
  int bytes = (cell.level + 3) / 4;
  std::string out = "G";
  out.append(key);
  out.push_back(':');
  out.push_back(static_cast<char>('a' + cell.level / kGeoLevelStep));
  for (int i = bytes - 1; i >= 0; --i) out.push_back(static_cast<char>((id >> (8 * i)) & 0xff));
  return out;
}

std::vector<std::string> GeoPointTerms(std::string_view key, GeoCode c) {
  std::vector<std::string> out;
  for (int level = kGeoLevelStep; level <= kGeoMaxLevel; level += kGeoLevelStep) {
    out.push_back(GeoCellTerm(key, CellOf(c, level)));
  }
  return out;
}

}  // namespace ttlstore::search
