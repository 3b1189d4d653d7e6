// Nested fields in a search index's documents (issue 32; docs/search-engine.md, "Nested
// fields"): a column holding a JSON array of objects, each object one sub-document of the
// field's sub_fields (which may be Nested again, model::kMaxNestedDepth levels in all).
//
// A row keeps one Xapian document. Its Nested field contributes
//   - E<i> when it has a sub-document, and for every sub-field the terms of the values of all its
//     sub-documents under the sub-field's term key "i.j" (terms.h; Text words of two
//     sub-documents are never adjacent): enough to find the rows that may match a NestedQuery;
//   - in value slot 2+i the sub-documents themselves (EncodeNestedSlot), which a NestedQuery
//     tests one by one (search/nested_eval.h), so that its conditions hold within one
//     sub-document, never across two.
// Readers (inner hits, nested sorts, aggregations) get a document's sub-documents with
//   std::vector<NestedDoc> docs;
//   DecodeNestedSlot(field, doc.get_value(kSlotFieldBase + i), &docs);
//   docs[k].offset                    its position in the column's JSON array
//   docs[k].fields[j].values          sub-field j's values (CellValues of its type)
//   docs[k].fields[j].points          a GeoPoint sub-field's points (DecodeGeo for lat/lon)
//   docs[k].fields[j].docs            a Nested sub-field's sub-documents
//
// What a cell must hold: a JSON array whose elements are objects (null elements are skipped but
// keep their position; one object alone counts as an array of it), at most model::kMaxNestedDocs
// sub-documents at each level; anything else leaves the field absent for the row (the service's
// "dirty data"). Within a sub-document, members that are not sub-fields are ignored, and a member
// whose value does not fit its sub-field's type is absent from that sub-document: Long and Date
// take JSON integers, Double numbers, Boolean true/false, Keyword and Text strings, GeoPoint a
// "lat,lon" string; an is_array sub-field a JSON array of those (or one of them); a Nested
// sub-field an array of objects.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <xapian.h>

#include "model/cell.h"
#include "model/search_index.h"
#include "search/geo.h"

namespace ttlstore::search {

struct JsonValue;

struct NestedDoc {
  struct Field {
    std::vector<model::CellValue> values;  // scalar sub-fields
    std::vector<GeoCode> points;           // GeoPoint sub-fields
    std::vector<NestedDoc> docs;           // Nested sub-fields
    bool empty() const { return values.empty() && points.empty() && docs.empty(); }
  };
  int32_t offset = 0;         // position in the JSON array
  std::vector<Field> fields;  // by sub-field position; empty entries: absent
};

// The sub-documents of Nested field `f` in a row's cell; false (the field absent) when the cell
// is not a Nested value as described above.
bool ParseNested(const model::SearchField& f, const model::CellValue& cell,
                 std::vector<NestedDoc>* out);
// The same from an already parsed JSON value (`depth`: levels of Nested above `f`).
bool ParseNestedJson(const model::SearchField& f, const JsonValue& v, int depth,
                     std::vector<NestedDoc>* out);

// The slot form (docs/formats.md): 0x01 . docs, where docs is a varint count and per
// sub-document its varint offset, a varint count of present sub-fields and per sub-field its
// varint position then its values by type (a varint count, then: 8 bytes big-endian per Long,
// Date or Double (IEEE bits), one byte per Boolean, varint-prefixed bytes per Keyword or Text,
// two 4-byte codes + 2^31 per GeoPoint; a Nested sub-field: docs again).
std::string EncodeNestedSlot(const model::SearchField& f, const std::vector<NestedDoc>& docs);
// False on malformed bytes (nothing past them is read; nesting bounded by the schema's).
bool DecodeNestedSlot(const model::SearchField& f, std::string_view slot,
                      std::vector<NestedDoc>* out);

// Adds Nested field `f` (position `field`) of a row whose cell is `cell` to `doc`: nothing when
// it has no sub-document, else E<field>, the slot and the terms of every sub-field (Text words
// at positions from *pos on, advanced past them).
void AddNestedField(Xapian::Document* doc, const model::SearchField& f, size_t field,
                    const model::CellValue& cell, uint32_t analysis, Xapian::termpos* pos);

}  // namespace ttlstore::search
