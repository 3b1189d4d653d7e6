#include "backup/table_import.h"
#include "backup/restore_lease.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "backup/backups.h"
#include "backup/record_file.h"
#include "common/transient.h"
#include "dataio/csv_item.h"
#include "dataio/ion_item.h"
#include "dataio/record_reader.h"
#include "model/item_size.h"
#include "storage/key_codec.h"

namespace ttlstore::backup {
namespace fs = std::filesystem;

const char* ImportFormatName(ImportFormat f) {
  switch (f) {
    case ImportFormat::kDynamoDbJson: return "DYNAMODB_JSON";
    case ImportFormat::kIon: return "ION";
    case ImportFormat::kCsv: return "CSV";
  }
  return "";
}

const char* CompressionName(dataio::Compression c) {
  switch (c) {
    case dataio::Compression::kNone: return "NONE";
    case dataio::Compression::kGzip: return "GZIP";
    case dataio::Compression::kZstd: return "ZSTD";
  }
  return "";
}

const char* ImportStatusName(ImportStatus s) {
  switch (s) {
    case ImportStatus::kInProgress: return "IN_PROGRESS";
    case ImportStatus::kCompleted: return "COMPLETED";
    case ImportStatus::kFailed: return "FAILED";
  }
  return "";
}

namespace {

constexpr size_t kBatchItems = 100;
// The service's ClientToken window ("valid for 8 hours", ImportTable's API reference).
constexpr int64_t kTokenWindowMs = 8LL * 3600 * 1000;

std::string IdOf(const std::string& arn) { return arn.substr(arn.rfind('/') + 1); }

// The objects of `prefix` in `bucket_dir`: regular files whose path relative to it starts with
// the prefix, in key order.
std::vector<std::pair<std::string, std::string>> ListObjects(const fs::path& bucket_dir,
                                                             const std::string& prefix) {
  std::vector<std::pair<std::string, std::string>> out;  // key, path
  std::error_code ec;
  for (fs::recursive_directory_iterator it(bucket_dir, ec), end; !ec && it != end;
       it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    std::string key = fs::relative(it->path(), bucket_dir, ec).generic_string();
    if (key.rfind(prefix, 0) == 0) out.emplace_back(key, it->path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::string ImportTokenLeaseUnit(const std::string& client_token) {
  return "import-token/" + client_token;
}

std::string EncodeImportRecord(const ImportRecord& r) {
  std::ostringstream o;
  auto put = [&](const char* name, const std::string& v) { o << name << '=' << EscapeRecordValue(v) << '\n'; };
  put("arn", r.arn);
  put("status", ImportStatusName(r.status));
  put("table_name", r.table_name);
  put("table_arn", r.table_arn);
  put("table_id", r.table_id);
  put("start_ms", std::to_string(r.start_ms));
  put("end_ms", std::to_string(r.end_ms));
  put("processed_items", std::to_string(r.processed_items));
  put("imported_items", std::to_string(r.imported_items));
  put("errors", std::to_string(r.errors));
  put("processed_bytes", std::to_string(r.processed_bytes));
  put("failure_code", r.failure_code);
  put("failure_message", r.failure_message);
  put("bucket", r.spec.bucket);
  put("prefix", r.spec.prefix);
  put("bucket_owner", r.spec.bucket_owner);
  put("format", ImportFormatName(r.spec.format));
  put("compression", CompressionName(r.spec.compression));
  put("csv_delimiter", std::string(1, r.spec.csv_delimiter));
  for (const auto& h : r.spec.csv_header) put("csv_header", h);
  put("client_token", r.spec.client_token);
  put("table_creation_json", r.spec.table_creation_json);
  put("format_options_json", r.spec.format_options_json);
  return o.str();
}

std::optional<ImportRecord> DecodeImportRecord(std::string_view text) {
  ImportRecord r;
  auto num = [](const std::string& v, int64_t* out) {
    try {
      size_t used = 0;
      *out = std::stoll(v, &used);
      return used == v.size();
    } catch (...) {
      return false;
    }
  };
  bool ok = true;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    size_t eq = line.find('=');
    if (eq == std::string_view::npos) return std::nullopt;
    std::string name(line.substr(0, eq));
    std::string v = UnescapeRecordValue(line.substr(eq + 1));
    if (name == "arn") r.arn = v;
    else if (name == "status") {
      r.status = v == "COMPLETED" ? ImportStatus::kCompleted
                 : v == "FAILED"  ? ImportStatus::kFailed
                                  : ImportStatus::kInProgress;
    } else if (name == "table_name") r.table_name = v;
    else if (name == "table_arn") r.table_arn = v;
    else if (name == "table_id") r.table_id = v;
    else if (name == "start_ms") ok &= num(v, &r.start_ms);
    else if (name == "end_ms") ok &= num(v, &r.end_ms);
    else if (name == "processed_items") ok &= num(v, &r.processed_items);
    else if (name == "imported_items") ok &= num(v, &r.imported_items);
    else if (name == "errors") ok &= num(v, &r.errors);
    else if (name == "processed_bytes") ok &= num(v, &r.processed_bytes);
    else if (name == "failure_code") r.failure_code = v;
    else if (name == "failure_message") r.failure_message = v;
    else if (name == "bucket") r.spec.bucket = v;
    else if (name == "prefix") r.spec.prefix = v;
    else if (name == "bucket_owner") r.spec.bucket_owner = v;
    else if (name == "format") {
      r.spec.format = v == "ION"   ? ImportFormat::kIon
                      : v == "CSV" ? ImportFormat::kCsv
                                   : ImportFormat::kDynamoDbJson;
    } else if (name == "compression") {
      r.spec.compression = v == "GZIP"   ? dataio::Compression::kGzip
                           : v == "ZSTD" ? dataio::Compression::kZstd
                                         : dataio::Compression::kNone;
    } else if (name == "csv_delimiter") r.spec.csv_delimiter = v.empty() ? ',' : v[0];
    else if (name == "csv_header") r.spec.csv_header.push_back(v);
    else if (name == "client_token") r.spec.client_token = v;
    else if (name == "table_creation_json") r.spec.table_creation_json = v;
    else if (name == "format_options_json") r.spec.format_options_json = v;
  }
  if (!ok || r.arn.empty()) return std::nullopt;
  return r;
}

// ---- Imports -----------------------------------------------------------------------------------

Imports::Imports(storage::Store& store, ops::TableCatalog& catalog, ops::ItemOps& items,
                 const Clock& clock, std::string records_dir, std::string bucket_root,
                 JsonLineDecoder json_lines)
    : store_(store),
      catalog_(catalog),
      items_(items),
      clock_(clock),
      job_records_(store, std::move(records_dir), "import"),
      bucket_root_(std::move(bucket_root)),
      json_lines_(std::move(json_lines)) {}

Imports::~Imports() {
  cancel_.store(true);
  WaitIdle();
}

void Imports::WaitIdle() {
  std::vector<Thread> running;
  {
    std::lock_guard lock(mu_);
    running.swap(running_);
  }
  running.clear();  // joins
}

Status Imports::Save(const ImportRecord& r) const {
  return job_records_.Save(IdOf(r.arn), EncodeImportRecord(r));
}

Status Imports::ReloadLocked() {
  ASSIGN_OR_RETURN(read, job_records_.ReadAll<ImportRecord>(DecodeImportRecord));
  records_ = std::move(read);
  return Status::Ok();
}

Status Imports::Load() {
  std::lock_guard lock(mu_);
  RETURN_IF_ERROR(ReloadLocked());
  return FailAbandonedLocked();
}

Status Imports::FailAbandoned() {
  std::lock_guard lock(mu_);
  if (job_records_.shared()) RETURN_IF_ERROR(ReloadLocked());
  return FailAbandonedLocked();
}

Status Imports::FailAbandonedLocked() {
  for (auto& [arn, r] : records_) {
    if (r.status != ImportStatus::kInProgress) continue;
    // Shared records: an import another process (or this one) is running holds its table's
    // lease. Otherwise its table, still marked, was dropped by DropAbandonedRestores first.
    if (job_records_.shared() && RestoreUnderWay(keeper_, r.table_name)) continue;
    r.status = ImportStatus::kFailed;
    r.end_ms = clock_.NowMs();
    r.failure_code = "InternalServerError";
    r.failure_message =
        "The server stopped before the import finished; the partial table was dropped. Run "
        "the import again.";
    spdlog::warn("event=import_abandoned import={} table={}", r.arn, r.table_name);
    RETURN_IF_ERROR(Save(r));
  }
  return Status::Ok();
}

Result<ImportRecord> Imports::Start(ImportSpec spec, model::TableDescriptor table,
                                    const std::string& table_arn) {
  // With records in the database, one ClientToken's imports go one at a time through every
  // process: the token's lease is held from before its records are read until the new record
  // is saved, so a replay sent to another process at the same moment waits for it and gets
  // that import back, as in one process (where mu_ orders them).
  std::optional<JobLease> token_lease;
  if (job_records_.shared() && keeper_ && !spec.client_token.empty()) {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    for (;;) {
      token_lease.emplace(keeper_, ImportTokenLeaseUnit(spec.client_token));
      if (token_lease->held()) break;
      token_lease.reset();
      if (std::chrono::steady_clock::now() > give_up) {
        return Error(ErrorCode::kResourceInUse,
                     "Another import with this ClientToken is starting; try again.");
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  const int64_t now = clock_.NowMs();
  std::lock_guard lock(mu_);
  if (job_records_.shared()) RETURN_IF_ERROR(ReloadLocked());
  // A ClientToken names one import for its window; while that import runs, a replay with the
  // same table gets it back, and another table is a conflict (ScyllaDB's measurements).
  for (const auto& [arn, r] : records_) {
    if (r.spec.client_token != spec.client_token || r.status != ImportStatus::kInProgress ||
        now - r.start_ms > kTokenWindowMs) {
      continue;
    }
    if (r.table_name == table.name) return r;
    return Error(ErrorCode::kImportConflict,
                 "Duplicate request detected with conflicting parameters");
  }
  if (catalog_.Find(table.name) || catalog_.Find(table.name, ops::Front::kTablestore)) {
    return Error(ErrorCode::kResourceInUse, "Table already exists: " + table.name);
  }
  model::RestoreSummary loading;  // no source: not a restore, only the loading mark
  loading.restore_time_ms = now;
  loading.in_progress = true;
  table.restore = loading;
  // Held until the import's thread ends: another process starting meanwhile leaves the table.
  auto lease = std::make_shared<RestoreLease>(keeper_, table.name);
  if (!lease->held()) return Error(ErrorCode::kResourceInUse, "Table already exists: " + table.name);
  auto created = catalog_.Create(std::move(table));
  if (!created) return std::move(created).error();
  ops::TablePtr t = *created;
  ImportRecord r;
  r.arn = table_arn + "/import/" + NewArnId(now);
  r.spec = std::move(spec);
  r.table_name = t->name;
  r.table_arn = table_arn;
  r.table_id = t->uuid;
  r.start_ms = now;
  if (Status s = Save(r); !s) {
    (void)catalog_.Delete(t->name);
    return std::move(s).error();
  }
  records_.emplace(r.arn, r);
  spdlog::info("event=import_started import={} table={} bucket={} prefix=\"{}\" format={}", r.arn,
               r.table_name, r.spec.bucket, r.spec.prefix, ImportFormatName(r.spec.format));
  running_.emplace_back("import", [this, arn = r.arn, t, lease]() mutable {
    Run(arn, t);
    lease.reset();  // done (or stopping: then the next start drops the partial table)
  });
  return r;
}

Result<ImportRecord> Imports::Find(const std::string& arn) {
  std::lock_guard lock(mu_);
  if (job_records_.shared()) RETURN_IF_ERROR(ReloadLocked());
  auto it = records_.find(arn);
  if (it == records_.end()) {
    return Error(ErrorCode::kImportNotFound, "Import not found: " + arn);
  }
  return it->second;
}

Result<std::vector<ImportRecord>> Imports::List() {
  std::lock_guard lock(mu_);
  if (job_records_.shared()) RETURN_IF_ERROR(ReloadLocked());
  std::vector<ImportRecord> out;
  for (const auto& [arn, r] : records_) out.push_back(r);
  std::sort(out.begin(), out.end(), [](const ImportRecord& a, const ImportRecord& b) {
    return a.start_ms != b.start_ms ? a.start_ms < b.start_ms : a.arn < b.arn;
  });
  return out;
}

void Imports::Run(const std::string& arn, ops::TablePtr table) {
  ImportRecord r;
  {
    std::lock_guard lock(mu_);
    r = records_.at(arn);
  }
  const ImportSpec& spec = r.spec;
  int64_t imported = 0, errors = 0, bytes = 0;
  // A CloudWatch-style line per item error, as the service writes to its log group.
  auto log_error = [&](const std::string& object, uint64_t line, const std::string& what) {
    ++errors;
    spdlog::warn("event=import_item_error import={} object=\"{}\" line={} errorMessage=\"{}\"",
                 arn, object, line, what);
  };
  Status status = Status::Ok();
  std::string failure_code;
  fs::path bucket_dir = fs::path(bucket_root_) / spec.bucket;
  std::error_code ec;
  if (spec.bucket.empty() || !fs::is_directory(bucket_dir, ec)) {
    failure_code = "S3NoSuchBucket";
    status = Error::Validation("The specified bucket does not exist (bucket: " + spec.bucket + ")");
  }
  std::map<std::string, model::ValueType> key_types;
  for (const auto& def : table->attribute_definitions) key_types[def.name] = def.type;
  std::vector<RestoredItem> pending;
  auto flush = [&]() -> Status {
    if (pending.empty()) return Status::Ok();
    size_t n = pending.size();
    RETURN_IF_ERROR(WriteRestoredItems(store_, items_, *table, pending));
    imported += static_cast<int64_t>(n);
    items_written_ += static_cast<int64_t>(n);
    return Status::Ok();
  };
  // One item from one record: validated as PutItem validates it.
  auto accept = [&](Result<model::Item> item) -> Result<bool> {
    if (!item) return std::move(item).error();
    RETURN_IF_ERROR(ops::ValidateItemKey(*table, *item));
    if (model::ItemSize(*item) > model::kMaxItemBytes) {
      return Error::Validation("Item size has exceeded the maximum allowed size");
    }
    model::Item key = ops::KeyOf(*table, *item);
    const model::AttributeValue* sort = table->key.range ? &key.at(table->key.range->name) : nullptr;
    pending.push_back({storage::ItemKey(table->id, key.at(table->key.hash.name), sort),
                       std::move(*item)});
    if (pending.size() >= kBatchItems) RETURN_IF_ERROR(flush());
    return true;
  };
  // One pass over the objects, from the first. An outage of the storage (a database restarting
  // or failing over) starts it again: writing an item again is harmless, and the counts and
  // the per-item error lines start over with it.
  auto load = [&]() -> Status {
    imported = errors = bytes = 0;
    pending.clear();
    for (const auto& [key, path] : ListObjects(bucket_dir, spec.prefix)) {
      if (cancel_.load()) return Error::Internal("import cancelled by shutdown");
      auto opened = dataio::CompressedReader::Open(path, spec.compression);
      if (!opened) {
        log_error(key, 0, opened.error().message());
        continue;
      }
      dataio::RecordReader reader(std::move(*opened));
      std::vector<std::string> header = spec.csv_header;
      Status failed = Status::Ok();
      while (true) {
        if (cancel_.load()) return Error::Internal("import cancelled by shutdown");
        Result<bool> more = false;
        if (spec.format == ImportFormat::kCsv) {
          auto rec = reader.NextCsvRecord(spec.csv_delimiter);
          if (!rec) {
            more = std::move(rec).error();
          } else if (!*rec) {
            more = false;
          } else if (header.empty()) {
            header = std::move(**rec);
            more = true;
          } else {
            more = accept(dataio::CsvRecordToItem(header, **rec, key_types));
          }
        } else {
          auto line = reader.NextLine();
          if (!line) {
            more = std::move(line).error();
          } else if (!*line) {
            more = false;
          } else {
            more = accept(spec.format == ImportFormat::kIon ? dataio::ParseIonItemLine(**line)
                                                            : json_lines_(**line));
          }
        }
        if (!more) {
          // The service abandons the rest of an object at its first bad record.
          const ErrorCode code = more.error().code();
          if (code == ErrorCode::kInternal || code == ErrorCode::kStorageUnavailable) {
            failed = std::move(more).error();  // storage: the import fails (or starts over)
          } else {
            log_error(key, reader.line_number(), more.error().message());
          }
          break;
        }
        if (!*more) break;
      }
      bytes += static_cast<int64_t>(reader.bytes_read());
      RETURN_IF_ERROR(failed);
    }
    RETURN_IF_ERROR(flush());
    return FinishRestore(catalog_, *table);  // the table is kept, with what was imported
  };
  if (status) {
    status = RetryWhileUnavailable(cancel_, load, [&](const Status& failure) {
      spdlog::warn("event=import_retry import={} message=\"{}\"", arn, failure.error().message());
    });
    if (cancel_.load()) return;  // the table stays marked; the next start drops it
  }
  ImportRecord done = r;
  done.end_ms = clock_.NowMs();
  done.imported_items = imported;
  done.errors = errors;
  done.processed_items = imported + errors;
  done.processed_bytes = bytes > 0 ? bytes : -1;  // absent until something was read
  if (!status && failure_code == "S3NoSuchBucket") {
    done.status = ImportStatus::kFailed;
    done.failure_code = failure_code;
    done.failure_message = status.error().message();
    (void)catalog_.Delete(table->name);  // the service leaves no table behind
  } else if (!status) {
    done.status = ImportStatus::kFailed;
    done.failure_code = "InternalServerError";
    done.failure_message = status.error().message();
  } else if (errors > 0) {
    done.status = ImportStatus::kFailed;
    done.failure_code = "ItemValidationError";
    done.failure_message =
        "Some of the items failed validation checks and were not imported. Please check "
        "CloudWatch error logs for more details.";
  } else {
    done.status = ImportStatus::kCompleted;
  }
  if (!status && failure_code != "S3NoSuchBucket") {
    // Failed on the way: the table is kept, with what was imported, ACTIVE (a completed load
    // cleared the mark already).
    if (Status s = FinishRestore(catalog_, *table); !s) {
      spdlog::error("event=import_finish_failed table={} message=\"{}\"", table->name,
                    s.error().message());
    }
  }
  if (Status s = Save(done); !s) {
    spdlog::error("event=import_record_write_failed import={} message=\"{}\"", arn,
                  s.error().message());
  }
  spdlog::info("event=import_done import={} status={} imported={} errors={} bytes={}", arn,
               ImportStatusName(done.status), imported, errors, bytes);
  std::lock_guard lock(mu_);
  records_[arn] = std::move(done);
}

}  // namespace ttlstore::backup
