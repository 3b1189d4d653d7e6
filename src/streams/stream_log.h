// StreamLog: the per-store state of DynamoDB Streams on the write path (the sequence-number
// allocator) and the reads of the `streams` family that GetRecords and DescribeStream need.
//
// Sequence numbers come from one counter per store: increasing within every shard, unique,
// restored at start-up from the largest number in the family (or the floor the trimmer keeps),
// so they keep increasing across restarts.
//
// Writers allocate a number while building their WriteBatch and commit it a little later, so
// numbers can become visible out of order (A takes 5, B takes 6, B commits first). A reader that
// returned 6 and moved its position past it would never see 5. So allocated-but-unconfirmed
// numbers are tracked, and readers stop below the lowest one (StableLimit): a number is
// confirmed once its record is readable, or given up after kAbandonAfterMs (a batch that was
// never written). Readers never block writers: the tracker's lock is held for a map update only,
// and records are read from a RocksDB iterator's snapshot.
//
// Thread-safety: every method may be called from any thread at once.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/result.h"
#include "model/table.h"
#include "storage/store.h"
#include "streams/stream_record.h"

namespace ttlstore::streams {

inline constexpr int64_t kAbandonAfterMs = 10'000;
// Past this many unconfirmed numbers a writer confirms them (one point read each), so that the
// tracker stays small on a stream nobody reads.
inline constexpr size_t kMaxInFlight = 4096;

struct ShardInfo {
  uint32_t shard_no = 0;
  std::optional<uint64_t> first_seq;  // absent for a shard with no (remaining) records
  std::optional<uint64_t> last_seq;
};

struct ReadResult {
  std::vector<StreamRecord> records;
  // The read reached the end of the shard's records (nothing past the last one returned).
  bool at_end = false;
};

class StreamLog {
 public:
  // Restores the counter from `store`. `clock` (not owned; may be null: the system clock) dates
  // the records.
  explicit StreamLog(storage::Store& store, const Clock* clock = nullptr);

  // Adds the stream record of a write (`old_item` -> `new_item`; either may be null) to `batch`.
  // Nothing when the table has no enabled stream, nothing changed, or nothing was there to
  // delete. `service`: a deletion made by the service (TTL expiry, D7).
  void AddRecord(storage::WriteBatch& batch, const model::TableDescriptor& table,
                 const model::Item* old_item, const model::Item* new_item, bool service);

  // The most recently allocated sequence number (0 if none yet).
  uint64_t last_allocated() const { return next_seq_.load() - 1; }
  // Every sequence number below this is committed or will never be.
  uint64_t StableLimit();
  // Whether any number allocated for a record of this shard is still unconfirmed.
  bool HasInFlight(uint32_t table_id, int64_t stream_ms, uint32_t shard_no);

  // The shards of a stream with their record ranges (shard 0 always: the open shard).
  Result<std::vector<ShardInfo>> ListShards(uint32_t table_id, int64_t stream_ms) const;
  // Up to `max` records of a shard with after_seq < seq < limit_seq, in order.
  Result<ReadResult> Read(uint32_t table_id, int64_t stream_ms, uint32_t shard_no,
                          uint64_t after_seq, uint64_t limit_seq, size_t max) const;

  // The trimmer keeps this floor so that numbers are never reused even when every record of the
  // family has been trimmed.
  uint64_t SequenceFloorValue() const { return last_allocated(); }

  storage::Store& store() { return store_; }
  const Clock& clock() const { return *clock_; }

 private:
  Status Recover();

  storage::Store& store_;
  SystemClock system_clock_;
  const Clock* clock_;
  std::atomic<uint64_t> next_seq_{1};
  std::atomic<bool> confirming_{false};  // one writer at a time shrinks the tracker
  std::mutex mu_;
  // seq -> (record key, allocation time ms), for numbers not yet confirmed. GUARDED_BY(mu_)
  std::map<uint64_t, std::pair<std::string, int64_t>> in_flight_;
};

// Adds to `batch` what DescribeStream and GetRecords need of the streams of `table`, which the
// same batch drops: one `02` entry per stream still within its retention at `now_ms` (an
// enabled stream is disabled now). The trimmer forgets them, with their records, 24 hours after
// they were disabled. Written with the drop so that a crash keeps both or neither.
void AddDroppedStreams(storage::WriteBatch& batch, const model::TableDescriptor& table,
                       int64_t now_ms);

}  // namespace ttlstore::streams
