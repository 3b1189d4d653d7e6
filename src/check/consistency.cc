#include "check/consistency.h"
#include "check/pitr_check.h"
#include "check/search_check.h"
#include "check/sequence_check.h"
#include "check/ts_index_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "common/coding.h"
#include "index/index_key.h"
#include "model/expiry.h"
#include "model/item_size.h"
#include "storage/expiry_key.h"
#include "storage/item_codec.h"
#include "storage/key_codec.h"
#include "streams/row_record.h"
#include "streams/shard_rollover.h"
#include "streams/stream_names.h"
#include "streams/stream_head.h"
#include "streams/stream_record.h"
#include "versions/purge_index.h"
#include "versions/row.h"
#include "versions/row_key.h"

namespace ttlstore::check {
namespace {

class Checker {
 public:
  Checker(const storage::Store& store, int64_t now_ms, std::string search_dir)
      : store_(store), now_ms_(now_ms), search_dir_(std::move(search_dir)) {}

  Result<CheckReport> Run() {
    ASSIGN_OR_RETURN(tables, store_.LoadTables());
    for (auto& t : tables) tables_.emplace(t.id, std::move(t));
    report_.tables = tables_.size();
    index_rows_ids_ = TsIndexRowsIds(tables_);
    CheckDescriptors();
    RETURN_IF_ERROR(CheckItems());
    RETURN_IF_ERROR(CheckRows());
    RETURN_IF_ERROR(CheckPurgeIndex());
    RETURN_IF_ERROR(CheckTsIndexes(store_, tables_, &report_.ts_index_rows,
                                   &report_.dropped_ts_index_rows,
                                   [this](std::string text) { Problem(std::move(text)); }));
    RETURN_IF_ERROR(CheckSequences(store_, tables_, &report_.sequence_records,
                                   [this](std::string text) { Problem(std::move(text)); }));
    RETURN_IF_ERROR(CheckStats());
    RETURN_IF_ERROR(CountExpiryEntries());
    RETURN_IF_ERROR(CheckIndexEntries());
    RETURN_IF_ERROR(CheckIndexStats());
    RETURN_IF_ERROR(CheckStreams());
    RETURN_IF_ERROR(CheckPitrLog(store_, tables_, &report_.pitr_records,
                                 [this](std::string text) { Problem(std::move(text)); }));
    if (!search_dir_.empty()) {
      RETURN_IF_ERROR(CheckSearchIndexes(store_, tables_, search_dir_, now_ms_,
                                         &report_.search_documents,
                                         &report_.search_queue_entries,
                                         [this](std::string text) { Problem(std::move(text)); }));
    }
    return std::move(report_);
  }

 private:
  struct Sums {
    int64_t items = 0;
    int64_t bytes = 0;
  };
  using IndexRef = std::pair<uint32_t, uint32_t>;  // table id, index id

  void Problem(std::string text) {
    ++report_.problem_count;
    if (report_.problems.size() < kMaxListedProblems) report_.problems.push_back(std::move(text));
  }

  static std::string Hex(std::string_view bytes) {
    std::string out;
    for (unsigned char c : bytes) out += fmt::format("{:02x}", c);
    return out;
  }

  // What the descriptors say about the background work still to do must be coherent.
  void CheckDescriptors() {
    for (const auto& [id, t] : tables_) {
      if (t.ttl_backfill && !t.ttl_enabled) {
        Problem(fmt::format("table {}: a TTL backfill is pending but TTL is not enabled", t.name));
      }
      for (uint32_t dropped : t.dropped_index_ids) {
        if (FindIndex(t, dropped)) {
          Problem(fmt::format("table {}: index id {} is both live and being removed", t.name,
                              dropped));
        }
      }
    }
  }

  static const model::SecondaryIndex* FindIndex(const model::TableDescriptor& t, uint32_t id) {
    for (const auto& ix : t.indexes) {
      if (ix.id == id) return &ix;
    }
    return nullptr;
  }

