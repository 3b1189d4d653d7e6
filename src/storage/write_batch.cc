// storage::WriteBatch: the writes of one request (items, stats deltas, expiry entries, the
// catalog, every feature's family) gathered for one atomic Store::Write, as the backend's
// primitives (storage/backend.h).
#include "common/coding.h"
#include "storage/backend.h"
#include "storage/catalog_codec.h"
#include "storage/expiry_key.h"
#include "storage/key_codec.h"
#include "storage/search_queue.h"
#include "storage/store.h"

namespace ttlstore::storage {
namespace {

using Space = Store::Space;

std::string IndexStatsKey(uint32_t table_id, uint32_t index_id) {
  std::string key = TablePrefix(table_id);
  PutFixed32BE(&key, index_id);
  return key;
}

}  // namespace

WriteBatch::WriteBatch(const Store& store) : store_(store), sink_(store.NewSink()) {}
WriteBatch::~WriteBatch() { Resolve(BatchOutcome::kNotCommitted); }

void WriteBatch::Resolve(BatchOutcome outcome) {
  auto listeners = std::move(on_outcome_);
  on_outcome_.clear();
  for (auto& fn : listeners) fn(outcome);
}

void WriteBatch::PutItem(std::string_view key, std::string_view encoded_item) {
  sink_->Put(Space::kItems, key, encoded_item);
}

void WriteBatch::DeleteItem(std::string_view key) { sink_->Delete(Space::kItems, key); }

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
  sink_->Delete(Space::kStats, IndexStatsKey(table_id, index_id));
}

void WriteBatch::FlushStats() {
  for (const auto& [table_id, delta] : pending_stats_) {
    if (delta.first == 0 && delta.second == 0) continue;
    sink_->AddStats(TablePrefix(table_id), delta.first, delta.second);
  }
  pending_stats_.clear();
  for (const auto& [ids, delta] : pending_index_stats_) {
    if (delta.first == 0 && delta.second == 0) continue;
    sink_->AddStats(IndexStatsKey(static_cast<uint32_t>(ids >> 32), static_cast<uint32_t>(ids)),
                    delta.first, delta.second);
  }
  pending_index_stats_.clear();
}

void WriteBatch::PutExpiry(int64_t due_ms, std::string_view item_key) {
  sink_->Put(Space::kExpiry, ExpiryKey(due_ms, item_key), std::string_view());
  earliest_expiry_put_ = std::min(earliest_expiry_put_, due_ms);
}

void WriteBatch::DeleteExpiry(int64_t due_ms, std::string_view item_key) {
  sink_->Delete(Space::kExpiry, ExpiryKey(due_ms, item_key));
}

void WriteBatch::Put(Family family, std::string_view key, std::string_view value) {
  sink_->Put(Store::SpaceOf(family), key, value);
}

void WriteBatch::Delete(Family family, std::string_view key) {
  sink_->Delete(Store::SpaceOf(family), key);
}

void WriteBatch::DeleteRange(Family family, std::string_view begin, std::string_view end) {
  sink_->DeleteRange(Store::SpaceOf(family), begin, end);
}

void WriteBatch::PutSequenced(Family family, std::string head_key, SequenceFunction fn) {
  sink_->AddSequenced({Store::SpaceOf(family), std::move(head_key), std::move(fn)});
}

void ResolveSequenced(const std::vector<BatchSink::Sequenced>& sequenced, SequenceHeads& heads,
                      BatchSink& to) {
  for (const auto& s : sequenced) {
    std::optional<std::string>& head = heads[{s.space, s.head}];
    SequencedWrite w = s.fn(head);
    for (const auto& [key, value] : w.puts) to.Put(s.space, key, value);
    head = std::move(w.head);
  }
  for (const auto& [where, value] : heads) {
    if (value) to.Put(where.first, where.second, *value);
  }
}

void WriteBatch::PutTable(const model::TableDescriptor& table) {
  sink_->Put(Space::kCatalog, table.name, EncodeTableDescriptor(table));
}

void WriteBatch::DropTable(const model::TableDescriptor& table) {
  std::string begin = TablePrefix(table.id);
  std::string end = PrefixSuccessor(begin);
  // Every family whose keys begin with the table id: its items, index entries and rows; its
  // purge-index entries (versions/purge_index.h), PITR change log (storage/pitr_log.h),
  // search-index change queue (storage/search_queue.h), its partition keys' last
  // auto-increment values (versions/auto_increment.h), and its and its indexes' stats.
  for (Space space : {Space::kItems, Space::kIndexes, Space::kRows, Space::kPurge, Space::kPitr,
                      Space::kSearch, Space::kSequences, Space::kStats}) {
    sink_->DeleteRange(space, begin, end);
  }
  // Its search queue's head and floor (a store several processes share; table ids are never
  // used again, so nothing numbers from them any more).
  sink_->Delete(Space::kSearch, SearchQueueHeadKey(table.id));
  sink_->Delete(Space::kSearch, SearchQueueFloorKey(table.id));
  // A Tablestore table's secondary indexes: their rows, under ids of their own.
  if (table.tablestore) {
    std::vector<uint32_t> ids = table.tablestore->dropped_index_rows;
    for (const auto& ix : table.tablestore->indexes) ids.push_back(ix.rows_id);
    for (uint32_t id : ids) DropIndexRows(id);
  }
  sink_->Delete(Space::kCatalog, table.name);
}

void WriteBatch::DropIndexRows(uint32_t rows_id) {
  std::string begin = TablePrefix(rows_id);
  sink_->DeleteRange(Space::kRows, begin, PrefixSuccessor(begin));
  sink_->DeleteRange(Space::kPurge, begin, PrefixSuccessor(begin));
}

}  // namespace ttlstore::storage
