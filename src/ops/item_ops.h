// ItemOps: single-item reads and writes (PutItem, GetItem, DeleteItem, UpdateItem), and the
// building blocks that batch writes and transactions reuse.
//
// Every write is a storage read-modify-write (storage::Store::ReadModifyWrite) of the item's key:
// the old item is read for update because the write needs it for its condition, ReturnValues,
// the table's item count and size, and index, expiry and stream upkeep; no other writer of the
// key, in this process or another on the same database, commits in between. The item and its
// companions go to storage in one WriteBatch, so a crash never separates them.
#pragma once

#include <atomic>
#include <optional>
#include <string>

#include "common/clock.h"
#include "common/result.h"
#include "expr/condition.h"
#include "expr/update.h"
#include "model/attribute_value.h"
#include "model/table.h"
#include "storage/store.h"
#include "streams/stream_log.h"

namespace ttlstore::ops {

using model::kMaxPartitionKeyBytes;
using model::kMaxSortKeyBytes;

// Who made a write. TTL deletions are service deletes (D7): their stream records say so.
enum class WriteOrigin : uint8_t { kUser, kTtl };

struct ReadOutcome {
  std::optional<model::Item> item;
  size_t size = 0;  // DynamoDB item size (0 if absent)
};

struct WriteOutcome {
  std::optional<model::Item> old_item;  // the item before the write, if it existed
  size_t old_size = 0;
  std::optional<model::Item> new_item;  // the item after the write (absent after a delete)
  size_t new_size = 0;
  // The condition was false: nothing was written; old_item is what it was checked against.
  bool condition_failed = false;
};

// PutItem's check of an item's key attributes: present, of the schema's type, not empty, within
// the size limits. Errors carry DynamoDB's messages.
Status ValidateItemKey(const model::TableDescriptor& table, const model::Item& item);
// GetItem/DeleteItem/UpdateItem's check of a Key: exactly the key attributes, right types.
Status ValidateKey(const model::TableDescriptor& table, const model::Item& key);

// Just the "not empty" part of the key checks, for an item or a Key whose key attributes may be
// missing or mistyped (those are skipped). Inside a transaction an empty key value fails the
// whole request, where the other key problems only cancel it.
Status CheckKeyNotEmpty(const model::TableDescriptor& table, const model::Item& item_or_key);

// The RocksDB key of an item (or of a Key). REQUIRES: the key attributes were validated.
std::string EncodedKey(const model::TableDescriptor& table, const model::Item& item_or_key);

// Just the key attributes of an item.
model::Item KeyOf(const model::TableDescriptor& table, const model::Item& item);

class ItemOps {
 public:
  // `clock` (not owned; nullptr: the system clock) dates stream records (streams/stream_log.h)
  // and PITR change-log records: the server passes its own, which `--clock-start-ms` may shift,
  // so that records, their expiry and the trimmers agree with every other time it shows.
  explicit ItemOps(storage::Store& store, const Clock* clock = nullptr);

  // The clock that dates PITR change-log records (storage/pitr_log.h); not owned. Default: the
  // system clock. The server sets its own (which `--clock-start-ms` may shift), so records and
  // DescribeContinuousBackups' window agree. Call before serving.
  void set_pitr_clock(const Clock* clock) { pitr_clock_ = clock ? clock : &system_clock_; }
  const Clock& pitr_clock() const { return *pitr_clock_; }

