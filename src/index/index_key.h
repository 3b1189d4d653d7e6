// Secondary-index entries: their key layout in the `indexes` family and their value (the
// projected item). The byte layout is persisted; docs/formats.md describes it.
//
//   entry key = table_id (4 BE) . index_id (4 BE) . hash (4 BE) . enc(index partition key)
//               [. enc(index sort key)] . enc(table partition key) [. enc(table sort key)]
//   value     = storage::EncodeItem(projected item)
//
// A GSI with a multi-attribute key (up to 4 partition-key and 4 sort-key attributes) writes
// each part as the concatenated encodings of its attributes in KeySchema order, and `hash` is
// the hash of the whole concatenated partition part. The encodings are self-delimiting and
// order-preserving, so entries sort by the sort attributes left to right, each in its type's
// order, and an equality on the first k sort attributes is one key prefix. With one attribute
// of each the bytes are exactly the single-attribute layout.
//
// `hash` and `enc` are the item key's (storage/key_codec.h), so a Query on an index is one seek
// and a range scan, a Scan visits index partitions in hash order, and a parallel Scan splits an
// index into hash ranges exactly as it splits a table. The table key at the end keeps two items
// with the same index key apart (and orders them by table key).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/attribute_value.h"
#include "model/table.h"

namespace ttlstore::index {

// The index key attributes of an item, when the item belongs in the index: every index key
// attribute present, of its declared type, and not an empty S or B (sparse indexes: any other
// item simply has no entry).
struct IndexKeyValues {
  std::vector<const model::AttributeValue*> hash;   // one per partition-key attribute
  std::vector<const model::AttributeValue*> range;  // one per sort-key attribute (none: hash-only)
};
std::optional<IndexKeyValues> IndexKeyOf(const model::SecondaryIndex& index,
                                         const model::Item& item);

// The prefix of every entry of one index.
std::string IndexPrefix(uint32_t table_id, uint32_t index_id);

// The prefix of every entry of one index partition (all index sort keys): `hash` holds the
// value of every partition-key attribute, in KeySchema order.
std::string IndexPartitionPrefix(uint32_t table_id, uint32_t index_id,
                                 const std::vector<const model::AttributeValue*>& hash);
// The same for a single-attribute partition key.
inline std::string IndexPartitionPrefix(uint32_t table_id, uint32_t index_id,
                                        const model::AttributeValue& hash) {
  return IndexPartitionPrefix(table_id, index_id, std::vector<const model::AttributeValue*>{&hash});
}

// The entry key of an item whose index key is `keys` and whose item key (storage::ItemKey) is
// `item_key`.
std::string EntryKey(uint32_t table_id, const model::SecondaryIndex& index,
                     const IndexKeyValues& keys, std::string_view item_key);

// The hash field of an entry key (for parallel-scan segments), or 0 if malformed.
uint32_t EntryHash(std::string_view entry_key);

// True if `attribute` is in the index's projection: a table or index key attribute, any
// attribute under ALL, or one of INCLUDE's NonKeyAttributes.
bool Projects(const model::TableDescriptor& table, const model::SecondaryIndex& index,
              const std::string& attribute);

// The attributes of `item` the index holds (Projects). REQUIRES: the item has the table key.
model::Item Project(const model::TableDescriptor& table, const model::SecondaryIndex& index,
                    const model::Item& item);

// The table key and index key attributes of an item or entry (a LastEvaluatedKey on an index).
model::Item EntryKeyAttributes(const model::TableDescriptor& table,
                               const model::SecondaryIndex& index, const model::Item& item);

// The index named `name`, or null.
const model::SecondaryIndex* FindIndex(const model::TableDescriptor& table,
                                       const std::string& name);

}  // namespace ttlstore::index
