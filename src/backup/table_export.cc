#include "backup/table_export.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "backup/backups.h"
#include "backup/pitr_window.h"
#include "backup/record_file.h"
#include "backup/restore_lease.h"
#include "common/transient.h"

namespace ttlstore::backup {
namespace fs = std::filesystem;

const char* ExportFormatName(ExportFormat f) {
  return f == ExportFormat::kIon ? "ION" : "DYNAMODB_JSON";
}
const char* ExportTypeName(ExportType t) {
  return t == ExportType::kIncremental ? "INCREMENTAL_EXPORT" : "FULL_EXPORT";
}
const char* ExportViewName(ExportView v) {
  return v == ExportView::kNewImage ? "NEW_IMAGE" : "NEW_AND_OLD_IMAGES";
}
const char* ExportStatusName(ExportStatus s) {
  switch (s) {
    case ExportStatus::kInProgress: return "IN_PROGRESS";
    case ExportStatus::kCompleted: return "COMPLETED";
    case ExportStatus::kFailed: return "FAILED";
  }
  return "";
}

bool SameExportRequest(const ExportSpec& a, const ExportSpec& b) {
  return a.table_arn == b.table_arn && a.bucket == b.bucket && a.prefix == b.prefix &&
         a.bucket_owner == b.bucket_owner && a.sse_algorithm == b.sse_algorithm &&
         a.sse_given == b.sse_given && a.sse_kms_key_id == b.sse_kms_key_id &&
         a.format == b.format && a.type == b.type && a.export_ms_given == b.export_ms_given &&
         a.from_ms == b.from_ms && a.to_ms_given == b.to_ms_given && a.view == b.view &&
         a.view_given == b.view_given;
}

std::string ExportIdOf(const std::string& export_arn) {
  return export_arn.substr(export_arn.rfind('/') + 1);
}

std::string ExportFolderKey(const std::string& prefix, const std::string& export_id) {
  std::string key = prefix;
  if (!key.empty() && key.back() != '/') key += '/';
  return key + "AWSDynamoDB/" + export_id + "/";
}

// ---- record files ------------------------------------------------------------------------------

std::string EncodeExportRecord(const ExportRecord& r) {
  std::ostringstream o;
  auto put = [&](const char* name, const std::string& v) {
    o << name << '=' << EscapeRecordValue(v) << '\n';
  };
  auto num = [&](const char* name, int64_t v) { put(name, std::to_string(v)); };
  const ExportSpec& s = r.spec;
  put("arn", r.arn);
  put("status", ExportStatusName(r.status));
  put("table_id", r.table_id);
  num("start_ms", r.start_ms);
  num("end_ms", r.end_ms);
  num("item_count", r.item_count);
  num("billed_bytes", r.billed_bytes);
  put("manifest_key", r.manifest_key);
  put("failure_code", r.failure_code);
  put("failure_message", r.failure_message);
  put("table_arn", s.table_arn);
  put("bucket", s.bucket);
  put("prefix", s.prefix);
  put("bucket_owner", s.bucket_owner);
  put("sse_algorithm", s.sse_algorithm);
  num("sse_given", s.sse_given);
  put("sse_kms_key_id", s.sse_kms_key_id);
  put("client_token", s.client_token);
  put("format", ExportFormatName(s.format));
  put("type", ExportTypeName(s.type));
  num("type_given", s.type_given);
  num("export_ms", s.export_ms);
  num("export_ms_given", s.export_ms_given);
  num("from_ms", s.from_ms);
  num("to_ms", s.to_ms);
  num("to_ms_given", s.to_ms_given);
  put("view", ExportViewName(s.view));
  num("view_given", s.view_given);
  return o.str();
}

std::optional<ExportRecord> DecodeExportRecord(std::string_view text) {
  ExportRecord r;
  ExportSpec& s = r.spec;
  bool ok = true;
  auto num = [&ok](const std::string& v, int64_t* out) {
    try {
      size_t used = 0;
      *out = std::stoll(v, &used);
      ok &= used == v.size();
    } catch (...) {
      ok = false;
    }
  };
  auto flag = [&num](const std::string& v, bool* out) {
    int64_t n = 0;
    num(v, &n);
    *out = n != 0;
  };
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    size_t eq = line.find('=');
    if (eq == std::string_view::npos) return std::nullopt;
    const std::string name(line.substr(0, eq));
    const std::string v = UnescapeRecordValue(line.substr(eq + 1));
    if (name == "arn") r.arn = v;
    else if (name == "status") {
      r.status = v == "COMPLETED" ? ExportStatus::kCompleted
                 : v == "FAILED"  ? ExportStatus::kFailed
                                  : ExportStatus::kInProgress;
    } else if (name == "table_id") r.table_id = v;
    else if (name == "start_ms") num(v, &r.start_ms);
    else if (name == "end_ms") num(v, &r.end_ms);
    else if (name == "item_count") num(v, &r.item_count);
    else if (name == "billed_bytes") num(v, &r.billed_bytes);
    else if (name == "manifest_key") r.manifest_key = v;
    else if (name == "failure_code") r.failure_code = v;
    else if (name == "failure_message") r.failure_message = v;
    else if (name == "table_arn") s.table_arn = v;
    else if (name == "bucket") s.bucket = v;
    else if (name == "prefix") s.prefix = v;
    else if (name == "bucket_owner") s.bucket_owner = v;
    else if (name == "sse_algorithm") s.sse_algorithm = v;
    else if (name == "sse_given") flag(v, &s.sse_given);
    else if (name == "sse_kms_key_id") s.sse_kms_key_id = v;
    else if (name == "client_token") s.client_token = v;
    else if (name == "format") s.format = v == "ION" ? ExportFormat::kIon : ExportFormat::kDynamoDbJson;
    else if (name == "type") {
      s.type = v == "INCREMENTAL_EXPORT" ? ExportType::kIncremental : ExportType::kFull;
    } else if (name == "type_given") flag(v, &s.type_given);
    else if (name == "export_ms") num(v, &s.export_ms);
    else if (name == "export_ms_given") num(v, &s.export_ms_given);
    else if (name == "from_ms") num(v, &s.from_ms);
    else if (name == "to_ms") num(v, &s.to_ms);
    else if (name == "to_ms_given") num(v, &s.to_ms_given);
    else if (name == "view") s.view = v == "NEW_IMAGE" ? ExportView::kNewImage : ExportView::kNewAndOldImages;
    else if (name == "view_given") flag(v, &s.view_given);
  }
  if (!ok || r.arn.empty()) return std::nullopt;
  return r;
}

