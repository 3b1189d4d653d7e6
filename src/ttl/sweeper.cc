#include "ttl/sweeper.h"

#include <spdlog/spdlog.h>

#include <time.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <utility>

#include "common/coding.h"
#include "model/expiry.h"
#include "storage/expiry_key.h"
#include "ttl/sweep_shards.h"

namespace ttlstore::ttl {
namespace {

// CPU time of the calling thread, in microseconds.
uint64_t ThreadCpuMicros() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000 + static_cast<uint64_t>(ts.tv_nsec) / 1000;
}

// How many entries of other processes' shards a batch may read past, in batches.
constexpr size_t kScanFactor = 8;

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
                 const Clock& clock, TtlStats& stats, const LoadMeter* load,
                 const storage::LeaseKeeper* keeper)
    : options_(options),
      catalog_(catalog),
      items_(items),
      clock_(clock),
      stats_(stats),
      load_(load),
      keeper_(keeper),
      shared_(items.store().SharedByProcesses()) {
  if (options_.threads > 1) workers_ = std::make_unique<SweepWorkers>(options_.threads);
}

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

uint32_t Sweeper::HeldShards() const {
  // A store only this process opens: every shard is this process's, whatever the keeper says
  // (a lapse of its own lease must never make the sweeper skip entries behind its watermark).
  if (!shared_ || keeper_ == nullptr) return kAllSweepShards;
  uint32_t shards = 0;
  for (int k = 0; k < kSweepShards; ++k) {
    if (keeper_->Holding(SweepShardUnit(k))) shards |= 1u << k;
  }
  return shards;
}

// Where the next batch starts, and why no entry is ever skipped.
//
// State (touched only by the thread running passes):
//   watermark_  every entry due before it has been handled, as of the last drained wave;
//   cursor_     the last key handled in the wave under way (empty: no wave under way);
//   behind_     the earliest due time announced since the wave began at or behind the cursor.
//
// Invariant I: every committed entry with due_ms < now is, at the start of each batch, either
//   (a) at or after where the batch starts scanning (cursor_ if set, else the watermark), or
//   (b) announced by Store::TakeEarliestCommittedExpiry, or recorded by RecordFailure (its
//       batch's delete failed), and not yet taken, or
//   (c) taken into behind_ (then it is >= watermark_ restored at the end of the wave), or
//   (d) in a batch being deleted (on a worker: SweepWorkers), which either deletes or drops it
//       or fails and records it, (b). A pass waits for its batches, so (d) is empty between
//       passes.
// Store::Write announces a batch's entries only after they commit, and the batch takes the
// announcements *before* it opens its iterator, so an entry taken here is visible to the scan.
// An entry that commits while the scan runs is either seen by it or announced after the take,
// and the next batch takes it. A taken entry due before the scan start cannot be seen by the
// scan: before a wave (no cursor) the watermark moves back to it at once; during a wave it is
// remembered in behind_, and when the wave drains the watermark becomes min(now, behind_), so
// the next batch goes back for it, once for all such entries, instead of rescanning the
// tombstones of the wave for each of them. Values of 0, far in the past (D4: dropped as stale
// under the item's lock) or in the future (not scanned until due) need nothing special:
// ordering is by due_ms alone. A recorded failure is taken like an announcement: an entry ahead
// of the cursor (possible when a later wave went back behind it) will be scanned again anyway.
Result<bool> Sweeper::SweepBatch(int64_t now_ms, uint32_t shards) {
  int64_t announced = items_.store().TakeEarliestCommittedExpiry();
  {
    // A failed batch's entries are all at or behind the cursor (it moved past them when they
    // were read), or behind the watermark if that wave has drained since: like an announcement.
    std::lock_guard<std::mutex> lock(failed_mu_);
    announced = std::min(announced, std::exchange(failed_due_, INT64_MAX));
  }
  if (announced != INT64_MAX) {
    if (cursor_.empty()) {
      watermark_ = std::min(watermark_, announced);
    } else {
      int64_t cursor_due = 0;
      std::string_view ignored;
      storage::ParseExpiryKey(cursor_, &cursor_due, &ignored);
      // An entry due at the cursor's own time may sort before the cursor's item key: behind.
      if (announced <= cursor_due) behind_ = std::min(behind_, announced);
    }
  }
  // No entry has an empty item key, so starting "after" the bare watermark key includes every
  // entry due at the watermark.
  std::string start = cursor_.empty() ? storage::ExpiryKey(watermark_, "") : cursor_;
  std::vector<DueEntry> due;
  // Every entry is this process's, or up to kScanFactor batches are read for one of its own.
  const size_t read_limit =
      shards == kAllSweepShards ? options_.batch_size : options_.batch_size * kScanFactor;
  size_t read = 0;
  {
    std::string start_cursor = cursor_;
    // Due means now > due_ms, so the scan ends at now - 1.
    auto it = items_.store().ScanExpiry(now_ms - 1, start, read_limit);
    for (; it->Valid() && due.size() < options_.batch_size && read < read_limit; it->Next()) {
      ++read;
      DueEntry e;
      std::string_view item_key;
      if (!storage::ParseExpiryKey(it->key(), &e.due_ms, &item_key)) continue;
      cursor_.assign(it->key());
      // Another process's shard: it deletes the item (this process goes past the entry, and
      // comes back to it in its next wave should that process die first).
      if ((shards & (1u << SweepShardOf(item_key))) == 0) continue;
      e.item_key.assign(item_key);
      due.push_back(std::move(e));
    }
    if (Status scanned = it->status(); !scanned.ok()) {
      // A scan that fails (a database outage) must not move where the next batch starts: the
      // cursor comes back (the announcements stay taken in). A delete that fails after this is
      // recorded instead (RecordFailure), since later batches may be read by then.
      cursor_ = std::move(start_cursor);
      return std::move(scanned).error();
    }
  }
  // More to do: a full batch or read, or a drained wave that must go back for entries behind it.
  bool more = due.size() == options_.batch_size || read == read_limit;
  if (!more) {
    // Drained: everything due before now that the scan could see is handled. Entries announced
    // behind the cursor during the wave are not: go back for them. On a shared store the next
    // wave starts at the beginning (another process's writes are not announced here).
    more = behind_ < now_ms;
    watermark_ = shared_ ? 0 : std::min(now_ms, behind_);
    behind_ = INT64_MAX;
    cursor_.clear();
  }
  if (due.empty()) return more;
  stats_.SetLagMs(now_ms - due.front().due_ms);
  // From here on a failure is folded in by RecordFailure, not undone: with workers, the next
  // batches are read before this one is done. Inline, a failure ends the pass, which reports it.
  if (!workers_) {
    Status status = DeleteDue(due, now_ms);
    if (status.ok()) return more;
    RecordFailure(due.front().due_ms, std::move(status));
    return false;
  }
  workers_->Submit([this, due = std::move(due), now_ms] {
    uint64_t cpu_start = ThreadCpuMicros();
    Status status = DeleteDue(due, now_ms);
    if (!status.ok()) RecordFailure(due.front().due_ms, std::move(status));
    worker_cpu_us_ += ThreadCpuMicros() - cpu_start;
  });
  return more;
}

