// GeoPoint fields in a search index's documents (issue 32): which points a cell holds, and how a
// document keeps them (docs/formats.md, "Search indexes").
//
// A GeoPoint column holds "lat,lon" text (search/geo.h ParseGeoPoint); an is_array one a JSON
// array of such strings. A value that does not parse (or a point out of range) leaves the field
// absent for that row, as for every type (the service's "dirty data": the row stays searchable
// by its other fields; the Node SDK's search test, run against the service, writes longitudes
// past 180 and still counts every row); an array keeps the elements that parse.
//
// The document of a row with points holds E<i>, the cell terms of each point (geo_cells.h) when
// the field is indexed, and in value slot 2+i the points themselves:
//   0x01 . (latitude code, longitude code: each int32 + 2^31, 4 bytes big-endian)*
// Readers (queries, sorts, aggregations) get a document's points with DecodeGeoSlot:
//   std::vector<GeoCode> codes = DecodeGeoSlot(doc.get_value(kSlotFieldBase + i));
//   GeoPoint p = DecodeGeo(codes[k]);  // p.lat, p.lon in degrees, as every query sees them
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <xapian.h>

#include "model/cell.h"
#include "model/search_index.h"
#include "search/geo.h"

namespace ttlstore::search {

// The points of a GeoPoint cell: one (or none) for a plain field, the parseable elements of an
// is_array field's JSON array (at most document.h's kMaxArrayElements).
std::vector<GeoCode> GeoValues(const model::SearchField& f, const model::CellValue& cell);

std::string EncodeGeoSlot(const std::vector<GeoCode>& codes);
// The points of a slot value; empty for an empty or malformed value.
std::vector<GeoCode> DecodeGeoSlot(std::string_view slot);

// Adds field `f` (position `field`) of a row whose cell is `cell` to `doc`: nothing when it has
// no point, else E<field>, the slot and (when indexed) the cell terms.
void AddGeoField(Xapian::Document* doc, const model::SearchField& f, size_t field,
                 const model::CellValue& cell);

}  // namespace ttlstore::search
