// storage::WriteBatch: the writes of one request (items, stats deltas, expiry entries, the
// catalog, every feature's family) gathered for one atomic Store::Write.
#include <rocksdb/write_batch.h>

#include "common/coding.h"
#include "storage/catalog_codec.h"
#include "storage/expiry_key.h"
#include "storage/key_codec.h"
#include "storage/store_internal.h"
#include "storage/store.h"

namespace ttlstore::storage {

WriteBatch::WriteBatch(const Store& store)
    : store_(store), batch_(std::make_unique<rocksdb::WriteBatch>()) {}
WriteBatch::~WriteBatch() = default;

void WriteBatch::PutItem(std::string_view key, std::string_view encoded_item) {
  batch_->Put(store_.items_, ToSlice(key), ToSlice(encoded_item));
}

void WriteBatch::DeleteItem(std::string_view key) { batch_->Delete(store_.items_, ToSlice(key)); }

void WriteBatch::AddStats(uint32_t table_id, int64_t items, int64_t bytes) {
  auto& [count, size] = pending_stats_[table_id];
  count += items;
  size += bytes;
}

void WriteBatch::AddIndexStats(uint32_t table_id, uint32_t index_id, int64_t items,
                               int64_t bytes) {
  auto& [count, size] = pending_index_stats_[uint64_t{table_id} << 32 | index_id];
  count += items;
  size += bytes;
}

void WriteBatch::DeleteIndexStats(uint32_t table_id, uint32_t index_id) {
  pending_index_stats_.erase(uint64_t{table_id} << 32 | index_id);
  std::string key = TablePrefix(table_id);
  PutFixed32BE(&key, index_id);
  batch_->Delete(store_.stats_, key);
}

void WriteBatch::FlushStats() {
  for (const auto& [table_id, delta] : pending_stats_) {
    if (delta.first == 0 && delta.second == 0) continue;
    batch_->Merge(store_.stats_, TablePrefix(table_id), EncodeStats(delta.first, delta.second));
  }
  pending_stats_.clear();
  for (const auto& [ids, delta] : pending_index_stats_) {
    if (delta.first == 0 && delta.second == 0) continue;
    std::string key = TablePrefix(static_cast<uint32_t>(ids >> 32));
    PutFixed32BE(&key, static_cast<uint32_t>(ids));
    batch_->Merge(store_.stats_, key, EncodeStats(delta.first, delta.second));
  }
  pending_index_stats_.clear();
}

void WriteBatch::PutExpiry(int64_t due_ms, std::string_view item_key) {
  batch_->Put(store_.expiry_, ExpiryKey(due_ms, item_key), rocksdb::Slice());
  earliest_expiry_put_ = std::min(earliest_expiry_put_, due_ms);
}

void WriteBatch::DeleteExpiry(int64_t due_ms, std::string_view item_key) {
  batch_->Delete(store_.expiry_, ExpiryKey(due_ms, item_key));
}

void WriteBatch::Put(Family family, std::string_view key, std::string_view value) {
  batch_->Put(store_.HandleOf(family), ToSlice(key), ToSlice(value));
}

void WriteBatch::Delete(Family family, std::string_view key) {
  batch_->Delete(store_.HandleOf(family), ToSlice(key));
}

void WriteBatch::DeleteRange(Family family, std::string_view begin, std::string_view end) {
  batch_->DeleteRange(store_.HandleOf(family), ToSlice(begin), ToSlice(end));
}

void WriteBatch::PutTable(const model::TableDescriptor& table) {
  batch_->Put(store_.catalog_, table.name, EncodeTableDescriptor(table));
}

void WriteBatch::DropTable(const model::TableDescriptor& table) {
  std::string begin = TablePrefix(table.id);
  batch_->DeleteRange(store_.items_, begin, PrefixSuccessor(begin));
  batch_->DeleteRange(store_.indexes_, begin, PrefixSuccessor(begin));
  batch_->DeleteRange(store_.rows_, begin, PrefixSuccessor(begin));
  // The table's purge-index entries (versions/purge_index.h: keys begin with the table id).
  batch_->DeleteRange(store_.purge_, begin, PrefixSuccessor(begin));
  // Its PITR change log (storage/pitr_log.h: keys begin with the table id).
  if (store_.pitr_) batch_->DeleteRange(store_.pitr_, begin, PrefixSuccessor(begin));
  // Its search-index change queue (storage/search_queue.h: keys begin with the table id).
  if (store_.search_) batch_->DeleteRange(store_.search_, begin, PrefixSuccessor(begin));
  // Its partition keys' last auto-increment values (versions/auto_increment.h: keys begin with
  // the table id).
  if (store_.sequences_) {
    batch_->DeleteRange(store_.sequences_, begin, PrefixSuccessor(begin));
  }
  // The table's stats and its indexes' stats (keys table id [. index id]).
  batch_->DeleteRange(store_.stats_, begin, PrefixSuccessor(begin));
  // A Tablestore table's secondary indexes: their rows, under ids of their own.
  if (table.tablestore) {
    std::vector<uint32_t> ids = table.tablestore->dropped_index_rows;
    for (const auto& ix : table.tablestore->indexes) ids.push_back(ix.rows_id);
    for (uint32_t id : ids) DropIndexRows(id);
  }
  batch_->Delete(store_.catalog_, table.name);
}

void WriteBatch::DropIndexRows(uint32_t rows_id) {
  std::string begin = TablePrefix(rows_id);
  batch_->DeleteRange(store_.rows_, begin, PrefixSuccessor(begin));
  batch_->DeleteRange(store_.purge_, begin, PrefixSuccessor(begin));
}

}  // namespace ttlstore::storage
