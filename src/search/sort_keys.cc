#include "search/sort_keys.h"

#include <cstring>

#include "common/coding.h"
#include "search/document.h"
#include "search/query_builder.h"
#include "search/query_codec.h"
#include "search/sort_values.h"
#include "search/terms.h"

namespace ttlstore::search {
namespace {

using model::CellType;
using model::CellValue;
using Kind = model::SearchSortKey::Kind;

// 1: before issue 32; 2: each key followed by its mode, geo points and nested filter.
constexpr uint8_t kSortFormatV1 = 1;
constexpr uint8_t kSortFormat = 2;
constexpr uint64_t kMaxEncodedPoints = 1000;
constexpr uint64_t kMaxEncodedKeys = 64;

void AppendComponent(std::string_view v, bool reverse, std::string* out) {
  if (reverse) {
    for (unsigned char c : v) {
      out->push_back(char(255 - c));
      if (c == 0) out->push_back('\0');
    }
    out->append("\xff\xff", 2);
  } else {
    for (char c : v) {
      out->push_back(c);
      if (c == '\0') out->push_back('\xff');
    }
    out->append("\0\0", 2);
  }
}

void PutBytes(std::string* out, std::string_view b) {
  PutVarint64(out, b.size());
  out->append(b);
}

bool GetBytes(std::string_view* in, std::string* out) {
  uint64_t n;
  if (!GetVarint64(in, &n) || n > in->size()) return false;
  out->assign(in->substr(0, n));
  in->remove_prefix(n);
  return true;
}

bool GetByte(std::string_view* in, uint8_t* b) {
  if (in->empty()) return false;
  *b = uint8_t(in->front());
  in->remove_prefix(1);
  return true;
}

}  // namespace

EffectiveSort SortOf(const model::SearchIndexMeta& index, const SearchRequest& req) {
  EffectiveSort s;
  s.keys = req.sort;
  s.pk_tiebreak = !req.disable_default_pk_sorter;
  if (s.keys.empty()) {
    for (const auto& k : index.index_sort) s.keys.push_back(SortKey{k});
  }
  // An index created without a presort is sorted by primary key (DescribeSearchIndex shows it).
  if (s.keys.empty()) {
    s.keys.push_back(SortKey{{model::SearchSortKey::Kind::kPrimaryKey, "", false}});
  }
  return s;
}

std::string SortKeyMaker::operator()(const Xapian::Document& doc) const {
  std::string out;
  for (const auto& p : parts_) {
    std::string v = p.compute ? p.compute(doc) : doc.get_value(p.slot);
    if (v.empty() && p.fallback) v = doc.get_value(*p.fallback);
    if (v.empty()) v = p.missing;
    AppendComponent(v, p.reverse, &out);
  }
  return out;
}

void MakeSortKeys(const model::SearchIndexMeta& index, const EffectiveSort& sort,
                  SortKeyMaker* km) {
  bool has_pk = false;
  for (const auto& k : sort.keys) {
    switch (k.key.kind) {
      case Kind::kScore: break;
      case Kind::kPrimaryKey:
        km->Add({kSlotRowKey, std::nullopt, k.key.descending, std::string()});
        has_pk = true;
        break;
      case Kind::kField: {
        if (IsSlotSort(index, k)) {
          SortKeyMaker::Part part;
          part.reverse = k.key.descending;
          bool first = k.missing == SortKey::Missing::kFirst;
          part.missing = (first != k.key.descending) ? std::string() : std::string("\x02");
          std::string given = SlotSortMissingValue(index, k);
          if (!given.empty()) part.missing = std::move(given);
          part.compute = MakeSlotSortValue(index, k);
          km->Add(std::move(part));
          break;
        }
        int fi = FieldIndex(index, k.key.field);
        const model::SearchField& f = index.fields[size_t(fi)];
        SortKeyMaker::Part part;
        part.slot = kSlotFieldBase + Xapian::valueno(fi);
        part.reverse = k.key.descending;
        // Every stored value starts with 0x01: "" sorts below all of them, "\x02" above.
        bool first = k.missing == SortKey::Missing::kFirst;
        part.missing = (first != k.key.descending) ? std::string() : std::string("\x02");
        if (k.missing_value) {
          if (auto v = QueryValueOf(f.type, *k.missing_value)) {
            model::SearchField scalar = f;
            scalar.is_array = false;
            auto values = FieldValues(scalar, *v);
            if (!values.empty()) part.missing = SortValue(f, values[0]);
          }
        }
        if (!k.missing_field.empty()) {
          part.fallback = kSlotFieldBase + Xapian::valueno(FieldIndex(index, k.missing_field));
        }
        km->Add(std::move(part));
        break;
      }
    }
  }
  if (sort.pk_tiebreak && !has_pk) km->Add({kSlotRowKey, std::nullopt, false, std::string()});
}

uint64_t SortFingerprint(const EffectiveSort& sort) {
  std::string bytes = EncodeSort(sort);
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

std::string EncodeSort(const EffectiveSort& sort) {
  std::string out;
  out.push_back(char(kSortFormat));
  out.push_back(sort.pk_tiebreak ? 1 : 0);
  PutVarint64(&out, sort.keys.size());
  for (const auto& k : sort.keys) {
    out.push_back(char(k.key.kind));
    out.push_back(k.key.descending ? 1 : 0);
    out.push_back(char(k.missing));
    PutBytes(&out, k.key.field);
    PutBytes(&out, k.missing_field);
    if (!k.missing_value) {
      out.push_back(char(0xff));
      continue;
    }
    const CellValue& v = *k.missing_value;
    out.push_back(char(v.type));
    switch (v.type) {
      case CellType::kInteger: PutFixed64BE(&out, uint64_t(v.integer)); break;
      case CellType::kDouble: {
        uint64_t bits;
        std::memcpy(&bits, &v.dbl, sizeof bits);
        PutFixed64BE(&out, bits);
        break;
      }
      case CellType::kBoolean: out.push_back(v.boolean ? 1 : 0); break;
      default: PutBytes(&out, v.bytes); break;
    }
  }
  // Format 2: per key, its mode, geo distance sort and nested filter.
  for (const auto& k : sort.keys) {
    out.push_back(char(k.mode));
    out.push_back(k.geo ? (k.plane ? 2 : 1) : 0);
    if (k.geo) {
      PutVarint64(&out, k.geo_points.size());
      for (const auto& p : k.geo_points) {
        uint64_t bits;
        std::memcpy(&bits, &p.lat, sizeof bits);
        PutFixed64BE(&out, bits);
        std::memcpy(&bits, &p.lon, sizeof bits);
        PutFixed64BE(&out, bits);
      }
    }
    PutBytes(&out, k.nested_path);
    out.push_back(k.nested_filter.empty() ? 0 : 1);
    if (!k.nested_filter.empty()) PutBytes(&out, EncodeQuery(k.nested_filter[0]));
  }
  return out;
}

std::optional<EffectiveSort> DecodeSort(std::string_view in) {
  uint8_t format, tiebreak;
  uint64_t n;
  if (!GetByte(&in, &format) || (format != kSortFormat && format != kSortFormatV1) ||
      !GetByte(&in, &tiebreak) ||
      tiebreak > 1 || !GetVarint64(&in, &n) || n > kMaxEncodedKeys) {
    return std::nullopt;
  }
  EffectiveSort s;
  s.pk_tiebreak = tiebreak == 1;
  for (uint64_t i = 0; i < n; ++i) {
    SortKey k;
    uint8_t kind, desc, missing, type;
    if (!GetByte(&in, &kind) || kind < 1 || kind > 3 || !GetByte(&in, &desc) || desc > 1 ||
        !GetByte(&in, &missing) || missing > 1 || !GetBytes(&in, &k.key.field) ||
        !GetBytes(&in, &k.missing_field) || !GetByte(&in, &type)) {
      return std::nullopt;
    }
    k.key.kind = static_cast<Kind>(kind);
    k.key.descending = desc == 1;
    k.missing = static_cast<SortKey::Missing>(missing);
    if (type != 0xff) {
      CellValue v;
      uint64_t bits;
      uint8_t b;
      switch (static_cast<CellType>(type)) {
        case CellType::kInteger:
          if (!GetFixed64BE(&in, &bits)) return std::nullopt;
          v = CellValue::Integer(int64_t(bits));
          break;
        case CellType::kDouble: {
          if (!GetFixed64BE(&in, &bits)) return std::nullopt;
          double d;
          std::memcpy(&d, &bits, sizeof d);
          v = CellValue::Double(d);
          break;
        }
        case CellType::kBoolean:
          if (!GetByte(&in, &b) || b > 1) return std::nullopt;
          v = CellValue::Boolean(b == 1);
          break;
        case CellType::kString: {
          std::string str;
          if (!GetBytes(&in, &str)) return std::nullopt;
          v = CellValue::String(std::move(str));
          break;
        }
        default: return std::nullopt;
      }
      k.missing_value = std::move(v);
    }
    s.keys.push_back(std::move(k));
  }
  if (format == kSortFormat) {
    for (auto& k : s.keys) {
      uint8_t mode, geo, has_filter;
      if (!GetByte(&in, &mode) || mode > 3 || !GetByte(&in, &geo) || geo > 2) return std::nullopt;
      k.mode = static_cast<SortKey::Mode>(mode);
      k.mode_given = k.mode != SortKey::Mode::kDefault;
      k.geo = geo != 0;
      k.plane = geo == 2;
      if (k.geo) {
        uint64_t n;
        if (!GetVarint64(&in, &n) || n > kMaxEncodedPoints) return std::nullopt;
        for (uint64_t i = 0; i < n; ++i) {
          uint64_t a, b;
          if (!GetFixed64BE(&in, &a) || !GetFixed64BE(&in, &b)) return std::nullopt;
          GeoPoint p;
          std::memcpy(&p.lat, &a, sizeof a);
          std::memcpy(&p.lon, &b, sizeof b);
          k.geo_points.push_back(p);
        }
      }
      std::string filter;
      if (!GetBytes(&in, &k.nested_path) || !GetByte(&in, &has_filter) || has_filter > 1) {
        return std::nullopt;
      }
      if (has_filter) {
        if (!GetBytes(&in, &filter)) return std::nullopt;
        auto q = DecodeQuery(filter);
        if (!q) return std::nullopt;
        k.nested_filter.push_back(std::move(*q));
      }
    }
  }
  if (!in.empty()) return std::nullopt;
  return s;
}

}  // namespace ttlstore::search
