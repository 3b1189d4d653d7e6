// Store: what every backend shares (the batch commit and its expiry announcement, the typed
// reads over the key spaces, the stats keys) and the choice of backend at Open.
#include "storage/store.h"

#include <algorithm>
#include <chrono>
#include <random>
#include <thread>

#include "common/coding.h"
#include "storage/backend.h"
#include "storage/expiry_key.h"
#include "storage/key_codec.h"
#include "storage/pg_store.h"
#include "storage/rocks_store.h"

namespace ttlstore::storage {

Result<std::unique_ptr<Store>> Store::Open(const StoreOptions& options) {
  if (!options.storage.empty()) return PgStore::Open(options);
  return RocksStore::Open(options);
}

Store::~Store() = default;

Store::Space Store::SpaceOf(Family family) {
  switch (family) {
    case Family::kIndexes: return Space::kIndexes;
    case Family::kStreams: return Space::kStreams;
    case Family::kRows: return Space::kRows;
    case Family::kPurge: return Space::kPurge;
    case Family::kPitr: return Space::kPitr;
    case Family::kSearch: return Space::kSearch;
    case Family::kSequences: return Space::kSequences;
    case Family::kLeases: return Space::kLeases;
    case Family::kTokens: return Space::kTokens;
    case Family::kCatalog: return Space::kCatalog;
  }
  return Space::kStreams;
}

void Store::AnnounceExpiry(int64_t due_ms) {
  int64_t seen = earliest_committed_expiry_.load();
  while (due_ms < seen && !earliest_committed_expiry_.compare_exchange_weak(seen, due_ms)) {
  }
}

Status Store::Write(WriteBatch& batch) {
  batch.FlushStats();
  Status status = Commit(*batch.sink_);
  if (!status.ok()) {
    batch.Resolve(FailedCommitMayHaveApplied() ? BatchOutcome::kUnknown
                                               : BatchOutcome::kNotCommitted);
    return status;
  }
  Committed(batch);
  return Status::Ok();
}

Status Store::ReadModifyWrite(const std::vector<RmwKey>& keys, const RmwFunction& fn) {
  return RetryConflicts(
      [&](bool* conflict) { return AttemptReadModifyWrite(keys, fn, conflict); });
}

Status Store::RunRmwFunction(const RmwFunction& fn, const RmwReads& reads, WriteBatch& batch,
                             bool* conflict) {
  RETURN_IF_ERROR(fn(reads, batch));
  int injected = injected_conflicts_.load();
  while (injected > 0 && !injected_conflicts_.compare_exchange_weak(injected, injected - 1)) {
  }
  if (injected > 0) {
    *conflict = true;
    return Error(ErrorCode::kStorageUnavailable, "injected serialization failure (test)");
  }
  batch.FlushStats();
  return Status::Ok();
}

void Store::Committed(WriteBatch& batch) {
  // Only now, with the entries visible to new iterators (TakeEarliestCommittedExpiry).
  if (batch.earliest_expiry_put_ != INT64_MAX) AnnounceExpiry(batch.earliest_expiry_put_);
  batch.Resolve(BatchOutcome::kCommitted);
}

Status Store::RetryConflicts(const std::function<Status(bool* conflict)>& attempt) const {
  for (int n = 1;; ++n) {
    bool conflict = false;
    Status status = attempt(&conflict);
    if (!conflict) return status;
    if (n >= kMaxConflictAttempts) {
      return status.ok() ? Error(ErrorCode::kStorageUnavailable, "serialization failure")
                         : status;
    }
    conflict_retries_.fetch_add(1);
    // Rolled back whole: back off a little (randomized, growing, at most ~100 ms) and go again.
    thread_local std::minstd_rand rng(std::random_device{}());
    std::this_thread::sleep_for(std::chrono::microseconds(rng() % (200u << std::min(n, 9))));
  }
}

Result<std::optional<std::string>> Store::GetItem(std::string_view key) const {
  return GetIn(Space::kItems, key);
}

Result<std::optional<std::string>> Store::Get(Family family, std::string_view key) const {
  return GetIn(SpaceOf(family), key);
}

std::unique_ptr<ItemIterator> Store::ScanItems(std::string lower, std::string upper, bool reverse,
                                               const std::string* start_after) const {
  return ScanIn(Space::kItems, std::move(lower), std::move(upper), reverse, start_after, 0);
}

std::unique_ptr<ItemIterator> Store::ScanFamily(Family family, std::string lower,
                                                std::string upper, bool reverse,
                                                const std::string* start_after) const {
  return ScanIn(SpaceOf(family), std::move(lower), std::move(upper), reverse, start_after, 0);
}

Status Store::ForEachUnder(
    Family family, std::string_view prefix,
    const std::function<Status(std::string_view rest, std::string_view value)>& fn) const {
  std::string lower(prefix);
  auto it = ScanFamily(family, lower, PrefixSuccessor(lower), false, nullptr);
  for (; it->Valid(); it->Next()) {
    RETURN_IF_ERROR(fn(it->key().substr(prefix.size()), it->value()));
  }
  return it->status();
}

Result<bool> Store::HasExpiry(int64_t due_ms, std::string_view item_key) const {
  ASSIGN_OR_RETURN(value, GetIn(Space::kExpiry, ExpiryKey(due_ms, item_key)));
  return value.has_value();
}

std::unique_ptr<ItemIterator> Store::ScanExpiry(int64_t up_to_due_ms,
                                                const std::string& start_after,
                                                size_t limit_hint) const {
  std::string upper;
  PutFixed64BE(&upper, static_cast<uint64_t>(up_to_due_ms) + 1);
  // The lower bound lets the seek land past the entries already swept (in an LSM tree, past
  // their tombstones instead of stepping over every one of them: a queue's classic cost).
  return ScanIn(Space::kExpiry, start_after, std::move(upper), false,
                start_after.empty() ? nullptr : &start_after, limit_hint);
}

Result<TableStats> Store::GetStats(uint32_t table_id) const {
  return ReadStats(TablePrefix(table_id));
}

Result<TableStats> Store::GetIndexStats(uint32_t table_id, uint32_t index_id) const {
  std::string key = TablePrefix(table_id);
  PutFixed32BE(&key, index_id);
  return ReadStats(key);
}

}  // namespace ttlstore::storage
