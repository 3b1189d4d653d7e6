// ImportTable (issue 22): a new table loaded from files in DynamoDB's import layout (DYNAMODB_JSON,
// ION or CSV lines; NONE, GZIP or ZSTD), read from a local folder that stands for S3: bucket B
// is the folder <bucket root>/B, and the objects are the files below it whose path relative to
// it (with '/') starts with S3KeyPrefix, read in key order, as S3 lists them.
//
// What the service does, as ScyllaDB's conformance test measured it against AWS
// (test/alternator/test_import.py, cited in docs/compatibility.md), and ttlstore does too:
// - The table is created at once (TableStatus CREATING) and kept whatever happens to its items;
//   only a bucket that does not exist fails the import before any item (S3NoSuchBucket) and
//   leaves no table. A prefix matching nothing completes with an empty table.
// - A line that does not become an item (bad JSON or Ion, no Item member, a key missing or of the
//   wrong type, an item over 400 KB) is one error, logged, and abandons the rest of its object.
//   An import with any error ends FAILED with ItemValidationError; its table keeps the items that
//   passed. ProcessedItemCount = ImportedItemCount + ErrorCount, counting writes (duplicates
//   overwrite, in file order here). The counters and ProcessedSizeBytes (uncompressed bytes) are
//   published when the import ends, as the service does.
// Items go through the normal write path (ItemOps::AddPut, in batches under the items' locks), so
// secondary indexes, the expiry index and stats are built as for any write.
//
// Crash: the table carries the restore-in-progress mark while it loads, so a stop leaves it
// marked and the next start drops it (DropAbandonedRestores); the import's record, still
// IN_PROGRESS on disk, is then marked FAILED by Load. Records are files <records dir>/<id>.import,
// replaced whole by rename.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "backup/job_records.h"
#include "common/clock.h"
#include "common/result.h"
#include "common/thread.h"
#include "dataio/compressed_reader.h"
#include "model/attribute_value.h"
#include "model/table.h"
#include "ops/item_ops.h"
#include "ops/table_ops.h"
#include "storage/lease_keeper.h"
#include "storage/store.h"

namespace ttlstore::backup {

enum class ImportFormat { kDynamoDbJson, kIon, kCsv };
enum class ImportStatus { kInProgress, kCompleted, kFailed };

const char* ImportFormatName(ImportFormat f);
const char* CompressionName(dataio::Compression c);
const char* ImportStatusName(ImportStatus s);

// What ImportTable was asked, kept to be echoed by DescribeImport.
struct ImportSpec {
  std::string bucket, prefix, bucket_owner;
  ImportFormat format = ImportFormat::kDynamoDbJson;
  dataio::Compression compression = dataio::Compression::kNone;
  char csv_delimiter = ',';
  std::vector<std::string> csv_header;  // empty: the first record of each object is the header
  std::string client_token;
  std::string table_creation_json;  // TableCreationParameters as the request gave it (JSON)
  std::string format_options_json;  // InputFormatOptions as given (JSON), "" if absent
};

struct ImportRecord {
  std::string arn;
  ImportSpec spec;
  ImportStatus status = ImportStatus::kInProgress;
  std::string table_name, table_arn, table_id;
  int64_t start_ms = 0;
  int64_t end_ms = 0;  // 0 while in progress
  int64_t processed_items = 0, imported_items = 0, errors = 0;
  int64_t processed_bytes = -1;  // -1: none read yet (the API then leaves it out)
  std::string failure_code, failure_message;
};

// Turns one DYNAMODB_JSON line into an item (api/ owns JSON); errors name what is wrong.
using JsonLineDecoder = std::function<Result<model::Item>(std::string_view line)>;

// The lease that orders one ClientToken's ImportTable calls through several processes.
std::string ImportTokenLeaseUnit(const std::string& client_token);

class Imports {
 public:
  Imports(storage::Store& store, ops::TableCatalog& catalog, ops::ItemOps& items,
          const Clock& clock, std::string records_dir, std::string bucket_root,
          JsonLineDecoder json_lines);
  ~Imports();  // stops the imports under way (their tables are dropped at the next start)

  // Reads the records (creating the folder); marks FAILED those a stop interrupted.
  Status Load();
  // Imports run under their table's lease (backup/restore_lease.h); none without a keeper.
  void set_lease_keeper(storage::LeaseKeeper* keeper) { keeper_ = keeper; }
  // Marks FAILED the imports IN_PROGRESS that no process runs any more: on one process all of
  // them (Load); with records in a shared store (backup/job_records.h), those whose table's
  // lease no process holds (the recovery pass, after DropAbandonedRestores dropped the table).
  Status FailAbandoned();

  // ImportTable: creates `table` (CREATING) and starts loading it. Errors, in the service's
  // order: ImportConflictException for a ClientToken of a running import with another table
  // name (the same name returns that import), ResourceInUseException if the table exists.
  Result<ImportRecord> Start(ImportSpec spec, model::TableDescriptor table,
                             const std::string& table_arn);
  // ImportNotFoundException if unknown.
  // Shared records are read again first (another process may have started or ended one).
  Result<ImportRecord> Find(const std::string& arn);
  // Oldest first.
  Result<std::vector<ImportRecord>> List();

  // Waits for the imports under way (tests, the CLI and shutdown).
  void WaitIdle();
  // Items written by the imports under way (the CLI's progress bar).
  int64_t items_written() const { return items_written_.load(); }

 private:
  void Run(const std::string& arn, ops::TablePtr table);
  Status Save(const ImportRecord& r) const;
  // Shared records: reads them all again into records_. REQUIRES: mu_.
  Status ReloadLocked();
  Status FailAbandonedLocked();

  storage::Store& store_;
  storage::LeaseKeeper* keeper_ = nullptr;
  ops::TableCatalog& catalog_;
  ops::ItemOps& items_;
  const Clock& clock_;
  const JobRecords job_records_;
  const std::string bucket_root_;
  const JsonLineDecoder json_lines_;
  mutable std::mutex mu_;
  std::map<std::string, ImportRecord> records_;  // GUARDED_BY(mu_), by ARN
  std::vector<Thread> running_;                   // GUARDED_BY(mu_)
  std::atomic<bool> cancel_{false};
  std::atomic<int64_t> items_written_{0};
};

// Record files: one "name=value" line per field, `\` escaping backslash and newline.
std::string EncodeImportRecord(const ImportRecord& r);
std::optional<ImportRecord> DecodeImportRecord(std::string_view text);

}  // namespace ttlstore::backup
