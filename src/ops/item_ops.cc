#include "ops/item_ops.h"

#include <functional>

#include "model/item_size.h"
#include "storage/item_codec.h"
#include "storage/key_codec.h"

namespace ttlstore::ops {
namespace {

constexpr char kInvalid[] = "One or more parameter values were invalid: ";

std::string EncodedKey(const model::TableDescriptor& table, const model::Item& item) {
  const model::AttributeValue& pk = item.at(table.key.hash.name);
  const model::AttributeValue* sk = table.key.range ? &item.at(table.key.range->name) : nullptr;
  return storage::ItemKey(table.id, pk, sk);
}

Status CheckKeyValue(const model::KeyElement& element, const model::AttributeValue& v,
                     bool is_partition) {
  if (v.scalar().empty() && v.type() != model::ValueType::kN) {
    return Error::Validation(
        std::string("One or more parameter values are not valid. The AttributeValue for a key "
                    "attribute cannot contain an empty ") +
        (v.type() == model::ValueType::kS ? "string" : "binary") + " value. Key: " + element.name);
  }
  if (is_partition && v.scalar().size() > kMaxPartitionKeyBytes) {
    return Error::Validation(std::string(kInvalid) +
                             "Size of hashkey has exceeded the maximum size limit of2048 bytes");
  }
  if (!is_partition && v.scalar().size() > kMaxSortKeyBytes) {
    return Error::Validation(
        std::string(kInvalid) +
        "Aggregated size of all range keys has exceeded the size limit of 1024 bytes");
  }
  return Status::Ok();
}

}  // namespace

Status ValidateItemKey(const model::TableDescriptor& table, const model::Item& item) {
  for (int i = 0; i < 2; ++i) {
    const model::KeyElement* element = i == 0 ? &table.key.hash
                                       : table.key.range ? &*table.key.range
                                                         : nullptr;
    if (!element) break;
    auto it = item.find(element->name);
    if (it == item.end()) {
      return Error::Validation(std::string(kInvalid) + "Missing the key " + element->name +
                               " in the item");
    }
    if (it->second.type() != element->type) {
      return Error::Validation(std::string(kInvalid) + "Type mismatch for key " + element->name +
                               " expected: " + model::TypeName(element->type) +
                               " actual: " + model::TypeName(it->second.type()));
    }
    if (Status s = CheckKeyValue(*element, it->second, i == 0); !s) return s;
  }
  return Status::Ok();
}

Status ValidateKey(const model::TableDescriptor& table, const model::Item& key) {
  size_t expected = table.key.range ? 2 : 1;
  auto matches = [&](const model::KeyElement& e) {
    auto it = key.find(e.name);
    return it != key.end() && it->second.type() == e.type;
  };
  if (key.size() != expected || !matches(table.key.hash) ||
      (table.key.range && !matches(*table.key.range))) {
    return Error::Validation("The provided key element does not match the schema");
  }
  if (Status s = CheckKeyValue(table.key.hash, key.at(table.key.hash.name), true); !s) return s;
  if (table.key.range) {
    if (Status s = CheckKeyValue(*table.key.range, key.at(table.key.range->name), false); !s) {
      return s;
    }
  }
  return Status::Ok();
}

std::mutex& ItemOps::LockFor(const std::string& key) {
  return locks_[std::hash<std::string>{}(key) % kLockStripes];
}

Result<ReadOutcome> ItemOps::Read(const std::string& key) {
  auto raw = store_.GetItem(key);
  if (!raw) return std::move(raw).error();
  ReadOutcome out;
  if (!*raw) return out;
  auto item = storage::DecodeItem(**raw);
  if (!item) return Error::Internal("corrupt item record");
  out.size = model::ItemSize(*item);
  out.item = std::move(item);
  return out;
}

Result<WriteOutcome> ItemOps::Put(const model::TableDescriptor& table, const model::Item& item) {
  std::string key = EncodedKey(table, item);
  std::string value = storage::EncodeItem(item);
  std::lock_guard<std::mutex> lock(LockFor(key));
  auto old = Read(key);
  if (!old) return std::move(old).error();
  WriteOutcome out;
  out.old_item = std::move(old->item);
  out.old_size = old->size;
  out.new_size = model::ItemSize(item);
  storage::WriteBatch batch(store_);
  batch.PutItem(key, value);
  batch.AddStats(table.id, out.old_item ? 0 : 1,
                 static_cast<int64_t>(out.new_size) - static_cast<int64_t>(out.old_size));
  if (Status s = store_.Write(batch); !s) return std::move(s).error();
  return out;
}

Result<ReadOutcome> ItemOps::Get(const model::TableDescriptor& table, const model::Item& key) {
  return Read(EncodedKey(table, key));
}

Result<WriteOutcome> ItemOps::Delete(const model::TableDescriptor& table, const model::Item& key) {
  std::string encoded = EncodedKey(table, key);
  std::lock_guard<std::mutex> lock(LockFor(encoded));
  auto old = Read(encoded);
  if (!old) return std::move(old).error();
  WriteOutcome out;
  out.old_item = std::move(old->item);
  out.old_size = old->size;
  if (!out.old_item) return out;  // nothing to delete; DynamoDB answers success
  storage::WriteBatch batch(store_);
  batch.DeleteItem(encoded);
  batch.AddStats(table.id, -1, -static_cast<int64_t>(out.old_size));
  if (Status s = store_.Write(batch); !s) return std::move(s).error();
  return out;
}

}  // namespace ttlstore::ops
