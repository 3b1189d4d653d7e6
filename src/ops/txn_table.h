// TxnTable: the bookkeeping of Tablestore local transactions, without storage or locks, so that
// its rules can be tested alone under a fake clock (test/unit/txn_table_test.cc). Which
// transactions are open, which partition key each one locks, which request holds each one, when
// each one expires, and which writes from outside any transaction are under way on a partition.
// LocalTransactions (ops/local_transactions.h) owns one, under its mutex, and does the I/O.
//
// The rules (docs/tablestore.md, "Local transactions"):
// - One transaction at a time per partition key (a table and a value of its first primary-key
//   column); a second Start of it is OTSRowOperationConflict.
// - A transaction is used by one request at a time; another meanwhile gets OTSSessionBusy.
// - A transaction expires `lifetime_ms` after its start, or `idle_ms` after the end of its last
//   request, whichever comes first (the service's 60 s and 60 s). Expired, committed, aborted and
//   unknown ids are alike: OTSSessionNotExist. An expired transaction is dropped (aborted) by the
//   first call that meets it: Reap, or Start, Acquire or Locked on its partition.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/result.h"
#include "ops/row_ops.h"
#include "versions/row_key.h"

namespace ttlstore::ops {

struct TxnLimits {
  // A transaction is aborted this long after its start (the service: "The validity period of a
  // local transaction is up to 60 seconds"). Default: 60000.
  int64_t lifetime_ms = 60'000;
  // ... or this long after its last request ended ("If a transaction is not read or written for
  // more than 60 seconds, ... it times out"). Default: 60000.
  int64_t idle_ms = 60'000;
  // Open transactions at most (ours: each holds its writes in memory until it ends); one more
  // Start is refused with OTSQuotaExhausted. Default: 1000.
  size_t max_open = 1000;
  // Bytes one transaction may write, counted as for a write request (the service's 4 MB).
  size_t max_bytes = 4u << 20;
};

// One open transaction. Its fields other than `busy` and `last_used_ms` (which the table sets)
// belong to the request that holds it (busy) and are touched by no one else meanwhile.
struct Txn {
  std::string id;
  uint32_t table_id = 0;
  std::string table_name;
  // The `rows` key prefix every row of the partition key starts with (table id and the first
  // primary-key column, encoded): what is locked.
  std::string partition;
  // The partition key's value, for comparisons and messages.
  versions::PkCell partition_cell;
  int64_t started_ms = 0;
  int64_t last_used_ms = 0;
  bool busy = false;
  // The rows written so far, as the transaction left them; committed in one batch.
  RowOverlay writes;
  size_t bytes_written = 0;
  // The stream records of its writes, in order, for a table with an enabled stream: they go in
  // the commit's batch (nothing reaches the stream before the commit, nothing after an abort).
  std::vector<streams::RowRecord> stream_records;
};
using TxnPtr = std::shared_ptr<Txn>;

// A well-formed transaction id: 32 lowercase hex digits (ours). Anything else is refused with
// OTSParameterInvalid "TransactionID is invalid." before it is looked up.
bool WellFormedTxnId(std::string_view id);

class TxnTable {
 public:
  explicit TxnTable(TxnLimits limits) : limits_(limits) {}

  const TxnLimits& limits() const { return limits_; }
  size_t open() const { return by_id_.size(); }
  // Transactions dropped because they expired, since construction.
  uint64_t expired() const { return expired_; }

  // When `txn` expires.
  int64_t DeadlineOf(const Txn& txn) const;

  // Drops every transaction past its deadline at `now_ms` that no request holds. Returns how
  // many it dropped.
  size_t Reap(int64_t now_ms);

  // Opens transaction `id` on `partition` and returns it (not held by any request).
  // OTSRowOperationConflict if a live transaction locks the partition; OTSQuotaExhausted
  // (ErrorCode::kLimitExceeded) if `max_open` are open. REQUIRES: `id` is new.
  Result<TxnPtr> Start(std::string id, uint32_t table_id, std::string table_name,
                       std::string partition, versions::PkCell partition_cell, int64_t now_ms);

  // Transaction `id` for one request, marked busy until Release or Erase. OTSSessionNotExist if
  // it is unknown or expired (an expired one is dropped); OTSSessionBusy if a request holds it.
  Result<TxnPtr> Acquire(std::string_view id, int64_t now_ms);
  // Ends the request holding `txn`: its idle clock starts again. REQUIRES: held.
  void Release(const TxnPtr& txn, int64_t now_ms);
  // Drops a held transaction (committed or aborted): its partition is unlocked.
  void Erase(const TxnPtr& txn);

  // Whether a live transaction locks `partition` (an expired one found there is dropped).
  bool Locked(std::string_view partition, int64_t now_ms);

  // Writes from outside any transaction under way on a partition: a Start waits until none is
  // left (LocalTransactions), so that a transaction never begins under a write it cannot see.
  void AddOutsideWriter(const std::string& partition) { ++outside_writers_[partition]; }
  void RemoveOutsideWriter(const std::string& partition);
  size_t OutsideWriters(const std::string& partition) const;

 private:
  void Drop(const TxnPtr& txn);
  bool Expired(const Txn& txn, int64_t now_ms) const { return now_ms >= DeadlineOf(txn); }

  TxnLimits limits_;
  std::unordered_map<std::string, TxnPtr> by_id_;
  std::unordered_map<std::string, TxnPtr> by_partition_;
  // (deadline, id) of every open transaction, soonest first: Reap's walk.
  std::set<std::pair<int64_t, std::string>> deadlines_;
  std::unordered_map<std::string, size_t> outside_writers_;
  uint64_t expired_ = 0;
};

}  // namespace ttlstore::ops
