#include "streams/trimmer.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <vector>

#include "common/coding.h"
#include "streams/row_record.h"
#include "streams/shard_rollover.h"
#include "streams/stream_names.h"

namespace ttlstore::streams {

namespace {

// The last shard with records of a stream is its open shard at start-up (StreamLog::Recover).
// When the trimmer empties it, the shard-state entry must name it (or a later shard) so that the
// number is not handed out again: its own record may not have written one (a shard opened by a
// write whose batch failed, the next one then carrying no entry). `shard` is the emptied shard's
// key prefix, `end` its PrefixEnd.
Status KeepOpenShardNumber(storage::Store& store, const std::string& shard, const std::string& end,
                           storage::WriteBatch& batch) {
  std::string_view rest(shard);
  rest.remove_prefix(1);
  uint32_t table_id = 0, shard_no = 0;
  uint64_t ms = 0;
  if (!GetFixed32BE(&rest, &table_id) || !GetFixed64BE(&rest, &ms) ||
      !GetFixed32BE(&rest, &shard_no)) {
    return Status::Ok();
  }
  const std::string stream = shard.substr(0, 13);
  auto later = store.ScanFamily(storage::Family::kStreams, end, PrefixEnd(stream), false, nullptr);
  if (later->Valid()) return Status::Ok();  // a later shard has records
  RETURN_IF_ERROR(later->status());
  std::string key = ShardStateKey(table_id, static_cast<int64_t>(ms));
  auto state = store.Get(storage::Family::kStreams, key);
  if (!state) return std::move(state).error();
  std::optional<uint32_t> named = *state ? DecodeShardState(**state) : std::nullopt;
  if (!named || *named < shard_no) {
    batch.Put(storage::Family::kStreams, key, EncodeShardState(shard_no));
  }
  return Status::Ok();
}

}  // namespace

Result<TrimStats> Trimmer::TrimOnce(int64_t now_ms) {
  TrimStats stats;
  const int64_t cutoff = now_ms - kRetentionMs;
  storage::Store& store = log_.store();
  storage::WriteBatch batch(store);
  bool any = false;
  // Records: per shard, the old ones form a prefix (records are dated as they are numbered).
  std::string lower(1, kRecordPrefix);
  const std::string upper(1, kRecordPrefix + 1);
  while (true) {
    auto it = store.ScanFamily(storage::Family::kStreams, lower, upper, false, nullptr);
    if (!it->Valid()) {
      RETURN_IF_ERROR(it->status());
      break;
    }
    std::string shard(it->key().substr(0, 17));
    std::string end = PrefixEnd(shard);
    std::string keep_from = end;  // the first record to keep
    uint64_t old = 0;
    for (; it->Valid() && it->key().substr(0, 17) == shard; it->Next()) {
      // Each record carries its expiry: 24 hours for DynamoDB, the stream's expiration time
      // for Tablestore (streams/row_record.h).
      std::optional<int64_t> expires = RecordExpiresMs(it->value());
      if (expires && *expires >= now_ms) {
        keep_from.assign(it->key());
        break;
      }
      ++old;
    }
    RETURN_IF_ERROR(it->status());
    if (old > 0) {
      batch.DeleteRange(storage::Family::kStreams, shard, keep_from);
      stats.records += old;
      any = true;
      if (keep_from == end) RETURN_IF_ERROR(KeepOpenShardNumber(store, shard, end, batch));
    }
    lower = end;
  }
  // Streams of dropped tables.
  std::string dlower(1, kDroppedPrefix);
  std::string dupper(1, kDroppedPrefix + 1);
  for (auto it = store.ScanFamily(storage::Family::kStreams, dlower, dupper, false, nullptr);
       it->Valid(); it->Next()) {
    auto d = DecodeDropped(it->key(), it->value());
    if (!d || d->info.disabled_ms < cutoff) {
      batch.Delete(storage::Family::kStreams, it->key());
      // Its shard-state entry has the same table id and stream ms after its own prefix.
      std::string state(it->key());
      state[0] = kShardStatePrefix;
      batch.Delete(storage::Family::kStreams, state);
      state[0] = kHeadPrefix;  // and its head, if a shared store kept one
      batch.Delete(storage::Family::kStreams, state);
      ++stats.dropped_streams;
      any = true;
    }
  }
  if (!any) return stats;
  // Keep numbers from going back even if every record is gone.
  std::string floor;
  PutFixed64BE(&floor, log_.SequenceFloorValue());
  batch.Put(storage::Family::kStreams, kSeqFloorKey, floor);
  RETURN_IF_ERROR(store.Write(batch));
  return stats;
}

void Trimmer::Start() {
  thread_.Start("stream-trimmer", interval_ms_, [this] {
    if (!storage::MayRun(keeper_, kTrimLeaseUnit)) return;
    auto result = TrimOnce(log_.clock().NowMs());
    if (!result) {
      spdlog::warn("event=stream_trim_failed message=\"{}\"", result.error().message());
    } else if (result->records || result->dropped_streams) {
      spdlog::info("event=stream_trim records={} dropped_streams={}", result->records,
                   result->dropped_streams);
    }
  });
}

void Trimmer::Stop() { thread_.Stop(); }

}  // namespace ttlstore::streams
