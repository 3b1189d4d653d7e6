// Splits an import file's decompressed bytes into records: lines for DYNAMODB_JSON and ION (one
// item per line; blank lines skipped; "\r\n" ends a line too), or CSV records (RFC 4180: fields
// split by the delimiter, "quoted" fields that may hold the delimiter, newlines and "" for a
// quote). Every record is bounded (kMaxRecordBytes): a longer one is an error, never a larger
// allocation.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "dataio/compressed_reader.h"

namespace ttlstore::dataio {

// DynamoDB's items are at most 400 KB; their JSON or Ion text (base64 binaries, escapes) is
// longer, so a record may be up to 4 MB.
inline constexpr size_t kMaxRecordBytes = 4 << 20;

class RecordReader {
 public:
  explicit RecordReader(std::unique_ptr<CompressedReader> in) : in_(std::move(in)) {}

  // The next non-blank line (without its line end); nullopt at the end. Errors: the source's,
  // or a line over kMaxRecordBytes.
  Result<std::optional<std::string>> NextLine();

  // The next CSV record's fields; nullopt at the end. A record that is one empty field (a blank
  // line) is skipped. Errors: the source's; a quote inside an unquoted field, text after a
  // closing quote, a quoted field the file ends in, a record over kMaxRecordBytes.
  Result<std::optional<std::vector<std::string>>> NextCsvRecord(char delimiter);

  // 1-based number of the line where the last record returned began (for error messages).
  uint64_t line_number() const { return record_line_; }
  uint64_t file_bytes_read() const { return in_->file_bytes_read(); }
  // Decompressed bytes consumed so far (ImportTable's ProcessedSizeBytes counts these).
  uint64_t bytes_read() const { return bytes_; }

 private:
  // The next byte; nullopt at the end.
  Result<std::optional<char>> Get();

  std::unique_ptr<CompressedReader> in_;
  std::vector<char> buf_ = std::vector<char>(64 * 1024);
  size_t pos_ = 0, len_ = 0;
  bool eof_ = false;
  uint64_t line_ = 1;
  uint64_t record_line_ = 0;
  uint64_t bytes_ = 0;
};

}  // namespace ttlstore::dataio
