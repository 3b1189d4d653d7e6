#include "search/geo_field.h"

#include "search/document.h"
#include "search/geo_cells.h"
#include "search/json_doc.h"
#include "search/terms.h"

namespace ttlstore::search {

std::vector<GeoCode> GeoValues(const model::SearchField& f, const model::CellValue& cell) {
  std::vector<GeoCode> out;
  if (cell.type != model::CellType::kString) return out;
  if (!f.is_array) {
    if (auto p = ParseGeoPoint(cell.bytes)) out.push_back(EncodeGeo(*p));
    return out;
  }
  if (cell.bytes.size() > kMaxArrayTextBytes) return out;
  JsonValue array;
  if (!ParseJson(cell.bytes, &array) || array.type != JsonValue::Type::kArray) return out;
  for (const auto& e : array.items) {
    if (out.size() >= kMaxArrayElements) break;
    if (e.type != JsonValue::Type::kString) continue;
    if (auto p = ParseGeoPoint(e.text)) out.push_back(EncodeGeo(*p));
  }
  return out;
}

std::string EncodeGeoSlot(const std::vector<GeoCode>& codes) {
  std::string s(1, '\x01');
  for (const auto& c : codes) {
    for (int32_t v : {c.lat, c.lon}) {
      uint32_t u = static_cast<uint32_t>(int64_t(v) + (int64_t{1} << 31));
      for (int i = 3; i >= 0; --i) s.push_back(static_cast<char>((u >> (8 * i)) & 0xff));
    }
  }
  return s;
}

std::vector<GeoCode> DecodeGeoSlot(std::string_view slot) {
  std::vector<GeoCode> out;
  if (slot.empty() || slot[0] != '\x01' || (slot.size() - 1) % 8 != 0) return out;
  auto u32 = [&](size_t at) {
    uint32_t u = 0;
    for (size_t i = 0; i < 4; ++i) u = (u << 8) | static_cast<uint8_t>(slot[at + i]);
    return static_cast<int32_t>(int64_t(u) - (int64_t{1} << 31));
  };
  for (size_t at = 1; at < slot.size(); at += 8) out.push_back(GeoCode{u32(at), u32(at + 4)});
  return out;
}

void AddGeoField(Xapian::Document* doc, const model::SearchField& f, size_t field,
                 const model::CellValue& cell) {
  std::vector<GeoCode> codes = GeoValues(f, cell);
  if (codes.empty()) return;
  doc->add_boolean_term(ExistsTerm(field));
  doc->add_value(kSlotFieldBase + Xapian::valueno(field), EncodeGeoSlot(codes));
  if (!f.index) return;
  std::string key = FieldKey(field);
  for (const auto& c : codes) {
    for (const auto& t : GeoPointTerms(key, c)) doc->add_boolean_term(t);
  }
}

}  // namespace ttlstore::search
