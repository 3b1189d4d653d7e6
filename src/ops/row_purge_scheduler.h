// RowPurgeScheduler: makes "purged later" (T2, T6) happen within a bounded time. At start-up it
// gives rows stored before the purge index existed their entries (once per data dir), then runs
// one purge pass (ops/row_purger.h) at once and one every `interval`. A pass reads only the rows
// that can hold hidden versions, so its cost follows what is hidden, not the data's size.
// Nothing of a pass is persisted but its effects: a pass cut short by a stop or a crash is
// simply taken up by the next one, which finds the work left in the purge index. With several
// processes on one database, passes run in the one holding kPurgeLeaseUnit (storage/lease.h).
#pragma once

#include "common/thread.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "ops/row_purger.h"
#include "storage/lease_keeper.h"

namespace ttlstore::ops {

inline const std::string kPurgeLeaseUnit = "tablestore/purge";

class RowPurgeScheduler {
 public:
  // With a `keeper`, a pass runs only while it holds kPurgeLeaseUnit.
  RowPurgeScheduler(RowPurger& purger, std::chrono::seconds interval,
                    const storage::LeaseKeeper* keeper = nullptr)
      : purger_(purger), interval_(interval), keeper_(keeper) {}
  ~RowPurgeScheduler() { Stop(); }

  void Start();
  void Stop();

 private:
  void Loop();
  void Pass();

  RowPurger& purger_;
  const std::chrono::seconds interval_;
  const storage::LeaseKeeper* keeper_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;  // GUARDED_BY(mu_)
  Thread thread_;
};

}  // namespace ttlstore::ops