// ---- Exports -----------------------------------------------------------------------------------

namespace {

// The service's ClientToken window ("valid for 8 hours", ExportTableToPointInTime's reference).
constexpr int64_t kTokenWindowMs = 8LL * 3600 * 1000;
// The longest incremental period (developer guide: "up to 24 hours").
constexpr int64_t kMaxIncrementalMs = 24LL * 3600 * 1000;

Error InvalidTime(std::string m) { return Error(ErrorCode::kInvalidExportTime, std::move(m)); }

}  // namespace

std::string ExportLeaseUnit(const std::string& export_arn) {
  return "export/" + ExportIdOf(export_arn);
}

// A ClientToken names one export for its window: the same request gets it back (also once it
// has ended), any other is a conflict; nullopt: the token names none.
Result<std::optional<ExportRecord>> Exports::TokenAnswer(
    const std::map<std::string, ExportRecord>& records, const ExportSpec& spec, int64_t now) {
  for (const auto& [arn, old] : records) {
    if (old.spec.client_token != spec.client_token) continue;
    const int64_t since = old.end_ms > 0 ? old.end_ms : old.start_ms;
    if (now - since > kTokenWindowMs) continue;
    if (SameExportRequest(old.spec, spec)) return std::optional<ExportRecord>(old);
    return Error(ErrorCode::kExportConflict,
                 "Export conflict: Duplicate request detected with conflicting parameters");
  }
  return std::optional<ExportRecord>();
}

