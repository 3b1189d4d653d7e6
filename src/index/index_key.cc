#include "index/index_key.h"

#include <algorithm>

#include "common/coding.h"
#include "index/vector_value.h"
#include "storage/key_codec.h"

namespace ttlstore::index {
namespace {

// The item's value of one index key attribute, or null when the item has none the index can
// take (absent, of another type, or empty): such an item is not in the index. Writes refuse
// the last two (ValidateIndexKeys); a backfill skips them.
const model::AttributeValue* KeyValue(const model::KeyElement& element, const model::Item& item) {
  auto it = item.find(element.name);
  if (it == item.end() || it->second.type() != element.type) return nullptr;
  if (element.type != model::ValueType::kN && it->second.scalar().empty()) return nullptr;
  return &it->second;
}

// The values of `elements` in `item`, or nullopt unless every one is there and the S and B
// values together stay within `max_bytes` (the key limits; a single attribute's own limit).
std::optional<std::vector<const model::AttributeValue*>> KeyValues(
    const std::vector<const model::KeyElement*>& elements, const model::Item& item,
    size_t max_bytes) {
  std::vector<const model::AttributeValue*> out;
  size_t bytes = 0;
  for (const model::KeyElement* e : elements) {
    const model::AttributeValue* v = KeyValue(*e, item);
    if (!v) return std::nullopt;
    if (v->type() != model::ValueType::kN) bytes += v->scalar().size();
    out.push_back(v);
  }
  if (bytes > max_bytes) return std::nullopt;
  return out;
}

void CopyAttribute(const model::Item& from, const std::string& name, model::Item* to) {
  auto it = from.find(name);
  if (it != from.end()) to->insert_or_assign(name, it->second);
}

}  // namespace

std::optional<IndexKeyValues> IndexKeyOf(const model::SecondaryIndex& index,
                                         const model::Item& item) {
  if (index.IsVector()) {
    // A vector index: the item's vector, and its SearchSchema HASH value if one is declared;
    // the entry is keyed by that HASH value (none: one partition) and the item key.
    if (!ItemVector(index, item)) return std::nullopt;
    IndexKeyValues out;
    if (index.vector->has_hash) {
      auto hash = KeyValues({&index.key.hash}, item, model::kMaxPartitionKeyBytes);
      if (!hash) return std::nullopt;
      out.hash = std::move(*hash);
    }
    return out;
  }
  auto hash = KeyValues(index.key.HashElements(), item, model::kMaxPartitionKeyBytes);
  if (!hash) return std::nullopt;
  auto range = KeyValues(index.key.RangeElements(), item, model::kMaxSortKeyBytes);
  if (!range) return std::nullopt;
  return IndexKeyValues{std::move(*hash), std::move(*range)};
}

std::string IndexPrefix(uint32_t table_id, uint32_t index_id) {
  std::string out;
  PutFixed32BE(&out, table_id);
  PutFixed32BE(&out, index_id);
  return out;
}

std::string IndexPartitionPrefix(uint32_t table_id, uint32_t index_id,
                                 const std::vector<const model::AttributeValue*>& hash) {
  // As storage::PartitionPrefix: hash of the encoded partition key, then the encoding; here the
  // encoding is every partition-key attribute's, concatenated.
  std::string encoded;
  for (const model::AttributeValue* v : hash) storage::AppendKeyValue(&encoded, *v);
  std::string out = IndexPrefix(table_id, index_id);
  PutFixed32BE(&out, storage::PartitionHash(encoded));
  out += encoded;
  return out;
}

std::string EntryKey(uint32_t table_id, const model::SecondaryIndex& index,
                     const IndexKeyValues& keys, std::string_view item_key) {
  std::string out = IndexPartitionPrefix(table_id, index.id, keys.hash);
  for (const model::AttributeValue* v : keys.range) storage::AppendKeyValue(&out, *v);
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
  if (table.key.Contains(attribute) || index.key.Contains(attribute)) return true;
  if (index.IsVector()) {
    // The vector attribute and the INLINE_FILTER attributes are always in a vector index.
    if (attribute == index.vector->attribute) return true;
    for (const auto& f : index.vector->inline_filters) {
      if (f.name == attribute) return true;
    }
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
  if (!index.IsVector() || index.vector->has_hash) {
    for (const model::KeyElement* e : index.key.HashElements()) CopyAttribute(item, e->name, &out);
  }
  for (const model::KeyElement* e : index.key.RangeElements()) CopyAttribute(item, e->name, &out);
  return out;
}

model::Item Project(const model::TableDescriptor& table, const model::SecondaryIndex& index,
                    const model::Item& item) {
  if (index.projection == model::ProjectionType::kAll) return item;
  model::Item out = EntryKeyAttributes(table, index, item);
  if (index.IsVector()) {
    CopyAttribute(item, index.vector->attribute, &out);
    for (const auto& f : index.vector->inline_filters) CopyAttribute(item, f.name, &out);
  }
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
