#include "ttl/backfill.h"

#include <spdlog/spdlog.h>

#include <algorithm>

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
    jobs_.push_back(table_id);
    active_.insert(table_id);
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

void ExpiryBackfiller::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    wake_.wait(lock, [this] { return stop_ || !jobs_.empty(); });
    if (stop_) return;
    uint32_t table_id = jobs_.front();
    jobs_.pop_front();
    lock.unlock();
    auto start = std::chrono::steady_clock::now();
    Status s = RunNow(table_id);
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                  std::chrono::steady_clock::now() - start)
                  .count();
    if (IsTransient(s)) {
      // The storage is away for a while: run the job again (it resumes from its cursor).
      spdlog::warn("event=ttl_backfill_retry table_id={} message=\"{}\"", table_id,
                   s.error().message());
      lock.lock();
      wake_.wait_for(lock, kTransientRetryDelay, [this] { return stop_; });
      jobs_.push_back(table_id);  // still counted in active_: WaitUntilDone keeps waiting
      continue;
    }
    if (!s) {
      // The backfill stays pending in the descriptor: the next start retries it.
      spdlog::error("event=ttl_backfill_failed table_id={} message=\"{}\"", table_id,
                    s.error().message());
    } else {
      spdlog::info("event=ttl_backfill_done table_id={} duration_ms={}", table_id, ms);
    }
    lock.lock();
    active_.erase(active_.find(table_id));
    done_.notify_all();
  }
}

Status ExpiryBackfiller::RunNow(uint32_t table_id) {
  // Writers holding a version from before TTL was enabled add no entry: they must be done
  // before any item is read (see the header).
  catalog_.WaitForOlderVersions(table_id);
  const std::string lower = storage::TablePrefix(table_id);
  const std::string upper = storage::PrefixSuccessor(lower);
  while (!stopping()) {
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
    storage::WriteBatch batch(items_.store());
    ASSIGN_OR_RETURN(committed,
                     catalog_.AdvanceTtlBackfill(table_id, table->ttl_attribute, batch,
                                                 keys.empty() ? cursor : keys.back(), done));
    // The sweeper hears of the chunk's entries from Store::Write, once they are readable.
    if (!committed || done) return Status::Ok();  // gone or changed; or finished
  }
  return Status::Ok();  // stopped: resumed after the next start
}

}  // namespace ttlstore::ttl
