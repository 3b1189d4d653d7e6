#include "ttl/backfill.h"

#include "model/expiry.h"
#include "storage/item_codec.h"
#include "storage/key_codec.h"

namespace ttlstore::ttl {
namespace {

// Items per chunk: one lock round and one WriteBatch each.
constexpr size_t kChunk = 1000;

}  // namespace

Status BackfillExpiryIndex(ops::ItemOps& items, const model::TableDescriptor& table) {
  std::string lower = storage::TablePrefix(table.id);
  std::string upper = storage::PrefixSuccessor(lower);
  std::string last;
  bool more = true;
  while (more) {
    std::vector<std::string> keys;
    {
      auto it = items.store().ScanItems(lower, upper, false, last.empty() ? nullptr : &last);
      for (; it->Valid() && keys.size() < kChunk; it->Next()) keys.emplace_back(it->key());
      RETURN_IF_ERROR(it->status());
    }
    more = keys.size() == kChunk;
    if (keys.empty()) break;
    last = keys.back();
    ops::KeyLocks::Guard guard(items.locks(), keys);
    storage::WriteBatch batch(items.store());
    for (const auto& key : keys) {
      ASSIGN_OR_RETURN(current, items.ReadLocked(key));
      if (!current.item) continue;
      if (auto due = model::ExpiryDueMs(*current.item, table.ttl_attribute)) {
        batch.PutExpiry(*due, key);
      }
    }
    RETURN_IF_ERROR(items.store().Write(batch));
  }
  return Status::Ok();
}

}  // namespace ttlstore::ttl