  Status CheckItems() {
    // Table ids lead every item key, so one scan over the whole family visits every table.
    auto it = store_.ScanItems(std::string(), std::string(5, '\xff'), false, nullptr);
    std::map<uint32_t, uint64_t> orphans;
    for (; it->Valid(); it->Next()) {
      ++report_.items;
      std::string_view key = it->key();
      std::string_view rest = key;
      uint32_t table_id = 0;
      if (!GetFixed32BE(&rest, &table_id)) {
        Problem("item key too short to name a table: " + Hex(key));
        continue;
      }
      auto t = tables_.find(table_id);
      if (t == tables_.end()) {
        ++orphans[table_id];
        continue;
      }
      CheckItem(t->second, key, it->value());
    }
    RETURN_IF_ERROR(it->status());
    for (const auto& [id, n] : orphans) {
      Problem(fmt::format("{} items under table id {}, which names no table (orphans)", n, id));
    }
    return Status::Ok();
  }

  void CheckItem(const model::TableDescriptor& table, std::string_view key,
                 std::string_view value) {
    auto item = storage::DecodeItem(value);
    if (!item) {
      Problem(fmt::format("table {}: item {} does not decode", table.name, Hex(key)));
      return;
    }
    uint32_t id = 0;
    model::AttributeValue pk;
    std::optional<model::AttributeValue> sk;
    bool key_ok = storage::DecodeItemKey(key, table.key, &id, &pk, &sk) &&
                  storage::ItemKey(table.id, pk, sk ? &*sk : nullptr) == key;
    auto has = [&](const model::KeyElement& e, const model::AttributeValue& v) {
      auto a = item->find(e.name);
      return a != item->end() && a->second == v;
    };
    bool range_ok = !table.key.range || (sk && has(*table.key.range, *sk));
    if (!key_ok || !has(table.key.hash, pk) || !range_ok) {
      Problem(fmt::format("table {}: item {} does not carry the key its RocksDB key names",
                          table.name, Hex(key)));
    }
    Sums& sums = sums_[table.id];
    ++sums.items;
    sums.bytes += static_cast<int64_t>(model::ItemSize(*item));
    // Index entries are verified from the entry side (CheckIndexEntries); here, how many items
    // each index should hold.
    for (const auto& ix : table.indexes) {
      if (index::IndexKeyOf(ix, *item)) ++should_have_entry_[{table.id, ix.id}];
    }
    if (!table.ttl_enabled) return;
    if (table.ttl_backfill &&
        (table.ttl_backfill->cursor.empty() || key > table.ttl_backfill->cursor)) {
      ++report_.ttl_backfill_items;  // the pending backfill's work, still to do
      return;
    }
    std::optional<int64_t> due = model::ExpiryDueMs(*item, table.ttl_attribute);
    if (!due || model::IsTooOldToExpire(*due, now_ms_)) return;
    auto has_entry = store_.HasExpiry(*due, key);
    if (!has_entry.ok() || !*has_entry) {
      Problem(fmt::format("table {}: item {} expires at {} ms but has no expiry-index entry (it "
                          "would never be deleted)",
                          table.name, Hex(key), *due));
    }
  }

  Status CheckStats() {
    for (const auto& [id, table] : tables_) {
      // Counted under an older item-size rule: the next start counts them again.
      if (table.size_rule < model::kItemSizeRule) continue;
      ASSIGN_OR_RETURN(stats, store_.GetStats(id));
      Sums s = sums_[id];
      if (stats.item_count != s.items || stats.size_bytes != s.bytes) {
        Problem(fmt::format("table {}: stats say {} items / {} bytes, the items add up to {} / {}",
                            table.name, stats.item_count, stats.size_bytes, s.items, s.bytes));
      }
    }
    return Status::Ok();
  }

  // Entries that match a live item at their due time were verified from the item side; the rest
  // are stale and only counted.
  Status CountExpiryEntries() {
    auto it = store_.ScanExpiry(INT64_MAX - 1);
    for (; it->Valid(); it->Next()) {
      ++report_.expiry_entries;
      int64_t due = 0;
      std::string_view item_key;
      if (!storage::ParseExpiryKey(it->key(), &due, &item_key)) {
        Problem("malformed expiry-index key " + Hex(it->key()));
        continue;
      }
      if (!MatchesItem(due, item_key)) ++report_.stale_expiry_entries;
    }
    return it->status();
  }

