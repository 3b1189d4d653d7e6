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
// confirmed when its batch commits, given up when the batch fails or is dropped unwritten
// (storage::WriteBatch::OnOutcome: a read-modify-write attempt started over, a write refused
// during a database outage), and otherwise (a commit whose outcome is unknown) confirmed once a
// point read finds its record, or given up after kAbandonAfterMs. Readers never block writers: the tracker's lock is held for a map update only,
// and records are read from a RocksDB iterator's snapshot.
//
// Each stream writes to one open shard; the first write at least the rollover period after the
// open shard's first record goes to its child instead (streams/shard_rollover.h). The shard is
// picked under the same lock as the sequence number, so every number of shard k is below every
// number of shard k + 1. A writer that took a number in shard k may commit after shard k + 1 has
// records: readers treat shard k as still receiving (no EndingSequenceNumber, no end of shard for
// GetRecords) while any number of it is unconfirmed (ShardsInFlight).
//
// On a store several processes share (PostgreSQL) none of the above can be kept in one
// process's memory: there each stream numbers its records from its head, a record every write to
// the stream locks at its commit (AppendShared, streams/stream_head.h). Numbers then rise in
// commit order, so a reader never has to wait for one in flight, and a shard is closed for good
// once its child has a record or a shard-state entry.
//
// Thread-safety: every method may be called from any thread at once.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/result.h"
#include "model/table.h"
#include "storage/store.h"
#include "streams/row_record.h"
#include "streams/shard_rollover.h"
#include "streams/stream_head.h"
#include "streams/stream_record.h"

namespace ttlstore::streams {

inline constexpr int64_t kAbandonAfterMs = 10'000;
// Past this many unconfirmed numbers a writer confirms them (one point read each), so that the
// tracker stays small on a stream nobody reads.
inline constexpr size_t kMaxInFlight = 4096;

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

  // Adds the record of a Tablestore row write to `batch`, in the open shard of the table's
  // enabled stream (nothing if it has none), numbered and sharded as AddRecord's, dated now by
  // the log's clock; it expires the stream's expiration time later.
  void AddRowRecord(storage::WriteBatch& batch, const model::TableDescriptor& table,
                    RowRecord record);

  // The most recently allocated sequence number (0 if none yet), of this process: on a store
  // several processes share, numbers are per stream (LastAllocated).
  uint64_t last_allocated() const { return next_seq_.load() - 1; }
  // The largest number handed out in the stream (or below every number it will hand out): its
  // head's on a store several processes share, else last_allocated().
  Result<uint64_t> LastAllocated(uint32_t table_id, int64_t stream_ms) const;
  // Every sequence number below this is committed or will never be.
  uint64_t StableLimit();
  // Whether any number allocated for a record of this shard is still unconfirmed.
  bool HasInFlight(uint32_t table_id, int64_t stream_ms, uint32_t shard_no);
  // The shards of the stream that have an unconfirmed number.
  std::set<uint32_t> ShardsInFlight(uint32_t table_id, int64_t stream_ms);

  // The shards of a stream in shard order with their record ranges: every shard that still has
  // records, and the open shard (the last one listed; shard 0 for a stream without any). A
  // closed shard whose records were all trimmed is not listed, as on the service.
  Result<std::vector<ShardInfo>> ListShards(uint32_t table_id, int64_t stream_ms) const;

  // How long a shard stays open after its first record (`serve --stream-shard-rollover-seconds`;
  // 0: never rolls over). Takes effect from the next write.
  void set_rollover_ms(int64_t ms) { rollover_ms_ = ms; }
  int64_t rollover_ms() const { return rollover_ms_.load(); }
  // The write path's view of a stream's open shard (tests and `ttlstore check` reasoning).
  OpenShard open_shard(uint32_t table_id, int64_t stream_ms);
  // Up to `max` records of a shard with after_seq < seq < limit_seq, in order.
  Result<ReadResult> Read(uint32_t table_id, int64_t stream_ms, uint32_t shard_no,
                          uint64_t after_seq, uint64_t limit_seq, size_t max) const;

  // Read's counterpart for Tablestore row records.
  Result<std::vector<RowRecord>> ReadRows(uint32_t table_id, int64_t stream_ms, uint32_t shard_no,
                                          uint64_t after_seq, uint64_t limit_seq, size_t max,
                                          bool* at_end) const;

  // The trimmer keeps this floor so that numbers are never reused even when every record of the
  // family has been trimmed.
  uint64_t SequenceFloorValue() const { return last_allocated(); }

  storage::Store& store() { return store_; }
  const Clock& clock() const { return *clock_; }

 private:
  Status Recover();
  // Append on a store several processes share: the number and the shard are decided at commit,
  // from the stream's head (streams/stream_head.h), which the commit locks.
  void AppendShared(storage::WriteBatch& batch, uint32_t table_id, int64_t stream_ms,
                    int64_t created_ms, const std::string& value);
  // The head a stream's records (and the family's floor) imply, for a stream without a head
  // record: one whose records were written before heads were kept, or none yet.
  Result<StreamHead> HeadFromRecords(uint32_t table_id, int64_t stream_ms) const;
  // Numbers a record of the stream created at `stream_ms` made at `created_ms`, in the open shard
  // (or its child, when it rolls over), and puts it and what the shard switch needs in `batch`.
  void Append(storage::WriteBatch& batch, uint32_t table_id, int64_t stream_ms, int64_t created_ms,
              const std::string& value);
  // The raw records of a shard with after_seq < seq < limit_seq, at most `max`, in order.
  Status Scan(uint32_t table_id, int64_t stream_ms, uint32_t shard_no, uint64_t after_seq,
              uint64_t limit_seq, size_t max, std::vector<std::pair<uint64_t, std::string>>* out,
              bool* at_end) const;

  storage::Store& store_;
  SystemClock system_clock_;
  const Clock* clock_;
  // Whether other processes may write to the store (storage::Store::SharedByProcesses): then
  // numbers come from the heads, and readers need not wait for numbers in flight.
  const bool shared_;
  std::atomic<uint64_t> next_seq_{1};
  std::atomic<bool> confirming_{false};
  // Expires with the log: a batch's outcome function (Append) checks it before using the log.
  std::shared_ptr<int> alive_ = std::make_shared<int>(0);  // one writer at a time shrinks the tracker
  std::atomic<int64_t> rollover_ms_{kDefaultRolloverMs};
  std::mutex mu_;
  // (table id, stream ms) -> its open shard, for every stream with records or a shard-state
  // entry at start-up and every stream written since. GUARDED_BY(mu_)
  std::map<std::pair<uint32_t, int64_t>, OpenShard> open_shards_;
  // Streams whose head this process has seen committed (shared store). GUARDED_BY(mu_)
  std::set<std::pair<uint32_t, int64_t>> heads_seen_;
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
