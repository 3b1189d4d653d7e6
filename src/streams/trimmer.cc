#include "streams/trimmer.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <vector>

#include "common/coding.h"
#include "streams/stream_names.h"

namespace ttlstore::streams {

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
      std::optional<int64_t> created = RecordCreatedMs(it->value());
      if (created && *created >= cutoff) {
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
  thread_ = Thread("stream-trimmer", [this] {
    std::unique_lock<std::mutex> lock(mu_);
    while (!stop_) {
      lock.unlock();
      auto result = TrimOnce(log_.clock().NowMs());
      if (!result) {
        spdlog::warn("event=stream_trim_failed message=\"{}\"", result.error().message());
      } else if (result->records || result->dropped_streams) {
        spdlog::info("event=stream_trim records={} dropped_streams={}", result->records,
                     result->dropped_streams);
      }
      lock.lock();
      wake_.wait_for(lock, std::chrono::milliseconds(interval_ms_), [this] { return stop_; });
    }
  });
}

void Trimmer::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

}  // namespace ttlstore::streams
