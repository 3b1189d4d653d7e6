// LocalTransactions: Tablestore's local transactions (StartLocalTransaction, CommitTransaction,
// AbortTransaction, and the row operations that carry a transaction_id), over RowOps.
//
// A transaction covers one partition key: a table and one value of its first primary-key
// column. While it is open that partition key is locked for writes: a write without the
// transaction's id is refused at once (OTSRowOperationConflict), reads without it see the data
// as last committed (Read Committed, as the service documents). Its own writes are computed at
// once (conditions, T9, versions stamped now) by RowOps::Apply against the row as the
// transaction sees it, and buffered in memory as the rows they leave (Txn::writes); reads inside
// the transaction see them (GetRange through ops/row_overlay.h). CommitTransaction writes every
// buffered row, re-trimmed under the table's options of that moment, with its purge-index
// entries, in one RocksDB WriteBatch under the rows' locks (StageRowChange, as RowOps::Write
// does): after a crash either all of it is there or none. Nothing of an open transaction is on
// disk, so a restart (or kill -9) aborts every open transaction.
//
// Every Tablestore row write goes through Write, with or without a session, so that the lock
// above is kept; see TxnTable (ops/txn_table.h) for the bookkeeping and the timeouts.
// Thread-safe.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "common/result.h"
#include "ops/row_ops.h"
#include "ops/table_ops.h"
#include "ops/txn_table.h"

namespace ttlstore::ops {

class LocalTransactions {
 public:
  LocalTransactions(storage::Store& store, TableCatalog& catalog, RowOps& rows,
                    const Clock& clock, TxnLimits limits = {});

  // A transaction held by one request (TxnTable::Acquire) until destroyed, committed or aborted.
  class Session {
   public:
    Session(Session&& other) noexcept : owner_(other.owner_), txn_(std::move(other.txn_)) {
      other.owner_ = nullptr;
    }
    Session& operator=(Session&&) = delete;
    ~Session();
    const std::string& table_name() const { return txn_->table_name; }

   private:
    friend class LocalTransactions;
    Session(LocalTransactions* owner, TxnPtr txn) : owner_(owner), txn_(std::move(txn)) {}
    LocalTransactions* owner_;
    TxnPtr txn_;
  };

  // Opens a transaction on `table`'s partition key `key` (exactly one column: the table's
  // first primary-key column) and returns its id. Errors: more columns ("StartLocalTransaction
  // support only one primary key."), a key that does not match the schema (OTSInvalidPK),
  // transactions disabled on the table, OTSRowOperationConflict if another transaction holds
  // the partition key, OTSQuotaExhausted past TxnLimits::max_open. Waits for writes from outside
  // any transaction already under way on the partition key to finish.
  Result<std::string> Start(const model::TableDescriptor& table,
                            const std::vector<versions::PkCell>& key);

  // The transaction `id` for one request. OTSParameterInvalid "TransactionID is invalid." for
  // an id we never hand out; OTSSessionNotExist, OTSSessionBusy (TxnTable::Acquire).
  Result<Session> Use(std::string_view id);

  // Writes every row the transaction wrote, in one batch, and ends it. OTSObjectNotExist if
  // its table was deleted meanwhile (the transaction ends, nothing is written).
  Status Commit(Session session);
  // Ends the transaction; its writes are dropped.
  void Abort(Session session);

  // One row write: inside the transaction of `session` (buffered; OTSDataOutOfRange for a row
  // of another table or partition key, OTSOutOfTransactionDataSizeLimit once the transaction
  // has written more than TxnLimits::max_bytes counting `request_bytes`), or, with no session,
  // straight to the store (RowOps::Write), refused with OTSRowOperationConflict while a
  // transaction locks the row's partition key. `after` and `written_key` as RowOps::Write's (a
  // key with the AUTO_INCREMENT placeholder fails inside a transaction: such tables have none).
  Status Write(Session* session, const model::TableDescriptor& table, const RowChange& change,
               size_t request_bytes, versions::StoredRow* after,
               std::vector<versions::PkCell>* written_key = nullptr);

  // The rows of one table of an atomic BatchWriteRow (is_atomic), written all or none: with no
  // session by RowOps::WriteAll (refused with OTSRowOperationConflict while a transaction locks
  // the partition key); inside `session`'s transaction, all buffered or none (each as Write
  // buffers it). Every row must have the first row's partition key, else OTSDataOutOfRange
  // "Data out of scope of atomic. Atomic PartKey:a. Data PartKey:b" naming the first row's and
  // the first other one (the service's text, the Java SDK's OTSAPIBehaviorTest). When a row
  // fails, `*failed` is its index, its error is returned and nothing is written or buffered.
  // `request_bytes[i]` counts row i toward the transaction's data limit; `afters` and
  // `written_keys` as RowOps::WriteAll's.
  Status WriteAtomic(Session* session, const model::TableDescriptor& table,
                     const std::vector<RowChange>& changes,
                     const std::vector<size_t>& request_bytes,
                     std::vector<versions::StoredRow>* afters, size_t* failed,
                     std::vector<std::vector<versions::PkCell>>* written_keys = nullptr);

  // GetRow inside a transaction: its own writes, else the stored row. OTSDataOutOfRange outside
  // its table and partition key.
  Result<std::optional<RowView>> Get(Session& session, const model::TableDescriptor& table,
                                     const std::vector<versions::PkCell>& primary_key,
                                     const versions::ReadSpec& spec);
  // GetRange inside a transaction: both bounds must name its partition key (OTSDataOutOfRange).
  Result<RangeResult> GetRange(Session& session, const model::TableDescriptor& table,
                               const RangeRequest& request);

  // Open transactions (for /metrics and tests).
  size_t open() const;
  // Transactions dropped because they expired, since start-up.
  uint64_t expired() const;

 private:
  void Release(const TxnPtr& txn);
  // The partition prefix of `pk` (its first column) in `table`, or the key's error.
  Result<std::string> PartitionOf(const model::TableDescriptor& table,
                                  const std::vector<versions::PkCell>& pk) const;
  Status CheckInScope(const Txn& txn, const model::TableDescriptor& table,
                      const versions::PkCell& first) const;
  std::string NewId();

  storage::Store& store_;
  TableCatalog& catalog_;
  RowOps& rows_;
  const Clock& clock_;

  mutable std::mutex mu_;
  std::condition_variable outside_done_;  // an outside write ended (Start waits on it)
  TxnTable table_;                        // GUARDED_BY(mu_)
};

// How a partition key's value reads in messages: a string as is, an integer in decimal, a
// binary in base64 (ours).
std::string PartKeyText(const model::CellValue& v);

}  // namespace ttlstore::ops
