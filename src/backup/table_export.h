// ExportTableToPointInTime (issue 22): a PITR-enabled table's items as they were at a time
// (FULL_EXPORT), or the items written between two times (INCREMENTAL_EXPORT), written in the
// service's S3 layout (dataio/export_files.h) into a local folder that stands for S3: bucket B
// is <bucket root>/B, and an S3 key is a path below it. ImportTable reads the same layout, so an
// export's data/ folder imports back as it is.
//
// - The request opens the views it reads (backup/pitr_view.h) before it returns, once every
//   write dated at or before the point has committed (kCommitLagMs, as restores), so what an
//   export holds is fixed when it is accepted; a thread of its own then writes the files.
// - Files: `_started` first; then the data files (gzipped lines, a new file every
//   kDataFileBytes of lines; an empty table gets one empty file, as the service's empty
//   partitions do), each fsynced; then manifest-files.json and its .md5; then, last,
//   manifest-summary.json and its .md5. Only then is the record marked COMPLETED. So a
//   manifest-summary.json exists only for an export whose files are whole.
// - Crash: a record still IN_PROGRESS at start-up is marked FAILED (Load), and a summary
//   manifest a crash left between its write and the record's is removed with it: the files of
//   an interrupted export never claim to be complete (docs/background-jobs.md).
// - Several processes on one database: the records are in the store (backup/job_records.h),
//   so every process answers DescribeExport and ListExports for every export; the process
//   running an export holds the lease `export/<id>` from before its record is first written
//   until its last write, and an export IN_PROGRESS whose lease no process holds (its process
//   died) is marked FAILED by FailAbandoned (the recovery pass, one process at a time), as a
//   start does on one process. The files go to --export-dir, which the processes must share
//   (as they would share S3).
// Records: backup/job_records.h.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "backup/job_records.h"
#include "backup/pitr_view.h"
#include "common/clock.h"
#include "common/result.h"
#include "common/thread.h"
#include "model/attribute_value.h"
#include "model/table.h"
#include "ops/table_ops.h"
#include "storage/lease_keeper.h"
#include "storage/store.h"

namespace ttlstore::backup {

enum class ExportFormat { kDynamoDbJson, kIon };
enum class ExportType { kFull, kIncremental };
enum class ExportView { kNewImage, kNewAndOldImages };
enum class ExportStatus { kInProgress, kCompleted, kFailed };

const char* ExportFormatName(ExportFormat f);
const char* ExportTypeName(ExportType t);
const char* ExportViewName(ExportView v);
const char* ExportStatusName(ExportStatus s);

// The request as given (the ClientToken check compares these) and as resolved.
struct ExportSpec {
  std::string table_arn;
  std::string bucket, prefix, bucket_owner, sse_algorithm, sse_kms_key_id, client_token;
  ExportFormat format = ExportFormat::kDynamoDbJson;
  ExportType type = ExportType::kFull;
  bool type_given = false;      // DescribeExport echoes ExportType only when the request had it
  int64_t export_ms = 0;        // FULL_EXPORT: ExportTime (resolved: now when not given)
  int64_t export_ms_given = -1; // as given, -1: absent
  int64_t from_ms = 0, to_ms = 0;  // INCREMENTAL_EXPORT: [ExportFromTime, ExportToTime)
  int64_t to_ms_given = -1;
  ExportView view = ExportView::kNewAndOldImages;
  bool view_given = false;
  bool sse_given = false;
};

// True when a replay of `a` under the same ClientToken is the same request.
bool SameExportRequest(const ExportSpec& a, const ExportSpec& b);

struct ExportRecord {
  std::string arn;
  ExportSpec spec;
  ExportStatus status = ExportStatus::kInProgress;
  std::string table_id;  // the table's uuid
  int64_t start_ms = 0, end_ms = 0;
  int64_t item_count = 0, billed_bytes = 0;
  std::string manifest_key;  // S3 key of manifest-summary.json, once COMPLETED
  std::string failure_code, failure_message;
};

std::string EncodeExportRecord(const ExportRecord& r);
std::optional<ExportRecord> DecodeExportRecord(std::string_view text);

// The id an export ARN ends with, "<ms>-<hex>".
std::string ExportIdOf(const std::string& export_arn);
// The lease of a running export on a shared store: "export/<id>".
std::string ExportLeaseUnit(const std::string& export_arn);
// The S3 key of the export's folder: "<prefix>/AWSDynamoDB/<id>/" (a prefix ending in '/' is
// not doubled; no prefix: "AWSDynamoDB/<id>/").
std::string ExportFolderKey(const std::string& prefix, const std::string& export_id);

// The DynamoDB JSON lines (api/ owns JSON): a full export's `{"Item":{...}}`, an incremental
// export's `{"Metadata":{...},"Keys":{...},"OldImage":{...},"NewImage":{...}}`.
struct ExportLineFormat {
  std::function<std::string(const model::Item& item)> item_line;
  std::function<std::string(int64_t write_micros, const model::Item& keys,
                            const model::Item* old_image, const model::Item* new_image)>
      change_line;
};

// What WriteExportFiles did.
struct ExportOutcome {
  int64_t item_count = 0;
  int64_t billed_bytes = 0;
  std::string manifest_key;
  int64_t end_ms = 0;        // the summary's endTime
  std::string failure_code;  // set: the export failed this way (message in the Error)
};

// A data file is closed and the next one begun once this many uncompressed bytes are in it.
inline constexpr uint64_t kDataFileBytes = 64ULL << 20;

// Writes the export `r` of `table` from `views` under `bucket_root` (see the header). Progress
// gets the items written so far. Errors: S3NoSuchBucket / S3AccessDenied (outcome's
// failure_code, with an Error carrying the service's message) and storage or file errors.
Result<ExportOutcome> WriteExportFiles(const model::TableDescriptor& table, PitrViews& views,
                                       const ExportRecord& r, const std::string& bucket_root,
                                       const std::string& account_id,
                                       const ExportLineFormat& lines, const Clock& clock,
                                       const std::atomic<bool>& cancel,
                                       const std::function<void(int64_t)>& progress);

class Exports {
 public:
  // `min_incremental_ms`: the shortest incremental period (the service's 15 minutes; lowered
  // only for tests). `max_window_ms`: --pitr-window-hours.
  Exports(storage::Store& store, ops::TableCatalog& catalog, const Clock& clock,
          std::string records_dir, std::string bucket_root, std::string account_id,
          ExportLineFormat lines, int64_t max_window_ms, int64_t min_incremental_ms);
  ~Exports();  // stops the exports under way (marked FAILED at the next start)

