#include "backup/backups.h"
#include "backup/restore_lease.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <filesystem>
#include <random>
#include <set>

#include "common/transient.h"
#include "model/item_size.h"
#include "ops/row_batch.h"
#include "storage/catalog_codec.h"
#include "storage/item_codec.h"
#include "storage/key_codec.h"
#include "versions/auto_increment.h"
#include "versions/row.h"
#include "versions/row_key.h"

namespace ttlstore::backup {
namespace {

constexpr char kSuffix[] = ".ttlbak";
// Items loaded per WriteBatch by a restore (and per lock guard).
constexpr size_t kImportBatch = 256;
// How often progress is reported, in records.
constexpr int64_t kProgressEvery = 4096;

Error BackupNotFound(const std::string& arn) {
  return Error(ErrorCode::kBackupNotFound, "Backup not found: " + arn);
}

// The table id prefix is 4 bytes in both the item and the row key layouts.
constexpr size_t kTableIdBytes = 4;

Result<BackupRecord> Summarize(const std::string& path) {
  ASSIGN_OR_RETURN(summary, ReadBackupSummary(path));
  BackupRecord r;
  r.header = std::move(summary.first);
  r.trailer = summary.second;
  auto source = storage::DecodeTableDescriptor(r.header.table_descriptor);
  if (!source) return Error::Validation("backup file " + path + " holds a corrupt table");
  r.source = std::move(*source);
  r.path = path;
  std::error_code ec;
  r.file_bytes = std::filesystem::file_size(path, ec);
  return r;
}

}  // namespace

std::string NewArnId(int64_t now_ms) {
  thread_local std::mt19937 rng{std::random_device{}()};
  char id[32];
  std::snprintf(id, sizeof id, "%014lld-%08x", static_cast<long long>(now_ms),
                static_cast<unsigned>(rng()));
  return id;
}

std::string NewBackupArn(const std::string& table_arn, int64_t now_ms) {
  return table_arn + "/backup/" + NewArnId(now_ms);
}

std::string BackupFileName(const std::string& backup_arn) {
  return backup_arn.substr(backup_arn.rfind('/') + 1) + kSuffix;
}

Result<BackupRecord> ExportTable(const storage::Store& store, const model::TableDescriptor& table,
                                 const BackupHeader& header, const std::string& path,
                                 const Progress& progress) {
  ASSIGN_OR_RETURN(writer, BackupWriter::Create(path, header));
  // One iterator is one snapshot: the backup is the table at the instant it was opened.
  std::unique_ptr<storage::ItemIterator> it;
  RecordKind kind;
  if (table.tablestore) {
    kind = RecordKind::kRow;
    it = store.ScanFamily(storage::Family::kRows, versions::TableRowsBegin(table.id),
                          versions::TableRowsEnd(table.id), false, nullptr);
  } else {
    kind = RecordKind::kItem;
    std::string prefix = storage::TablePrefix(table.id);
    it = store.ScanItems(prefix, storage::PrefixSuccessor(prefix), false, nullptr);
  }
  int64_t done = 0;
  for (; it->Valid(); it->Next()) {
    std::string_view key = it->key();
    if (Status s = writer->Add(kind, key.substr(kTableIdBytes), it->value()); !s) return s.error();
    if (++done % kProgressEvery == 0 && progress) progress(done);
  }
  if (Status s = it->status(); !s) return std::move(s).error();
  // The partition keys' last AUTO_INCREMENT values, read after the rows: a record only grows,
  // so each is at least what it was at the rows' instant, and the restored table never issues a
  // value the source issued before the backup (versions/auto_increment.h).
  if (table.tablestore && table.tablestore->AutoIncrementColumn() >= 0) {
    std::string prefix = storage::TablePrefix(table.id);
    auto seq = store.ScanFamily(storage::Family::kSequences, prefix,
                                storage::PrefixSuccessor(prefix), false, nullptr);
    for (; seq->Valid(); seq->Next()) {
      if (Status s =
              writer->Add(RecordKind::kSequence, seq->key().substr(kTableIdBytes), seq->value());
          !s) {
        return s.error();
      }
    }
    if (Status s = seq->status(); !s) return std::move(s).error();
  }
  if (Status s = writer->Finish(); !s) return std::move(s).error();
  if (progress) progress(done);
  return Summarize(path);
}

Result<model::TableDescriptor> RestoredDescriptor(const BackupRecord& backup,
                                                  const std::string& target_name,
                                                  const RestoreOverrides& overrides,
                                                  int64_t now_ms) {
  model::RestoreSummary summary;
  summary.source_backup_arn = backup.header.backup_arn;
  summary.source_table_arn = backup.header.table_arn;
  summary.restore_time_ms = now_ms;
  return RestoredDescriptorFrom(backup.source, std::move(summary), target_name, overrides);
}

Result<model::TableDescriptor> RestoredDescriptorFrom(const model::TableDescriptor& src,
                                                      model::RestoreSummary summary,
                                                      const std::string& target_name,
                                                      const RestoreOverrides& overrides) {
  model::TableDescriptor t;
  t.name = target_name;
  t.key = src.key;
  t.attribute_definitions = src.attribute_definitions;
  t.billing_mode = overrides.billing_mode.value_or(src.billing_mode);
  t.read_capacity = src.read_capacity;
  t.write_capacity = src.write_capacity;
  if (overrides.throughput) {
    t.read_capacity = overrides.throughput->first;
    t.write_capacity = overrides.throughput->second;
  }
  if (t.billing_mode == model::BillingMode::kPayPerRequest) t.read_capacity = t.write_capacity = 0;
  t.table_class = src.table_class;
  t.next_index_id = src.next_index_id;
  for (const auto& list : {overrides.global_indexes, overrides.local_indexes}) {
    if (!list) continue;
    for (const auto& name : *list) {
      bool found = std::any_of(src.indexes.begin(), src.indexes.end(),
                               [&](const model::SecondaryIndex& ix) { return ix.name == name; });
      if (!found) {
        return Error::Validation("One or more parameter values were invalid: The index " + name +
                                 " does not exist in the backup");
      }
    }
  }
  if (overrides.vector_indexes) {
    for (const auto& choice : *overrides.vector_indexes) {
      auto it = std::find_if(src.indexes.begin(), src.indexes.end(),
                             [&](const model::SecondaryIndex& ix) {
                               return ix.IsVector() && ix.name == choice.name;
                             });
      if (it == src.indexes.end()) {
        return Error::Validation("One or more parameter values were invalid: The vector index " +
                                 choice.name + " does not exist in the backup");
      }
      const model::VectorIndexSettings& v = *it->vector;
      if ((choice.attribute && *choice.attribute != v.attribute) ||
          (choice.dimensions && *choice.dimensions != v.dimensions) ||
          (choice.metric && *choice.metric != v.metric)) {
        return Error::Validation("One or more parameter values were invalid: The vector index " +
                                 choice.name + " in VectorIndexOverride does not match the "
                                 "backup's (VectorAttribute, Dimensions and DistanceFunction "
                                 "must be as they are)");
      }
    }
  }
  for (model::SecondaryIndex ix : src.indexes) {
    const auto& keep = ix.global ? overrides.global_indexes : overrides.local_indexes;
    // A vector index is neither: the GSI and LSI overrides leave it, VectorIndexOverride
    // chooses among the vector indexes (docs/vector-indexes.md, "Restores").
    if (!ix.IsVector() && keep && std::find(keep->begin(), keep->end(), ix.name) == keep->end()) {
      continue;
    }
    if (ix.IsVector() && overrides.vector_indexes &&
        std::none_of(overrides.vector_indexes->begin(), overrides.vector_indexes->end(),
                     [&](const RestoreOverrides::VectorChoice& c) { return c.name == ix.name; })) {
      continue;
    }
    ix.status = model::IndexStatus::kActive;  // the restore writes every entry
    if (t.billing_mode == model::BillingMode::kPayPerRequest) ix.read_capacity = ix.write_capacity = 0;
    t.indexes.push_back(std::move(ix));
  }
  bool has_vector = std::any_of(t.indexes.begin(), t.indexes.end(),
                                [](const model::SecondaryIndex& ix) { return ix.IsVector(); });
  if (has_vector && t.billing_mode != model::BillingMode::kPayPerRequest) {
    return Error::Validation("One or more parameter values were invalid: Vector indexes are "
                             "supported only on tables that use on-demand capacity mode "
                             "(BillingMode PAY_PER_REQUEST)");
  }
  t.ttl_enabled = src.ttl_enabled;
  t.ttl_attribute = src.ttl_attribute;
  t.tablestore = src.tablestore;
  // Secondary indexes are not restored: their rows live under ids of the source table's
  // (docs/tablestore.md, "Secondary indexes"). Nor are search indexes: their folders are
  // named by ids of the source table's.
  if (t.tablestore) {
    t.tablestore->indexes.clear();
    t.tablestore->dropped_index_rows.clear();
    t.tablestore->search_indexes.clear();
  }
  summary.in_progress = true;
  t.restore = std::move(summary);
  return t;
}

Status WriteRestoredItems(storage::Store& store, ops::ItemOps& items,
                          const model::TableDescriptor& table, std::vector<RestoredItem>& pending) {
  std::vector<std::string> keys;
  keys.reserve(pending.size());
  for (const auto& p : pending) keys.push_back(p.key);
  // In one read-modify-write of the items (storage::Store::ReadModifyWrite), against what is
  // there: the table is visible while it loads, and a write that got there first must be
  // counted (stats) and indexed right.
  std::vector<storage::RmwKey> rmw_keys;
  rmw_keys.reserve(keys.size());
  for (const auto& key : keys) rmw_keys.push_back({std::nullopt, key});
  RETURN_IF_ERROR(store.ReadModifyWrite(
      rmw_keys, [&](const storage::RmwReads& reads, storage::WriteBatch& batch) -> Status {
        for (size_t i = 0; i < pending.size(); ++i) {
          ASSIGN_OR_RETURN(old, ops::ItemOps::DecodeRead(reads[i]));
          const RestoredItem& p = pending[i];
          items.AddPut(batch, table, p.key, p.item, model::ItemSize(p.item), old);
        }
        return Status::Ok();
      }));
  pending.clear();
  return Status::Ok();
}

Status FinishRestore(ops::TableCatalog& catalog, const model::TableDescriptor& table) {
  ops::Front front = table.tablestore ? ops::Front::kTablestore : ops::Front::kDynamoDb;
  auto updated = catalog.Update(
      table.name,
      [](model::TableDescriptor& t) {
        if (t.restore) t.restore->in_progress = false;
        return Status::Ok();
      },
      front);
  if (!updated) return std::move(updated).error();
  return Status::Ok();
}

Status ImportRecords(storage::Store& store, ops::ItemOps& items, ops::TableCatalog& catalog,
                     const model::TableDescriptor& table, BackupReader& reader,
                     const std::atomic<bool>& cancel, const Progress& progress) {
  std::string prefix = storage::TablePrefix(table.id);
  std::vector<RestoredItem> pending;
  std::unique_ptr<storage::WriteBatch> rows;
  size_t rows_in_batch = 0;
  int64_t done = 0;
  RecordKind kind;
  std::string key, value;
  const bool auto_increment = table.tablestore && table.tablestore->AutoIncrementColumn() >= 0;
  // The partition key of the rows being loaded (rows come in key order, so a partition key's
  // rows come together) and the largest AUTO_INCREMENT value among them so far.
  std::string partition;
  int64_t partition_max = 0;
  while (true) {
    if (cancel.load()) return Error::Internal("restore cancelled by shutdown");
    ASSIGN_OR_RETURN(more, reader.Next(&kind, &key, &value));
    if (!more) break;
    if ((kind != RecordKind::kItem) != table.tablestore.has_value() ||
        (kind == RecordKind::kSequence && !auto_increment)) {
      return Error::Validation("backup file holds a record of the wrong kind for its table");
    }
    std::string full = prefix + key;
    if (kind == RecordKind::kSequence) {
      // After every row (ExportTable): the source's last issued value, kept if above what the
      // rows gave. Loaded against the store, so the rows' batch goes first.
      auto last = versions::DecodeSequenceValue(value);
      if (!last) return Error::Validation("backup file holds a corrupt sequence record");
      if (rows) {
        if (Status s = store.Write(*rows); !s) return s;
        rows.reset();
        rows_in_batch = 0;
      }
      ASSIGN_OR_RETURN(raw, store.Get(storage::Family::kSequences, full));
      std::optional<int64_t> have = raw ? versions::DecodeSequenceValue(*raw) : std::nullopt;
      if (!have || *have < *last) {
        storage::WriteBatch batch(store);
        batch.Put(storage::Family::kSequences, full, versions::EncodeSequenceValue(*last));
        if (Status s = store.Write(batch); !s) return s;
      }
    } else if (kind == RecordKind::kRow) {
      // A Tablestore row's only companions are its purge-index entries (ops/row_batch.h) and,
      // with an AUTO_INCREMENT column, its partition key's last issued value, which must never
      // be below a row's; a plain batch (only `ttlstore restore`, offline, loads them) into a
      // table still empty.
      versions::StoredRow row;
      if (!versions::DecodeRow(value, &row)) {
        return Error::Validation("backup file holds a corrupt row");
      }
      if (!rows) rows = std::make_unique<storage::WriteBatch>(store);
      if (auto_increment) {
        std::vector<versions::PkCell> pk;
        if (!versions::DecodeRowKey(full, table.tablestore->primary_key, &pk)) {
          return Error::Validation("backup file holds a corrupt row key");
        }
        ASSIGN_OR_RETURN(seq_key,
                         versions::SequenceKey(table.id, table.tablestore->primary_key, pk[0]));
        std::optional<int64_t> v =
            versions::AutoIncrementValueOf(table.tablestore->primary_key, pk);
        if (!v) return Error::Validation("backup file holds a corrupt row key");
        if (seq_key != partition || *v > partition_max) {
          if (seq_key != partition) partition = seq_key;
          partition_max = *v;
          rows->Put(storage::Family::kSequences, seq_key, versions::EncodeSequenceValue(*v));
        }
      }
      ops::StageRowChange(*rows, *table.tablestore, full, nullptr, &row);
      if (++rows_in_batch == kImportBatch) {
        if (Status s = store.Write(*rows); !s) return s;
        rows.reset();
        rows_in_batch = 0;
      }
    } else {
      auto item = storage::DecodeItem(value);
      if (!item) return Error::Validation("backup file holds a corrupt item");
      pending.push_back({std::move(full), std::move(*item)});
      if (pending.size() == kImportBatch) {
        if (Status s = WriteRestoredItems(store, items, table, pending); !s) return s;
      }
    }
    if (++done % kProgressEvery == 0 && progress) progress(done);
  }
  if (!pending.empty()) {
    if (Status s = WriteRestoredItems(store, items, table, pending); !s) return s;
  }
  if (rows) {
    if (Status s = store.Write(*rows); !s) return s;
  }
  if (progress) progress(done);
  return FinishRestore(catalog, table);
}

void DropAbandonedRestores(ops::TableCatalog& catalog, const storage::LeaseKeeper* keeper) {
  for (ops::Front front : {ops::Front::kDynamoDb, ops::Front::kTablestore}) {
    for (const auto& name : catalog.List(std::nullopt, SIZE_MAX, front).names) {
      ops::TablePtr t = catalog.Find(name, front);
      if (!t || !t->restore || !t->restore->in_progress) continue;
      // A point-in-time restore (a source table, no backup) is the server's to start again
      // (PitrRestores::ResumeInterrupted), not to drop. An import (neither) is dropped.
      if (t->restore->source_backup_arn.empty() && !t->restore->source_table_arn.empty()) continue;
      if (RestoreUnderWay(keeper, name)) {
        spdlog::info("event=restore_running_elsewhere table={}", name);
        continue;
      }
      spdlog::warn("event=restore_abandoned table={} backup={} message=\"a stop interrupted this "
                   "table's restore; dropping the partial table\"",
                   name, t->restore->source_backup_arn);
      t.reset();  // Delete waits until no one holds the table
      if (auto r = catalog.Delete(name, front); !r) {
        spdlog::error("event=restore_abandoned_drop_failed table={} message=\"{}\"", name,
                      r.error().message());
      }
    }
  }
}

// ---- Backups ----------------------------------------------------------------------------------

Backups::Backups(storage::Store& store, ops::TableCatalog& catalog, ops::ItemOps& items,
                 const Clock& clock, std::string dir)
    : store_(store), catalog_(catalog), items_(items), clock_(clock), dir_(std::move(dir)) {}

Backups::~Backups() {
  cancel_.store(true);
  std::vector<Thread> threads;
  {
    std::lock_guard lock(mu_);
    threads.swap(restores_);
  }
  for (auto& t : threads) t.join();
}

Status Backups::Load() {
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec) return Error::Internal("cannot create backup folder " + dir_ + ": " + ec.message());
  std::lock_guard lock(mu_);
  for (const auto& entry : std::filesystem::directory_iterator(dir_, ec)) {
    // A backup a crash interrupted: never complete, never listed.
    if (entry.path().extension() == ".tmp") std::filesystem::remove(entry.path(), ec);
  }
  return ScanLocked();
}

