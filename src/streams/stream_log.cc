#include "streams/stream_log.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "common/coding.h"
#include "model/item_size.h"
#include "streams/stream_names.h"

namespace ttlstore::streams {
namespace {

model::Item KeysOf(const model::TableDescriptor& table, const model::Item& item) {
  model::Item keys;
  auto copy = [&](const std::string& name) {
    auto it = item.find(name);
    if (it != item.end()) keys.emplace(name, it->second);
  };
  copy(table.key.hash.name);
  if (table.key.range) copy(table.key.range->name);
  return keys;
}

}  // namespace

StreamLog::StreamLog(storage::Store& store, const Clock* clock)
    : store_(store), clock_(clock ? clock : &system_clock_), shared_(store.SharedByProcesses()) {
  if (Status s = Recover(); !s) {
    spdlog::error("event=stream_recover_failed message=\"{}\"", s.error().message());
  }
}

Status StreamLog::Recover() {
  uint64_t max_seq = 0;
  auto floor = store_.Get(storage::Family::kStreams, kSeqFloorKey);
  if (!floor) return std::move(floor).error();
  if (*floor) {
    std::string_view v = **floor;
    GetFixed64BE(&v, &max_seq);
  }
  // Every shard's first key dates its first record and its last key holds its largest number:
  // two seeks per shard. The last shard of each stream with records is its open shard, unless
  // the shard-state entry names a later one.
  std::map<std::pair<uint32_t, int64_t>, OpenShard> open;
  std::string lower(1, kRecordPrefix);
  const std::string upper(1, kRecordPrefix + 1);
  while (true) {
    auto it = store_.ScanFamily(storage::Family::kStreams, lower, upper, false, nullptr);
    if (!it->Valid()) {
      RETURN_IF_ERROR(it->status());
      break;
    }
    std::string shard(it->key().substr(0, 17));
    std::string end = PrefixEnd(shard);
    uint32_t table_id, shard_no;
    int64_t ms;
    uint64_t seq;
    if (ParseRecordKey(it->key(), &table_id, &ms, &shard_no, &seq)) {
      OpenShard& o = open[{table_id, ms}];  // shards come in order: the last one wins
      o.shard_no = shard_no;
      o.first_record_ms = RecordCreatedMs(it->value());
    }
    auto last = store_.ScanFamily(storage::Family::kStreams, shard, end, true, nullptr);
    if (last->Valid() && ParseRecordKey(last->key(), &table_id, &ms, &shard_no, &seq) &&
        seq > max_seq) {
      max_seq = seq;
    }
    lower = end;
  }
  const std::string state_lower(1, kShardStatePrefix);
  const std::string state_upper(1, kShardStatePrefix + 1);
  auto it = store_.ScanFamily(storage::Family::kStreams, state_lower, state_upper, false, nullptr);
  for (; it->Valid(); it->Next()) {
    uint32_t table_id;
    int64_t ms;
    std::optional<uint32_t> no = DecodeShardState(it->value());
    if (!ParseShardStateKey(it->key(), &table_id, &ms) || !no) continue;
    auto [pos, added] = open.try_emplace({table_id, ms}, OpenShard{*no, std::nullopt});
    // A later shard than the one with the last records: its records were all trimmed (the
    // entry is written with a shard's first record, and by the trimmer when it empties the last
    // shard that has records).
    if (!added && *no > pos->second.shard_no) pos->second = OpenShard{*no, std::nullopt};
  }
  RETURN_IF_ERROR(it->status());
  next_seq_ = max_seq + 1;
  std::lock_guard<std::mutex> lock(mu_);
  open_shards_ = std::move(open);
  return Status::Ok();
}

OpenShard StreamLog::open_shard(uint32_t table_id, int64_t stream_ms) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = open_shards_.find({table_id, stream_ms});
  return it == open_shards_.end() ? OpenShard{} : it->second;
}

