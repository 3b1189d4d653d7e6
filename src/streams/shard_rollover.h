// Shard lineage: when a stream's open shard is closed and its child opened (rollover), the
// durable record of which shard is open, and which sequence numbers belong to a shard.
//
// A stream's shards are numbered 0, 1, 2, ...; shard k's parent is k - 1 and its only child is
// k + 1 (the service splits a shard into one or two children; with one partition we only ever
// roll over into one). Only the last shard is open. The switch is made on the write path: the
// first write whose record is at least the rollover period younger than the open shard's first
// record goes to shard k + 1 (RollsOver), and that write's batch also stores the new open shard
// number under ShardStateKey, so the number is never reused, even after every record was trimmed
// or the server restarted (docs/formats.md, "Shards"; docs/background-jobs.md, "Shard rollover").
// Pure functions; no storage.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ttlstore::streams {

// The service closes a stream's shards and opens their children about every four hours
// (developer guide, "DynamoDB Streams ... shards": "shards ... are created and deleted
// automatically"; the period is observed, not promised). `serve --stream-shard-rollover-seconds`.
inline constexpr int64_t kDefaultRolloverMs = 4LL * 3600 * 1000;

// What the write path knows of a stream's open shard.
struct OpenShard {
  uint32_t shard_no = 0;
  // When its first record was written; absent while it has none (an empty shard never closes:
  // every closed shard has a record, so a StartingSequenceNumber and an EndingSequenceNumber).
  std::optional<int64_t> first_record_ms;
};

// Whether a record created at `now_ms` goes to a new shard (shard_no + 1) instead of `open`.
// `period_ms` <= 0 disables rollover.
bool RollsOver(const OpenShard& open, int64_t now_ms, int64_t period_ms);

// 0x04 . table id (4 BE) . stream created ms (8 BE) -> open shard number (4 BE).
std::string ShardStateKey(uint32_t table_id, int64_t stream_ms);
std::string EncodeShardState(uint32_t open_shard_no);
std::optional<uint32_t> DecodeShardState(std::string_view value);
// Splits a ShardStateKey. False for keys of another form.
bool ParseShardStateKey(std::string_view key, uint32_t* table_id, int64_t* stream_ms);

// A shard as the readers see it: its number and the sequence numbers of its remaining records.
struct ShardInfo {
  uint32_t shard_no = 0;
  std::optional<uint64_t> first_seq;  // absent for a shard with no (remaining) records
  std::optional<uint64_t> last_seq;
};

// The shards of `all` (in shard order) whose parent is `parent_no`: the shard numbered
// parent_no + 1, if it is listed.
std::vector<ShardInfo> ChildShards(const std::vector<ShardInfo>& all, uint32_t parent_no);

// Whether sequence number `seq` can name a record of all[index]: it is neither at or before the
// last record of an earlier shard nor at or after the first record of a later one, nor (for the
// last shard) past `last_allocated`. Numbers of trimmed records of the shard itself pass (the
// iterator then starts at the oldest record kept); numbers of other streams that fall between
// the shard's neighbours pass too (sequence numbers are shared by every stream of the server).
bool SequenceInShard(const std::vector<ShardInfo>& all, size_t index, uint64_t seq,
                     uint64_t last_allocated);

}  // namespace ttlstore::streams
