// WriteExportFiles (backup/table_export.h): the files of one export, in the order that keeps an
// interrupted export from ever looking complete.
#include <algorithm>
#include <filesystem>
#include <random>

#include "backup/table_export.h"
#include "dataio/export_files.h"
#include "dataio/ion_item.h"
#include "model/expiry.h"
#include "model/item_size.h"
#include "ops/item_ops.h"
#include "storage/item_codec.h"

namespace ttlstore::backup {
namespace fs = std::filesystem;
namespace {

// An incremental export bills at least 10 MB: the service's DescribeExport of an empty
// incremental export reports BilledSizeBytes 10000000 (docs/compatibility.md, "Export to S3").
constexpr int64_t kMinIncrementalBilledBytes = 10'000'000;

// A data file's name: 26 characters of base32 (a-z, 2-7), the shape of the service's names
// ("bafybeiczss3yxay3o4abnabbb.json.gz" in the developer guide).
std::string DataFileName() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  static constexpr char kAlphabet[] = "abcdefghijklmnopqrstuvwxyz234567";
  std::string name;
  for (int i = 0; i < 26; ++i) name += kAlphabet[rng() % 32];
  return name;
}

bool HasDotDotSegment(const std::string& key) {
  size_t start = 0;
  while (start <= key.size()) {
    size_t slash = key.find('/', start);
    size_t end = slash == std::string::npos ? key.size() : slash;
    if (key.compare(start, end - start, "..") == 0 && end - start == 2) return true;
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  return false;
}

// The data files of one export: lines go to the current file until it holds kDataFileBytes.
class DataFiles {
 public:
  DataFiles(std::string bucket_dir, std::string folder_key, const char* suffix)
      : bucket_dir_(std::move(bucket_dir)), folder_key_(std::move(folder_key)), suffix_(suffix) {}

  Status Add(const std::string& line) {
    if (!current_) RETURN_IF_ERROR(Open());
    RETURN_IF_ERROR(current_->Append(line));
    ++current_items_;
    if (current_->raw_bytes() >= kDataFileBytes) RETURN_IF_ERROR(Close());
    return Status::Ok();
  }

  // Closes the last file (opening one if none was: an empty export has one empty file) and
  // returns manifest-files.json's text.
  Result<std::string> Finish() {
    if (!current_ && manifest_.empty()) RETURN_IF_ERROR(Open());
    if (current_) RETURN_IF_ERROR(Close());
    return manifest_;
  }

 private:
  Status Open() {
    current_key_ = folder_key_ + "data/" + DataFileName() + suffix_;
    ASSIGN_OR_RETURN(w, dataio::GzipLineWriter::Create(bucket_dir_ + "/" + current_key_));
    current_ = std::move(w);
    current_items_ = 0;
    return Status::Ok();
  }

  Status Close() {
    ASSIGN_OR_RETURN(summary, current_->Finish());
    manifest_ += dataio::ManifestFilesLine(current_items_, summary.md5_base64, summary.etag,
                                           current_key_);
    manifest_ += '\n';
    current_.reset();
    return Status::Ok();
  }

  const std::string bucket_dir_, folder_key_;
  const char* suffix_;
  std::unique_ptr<dataio::GzipLineWriter> current_;
  std::string current_key_;
  int64_t current_items_ = 0;
  std::string manifest_;
};

Result<model::Item> Decode(const std::string& encoded) {
  auto item = storage::DecodeItem(encoded);
  if (!item) return Error::Internal("corrupt item image in the table or its PITR change log");
  return std::move(*item);
}

}  // namespace

Result<ExportOutcome> WriteExportFiles(const model::TableDescriptor& table, PitrViews& views,
                                       const ExportRecord& r, const std::string& bucket_root,
                                       const std::string& account_id,
                                       const ExportLineFormat& lines,
                                       const Clock& clock, const std::atomic<bool>& cancel,
                                       const std::function<void(int64_t)>& progress) {
  const ExportSpec& spec = r.spec;
  ExportOutcome out;
  const std::string bucket_dir = bucket_root + "/" + spec.bucket;
  std::error_code ec;
  if (spec.bucket.empty() || !fs::is_directory(bucket_dir, ec)) {
    out.failure_code = "S3NoSuchBucket";
    return out;
  }
  if (!spec.bucket_owner.empty() && spec.bucket_owner != account_id) {
    out.failure_code = "S3AccessDenied";
    return out;
  }
  const std::string folder_key = ExportFolderKey(spec.prefix, ExportIdOf(r.arn));
  if (HasDotDotSegment(folder_key)) {
    // Never a path outside the bucket's folder (Chosen: S3 would take such a key literally).
    out.failure_code = "S3AccessDenied";
    return out;
  }
  fs::create_directories(bucket_dir + "/" + folder_key + "data", ec);
  if (ec) return Error::Internal("cannot create " + bucket_dir + "/" + folder_key + ": " + ec.message());
  // An attempt after a storage outage (table_export.cc) starts from an empty data folder: the
  // folder is this export's alone, and files of an earlier attempt would be listed by none.
  for (const auto& entry : fs::directory_iterator(bucket_dir + "/" + folder_key + "data", ec)) {
    fs::remove(entry.path(), ec);
    if (ec) return Error::Internal("cannot remove " + entry.path().string() + ": " + ec.message());
  }
  if (ec) return Error::Internal("cannot list " + bucket_dir + "/" + folder_key + "data: " + ec.message());
  RETURN_IF_ERROR(dataio::WriteFileDurably(bucket_dir + "/" + folder_key + "_started", ""));

  const bool ion = spec.format == ExportFormat::kIon;
  DataFiles files(bucket_dir, folder_key, ion ? ".ion.gz" : ".json.gz");
  int64_t bytes = 0;
  if (spec.type == ExportType::kFull) {
    RETURN_IF_ERROR(ForEachItemAt(
        views, spec.export_ms, cancel, [&](std::string_view, const std::string& encoded) -> Status {
          ASSIGN_OR_RETURN(item, Decode(encoded));
          // An item whose TTL had passed at the export time is not in it: reads hide such items
          // and the sweeper deletes them within a second (docs/compatibility.md).
          if (table.ttl_enabled) {
            auto due = model::ExpiryDueMs(item, table.ttl_attribute);
            if (due && model::IsExpiredAt(*due, spec.export_ms)) return Status::Ok();
          }
          RETURN_IF_ERROR(files.Add(ion ? dataio::FormatIonItemLine(item) : lines.item_line(item)));
          bytes += static_cast<int64_t>(model::ItemSize(item));
          if (++out.item_count % 1024 == 0 && progress) progress(out.item_count);
          return Status::Ok();
        }));
    out.billed_bytes = bytes;
  } else {
    const bool with_old = spec.view == ExportView::kNewAndOldImages;
    RETURN_IF_ERROR(ForEachChange(
        views, spec.from_ms, spec.to_ms, cancel, [&](const ItemChange& c) -> Status {
          std::optional<model::Item> old_image, new_image;
          if (c.old_image) {
            ASSIGN_OR_RETURN(item, Decode(*c.old_image));
            old_image = std::move(item);
          }
          if (c.new_image) {
            ASSIGN_OR_RETURN(item, Decode(*c.new_image));
            new_image = std::move(item);
          }
          model::Item keys = ops::KeyOf(table, new_image ? *new_image : *old_image);
          const model::Item* old_ptr = with_old && old_image ? &*old_image : nullptr;
          const model::Item* new_ptr = new_image ? &*new_image : nullptr;
          const int64_t micros = c.last_write_ms * 1000;
          RETURN_IF_ERROR(files.Add(ion ? dataio::FormatIonChangeLine(micros, keys, old_ptr, new_ptr)
                                        : lines.change_line(micros, keys, old_ptr, new_ptr)));
          if (new_image) bytes += static_cast<int64_t>(model::ItemSize(*new_image));
          if (++out.item_count % 1024 == 0 && progress) progress(out.item_count);
          return Status::Ok();
        }));
    out.billed_bytes = std::max(bytes, kMinIncrementalBilledBytes);
  }
  if (progress) progress(out.item_count);
  ASSIGN_OR_RETURN(manifest_files, files.Finish());
  const std::string files_key = folder_key + "manifest-files.json";
  RETURN_IF_ERROR(dataio::WriteFileDurably(bucket_dir + "/" + files_key, manifest_files));
  RETURN_IF_ERROR(dataio::WriteFileDurably(bucket_dir + "/" + folder_key + "manifest-files.md5",
                                           dataio::Md5Base64(manifest_files)));

  dataio::ManifestSummary summary;
  summary.export_arn = r.arn;
  summary.table_arn = spec.table_arn;
  summary.table_id = r.table_id;
  summary.bucket = spec.bucket;
  summary.prefix = spec.prefix;
  summary.sse_algorithm = spec.sse_algorithm.empty() ? "AES256" : spec.sse_algorithm;
  summary.sse_kms_key_id = spec.sse_kms_key_id;
  summary.start_ms = r.start_ms;
  summary.export_ms = spec.export_ms;
  summary.manifest_files_key = files_key;
  summary.billed_size_bytes = out.billed_bytes;
  summary.item_count = out.item_count;
  summary.output_format = ExportFormatName(spec.format);
  summary.export_type = ExportTypeName(spec.type);
  summary.export_from_ms = spec.from_ms;
  summary.export_to_ms = spec.to_ms;
  summary.output_view = ExportViewName(spec.view);
  // The files are whole and synced; the summary, last, says so.
  out.end_ms = std::max<int64_t>(r.start_ms, clock.NowMs());
  summary.end_ms = out.end_ms;
  const std::string text = dataio::FormatManifestSummary(summary);
  out.manifest_key = folder_key + "manifest-summary.json";
  RETURN_IF_ERROR(dataio::WriteFileDurably(bucket_dir + "/" + out.manifest_key, text));
  RETURN_IF_ERROR(dataio::WriteFileDurably(bucket_dir + "/" + folder_key + "manifest-summary.md5",
                                           dataio::Md5Base64(text)));
  return out;
}

}  // namespace ttlstore::backup