void StreamLog::AddRecord(storage::WriteBatch& batch, const model::TableDescriptor& table,
                          const model::Item* old_item, const model::Item* new_item,
                          bool service) {
  const model::StreamInfo* stream = table.enabled_stream();
  if (!stream) return;
  if (!old_item && !new_item) return;
  if (old_item && new_item && *old_item == *new_item) return;  // a write that changes nothing
  StreamRecord r;
  r.event = !old_item ? EventName::kInsert : !new_item ? EventName::kRemove : EventName::kModify;
  r.service = service && !new_item;
  r.view_type = stream->view_type;
  r.created_ms = clock_->NowMs();
  r.keys = KeysOf(table, new_item ? *new_item : *old_item);
  r.size_bytes = model::ItemSize(r.keys);
  bool want_new = stream->view_type == model::StreamViewType::kNewImage ||
                  stream->view_type == model::StreamViewType::kNewAndOldImages;
  bool want_old = stream->view_type == model::StreamViewType::kOldImage ||
                  stream->view_type == model::StreamViewType::kNewAndOldImages;
  if (want_new && new_item) {
    r.new_image = *new_item;
    r.size_bytes += model::ItemSize(*new_item);
  }
  if (want_old && old_item) {
    r.old_image = *old_item;
    r.size_bytes += model::ItemSize(*old_item);
  }
  Append(batch, table.id, stream->created_ms, r.created_ms, EncodeRecord(r));
}

void StreamLog::AddRowRecord(storage::WriteBatch& batch, const model::TableDescriptor& table,
                             RowRecord record) {
  const model::StreamInfo* stream = table.enabled_stream();
  if (!stream) return;
  int64_t hours = stream->expiration_hours > 0 ? stream->expiration_hours : 24;
  // Dated by the log's clock, as DynamoDB records: the trimmer and the rollover read it.
  record.created_ms = clock_->NowMs();
  record.expires_ms = record.created_ms + hours * 3'600'000;
  Append(batch, table.id, stream->created_ms, record.created_ms, EncodeRowRecord(record));
}

void StreamLog::Append(storage::WriteBatch& batch, uint32_t table_id, int64_t stream_ms,
                       int64_t created_ms, const std::string& value) {
  if (shared_) return AppendShared(batch, table_id, stream_ms, created_ms, value);
  std::string key;
  uint64_t seq;
  size_t in_flight;
  std::optional<uint32_t> opened;  // the child shard this record opens
  {
    std::lock_guard<std::mutex> lock(mu_);
    OpenShard& open = open_shards_[{table_id, stream_ms}];
    if (RollsOver(open, created_ms, rollover_ms_.load())) {
      open = OpenShard{open.shard_no + 1, std::nullopt};
      opened = open.shard_no;
    }
    if (!open.first_record_ms) open.first_record_ms = created_ms;
    seq = next_seq_++;
    key = RecordKey(table_id, stream_ms, open.shard_no, seq);
    in_flight_.emplace(seq, std::make_pair(key, created_ms));
    in_flight = in_flight_.size();
  }
  batch.Put(storage::Family::kStreams, key, value);
  // Confirmed, or given up, as soon as the batch's fate is known: readers are held back no
  // longer than the write takes. A number whose commit has an unknown outcome stays until
  // StableLimit's point read finds its record, or kAbandonAfterMs.
  batch.OnOutcome([this, seq, alive = std::weak_ptr<int>(alive_)](
                       storage::BatchOutcome outcome) {
    // A batch may outlive its log (a test reopening the store): then there is nothing to tell.
    if (outcome == storage::BatchOutcome::kUnknown || alive.expired()) return;
    std::lock_guard<std::mutex> lock(mu_);
    in_flight_.erase(seq);
  });
  // The child is durable with its first record: a crash keeps both or neither, and the number
  // is never handed out again once a reader could have seen it.
  if (opened) {
    batch.Put(storage::Family::kStreams, ShardStateKey(table_id, stream_ms),
              EncodeShardState(*opened));
  }
  if (in_flight > kMaxInFlight && !confirming_.exchange(true)) {
    StableLimit();
    confirming_ = false;
  }
}