void Sweeper::RecordFailure(int64_t first_due_ms, Status status) {
  std::lock_guard<std::mutex> lock(failed_mu_);
  failed_due_ = std::min(failed_due_, first_due_ms);
  if (failed_status_.ok()) failed_status_ = std::move(status);
}

Status Sweeper::DeleteDue(const std::vector<DueEntry>& due, int64_t now_ms) {
  // One read-modify-write of every due item (storage::Store::ReadModifyWrite): a writer of one
  // of them, in this process or another, commits before the re-check or after the delete.
  std::vector<storage::RmwKey> keys;
  std::vector<ops::TablePtr> tables;
  for (const auto& e : due) {
    ops::TablePtr table = catalog_.FindById(TableIdOf(e.item_key));
    keys.push_back({std::nullopt, e.item_key});
    tables.push_back(std::move(table));
  }
  std::map<std::string, uint64_t> deleted;
  std::vector<int64_t> lags_ms;  // due times until the write is done, then lags
  uint64_t dropped = 0;
  RETURN_IF_ERROR(items_.store().ReadModifyWrite(keys, [&](const storage::RmwReads& reads,
                                                           storage::WriteBatch& batch)
                                                           -> Status {
    deleted.clear();
    lags_ms.clear();
    dropped = 0;
    for (size_t i = 0; i < due.size(); ++i) {
      const DueEntry& e = due[i];
      const ops::TablePtr& table = tables[i];
      if (!table || !table->ttl_enabled) {
        batch.DeleteExpiry(e.due_ms, e.item_key);
        ++dropped;
        continue;
      }
      ASSIGN_OR_RETURN(old, ops::ItemOps::DecodeRead(reads[i]));
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
    return Status::Ok();
  }));
  for (const auto& [table, n] : deleted) stats_.AddDeleted(table, n);
  stats_.AddDroppedEntries(dropped);
  int64_t done_ms = clock_.NowMs();
  for (int64_t& v : lags_ms) v = done_ms - v;
  stats_.RecordDeletionLags(lags_ms);
  return Status::Ok();
}

Result<bool> Sweeper::RunPass() {
  auto start = std::chrono::steady_clock::now();
  uint64_t cpu_start = ThreadCpuMicros();
  uint64_t worker_cpu_start = worker_cpu_us_.load();
  auto deadline = start + std::chrono::milliseconds(options_.budget_ms);
  bool backlog = false, drained = false;
  Status error;
  const uint32_t shards = HeldShards();
  while (shards != 0) {
    auto more = SweepBatch(clock_.NowMs(), shards);
    if (!more) {
      error = std::move(more).error();
      break;
    }
    if (!*more) {
      drained = true;
      break;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      backlog = true;
      break;
    }
  }
  // A pass ends with its batches done, so a pass that returns has deleted what it read.
  if (workers_) workers_->Drain();
  {
    std::lock_guard<std::mutex> lock(failed_mu_);
    Status failed = std::exchange(failed_status_, Status::Ok());
    if (error.ok()) error = std::move(failed);
  }
  // Nothing due is left once the last batches are done (not when the scan ran dry: they were
  // still being deleted then).
  if ((drained && error.ok()) || shards == 0) stats_.SetLagMs(0);
  auto busy = std::chrono::steady_clock::now() - start;
  last_pass_cpu_us_ = ThreadCpuMicros() - cpu_start + (worker_cpu_us_.load() - worker_cpu_start);
  stats_.AddPass(std::chrono::duration_cast<std::chrono::microseconds>(busy).count(),
                 last_pass_cpu_us_);
  if (!error.ok()) return std::move(error).error();
  return backlog;
}

void Sweeper::Loop() {
  // The foreground's time over the window since the last decision (the last pause and pass).
  auto window_start = std::chrono::steady_clock::now();
  auto busy_start = load_ ? load_->busy() : std::chrono::nanoseconds(0);
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    lock.unlock();
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
    auto pause = PauseAfterPass(options_, backlog.ok() && *backlog,
                                std::chrono::microseconds(last_pass_cpu_us_), foreground_share);
    lock.lock();
    if (pause.count() > 0) wake_.wait_for(lock, pause, [this] { return stop_; });
  }
}

}  // namespace ttlstore::ttl
