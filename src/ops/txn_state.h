// TxnState: what the store keeps of one open Tablestore local transaction, its records' keys
// and byte layout, and the rules of its timeouts, without I/O, so that they can be tested alone
// (test/unit/txn_state_test.cc). LocalTransactions (ops/local_transactions.h) reads and writes
// these records; every process on the store sees the same ones, so a transaction started
// through one process is used, committed or aborted through any (docs/tablestore.md, "Local
// transactions"; layouts in docs/formats.md, "Local transactions").
//
// Records, in the `leases` family:
//   txn/i/<id>                       the transaction's state (EncodeTxnState)
//   txn/p/<partition>                the partition key's lock: the id of the transaction on it
//   txn/w/<id>/<rows key>            a row as the transaction's writes left it: 'R' . the row
//                                    (versions::EncodeRow), or 'D' (deleted)
//   txn/s/<id>/<n, 8 bytes BE>       its writes' stream records, in order (streams::
//                                    EncodeRowRecord), for a table with an enabled stream
//
// The rules:
// - One transaction at a time per partition key (a table and a value of its first primary-key
//   column).
// - A transaction is used by one request at a time: the request marks it held
//   (`held_until_ms`, `holder`); another meanwhile gets OTSSessionBusy. A hold lapses at
//   `held_until_ms` (a request cut short by the loss of its process).
// - A transaction expires `lifetime_ms` after its start, or `idle_ms` after the end of its last
//   request, whichever comes first (the service's 60 s and 60 s), but never while a request
//   holds it. Expired, committed, aborted and unknown ids are alike: OTSSessionNotExist.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"
#include "model/cell.h"

namespace ttlstore::ops {

struct TxnLimits {
  // A transaction is aborted this long after its start (the service: "The validity period of a
  // local transaction is up to 60 seconds"). Default: 60000.
  int64_t lifetime_ms = 60'000;
  // ... or this long after its last request ended ("If a transaction is not read or written for
  // more than 60 seconds, ... it times out"). Default: 60000.
  int64_t idle_ms = 60'000;
  // Bytes one transaction may write, counted as for a write request (the service's 4 MB).
  size_t max_bytes = 4u << 20;
};

struct TxnState {
  uint32_t table_id = 0;
  std::string table_name;
  // The `rows` key prefix every row of the partition key starts with (table id and the first
  // primary-key column, encoded): what is locked.
  std::string partition;
  // The partition key's value (the first primary-key column's), for comparisons and messages.
  model::CellValue partition_value;
  int64_t started_ms = 0;
  int64_t last_used_ms = 0;
  // While a request holds the transaction: when the hold lapses (0: not held), and the
  // request's random token, which its later writes must still find here.
  int64_t held_until_ms = 0;
  std::string holder;
  // Bytes written so far, counted as for the write requests, against TxnLimits::max_bytes.
  uint64_t bytes_written = 0;
  // Stream records buffered so far (the next one is numbered this).
  uint64_t records = 0;
};

std::string EncodeTxnState(const TxnState& state);
std::optional<TxnState> DecodeTxnState(std::string_view bytes);
// The state a stored record holds, or an Internal error for a corrupt one.
Result<TxnState> ParseTxnState(std::string_view bytes);

// Whether a request holds the transaction at `now_ms`.
bool TxnHeld(const TxnState& state, int64_t now_ms);
// Whether the transaction has expired at `now_ms` (never while held).
bool TxnExpired(const TxnState& state, const TxnLimits& limits, int64_t now_ms);

// A well-formed transaction id: 32 lowercase hex digits (ours). Anything else is refused with
// OTSParameterInvalid "TransactionID is invalid." before it is looked up.
bool WellFormedTxnId(std::string_view id);

// The records' keys (above).
inline constexpr std::string_view kTxnPrefix = "txn/";
inline constexpr std::string_view kTxnStatePrefix = "txn/i/";
std::string TxnStateKey(std::string_view id);
std::string TxnLockKey(std::string_view partition);
std::string TxnWritePrefix(std::string_view id);
std::string TxnWriteKey(std::string_view id, std::string_view row_key);
std::string TxnRecordPrefix(std::string_view id);
std::string TxnRecordKey(std::string_view id, uint64_t n);

}  // namespace ttlstore::ops
