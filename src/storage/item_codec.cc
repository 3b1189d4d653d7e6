#include "storage/item_codec.h"

#include "common/coding.h"

namespace ttlstore::storage {
namespace {

using model::AttributeValue;
using model::ValueType;

// Bounds recursion on corrupt input; valid items nest at most 32 levels.
constexpr int kMaxDecodeDepth = 64;

void EncodeValue(std::string* out, const AttributeValue& v);

void EncodeMap(std::string* out, const model::Map& map) {
  PutVarint64(out, map.size());
  for (const auto& [name, v] : map) {
    PutLengthPrefixed(out, name);
    EncodeValue(out, v);
  }
}

void EncodeValue(std::string* out, const AttributeValue& v) {
  out->push_back(static_cast<char>(v.type()));
  switch (v.type()) {
    case ValueType::kS:
    case ValueType::kN:
    case ValueType::kB:
      PutLengthPrefixed(out, v.scalar());
      break;
    case ValueType::kBool:
      out->push_back(v.boolean() ? 1 : 0);
      break;
    case ValueType::kNull:
      break;
    case ValueType::kM:
      EncodeMap(out, v.map());
      break;
    case ValueType::kL:
      PutVarint64(out, v.list().size());
      for (const auto& e : v.list()) EncodeValue(out, e);
      break;
    case ValueType::kSS:
    case ValueType::kNS:
    case ValueType::kBS:
      PutVarint64(out, v.set().size());
      for (const auto& m : v.set()) PutLengthPrefixed(out, m);
      break;
  }
}

bool DecodeValue(std::string_view* in, int depth, AttributeValue* out);

bool DecodeMap(std::string_view* in, int depth, model::Map* out) {
  uint64_t n;
  if (!GetVarint64(in, &n) || n > in->size()) return false;
  for (uint64_t i = 0; i < n; ++i) {
    std::string_view name;
    AttributeValue v;
    if (!GetLengthPrefixed(in, &name) || !DecodeValue(in, depth + 1, &v)) return false;
    out->insert_or_assign(std::string(name), std::move(v));
  }
  return true;
}

bool DecodeValue(std::string_view* in, int depth, AttributeValue* out) {
  if (depth > kMaxDecodeDepth || in->empty()) return false;
  auto type = static_cast<ValueType>(in->front());
  in->remove_prefix(1);
  std::string_view s;
  switch (type) {
    case ValueType::kS:
    case ValueType::kN:
    case ValueType::kB:
      if (!GetLengthPrefixed(in, &s)) return false;
      *out = type == ValueType::kS   ? AttributeValue::String(std::string(s))
             : type == ValueType::kN ? AttributeValue::Num(std::string(s))
                                     : AttributeValue::Binary(std::string(s));
      return true;
    case ValueType::kBool:
      if (in->empty()) return false;
      *out = AttributeValue::Bool(in->front() != 0);
      in->remove_prefix(1);
      return true;
    case ValueType::kNull:
      *out = AttributeValue::Null();
      return true;
    case ValueType::kM: {
      model::Map map;
      if (!DecodeMap(in, depth, &map)) return false;
      *out = AttributeValue::OfMap(std::move(map));
      return true;
    }
    case ValueType::kL: {
      uint64_t n;
      if (!GetVarint64(in, &n) || n > in->size()) return false;
      model::List list(n);
      for (auto& e : list) {
        if (!DecodeValue(in, depth + 1, &e)) return false;
      }
      *out = AttributeValue::OfList(std::move(list));
      return true;
    }
    case ValueType::kSS:
    case ValueType::kNS:
    case ValueType::kBS: {
      uint64_t n;
      if (!GetVarint64(in, &n) || n > in->size()) return false;
      std::vector<std::string> members(n);
      for (auto& m : members) {
        if (!GetLengthPrefixed(in, &s)) return false;
        m.assign(s);
      }
      *out = AttributeValue::Set(type, std::move(members));
      return true;
    }
  }
  return false;
}

}  // namespace

std::string EncodeItem(const model::Item& item) {
  std::string out;
  out.push_back(kItemFormatV1);
  EncodeMap(&out, item);
  return out;
}

std::optional<model::Item> DecodeItem(std::string_view bytes) {
  if (bytes.empty() || bytes.front() != kItemFormatV1) return std::nullopt;
  bytes.remove_prefix(1);
  model::Item item;
  if (!DecodeMap(&bytes, 0, &item) || !bytes.empty()) return std::nullopt;
  return item;
}

}  // namespace ttlstore::storage
