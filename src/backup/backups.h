// On-demand backups (D17): CreateBackup, DescribeBackup, ListBackups, DeleteBackup and
// RestoreTableFromBackup, and the `ttlstore backup` / `ttlstore restore` commands, over backup
// files (backup/backup_file.h).
//
// - A backup is a point-in-time export of one table: its descriptor (key schema, indexes, TTL
//   settings, Tablestore options) and every item or row, read from one RocksDB snapshot while
//   the table keeps serving. It is written in the caller's request (AVAILABLE when CreateBackup
//   answers) to <data-dir>/backups/<id>.ttlbak, and outlives its table.
// - A restore creates the target table at once, in CREATING state with RestoreInProgress, and
//   loads the items on a thread of its own through the normal write path (ItemOps::AddPut), so
//   the expiry index, secondary indexes and stats are built as for any write. TTL settings are
//   restored with the table (the service leaves them to the user; ttlstore keeps them, because
//   an expiring table restored without its TTL would silently keep everything). Streams, tags
//   and deletion protection are not restored, as in DynamoDB.
// - A restore cut short by a stop leaves a table marked in progress; the next start drops it
//   (DropAbandonedRestores), so a half-restored table is never taken for a whole one.
#pragma once

#include "common/thread.h"
#include "storage/lease_keeper.h"

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "backup/backup_file.h"
#include "common/clock.h"
#include "common/result.h"
#include "model/table.h"
#include "ops/item_ops.h"
#include "ops/table_ops.h"
#include "storage/store.h"

namespace ttlstore::backup {

// Called now and then with the records done so far.
using Progress = std::function<void(int64_t records_done)>;

// One backup as the API describes it.
struct BackupRecord {
  BackupHeader header;
  BackupTrailer trailer;
  model::TableDescriptor source;  // decoded from header.table_descriptor
  std::string path;
  uint64_t file_bytes = 0;
};

// What RestoreTableFromBackup may change about the restored table.
struct RestoreOverrides {
  std::optional<model::BillingMode> billing_mode;
  std::optional<std::pair<int64_t, int64_t>> throughput;  // read, write capacity
  // Names of the secondary indexes to keep (each must exist in the backup); nullopt: keep all.
  std::optional<std::vector<std::string>> global_indexes;
  std::optional<std::vector<std::string>> local_indexes;
  // VectorIndexOverride: the vector indexes to keep (nullopt: all), each as the request described
  // it; what it gives of attribute, dimensions and metric must match the backup's index.
  struct VectorChoice {
    std::string name;
    std::optional<std::string> attribute;
    std::optional<uint32_t> dimensions;
    std::optional<model::VectorMetric> metric;
  };
  std::optional<std::vector<VectorChoice>> vector_indexes;
};

// Writes `table` (items or Tablestore rows) into a new backup file at `path`.
Result<BackupRecord> ExportTable(const storage::Store& store, const model::TableDescriptor& table,
                                 const BackupHeader& header, const std::string& path,
                                 const Progress& progress);

// The descriptor of the table a restore creates: the backup's, renamed, with `overrides`.
Result<model::TableDescriptor> RestoredDescriptor(const BackupRecord& backup,
                                                  const std::string& target_name,
                                                  const RestoreOverrides& overrides,
                                                  int64_t now_ms);

// The same from any source descriptor (RestoreTableToPointInTime's source table): renamed, with
// `overrides`, the TTL settings kept, `summary` (in_progress set here) recorded.
Result<model::TableDescriptor> RestoredDescriptorFrom(const model::TableDescriptor& src,
                                                      model::RestoreSummary summary,
                                                      const std::string& target_name,
                                                      const RestoreOverrides& overrides);

// One item a restore loads: its full storage key in the restored table, and the item.
struct RestoredItem {
  std::string key;
  model::Item item;
};
// Writes `pending` into `table` through the normal write path (item, stats, expiry entry, index
// entries in one batch, under the items' locks), then clears it.
Status WriteRestoredItems(storage::Store& store, ops::ItemOps& items,
                          const model::TableDescriptor& table, std::vector<RestoredItem>& pending);
// Clears the table's RestoreInProgress mark: the restore is whole.
Status FinishRestore(ops::TableCatalog& catalog, const model::TableDescriptor& table);

// Loads every record of `reader` into `table` (created by the caller with in_progress set), then
// clears in_progress. Stops early, leaving the table marked, when `cancel` becomes true.
Status ImportRecords(storage::Store& store, ops::ItemOps& items, ops::TableCatalog& catalog,
                     const model::TableDescriptor& table, BackupReader& reader,
                     const std::atomic<bool>& cancel, const Progress& progress);

// Drops tables whose restore from a backup a stop interrupted (point-in-time restores are
// PitrRestores::ResumeInterrupted's). Call after TableCatalog::Load. With a `keeper`, a table
// another process is filling now (its restore lease held: backup/restore_lease.h) is left alone.
void DropAbandonedRestores(ops::TableCatalog& catalog,
                           const storage::LeaseKeeper* keeper = nullptr);

// "<ms, 14 digits>-<8 hex>": the last part of backup and import ARNs.
std::string NewArnId(int64_t now_ms);
// "arn:aws:dynamodb:<region>:<account>:table/<table>/backup/<ms, 14 digits>-<8 hex>"
std::string NewBackupArn(const std::string& table_arn, int64_t now_ms);
// The file name a backup ARN is stored under: "<ms>-<hex>.ttlbak".
std::string BackupFileName(const std::string& backup_arn);

// The API's view: the backups of one data dir and the restores under way.
class Backups {
 public:
  Backups(storage::Store& store, ops::TableCatalog& catalog, ops::ItemOps& items,
          const Clock& clock, std::string dir);
  ~Backups();  // cancels restores under way and waits for them

  // Reads the summaries of the backup files in the folder (creating it if missing).
  Status Load();
  // Restores run under their table's lease (backup/restore_lease.h); none without a keeper.
  void set_lease_keeper(storage::LeaseKeeper* keeper) { keeper_ = keeper; }

  // CreateBackup. TableNotFoundException if the table does not exist.
  Result<BackupRecord> Create(const std::string& table_name, const std::string& table_arn,
                              const std::string& backup_name);
  // Oldest first.
  std::vector<BackupRecord> List() const;
  // BackupNotFoundException if unknown.
  Result<BackupRecord> Find(const std::string& backup_arn) const;
  // BackupInUseException while a restore reads it.
  Result<BackupRecord> Delete(const std::string& backup_arn);
  // RestoreTableFromBackup: the created table (CREATING); the items follow in the background.
  Result<ops::TablePtr> StartRestore(const std::string& backup_arn, const std::string& target,
                                     const RestoreOverrides& overrides);

 private:
  Status ScanLocked() const;  // REQUIRES: mu_
  std::map<std::string, BackupRecord>::iterator FindLocked(const std::string& arn) const;

  storage::Store& store_;
  storage::LeaseKeeper* keeper_ = nullptr;
  ops::TableCatalog& catalog_;
  ops::ItemOps& items_;
  const Clock& clock_;
  std::string dir_;
  mutable std::mutex mu_;
  mutable std::map<std::string, BackupRecord> backups_;  // GUARDED_BY(mu_), by ARN
  std::map<std::string, int> restoring_;                 // GUARDED_BY(mu_), ARN -> restores
  std::vector<Thread> restores_;                    // GUARDED_BY(mu_)
  std::atomic<bool> cancel_{false};
};

}  // namespace ttlstore::backup