  // Each entry points to an item that exists and produces exactly this entry (key and value).
  Status CheckIndexEntries() {
    auto it = store_.ScanFamily(storage::Family::kIndexes, "", std::string(9, '\xff'), false,
                                nullptr);
    std::map<uint32_t, uint64_t> orphan_tables;
    std::map<IndexRef, uint64_t> unknown_indexes;
    for (; it->Valid(); it->Next()) {
      ++report_.index_entries;
      std::string_view key = it->key();
      std::string_view rest = key;
      uint32_t table_id = 0, index_id = 0;
      if (!GetFixed32BE(&rest, &table_id) || !GetFixed32BE(&rest, &index_id)) {
        Problem("index entry key too short to name a table and an index: " + Hex(key));
        continue;
      }
      auto t = tables_.find(table_id);
      if (t == tables_.end()) {
        ++orphan_tables[table_id];
        continue;
      }
      const model::TableDescriptor& table = t->second;
      const model::SecondaryIndex* ix = FindIndex(table, index_id);
      if (!ix) {
        const auto& dropped = table.dropped_index_ids;
        if (std::find(dropped.begin(), dropped.end(), index_id) != dropped.end()) {
          ++report_.dropped_index_entries;  // its removal is pending (index_builder.h)
        } else {
          ++unknown_indexes[{table_id, index_id}];
        }
        continue;
      }
      CheckIndexEntry(table, *ix, key, it->value());
    }
    RETURN_IF_ERROR(it->status());
    for (const auto& [id, n] : orphan_tables) {
      Problem(fmt::format("{} index entries under table id {}, which names no table (orphans)",
                          n, id));
    }
    for (const auto& [ref, n] : unknown_indexes) {
      Problem(fmt::format("table {}: {} index entries under index id {}, which is neither one "
                          "of its indexes nor being removed (orphans)",
                          tables_.at(ref.first).name, n, ref.second));
    }
    return Status::Ok();
  }

  void CheckIndexEntry(const model::TableDescriptor& table, const model::SecondaryIndex& ix,
                       std::string_view entry_key, std::string_view value) {
    auto projected = storage::DecodeItem(value);
    if (!projected) {
      Problem(fmt::format("table {} index {}: entry {} does not decode", table.name, ix.name,
                          Hex(entry_key)));
      return;
    }
    Sums& sums = index_sums_[{table.id, ix.id}];
    ++sums.items;
    sums.bytes += static_cast<int64_t>(model::ItemSize(*projected));
    auto pk = projected->find(table.key.hash.name);
    auto sk = table.key.range ? projected->find(table.key.range->name) : projected->end();
    if (pk == projected->end() || (table.key.range && sk == projected->end())) {
      Problem(fmt::format("table {} index {}: entry {} lacks the table key", table.name, ix.name,
                          Hex(entry_key)));
      return;
    }
    std::string item_key =
        storage::ItemKey(table.id, pk->second, table.key.range ? &sk->second : nullptr);
    auto raw = store_.GetItem(item_key);
    std::optional<model::Item> item;
    if (raw.ok() && *raw) item = storage::DecodeItem(**raw);
    if (!item) {
      Problem(fmt::format("table {} index {}: entry {} points to no item (orphan)", table.name,
                          ix.name, Hex(entry_key)));
      return;
    }
    auto keys = index::IndexKeyOf(ix, *item);
    if (!keys || index::EntryKey(table.id, ix, *keys, item_key) != entry_key) {
      Problem(fmt::format("table {} index {}: entry {} is not its item's entry (the item's index "
                          "key differs)",
                          table.name, ix.name, Hex(entry_key)));
      return;
    }
    if (index::Project(table, ix, *item) != *projected) {
      Problem(fmt::format("table {} index {}: entry {} holds another projection than its item's",
                          table.name, ix.name, Hex(entry_key)));
      return;
    }
    ++valid_entries_[{table.id, ix.id}];
  }

  // Per-index stats equal the entries; an ACTIVE index has every item that belongs in it.
  Status CheckIndexStats() {
    for (const auto& [id, table] : tables_) {
      for (const auto& ix : table.indexes) {
        ASSIGN_OR_RETURN(stats, store_.GetIndexStats(id, ix.id));
        Sums s = index_sums_[{id, ix.id}];
        if (table.size_rule >= model::kItemSizeRule &&
            (stats.item_count != s.items || stats.size_bytes != s.bytes)) {
          Problem(fmt::format("table {} index {}: stats say {} entries / {} bytes, the entries add "
                              "up to {} / {}",
                              table.name, ix.name, stats.item_count, stats.size_bytes, s.items,
                              s.bytes));
        }
        uint64_t should = should_have_entry_[{id, ix.id}];
        uint64_t valid = valid_entries_[{id, ix.id}];
        if (ix.status == model::IndexStatus::kActive && valid < should) {
          Problem(fmt::format("table {} index {}: {} of its {} items that belong in this ACTIVE "
                              "index have no entry",
                              table.name, ix.name, should - valid, should));
        }
      }
    }
    return Status::Ok();
  }