// Adds the backup files not known yet (`ttlstore backup` may write some while serving, another
// process sharing the folder may have made some) and forgets those whose file is gone (deleted
// through another process).
Status Backups::ScanLocked() const {
  std::error_code ec;
  std::set<std::string> known;
  for (auto it = backups_.begin(); it != backups_.end();) {
    if (!std::filesystem::exists(it->second.path, ec) && !ec) {
      it = backups_.erase(it);
      continue;
    }
    known.insert(it->second.path);
    ++it;
  }
  for (const auto& entry : std::filesystem::directory_iterator(dir_, ec)) {
    std::string path = entry.path().string();
    if (entry.path().extension() != kSuffix || known.count(path)) continue;
    auto record = Summarize(path);
    if (!record) {
      spdlog::error("event=backup_unreadable path={} message=\"{}\"", path,
                    record.error().message());
      continue;
    }
    backups_[record->header.backup_arn] = std::move(*record);
  }
  if (ec) return Error::Internal("cannot list backup folder " + dir_ + ": " + ec.message());
  return Status::Ok();
}

Result<BackupRecord> Backups::Create(const std::string& table_name, const std::string& table_arn,
                                     const std::string& backup_name) {
  ops::TablePtr table = catalog_.Find(table_name);
  if (!table) return Error(ErrorCode::kTableNotFound, "Table not found: " + table_name);
  auto stats = store_.GetStats(table->id);
  BackupHeader header;
  header.created_ms = clock_.NowMs();
  header.backup_arn = NewBackupArn(table_arn, header.created_ms);
  header.backup_name = backup_name;
  header.table_arn = table_arn;
  header.table_descriptor = storage::EncodeTableDescriptor(*table);
  if (stats) {
    header.expected_records = stats->item_count;
    header.expected_bytes = stats->size_bytes;
  }
  std::string path = dir_ + "/" + BackupFileName(header.backup_arn);
  ASSIGN_OR_RETURN(record, ExportTable(store_, *table, header, path, nullptr));
  spdlog::info("event=backup_created table={} backup={} records={} bytes={}", table_name,
               header.backup_arn, record.trailer.records, record.file_bytes);
  std::lock_guard lock(mu_);
  backups_[record.header.backup_arn] = record;
  return record;
}