Exports::Exports(storage::Store& store, ops::TableCatalog& catalog, const Clock& clock,
                 std::string records_dir, std::string bucket_root, std::string account_id,
                 ExportLineFormat lines, int64_t max_window_ms, int64_t min_incremental_ms)
    : store_(store),
      catalog_(catalog),
      clock_(clock),
      job_records_(store, std::move(records_dir), "export"),
      bucket_root_(std::move(bucket_root)),
      account_id_(std::move(account_id)),
      lines_(std::move(lines)),
      max_window_ms_(max_window_ms),
      min_incremental_ms_(min_incremental_ms) {}

Exports::~Exports() {
  cancel_.store(true);
  WaitIdle();
}

void Exports::WaitIdle() {
  std::vector<Thread> running;
  {
    std::lock_guard lock(mu_);
    running.swap(running_);
  }
  running.clear();  // joins
}

Status Exports::Save(const ExportRecord& r) const {
  return job_records_.Save(ExportIdOf(r.arn), EncodeExportRecord(r));
}

Status Exports::ReloadLocked() {
  ASSIGN_OR_RETURN(read, job_records_.ReadAll<ExportRecord>(DecodeExportRecord));
  records_ = std::move(read);
  return Status::Ok();
}

Status Exports::Load() {
  std::lock_guard lock(mu_);
  RETURN_IF_ERROR(ReloadLocked());
  return FailAbandonedLocked();
}

Status Exports::FailAbandoned() {
  std::lock_guard lock(mu_);
  if (job_records_.shared()) RETURN_IF_ERROR(ReloadLocked());
  return FailAbandonedLocked();
}

Status Exports::FailAbandonedLocked() {
  for (auto& [arn, r] : records_) {
    if (r.status != ExportStatus::kInProgress) continue;
    // Shared records: an export another process (or this one) is running holds its lease.
    if (job_records_.shared() && JobUnderWay(keeper_, ExportLeaseUnit(arn))) continue;
    // The files it left never claim to be whole: a summary written just before the stop
    // goes too (its data may be complete, but its record never said so).
    const std::string folder = bucket_root_ + "/" + r.spec.bucket + "/" +
                               ExportFolderKey(r.spec.prefix, ExportIdOf(r.arn));
    std::error_code ec;
    fs::remove(folder + "manifest-summary.json", ec);
    fs::remove(folder + "manifest-summary.md5", ec);
    r.status = ExportStatus::kFailed;
    r.end_ms = clock_.NowMs();
    r.failure_code = "InternalServerError";
    r.failure_message =
        "The server stopped before the export finished; its files are incomplete. Run the "
        "export again.";
    spdlog::warn("event=export_abandoned export={}", r.arn);
    RETURN_IF_ERROR(Save(r));
  }
  return Status::Ok();
}

Status Exports::CheckTimes(const model::TableDescriptor& t, ExportSpec& spec, int64_t now) const {
  RestorableWindow window = WindowOf(*t.pitr, now, max_window_ms_);
  if (spec.type == ExportType::kFull) {
    spec.export_ms = spec.export_ms_given >= 0 ? spec.export_ms_given : now;
    if (spec.export_ms > now || spec.export_ms < window.earliest_ms) {
      return InvalidTime("Export Time is invalid");
    }
    return Status::Ok();
  }
  spec.to_ms = spec.to_ms_given >= 0 ? spec.to_ms_given : now;
  if (spec.from_ms < window.earliest_ms) {
    return InvalidTime(
        "Incremental export period from time cannot be less than the table creation time : " +
        IsoSeconds(spec.from_ms));
  }
  if (spec.to_ms > now) {
    return InvalidTime(
        "Incremental export period to time cannot be greater than the current time : " +
        IsoSeconds(spec.to_ms));
  }
  if (spec.to_ms - spec.from_ms < min_incremental_ms_) {
    return InvalidTime(
        "Difference between export period from time and export period to time is less than 15 "
        "minutes");
  }
  if (spec.to_ms - spec.from_ms > kMaxIncrementalMs) {
    return InvalidTime(
        "Difference between export period from time and export period to time is more than 24 "
        "hours");
  }
  return Status::Ok();
}

