#include "ttl/backfill.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>

#include "common/transient.h"
#include "model/expiry.h"
#include "storage/key_codec.h"

namespace ttlstore::ttl {

ExpiryBackfiller::~ExpiryBackfiller() { Stop(); }

void ExpiryBackfiller::Start() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = false;
  }
  thread_ = Thread("ttl-backfill", [this] { Loop(); });
}

void ExpiryBackfiller::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool ExpiryBackfiller::stopping() {
  std::lock_guard<std::mutex> lock(mu_);
  return stop_;
}

void ExpiryBackfiller::Enqueue(uint32_t table_id) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!active_.insert(table_id).second) return;  // queued or running already
    jobs_.push_back(table_id);
    woken_ = true;
  }
  wake_.notify_all();
}

void ExpiryBackfiller::Resume(const model::TableDescriptor& table) {
  if (table.ttl_enabled && table.ttl_backfill) Enqueue(table.id);
}

bool ExpiryBackfiller::WaitUntilDone(uint32_t table_id, std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  return done_.wait_for(lock, timeout, [&] { return active_.count(table_id) == 0; });
}

// How often the backfiller looks for backfills another process left, and retries the ones
// another process holds or the storage refused.
constexpr auto kPollPeriod = std::chrono::seconds(1);

void ExpiryBackfiller::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    if (!woken_) wake_.wait_for(lock, kPollPeriod, [this] { return stop_ || woken_; });
    woken_ = false;
    if (stop_) return;
    lock.unlock();
    for (const auto& table : catalog_.AllTables()) Resume(*table);
    lock.lock();
    // Each queued job once: the ones another process holds, or the storage refused, wait for
    // the next pass (still counted in active_: WaitUntilDone keeps waiting).
    std::deque<uint32_t> round;
    round.swap(jobs_);
    while (!round.empty() && !stop_) {
      uint32_t table_id = round.front();
      round.pop_front();
      lock.unlock();
      bool over = RunJob(table_id);
      lock.lock();
      if (!over) {
        jobs_.push_back(table_id);
        continue;
      }
      active_.erase(table_id);
      done_.notify_all();
    }
    for (uint32_t id : round) jobs_.push_back(id);  // stopping: kept for the next start
  }
}

bool ExpiryBackfiller::RunJob(uint32_t table_id) {
  const std::string unit = "ttl/backfill/" + std::to_string(table_id);
  if (keeper_ && !keeper_->Claim(unit)) return false;
  auto start = std::chrono::steady_clock::now();
  Status s = RunNow(table_id, keeper_ ? &unit : nullptr);
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                std::chrono::steady_clock::now() - start)
                .count();
  if (IsTransient(s)) {
    // The storage is away for a while, or the lease was lost: run the job again (it resumes
    // from its cursor), here or in the process that holds it.
    spdlog::warn("event=ttl_backfill_retry table_id={} message=\"{}\"", table_id,
                 s.error().message());
    return false;
  }
  if (!s) {
    // The backfill stays pending in the descriptor: the next start retries it.
    spdlog::error("event=ttl_backfill_failed table_id={} message=\"{}\"", table_id,
                  s.error().message());
  } else {
    if (stopping()) return false;  // interrupted: resumed after the next start, or elsewhere
    spdlog::info("event=ttl_backfill_done table_id={} duration_ms={}", table_id, ms);
  }
  if (keeper_) keeper_->Forget(unit);
  return true;
}

Status ExpiryBackfiller::RunNow(uint32_t table_id, const std::string* unit) {
  // Writers holding a version from before TTL was enabled add no entry: they must be done
  // before any item is read (see the header).
  catalog_.WaitForOlderVersions(table_id);
  const std::string lower = storage::TablePrefix(table_id);
  const std::string upper = storage::PrefixSuccessor(lower);
  while (!stopping()) {
    if (unit && !keeper_->Holding(*unit)) {
      return Error(ErrorCode::kStorageUnavailable, "lease " + *unit + " lost");
    }
    ops::TablePtr table = catalog_.FindById(table_id);
    if (!table || !table->ttl_enabled || !table->ttl_backfill) return Status::Ok();
    const std::string& cursor = table->ttl_backfill->cursor;
    std::vector<std::string> keys;
    {
      auto it = items_.store().ScanItems(lower, upper, false, cursor.empty() ? nullptr : &cursor);
      for (; it->Valid() && keys.size() < kChunk; it->Next()) keys.emplace_back(it->key());
      RETURN_IF_ERROR(it->status());
    }
    bool done = keys.size() < kChunk;
    // The chunk's entries, from the items as they are now (one read-modify-write of them, so a
    // writer commits before or after: storage::Store::ReadModifyWrite), then the cursor. A crash
    // between the two redoes the chunk, which only puts the same entries again.
    std::vector<storage::RmwKey> rmw_keys;
    rmw_keys.reserve(keys.size());
    for (const auto& key : keys) rmw_keys.push_back({std::nullopt, key});
    RETURN_IF_ERROR(items_.store().ReadModifyWrite(
        rmw_keys, [&](const storage::RmwReads& reads, storage::WriteBatch& batch) -> Status {
          for (size_t i = 0; i < keys.size(); ++i) {
            ASSIGN_OR_RETURN(current, ops::ItemOps::DecodeRead(reads[i]));
            if (!current.item) continue;  // deleted since the scan
            if (auto due = model::ExpiryDueMs(*current.item, table->ttl_attribute)) {
              batch.PutExpiry(*due, keys[i]);
            }
          }
          return Status::Ok();
        }));
    ASSIGN_OR_RETURN(committed,
                     catalog_.AdvanceTtlBackfill(table_id, table->ttl_attribute,
                                                 keys.empty() ? cursor : keys.back(), done));
    // The sweeper hears of the chunk's entries from Store::Write, once they are readable.
    if (!committed || done) return Status::Ok();  // gone or changed; or finished
  }
  return Status::Ok();  // stopped: resumed after the next start
}

}  // namespace ttlstore::ttl