void StreamLog::AppendShared(storage::WriteBatch& batch, uint32_t table_id, int64_t stream_ms,
                             int64_t created_ms, const std::string& value) {
  const std::pair<uint32_t, int64_t> stream{table_id, stream_ms};
  bool seen;
  {
    std::lock_guard<std::mutex> lock(mu_);
    seen = heads_seen_.count(stream) > 0;
  }
  // Until this process has seen the head, what to start from if there is none: read here, not
  // under the head's lock, which is right whenever it is used (no head: no write has numbered a
  // record of the stream from one, and records from before heads were kept are all written).
  StreamHead fallback;
  if (!seen) {
    auto from_records = HeadFromRecords(table_id, stream_ms);
    if (from_records) {
      fallback = *from_records;
    } else {
      fallback.next_seq = next_seq_.load();
      fallback.open = open_shard(table_id, stream_ms);
    }
  }
  const int64_t rollover_ms = rollover_ms_.load();
  batch.PutSequenced(
      storage::Family::kStreams, HeadKey(table_id, stream_ms),
      [=](const std::optional<std::string>& raw) {
        std::optional<StreamHead> decoded = raw ? DecodeHead(*raw) : std::nullopt;
        StreamHead head = decoded ? *decoded : fallback;
        storage::SequencedWrite w;
        if (RollsOver(head.open, created_ms, rollover_ms)) {
          head.open = OpenShard{head.open.shard_no + 1, std::nullopt};
          // The child is durable with its first record (as Append's).
          w.puts.emplace_back(ShardStateKey(table_id, stream_ms),
                              EncodeShardState(head.open.shard_no));
        }
        if (!head.open.first_record_ms) head.open.first_record_ms = created_ms;
        w.puts.emplace_back(RecordKey(table_id, stream_ms, head.open.shard_no, head.next_seq),
                            value);
        ++head.next_seq;
        w.head = EncodeHead(head);
        return w;
      });
  if (!seen) {
    batch.OnOutcome([this, stream, alive = std::weak_ptr<int>(alive_)](
                         storage::BatchOutcome outcome) {
      if (outcome != storage::BatchOutcome::kCommitted || alive.expired()) return;
      std::lock_guard<std::mutex> lock(mu_);
      heads_seen_.insert(stream);
    });
  }
}

Result<StreamHead> StreamLog::HeadFromRecords(uint32_t table_id, int64_t stream_ms) const {
  // Above every number the family ever held: its records' and the trimmer's floor.
  uint64_t max_seq = 0;
  ASSIGN_OR_RETURN(floor, store_.Get(storage::Family::kStreams, kSeqFloorKey));
  if (floor) {
    std::string_view v = *floor;
    GetFixed64BE(&v, &max_seq);
  }
  ASSIGN_OR_RETURN(shards, ListShards(table_id, stream_ms));
  for (const auto& sh : shards) max_seq = std::max(max_seq, sh.last_seq.value_or(0));
  StreamHead head;
  head.next_seq = max_seq + 1;
  head.open.shard_no = shards.back().shard_no;  // ListShards lists the open shard last
  if (shards.back().first_seq) {
    std::vector<std::pair<uint64_t, std::string>> first;
    bool at_end = false;
    RETURN_IF_ERROR(Scan(table_id, stream_ms, head.open.shard_no, *shards.back().first_seq - 1,
                         UINT64_MAX, 1, &first, &at_end));
    if (!first.empty()) head.open.first_record_ms = RecordCreatedMs(first[0].second);
  }
  return head;
}

Result<uint64_t> StreamLog::LastAllocated(uint32_t table_id, int64_t stream_ms) const {
  if (!shared_) return last_allocated();
  ASSIGN_OR_RETURN(raw, store_.Get(storage::Family::kStreams, HeadKey(table_id, stream_ms)));
  if (raw) {
    if (auto head = DecodeHead(*raw)) return head->next_seq - 1;
  }
  ASSIGN_OR_RETURN(head, HeadFromRecords(table_id, stream_ms));
  return head.next_seq - 1;
}