  // Exports run under their lease, `export/<id>` (none without a keeper). Call before Load.
  void set_lease_keeper(storage::LeaseKeeper* keeper) { keeper_ = keeper; }
  // Reads the records (creating the folder); marks FAILED those a stop interrupted.
  Status Load();
  // Marks FAILED the exports IN_PROGRESS that no process runs any more (FailAbandoned's rule
  // above; on one process, all of them: Load).
  Status FailAbandoned();

  // Checks, in the service's order after the request's shape: the table (TableNotFound), its
  // PITR (PointInTimeRecoveryUnavailable), the ClientToken (same request: that export;
  // otherwise ExportConflict), the times (InvalidExportTime); then opens the views and starts
  // writing. `table_name` is the name the ARN names.
  Result<ExportRecord> Start(ExportSpec spec, const std::string& table_name);
  // ExportNotFoundException if unknown.
  // Shared records are read again first (another process may have started or ended one).
  Result<ExportRecord> Find(const std::string& arn);
  // Newest first.
  Result<std::vector<ExportRecord>> List();
  // Items written by the exports under way (the CLI's progress bar).
  int64_t items_written() const { return items_written_.load(); }
  // Waits for the exports under way (tests, the CLI and shutdown).
  void WaitIdle();

 private:
  Status Save(const ExportRecord& r) const;
  static Result<std::optional<ExportRecord>> TokenAnswer(
      const std::map<std::string, ExportRecord>& records, const ExportSpec& spec, int64_t now);
  // Shared records: reads them all again into records_. REQUIRES: mu_.
  Status ReloadLocked();
  Status FailAbandonedLocked();
  Status CheckTimes(const model::TableDescriptor& t, ExportSpec& spec, int64_t now) const;

  storage::Store& store_;
  ops::TableCatalog& catalog_;
  const Clock& clock_;
  const JobRecords job_records_;
  const std::string bucket_root_, account_id_;
  storage::LeaseKeeper* keeper_ = nullptr;
  const ExportLineFormat lines_;
  const int64_t max_window_ms_, min_incremental_ms_;
  mutable std::mutex mu_;
  std::map<std::string, ExportRecord> records_;  // GUARDED_BY(mu_), by ARN
  std::vector<Thread> running_;                   // GUARDED_BY(mu_)
  std::atomic<bool> cancel_{false};
  std::atomic<int64_t> items_written_{0};
};

}  // namespace ttlstore::backup
