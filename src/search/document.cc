#include "search/document.h"

#include <cmath>
#include <cstdlib>

#include "search/analyzer.h"
#include "search/geo_field.h"
#include "search/nested_field.h"
#include "search/terms.h"
#include "search/vector_value.h"
#include "versions/row_key.h"
#include "versions/visibility.h"

namespace ttlstore::search {
namespace {

using model::CellType;
using model::CellValue;
using model::SearchFieldType;

// A JSON array of scalars (strings, numbers, booleans), bounded. Nested arrays or objects make
// it unusable: false.
bool ParseJsonArray(std::string_view in, std::vector<CellValue>* out) {
  if (in.size() > kMaxArrayTextBytes) return false;
  size_t i = 0;
  auto ws = [&] { while (i < in.size() && std::isspace(static_cast<unsigned char>(in[i]))) ++i; };
  ws();
  if (i >= in.size() || in[i] != '[') return false;
  ++i;
  ws();
  if (i < in.size() && in[i] == ']') return true;
  while (i < in.size()) {
    ws();
    if (i >= in.size()) return false;
    char c = in[i];
    if (c == '"') {
      std::string s;
      ++i;
      while (i < in.size() && in[i] != '"') {
        if (in[i] == '\\') {
          if (++i >= in.size()) return false;
          char e = in[i];
          switch (e) {
            case 'n': s.push_back('\n'); break;
            case 't': s.push_back('\t'); break;
            case 'r': s.push_back('\r'); break;
            case 'b': s.push_back('\b'); break;
            case 'f': s.push_back('\f'); break;
            case 'u': {
              if (i + 4 >= in.size()) return false;
              unsigned cp = std::strtoul(std::string(in.substr(i + 1, 4)).c_str(), nullptr, 16);
              i += 4;
              if (cp < 0x80) {
                s.push_back(char(cp));
              } else if (cp < 0x800) {
                s.push_back(char(0xC0 | (cp >> 6)));
                s.push_back(char(0x80 | (cp & 0x3F)));
              } else {
                s.push_back(char(0xE0 | (cp >> 12)));
                s.push_back(char(0x80 | ((cp >> 6) & 0x3F)));
                s.push_back(char(0x80 | (cp & 0x3F)));
              }
              break;
            }
            default: s.push_back(e);
          }
        } else {
          s.push_back(in[i]);
        }
        ++i;
      }
      if (i >= in.size()) return false;
      ++i;
      if (out->size() < kMaxArrayElements) out->push_back(CellValue::String(std::move(s)));
    } else if (in.substr(i, 4) == "true") {
      i += 4;
      if (out->size() < kMaxArrayElements) out->push_back(CellValue::Boolean(true));
    } else if (in.substr(i, 5) == "false") {
      i += 5;
      if (out->size() < kMaxArrayElements) out->push_back(CellValue::Boolean(false));
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      size_t j = i;
      bool integral = true;
      while (j < in.size() && (std::isdigit(static_cast<unsigned char>(in[j])) || in[j] == '-' ||
                               in[j] == '+' || in[j] == '.' || in[j] == 'e' || in[j] == 'E')) {
        if (in[j] == '.' || in[j] == 'e' || in[j] == 'E') integral = false;
        ++j;
      }
      std::string num(in.substr(i, j - i));
      i = j;
      CellValue v;
      if (integral) {
        errno = 0;
        long long x = std::strtoll(num.c_str(), nullptr, 10);
        if (errno == ERANGE) v = CellValue::Double(std::strtod(num.c_str(), nullptr));
        else v = CellValue::Integer(x);
      } else {
        v = CellValue::Double(std::strtod(num.c_str(), nullptr));
      }
      if (out->size() < kMaxArrayElements) out->push_back(v);
    } else {
      return false;
    }
    ws();
    if (i < in.size() && in[i] == ',') { ++i; continue; }
    if (i < in.size() && in[i] == ']') return true;
    return false;
  }
  return false;
}

// One scalar converted to the field's type, or nullopt.
std::optional<CellValue> Convert(SearchFieldType t, const CellValue& v) {
  switch (t) {
    case SearchFieldType::kLong:
    case SearchFieldType::kDate:
      if (v.type == CellType::kInteger) return v;
      return std::nullopt;
    case SearchFieldType::kDouble:
      if (v.type == CellType::kDouble && !std::isnan(v.dbl)) return v;
      if (v.type == CellType::kInteger) return CellValue::Double(double(v.integer));
      return std::nullopt;
    case SearchFieldType::kBoolean:
      if (v.type == CellType::kBoolean) return v;
      return std::nullopt;
    case SearchFieldType::kKeyword:
    case SearchFieldType::kText:
      if (v.type == CellType::kString) return v;
      return std::nullopt;
    case SearchFieldType::kGeoPoint:
    case SearchFieldType::kNested:
      return std::nullopt;  // not scalars (geo_field.h, nested_field.h)
    case SearchFieldType::kVector: return std::nullopt;  // not scalar values: vector_value.h
  }
  return std::nullopt;
}

CellValue PkCellValue(const model::CellValue& v) { return v; }

}  // namespace

int64_t EffectiveTtlSeconds(const model::SearchIndexMeta& index,
                            const model::TablestoreSchema& table) {
  int64_t a = index.time_to_live, b = table.options.time_to_live;
  if (a < 0) return b < 0 ? -1 : b;
  if (b < 0) return a;
  return std::min(a, b);
}

std::vector<CellValue> FieldValues(const model::SearchField& f, const CellValue& cell) {
  std::vector<CellValue> out;
  if (f.is_array) {
    if (cell.type != CellType::kString) return out;
    std::vector<CellValue> elems;
    if (!ParseJsonArray(cell.bytes, &elems)) return out;
    for (const auto& e : elems) {
      if (auto c = Convert(f.type, e)) out.push_back(std::move(*c));
    }
    return out;
  }
  if (auto c = Convert(f.type, cell)) out.push_back(std::move(*c));
  return out;
}

std::optional<int64_t> NewestTimestamp(const versions::StoredRow& row,
                                       const model::VersionOptions& options, int64_t now_ms) {
  std::optional<int64_t> newest;
  for (const auto& c : row.columns) {
    if (const versions::Version* v = versions::LatestVisible(c, options, now_ms)) {
      if (!newest || v->timestamp_ms > *newest) newest = v->timestamp_ms;
    }
  }
  return newest;
}

uint64_t NumericKey(SearchFieldType t, const CellValue& v) {
  if (t == SearchFieldType::kDouble) {
    return DoubleKey(v.type == CellType::kInteger ? double(v.integer) : v.dbl);
  }
  return LongKey(v.integer);
}

std::string SortValue(const model::SearchField& f, const CellValue& v) {
  std::string s(1, '\x01');
  switch (f.type) {
    case SearchFieldType::kLong:
    case SearchFieldType::kDate:
    case SearchFieldType::kDouble: s += KeyBytes(NumericKey(f.type, v)); break;
    case SearchFieldType::kBoolean: s += v.boolean ? "1" : "0"; break;
    case SearchFieldType::kKeyword:
    case SearchFieldType::kText: s += v.bytes; break;
    case SearchFieldType::kGeoPoint:
    case SearchFieldType::kNested: break;  // no scalar sort value
    case SearchFieldType::kVector: break;  // never sorted
  }
  return s;
}

void AddValueTerms(Xapian::Document* doc, const model::SearchField& f, std::string_view key,
                   const CellValue& v, uint32_t analysis, Xapian::termpos* pos) {
  switch (f.type) {
    case SearchFieldType::kLong:
    case SearchFieldType::kDate:
    case SearchFieldType::kDouble: {
      uint64_t k = NumericKey(f.type, v);
      for (int level = 0; level < kTrieLevels; ++level) {
        doc->add_boolean_term(KeyTrieTerm(key, k, level));
      }
      break;
    }
    case SearchFieldType::kBoolean: doc->add_boolean_term(KeyValueTerm(key, v.boolean ? "t" : "f")); break;
    case SearchFieldType::kKeyword: doc->add_boolean_term(KeyValueTerm(key, v.bytes)); break;
    case SearchFieldType::kText: {
      uint32_t used = 0;  // positions the value's words take
      for (const auto& w : AnalyzeText(f, v.bytes, analysis, AnalyzeFor::kDocument)) {
        doc->add_posting(KeyValueTerm(key, w.text), *pos + w.position);
        used = w.position + 1;
      }
      *pos += used + 100;  // array elements are not adjacent for MatchPhrase
      break;
    }
    case SearchFieldType::kGeoPoint:
    case SearchFieldType::kNested:
    case SearchFieldType::kVector: break;  // their own builders (geo_field.h, nested_field.h, above)
  }
}

std::optional<Xapian::Document> BuildDocument(const model::SearchIndexMeta& index,
                                              const model::TablestoreSchema& table,
                                              std::string_view row_key,
                                              const versions::StoredRow& row, int64_t now_ms) {
  if (!versions::RowVisible(row, table.options, now_ms)) return std::nullopt;
  std::optional<int64_t> ts = NewestTimestamp(row, table.options, now_ms);
  int64_t ttl = EffectiveTtlSeconds(index, table);
  if (ts && ttl >= 0 && now_ms - *ts > ttl * 1000) return std::nullopt;

  std::vector<versions::PkCell> pk;
  versions::DecodeRowKey(row_key, table.primary_key, &pk);

  Xapian::Document doc;
  std::string key(row_key);
  doc.add_boolean_term(UniqueTerm(key));
  doc.add_boolean_term(ShardTerm(ShardOf(key)));
  doc.add_value(kSlotRowKey, key);
  doc.set_data(key);
  if (ts) {
    doc.add_value(kSlotTimestamp, KeyBytes(LongKey(*ts)));
    doc.add_boolean_term(MinuteTerm(*ts));
  }
  Xapian::termpos pos = 1;
  for (size_t i = 0; i < index.fields.size(); ++i) {
    const model::SearchField& f = index.fields[i];
    const CellValue* cell = nullptr;
    for (const auto& p : pk) {
      if (p.name == f.name) { cell = &p.value; break; }
    }
    if (!cell) {
      const versions::Column* col = row.Find(f.name);
      if (!col) continue;
      const versions::Version* v = versions::LatestVisible(*col, table.options, now_ms);
      if (!v) continue;
      cell = &v->value;
    }
    if (f.type == SearchFieldType::kGeoPoint) {
      AddGeoField(&doc, f, i, *cell);
      continue;
    }
    if (f.type == SearchFieldType::kNested) {
      AddNestedField(&doc, f, i, *cell, index.analysis, &pos);
      continue;
    }
    if (f.type == SearchFieldType::kVector) {
      // The vector's float32 bytes in the field's slot (search/knn.h reads them).
      auto vec = ParseVectorCell(*cell, f.vector_dimension);
      if (!vec) continue;
      doc.add_boolean_term(ExistsTerm(i));
      doc.add_value(kSlotFieldBase + i,
                    std::string(reinterpret_cast<const char*>(vec->data()), vec->size() * 4));
      continue;
    }
    std::vector<CellValue> values = FieldValues(f, *cell);
    if (values.empty()) continue;
    doc.add_boolean_term(ExistsTerm(i));
    if (f.type != SearchFieldType::kText) doc.add_value(kSlotFieldBase + i, SortValue(f, values[0]));
    if (f.is_array && f.type != SearchFieldType::kText) {  // every element (aggregations)
      std::vector<std::string> forms;
      for (const auto& v : values) forms.push_back(SortValue(f, v).substr(1));
      doc.add_value(kSlotArrayBase + i, EncodeArraySlot(forms));
    }
    if (!f.index) continue;
    for (const auto& v : values) AddValueTerms(&doc, f, FieldKey(i), v, index.analysis, &pos);
  }
  return doc;
}

}  // namespace ttlstore::search