std::vector<BackupRecord> Backups::List() const {
  std::vector<BackupRecord> out;
  {
    std::lock_guard lock(mu_);
    (void)ScanLocked();
    for (const auto& [arn, r] : backups_) out.push_back(r);
  }
  std::stable_sort(out.begin(), out.end(), [](const BackupRecord& a, const BackupRecord& b) {
    return a.header.created_ms < b.header.created_ms;
  });
  return out;
}

// The backup, looking in the folder again before saying it does not exist (or, its file gone,
// that it does).
std::map<std::string, BackupRecord>::iterator Backups::FindLocked(const std::string& arn) const {
  auto it = backups_.find(arn);
  std::error_code ec;
  if (it == backups_.end() || !std::filesystem::exists(it->second.path, ec)) {
    (void)ScanLocked();
    it = backups_.find(arn);
  }
  return it;
}

Result<BackupRecord> Backups::Find(const std::string& backup_arn) const {
  std::lock_guard lock(mu_);
  auto it = FindLocked(backup_arn);
  if (it == backups_.end()) return BackupNotFound(backup_arn);
  return it->second;
}

Result<BackupRecord> Backups::Delete(const std::string& backup_arn) {
  std::lock_guard lock(mu_);
  auto it = FindLocked(backup_arn);
  if (it == backups_.end()) return BackupNotFound(backup_arn);
  // Restores through this process, then through others (their leases, with a keeper).
  bool in_use = restoring_.count(backup_arn) > 0;
  if (!in_use && keeper_) {
    ASSIGN_OR_RETURN(reads, storage::ListLeases(store_, BackupReadLeasePrefix(backup_arn)));
    const int64_t now_ms = clock_.NowMs();
    for (const auto& [unit, lease] : reads) in_use = in_use || lease.LiveAt(now_ms);
  }
  if (in_use) {
    return Error(ErrorCode::kBackupInUse,
                 "Backup is being used to restore a table: " + backup_arn);
  }
  std::error_code ec;
  std::filesystem::remove(it->second.path, ec);
  if (ec) return Error::Internal("cannot remove " + it->second.path + ": " + ec.message());
  BackupRecord gone = std::move(it->second);
  backups_.erase(it);
  return gone;
}

