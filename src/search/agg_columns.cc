#include "search/agg_columns.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <unordered_map>

#include "search/document.h"
#include "search/terms.h"

namespace ttlstore::search {
namespace {

using model::CellValue;
using T = model::SearchFieldType;

uint64_t DoubleFromKey(uint64_t key) {
  return (key >> 63) ? (key & ~(uint64_t{1} << 63)) : ~key;
}

}  // namespace

bool Column::numeric() const { return type == T::kLong || type == T::kDouble || type == T::kDate; }

int64_t Column::Integer(uint64_t key) const { return int64_t(key ^ (uint64_t{1} << 63)); }

double Column::Number(uint64_t key) const {
  switch (type) {
    case T::kLong:
    case T::kDate: return double(Integer(key));
    case T::kDouble: return std::bit_cast<double>(DoubleFromKey(key));
    default: return double(key);
  }
}

uint64_t Column::KeyOf(const CellValue& v) const {
  switch (type) {
    case T::kLong:
    case T::kDate: return LongKey(v.integer);
    case T::kDouble: return DoubleKey(v.dbl);
    case T::kBoolean: return v.boolean ? 1 : 0;
    default: {
      auto it = std::lower_bound(dict_.begin(), dict_.end(), v.bytes);
      if (it != dict_.end() && *it == v.bytes) return uint64_t(it - dict_.begin());
      return kForeignKey;
    }
  }
}

std::string Column::KeyString(uint64_t key) const {
  switch (type) {
    case T::kLong:
    case T::kDate: return std::to_string(Integer(key));
    case T::kDouble: return JavaDoubleString(Number(key));
    case T::kBoolean: return key ? "true" : "false";
    default: return key < dict_.size() ? dict_[key] : std::string();
  }
}

CellValue Column::KeyCell(uint64_t key) const {
  switch (type) {
    case T::kLong:
    case T::kDate: return CellValue::Integer(Integer(key));
    case T::kDouble: return CellValue::Double(Number(key));
    case T::kBoolean: return CellValue::Boolean(key != 0);
    default: return CellValue::String(KeyString(key));
  }
}

FieldSource::FieldSource(const model::SearchIndexMeta& index, const Xapian::Database& db,
                         const MatchSet& matches, RowValues row_values)
    : index_(index), db_(db), matches_(matches), row_values_(std::move(row_values)) {}

const Column& FieldSource::ColumnOf(const model::SearchField& field) {
  auto it = columns_.find(field.name);
  if (it != columns_.end()) return *it->second;
  size_t i = 0;
  while (i < index_.fields.size() && index_.fields[i].name != field.name) ++i;
  auto c = std::make_unique<Column>();
  Load(index_.fields[i], i, c.get());
  return *columns_.emplace(field.name, std::move(c)).first->second;
}

void FieldSource::Load(const model::SearchField& f, size_t field_index, Column* c) {
  c->type = f.type;
  const size_t n = matches_.docids.size();
  c->offsets_.assign(n + 1, 0);
  const bool keyword = f.type == T::kKeyword;
  // Keywords are numbered by first appearance, then renumbered by rank once all are seen.
  std::unordered_map<std::string, uint32_t> ids;
  std::vector<std::string> words;
  auto add = [&](std::string_view form) {
    switch (f.type) {
      case T::kLong:
      case T::kDate:
      case T::kDouble: c->keys_.push_back(KeyFromBytes(form)); break;
      case T::kBoolean: c->keys_.push_back(form == "1" ? 1 : 0); break;
      default: {
        auto [at, fresh] = ids.try_emplace(std::string(form), uint32_t(words.size()));
        if (fresh) words.emplace_back(form);
        c->keys_.push_back(at->second);
      }
    }
  };
  // An array field's document holds every element in its array slot, unless it was written
  // before that slot existed (it then kept only the first element): the row is read instead.
  const Xapian::valueno slot = Xapian::valueno(kSlotFieldBase + field_index);
  const Xapian::valueno array_slot = Xapian::valueno(kSlotArrayBase + field_index);
  Xapian::ValueIterator v = db_.valuestream_begin(slot);
  const Xapian::ValueIterator end = db_.valuestream_end(slot);
  Xapian::ValueIterator av = db_.valuestream_begin(array_slot);
  const Xapian::ValueIterator aend = db_.valuestream_end(array_slot);
  std::vector<std::string_view> forms;
  for (size_t d = 0; d < n; ++d) {
    c->offsets_[d] = uint32_t(c->keys_.size());
    Xapian::docid did = matches_.docids[d];
    if (v == end) continue;
    if (v.get_docid() < did) v.skip_to(did);
    if (v == end || v.get_docid() != did) continue;
    std::string bytes = *v;
    if (f.is_array) {
      if (av != aend && av.get_docid() < did) av.skip_to(did);
      if (av != aend && av.get_docid() == did) {
        std::string elements = *av;
        if (DecodeArraySlot(elements, &forms)) {
          for (auto form : forms) add(form);
        }
        continue;
      }
      if (bytes.empty() || !row_values_) continue;
      std::string key = db_.get_document(did, Xapian::DOC_ASSUME_VALID).get_value(kSlotRowKey);
      model::SearchField scalar = f;
      scalar.is_array = false;
      for (const auto& cell : row_values_(key, f)) add(SortValue(scalar, cell).substr(1));
    } else if (bytes.size() > 1) {
      add(std::string_view(bytes).substr(1));  // 0x01 . form
    }
  }
  c->offsets_[n] = uint32_t(c->keys_.size());
  if (!keyword) return;
  std::vector<uint32_t> order(words.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return words[a] < words[b]; });
  std::vector<uint32_t> rank(words.size());
  c->dict_.resize(words.size());
  for (uint32_t r = 0; r < order.size(); ++r) {
    rank[order[r]] = r;
    c->dict_[r] = std::move(words[order[r]]);
  }
  for (auto& k : c->keys_) k = rank[k];
}

std::string JavaDoubleString(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
  if (d == 0) return std::signbit(d) ? "-0.0" : "0.0";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
  std::string sci(buf, res.ptr);  // [-]d[.ddd]e[+-]xx
  std::string sign;
  if (sci[0] == '-') {
    sign = "-";
    sci.erase(0, 1);
  }
  size_t e = sci.find('e');
  int exp = std::stoi(sci.substr(e + 1));
  std::string digits = sci.substr(0, e);
  digits.erase(std::remove(digits.begin(), digits.end(), '.'), digits.end());
  if (exp >= -3 && exp < 7) {
    std::string out;
    if (exp >= 0) {
      if (digits.size() < size_t(exp) + 1) digits.append(size_t(exp) + 1 - digits.size(), '0');
      out = digits.substr(0, size_t(exp) + 1) + ".";
      std::string frac = digits.substr(size_t(exp) + 1);
      out += frac.empty() ? "0" : frac;
    } else {
      out = "0." + std::string(size_t(-exp - 1), '0') + digits;
    }
    return sign + out;
  }
  std::string frac = digits.substr(1);
  return sign + digits.substr(0, 1) + "." + (frac.empty() ? "0" : frac) + "E" + std::to_string(exp);
}

}  // namespace ttlstore::search