uint64_t StreamLog::StableLimit() {
  // Numbers rise in commit order on a shared store: whatever is committed can be read.
  if (shared_) return UINT64_MAX;
  std::vector<std::pair<uint64_t, std::string>> pending;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (in_flight_.empty()) return next_seq_.load();
    for (const auto& [seq, entry] : in_flight_) pending.emplace_back(seq, entry.first);
  }
  int64_t now = clock_->NowMs();
  std::vector<uint64_t> done;
  for (const auto& [seq, key] : pending) {
    auto found = store_.Get(storage::Family::kStreams, key);
    if (found && *found) done.push_back(seq);
  }
  std::lock_guard<std::mutex> lock(mu_);
  for (uint64_t seq : done) in_flight_.erase(seq);
  // Given up: batches that were built but never written (a failed write).
  for (auto it = in_flight_.begin(); it != in_flight_.end();) {
    if (now - it->second.second > kAbandonAfterMs) {
      it = in_flight_.erase(it);
    } else {
      ++it;
    }
  }
  return in_flight_.empty() ? next_seq_.load() : in_flight_.begin()->first;
}

bool StreamLog::HasInFlight(uint32_t table_id, int64_t stream_ms, uint32_t shard_no) {
  StableLimit();
  std::string shard = ShardPrefix(table_id, stream_ms, shard_no);
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [seq, entry] : in_flight_) {
    if (entry.first.compare(0, shard.size(), shard) == 0) return true;
  }
  return false;
}

std::set<uint32_t> StreamLog::ShardsInFlight(uint32_t table_id, int64_t stream_ms) {
  StableLimit();
  std::string stream = StreamPrefix(table_id, stream_ms);
  std::set<uint32_t> out;
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [seq, entry] : in_flight_) {
    uint32_t tid, shard_no;
    int64_t ms;
    uint64_t s;
    if (entry.first.compare(0, stream.size(), stream) == 0 &&
        ParseRecordKey(entry.first, &tid, &ms, &shard_no, &s)) {
      out.insert(shard_no);
    }
  }
  return out;
}

Result<std::vector<ShardInfo>> StreamLog::ListShards(uint32_t table_id, int64_t stream_ms) const {
  std::vector<ShardInfo> shards;
  std::string lower = StreamPrefix(table_id, stream_ms);
  const std::string upper = PrefixEnd(lower);
  while (true) {
    auto it = store_.ScanFamily(storage::Family::kStreams, lower, upper, false, nullptr);
    if (!it->Valid()) {
      RETURN_IF_ERROR(it->status());
      break;
    }
    uint32_t tid, shard_no;
    int64_t ms;
    uint64_t seq;
    if (!ParseRecordKey(it->key(), &tid, &ms, &shard_no, &seq)) break;
    ShardInfo info;
    info.shard_no = shard_no;
    info.first_seq = seq;
    std::string shard = ShardPrefix(table_id, stream_ms, shard_no);
    std::string end = PrefixEnd(shard);
    auto last = store_.ScanFamily(storage::Family::kStreams, shard, end, true, nullptr);
    if (last->Valid() && ParseRecordKey(last->key(), &tid, &ms, &shard_no, &seq)) {
      info.last_seq = seq;
    }
    shards.push_back(info);
    lower = end;
  }
  // The open shard, when it has no records yet (or no more): the shard-state entry names it.
  auto state = store_.Get(storage::Family::kStreams, ShardStateKey(table_id, stream_ms));
  if (!state) return std::move(state).error();
  std::optional<uint32_t> open = *state ? DecodeShardState(**state) : std::nullopt;
  uint32_t open_no = open.value_or(0);
  if (shards.empty() || shards.back().shard_no < open_no) {
    shards.push_back(ShardInfo{open_no, std::nullopt, std::nullopt});
  }
  return shards;
}

