// RowPurgeScheduler: makes "purged later" (T2, T6) happen within a bounded time. At start-up it
// gives rows stored before the purge index existed their entries (once per data dir), then runs
// one purge pass (ops/row_purger.h) at once and one every `interval`. A pass reads only the rows
// that can hold hidden versions, so its cost follows what is hidden, not the data's size.
// Nothing of a pass is persisted but its effects: a pass cut short by a stop or a crash is
// simply taken up by the next one, which finds the work left in the purge index.
#pragma once

#include "common/thread.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "ops/row_purger.h"

namespace ttlstore::ops {

class RowPurgeScheduler {
 public:
  RowPurgeScheduler(RowPurger& purger, std::chrono::seconds interval)
      : purger_(purger), interval_(interval) {}
  ~RowPurgeScheduler() { Stop(); }

  void Start();
  void Stop();

 private:
  void Loop();
  void Pass();

  RowPurger& purger_;
  const std::chrono::seconds interval_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;  // GUARDED_BY(mu_)
  Thread thread_;
};

}  // namespace ttlstore::ops
