// Order-preserving encodings of primary keys, used as RocksDB keys in the `items` family.
// The byte layout is persisted; docs/formats.md describes it. Never change it in place.
//
//   item key  = table_id (4 bytes BE) . hash (4 bytes BE) . enc(partition key) [. enc(sort key)]
//   hash      = FNV-1a of enc(partition key), folded to 32 bits: it spreads partitions over the key
//               space (a Scan sees them in hash order, as DynamoDB's does) and lets a parallel
//               Scan split a table into disjoint hash ranges.
//   enc(S|B)  = the bytes with 0x00 written as 0x00 0xFF, then the terminator 0x00 0x01
//               (byte order = DynamoDB's UTF-8 / unsigned-byte order, and self-delimiting)
//   enc(N)    = Number::AppendOrderedKey (byte order = numeric order)
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "model/attribute_value.h"
#include "model/table.h"

namespace ttlstore::storage {

// Bytes of table id . hash at the front of every item key: one partition's items share them
// (the `items` family's prefix filters are built over them).
inline constexpr size_t kItemPrefixBytes = 8;
// Bytes of table id . index id . hash at the front of every secondary-index entry key
// (index/index_key.h): one index partition's entries share them.
inline constexpr size_t kIndexPrefixBytes = 12;

// The 4-byte hash of an encoded partition key (the concatenated encodings of every attribute
// of a multi-attribute index partition key).
uint32_t PartitionHash(std::string_view encoded);

// Appends the order-preserving encoding of a key value (S, N or B).
// REQUIRES: value is valid for its type (N canonical).
void AppendKeyValue(std::string* out, const model::AttributeValue& value);

// Appends the encoding of an S or B value without its terminator: every key whose value starts
// with `prefix` starts with these bytes (used for begins_with on sort keys).
void AppendKeyPrefix(std::string* out, const model::AttributeValue& prefix);

// The start of hash-range segment `segment` of `total` (parallel Scan): the first 4-byte hash
// value it covers. Segment `total` (one past the last) is 2^32.
uint64_t SegmentStart(uint32_t segment, uint32_t total);

// Decodes one value of `type` written by AppendKeyValue at the front of `in`; advances `in`.
std::optional<model::AttributeValue> DecodeKeyValue(std::string_view* in, model::ValueType type);

// The prefix shared by every item of a table.
std::string TablePrefix(uint32_t table_id);

// The prefix shared by every item of one partition (all sort keys).
std::string PartitionPrefix(uint32_t table_id, const model::AttributeValue& partition_key);

// The full key of one item. `sort_key` is null for tables without a sort key.
std::string ItemKey(uint32_t table_id, const model::AttributeValue& partition_key,
                    const model::AttributeValue* sort_key);

// Decodes an item key back into its key attributes. Returns false on malformed bytes.
bool DecodeItemKey(std::string_view key, const model::KeySchema& schema, uint32_t* table_id,
                   model::AttributeValue* partition_key,
                   std::optional<model::AttributeValue>* sort_key);

// The smallest key greater than every key starting with `prefix` (for range ends).
// REQUIRES: prefix is not all 0xFF bytes.
std::string PrefixSuccessor(std::string prefix);

}  // namespace ttlstore::storage
