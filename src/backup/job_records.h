// Where the records of exports and imports are kept (issue 34).
//
// One process (RocksDB): files <dir>/<id>.<kind> (backup/record_file.h), read at start-up and
// kept in memory by Exports and Imports.
//
// A store several processes share: the store itself, `records/<kind>/<id>` in the `leases`
// family (docs/formats.md), so that DescribeExport, ListExports, DescribeImport and ListImports
// answer the same through every process. Exports and Imports then read the records again before
// each answer (All), and a job's record is written by the process running it, which holds the
// job's lease meanwhile (backup/table_export.h, backup/restore_lease.h): a record still in
// progress whose lease no process holds is a job whose process died.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>

#include <spdlog/spdlog.h>

#include "common/result.h"

namespace ttlstore::storage {
class Store;
class WriteBatch;
}  // namespace ttlstore::storage

namespace ttlstore::backup {

class JobRecords {
 public:
  // `kind`: "export" or "import".
  JobRecords(storage::Store& store, std::string dir, std::string kind);

  // Whether the records are in the store (several processes may share it).
  bool shared() const { return shared_; }
  // Replaces record `id` with `text`, whole (a crash leaves the old one or the new one). Files:
  // after a first ForEach (Exports::Load, Imports::Load), which makes the folder.
  Status Save(const std::string& id, const std::string& text) const;
  // Every record: where it is (a path or a key, for messages) and its text. Files: creates the
  // folder if missing and deletes the temp files a crash left.
  Status ForEach(const std::function<Status(const std::string& where,
                                            const std::string& text)>& each) const;

  // Shared records only: what Save does, as a put into `batch` (committed with the caller's
  // read-modify-write), and the key that serializes the jobs of one ClientToken (held by that
  // read-modify-write; nothing is stored under it).
  void SaveIn(storage::WriteBatch& batch, const std::string& id, const std::string& text) const;
  std::string TokenLockKey(const std::string& client_token) const;

  // Every record decoded by `decode` (std::optional<Record> from the text; a record it cannot
  // read is logged and skipped), by ARN (Record::arn).
  template <typename Record, typename Decode>
  Result<std::map<std::string, Record>> ReadAll(Decode decode) const {
    std::map<std::string, Record> read;
    RETURN_IF_ERROR(ForEach([&](const std::string& where, const std::string& text) -> Status {
      std::optional<Record> r = decode(text);
      if (!r) {
        spdlog::warn("event=job_record_unreadable kind={} where={}", kind_, where);
        return Status::Ok();
      }
      std::string arn = r->arn;
      read.emplace(std::move(arn), std::move(*r));
      return Status::Ok();
    }));
    return read;
  }

 private:
  storage::Store& store_;
  const std::string dir_, kind_;
  const bool shared_;
};

}  // namespace ttlstore::backup
