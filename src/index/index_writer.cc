#include "index/index_writer.h"

#include <optional>

#include "index/index_key.h"
#include "index/vector_entry_hook.h"
#include "index/vector_value.h"
#include "model/item_size.h"
#include "storage/item_codec.h"

namespace ttlstore::index {
namespace {

struct Entry {
  std::string key;
  const model::Item* item = nullptr;  // the whole item under ALL (not copied)
  model::Item projected;              // the projected attributes otherwise
  int64_t size = 0;
  const model::Item& value() const { return item ? *item : projected; }
};

std::optional<Entry> EntryOf(const model::TableDescriptor& table,
                             const model::SecondaryIndex& index, const std::string& item_key,
                             const model::Item* item) {
  if (!item) return std::nullopt;
  auto keys = IndexKeyOf(index, *item);
  if (!keys) return std::nullopt;
  Entry e;
  e.key = EntryKey(table.id, index, *keys, item_key);
  if (index.projection == model::ProjectionType::kAll) {
    e.item = item;
  } else {
    e.projected = Project(table, index, *item);
  }
  e.size = static_cast<int64_t>(model::ItemSize(e.value()));
  return e;
}

// The writes that replacing `before` with `after` makes to one index: a delete of the old entry
// when the item leaves the index or its index key changes, a put of the new entry when the item
// is in the index afterwards and the entry changed; neither when the entry is the same.
struct EntryChange {
  bool remove = false;
  bool put = false;
  bool any() const { return remove || put; }
};

EntryChange ChangeOf(const std::optional<Entry>& before, const std::optional<Entry>& after) {
  bool same = before && after && before->key == after->key && before->value() == after->value();
  return {.remove = before && (!after || before->key != after->key), .put = after && !same};
}

// An entry as replicated to a vector index: the vector as float32, the rest by the item-size
// rule (model/item_size.h).
size_t ReplicatedEntryBytes(const model::SecondaryIndex& index, const Entry& entry) {
  size_t bytes = 0;
  for (const auto& [name, value] : entry.value()) {
    bytes += name.size();
    bytes += name == index.vector->attribute ? 4 * size_t{index.vector->dimensions}
                                             : model::ValueSize(value);
  }
  return bytes;
}

// The table key attributes of `item`, by the item-size rule: what removing its entry replicates.
size_t KeyBytes(const model::TableDescriptor& table, const model::Item& item) {
  size_t bytes = 0;
  for (const model::KeyElement* e : table.key.HashElements()) {
    if (auto it = item.find(e->name); it != item.end())
      bytes += e->name.size() + model::ValueSize(it->second);
  }
  for (const model::KeyElement* e : table.key.RangeElements()) {
    if (auto it = item.find(e->name); it != item.end())
      bytes += e->name.size() + model::ValueSize(it->second);
  }
  return bytes;
}

}  // namespace

void AddIndexChanges(storage::WriteBatch& batch, const model::TableDescriptor& table,
                     const std::string& item_key, const model::Item* old_item,
                     const model::Item* new_item) {
  std::vector<VectorEntryTouch> vector_touches;  // for the vector graphs (vector_entry_hook.h)
  for (const model::SecondaryIndex& index : table.indexes) {
    std::optional<Entry> before = EntryOf(table, index, item_key, old_item);
    std::optional<Entry> after = EntryOf(table, index, item_key, new_item);
    if (!before && !after) continue;
    if (before && index.status == model::IndexStatus::kCreating) {
      // The backfill may not have reached the old item yet (index_builder.h): only an entry
      // that exists is replaced, so the index's stats stay exact. Reads only while CREATING.
      auto existing = batch.store().Get(storage::Family::kIndexes, before->key);
      if (!existing || !*existing) before.reset();
    }
    EntryChange change = ChangeOf(before, after);
    if (!change.any()) continue;
    if (change.remove) batch.Delete(storage::Family::kIndexes, before->key);
    if (change.put) {
      batch.Put(storage::Family::kIndexes, after->key, storage::EncodeItem(after->value()));
    }
    batch.AddIndexStats(table.id, index.id, (after ? 1 : 0) - (before ? 1 : 0),
                        (after ? after->size : 0) - (before ? before->size : 0));
    if (index.IsVector()) {
      if (change.remove) vector_touches.push_back({table.id, index.id, before->key});
      if (change.put) vector_touches.push_back({table.id, index.id, after->key});
    }
  }
  NoteVectorEntries(batch, std::move(vector_touches));
}

std::vector<IndexEntryWrites> IndexWritesOf(const model::TableDescriptor& table,
                                            const model::Item* old_item,
                                            const model::Item* new_item) {
  std::vector<IndexEntryWrites> out;
  for (const model::SecondaryIndex& index : table.indexes) {
    // The item key is the same before and after, so any one value compares entries alike.
    std::optional<Entry> before = EntryOf(table, index, std::string(), old_item);
    std::optional<Entry> after = EntryOf(table, index, std::string(), new_item);
    EntryChange change = ChangeOf(before, after);
    if (!change.any()) continue;
    IndexEntryWrites writes{&index, {}};
    if (change.remove) writes.sizes.push_back(static_cast<size_t>(before->size));
    if (change.put) writes.sizes.push_back(static_cast<size_t>(after->size));
    if (index.IsVector()) {
      writes.replicated_bytes =
          change.put ? ReplicatedEntryBytes(index, *after) : KeyBytes(table, before->value());
    }
    out.push_back(std::move(writes));
  }
  return out;
}

namespace {

// Which checks CheckIndexKeys runs: kTypes the type and the size limits, kNotEmpty empty values.
enum Checks : unsigned { kTypes = 1, kNotEmpty = 2 };

Status CheckIndexKeys(const model::TableDescriptor& table, const model::Item& item,
                      IndexKeyWrite write, unsigned checks) {
  if (checks & kTypes) RETURN_IF_ERROR(CheckVectorAttributes(table, item));
  for (const model::SecondaryIndex& index : table.indexes) {
    if (index.IsVector() && !index.vector->has_hash) continue;
    for (bool hash : {true, false}) {
      // A multi-attribute key's values count together against the key's limit, as the
      // service's "Aggregated size of all range keys" says of sort keys (docs/compatibility.md).
      size_t bytes = 0;
      for (const model::KeyElement* element :
           hash ? index.key.HashElements() : index.key.RangeElements()) {
        auto it = item.find(element->name);
        if (it == item.end()) continue;
        const model::AttributeValue& v = it->second;
        if (v.type() != element->type) {
          if (!(checks & kTypes)) continue;
          return Error::Validation(
              "One or more parameter values were invalid: Type mismatch for Index Key " +
              element->name + " Expected: " + model::TypeName(element->type) +
              " Actual: " + model::TypeName(v.type()) + " IndexName: " + index.name);
        }
        if (v.type() == model::ValueType::kN) continue;
        if (v.scalar().empty()) {
          if (!(checks & kNotEmpty)) continue;
          const char* what = v.type() == model::ValueType::kS ? "string" : "binary";
          if (write == IndexKeyWrite::kUpdate) {
            return Error::Validation(
                std::string("One or more parameter values are not valid. The update expression "
                            "attempted to update a secondary index key to a value that is not "
                            "supported. The AttributeValue for a key attribute cannot contain "
                            "an empty ") +
                what + " value.");
          }
          return Error::Validation(
              std::string("One or more parameter values are not valid. A value specified for a "
                          "secondary index key is not supported. The AttributeValue for a key "
                          "attribute cannot contain an empty ") +
              what + " value. IndexName: " + index.name + ", IndexKey: " + element->name);
        }
        bytes += v.scalar().size();
      }
      // The table's key limits hold for index keys too (developer guide, "Global secondary
      // indexes": key attribute values of at most 2048 and 1024 bytes); the texts are the table
      // key's, as users report the service answering. Checked with the types: in a transaction
      // it cancels the action, as a table key over its limit does.
      if ((checks & kTypes) &&
          bytes > (hash ? model::kMaxPartitionKeyBytes : model::kMaxSortKeyBytes)) {
        return Error::Validation(
            hash ? "One or more parameter values were invalid: Size of hashkey has exceeded the "
                   "maximum size limit of2048 bytes"
                 : "One or more parameter values were invalid: Aggregated size of all range keys "
                   "has exceeded the size limit of 1024 bytes");
      }
    }
  }
  return Status::Ok();
}

}  // namespace

Status ValidateIndexKeys(const model::TableDescriptor& table, const model::Item& item,
                         IndexKeyWrite write) {
  return CheckIndexKeys(table, item, write, kTypes | kNotEmpty);
}

Status CheckIndexKeysNotEmpty(const model::TableDescriptor& table, const model::Item& item,
                              IndexKeyWrite write) {
  return CheckIndexKeys(table, item, write, kNotEmpty);
}

Status CheckIndexKeyTypes(const model::TableDescriptor& table, const model::Item& item) {
  return CheckIndexKeys(table, item, IndexKeyWrite::kPut, kTypes);
}

}  // namespace ttlstore::index
