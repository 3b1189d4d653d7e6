// Raw protobuf wire bytes for hostile-input tests: tags, varints, length-delimited fields and
// nesting the generated classes cannot produce (groups, unknown fields, malformed bytes).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ttlstore::tablestore::wire {

inline std::string Varint(uint64_t v) {
  std::string out;
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
  return out;
}

inline std::string Tag(uint32_t number, uint32_t wire_type) {
  return Varint((uint64_t{number} << 3) | wire_type);
}

// Field `number` holding `bytes` (wire type 2).
inline std::string Bytes(uint32_t number, std::string_view bytes) {
  return Tag(number, 2) + Varint(bytes.size()) + std::string(bytes);
}

inline std::string VarintField(uint32_t number, uint64_t v) { return Tag(number, 0) + Varint(v); }

// `levels` groups of field `number` nested in one another around `inner`: the input nesting
// protobuf's parser recurses on (one byte per level each side for numbers below 16).
inline std::string NestedGroups(uint32_t number, size_t levels, std::string_view inner = {}) {
  std::string open = Tag(number, 3), close = Tag(number, 4);
  std::string out;
  out.reserve(levels * (open.size() + close.size()) + inner.size());
  for (size_t i = 0; i < levels; ++i) out += open;
  out += inner;
  for (size_t i = 0; i < levels; ++i) out += close;
  return out;
}

// `levels` length-delimited fields of `number` nested in one another around `inner`.
inline std::string NestedLengthDelimited(uint32_t number, size_t levels,
                                         std::string_view inner = {}) {
  // Headers from the innermost out (each length covers everything inside it), then written
  // outermost first: linear, where wrapping level by level would copy quadratically.
  std::vector<std::string> headers;
  headers.reserve(levels);
  size_t length = inner.size();
  for (size_t i = 0; i < levels; ++i) {
    headers.push_back(Tag(number, 2) + Varint(length));
    length += headers.back().size();
  }
  std::string out;
  out.reserve(length);
  for (size_t i = levels; i-- > 0;) out += headers[i];
  out += inner;
  return out;
}

}  // namespace ttlstore::tablestore::wire
