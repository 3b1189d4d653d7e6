// RowPurgeScheduler: makes "purged later" (T2, T6) happen within a bounded time. RocksDB only
// runs the purge filter when it compacts, and a table nobody writes to may not be compacted
// for a long time, so every `interval` this thread compacts the whole `rows` family (when any
// Tablestore table exists), which passes every row through the purge (ops/row_purger.h).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "ops/table_ops.h"
#include "storage/store.h"

namespace ttlstore::ops {

class RowPurgeScheduler {
 public:
  RowPurgeScheduler(storage::Store& store, const TableCatalog& catalog,
                    std::chrono::seconds interval)
      : store_(store), catalog_(catalog), interval_(interval) {}
  ~RowPurgeScheduler() { Stop(); }

  void Start();
  void Stop();
  uint64_t runs() const { return runs_.load(std::memory_order_relaxed); }

 private:
  void Loop();

  storage::Store& store_;
  const TableCatalog& catalog_;
  const std::chrono::seconds interval_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;  // GUARDED_BY(mu_)
  std::thread thread_;
  std::atomic<uint64_t> runs_{0};
};

}  // namespace ttlstore::ops
