#include "ops/item_ops.h"

#include <spdlog/spdlog.h>

#include <chrono>

#include "index/index_writer.h"
#include "model/expiry.h"
#include "model/item_size.h"
#include "storage/item_codec.h"
#include "storage/pitr_log.h"
#include "storage/key_codec.h"

namespace ttlstore::ops {
namespace {

constexpr char kInvalid[] = "One or more parameter values were invalid: ";

Status CheckNotEmpty(const model::KeyElement& element, const model::AttributeValue& v) {
  if (v.scalar().empty() && v.type() != model::ValueType::kN) {
    return Error::Validation(
        std::string("One or more parameter values are not valid. The AttributeValue for a key "
                    "attribute cannot contain an empty ") +
        (v.type() == model::ValueType::kS ? "string" : "binary") + " value. Key: " + element.name);
  }
  return Status::Ok();
}

Status CheckKeyValue(const model::KeyElement& element, const model::AttributeValue& v,
                     bool is_partition) {
  RETURN_IF_ERROR(CheckNotEmpty(element, v));
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

std::string EncodedKey(const model::TableDescriptor& table, const model::Item& item) {
  const model::AttributeValue& pk = item.at(table.key.hash.name);
  const model::AttributeValue* sk = table.key.range ? &item.at(table.key.range->name) : nullptr;
  return storage::ItemKey(table.id, pk, sk);
}

model::Item KeyOf(const model::TableDescriptor& table, const model::Item& item) {
  model::Item key;
  key.emplace(table.key.hash.name, item.at(table.key.hash.name));
  if (table.key.range) key.emplace(table.key.range->name, item.at(table.key.range->name));
  return key;
}

Status CheckKeyNotEmpty(const model::TableDescriptor& table, const model::Item& item_or_key) {
  for (const model::KeyElement* element :
       {&table.key.hash, table.key.range ? &*table.key.range : nullptr}) {
    if (!element) continue;
    auto it = item_or_key.find(element->name);
    if (it != item_or_key.end() && it->second.type() == element->type) {
      RETURN_IF_ERROR(CheckNotEmpty(*element, it->second));
    }
  }
  return Status::Ok();
}

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
    RETURN_IF_ERROR(CheckKeyValue(*element, it->second, i == 0));
  }
  return index::ValidateIndexKeys(table, item);
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
  RETURN_IF_ERROR(CheckKeyValue(table.key.hash, key.at(table.key.hash.name), true));
  if (table.key.range) {
    RETURN_IF_ERROR(CheckKeyValue(*table.key.range, key.at(table.key.range->name), false));
  }
  return Status::Ok();
}

namespace {

Result<ReadOutcome> Decoded(const std::optional<std::string>& raw) {
  ReadOutcome out;
  if (!raw) return out;
  auto item = storage::DecodeItem(*raw);
  if (!item) return Error::Internal("corrupt item record");
  out.size = model::ItemSize(*item);
  out.item = std::move(item);
  return out;
}

}  // namespace

Result<ReadOutcome> ItemOps::DecodeRead(const std::optional<std::string>& raw) {
  return Decoded(raw);
}

Result<ReadOutcome> ItemOps::CheckRead(const std::optional<std::string>& raw,
                                       const expr::Condition* condition, WriteOutcome* out) {
  ASSIGN_OR_RETURN(old, Decoded(raw));
  out->old_size = old.size;
  if (condition && !condition->Evaluate(old.item ? *old.item : model::Item())) {
    out->old_item = std::move(old.item);
    out->condition_failed = true;
  }
  return old;
}

namespace {

// Keeps the item's expiry-index entry in step with its TTL attribute (D-rules): moved when the
// value changes, removed with the attribute or the item, added when it appears. Returns the new
// item's due time (nullopt: none, or TTL is off).
std::optional<int64_t> UpdateExpiryEntry(storage::WriteBatch& batch,
                                         const model::TableDescriptor& table,
                                         const std::string& encoded_key,
                                         const model::Item* old_item,
                                         const model::Item* new_item) {
  if (!table.ttl_enabled) return std::nullopt;
  std::optional<int64_t> old_due, new_due;
  if (old_item) old_due = model::ExpiryDueMs(*old_item, table.ttl_attribute);
  if (new_item) new_due = model::ExpiryDueMs(*new_item, table.ttl_attribute);
  if (old_due == new_due) return new_due;
  if (old_due) batch.DeleteExpiry(*old_due, encoded_key);
  if (new_due) batch.PutExpiry(*new_due, encoded_key);
  return new_due;
}

}  // namespace

ItemOps::ItemOps(storage::Store& store, const Clock* clock)
    : store_(store),
      // Started from the wall clock in ns, so that numbers keep rising across restarts even when
      // two writes of one item share a millisecond on either side of a restart.
      pitr_seq_(static_cast<uint64_t>(
          std::chrono::duration_cast<std::chrono::nanoseconds>(
              std::chrono::system_clock::now().time_since_epoch())
              .count())),
      streams_(store, clock) {
  set_pitr_clock(clock);
}

void ItemOps::AddPitrRecord(storage::WriteBatch& batch, const model::TableDescriptor& table,
                            const std::string& encoded_key, const ReadOutcome& old) {
  if (!table.pitr) return;
  std::string old_image;
  if (old.item) old_image = storage::EncodeItem(*old.item);
  batch.Put(storage::Family::kPitr,
            storage::PitrLogKey(table.id, pitr_clock_->NowMs(), ++pitr_seq_, encoded_key),
            storage::EncodePitrValue(old.item ? &old_image : nullptr));
}

void ItemOps::AddPut(storage::WriteBatch& batch, const model::TableDescriptor& table,
                     const std::string& encoded_key, const model::Item& item, size_t item_size,
                     const ReadOutcome& old) {
  batch.PutItem(encoded_key, storage::EncodeItem(item));
  AddPitrRecord(batch, table, encoded_key, old);
  batch.AddStats(table.id, old.item ? 0 : 1,
                 static_cast<int64_t>(item_size) - static_cast<int64_t>(old.size));
  std::optional<int64_t> due =
      UpdateExpiryEntry(batch, table, encoded_key, old.item ? &*old.item : nullptr, &item);
  index::AddIndexChanges(batch, table, encoded_key, old.item ? &*old.item : nullptr, &item);
  streams_.AddRecord(batch, table, old.item ? &*old.item : nullptr, &item, /*service=*/false);
  if (due && *due >= model::kMillisecondsLikeSeconds * 1000) {
    uint64_t n = ++ms_like_ttl_writes_;
    // Logged at counts 1, 2, 4, 8, ...: visible at once, never a flood.
    if ((n & (n - 1)) == 0) {
      spdlog::warn("event=ttl_value_looks_like_milliseconds table={} attribute={} count={} "
                   "message=\"TTL values are epoch seconds; this item will never expire\"",
                   table.name, table.ttl_attribute, n);
    }
  }
}

void ItemOps::AddDelete(storage::WriteBatch& batch, const model::TableDescriptor& table,
                        const std::string& encoded_key, const ReadOutcome& old,
                        WriteOrigin origin) {
  if (!old.item) return;
  batch.DeleteItem(encoded_key);
  AddPitrRecord(batch, table, encoded_key, old);
  batch.AddStats(table.id, -1, -static_cast<int64_t>(old.size));
  UpdateExpiryEntry(batch, table, encoded_key, &*old.item, nullptr);
  index::AddIndexChanges(batch, table, encoded_key, &*old.item, nullptr);
  streams_.AddRecord(batch, table, &*old.item, nullptr, origin == WriteOrigin::kTtl);
}

Result<model::Item> ItemOps::Updated(const model::Item& key, const ReadOutcome& old,
                                     const expr::Update* update) {
  model::Item item = old.item ? *old.item : key;
  if (update) RETURN_IF_ERROR(update->Apply(&item));
  if (model::ItemSize(item) > model::kMaxItemBytes) {
    return Error::Validation("Item size to update has exceeded the maximum allowed size");
  }
  // A SET into a nested path can deepen a document that each value alone kept within bounds.
  if (update && model::NestingDepth(item) > model::kMaxContainerDepth) {
    return Error::Validation(
        "Nesting Levels have exceeded supported limits: Attributes in the item have nested levels "
        "beyond supported limit");
  }
  return item;
}

bool ItemOps::CreatesNothing(const model::Item& key, const ReadOutcome& old,
                             const expr::Update* update, const model::Item& updated) {
  return !old.item && update && updated == key;
}

Result<WriteOutcome> ItemOps::Put(const model::TableDescriptor& table, const model::Item& item,
                                  const expr::Condition* condition) {
  std::string key = EncodedKey(table, item);
  WriteOutcome out;
  RETURN_IF_ERROR(store_.ReadModifyWrite(
      {{std::nullopt, key}},
      [&](const storage::RmwReads& reads, storage::WriteBatch& batch) -> Status {
        out = WriteOutcome();
        ASSIGN_OR_RETURN(old, CheckRead(reads[0], condition, &out));
        if (out.condition_failed) return Status::Ok();
        out.new_size = model::ItemSize(item);
        AddPut(batch, table, key, item, out.new_size, old);
        out.old_item = std::move(old.item);
        return Status::Ok();
      }));
  return out;
}

Result<ReadOutcome> ItemOps::Get(const model::TableDescriptor& table, const model::Item& key) {
  ASSIGN_OR_RETURN(raw, store_.GetItem(EncodedKey(table, key)));  // a point read needs no lock
  return Decoded(raw);
}

Result<WriteOutcome> ItemOps::Delete(const model::TableDescriptor& table, const model::Item& key,
                                     const expr::Condition* condition) {
  std::string encoded = EncodedKey(table, key);
  WriteOutcome out;
  RETURN_IF_ERROR(store_.ReadModifyWrite(
      {{std::nullopt, encoded}},
      [&](const storage::RmwReads& reads, storage::WriteBatch& batch) -> Status {
        out = WriteOutcome();
        ASSIGN_OR_RETURN(old, CheckRead(reads[0], condition, &out));
        if (out.condition_failed) return Status::Ok();
        AddDelete(batch, table, encoded, old);
        out.old_item = std::move(old.item);
        return Status::Ok();
      }));
  return out;
}

Result<WriteOutcome> ItemOps::Update(const model::TableDescriptor& table, const model::Item& key,
                                     const expr::Update* update,
                                     const expr::Condition* condition) {
  std::string encoded = EncodedKey(table, key);
  WriteOutcome out;
  RETURN_IF_ERROR(store_.ReadModifyWrite(
      {{std::nullopt, encoded}},
      [&](const storage::RmwReads& reads, storage::WriteBatch& batch) -> Status {
        out = WriteOutcome();
        ASSIGN_OR_RETURN(old, CheckRead(reads[0], condition, &out));
        if (out.condition_failed) return Status::Ok();
        ASSIGN_OR_RETURN(item, Updated(key, old, update));
        if (CreatesNothing(key, old, update, item)) return Status::Ok();
        RETURN_IF_ERROR(index::ValidateIndexKeys(table, item, index::IndexKeyWrite::kUpdate));
        out.new_size = model::ItemSize(item);
        AddPut(batch, table, encoded, item, out.new_size, old);
        out.old_item = std::move(old.item);
        out.new_item = std::move(item);
        return Status::Ok();
      }));
  return out;
}

}  // namespace ttlstore::ops
