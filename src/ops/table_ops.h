// TableCatalog: the set of tables, held in memory and persisted through storage::Store, and
// the control-plane operations on it (CreateTable, DeleteTable, DescribeTable, ListTables,
// tagging). Requests arrive already checked for shape by api/; the rules checked here are the
// ones that need the catalog (does the table exist, is the name taken).
//
// Thread-safety: all methods may run concurrently. Lookups take a shared lock and return an
// immutable snapshot (shared_ptr<const TableDescriptor>), so a data-plane request keeps a
// consistent view of its table even if the table is deleted meanwhile.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "common/clock.h"
#include "common/periodic_thread.h"
#include "common/result.h"
#include "index/index_builder.h"
#include "model/table.h"
#include "storage/store.h"

namespace ttlstore::ops {

using TablePtr = std::shared_ptr<const model::TableDescriptor>;

// Maximum tags per resource (DynamoDB quota).
inline constexpr size_t kMaxTagsPerResource = 50;

struct ListTablesResult {
  std::vector<std::string> names;
  std::optional<std::string> last_evaluated;
};

// The two front ends share one namespace of table names, but each sees only the tables created
// through it (a Tablestore table holds versioned rows the DynamoDB API cannot express, and a
// DynamoDB item is not a Tablestore row): lookups, lists, updates and deletes take the caller's
// front end; CreateTable of a name the other front end uses answers "already exists".
enum class Front : uint8_t { kDynamoDb, kTablestore };

class TableCatalog : public index::IndexCatalog {
  using TableMap = std::unordered_map<std::string, TablePtr>;

 public:
  TableCatalog(storage::Store& store, const Clock& clock) : store_(store), clock_(clock) {}

  // Reads every table from the store. Call once before serving.
  Status Load();

  // Other processes' catalog changes, with several processes on one database (issue 34;
  // ops/catalog_refresh.cc, docs/storage.md "Several processes"): reads every table from the
  // store and makes the catalog in memory match it (tables created, changed or dropped
  // elsewhere). A round that raced a change made by this process is read again (a few times,
  // then left to the next round). Counts in refreshed() what it installed or removed. With an
  // owner (StartRefresh), a round after which no request holds an older descriptor publishes
  // the catalog epoch it read (ops/catalog_epoch.cc).
  Status Refresh();
  // On a store other processes may share (Store::SharedByProcesses): a Refresh every
  // `interval_ms` on a thread of its own, and a name or id not found is looked for in the store
  // before the lookup answers (at most one such read per kMissRefreshMs). `owner` names this
  // process among them (the lease owner: storage::LeaseOwnerName), for the epochs it
  // publishes. Nothing on RocksDB.
  void StartRefresh(int64_t interval_ms, std::string owner = "");
  // Also ends a wait for other processes under way (WaitForOlderVersions): a stop does not
  // wait for them.
  void StopRefresh() {
    stopping_.store(true);
    refresher_.Stop();
  }
  uint64_t refreshed() const { return refreshed_.load(); }
  static constexpr int64_t kMissRefreshMs = 100;

  // The table, or ResourceNotFoundException "Requested resource not found".
  Result<TablePtr> Get(const std::string& name) const;
  // The table, or nullptr (also for a table of the other front end).
  TablePtr Find(const std::string& name, Front front = Front::kDynamoDb) const;
  // The table with this internal id (the prefix of its item keys), or nullptr.
  TablePtr FindById(uint32_t id) const override;

  // UpdateTable: applies `change` to a copy of the table under the catalog's lock, then
  // persists and publishes the result. `change` sees the current version and may refuse with
  // an error (nothing is changed then). ResourceNotFoundException if the table is missing.
  Result<TablePtr> Update(const std::string& name,
                          const std::function<Status(model::TableDescriptor&)>& change,
                          Front front = Front::kDynamoDb);

  // index::IndexCatalog: the index builder's view (index/index_builder.h). Waits until no
  // request of this process holds a descriptor of the table older than the current one and,
  // on a store shared by processes, until every live process has refreshed past every change
  // committed before the call and no request of it holds an older descriptor either
  // (ops/catalog_epoch.cc). Bounded (10 s each), logged past the bound.
  void WaitForOlderVersions(uint32_t table_id) const override;
  Status SetIndexActive(uint32_t table_id, uint32_t index_id) override;
  Status ForgetDroppedIndex(uint32_t table_id, uint32_t index_id) override;
  std::vector<std::shared_ptr<const model::TableDescriptor>> AllTables() const override;

  // UpdateTimeToLive's change (D1, D13): enable TTL on `attribute`, or disable it. Errors with
  // the service's messages: already enabled, already disabled, disabling another attribute, a
  // table still being restored (ResourceInUseException), and any change while the backfill of
  // the last enable is still running (D12: "modified multiple times within a fixed interval").
  // Taking effect is immediate (D12, ours). Enabling also marks the table's TTL backfill
  // pending, in the same catalog write: the items written before are indexed by
  // ttl/backfill.h, which clears the mark (AdvanceTtlBackfill) when it is done.
  Result<TablePtr> SetTimeToLive(const std::string& name, bool enabled,
                                 const std::string& attribute);
  // Commits the TTL backfill's progress on table `table_id`: the descriptor's new cursor (the
  // last chunk's last item key), or the pending mark removed when `done`. Returns false,
  // writing nothing, when the table is gone or its TTL is no longer enabled on `attribute` with
  // a backfill pending.
  Result<bool> AdvanceTtlBackfill(uint32_t table_id, const std::string& attribute,
                                  const std::string& cursor, bool done);

