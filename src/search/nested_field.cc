#include "search/nested_field.h"

#include <cstring>
#include <optional>

#include "common/coding.h"
#include "search/document.h"
#include "search/geo_cells.h"
#include "search/json_doc.h"
#include "search/terms.h"

namespace ttlstore::search {
namespace {

using model::CellType;
using model::CellValue;
using model::SearchFieldType;
using Type = JsonValue::Type;

std::optional<CellValue> FromJson(SearchFieldType t, const JsonValue& v) {
  switch (t) {
    case SearchFieldType::kLong:
    case SearchFieldType::kDate:
      if (v.type == Type::kInt) return CellValue::Integer(v.integer);
      return std::nullopt;
    case SearchFieldType::kDouble:
      if (v.type == Type::kInt || v.type == Type::kDouble) return CellValue::Double(v.number);
      return std::nullopt;
    case SearchFieldType::kBoolean:
      if (v.type == Type::kBool) return CellValue::Boolean(v.boolean);
      return std::nullopt;
    case SearchFieldType::kKeyword:
    case SearchFieldType::kText:
      if (v.type == Type::kString) return CellValue::String(v.text);
      return std::nullopt;
    default: return std::nullopt;
  }
}

// One sub-field's member of a sub-document.
void ParseMember(const model::SearchField& sub, const JsonValue& v, int depth,
                 NestedDoc::Field* out) {
  if (sub.type == SearchFieldType::kNested) {
    if (!ParseNestedJson(sub, v, depth + 1, &out->docs)) out->docs.clear();
    return;
  }
  auto one = [&](const JsonValue& e) {
    if (sub.type == SearchFieldType::kGeoPoint) {
      if (e.type != Type::kString) return;
      if (auto p = ParseGeoPoint(e.text)) out->points.push_back(EncodeGeo(*p));
    } else if (auto c = FromJson(sub.type, e)) {
      out->values.push_back(std::move(*c));
    }
  };
  if (v.type == Type::kArray) {
    if (!sub.is_array) return;
    for (const auto& e : v.items) {
      if (out->values.size() + out->points.size() >= kMaxArrayElements) break;
      one(e);
    }
    return;
  }
  one(v);
}

// ---- Slot form ----

void PutDocs(const model::SearchField& f, const std::vector<NestedDoc>& docs, std::string* out);

void PutField(const model::SearchField& sub, const NestedDoc::Field& fld, std::string* out) {
  switch (sub.type) {
    case SearchFieldType::kNested: PutDocs(sub, fld.docs, out); return;
    case SearchFieldType::kGeoPoint:
      PutVarint64(out, fld.points.size());
      for (const auto& c : fld.points) {
        PutFixed32BE(out, static_cast<uint32_t>(int64_t(c.lat) + (int64_t{1} << 31)));
        PutFixed32BE(out, static_cast<uint32_t>(int64_t(c.lon) + (int64_t{1} << 31)));
      }
      return;
    default: break;
  }
  PutVarint64(out, fld.values.size());
  for (const auto& v : fld.values) {
    switch (sub.type) {
      case SearchFieldType::kLong:
      case SearchFieldType::kDate: PutFixed64BE(out, static_cast<uint64_t>(v.integer)); break;
      case SearchFieldType::kDouble: {
        uint64_t bits;
        std::memcpy(&bits, &v.dbl, sizeof bits);
        PutFixed64BE(out, bits);
        break;
      }
      case SearchFieldType::kBoolean: out->push_back(v.boolean ? 1 : 0); break;
      default: PutLengthPrefixed(out, v.bytes); break;
    }
  }
}

void PutDocs(const model::SearchField& f, const std::vector<NestedDoc>& docs, std::string* out) {
  PutVarint64(out, docs.size());
  for (const auto& d : docs) {
    PutVarint64(out, static_cast<uint64_t>(d.offset));
    size_t present = 0;
    for (const auto& fld : d.fields) present += !fld.empty();
    PutVarint64(out, present);
    for (size_t j = 0; j < d.fields.size() && j < f.sub_fields.size(); ++j) {
      if (d.fields[j].empty()) continue;
      PutVarint64(out, j);
      PutField(f.sub_fields[j], d.fields[j], out);
    }
  }
}

bool GetDocs(const model::SearchField& f, std::string_view* in, int depth,
             std::vector<NestedDoc>* out);

bool GetField(const model::SearchField& sub, std::string_view* in, int depth,
              NestedDoc::Field* fld) {
  if (sub.type == SearchFieldType::kNested) return GetDocs(sub, in, depth + 1, &fld->docs);
  uint64_t n;
  if (!GetVarint64(in, &n) || n > in->size()) return false;  // every value takes a byte or more
  for (uint64_t k = 0; k < n; ++k) {
    uint64_t u;
    uint32_t a, b;
    std::string_view s;
    switch (sub.type) {
      case SearchFieldType::kGeoPoint:
        if (!GetFixed32BE(in, &a) || !GetFixed32BE(in, &b)) return false;
        fld->points.push_back(GeoCode{static_cast<int32_t>(int64_t(a) - (int64_t{1} << 31)),
                                      static_cast<int32_t>(int64_t(b) - (int64_t{1} << 31))});
        break;
      case SearchFieldType::kLong:
      case SearchFieldType::kDate:
        if (!GetFixed64BE(in, &u)) return false;
        fld->values.push_back(CellValue::Integer(static_cast<int64_t>(u)));
        break;
      case SearchFieldType::kDouble: {
        if (!GetFixed64BE(in, &u)) return false;
        double d;
        std::memcpy(&d, &u, sizeof d);
        fld->values.push_back(CellValue::Double(d));
        break;
      }
      case SearchFieldType::kBoolean:
        if (in->empty()) return false;
        fld->values.push_back(CellValue::Boolean(in->front() != 0));
        in->remove_prefix(1);
        break;
      default:
        if (!GetLengthPrefixed(in, &s)) return false;
        fld->values.push_back(CellValue::String(std::string(s)));
        break;
    }
  }
  return true;
}

bool GetDocs(const model::SearchField& f, std::string_view* in, int depth,
             std::vector<NestedDoc>* out) {
  uint64_t n;
  if (depth > model::kMaxNestedDepth || !GetVarint64(in, &n) || n > model::kMaxNestedDocs) {
    return false;
  }
  for (uint64_t k = 0; k < n; ++k) {
    NestedDoc d;
    uint64_t offset, present;
    if (!GetVarint64(in, &offset) || offset > INT32_MAX || !GetVarint64(in, &present) ||
        present > f.sub_fields.size()) {
      return false;
    }
    d.offset = static_cast<int32_t>(offset);
    d.fields.resize(f.sub_fields.size());
    for (uint64_t p = 0; p < present; ++p) {
      uint64_t j;
      if (!GetVarint64(in, &j) || j >= f.sub_fields.size()) return false;
      if (!GetField(f.sub_fields[j], in, depth, &d.fields[j])) return false;
    }
    out->push_back(std::move(d));
  }
  return true;
}

// ---- Terms ----

void AddDocsTerms(Xapian::Document* doc, const model::SearchField& f, const std::string& key,
                  const std::vector<NestedDoc>& docs, uint32_t analysis, Xapian::termpos* pos) {
  for (size_t j = 0; j < f.sub_fields.size(); ++j) {
    const model::SearchField& sub = f.sub_fields[j];
    std::string sub_key = key + "." + std::to_string(j);
    bool any = false;
    if (sub.type == SearchFieldType::kNested) {
      std::vector<NestedDoc> all;
      for (const auto& d : docs) {
        for (const auto& c : d.fields[j].docs) all.push_back(c);
      }
      if (all.empty()) continue;
      doc->add_boolean_term(KeyExistsTerm(sub_key));
      AddDocsTerms(doc, sub, sub_key, all, analysis, pos);
      continue;
    }
    for (const auto& d : docs) {
      const NestedDoc::Field& fld = d.fields[j];
      if (fld.empty()) continue;
      any = true;
      if (!sub.index) continue;
      for (const auto& c : fld.points) {
        for (const auto& t : GeoPointTerms(sub_key, c)) doc->add_boolean_term(t);
      }
      for (const auto& v : fld.values) AddValueTerms(doc, sub, sub_key, v, analysis, pos);
    }
    if (any) doc->add_boolean_term(KeyExistsTerm(sub_key));
  }
}

}  // namespace

bool ParseNestedJson(const model::SearchField& f, const JsonValue& v, int depth,
                     std::vector<NestedDoc>* out) {
  if (depth >= model::kMaxNestedDepth) return false;
  const std::vector<JsonValue>* items = &v.items;
  std::vector<JsonValue> single;
  if (v.type == Type::kObject) {
    single.push_back(v);
    items = &single;
  } else if (v.type != Type::kArray) {
    return false;
  }
  if (items->size() > model::kMaxNestedDocs) return false;
  for (size_t k = 0; k < items->size(); ++k) {
    const JsonValue& e = (*items)[k];
    if (e.type == Type::kNull) continue;
    if (e.type != Type::kObject) return false;
    NestedDoc d;
    d.offset = static_cast<int32_t>(k);
    d.fields.resize(f.sub_fields.size());
    for (size_t j = 0; j < f.sub_fields.size(); ++j) {
      if (const JsonValue* m = e.Find(f.sub_fields[j].name)) {
        ParseMember(f.sub_fields[j], *m, depth, &d.fields[j]);
      }
    }
    out->push_back(std::move(d));
  }
  return true;
}

bool ParseNested(const model::SearchField& f, const model::CellValue& cell,
                 std::vector<NestedDoc>* out) {
  if (cell.type != CellType::kString) return false;
  JsonValue v;
  if (!ParseJson(cell.bytes, &v)) return false;
  return ParseNestedJson(f, v, 0, out);
}

std::string EncodeNestedSlot(const model::SearchField& f, const std::vector<NestedDoc>& docs) {
  std::string out(1, '\x01');
  PutDocs(f, docs, &out);
  return out;
}

bool DecodeNestedSlot(const model::SearchField& f, std::string_view slot,
                      std::vector<NestedDoc>* out) {
  out->clear();
  if (slot.empty() || slot[0] != '\x01') return false;
  slot.remove_prefix(1);
  if (!GetDocs(f, &slot, 1, out) || !slot.empty()) {
    out->clear();
    return false;
  }
  return true;
}

void AddNestedField(Xapian::Document* doc, const model::SearchField& f, size_t field,
                    const model::CellValue& cell, uint32_t analysis, Xapian::termpos* pos) {
  std::vector<NestedDoc> docs;
  if (!ParseNested(f, cell, &docs) || docs.empty()) return;
  doc->add_boolean_term(ExistsTerm(field));
  doc->add_value(kSlotFieldBase + Xapian::valueno(field), EncodeNestedSlot(f, docs));
  AddDocsTerms(doc, f, FieldKey(field), docs, analysis, pos);
}

}  // namespace ttlstore::search
