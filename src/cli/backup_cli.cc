#include "cli/backup_cli.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "backup/backups.h"
#include "cli/progress_bar.h"
#include "common/clock.h"
#include "model/arn.h"
#include "ops/item_ops.h"
#include "ops/table_ops.h"
#include "storage/catalog_codec.h"
#include "storage/store.h"

namespace ttlstore::cli {
namespace {

struct BackupFlags {
  std::string data_dir = "./ttlstore-data";
  std::string storage;  // a PostgreSQL connection string (docs/storage.md)
  std::string table;
  std::string out;
  std::string name;
};

struct RestoreFlags {
  std::string data_dir = "./ttlstore-data";
  std::string storage;
  std::string from;
  std::string table;
};

int Fail(const char* command, const std::string& message) {
  std::fprintf(stderr, "ttlstore %s: %s\n", command, message.c_str());
  return 1;
}

int Backup(const BackupFlags& f) {
  storage::StoreOptions options;
  options.path = f.data_dir;
  options.storage = f.storage;
  options.read_only = true;
  if (f.storage.empty() && !std::filesystem::is_directory(f.data_dir)) {
    return Fail("backup", "no data dir at " + f.data_dir);
  }
  auto store = storage::Store::Open(options);
  if (!store) return Fail("backup", store.error().message());
  SystemClock clock;
  ops::TableCatalog catalog(**store, clock);
  if (Status s = catalog.Load(); !s) return Fail("backup", s.error().message());
  ops::TablePtr table = catalog.Find(f.table);
  if (!table) table = catalog.Find(f.table, ops::Front::kTablestore);
  if (!table) return Fail("backup", "Table not found: " + f.table);
  auto stats = (*store)->GetStats(table->id);
  backup::BackupHeader header;
  header.created_ms = clock.NowMs();
  header.table_arn = model::TableArn(model::kDefaultRegion, model::kDefaultAccountId, table->name);
  header.backup_arn = backup::NewBackupArn(header.table_arn, header.created_ms);
  header.backup_name = f.name.empty() ? table->name + "-backup" : f.name;
  header.table_descriptor = storage::EncodeTableDescriptor(*table);
  if (stats) {
    header.expected_records = stats->item_count;
    header.expected_bytes = stats->size_bytes;
  }
  std::string out = f.out;
  if (out.empty()) {
    // Where the server keeps its own backups: ListBackups shows this one too.
    std::string dir = f.data_dir + "/backups";
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    out = dir + "/" + backup::BackupFileName(header.backup_arn);
  }
  ProgressBar bar("backup", header.expected_records);
  auto record = backup::ExportTable(**store, *table, header, out,
                                    [&bar](int64_t done) { bar.Update(done); });
  if (!record) return Fail("backup", record.error().message());
  bar.Done(record->trailer.records);
  std::printf("%s\n%s\n", out.c_str(), header.backup_arn.c_str());
  return 0;
}

int Restore(const RestoreFlags& f) {
  auto reader = backup::BackupReader::Open(f.from);
  if (!reader) return Fail("restore", reader.error().message());
  backup::BackupRecord record;
  record.header = (*reader)->header();
  record.trailer = (*reader)->trailer();
  auto source = storage::DecodeTableDescriptor(record.header.table_descriptor);
  if (!source) return Fail("restore", "backup file " + f.from + " holds a corrupt table");
  record.source = std::move(*source);
  if (f.storage.empty() && !std::filesystem::is_directory(f.data_dir)) {
    return Fail("restore", "no data dir at " + f.data_dir);
  }
  storage::StoreOptions options;
  options.path = f.data_dir;
  options.storage = f.storage;
  auto store = storage::Store::Open(options);
  if (!store) {
    return Fail("restore", store.error().message() +
                               " (is a server running on it? Stop it first, or restore through "
                               "the server with RestoreTableFromBackup)");
  }
  SystemClock clock;
  ops::TableCatalog catalog(**store, clock);
  if (Status s = catalog.Load(); !s) return Fail("restore", s.error().message());
  backup::DropAbandonedRestores(catalog);
  if (catalog.Find(f.table) || catalog.Find(f.table, ops::Front::kTablestore)) {
    return Fail("restore", "Table already exists: " + f.table);
  }
  auto spec = backup::RestoredDescriptor(record, f.table, {}, clock.NowMs());
  if (!spec) return Fail("restore", spec.error().message());
  auto table = catalog.Create(std::move(*spec));
  if (!table) return Fail("restore", table.error().message());
  ops::ItemOps items(**store);
  std::atomic<bool> cancel{false};
  ProgressBar bar("restore", record.trailer.records);
  Status s = backup::ImportRecords(**store, items, catalog, **table, **reader, cancel,
                                   [&bar](int64_t done) { bar.Update(done); });
  if (!s) {
    ops::Front front = (*table)->tablestore ? ops::Front::kTablestore : ops::Front::kDynamoDb;
    (void)catalog.Delete(f.table, front);
    return Fail("restore", s.error().message() + " (nothing was restored)");
  }
  bar.Done(record.trailer.records);
  return 0;
}

}  // namespace

void AddBackupCommands(CLI::App& app, int* exit_code) {
  auto backup_flags = std::make_shared<BackupFlags>();
  CLI::App* backup = app.add_subcommand(
      "backup", "Write a backup of one table (items, indexes, TTL settings) to a file, with a "
                "progress bar. Works while a server runs on the data dir.");
  backup->add_option("--data-dir", backup_flags->data_dir, "The data dir (default: ./ttlstore-data)");
  backup->add_option("--storage", backup_flags->storage,
                     "Read the PostgreSQL database of this connection string (docs/storage.md)");
  backup->add_option("-t,--table", backup_flags->table, "Table to back up")->required();
  backup->add_option("-o,--out", backup_flags->out,
                     "Backup file to write (default: <data-dir>/backups/<id>.ttlbak, where "
                     "ListBackups and RestoreTableFromBackup find it)");
  backup->add_option("--name", backup_flags->name, "BackupName (default: <table>-backup)");
  backup->callback([backup_flags, exit_code] { *exit_code = Backup(*backup_flags); });

  auto restore_flags = std::make_shared<RestoreFlags>();
  CLI::App* restore = app.add_subcommand(
      "restore", "Restore a backup file into a new table, with a progress bar. Stop the server "
                 "first (or use RestoreTableFromBackup through it).");
  restore->add_option("--data-dir", restore_flags->data_dir, "The data dir (default: ./ttlstore-data)");
  restore->add_option("--storage", restore_flags->storage,
                      "Restore into the PostgreSQL database of this connection string");
  restore->add_option("--from", restore_flags->from, "Backup file to read")->required();
  restore->add_option("-t,--table", restore_flags->table, "Name of the new table")->required();
  restore->callback([restore_flags, exit_code] { *exit_code = Restore(*restore_flags); });
}

}  // namespace ttlstore::cli
