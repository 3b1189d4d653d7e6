// What `ttlstore replicate` reports while it runs: counters shared by its threads, the status
// line printed every second in the stream phase, and the same figures as /metrics-style text
// (--status-file, replaced atomically every second; names follow src/server/metrics.cc's
// `ttlstore_<area>_<what>[_total]`).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "common/result.h"

namespace ttlstore::cli {

struct ReplicateStats {
  std::atomic<int> phase{0};  // 0 setting up, 1 copy, 2 stream
  std::atomic<int64_t> items_copied{0};
  std::atomic<int64_t> items_estimate{0};  // the source's ItemCount
  std::atomic<int64_t> records_applied{0};
  std::atomic<int64_t> ttl_deletes_applied{0};
  std::atomic<int64_t> writes_retried{0};
  std::atomic<int64_t> shards_active{0};
  // ApproximateCreationDateTime of the last applied record, in ms (0: none yet).
  std::atomic<int64_t> last_record_created_ms{0};
  // The last pass over the ready shards found nothing new: the target is caught up.
  std::atomic<bool> caught_up{false};

  // now - the last applied record's creation time, or 0 when caught up (or nothing applied).
  double LagSeconds(int64_t now_ms) const;
};

// "replicate: stream  applied 1234 records (5 TTL deletes)  copied 10000 items  lag 0.8 s  shards 1"
std::string StatusLine(const ReplicateStats& stats, int64_t now_ms);

// The /metrics-style text, every series labelled with the source table.
std::string StatusMetrics(const ReplicateStats& stats, const std::string& table, int64_t now_ms);

// Writes `text` to `path` through a rename, so a reader never sees half of it.
Status WriteFileAtomically(const std::string& path, const std::string& text);

}  // namespace ttlstore::cli
