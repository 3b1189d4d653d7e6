// PgStore: the PostgreSQL backend (`--storage postgresql://…`): every key space is a table of
// (k bytea, v bytea) ordered by k, a WriteBatch is one transaction sent as one pipeline, the stats
// are sums of additions spread over shard rows, table ids come from a counter row. The schema is
// created and upgraded by numbered migrations (storage/pg_schema.h). Only storage/ includes this
// (store.cc chooses the backend). docs/storage.md describes the design and its limits.
#pragma once

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>

#include "storage/backend.h"
#include "storage/pg_connection.h"
#include "storage/pg_point_reads.h"
#include "storage/store.h"

namespace ttlstore::storage {

class PgStore final : public Store {
 public:
  // Keys per statement of GetItems and of a read-modify-write's locks and reads. Point statements
  // (by the whole primary key) are prepared once per connection (PgStatement::prepared); range
  // scans are not, so that each is planned for its own bounds.
  static constexpr size_t kKeysPerStatement = 256;
  // Read-modify-write transactions in the database at once; later ones wait and go together
  // (pg_store_rmw.cc).
  static constexpr size_t kMaxGroupsInFlight = 4;

  // options.storage is the libpq connection string or URI.
  static Result<std::unique_ptr<Store>> Open(const StoreOptions& options);
  ~PgStore() override;
  bool SharedByProcesses() const override { return true; }

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

  // Read-modify-writes (pg_store_rmw.cc).
  struct RmwRequest;
  // Takes `me` and the queued requests that fit with it through one transaction (`alone`: `me`
  // only, outside the slots); returns with every member done. Called and returns with `lock`
  // held.
  void LeadRmwGroup(std::unique_lock<std::mutex>& lock, RmwRequest* me, const RmwFunction& fn,
                    bool alone);
  // Runs `fn` on the request's reads into a batch of its own.
  void RunMember(RmwRequest& r, const RmwFunction& fn);

  // Sequenced writes (WriteBatch::PutSequenced; pg_sequenced.cc): runs `before` on `conn`, then
  // locks the heads of `sequenced` in the transaction `before` leaves open (creating the absent
  // ones), resolves them, and appends to `out` the statements that write the result.
  static bool ResolveSequencedHeads(PgConnection& conn, std::vector<PgStatement> before,
                                    const std::vector<BatchSink::Sequenced>& sequenced,
                                    std::vector<PgStatement>* out, PgError* error);

  std::unique_ptr<PgPool> pool_;
  std::mutex rmw_mu_;
  std::deque<RmwRequest*> rmw_queue_;  // waiting for a group, in arrival order
  size_t rmw_in_flight_ = 0;           // groups in the database
  // GetIn of keys no longer than a head: concurrent reads share statements.
  mutable std::unique_ptr<PgPointReads> point_reads_;
};

// The error a storage caller gets for a failed database call `what`.
Error PgStoreError(const PgError& error, const std::string& what);

}  // namespace ttlstore::storage