  // Stream records belong to a stream their table lists, or to a dropped table's stream whose
  // `02` entry was kept; only records past retention (the trimmer's) may belong to neither.
  Status CheckStreams() {
    std::set<std::pair<uint32_t, int64_t>> dropped;
    {
      std::string lower(1, streams::kDroppedPrefix), upper(1, streams::kDroppedPrefix + 1);
      auto it = store_.ScanFamily(storage::Family::kStreams, lower, upper, false, nullptr);
      for (; it->Valid(); it->Next()) {
        auto d = streams::DecodeDropped(it->key(), it->value());
        if (!d) {
          Problem("a dropped table's stream entry does not decode: " + Hex(it->key()));
          continue;
        }
        if (tables_.count(d->table_id)) {
          Problem(fmt::format("table {}: a dropped-table stream entry names this live table",
                              tables_.at(d->table_id).name));
        }
        dropped.insert({d->table_id, d->info.created_ms});
      }
      RETURN_IF_ERROR(it->status());
    }
    auto known = [&](uint32_t table_id, int64_t stream_ms) {
      auto t = tables_.find(table_id);
      if (t == tables_.end()) return dropped.count({table_id, stream_ms}) > 0;
      const auto& list = t->second.streams;
      return std::any_of(list.begin(), list.end(),
                         [&](const model::StreamInfo& st) { return st.created_ms == stream_ms; });
    };
    // Shard-state entries (the open shard of a stream) go with their stream: DeleteTable drops
    // those of streams past retention, the trimmer those of the dropped streams it forgets. A
    // live table may have one of a stream UpdateTable pruned from its list (disabled more than
    // 24 hours ago): 17 bytes left behind, not a problem.
    {
      std::string lower(1, streams::kShardStatePrefix), upper(1, streams::kShardStatePrefix + 1);
      auto it = store_.ScanFamily(storage::Family::kStreams, lower, upper, false, nullptr);
      for (; it->Valid(); it->Next()) {
        uint32_t table_id = 0;
        int64_t stream_ms = 0;
        if (!streams::ParseShardStateKey(it->key(), &table_id, &stream_ms) ||
            !streams::DecodeShardState(it->value())) {
          Problem("a stream shard-state entry does not decode: " + Hex(it->key()));
        } else if (!tables_.count(table_id) && !known(table_id, stream_ms)) {
          Problem(fmt::format("table id {}: a shard-state entry of stream {}, of a dropped table "
                              "without its `02` entry",
                              table_id, streams::StreamLabel(stream_ms)));
        }
      }
      RETURN_IF_ERROR(it->status());
    }
    const int64_t cutoff = now_ms_ - streams::kRetentionMs;
    std::map<std::pair<uint32_t, int64_t>, uint64_t> lost;
    // Keys run in (stream, shard, number) order, so within a stream every number must be above
    // the one before: a shard's numbers all below its child's, no record in two shards.
    std::pair<uint32_t, int64_t> prev_stream{0, -1};
    uint64_t prev_seq = 0;
    uint32_t prev_shard = 0;
    // (table id, stream ms) -> the last record's number and shard.
    std::map<std::pair<uint32_t, int64_t>, std::pair<uint64_t, uint32_t>> last_of;
    std::string lower(1, streams::kRecordPrefix), upper(1, streams::kRecordPrefix + 1);
    auto it = store_.ScanFamily(storage::Family::kStreams, lower, upper, false, nullptr);
    for (; it->Valid(); it->Next()) {
      ++report_.stream_records;
      uint32_t table_id = 0, shard = 0;
      int64_t stream_ms = 0;
      uint64_t seq = 0;
      std::optional<int64_t> created = streams::RecordCreatedMs(it->value());
      if (!streams::ParseRecordKey(it->key(), &table_id, &stream_ms, &shard, &seq) || !created) {
        Problem("a stream record does not decode: " + Hex(it->key()));
        continue;
      }
      if (prev_stream == std::make_pair(table_id, stream_ms) && seq <= prev_seq) {
        Problem(fmt::format("table id {} stream {}: sequence number {} in shard {} is not above "
                            "{} in shard {}",
                            table_id, streams::StreamLabel(stream_ms), seq, shard, prev_seq,
                            prev_shard));
      }
      prev_stream = {table_id, stream_ms};
      prev_seq = seq;
      prev_shard = shard;
      last_of[{table_id, stream_ms}] = {seq, shard};
      // A Tablestore table's stream holds row records (format 0x02) only, a DynamoDB table's
      // DynamoDB records only, and each decodes whole.
      const bool row_record = !it->value().empty() && it->value()[0] == streams::kRowRecordFormat;
      if (row_record ? !streams::DecodeRowRecord(it->value())
                     : !streams::DecodeRecord(it->value())) {
        Problem("a stream record does not decode: " + Hex(it->key()));
        continue;
      }
      if (auto t = tables_.find(table_id);
          t != tables_.end() && t->second.tablestore.has_value() != row_record) {
        Problem(fmt::format("table {}: a {} stream record in a {} table's stream: {}",
                            t->second.name, row_record ? "Tablestore" : "DynamoDB",
                            row_record ? "DynamoDB" : "Tablestore", Hex(it->key())));
      }
      if (known(table_id, stream_ms)) continue;
      if (*created < cutoff) {
        ++report_.expired_stream_records;
        continue;
      }
      ++lost[{table_id, stream_ms}];
    }
    RETURN_IF_ERROR(it->status());
    RETURN_IF_ERROR(CheckStreamHeads(last_of));
    for (const auto& [ref, n] : lost) {
      auto t = tables_.find(ref.first);
      if (t == tables_.end()) {
        Problem(fmt::format("{} stream records of dropped table id {} (stream {}) have no `02` "
                            "entry: the Streams API can no longer read them",
                            n, ref.first, streams::StreamLabel(ref.second)));
      } else {
        Problem(fmt::format("table {}: {} stream records of stream {}, which it does not list",
                            t->second.name, n, streams::StreamLabel(ref.second)));
      }
    }
    return Status::Ok();
  }

