// The catalog epoch: how a process knows that every other process on the database has stopped
// using a table's old descriptor (several processes on one database, issue 34).
//
// Within one process, TableCatalog::WaitForOlderVersions waits until no request holds a
// descriptor older than the current one: a GSI backfill, for one, may begin only when every
// writer maintains the new index. Another process goes on writing with its old descriptor
// until its catalog refresh (--catalog-refresh-ms) installs the new one, and until its requests
// that looked the table up before are done. So:
//   - every committed change of a descriptor raises a counter, `catalog/epoch` in the `leases`
//     family, in the change's own read-modify-write (CommitChange, Create);
//   - each refresh reads the epoch before it reads the tables; once what it read is installed
//     and no request holds a descriptor it replaced, the process publishes that epoch as
//     `catalog/drained/<owner>` (written only when it rises);
//   - WaitForOlderVersions, after its local wait, reads the epoch and waits until every other
//     live process (a live `members/<owner>` lease: LeaseKeeper::Share) has published at least
//     it (this process's part is the local wait: the change is installed here already, since
//     a build finds its job in this process's catalog). A stop ends the wait.
// A process that starts later loads the catalog after the change, so a live process without a
// record yet publishes at its first refresh. A process that died is no longer live once its
// member lease lapses. The wait is bounded (10 s) like the local one.
#include <spdlog/spdlog.h>

#include <chrono>
#include <map>
#include <thread>

#include "common/coding.h"
#include "ops/table_ops.h"
#include "storage/key_codec.h"
#include "storage/lease.h"

namespace ttlstore::ops {
namespace {

constexpr char kEpochKey[] = "catalog/epoch";
const std::string kDrainedPrefix = "catalog/drained/";

std::string EncodeEpoch(uint64_t epoch) {
  std::string out;
  PutFixed64BE(&out, epoch);
  return out;
}

uint64_t DecodeEpoch(std::string_view value) {
  uint64_t epoch = 0;
  return GetFixed64BE(&value, &epoch) ? epoch : 0;
}

}  // namespace

void TableCatalog::EpochKeys(std::vector<storage::RmwKey>& keys) const {
  if (store_.SharedByProcesses()) keys.push_back({storage::Family::kLeases, kEpochKey});
}

void TableCatalog::RaiseEpoch(const storage::RmwReads& reads, storage::WriteBatch& batch) const {
  if (!store_.SharedByProcesses()) return;
  const uint64_t epoch = reads.back() ? DecodeEpoch(*reads.back()) : 0;
  batch.Put(storage::Family::kLeases, kEpochKey, EncodeEpoch(epoch + 1));
}

Result<uint64_t> TableCatalog::ReadEpoch() const {
  ASSIGN_OR_RETURN(value, store_.Get(storage::Family::kLeases, kEpochKey));
  return value ? DecodeEpoch(*value) : 0;
}

bool TableCatalog::AnyOlderVersionHeld() const {
  for (const auto& w : forgotten_) {
    if (!w.expired()) return true;
  }
  for (const auto& [id, versions] : retired_) {
    for (const auto& w : versions) {
      if (!w.expired()) return true;
    }
  }
  return false;
}

void TableCatalog::PublishDrained(uint64_t epoch) {
  if (owner_.empty()) return;
  std::lock_guard<std::mutex> lock(publish_mu_);
  if (epoch <= published_epoch_) return;
  storage::WriteBatch batch(store_);
  batch.Put(storage::Family::kLeases, kDrainedPrefix + owner_, EncodeEpoch(epoch));
  if (Status s = store_.Write(batch); !s) {
    spdlog::warn("event=catalog_epoch_publish_failed message=\"{}\"", s.error().message());
    return;
  }
  published_epoch_ = epoch;
}

void TableCatalog::WaitForOtherProcesses() const {
  if (owner_.empty() || !store_.SharedByProcesses()) return;
  auto target = ReadEpoch();
  // Out of reach: nothing can be written meanwhile either. 0: no change was ever made.
  if (!target || *target == 0) return;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  std::vector<std::string> behind;
  while (std::chrono::steady_clock::now() < deadline && !stopping_.load()) {
    std::map<std::string, uint64_t> drained;
    auto d = store_.ScanFamily(storage::Family::kLeases, kDrainedPrefix,
                               storage::PrefixSuccessor(kDrainedPrefix), false, nullptr);
    for (; d->Valid(); d->Next()) {
      drained[std::string(d->key().substr(kDrainedPrefix.size()))] = DecodeEpoch(d->value());
    }
    auto members = storage::ListLeases(store_, storage::kMemberUnitPrefix);
    const int64_t now = SystemClock().NowMs();
    behind.clear();
    if (members) {
      for (const auto& [unit, lease] : *members) {
        if (!lease.LiveAt(now)) continue;  // not a live process
        // This process: the caller's local wait covered it (a build finds its job in this
        // process's catalog, so the change is installed here already).
        if (lease.owner == owner_) continue;
        auto it = drained.find(lease.owner);
        if (it == drained.end() || it->second < *target) behind.push_back(lease.owner);
      }
      if (d->status().ok() && behind.empty()) return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (stopping_.load()) return;
  spdlog::warn("event=other_processes_wait_timeout epoch={} behind={}", *target,
               behind.empty() ? std::string("?") : behind.front());
}

}  // namespace ttlstore::ops