  // Writes `item` if `condition` (may be null) holds for the old item.
  // REQUIRES: ValidateItemKey passed and the item is within the size limit.
  Result<WriteOutcome> Put(const model::TableDescriptor& table, const model::Item& item,
                           const expr::Condition* condition);
  // REQUIRES: ValidateKey passed.
  Result<ReadOutcome> Get(const model::TableDescriptor& table, const model::Item& key);
  // Deletes the item if `condition` (may be null) holds. Deleting a missing item succeeds.
  Result<WriteOutcome> Delete(const model::TableDescriptor& table, const model::Item& key,
                              const expr::Condition* condition);
  // Applies `update` (may be null: the item is only created) to the item, or to a new item made
  // of `key` when absent, if `condition` holds. Errors from the update (type errors, size) leave
  // the item unchanged. An update that only removes attributes of a missing item writes nothing
  // (CreatesNothing): the outcome then has neither old_item nor new_item.
  // REQUIRES: ValidateKey passed; the update does not touch key attributes.
  Result<WriteOutcome> Update(const model::TableDescriptor& table, const model::Item& key,
                              const expr::Update* update, const expr::Condition* condition);

  // Building blocks for multi-item writes, used inside a storage read-modify-write of the keys
  // (whose functions may run more than once: see storage::Store::ReadModifyWrite).
  // The item a read-modify-write read (nullopt: none).
  static Result<ReadOutcome> DecodeRead(const std::optional<std::string>& raw);
  // Adds the write of `item` (replacing `old`) to `batch` with all its companions: the stats
  // delta, the expiry-index entry, secondary-index entries, the stream record and, when the
  // table has PITR, the change-log record of the old image. Counts TTL
  // values that look like milliseconds (see ms_like_ttl_writes).
  void AddPut(storage::WriteBatch& batch, const model::TableDescriptor& table,
              const std::string& encoded_key, const model::Item& item, size_t item_size,
              const ReadOutcome& old);
  // Adds the deletion of `old` (nothing if absent) with the same companions. Every delete, user
  // or TTL, goes through here.
  void AddDelete(storage::WriteBatch& batch, const model::TableDescriptor& table,
                 const std::string& encoded_key, const ReadOutcome& old,
                 WriteOrigin origin = WriteOrigin::kUser);

  // The result of applying `update` to `old` (or to `key` when there is no old item), size
  // checked. Shared by UpdateItem and TransactWriteItems.
  static Result<model::Item> Updated(const model::Item& key, const ReadOutcome& old,
                                     const expr::Update* update);
  // Whether an update whose result is `updated` writes nothing: the item was missing and the
  // update (REMOVE and set DELETE actions only) left just the key. The service then creates no
  // item (Alternator's test_update_item_non_existent, run against DynamoDB); an update with no
  // actions at all (no UpdateExpression, or AttributeUpdates {}) still creates the key-only item.
  static bool CreatesNothing(const model::Item& key, const ReadOutcome& old,
                             const expr::Update* update, const model::Item& updated);

  // Writes whose TTL value looks like milliseconds rather than seconds (model::
  // kMillisecondsLikeSeconds): such items never expire in practice, the most common TTL mistake.
  uint64_t ms_like_ttl_writes() const { return ms_like_ttl_writes_.load(); }

  storage::Store& store() { return store_; }
  // The stream records' sequence numbers and reads (src/streams).
  streams::StreamLog& streams() { return streams_; }

 private:
  // Decodes the item a read-modify-write read and checks `condition` (may be null) against it;
  // when the condition is false, out->condition_failed is set and out->old_item holds the item.
  static Result<ReadOutcome> CheckRead(const std::optional<std::string>& raw,
                                       const expr::Condition* condition, WriteOutcome* out);

  // Adds the PITR change-log record of a write replacing `old` (nothing unless the table has
  // PITR). REQUIRES: called inside the key's read-modify-write (records of one item are dated
  // and numbered in the order they commit, within one process).
  void AddPitrRecord(storage::WriteBatch& batch, const model::TableDescriptor& table,
                     const std::string& encoded_key, const ReadOutcome& old);

  storage::Store& store_;
  SystemClock system_clock_;
  const Clock* pitr_clock_ = &system_clock_;
  std::atomic<uint64_t> pitr_seq_;
  streams::StreamLog streams_;
  std::atomic<uint64_t> ms_like_ttl_writes_{0};
};

}  // namespace ttlstore::ops
