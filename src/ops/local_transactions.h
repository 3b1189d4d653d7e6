// LocalTransactions: Tablestore's local transactions (StartLocalTransaction, CommitTransaction,
// AbortTransaction, and the row operations that carry a transaction_id), over RowOps.
//
// A transaction covers one partition key: a table and one value of its first primary-key
// column. While it is open that partition key is locked for writes: a write without the
// transaction's id is refused at once (OTSRowOperationConflict), reads without it see the data
// as last committed (Read Committed, as the service documents). Its own writes are computed at
// once (conditions, T9, versions stamped now) by RowOps::Apply against the row as the
// transaction sees it, and the rows they leave are buffered; reads inside the transaction see
// them (GetRange through ops/row_overlay.h). CommitTransaction writes every buffered row,
// re-trimmed under the table's options of that moment, with its purge-index entries, in one
// WriteBatch under the rows' locks (StageRowChange, as RowOps::Write does): after a crash
// either all of it is there or none.
//
// Everything of an open transaction is in the store (ops/txn_state.h: its state, the partition
// key's lock, the buffered rows and stream records), so on a store several processes share a
// transaction started through one process is used, committed or aborted through any, and the
// lock holds for writes through every process. The lock is a record every write from outside a
// transaction reads for update with its rows (RowOps' RowGuard): a Start and the writes of its
// partition key are ordered by the store's locks, so a transaction never starts under a write
// it cannot see, and no write lands in a locked partition key. On a store of one process
// (RocksDB) DropAll, at start-up, aborts whatever a stop left open.
//
// Every Tablestore row write goes through Write, with or without a session, so that the lock
// above is kept. Thread-safe.
#pragma once

#include <atomic>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "common/result.h"
#include "ops/row_ops.h"
#include "ops/table_ops.h"
#include "ops/txn_state.h"

namespace ttlstore::ops {

// The lease unit of the periodic Reap (server/main.cc): one process at a time on a shared store.
inline const std::string kTxnReapLeaseUnit = "transactions/reap";

class LocalTransactions {
 public:
  LocalTransactions(storage::Store& store, TableCatalog& catalog, RowOps& rows,
                    const Clock& clock, TxnLimits limits = {});

  // A transaction held by one request (its state marked held in the store) until destroyed
  // (released: its idle clock starts again), committed or aborted.
  class Session {
   public:
    Session(Session&& other) noexcept
        : owner_(other.owner_), id_(std::move(other.id_)), state_(std::move(other.state_)) {
      other.owner_ = nullptr;
    }
    Session& operator=(Session&&) = delete;
    ~Session();
    const std::string& table_name() const { return state_.table_name; }

   private:
    friend class LocalTransactions;
    Session(LocalTransactions* owner, std::string id, TxnState state)
        : owner_(owner), id_(std::move(id)), state_(std::move(state)) {}
    LocalTransactions* owner_;  // null once ended (or moved from)
    std::string id_;
    TxnState state_;  // as this request last wrote it
  };

  // Opens a transaction on `table`'s partition key `key` (exactly one column: the table's
  // first primary-key column) and returns its id. Errors: more columns ("StartLocalTransaction
  // support only one primary key."), a key that does not match the schema (OTSInvalidPK),
  // transactions disabled on the table, OTSRowOperationConflict if another transaction holds
  // the partition key. Waits for writes from outside any transaction already under way on the
  // partition key, through any process, to finish (they hold its lock record). The table's first
  // Start marks it `had_transactions` and waits until no request of any process holds a
  // descriptor without the mark (TableCatalog::WaitForOlderVersions): from then on every write
  // reads the lock. `table` is taken so that this request does not hold the old descriptor.
  Result<std::string> Start(TablePtr table, const std::vector<versions::PkCell>& key);

  // The transaction `id` for one request. OTSParameterInvalid "TransactionID is invalid." for
  // an id we never hand out; OTSSessionNotExist for an unknown, ended or expired one;
  // OTSSessionBusy while another request holds it.
  Result<Session> Use(std::string_view id);