Status StreamLog::Scan(uint32_t table_id, int64_t stream_ms, uint32_t shard_no,
                       uint64_t after_seq, uint64_t limit_seq, size_t max,
                       std::vector<std::pair<uint64_t, std::string>>* out, bool* at_end) const {
  *at_end = false;
  std::string shard = ShardPrefix(table_id, stream_ms, shard_no);
  std::string start = RecordKey(table_id, stream_ms, shard_no, after_seq);
  auto it = store_.ScanFamily(storage::Family::kStreams, shard, PrefixEnd(shard), false, &start);
  for (; it->Valid(); it->Next()) {
    uint32_t tid, sno;
    int64_t ms;
    uint64_t seq;
    if (!ParseRecordKey(it->key(), &tid, &ms, &sno, &seq)) continue;
    if (seq <= after_seq) continue;
    if (seq >= limit_seq || out->size() >= max) return Status::Ok();
    out->emplace_back(seq, std::string(it->value()));
  }
  RETURN_IF_ERROR(it->status());
  *at_end = true;
  return Status::Ok();
}

Result<ReadResult> StreamLog::Read(uint32_t table_id, int64_t stream_ms, uint32_t shard_no,
                                   uint64_t after_seq, uint64_t limit_seq, size_t max) const {
  ReadResult out;
  std::vector<std::pair<uint64_t, std::string>> raw;
  RETURN_IF_ERROR(Scan(table_id, stream_ms, shard_no, after_seq, limit_seq, max, &raw, &out.at_end));
  for (auto& [seq, value] : raw) {
    auto record = DecodeRecord(value);
    if (!record) return Error::Internal("corrupt stream record");
    record->seq = seq;
    out.records.push_back(std::move(*record));
  }
  return out;
}

Result<std::vector<RowRecord>> StreamLog::ReadRows(uint32_t table_id, int64_t stream_ms,
                                                   uint32_t shard_no, uint64_t after_seq,
                                                   uint64_t limit_seq, size_t max,
                                                   bool* at_end) const {
  std::vector<std::pair<uint64_t, std::string>> raw;
  RETURN_IF_ERROR(Scan(table_id, stream_ms, shard_no, after_seq, limit_seq, max, &raw, at_end));
  std::vector<RowRecord> out;
  for (auto& [seq, value] : raw) {
    auto record = DecodeRowRecord(value);
    if (!record) return Error::Internal("corrupt stream record");
    record->seq = seq;
    out.push_back(std::move(*record));
  }
  return out;
}

void AddDroppedStreams(storage::WriteBatch& batch, const model::TableDescriptor& table,
                       int64_t now_ms) {
  // Streams are listed oldest first and only the last can be enabled, so the kept ones are the
  // newest: every shard-state entry below the oldest kept stream (of streams past retention, or
  // of streams UpdateTable already pruned from the list) goes in one range delete.
  std::string keep_from = PrefixEnd(ShardStateKey(table.id, 0).substr(0, 5));
  for (const auto& st : table.streams) {
    DroppedStream d;
    d.table_id = table.id;
    d.table_name = table.name;
    d.key = table.key;
    d.info = st;
    if (d.info.disabled_ms == 0) d.info.disabled_ms = now_ms;
    if (d.info.disabled_ms + kRetentionMs < now_ms) continue;  // its records are trimmed too
    keep_from = std::min(keep_from, ShardStateKey(table.id, st.created_ms));
    batch.Put(storage::Family::kStreams, DroppedKey(table.id, st.created_ms), EncodeDropped(d));
  }
  batch.DeleteRange(storage::Family::kStreams, ShardStateKey(table.id, 0), keep_from);
  // No write numbers a record of the table's streams any more; a reader's LastAllocated finds
  // the same numbers in the records.
  batch.DeleteRange(storage::Family::kStreams, HeadKeysBegin(table.id), HeadKeysEnd(table.id));
}

}  // namespace ttlstore::streams