Result<ExportRecord> Exports::Start(ExportSpec spec, const std::string& table_name) {
  const int64_t now = clock_.NowMs();
  ops::TablePtr table = catalog_.Find(table_name);
  if (!table) return Error(ErrorCode::kTableNotFound, "Table not found: " + spec.table_arn);
  if (!table->pitr) {
    return Error(ErrorCode::kPointInTimeRecoveryUnavailable,
                 "Point in time recovery is not enabled for table '" + table_name + "'");
  }
  // A copy: a held catalog version would hold up the table's DeleteTable and UpdateTable.
  auto descriptor = std::make_shared<const model::TableDescriptor>(*table);
  table.reset();
  ExportRecord r;
  std::shared_ptr<JobLease> lease;
  {
    // The token check and the new record are one step, so two replays at once are one export:
    // under mu_ in one process, and with shared records also in one read-modify-write that
    // holds the token's key (below), so through two processes too.
    std::lock_guard lock(mu_);
    if (job_records_.shared()) RETURN_IF_ERROR(ReloadLocked());
    ASSIGN_OR_RETURN(earlier, TokenAnswer(records_, spec, now));
    if (earlier) return *earlier;
    RETURN_IF_ERROR(CheckTimes(*descriptor, spec, now));
    r.start_ms = now;
    r.arn = spec.table_arn + "/export/" + NewArnId(now);
    r.table_id = descriptor->uuid;
    r.spec = std::move(spec);
    // Held before the record says IN_PROGRESS, released after its last write: FailAbandoned
    // never takes a running export for an abandoned one.
    lease = std::make_shared<JobLease>(keeper_, ExportLeaseUnit(r.arn));
    if (!lease->held()) return Error::Internal("the export's lease could not be taken");
    if (job_records_.shared()) {
      std::optional<ExportRecord> replayed;
      Status saved = store_.ReadModifyWrite(
          {{storage::Family::kLeases, job_records_.TokenLockKey(r.spec.client_token)}},
          [&](const storage::RmwReads&, storage::WriteBatch& batch) -> Status {
            replayed.reset();  // assigned afresh: the function may run again
            ASSIGN_OR_RETURN(read, job_records_.ReadAll<ExportRecord>(DecodeExportRecord));
            ASSIGN_OR_RETURN(answer, TokenAnswer(read, r.spec, now));
            if (answer) {
              replayed = std::move(*answer);
              return Status::Ok();
            }
            job_records_.SaveIn(batch, ExportIdOf(r.arn), EncodeExportRecord(r));
            return Status::Ok();
          });
      RETURN_IF_ERROR(saved);
      if (replayed) return *replayed;  // started meanwhile through another process
    } else {
      RETURN_IF_ERROR(Save(r));
    }
    records_.emplace(r.arn, r);
  }
  // Every write dated at or before the point must have committed before the views open (a
  // crash meanwhile leaves the record IN_PROGRESS: FAILED at the next start).
  const bool full = r.spec.type == ExportType::kFull;
  const int64_t point = full ? r.spec.export_ms : r.spec.to_ms;
  int64_t wait_ms = point + kCommitLagMs - clock_.NowMs();
  if (wait_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(wait_ms));
  const int64_t log_from = full ? r.spec.export_ms + 1 : r.spec.from_ms;
  auto views = std::make_shared<PitrViews>(OpenPitrViews(store_, descriptor->id, log_from));
  std::lock_guard lock(mu_);
  spdlog::info("event=export_started export={} type={} bucket={} prefix=\"{}\" format={}", r.arn,
               ExportTypeName(r.spec.type), r.spec.bucket, r.spec.prefix,
               ExportFormatName(r.spec.format));
  running_.emplace_back("export", [this, r, views, descriptor, log_from, lease] {
    // An outage of the storage (a database restarting or failing over) starts the export again
    // on new views while the table's log still reaches back to where the views read from: the
    // files are a function of the table's data and the times only. Each attempt starts from an
    // empty data folder (WriteExportFiles); only the last writes the manifests.
    Result<ExportOutcome> outcome = Error::Internal("export not run");
    bool first = true;
    (void)RetryWhileUnavailable(
        cancel_,
        [&]() -> Status {
          if (!first) {
            ops::TablePtr now = catalog_.Find(descriptor->name);
            if (!HistoryStillReaches(now.get(), descriptor->id, log_from, clock_.NowMs(),
                                     max_window_ms_)) {
              outcome = Error::Internal("the table's change log no longer reaches the export's "
                                        "time");
              return Status::Ok();
            }
            *views = OpenPitrViews(store_, descriptor->id, log_from);
          }
          first = false;
          outcome = WriteExportFiles(*descriptor, *views, r, bucket_root_, account_id_, lines_,
                                     clock_, cancel_, [this, last = int64_t{0}](int64_t n) mutable {
                                       items_written_ += n - last;
                                       last = n;
                                     });
          if (outcome) return Status::Ok();
          return outcome.error();
        },
        [&](const Status& failure) {
          spdlog::warn("event=export_retry export={} message=\"{}\"", r.arn,
                       failure.error().message());
        });
    views->items.reset();
    views->log.reset();
    if (!outcome && cancel_.load()) return;  // still IN_PROGRESS on disk: FAILED at next start
    ExportRecord done = r;
    done.end_ms = clock_.NowMs();
    if (!outcome) {
      done.status = ExportStatus::kFailed;
      done.failure_code = "InternalServerError";
      done.failure_message = outcome.error().message();
    } else if (outcome->failure_code == "S3NoSuchBucket") {
      done.status = ExportStatus::kFailed;
      done.failure_code = outcome->failure_code;
      done.failure_message =
          "The specified bucket does not exist (Service: Amazon S3; Status Code: 404; Error "
          "Code: NoSuchBucket)";
    } else if (outcome->failure_code == "S3AccessDenied") {
      done.status = ExportStatus::kFailed;
      done.failure_code = outcome->failure_code;
      done.failure_message =
          "Access Denied (Service: Amazon S3; Status Code: 403; Error Code: AccessDenied)";
    } else {
      done.status = ExportStatus::kCompleted;
      done.end_ms = outcome->end_ms;
      done.item_count = outcome->item_count;
      done.billed_bytes = outcome->billed_bytes;
      done.manifest_key = outcome->manifest_key;
    }
    if (Status s = Save(done); !s) {
      spdlog::error("event=export_record_write_failed export={} message=\"{}\"", done.arn,
                    s.error().message());
    }
    spdlog::info("event=export_done export={} status={} items={} failure=\"{}\"", done.arn,
                 ExportStatusName(done.status), done.item_count, done.failure_message);
    std::lock_guard lock(mu_);
    records_[done.arn] = std::move(done);
  });
  return r;
}

Result<ExportRecord> Exports::Find(const std::string& arn) {
  std::lock_guard lock(mu_);
  if (job_records_.shared()) RETURN_IF_ERROR(ReloadLocked());
  auto it = records_.find(arn);
  if (it == records_.end()) {
    // The service's text names it twice (measured; docs/compatibility.md).
    return Error(ErrorCode::kExportNotFound, "Export not found: Export not found: " + arn);
  }
  return it->second;
}

Result<std::vector<ExportRecord>> Exports::List() {
  std::lock_guard lock(mu_);
  if (job_records_.shared()) RETURN_IF_ERROR(ReloadLocked());
  std::vector<ExportRecord> out;
  for (const auto& [arn, r] : records_) out.push_back(r);
  std::sort(out.begin(), out.end(), [](const ExportRecord& a, const ExportRecord& b) {
    const std::string ia = ExportIdOf(a.arn), ib = ExportIdOf(b.arn);
    return ia != ib ? ia > ib : a.arn > b.arn;
  });
  return out;
}

}  // namespace ttlstore::backup
