// ReplicateCheckpoint: what `ttlstore replicate` has made durable, so that a restart after
// kill -9 resumes without losing a change. Kept in one JSON file (--checkpoint PATH), replaced
// atomically (write PATH.tmp, fsync, rename, fsync the folder), so a crash leaves either the
// old or the new checkpoint, never a torn one. The format is in docs/background-jobs.md
// ("Replication").
//
// What each part promises:
// - `shards` is written before the copy starts: the stream position the copy is measured
//   against. A shard marked `finished` holds only changes the copy has seen; `after` = the last
//   sequence number whose change is in the target (empty: from TRIM_HORIZON).
// - during the copy, `segments[i].last_key` is the LastEvaluatedKey of the last Scan page of
//   segment i whose items are all in the target (null: from the start); `done` once the segment
//   has no more pages.
// - during the stream phase, `shards[id].after` advances only after the changes up to it are
//   written to the target; going back to an older checkpoint replays changes in order, which
//   converges (docs/background-jobs.md).
#pragma once

#include <boost/json/value.hpp>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"

namespace ttlstore::cli {

struct SegmentState {
  bool done = false;
  boost::json::value last_key;  // null, or the LastEvaluatedKey object
  int64_t items = 0;            // items this segment copied
};

struct ShardState {
  std::string after;     // last applied sequence number; "" = none yet (TRIM_HORIZON)
  bool finished = false;  // closed and every record applied (or wholly before the copy)
};

struct ReplicateCheckpoint {
  static constexpr int kVersion = 1;
  std::string source_url;
  std::string source_table;
  std::string target_url;
  std::string target_table;
  std::string stream_arn;
  bool copy_done = false;
  std::vector<SegmentState> segments;
  std::map<std::string, ShardState> shards;
  int64_t items_copied = 0;
  int64_t records_applied = 0;

  std::string Encode() const;
  static Result<ReplicateCheckpoint> Decode(std::string_view text);

  // Writes the encoding to `path` atomically (tmp file, fsync, rename, fsync of the folder).
  Status Save(const std::string& path) const;
  // The checkpoint at `path`; nullopt if there is no file; an error if it is unreadable.
  static Result<std::optional<ReplicateCheckpoint>> Load(const std::string& path);
};

}  // namespace ttlstore::cli
