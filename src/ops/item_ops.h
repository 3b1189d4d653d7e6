// ItemOps: PutItem, GetItem and DeleteItem against one table.
//
// Every write is read-modify-write under a per-key lock (striped mutexes), so concurrent writers
// to one item serialize while writers to other items run in parallel. The old item is read
// first because the write needs it: ReturnValues=ALL_OLD, the table's item count and size, and
// (later) conditions, index and stream upkeep. The item and its companions go to RocksDB in one
// WriteBatch.
#pragma once

#include <array>
#include <mutex>
#include <optional>
#include <string>

#include "common/result.h"
#include "model/attribute_value.h"
#include "model/table.h"
#include "storage/store.h"

namespace ttlstore::ops {

// Maximum partition-key and sort-key sizes in bytes (DynamoDB limits).
inline constexpr size_t kMaxPartitionKeyBytes = 2048;
inline constexpr size_t kMaxSortKeyBytes = 1024;

struct WriteOutcome {
  std::optional<model::Item> old_item;  // the item before the write, if it existed
  size_t old_size = 0;                  // DynamoDB item size of old_item (0 if none)
  size_t new_size = 0;                  // DynamoDB item size after the write (0 for a delete)
};

struct ReadOutcome {
  std::optional<model::Item> item;
  size_t size = 0;
};

// PutItem's check of an item's key attributes: present, of the schema's type, not empty, within
// the size limits. Errors carry DynamoDB's messages.
Status ValidateItemKey(const model::TableDescriptor& table, const model::Item& item);
// GetItem/DeleteItem's check of a Key: exactly the key attributes, of the right types.
Status ValidateKey(const model::TableDescriptor& table, const model::Item& key);

class ItemOps {
 public:
  explicit ItemOps(storage::Store& store) : store_(store) {}

  // REQUIRES: ValidateItemKey(table, item) passed and the item is within the size limit.
  Result<WriteOutcome> Put(const model::TableDescriptor& table, const model::Item& item);
  // REQUIRES: ValidateKey(table, key) passed.
  Result<ReadOutcome> Get(const model::TableDescriptor& table, const model::Item& key);
  // REQUIRES: ValidateKey(table, key) passed.
  Result<WriteOutcome> Delete(const model::TableDescriptor& table, const model::Item& key);

 private:
  // Enough stripes that two hot keys rarely share one on a many-core box; 64 bytes each.
  static constexpr size_t kLockStripes = 1024;
  std::mutex& LockFor(const std::string& key);
  Result<ReadOutcome> Read(const std::string& key);

  storage::Store& store_;
  std::array<std::mutex, kLockStripes> locks_;
};

}  // namespace ttlstore::ops
