// The backup file: one table's descriptor and every item (or Tablestore row) it held at one
// instant, in a file of its own that outlives the table (D17). CreateBackup writes one into
// <data-dir>/backups/, `ttlstore backup` writes one anywhere; RestoreTableFromBackup and
// `ttlstore restore` read it back into a new table.
//
// Layout (docs/formats.md): the magic "TTLSBAK1", then records
//   kind (1 byte) . length (4 bytes BE) . payload . CRC-32 of kind, length and payload (4 BE)
// in this order: one header ('H'), any number of items ('I') or rows ('R'), then for a
// Tablestore table with an AUTO_INCREMENT column its partition keys' last issued values ('S',
// versions/auto_increment.h), one trailer ('T').
// A file without its trailer is incomplete (a crash or a full disk while writing) and is
// refused, as is any record whose CRC does not match: a restore never loads half a backup.
// Writers write to "<path>.tmp", fsync, then rename, so a visible file is always complete.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

#include "common/result.h"

namespace ttlstore::backup {

// What a backup says about itself; the header record.
struct BackupHeader {
  std::string backup_arn;
  std::string backup_name;
  int64_t created_ms = 0;
  // The source table as it was: its ARN and its catalog descriptor (storage/catalog_codec.h).
  std::string table_arn;
  std::string table_descriptor;
  // Items (or rows) and their total size, as the table's stats reported when the backup began
  // (for progress bars; the trailer holds the exact counts).
  int64_t expected_records = 0;
  int64_t expected_bytes = 0;
};

// The trailer record: what the file holds, exactly.
struct BackupTrailer {
  int64_t records = 0;
  int64_t bytes = 0;  // sum of the stored values' sizes
};

enum class RecordKind : char { kItem = 'I', kRow = 'R', kSequence = 'S' };

class BackupWriter {
 public:
  // Creates "<path>.tmp" and writes the magic and the header.
  static Result<std::unique_ptr<BackupWriter>> Create(const std::string& path,
                                                      const BackupHeader& header);
  ~BackupWriter();  // an unfinished writer removes its .tmp file

  // `key` is the record's key without the 4-byte table id (it is rewritten on restore);
  // `value` the stored bytes.
  Status Add(RecordKind kind, std::string_view key, std::string_view value);
  // Writes the trailer, fsyncs, and renames the file into place.
  Status Finish();
  // Bytes written so far.
  uint64_t bytes_written() const { return written_; }

 private:
  BackupWriter() = default;
  Status Append(char kind, std::string_view payload);

  std::string path_;
  std::FILE* file_ = nullptr;
  std::string buffer_;
  uint64_t written_ = 0;
  BackupTrailer trailer_;
  bool finished_ = false;
};

// Reads a backup file front to back. Open() checks the magic, the header and the trailer (so an
// incomplete file is refused before anything is restored).
class BackupReader {
 public:
  static Result<std::unique_ptr<BackupReader>> Open(const std::string& path);
  ~BackupReader();

  const BackupHeader& header() const { return header_; }
  const BackupTrailer& trailer() const { return trailer_; }
  uint64_t file_size() const { return file_size_; }

  // The next item or row; false at the trailer. An error if a record is damaged.
  Result<bool> Next(RecordKind* kind, std::string* key, std::string* value);

 private:
  BackupReader() = default;
  // Reads one record; kind '\0' at end of file.
  Status ReadRecord(char* kind, std::string* payload);

  std::string path_;
  std::FILE* file_ = nullptr;
  uint64_t file_size_ = 0;
  BackupHeader header_;
  BackupTrailer trailer_;
  int64_t records_read_ = 0;
};

// Only the header and trailer (ListBackups, DescribeBackup): two small reads, whatever the size.
Result<std::pair<BackupHeader, BackupTrailer>> ReadBackupSummary(const std::string& path);

}  // namespace ttlstore::backup
