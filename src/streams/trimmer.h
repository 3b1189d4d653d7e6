// Trimmer: removes stream records past their expiry (24 hours for DynamoDB; a Tablestore stream's
// expiration time, kept in each record), and what is left of the streams of dropped tables once
// they are 24 hours old. Within a shard it removes the expired records that precede the first
// one still kept (records of one stream share an expiration time unless it was changed by
// disabling and re-enabling, which starts a new stream). One pass is one seek per shard plus a
// scan of the records it removes, each shard's old records going in one DeleteRange.
#pragma once

#include <cstdint>

#include "common/periodic_thread.h"
#include "common/result.h"
#include "storage/lease_keeper.h"
#include "streams/stream_log.h"

namespace ttlstore::streams {

struct TrimStats {
  uint64_t records = 0;  // records removed
  uint64_t dropped_streams = 0;  // dropped tables' streams forgotten
};

// The trimmer's unit of work (storage/lease.h): with several processes on one database, one of
// them trims at a time.
inline const std::string kTrimLeaseUnit = "streams/trim";

class Trimmer {
 public:
  // Passes run every `interval_ms`, dated by the log's clock; with a `keeper`, only while it
  // holds kTrimLeaseUnit.
  Trimmer(StreamLog& log, int64_t interval_ms = 60'000,
          const storage::LeaseKeeper* keeper = nullptr)
      : log_(log), interval_ms_(interval_ms), keeper_(keeper) {}
  ~Trimmer() { Stop(); }

  // One pass at time `now_ms`: removes records that expired before now_ms.
  Result<TrimStats> TrimOnce(int64_t now_ms);

  void Start();
  void Stop();

 private:
  StreamLog& log_;
  int64_t interval_ms_;
  const storage::LeaseKeeper* keeper_;
  PeriodicThread thread_;
};

}  // namespace ttlstore::streams