  // Stream heads (a store several processes share, streams/stream_head.h): each decodes, and
  // numbers above its stream's last record in a shard no earlier than that record's.
  Status CheckStreamHeads(
      const std::map<std::pair<uint32_t, int64_t>, std::pair<uint64_t, uint32_t>>& last_of) {
    std::string lower(1, streams::kHeadPrefix), upper(1, streams::kHeadPrefix + 1);
    auto it = store_.ScanFamily(storage::Family::kStreams, lower, upper, false, nullptr);
    for (; it->Valid(); it->Next()) {
      uint32_t table_id = 0;
      int64_t stream_ms = 0;
      std::string state(it->key());
      state[0] = streams::kShardStatePrefix;  // the same table id and stream ms follow
      std::optional<streams::StreamHead> head = streams::DecodeHead(it->value());
      if (!streams::ParseShardStateKey(state, &table_id, &stream_ms) || !head) {
        Problem("a stream head does not decode: " + Hex(it->key()));
        continue;
      }
      auto last = last_of.find({table_id, stream_ms});
      if (last == last_of.end()) continue;
      if (last->second.first >= head->next_seq || last->second.second > head->open.shard_no) {
        Problem(fmt::format("table id {} stream {}: the head would number {} in shard {}, but a "
                            "record numbered {} is in shard {}",
                            table_id, streams::StreamLabel(stream_ms), head->next_seq,
                            head->open.shard_no, last->second.first, last->second.second));
      }
    }
    return it->status();
  }

  bool MatchesItem(int64_t due, std::string_view item_key) {
    std::string_view rest = item_key;
    uint32_t table_id = 0;
    if (!GetFixed32BE(&rest, &table_id)) return false;
    auto t = tables_.find(table_id);
    if (t == tables_.end() || !t->second.ttl_enabled) return false;
    auto raw = store_.GetItem(item_key);
    if (!raw.ok() || !*raw) return false;
    auto item = storage::DecodeItem(**raw);
    return item && model::ExpiryDueMs(*item, t->second.ttl_attribute) == due;
  }