  // Applies `change` to table `table_id` as stored (CommitChange) and writes it together with
  // what `add` puts in the batch, in one commit. false, writing nothing, if the table is gone
  // or `change` returns false (the state it expected is gone). For background jobs that commit
  // their progress with their work (ops/ts_index_backfill.h).
  Result<bool> CommitWithTable(uint32_t table_id,
                               const std::function<bool(model::TableDescriptor&)>& change,
                               const std::function<void(storage::WriteBatch&)>& add = {});
  // A table id never used before (also the key prefix of a Tablestore index's rows).
  Result<uint32_t> AllocateId() { return store_.AllocateTableId(); }
  // The Tablestore table holding the secondary index `index_name`, or nullptr.
  TablePtr FindIndexOwner(const std::string& index_name) const;

  // UpdateContinuousBackups' change (ops/table_pitr.cc). Enabling starts the table's change
  // log: the catalog write turns logging on (enabled_ms 0, pending), then, once no request
  // still holds a descriptor from before (they could write unlogged), a second write dates it:
  // enabled_ms, the earliest restorable time. Enabling an enabled table changes only its
  // RecoveryPeriodInDays (`days`, when given). Disabling drops the change log in the same
  // batch as the catalog write. TableNotFoundException "Table not found: <name>" if missing;
  // ResourceInUseException while the table is being restored.
  Result<TablePtr> SetPointInTimeRecovery(const std::string& name, bool enabled,
                                          std::optional<int32_t> days);
  // Dates the PITR enables a stop left pending (enabled_ms 0): after a restart no request holds
  // an older descriptor. Call after Load, before serving.
  Status FinishPendingPitrEnables();

  // Creates a table from `spec` (name, key schema, definitions, billing, tags); fills id, uuid
  // and creation time. ResourceInUseException if the name is taken.
  Result<TablePtr> Create(model::TableDescriptor spec);
  // Deletes the table and all its items. Returns the descriptor as it was. The table disappears
  // from lookups at once; its data is dropped once no request still holds it (a write that
  // looked the table up before could otherwise land after the drop and leave an orphan). While
  // that lasts, CreateTable of the name answers ResourceInUseException. The table's streams
  // stay readable for their retention period: what DescribeStream needs of them is written in
  // the same batch as the drop (streams::AddDroppedStreams), so a crash keeps both or neither.
  //
  // On a store several processes share, in two steps (ops/catalog_drop.cc): the stored
  // descriptor is marked deleting (no catalog installs it, so every process stops finding the
  // table at its next refresh; a second DeleteTable, through any process, answers
  // ResourceNotFound), then, once every live process has let go of the table as it was
  // (WaitForOtherProcesses), the data is dropped. A write through another process can no longer
  // land after the drop.
  Result<TablePtr> Delete(const std::string& name, Front front = Front::kDynamoDb);
  // Drops the tables whose DeleteTable stopped between its mark and its drop (its process died):
  // those marked more than kAbandonedDropMs ago. On a shared store, by one process at a time
  // (the restore recovery pass).
  Status FinishInterruptedDrops();
  static constexpr int64_t kAbandonedDropMs = 60'000;
  // Names in byte order, starting after `exclusive_start`, at most `limit`.
  ListTablesResult List(const std::optional<std::string>& exclusive_start, size_t limit,
                        Front front = Front::kDynamoDb) const;

  // Adds or replaces tags by key; a ValidationException past kMaxTagsPerResource in all.
  Status Tag(const std::string& name, const std::vector<model::Tag>& tags);
  Status Untag(const std::string& name, const std::vector<std::string>& keys);

  // Whether any table or stream has a resource-based policy: requests by keys the policy file
  // does not restrict skip authorization entirely while none has (a lock-free read).
  bool AnyResourcePolicy() const { return tables_with_policies_.load() > 0; }

  Result<storage::TableStats> Stats(const model::TableDescriptor& table) const {
    return store_.GetStats(table.id);
  }
  // Entry count and size of each index of `table`, in table.indexes order (zero if unreadable).
  std::vector<storage::TableStats> IndexStats(const model::TableDescriptor& table) const;

