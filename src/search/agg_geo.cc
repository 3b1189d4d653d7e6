// GroupByGeoDistance and GroupByGeoGrid (issue 32; docs/tablestore.md, "Aggregations and
// group-bys"): groups of the rows whose GeoPoint field has a point at a distance from an origin
// in each range, and groups of the rows with a point in each geohash cell. A row with several
// points (an array field) is in each group one of its points falls in, once.
//
// Distances are great-circle distances (search/geo.h ArcDistance, as GeoDistanceQuery measures
// them) from the origin to the point as the index keeps it (quantized: geo.h). Ranges are
// [from, to) in meters, groups in the order of their ranges (from, then to), as GroupByRange's.
// Geo grid groups: most rows first, then geohash ascending; `size` of them (Chosen: the order of
// Elasticsearch's geohash_grid, which the service's group-by is built on; no service text or
// SDK test gives another).
#include <algorithm>
#include <map>

#include "search/agg_eval.h"
#include "search/agg_validate.h"
#include "search/geo_field.h"
#include "search/geohash.h"
#include "search/terms.h"

namespace ttlstore::search {

Result<const std::vector<std::vector<GeoPoint>>*> Evaluator::Points(const std::string& name) {
  auto it = points_.find(name);
  if (it != points_.end()) return &it->second;
  const model::SearchField* f = index_.FindField(name);
  if (!f) return Error::Validation("field: " + name + " does not exist");
  const Xapian::valueno slot = Xapian::valueno(kSlotFieldBase + (f - index_.fields.data()));
  const auto& docids = source_.matches().docids;
  std::vector<std::vector<GeoPoint>> out(docids.size());
  Xapian::ValueIterator v = db_.valuestream_begin(slot);
  const Xapian::ValueIterator end = db_.valuestream_end(slot);
  for (size_t d = 0; d < docids.size() && v != end; ++d) {
    if (v.get_docid() < docids[d]) v.skip_to(docids[d]);
    if (v == end || v.get_docid() != docids[d]) continue;
    for (const GeoCode& c : DecodeGeoSlot(*v)) out[d].push_back(DecodeGeo(c));
  }
  return &points_.emplace(name, std::move(out)).first->second;
}

Result<GroupByResult> Evaluator::ByGeoDistance(const GroupBy& g, const DocList& docs) {
  ASSIGN_OR_RETURN(points, Points(g.field));
  std::vector<GroupRange> ranges = g.ranges;
  std::stable_sort(ranges.begin(), ranges.end(), [](const GroupRange& a, const GroupRange& b) {
    return a.from != b.from ? a.from < b.from : a.to < b.to;
  });
  // Each row's distances once, then each range's rows.
  std::vector<std::vector<double>> distances(docs.size());
  for (size_t i = 0; i < docs.size(); ++i) {
    for (const GeoPoint& p : (*points)[docs[i]]) distances[i].push_back(ArcDistance(*g.origin, p));
  }
  GroupByResult out;
  out.name = g.name;
  out.kind = g.kind;
  for (const auto& r : ranges) {
    DocList in;
    for (size_t i = 0; i < docs.size(); ++i) {
      for (double x : distances[i]) {
        if (x >= r.from && x < r.to) {
          in.push_back(docs[i]);
          break;
        }
      }
    }
    GroupItem item;
    item.from = r.from;
    item.to = r.to;
    item.row_count = int64_t(in.size());
    RETURN_IF_ERROR(FillItem(g, in, &item));
    out.items.push_back(std::move(item));
  }
  return out;
}

Result<GroupByResult> Evaluator::ByGeoGrid(const GroupBy& g, const DocList& docs) {
  ASSIGN_OR_RETURN(points, Points(g.field));
  struct Cell {
    int64_t count = 0;
    DocList docs;
  };
  std::map<std::string, Cell> cells;
  const bool keep = NeedsDocs(g);
  std::vector<std::string> hashes;
  for (uint32_t d : docs) {
    hashes.clear();
    for (const GeoPoint& p : (*points)[d]) hashes.push_back(GeoHash(p, g.precision));
    std::sort(hashes.begin(), hashes.end());
    hashes.erase(std::unique(hashes.begin(), hashes.end()), hashes.end());
    for (const std::string& h : hashes) {
      Cell& c = cells[h];
      ++c.count;
      if (keep) c.docs.push_back(d);
    }
  }
  std::vector<std::map<std::string, Cell>::iterator> order;
  for (auto it = cells.begin(); it != cells.end(); ++it) order.push_back(it);
  auto more_rows = [](const auto& a, const auto& b) {
    return a->second.count != b->second.count ? a->second.count > b->second.count
                                              : a->first < b->first;
  };
  size_t keep_n = std::min(order.size(), size_t(g.size));
  std::partial_sort(order.begin(), order.begin() + keep_n, order.end(), more_rows);
  order.resize(keep_n);
  GroupByResult out;
  out.name = g.name;
  out.kind = g.kind;
  for (auto it : order) {
    GroupItem item;
    item.key = it->first;
    GeoHashCell cell;
    GeoHashBounds(it->first, &cell);
    item.top_lat = cell.lat_hi;
    item.left_lon = cell.lon_lo;
    item.bottom_lat = cell.lat_lo;
    item.right_lon = cell.lon_hi;
    item.row_count = it->second.count;
    RETURN_IF_ERROR(FillItem(g, it->second.docs, &item));
    out.items.push_back(std::move(item));
  }
  return out;
}

}  // namespace ttlstore::search
