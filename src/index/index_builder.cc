#include "index/index_builder.h"

#include <spdlog/spdlog.h>

#include <chrono>

#include "common/transient.h"
#include "index/index_key.h"
#include "model/item_size.h"
#include "storage/item_codec.h"
#include "storage/key_codec.h"

namespace ttlstore::index {
namespace {

// Items per backfill chunk: one lock round and one WriteBatch each, so writers to those items
// wait at most one chunk.
constexpr size_t kChunk = 500;

const model::SecondaryIndex* FindById(const model::TableDescriptor& table, uint32_t index_id) {
  for (const auto& ix : table.indexes) {
    if (ix.id == index_id) return &ix;
  }
  return nullptr;
}

}  // namespace

// How often the builder looks for jobs another process left, and retries the jobs another
// process holds or the storage refused.
constexpr auto kPollPeriod = std::chrono::seconds(1);

IndexBuilder::IndexBuilder(storage::Store& store, IndexCatalog& catalog,
                           storage::LeaseKeeper* keeper)
    : store_(store), catalog_(catalog), keeper_(keeper) {}

IndexBuilder::~IndexBuilder() { Stop(); }

void IndexBuilder::Start() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = false;
  }
  thread_ = Thread("index-builder", [this] { Loop(); });
}

void IndexBuilder::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void IndexBuilder::Build(uint32_t table_id, uint32_t index_id) {
  Enqueue({false, table_id, index_id});
}

void IndexBuilder::Drop(uint32_t table_id, uint32_t index_id) {
  Enqueue({true, table_id, index_id});
}

void IndexBuilder::Resume(const model::TableDescriptor& table) {
  for (uint32_t id : table.dropped_index_ids) Drop(table.id, id);
  for (const auto& ix : table.indexes) {
    if (ix.status == model::IndexStatus::kCreating) Build(table.id, ix.id);
  }
}

void IndexBuilder::Enqueue(Job job) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const Job& j : jobs_) {
      if (j.drop == job.drop && j.table_id == job.table_id && j.index_id == job.index_id) return;
    }
    jobs_.push_back(job);
    woken_ = true;
  }
  wake_.notify_all();
}

std::string IndexBuilder::UnitOf(const Job& job) {
  return "index/" + std::to_string(job.table_id) + "/" + std::to_string(job.index_id) +
         (job.drop ? "/drop" : "/build");
}

void IndexBuilder::Discover() {
  for (const auto& table : catalog_.AllTables()) Resume(*table);
}

void IndexBuilder::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    if (!woken_) wake_.wait_for(lock, kPollPeriod, [this] { return stop_ || woken_; });
    woken_ = false;
    if (stop_) return;
    lock.unlock();
    Discover();
    lock.lock();
    // Each queued job once: the ones another process holds, or the storage refused, wait for
    // the next pass.
    std::deque<Job> round;
    round.swap(jobs_);
    while (!round.empty() && !stop_) {
      Job job = round.front();
      round.pop_front();
      lock.unlock();
      Outcome outcome = RunJob(job);
      lock.lock();
      if (outcome != Outcome::kDone) jobs_.push_back(job);
    }
    for (const Job& job : round) jobs_.push_back(job);  // stopping: kept for the next start
  }
}

IndexBuilder::Outcome IndexBuilder::RunJob(const Job& job) {
  const std::string unit = UnitOf(job);
  if (keeper_ && !keeper_->Claim(unit)) return Outcome::kElsewhere;
  Status s = job.drop ? DropNow(job.table_id, job.index_id)
                      : BuildJob(job.table_id, job.index_id, keeper_ ? &unit : nullptr);
  if (IsTransient(s)) {
    // The storage is away for a while, or the lease was lost: run the job again (it resumes
    // from what is persisted), here or in the process that holds it.
    spdlog::warn("event=index_{}_retry table_id={} index_id={} message=\"{}\"",
                 job.drop ? "drop" : "backfill", job.table_id, job.index_id,
                 s.error().message());
    return Outcome::kAgain;
  }
  if (!s) {
    spdlog::error("event=index_{}_failed table_id={} index_id={} message=\"{}\"",
                  job.drop ? "drop" : "backfill", job.table_id, job.index_id,
                  s.error().message());
  } else {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stop_) return Outcome::kAgain;  // interrupted: the next start (or another) resumes it
    }
    spdlog::info("event=index_{}_done table_id={} index_id={}", job.drop ? "drop" : "backfill",
                 job.table_id, job.index_id);
  }
  if (keeper_) keeper_->Forget(unit);
  return Outcome::kDone;
}

