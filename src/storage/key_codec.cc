#include "storage/key_codec.h"

#include "common/coding.h"
#include "model/number.h"

namespace ttlstore::storage {
namespace {

constexpr char kEscape = '\x00';
constexpr char kEscapedZero = '\xff';
constexpr char kTerminator = '\x01';

}  // namespace

uint32_t PartitionHash(std::string_view encoded) {
  uint64_t h = 14695981039346656037ull;  // FNV-1a 64 offset basis
  for (unsigned char c : encoded) {
    h ^= c;
    h *= 1099511628211ull;  // FNV-1a 64 prime
  }
  return static_cast<uint32_t>(h ^ (h >> 32));
}

void AppendKeyValue(std::string* out, const model::AttributeValue& value) {
  if (value.type() == model::ValueType::kN) {
    // Canonical text always parses; a failure here means a caller skipped validation.
    auto n = model::Number::Parse(value.scalar());
    (n ? *n : model::Number()).AppendOrderedKey(out);
    return;
  }
  for (char c : value.scalar()) {
    out->push_back(c);
    if (c == kEscape) out->push_back(kEscapedZero);
  }
  out->push_back(kEscape);
  out->push_back(kTerminator);
}

void AppendKeyPrefix(std::string* out, const model::AttributeValue& prefix) {
  for (char c : prefix.scalar()) {
    out->push_back(c);
    if (c == kEscape) out->push_back(kEscapedZero);
  }
}

uint64_t SegmentStart(uint32_t segment, uint32_t total) {
  return (uint64_t{segment} << 32) / total;
}

std::optional<model::AttributeValue> DecodeKeyValue(std::string_view* in, model::ValueType type) {
  if (type == model::ValueType::kN) {
    auto n = model::Number::DecodeOrderedKey(in);
    if (!n) return std::nullopt;
    return model::AttributeValue::Num(n->ToString());
  }
  std::string bytes;
  for (size_t i = 0; i < in->size(); ++i) {
    char c = (*in)[i];
    if (c != kEscape) {
      bytes.push_back(c);
      continue;
    }
    if (i + 1 >= in->size()) return std::nullopt;
    char next = (*in)[++i];
    if (next == kTerminator) {
      in->remove_prefix(i + 1);
      return type == model::ValueType::kS ? model::AttributeValue::String(std::move(bytes))
                                           : model::AttributeValue::Binary(std::move(bytes));
    }
    if (next != kEscapedZero) return std::nullopt;
    bytes.push_back(kEscape);
  }
  return std::nullopt;
}

std::string TablePrefix(uint32_t table_id) {
  std::string out;
  PutFixed32BE(&out, table_id);
  return out;
}

std::string PartitionPrefix(uint32_t table_id, const model::AttributeValue& partition_key) {
  std::string encoded;
  AppendKeyValue(&encoded, partition_key);
  std::string out;
  out.reserve(8 + encoded.size());
  PutFixed32BE(&out, table_id);
  PutFixed32BE(&out, PartitionHash(encoded));
  out += encoded;
  return out;
}

std::string ItemKey(uint32_t table_id, const model::AttributeValue& partition_key,
                    const model::AttributeValue* sort_key) {
  std::string out = PartitionPrefix(table_id, partition_key);
  if (sort_key) AppendKeyValue(&out, *sort_key);
  return out;
}

bool DecodeItemKey(std::string_view key, const model::KeySchema& schema, uint32_t* table_id,
                   model::AttributeValue* partition_key,
                   std::optional<model::AttributeValue>* sort_key) {
  uint32_t hash;
  if (!GetFixed32BE(&key, table_id) || !GetFixed32BE(&key, &hash)) return false;
  auto pk = DecodeKeyValue(&key, schema.hash.type);
  if (!pk) return false;
  *partition_key = std::move(*pk);
  sort_key->reset();
  if (schema.range) {
    auto sk = DecodeKeyValue(&key, schema.range->type);
    if (!sk) return false;
    *sort_key = std::move(*sk);
  }
  return key.empty();
}

std::string PrefixSuccessor(std::string prefix) {
  while (!prefix.empty() && static_cast<unsigned char>(prefix.back()) == 0xff) prefix.pop_back();
  if (!prefix.empty()) prefix.back() = static_cast<char>(prefix.back() + 1);
  return prefix;
}

}  // namespace ttlstore::storage