  // Writes every row the transaction wrote, in one batch, and ends it. OTSObjectNotExist if
  // its table was deleted meanwhile (the transaction ends, nothing is written).
  Status Commit(Session session);
  // Ends the transaction; its writes are dropped.
  Status Abort(Session session);

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

  // Drops every expired transaction no request holds, with its lock and buffered writes (a
  // periodic job: one met by a request or a write is dropped then too). Returns how many.
  Result<size_t> Reap();
  // Drops every transaction in the store: at start-up on a store no other process uses, so
  // that a restart aborts every open transaction.
  Status DropAll();

  // Open transactions in the store, of every process (for /metrics and tests).
  size_t open() const;
  // Transactions this process dropped because they expired, since start-up.
  uint64_t expired() const { return expired_.load(); }

 private:
  Status Release(Session& session);
  // The partition prefix of `pk` (its first column) in `table`, or the key's error.
  Result<std::string> PartitionOf(const model::TableDescriptor& table,
                                  const std::vector<versions::PkCell>& pk) const;
  Status CheckInScope(const TxnState& txn, const model::TableDescriptor& table,
                      const versions::PkCell& first) const;
  // The guard of a write from outside any transaction to `table`'s partition key of `pk`:
  // refused while a live transaction locks it (nullopt: the table never had a transaction).
  Result<std::optional<RowGuard>> OutsideGuard(const model::TableDescriptor& table,
                                               const std::vector<versions::PkCell>& pk);
  // Whether the transaction the lock record `lock_key` names (`id`) is live at `now_ms`; if not,
  // stages the removal of what is left of it in `batch` (its lock too when `drop_lock`).
  Result<bool> LockLive(const std::string& id, const std::string& lock_key, bool drop_lock,
                        int64_t now_ms, storage::WriteBatch& batch);
  // Stages the removal of transaction `id`'s state and buffered writes, and of its lock when
  // `lock_key` is not empty.
  static void StageEnd(storage::WriteBatch& batch, const std::string& id,
                       const std::string& lock_key);
  // The row the transaction's buffer holds for `key`: nullopt if it has none; an empty row
  // (nullopt inside) for a buffered delete.
  Result<std::optional<std::optional<versions::StoredRow>>> Buffered(const std::string& id,
                                                                     const std::string& key) const;
  Result<RowOverlay> LoadOverlay(const std::string& id) const;
  Result<std::vector<streams::RowRecord>> LoadRecords(const std::string& id) const;
  // Adds `rows` (row key -> the row left, nullopt: deleted) and `records` to the buffer of the
  // session's transaction, and `bytes` to its count, in one read-modify-write of its state that
  // checks the session still holds it.
  Status Buffer(Session& session, const RowOverlay& rows,
                std::vector<streams::RowRecord> records, size_t bytes);
  // The transaction's state, as read in `state` (its record), if the session still holds it;
  // else OTSSessionNotExist.
  Result<TxnState> CheckHeld(const Session& session, const std::optional<std::string>& state) const;
  // Ends the session's transaction without writing its rows: drops every record of it (and its
  // lock, if still its own), once it checked that the session still holds it.
  Status End(Session& session);
  // Computes `change` inside the session's transaction against the row as it sees it (in
  // `pending`, this request's earlier changes, else its buffer, else the store), after the scope
  // and data-limit checks (counting `bytes`), and adds the row it leaves to `pending` and its
  // stream record to `records`.
  Status Compute(Session& session, const model::TableDescriptor& table, const RowChange& change,
                 size_t bytes, RowOverlay* pending, std::vector<streams::RowRecord>* records,
                 versions::StoredRow* after);
  // The table `table` names marked `had_transactions` (TablestoreSchema), once no request of
  // any process holds it unmarked.
  Result<TablePtr> MarkHadTransactions(TablePtr table);
  std::string NewId();

  storage::Store& store_;
  TableCatalog& catalog_;
  RowOps& rows_;
  const Clock& clock_;
  const TxnLimits limits_;
  std::atomic<uint64_t> expired_{0};
};

// How a partition key's value reads in messages: a string as is, an integer in decimal, a
// binary in base64 (ours).
std::string PartKeyText(const model::CellValue& v);

}  // namespace ttlstore::ops