Status IndexBuilder::BuildNow(uint32_t table_id, uint32_t index_id) {
  return BuildJob(table_id, index_id, nullptr);
}

Status IndexBuilder::BuildJob(uint32_t table_id, uint32_t index_id, const std::string* unit) {
  // Writers holding a table version from before the index was published do not maintain it:
  // they must be done before the backfill reads the items (see the header).
  catalog_.WaitForOlderVersions(table_id);
  RETURN_IF_ERROR(Backfill(table_id, index_id, unit));
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stop_) return Status::Ok();  // interrupted: the next start resumes it
  }
  return catalog_.SetIndexActive(table_id, index_id);
}

Status IndexBuilder::DropNow(uint32_t table_id, uint32_t index_id) {
  // Writers holding a version from before the drop still maintain the index: let them finish
  // so that no entry is written after the removal.
  catalog_.WaitForOlderVersions(table_id);
  return RemoveEntries(table_id, index_id);
}

Status IndexBuilder::Backfill(uint32_t table_id, uint32_t index_id, const std::string* unit) {
  std::string lower = storage::TablePrefix(table_id);
  std::string upper = storage::PrefixSuccessor(lower);
  std::string last;
  while (true) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stop_) return Status::Ok();  // resumed after the restart
    }
    if (unit && !keeper_->Holding(*unit)) {
      return Error(ErrorCode::kStorageUnavailable, "lease " + *unit + " lost");
    }
    auto table = catalog_.FindById(table_id);
    const model::SecondaryIndex* index = table ? FindById(*table, index_id) : nullptr;
    if (!index || index->status != model::IndexStatus::kCreating) return Status::Ok();
    std::vector<std::string> keys;
    {
      auto it = store_.ScanItems(lower, upper, false, last.empty() ? nullptr : &last);
      for (; it->Valid() && keys.size() < kChunk; it->Next()) keys.emplace_back(it->key());
      RETURN_IF_ERROR(it->status());
    }
    if (keys.empty()) return Status::Ok();
    last = keys.back();
    // One read-modify-write of the chunk's items (storage::Store::ReadModifyWrite): a writer of
    // one of them commits (and indexes it) before the read or after this batch.
    std::vector<storage::RmwKey> rmw_keys;
    rmw_keys.reserve(keys.size());
    for (const auto& key : keys) rmw_keys.push_back({std::nullopt, key});
    RETURN_IF_ERROR(store_.ReadModifyWrite(
        rmw_keys, [&](const storage::RmwReads& reads, storage::WriteBatch& batch) -> Status {
          for (size_t i = 0; i < keys.size(); ++i) {
            const std::string& key = keys[i];
            const auto& raw = reads[i];
            if (!raw) continue;  // deleted since the scan
            auto item = storage::DecodeItem(*raw);
            if (!item) return Error::Internal("corrupt item record");
            auto index_key = IndexKeyOf(*index, *item);
            if (!index_key) continue;
            std::string entry_key = EntryKey(table_id, *index, *index_key, key);
            ASSIGN_OR_RETURN(existing, store_.Get(storage::Family::kIndexes, entry_key));
            if (existing) continue;  // a writer indexed it already
            model::Item projected = Project(*table, *index, *item);
            batch.Put(storage::Family::kIndexes, entry_key, storage::EncodeItem(projected));
            batch.AddIndexStats(table_id, index_id, 1,
                                static_cast<int64_t>(model::ItemSize(projected)));
          }
          return Status::Ok();
        }));
    if (keys.size() < kChunk) return Status::Ok();
  }
}

Status IndexBuilder::RemoveEntries(uint32_t table_id, uint32_t index_id) {
  std::string begin = IndexPrefix(table_id, index_id);
  storage::WriteBatch batch(store_);
  batch.DeleteRange(storage::Family::kIndexes, begin, storage::PrefixSuccessor(begin));
  batch.DeleteIndexStats(table_id, index_id);
  RETURN_IF_ERROR(store_.Write(batch));
  return catalog_.ForgetDroppedIndex(table_id, index_id);
}

}  // namespace ttlstore::index
