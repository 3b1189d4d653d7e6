// How a search index's documents are laid out in Xapian (docs/formats.md, "Search index
// documents"): the term of each kind of value, the value slots, and the order-preserving
// 8-byte form of numbers. Shared by the document builder (document.h), the query builder
// (query_builder.h) and the checker; persisted inside every index folder, so never change a
// spelling in place.
//
// Terms (field i = the field's position in SearchIndexMeta::fields, as decimal; a sub-field of a
// Nested field is named by the positions down to it, "i.j" or "i.j.k": its term key. Every term
// of a sub-field holds the values of all the sub-documents, search/nested_field.h):
//   Q<row key>                  the document's unique id (a hashed form past kMaxRawIdBytes)
//   E<key>                      the field has a value (Exists); a Nested field: a sub-document
//   K<key>:<bytes>              Keyword value; Text token (with positions); Boolean "t"/"f"
//   N<key>:<level><prefix>      numeric trie bucket: the value's 8-byte form shifted right by
//                               4*level bits, its top (64 - 4*level)/8 bytes rounded up
//   G<key>:<level><cell>        GeoPoint cell (search/geo_cells.h)
//   T<minute>                   the row's newest-version minute (8-byte form), for TTL purge
//   P<shard>                    the ParallelScan shard (decimal, FNV-1a of the row key mod 64)
// Values:
//   slot 0  the row key (primary-key sort, paging)
//   slot 1  the row's newest version timestamp (ms, 8-byte form; absent: no versions)
//   slot 2+i  field i's sort value: 0x01 . form (8-byte form for numbers, bytes for Keyword,
//             "0"/"1" for Boolean); an array field keeps its first element. A GeoPoint field:
//             its points (search/geo_field.h); a Nested field: its sub-documents
//             (search/nested_field.h)
//   slot kSlotArrayBase+i  an array field's elements, each form length-prefixed (varint); in
//             documents written since issue 32 (aggregations read them; older ones lack it)
// Data: the row key.
#pragma once

#include <bit>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ttlstore::search {

inline constexpr unsigned kSlotRowKey = 0;
inline constexpr unsigned kSlotTimestamp = 1;
inline constexpr unsigned kSlotFieldBase = 2;
inline constexpr unsigned kSlotArrayBase = 1u << 20;  // above any field's kSlotFieldBase + i
inline constexpr int kShards = 64;
// Xapian refuses terms longer than 245 bytes; values longer than this are cut (Keyword,
// Text tokens) or hashed (the unique id).
inline constexpr size_t kMaxTermValueBytes = 200;
inline constexpr size_t kMaxRawIdBytes = 200;
// Bits per trie level: 16 levels, at most 2*15 buckets per level in a range.
inline constexpr int kTrieStep = 4;
inline constexpr int kTrieLevels = 64 / kTrieStep;

// Order-preserving forms of numbers as unsigned 64-bit keys.
inline uint64_t LongKey(int64_t v) { return static_cast<uint64_t>(v) ^ (uint64_t{1} << 63); }
inline uint64_t DoubleKey(double d) {
  if (d == 0) d = 0;  // -0.0 and 0.0 are one value
  uint64_t b = std::bit_cast<uint64_t>(d);
  return (b >> 63) ? ~b : (b | (uint64_t{1} << 63));
}
inline std::string KeyBytes(uint64_t k) {
  std::string s(8, '\0');
  for (int i = 7; i >= 0; --i) { s[i] = static_cast<char>(k & 0xff); k >>= 8; }
  return s;
}
inline uint64_t KeyFromBytes(std::string_view s) {
  uint64_t k = 0;
  for (size_t i = 0; i < 8 && i < s.size(); ++i) k = (k << 8) | static_cast<uint8_t>(s[i]);
  return k;
}

// Terms by term key (a top-level field's key is its position, FieldKey).
inline std::string FieldKey(size_t field) { return std::to_string(field); }
inline std::string KeyPrefix(char kind, std::string_view key) {
  std::string s(1, kind);
  s.append(key);
  s.push_back(':');
  return s;
}
inline std::string KeyExistsTerm(std::string_view key) { return "E" + std::string(key); }
inline std::string KeyValueTerm(std::string_view key, std::string_view value) {
  return KeyPrefix('K', key) + std::string(value.substr(0, kMaxTermValueBytes));
}
// The trie term of `value` at `level` (0 = exact).
std::string KeyTrieTerm(std::string_view key, uint64_t value, int level);

inline std::string FieldPrefix(char kind, size_t field) { return KeyPrefix(kind, FieldKey(field)); }
inline std::string ExistsTerm(size_t field) { return KeyExistsTerm(FieldKey(field)); }
inline std::string ValueTerm(size_t field, std::string_view value) {
  return KeyValueTerm(FieldKey(field), value);
}
inline std::string TrieTerm(size_t field, uint64_t key, int level) {
  return KeyTrieTerm(FieldKey(field), key, level);
}
std::string UniqueTerm(std::string_view row_key);
std::string MinuteTerm(int64_t timestamp_ms);
inline int64_t MinuteOf(int64_t timestamp_ms) {
  return timestamp_ms >= 0 ? timestamp_ms / 60000 : -((-timestamp_ms + 59999) / 60000);
}
int ShardOf(std::string_view row_key);

// The kSlotArrayBase slot of an array field: its elements' forms, each length-prefixed; and
// back (false when malformed).
std::string EncodeArraySlot(const std::vector<std::string>& forms);
bool DecodeArraySlot(std::string_view slot, std::vector<std::string_view>* forms);
inline std::string ShardTerm(int shard) { return "P" + std::to_string(shard); }

}  // namespace ttlstore::search