 private:
  // Makes `table` visible by name and id. REQUIRES: mu_ held exclusively.
  void Install(TablePtr table);
  // Removes the table of `it` from the lookups. REQUIRES: mu_ held exclusively.
  void Forget(TableMap::iterator it);
  // A lookup found nothing: on a shared store, refresh (rate-limited) and say whether it did.
  // The catalog in memory is a cache of the store's, so this is not a change of its value.
  bool RefreshAfterMiss() const;
  // A change of one descriptor: edits it (after its checks) and may add writes to the batch it
  // is committed with; true to write it, false to leave it as it is.
  using Change = std::function<Result<bool>(model::TableDescriptor&, storage::WriteBatch&)>;
  // The one way a descriptor changes (ops/catalog_commit.cc): `change` runs on the stored
  // descriptor of table `name`, read for update, not on this process's copy, so a change made
  // through another process is seen and kept; what is committed is installed here. Only a table
  // of `front` (when given) and of id `id` (when given) is changed. The table installed, nullptr
  // when `change` wrote nothing, ResourceNotFound ("Requested resource not found: Table: <name>
  // not found") when there is no such table. REQUIRES: mu_ held exclusively.
  Result<TablePtr> CommitChange(const std::string& name, std::optional<Front> front,
                                std::optional<uint32_t> id, const Change& change);
  // The catalog epoch (ops/catalog_epoch.cc): on a shared store a change's read-modify-write
  // also reads and raises it (EpochKeys appends its key; RaiseEpoch writes the next value).
  void EpochKeys(std::vector<storage::RmwKey>& keys) const;
  void RaiseEpoch(const storage::RmwReads& reads, storage::WriteBatch& batch) const;
  // The epoch stored now (0: none yet).
  Result<uint64_t> ReadEpoch() const;
  // Publishes that this process holds nothing older than what the catalog held at `epoch`.
  void PublishDrained(uint64_t epoch);
  // Makes the catalog in memory match `tables` (all of the store's). REQUIRES: mu_ exclusively.
  void InstallStored(std::vector<model::TableDescriptor> tables);
  // Whether any replaced descriptor of any table is still held by a request. REQUIRES: mu_.
  bool AnyOlderVersionHeld() const;
  // The cross-process half of WaitForOlderVersions.
  void WaitForOtherProcesses() const;
  // CommitChange of the table with id `table_id` (by the name this process knows it under):
  // whether it wrote; false when the table is gone. REQUIRES: mu_ held exclusively.
  Result<bool> CommitById(uint32_t table_id, const Change& change);

  // tables_.find(name), or end() if the table belongs to the other front end. REQUIRES: mu_.
  TableMap::const_iterator FindLocked(const std::string& name, Front front) const;

  storage::Store& store_;
  const Clock& clock_;
  mutable std::shared_mutex mu_;
  TableMap tables_;  // GUARDED_BY(mu_)
  std::unordered_map<uint32_t, TablePtr> by_id_;      // GUARDED_BY(mu_), same tables
  std::unordered_set<std::string> deleting_;           // GUARDED_BY(mu_), names being dropped
  // Tables in by_id_ with a resource-based policy on them or a stream; written under mu_.
  std::atomic<size_t> tables_with_policies_{0};
  // Replaced versions of each table, to tell when no request holds one any more.
  std::unordered_map<uint32_t, std::vector<std::weak_ptr<const model::TableDescriptor>>>
      retired_;  // GUARDED_BY(mu_)
  // Versions of tables no longer in the catalog (dropped, here or by another process) that a
  // request may still hold: AnyOlderVersionHeld counts them too. GUARDED_BY(mu_).
  std::vector<std::weak_ptr<const model::TableDescriptor>> forgotten_;
  // Delete's two steps on a shared store (ops/catalog_drop.cc): marks the stored descriptor of
  // `table` deleting; drops it if it is still `table`'s, marked.
  Status MarkDeleting(const model::TableDescriptor& table);
  Status DropMarked(const model::TableDescriptor& table);
  // What drops `table`: its data, its catalog record, and its streams' records kept for
  // DescribeStream (both Delete paths and DropMarked).
  void StageDrop(storage::WriteBatch& batch, const model::TableDescriptor& table) const;
  // ResourceNotFoundException for table `name` ("Requested resource not found: Table: <name>
  // not found"), as CommitChange and Delete answer.
  static Error NotFound(const std::string& name);
  // Changes a table found by id. REQUIRES: mu_ held exclusively.
  Status UpdateById(uint32_t table_id,
                    const std::function<bool(model::TableDescriptor&)>& change);

  // Installs and removals since Load; a Refresh that raced one skips its round.
  std::atomic<uint64_t> changes_{0};
  std::atomic<uint64_t> refreshed_{0};
  bool refresh_misses_ = false;  // set by StartRefresh before serving
  mutable std::mutex miss_mu_;   // one refresh after a miss at a time
  mutable std::atomic<int64_t> last_miss_refresh_ms_{0};
  PeriodicThread refresher_;
  std::string owner_;               // set by StartRefresh before serving; empty: no epochs
  std::atomic<bool> stopping_{false};
  std::mutex publish_mu_;           // one publication at a time
  uint64_t published_epoch_ = 0;    // GUARDED_BY(publish_mu_)
};

// DynamoDB's message for a data-plane call on a table that does not exist.
Error TableNotFound();
// DynamoDB's refusal of a control-plane change to a table whose restore is still loading it
// (TableStatus CREATING).
Error TableBeingCreated(const std::string& name);
// Whether `table` is still being loaded by a restore (backup/backups.h).
inline bool RestoreInProgress(const model::TableDescriptor& table) {
  return table.restore && table.restore->in_progress;
}

}  // namespace ttlstore::ops
