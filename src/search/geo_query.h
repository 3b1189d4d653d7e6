// GeoDistanceQuery, GeoBoundingBoxQuery and GeoPolygonQuery as Xapian queries
// (docs/search-engine.md, "Geo points"): the region is covered by cells (geo_cells.h); the
// documents of cells within it match by their terms alone, those of cells crossing its edge are
// tested on the points of their slot (slot_source.h), so the answer is exact on the grid points
// and the cost follows the cells and the edge, not the table. Geo queries do not score (their
// weight is 0), as the service's filter-like geo queries.
#pragma once

#include <memory>

#include <xapian.h>

#include "common/result.h"
#include "search/field_ref.h"
#include "search/geo.h"
#include "search/query.h"

namespace ttlstore::search {

// Vertices of a polygon query at most (Chosen: the service documents no bound).
inline constexpr size_t kMaxPolygonPoints = 1000;

// Ok, or kValidation with the text, for the geo query `q` (its points, distance, corners).
Status ValidateGeoQuery(const Query& q);

// The region of a geo query. REQUIRES: ValidateGeoQuery(q).
std::shared_ptr<const GeoRegion> RegionOf(const Query& q);

// The query for geo query `q` on field `ref`. exact: a top-level field, tested on its slot at
// the edge; otherwise (a sub-field inside a NestedQuery, whose sub-documents are tested later)
// the documents of every covering cell.
Xapian::Query BuildGeoQuery(const FieldRef& ref, const Query& q, bool exact);

}  // namespace ttlstore::search
