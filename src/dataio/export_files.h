// The files DynamoDB's export to S3 writes, as the developer guide's "DynamoDB table export
// output format" describes them and an export the service produced lays them out (docs/formats.md,
// "Export to S3"):
//
//   <prefix>/AWSDynamoDB/<ExportId>/_started                empty: the export has begun
//   <prefix>/AWSDynamoDB/<ExportId>/data/<name>.json.gz     gzipped JSON lines (or .ion.gz)
//   <prefix>/AWSDynamoDB/<ExportId>/manifest-files.json     one JSON line per data file
//   <prefix>/AWSDynamoDB/<ExportId>/manifest-files.md5      base64 MD5 of manifest-files.json
//   <prefix>/AWSDynamoDB/<ExportId>/manifest-summary.json   the export's summary, written last
//   <prefix>/AWSDynamoDB/<ExportId>/manifest-summary.md5    base64 MD5 of manifest-summary.json
//
// Here: the gzip writer of data files (MD5 and ETag of the bytes written), the manifests' text,
// and the Ion form of incremental-export lines. The DynamoDB JSON lines are api/'s (RapidJSON
// stays there). Pure formatting and file output: no knowledge of tables or RocksDB.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"
#include "model/attribute_value.h"

namespace ttlstore::dataio {

// Base64 of the MD5 of `bytes` (the manifests' md5Checksum and the .md5 files' content).
std::string Md5Base64(std::string_view bytes);
// Lower-case hex of the MD5 of `bytes` (an S3 ETag of an object written in one part).
std::string Md5Hex(std::string_view bytes);

// Writes `bytes` to `path` (replacing it) and fsyncs it.
Status WriteFileDurably(const std::string& path, std::string_view bytes);

// A gzip data file written line by line, hashing what it writes. The file is fsynced by Finish.
class GzipLineWriter {
 public:
  ~GzipLineWriter();
  static Result<std::unique_ptr<GzipLineWriter>> Create(const std::string& path);

  // Appends `line` and a newline.
  Status Append(std::string_view line);
  // Uncompressed bytes appended so far.
  uint64_t raw_bytes() const { return raw_bytes_; }

  struct Summary {
    uint64_t file_bytes = 0;  // compressed, as stored
    std::string md5_base64;   // of the stored bytes
    std::string etag;         // hex MD5 of the stored bytes
  };
  // Ends the gzip stream, flushes and fsyncs the file. Call once.
  Result<Summary> Finish();

 private:
  GzipLineWriter() = default;
  Status Deflate(const char* data, size_t n, int flush);

  std::string path_;
  std::FILE* file_ = nullptr;
  struct State;
  std::unique_ptr<State> state_;
  uint64_t raw_bytes_ = 0;
  uint64_t file_bytes_ = 0;
};

// One line of manifest-files.json (no newline).
std::string ManifestFilesLine(int64_t item_count, const std::string& md5_base64,
                              const std::string& etag, const std::string& data_file_key);

// What manifest-summary.json says. Times are epoch milliseconds, written as ISO 8601 with
// milliseconds ("2020-11-04T07:28:34.028Z").
struct ManifestSummary {
  std::string export_arn, table_arn, table_id, bucket, prefix, sse_algorithm, sse_kms_key_id;
  int64_t start_ms = 0, end_ms = 0, export_ms = 0;
  std::string manifest_files_key;
  int64_t billed_size_bytes = 0, item_count = 0;
  std::string output_format;  // DYNAMODB_JSON | ION
  // Incremental exports only (export_type "INCREMENTAL_EXPORT").
  std::string export_type;    // FULL_EXPORT | INCREMENTAL_EXPORT
  int64_t export_from_ms = 0, export_to_ms = 0;
  std::string output_view;    // NEW_IMAGE | NEW_AND_OLD_IMAGES
};
std::string FormatManifestSummary(const ManifestSummary& s);

// "2020-11-04T07:28:34.028Z".
std::string IsoMillis(int64_t ms);

// One line of an incremental export in Ion:
// `$ion_1_0 {Metadata:{WriteTimeEpochMicros:<int>},Keys:{..},OldImage:{..},NewImage:{..}}`,
// each image only when given.
std::string FormatIonChangeLine(int64_t write_time_micros, const model::Item& keys,
                                const model::Item* old_image, const model::Item* new_image);

}  // namespace ttlstore::dataio
