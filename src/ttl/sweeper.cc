#include "ttl/sweeper.h"

#include <spdlog/spdlog.h>

#include <pthread.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <map>

#include "common/coding.h"
#include "model/expiry.h"
#include "storage/expiry_key.h"

namespace ttlstore::ttl {
namespace {

struct DueEntry {
  int64_t due_ms;
  std::string item_key;
};

uint32_t TableIdOf(std::string_view item_key) {
  uint32_t id = 0;
  GetFixed32BE(&item_key, &id);
  return id;
}

}  // namespace

std::chrono::nanoseconds PauseAfterPass(const SweeperOptions& options, bool backlog,
                                        std::chrono::nanoseconds took, double foreground_share) {
  if (!backlog) return std::chrono::milliseconds(options.interval_ms);
  if (foreground_share < kIdleForegroundShare) return std::chrono::nanoseconds(0);
  // Work `took`, rest long enough that the work is busy_percent of the cycle.
  int percent = std::clamp(options.busy_percent, 1, 100);
  return took * (100 - percent) / percent;
}

Sweeper::Sweeper(SweeperOptions options, ops::TableCatalog& catalog, ops::ItemOps& items,
                 const Clock& clock, TtlStats& stats, const LoadMeter* load)
    : options_(options),
      catalog_(catalog),
      items_(items),
      clock_(clock),
      stats_(stats),
      load_(load) {}

Sweeper::~Sweeper() { Stop(); }

void Sweeper::Start() {
  thread_ = Thread("ttl-sweeper", [this] { Loop(); });
}

void Sweeper::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

Result<size_t> Sweeper::SweepBatch(int64_t now_ms) {
  // Due means now > due_ms, so the scan ends at now - 1.
  int64_t earliest_new = items_.TakeEarliestNewDue();
  if (earliest_new < watermark_) {
    watermark_ = earliest_new;  // a write put an entry where the index was empty: restart there
    cursor_.clear();
  }
  std::string start = cursor_.empty() ? storage::ExpiryKey(watermark_, "") : cursor_;
  std::vector<DueEntry> due;
  {
    // No entry has an empty item key, so starting "after" the bare watermark key includes every
    // entry due at the watermark.
    auto it = items_.store().ScanExpiry(now_ms - 1, start);
    for (; it->Valid() && due.size() < options_.batch_size; it->Next()) {
      DueEntry e;
      std::string_view item_key;
      if (!storage::ParseExpiryKey(it->key(), &e.due_ms, &item_key)) continue;
      e.item_key.assign(item_key);
      due.push_back(std::move(e));
      cursor_.assign(it->key());
    }
    RETURN_IF_ERROR(it->status());
  }
  if (due.size() < options_.batch_size) {
    // Drained: everything due before now is gone (entries added meanwhile lowered the earliest
    // new due, which the next batch takes).
    watermark_ = now_ms;
    cursor_.clear();
  }
  if (due.empty()) {
    stats_.SetLagMs(0);
    return size_t{0};
  }
  stats_.SetLagMs(now_ms - due.front().due_ms);

  std::vector<std::string> keys;
  for (const auto& e : due) keys.push_back(e.item_key);
  ops::KeyLocks::Guard guard(items_.locks(), keys);
  storage::WriteBatch batch(items_.store());
  std::map<std::string, uint64_t> deleted;
  std::vector<int64_t> lags_ms;  // due times until the write is done, then lags
  uint64_t dropped = 0;
  for (const auto& e : due) {
    ops::TablePtr table = catalog_.FindById(TableIdOf(e.item_key));
    if (!table || !table->ttl_enabled) {
      batch.DeleteExpiry(e.due_ms, e.item_key);
      ++dropped;
      continue;
    }
    ASSIGN_OR_RETURN(old, items_.ReadLocked(e.item_key));
    std::optional<int64_t> current =
        old.item ? model::ExpiryDueMs(*old.item, table->ttl_attribute) : std::nullopt;
    // Re-check (D10): the item may have been updated, deleted or given a new TTL since the
    // entry was written; only an item still due at this very entry is deleted.
    if (current != e.due_ms || model::IsTooOldToExpire(e.due_ms, now_ms)) {
      batch.DeleteExpiry(e.due_ms, e.item_key);
      ++dropped;
      continue;
    }
    items_.AddDelete(batch, *table, e.item_key, old, ops::WriteOrigin::kTtl);  // entry too
    ++deleted[table->name];
    lags_ms.push_back(e.due_ms);
  }
  RETURN_IF_ERROR(items_.store().Write(batch));
  for (const auto& [table, n] : deleted) stats_.AddDeleted(table, n);
  stats_.AddDroppedEntries(dropped);
  int64_t done_ms = clock_.NowMs();
  for (int64_t& v : lags_ms) v = done_ms - v;
  stats_.RecordDeletionLags(lags_ms);
  return due.size();
}

namespace {

// CPU time of the calling thread, in microseconds.
uint64_t ThreadCpuMicros() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000 + static_cast<uint64_t>(ts.tv_nsec) / 1000;
}

}  // namespace

Result<bool> Sweeper::RunPass() {
  auto start = std::chrono::steady_clock::now();
  uint64_t cpu_start = ThreadCpuMicros();
  auto deadline = start + std::chrono::milliseconds(options_.budget_ms);
  bool backlog = false;
  while (true) {
    ASSIGN_OR_RETURN(n, SweepBatch(clock_.NowMs()));
    if (n < options_.batch_size) break;
    if (std::chrono::steady_clock::now() >= deadline) {
      backlog = true;
      break;
    }
  }
  auto busy = std::chrono::steady_clock::now() - start;
  stats_.AddPass(std::chrono::duration_cast<std::chrono::microseconds>(busy).count(),
                 ThreadCpuMicros() - cpu_start);
  return backlog;
}

void Sweeper::Loop() {
  // The foreground's time over the window since the last decision (the last pause and pass).
  auto window_start = std::chrono::steady_clock::now();
  auto busy_start = load_ ? load_->busy() : std::chrono::nanoseconds(0);
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    lock.unlock();
    auto start = std::chrono::steady_clock::now();
    auto backlog = RunPass();
    auto now = std::chrono::steady_clock::now();
    if (!backlog) spdlog::error("event=ttl_sweep_failed message=\"{}\"", backlog.error().message());
    double foreground_share = 1.0;
    if (load_) {
      auto busy = load_->busy();
      auto window = std::max<std::chrono::nanoseconds>(now - window_start,
                                                       std::chrono::microseconds(1));
      foreground_share = static_cast<double>((busy - busy_start).count()) /
                         static_cast<double>(window.count());
      window_start = now;
      busy_start = busy;
    }
    auto pause = PauseAfterPass(options_, backlog.ok() && *backlog, now - start, foreground_share);
    lock.lock();
    if (pause.count() > 0) wake_.wait_for(lock, pause, [this] { return stop_; });
  }
}

}  // namespace ttlstore::ttl
