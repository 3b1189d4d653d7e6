#include "search/query_codec.h"

#include <cstring>

#include "common/coding.h"
#include "search/query_builder.h"

namespace ttlstore::search {
namespace {

using model::CellType;
using model::CellValue;

constexpr uint8_t kMaxKind = uint8_t(Query::Kind::kNested);

void PutDouble(std::string* out, double d) {
  uint64_t bits;
  std::memcpy(&bits, &d, sizeof bits);
  PutFixed64BE(out, bits);
}

bool GetDouble(std::string_view* in, double* d) {
  uint64_t bits;
  if (!GetFixed64BE(in, &bits)) return false;
  std::memcpy(d, &bits, sizeof bits);
  return true;
}

bool GetByte(std::string_view* in, uint8_t* b) {
  if (in->empty()) return false;
  *b = uint8_t(in->front());
  in->remove_prefix(1);
  return true;
}

bool GetString(std::string_view* in, std::string* s) {
  std::string_view v;
  if (!GetLengthPrefixed(in, &v)) return false;
  s->assign(v);
  return true;
}

void PutValue(std::string* out, const CellValue& v) {
  out->push_back(char(v.type));
  switch (v.type) {
    case CellType::kInteger: PutFixed64BE(out, uint64_t(v.integer)); break;
    case CellType::kDouble: PutDouble(out, v.dbl); break;
    case CellType::kBoolean: out->push_back(v.boolean ? 1 : 0); break;
    default: PutLengthPrefixed(out, v.bytes); break;
  }
}

bool GetValue(std::string_view* in, CellValue* v) {
  uint8_t type, b;
  uint64_t u;
  std::string s;
  if (!GetByte(in, &type)) return false;
  switch (static_cast<CellType>(type)) {
    case CellType::kInteger:
      if (!GetFixed64BE(in, &u)) return false;
      *v = CellValue::Integer(int64_t(u));
      return true;
    case CellType::kDouble: {
      double d;
      if (!GetDouble(in, &d)) return false;
      *v = CellValue::Double(d);
      return true;
    }
    case CellType::kBoolean:
      if (!GetByte(in, &b) || b > 1) return false;
      *v = CellValue::Boolean(b == 1);
      return true;
    case CellType::kString:
      if (!GetString(in, &s)) return false;
      *v = CellValue::String(std::move(s));
      return true;
    default: return false;
  }
}

void Put(std::string* out, const Query& q) {
  out->push_back(char(q.kind));
  PutLengthPrefixed(out, q.field);
  PutVarint64(out, q.terms.size());
  for (const auto& t : q.terms) PutValue(out, t);
  uint8_t flags = (q.from ? 1 : 0) | (q.to ? 2 : 0) | (q.include_lower ? 4 : 0) |
                  (q.include_upper ? 8 : 0) | (q.match_and ? 16 : 0) |
                  (q.minimum_should_match ? 32 : 0);
  out->push_back(char(flags));
  if (q.from) PutValue(out, *q.from);
  if (q.to) PutValue(out, *q.to);
  PutLengthPrefixed(out, q.text);
  if (q.minimum_should_match) PutVarsint64(out, *q.minimum_should_match);
  for (const auto* list : {&q.must, &q.must_not, &q.filter, &q.should, &q.sub}) {
    PutVarint64(out, list->size());
    for (const auto& sub : *list) Put(out, sub);
  }
  PutDouble(out, double(q.weight));
  PutVarint64(out, q.points.size());
  for (const auto& p : q.points) {
    PutDouble(out, p.lat);
    PutDouble(out, p.lon);
  }
  PutDouble(out, q.distance);
  out->push_back(char(q.score_mode));
}

class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  bool Get(Query* q, int depth) {
    if (depth > kMaxQueryDepth || ++nodes_ > kMaxQueryNodes) return false;
    uint8_t kind, flags, mode;
    uint64_t n;
    if (!GetByte(&in_, &kind) || kind > kMaxKind || !GetString(&in_, &q->field) ||
        !GetVarint64(&in_, &n) || n > in_.size()) {
      return false;
    }
    q->kind = static_cast<Query::Kind>(kind);
    for (uint64_t i = 0; i < n; ++i) {
      CellValue v;
      if (!GetValue(&in_, &v)) return false;
      q->terms.push_back(std::move(v));
    }
    if (!GetByte(&in_, &flags) || flags > 63) return false;
    if (flags & 1) {
      CellValue v;
      if (!GetValue(&in_, &v)) return false;
      q->from = std::move(v);
    }
    if (flags & 2) {
      CellValue v;
      if (!GetValue(&in_, &v)) return false;
      q->to = std::move(v);
    }
    q->include_lower = flags & 4;
    q->include_upper = flags & 8;
    q->match_and = flags & 16;
    if (!GetString(&in_, &q->text)) return false;
    if (flags & 32) {
      int64_t m;
      if (!GetVarsint64(&in_, &m) || m < INT32_MIN || m > INT32_MAX) return false;
      q->minimum_should_match = int32_t(m);
    }
    for (auto* list : {&q->must, &q->must_not, &q->filter, &q->should, &q->sub}) {
      if (!GetVarint64(&in_, &n) || n > in_.size()) return false;
      for (uint64_t i = 0; i < n; ++i) {
        list->emplace_back();
        if (!Get(&list->back(), depth + 1)) return false;
      }
    }
    double w;
    if (!GetDouble(&in_, &w)) return false;
    q->weight = float(w);
    if (!GetVarint64(&in_, &n) || n > in_.size() / 16) return false;
    for (uint64_t i = 0; i < n; ++i) {
      GeoPoint p;
      if (!GetDouble(&in_, &p.lat) || !GetDouble(&in_, &p.lon)) return false;
      q->points.push_back(p);
    }
    if (!GetDouble(&in_, &q->distance) || !GetByte(&in_, &mode) || mode < 1 || mode > 5) {
      return false;
    }
    q->score_mode = static_cast<Query::ScoreMode>(mode);
    return true;
  }
  bool done() const { return in_.empty(); }

 private:
  std::string_view in_;
  size_t nodes_ = 0;
};

}  // namespace

std::string EncodeQuery(const Query& q) {
  std::string out;
  Put(&out, q);
  return out;
}

std::optional<Query> DecodeQuery(std::string_view bytes) {
  Reader r(bytes);
  Query q;
  if (!r.Get(&q, 1) || !r.done()) return std::nullopt;
  return q;
}

}  // namespace ttlstore::search
