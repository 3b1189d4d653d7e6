// PgStore: the PostgreSQL backend (`--storage postgresql://…`): every key space is a table of
// (k bytea, v bytea) ordered by k, a WriteBatch is one transaction sent as one pipeline, the stats
// are sums of additions spread over shard rows, table ids come from a counter row. The schema is
// created and upgraded by numbered migrations (storage/pg_schema.h). Only storage/ includes this
// (store.cc chooses the backend). docs/storage.md describes the design and its limits.
#pragma once

#include <memory>
#include <string>

#include "storage/pg_connection.h"
#include "storage/pg_point_reads.h"
#include "storage/store.h"

namespace ttlstore::storage {

class PgStore final : public Store {
 public:
  // options.storage is the libpq connection string or URI.
  static Result<std::unique_ptr<Store>> Open(const StoreOptions& options);
  ~PgStore() override;

  Result<std::vector<std::optional<std::string>>> GetItems(
      const std::vector<std::string>& keys) const override;
  Result<std::vector<model::TableDescriptor>> LoadTables() const override;
  Result<uint32_t> AllocateTableId() override;
  CompactionState Compactions() const override { return {}; }
  // The bytes of the items in the range, summed by the database (a scan of the range: called
  // for one partition's item collection only).
  uint64_t ApproximateItemBytes(std::string_view lower, std::string_view upper) const override;

  PgPool& pool() const { return *pool_; }
  // A COMMIT whose connection died before its answer may have applied.
  bool FailedCommitMayHaveApplied() const override { return true; }

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
  PgStore() = default;
  // Runs statements on a pooled connection, retrying serialization failures and deadlocks
  // (Store::RetryConflicts).
  Result<std::vector<PgRows>> Run(const std::vector<PgStatement>& statements,
                                  const char* begin) const;
  Result<uint64_t> LargestSearchQueueSeq() const;

  // Reads `keys` (distinct, no longer than a head) of `space` in one statement.
  Result<std::vector<std::optional<std::string>>> FetchPoints(
      Space space, const std::vector<std::string>& keys) const;

  std::unique_ptr<PgPool> pool_;
  // GetIn of keys no longer than a head: concurrent reads share statements.
  mutable std::unique_ptr<PgPointReads> point_reads_;
};

// The error a storage caller gets for a failed database call `what`.
Error PgStoreError(const PgError& error, const std::string& what);

}  // namespace ttlstore::storage
