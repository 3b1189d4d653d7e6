#include "index/index_key.h"

#include <algorithm>

#include "common/coding.h"
#include "storage/key_codec.h"

namespace ttlstore::index {
namespace {

// The item's value of one index key attribute, or null when the item has none the index can
// take (absent, of another type, empty, or longer than the key limits): such an item is not in
// the index. Writes refuse the last three (ValidateIndexKeys); a backfill skips them.
const model::AttributeValue* KeyValue(const model::KeyElement& element, const model::Item& item,
                                      size_t max_bytes) {
  auto it = item.find(element.name);
  if (it == item.end() || it->second.type() != element.type) return nullptr;
  if (element.type != model::ValueType::kN &&
      (it->second.scalar().empty() || it->second.scalar().size() > max_bytes)) {
    return nullptr;
  }
  return &it->second;
}

void CopyAttribute(const model::Item& from, const std::string& name, model::Item* to) {
  auto it = from.find(name);
  if (it != from.end()) to->insert_or_assign(name, it->second);
}

}  // namespace

std::optional<IndexKeyValues> IndexKeyOf(const model::SecondaryIndex& index,
                                         const model::Item& item) {
  IndexKeyValues keys;
  keys.hash = KeyValue(index.key.hash, item, model::kMaxPartitionKeyBytes);
  if (!keys.hash) return std::nullopt;
  if (index.key.range) {
    keys.range = KeyValue(*index.key.range, item, model::kMaxSortKeyBytes);
    if (!keys.range) return std::nullopt;
  }
  return keys;
}

std::string IndexPrefix(uint32_t table_id, uint32_t index_id) {
  std::string out;
  PutFixed32BE(&out, table_id);
  PutFixed32BE(&out, index_id);
  return out;
}

std::string IndexPartitionPrefix(uint32_t table_id, uint32_t index_id,
                                 const model::AttributeValue& hash) {
  // storage::PartitionPrefix is table_id . hash . enc(value): reuse its hash and encoding.
  std::string partition = storage::PartitionPrefix(0, hash);
  std::string out = IndexPrefix(table_id, index_id);
  out.append(partition, 4, std::string::npos);
  return out;
}

std::string EntryKey(uint32_t table_id, const model::SecondaryIndex& index,
                     const IndexKeyValues& keys, std::string_view item_key) {
  std::string out = IndexPartitionPrefix(table_id, index.id, *keys.hash);
  if (keys.range) storage::AppendKeyValue(&out, *keys.range);
  // The item key minus its table id and hash: enc(partition key) [. enc(sort key)].
  out.append(item_key.substr(std::min<size_t>(8, item_key.size())));
  return out;
}

uint32_t EntryHash(std::string_view entry_key) {
  uint32_t table_id, index_id, hash;
  if (!GetFixed32BE(&entry_key, &table_id) || !GetFixed32BE(&entry_key, &index_id) ||
      !GetFixed32BE(&entry_key, &hash)) {
    return 0;
  }
  return hash;
}

bool Projects(const model::TableDescriptor& table, const model::SecondaryIndex& index,
              const std::string& attribute) {
  if (index.projection == model::ProjectionType::kAll) return true;
  if (attribute == table.key.hash.name || (table.key.range && attribute == table.key.range->name) ||
      attribute == index.key.hash.name || (index.key.range && attribute == index.key.range->name)) {
    return true;
  }
  return index.projection == model::ProjectionType::kInclude &&
         std::find(index.non_key_attributes.begin(), index.non_key_attributes.end(),
                   attribute) != index.non_key_attributes.end();
}

model::Item EntryKeyAttributes(const model::TableDescriptor& table,
                               const model::SecondaryIndex& index, const model::Item& item) {
  model::Item out;
  CopyAttribute(item, table.key.hash.name, &out);
  if (table.key.range) CopyAttribute(item, table.key.range->name, &out);
  CopyAttribute(item, index.key.hash.name, &out);
  if (index.key.range) CopyAttribute(item, index.key.range->name, &out);
  return out;
}

model::Item Project(const model::TableDescriptor& table, const model::SecondaryIndex& index,
                    const model::Item& item) {
  if (index.projection == model::ProjectionType::kAll) return item;
  model::Item out = EntryKeyAttributes(table, index, item);
  if (index.projection == model::ProjectionType::kInclude) {
    for (const auto& name : index.non_key_attributes) CopyAttribute(item, name, &out);
  }
  return out;
}

const model::SecondaryIndex* FindIndex(const model::TableDescriptor& table,
                                       const std::string& name) {
  for (const auto& ix : table.indexes) {
    if (ix.name == name) return &ix;
  }
  return nullptr;
}

}  // namespace ttlstore::index
