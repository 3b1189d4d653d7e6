// RocksStore: the embedded backend, one RocksDB database in a local folder (the default).
// Each Store::Space is a column family; the stats are kept by a merge operator that adds, so a
// write's stats delta is one merge in its batch; a batch is one rocksdb::WriteBatch. Failed
// writes (a full disk, a read-only file system) are refused as kStorageUnavailable until a
// write finds RocksDB resumed. Only storage/ includes this (store.cc chooses the backend).
#pragma once

#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "storage/key_locks.h"
#include "storage/store.h"

namespace rocksdb {
class DB;
class ColumnFamilyHandle;
}  // namespace rocksdb

namespace ttlstore::storage {

class RocksStore final : public Store {
 public:
  static Result<std::unique_ptr<Store>> Open(const StoreOptions& options);
  // Flushes the memtables (a clean stop leaves no WAL to replay) and closes RocksDB.
  ~RocksStore() override;

  Result<std::vector<std::optional<std::string>>> GetItems(
      const std::vector<std::string>& keys) const override;
  Result<std::vector<model::TableDescriptor>> LoadTables() const override;
  Result<uint32_t> AllocateTableId() override;
  CompactionState Compactions() const override;
  // A failed RocksDB write applied nothing.
  bool FailedCommitMayHaveApplied() const override { return false; }
  uint64_t ApproximateItemBytes(std::string_view lower, std::string_view upper) const override;

  // The column family of a key space (nullptr for a family a read-only open of an older data
  // dir lacks).
  rocksdb::ColumnFamilyHandle* HandleOf(Space space) const {
    return handles_by_space_[static_cast<size_t>(space)];
  }

 protected:
  std::unique_ptr<BatchSink> NewSink() const override;
  Status Commit(BatchSink& sink) override;
  Result<std::optional<std::string>> GetIn(Space space, std::string_view key) const override;
  std::unique_ptr<ItemIterator> ScanIn(Space space, std::string lower, std::string upper,
                                       bool reverse,
                                       const std::string* start_after,
                                       size_t limit_hint) const override;
  Result<TableStats> ReadStats(std::string_view key) const override;
  Status AttemptReadModifyWrite(const std::vector<RmwKey>& keys, const RmwFunction& fn,
                                bool* conflict) override;

 private:
  RocksStore() = default;
  Status Convert(const void* rocksdb_status, const char* what) const;
  bool TryResume();
  uint64_t LargestSearchQueueSeq() const;

  StoreOptions options_;
  std::atomic<int64_t> last_resume_ms_{0};      // steady clock, for TryResume's rate limit
  std::atomic<uint64_t> unavailable_writes_{0};  // writes refused for want of space/permission
  std::mutex table_id_mu_;  // serializes AllocateTableId's read-increment-write
  KeyLocks rmw_locks_;      // ReadModifyWrite's stripes
  // Held from the reads of a batch's sequenced heads to its write: one process owns the
  // folder, so this is all the locking WriteBatch::PutSequenced needs.
  std::mutex sequence_mu_;
  std::unique_ptr<rocksdb::DB> db_;
  std::vector<rocksdb::ColumnFamilyHandle*> handles_;  // in Space order, as opened
  std::array<rocksdb::ColumnFamilyHandle*, kSpaceCount> handles_by_space_{};
};

}  // namespace ttlstore::storage