  // Every row of the `rows` family belongs to a Tablestore table, its key decodes with that
  // table's primary-key schema, and its value decodes with versions newest first.
  Status CheckRows() {
    auto it = store_.ScanFamily(storage::Family::kRows, "", "\xff\xff\xff\xff\xff", false,
                                nullptr);
    for (; it->Valid(); it->Next()) {
      ++report_.rows;
      std::string_view key = it->key();
      uint32_t table_id;
      if (!GetFixed32BE(&key, &table_id)) {
        Problem("a row key is shorter than a table id");
        continue;
      }
      if (index_rows_ids_.count(table_id)) continue;  // an index's: CheckTsIndexes
      auto t = tables_.find(table_id);
      if (t == tables_.end() || !t->second.tablestore) {
        Problem(fmt::format("a row of table id {} which is not a Tablestore table", table_id));
        continue;
      }
      std::vector<versions::PkCell> pk;
      if (!versions::DecodeRowKey(it->key(), t->second.tablestore->primary_key, &pk)) {
        Problem(fmt::format("a row key of table {} does not match its primary key schema",
                            t->second.name));
        continue;
      }
      versions::StoredRow row;
      if (!versions::DecodeRow(it->value(), &row)) {
        Problem(fmt::format("a row of table {} does not decode", t->second.name));
        continue;
      }
      for (const auto& c : row.columns) {
        for (size_t i = 1; i < c.versions.size(); ++i) {
          if (c.versions[i - 1].timestamp_ms <= c.versions[i].timestamp_ms) {
            Problem(fmt::format("column {} of a row of table {} has versions out of order",
                                c.name, t->second.name));
            break;
          }
        }
      }
    }
    return it->status();
  }

  // The purge index (versions/purge_index.h) holds exactly the entries the rows need: a missing
  // one would let hidden versions outlive every purge, an extra one names a row wrongly. Once
  // built (a data dir from before the index gets it at the server's first start).
  Status CheckPurgeIndex() {
    ASSIGN_OR_RETURN(built, store_.Get(storage::Family::kPurge, versions::IndexBuiltKey()));
    if (!built.has_value()) return Status::Ok();
    const std::string end(5, '\xff');
    auto rows = store_.ScanFamily(storage::Family::kRows, "", end, false, nullptr);
    for (; rows->Valid(); rows->Next()) {
      // Index rows have no entries: their table rows' purge keeps them (ops/row_batch.h).
      std::string_view id_bytes = rows->key();
      uint32_t rows_id = 0;
      if (GetFixed32BE(&id_bytes, &rows_id) && index_rows_ids_.count(rows_id)) continue;
      versions::StoredRow row;
      if (!versions::DecodeRow(rows->value(), &row)) continue;  // CheckRows said so
      for (const auto& mark : versions::MarksOf(rows->key(), row)) {
        ASSIGN_OR_RETURN(entry, store_.Get(storage::Family::kPurge, mark));
        if (!entry.has_value()) Problem("a Tablestore row lacks its purge-index entry " + Hex(mark));
      }
    }
    RETURN_IF_ERROR(rows->status());
    auto marks = store_.ScanFamily(storage::Family::kPurge, "", end, false, nullptr);
    for (; marks->Valid(); marks->Next()) {
      std::string mark(marks->key()), row_key;
      if (mark == versions::IndexBuiltKey()) continue;
      if (!versions::RowKeyOfMark(mark, &row_key)) {
        Problem("a purge-index entry does not decode: " + Hex(mark));
        continue;
      }
      ASSIGN_OR_RETURN(raw, store_.Get(storage::Family::kRows, row_key));
      versions::StoredRow row;
      std::vector<std::string> needed;
      if (raw.has_value() && versions::DecodeRow(*raw, &row)) needed = versions::MarksOf(row_key, row);
      if (std::find(needed.begin(), needed.end(), mark) == needed.end()) {
        Problem("a purge-index entry names no row that needs it: " + Hex(mark));
      }
    }
    return marks->status();
  }

  const storage::Store& store_;
  const int64_t now_ms_;
  const std::string search_dir_;
  std::map<uint32_t, model::TableDescriptor> tables_;
  std::set<uint32_t> index_rows_ids_;  // Tablestore secondary indexes' row prefixes
  std::map<uint32_t, Sums> sums_;
  std::map<IndexRef, Sums> index_sums_;             // entries of each live index
  std::map<IndexRef, uint64_t> should_have_entry_;  // items with the index's key attributes
  std::map<IndexRef, uint64_t> valid_entries_;      // entries that are their item's entry
  CheckReport report_;
};

}  // namespace

Result<CheckReport> CheckStore(const storage::Store& store, int64_t now_ms,
                               const std::string& search_dir) {
  return Checker(store, now_ms, search_dir).Run();
}

}  // namespace ttlstore::check