Result<ops::TablePtr> Backups::StartRestore(const std::string& backup_arn,
                                            const std::string& target,
                                            const RestoreOverrides& overrides) {
  ASSIGN_OR_RETURN(backup, Find(backup_arn));
  if (catalog_.Find(target) || catalog_.Find(target, ops::Front::kTablestore)) {
    return Error(ErrorCode::kTableAlreadyExists, "Table already exists: " + target);
  }
  // Open (and so check) the file before the table exists: a damaged backup creates nothing.
  ASSIGN_OR_RETURN(reader, BackupReader::Open(backup.path));
  ASSIGN_OR_RETURN(spec, RestoredDescriptor(backup, target, overrides, clock_.NowMs()));
  // Held until the restore's thread ends: another process starting meanwhile leaves the table.
  auto lease = std::make_shared<RestoreLease>(keeper_, target);
  if (!lease->held()) return Error(ErrorCode::kTableAlreadyExists, "Table already exists: " + target);
  // And the backup's, for DeleteBackup through any process (BackupInUseException).
  auto reading = std::make_shared<JobLease>(keeper_, BackupReadLeasePrefix(backup_arn) + target);
  if (!reading->held()) return Error(ErrorCode::kTableAlreadyExists, "Table already exists: " + target);
  auto created = catalog_.Create(std::move(spec));
  if (!created) {
    if (created.error().code() == ErrorCode::kResourceInUse) {
      return Error(ErrorCode::kTableAlreadyExists, "Table already exists: " + target);
    }
    return std::move(created).error();
  }
  ops::TablePtr table = *created;
  std::lock_guard lock(mu_);
  ++restoring_[backup_arn];
  restores_.emplace_back("restore", [this, table, backup_arn, path = backup.path, lease, reading,
                          reader = std::shared_ptr<BackupReader>(std::move(reader))]() mutable {
    // An outage of the storage (a database restarting or failing over) restarts the restore
    // from the file's first record: writing an item again is harmless.
    Status s = RetryWhileUnavailable(
        cancel_,
        [&]() -> Status {
          if (!reader) {
            ASSIGN_OR_RETURN(reopened, BackupReader::Open(path));
            reader = std::shared_ptr<BackupReader>(std::move(reopened));
          }
          Status attempt = ImportRecords(store_, items_, catalog_, *table, *reader, cancel_,
                                         nullptr);
          if (!attempt) reader.reset();
          return attempt;
        },
        [&](const Status& failure) {
          spdlog::warn("event=restore_retry table={} backup={} message=\"{}\"", table->name,
                       backup_arn, failure.error().message());
        });
    if (s) {
      spdlog::info("event=restore_done table={} backup={} records={}", table->name, backup_arn,
                   reader ? reader->trailer().records : 0);
    } else if (!cancel_.load()) {
      // A damaged file or a storage error: drop the partial table rather than leave it looking
      // like a restore that is merely slow.
      spdlog::error("event=restore_failed table={} backup={} message=\"{}\"", table->name,
                    backup_arn, s.error().message());
      (void)catalog_.Delete(table->name);
    }
    lease.reset();  // done (or stopping: then the next start drops the partial table)
    reading.reset();
    std::lock_guard done_lock(mu_);
    if (--restoring_[backup_arn] == 0) restoring_.erase(backup_arn);
  });
  return table;
}

}  // namespace ttlstore::backup
