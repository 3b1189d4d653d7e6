#include "ops/local_transactions.h"

#include <spdlog/spdlog.h>

#include <cstdio>
#include <random>

#include "ops/row_batch.h"
#include "ops/txn_errors.h"
#include "storage/key_codec.h"

namespace ttlstore::ops {
namespace {

using versions::PkCell;
using versions::StoredRow;

constexpr char kBase64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string Base64(std::string_view in) {
  std::string out;
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    uint32_t n = (uint8_t(in[i]) << 16) | (uint8_t(in[i + 1]) << 8) | uint8_t(in[i + 2]);
    for (int s = 18; s >= 0; s -= 6) out += kBase64[(n >> s) & 63];
  }
  if (i + 1 == in.size()) {
    uint32_t n = uint8_t(in[i]) << 16;
    out += kBase64[(n >> 18) & 63];
    out += kBase64[(n >> 12) & 63];
    out += "==";
  } else if (i + 2 == in.size()) {
    uint32_t n = (uint8_t(in[i]) << 16) | (uint8_t(in[i + 1]) << 8);
    out += kBase64[(n >> 18) & 63];
    out += kBase64[(n >> 12) & 63];
    out += kBase64[(n >> 6) & 63];
    out += '=';
  }
  return out;
}

Error OutOfScope(const TxnState& txn, const model::CellValue& data) {
  return TxnError(kDataOutOfRangePrefix, "Data out of scope of transaction. Transaction PartKey:" +
                                             PartKeyText(txn.partition_value) +
                                             ". Data PartKey:" + PartKeyText(data));
}

Error SessionNotExist() { return TxnError(kSessionNotExistPrefix, kSessionNotExistMessage); }
Error Conflict() { return TxnError(kRowOperationConflictPrefix, kRowOperationConflictMessage); }

constexpr auto kLeases = storage::Family::kLeases;

}  // namespace

std::string PartKeyText(const model::CellValue& v) {
  switch (v.type) {
    case model::CellType::kInteger: return std::to_string(v.integer);
    case model::CellType::kString: return v.bytes;
    case model::CellType::kBlob: return Base64(v.bytes);
    case model::CellType::kInfMin: return "INF_MIN";
    case model::CellType::kInfMax: return "INF_MAX";
    default: return "";
  }
}

LocalTransactions::LocalTransactions(storage::Store& store, TableCatalog& catalog, RowOps& rows,
                                     const Clock& clock, TxnLimits limits)
    : store_(store), catalog_(catalog), rows_(rows), clock_(clock), limits_(limits) {}

LocalTransactions::Session::~Session() {
  if (!owner_) return;
  if (Status s = owner_->Release(*this); !s) {
    // The transaction stays held until its hold lapses (TxnState::held_until_ms).
    spdlog::warn("event=transaction_release_failed message=\"{}\"", s.error().message());
  }
}

std::string LocalTransactions::NewId() {
  std::random_device rd;
  char buf[33];
  std::snprintf(buf, sizeof buf, "%08x%08x%08x%08x", rd(), rd(), rd(), rd());
  return buf;
}

Result<std::string> LocalTransactions::PartitionOf(const model::TableDescriptor& table,
                                                   const std::vector<PkCell>& pk) const {
  const auto& schema = table.tablestore->primary_key;
  if (pk.empty()) return Error::Validation("The primary key is empty.");
  // The first column, then INF_MIN for the others: the prefix every row of the partition key
  // starts with (versions/row_key.h). The first column's name and type are checked here.
  std::vector<PkCell> bound{pk[0]};
  for (size_t i = 1; i < schema.size(); ++i) {
    bound.push_back({schema[i].name, model::CellValue::Marker(model::CellType::kInfMin)});
  }
  return versions::EncodeRangeBound(table.id, schema, bound);
}

Result<TablePtr> LocalTransactions::MarkHadTransactions(TablePtr table) {
  const uint32_t id = table->id;
  const std::string name = table->name;
  table.reset();  // this request must not be one of those the wait below waits for
  auto marked = catalog_.Update(
      name,
      [&](model::TableDescriptor& t) -> Status {
        if (t.id != id || !t.tablestore) {
          return Error::ResourceNotFound("Requested table does not exist.");
        }
        t.tablestore->had_transactions = true;
        return Status::Ok();
      },
      Front::kTablestore);
  if (!marked) return marked.error();
  catalog_.WaitForOlderVersions(id);
  TablePtr now = catalog_.Find(name, Front::kTablestore);
  if (!now || now->id != id) return Error::ResourceNotFound("Requested table does not exist.");
  return now;
}

Result<std::string> LocalTransactions::Start(TablePtr table_ptr, const std::vector<PkCell>& key) {
  const model::TableDescriptor& checked = *table_ptr;
  if (!checked.tablestore->local_transactions) {
    return Error::Validation(
        "Try to call method using explicit transaction on explicit-transaction-disabled table.");
  }
  if (key.size() != 1) {
    return Error::Validation("StartLocalTransaction support only one primary key.");
  }
  if (key[0].value.type == model::CellType::kInfMin ||
      key[0].value.type == model::CellType::kInfMax) {
    return Error::Validation(std::string(versions::kInvalidPkPrefix) +
                             "Primary key schema mismatch.");
  }
  // The key's errors before the mark.
  if (auto checked_key = PartitionOf(checked, key); !checked_key) return checked_key.error();
  if (!checked.tablestore->had_transactions) {
    ASSIGN_OR_RETURN(marked, MarkHadTransactions(std::move(table_ptr)));
    table_ptr = std::move(marked);
  }
  const model::TableDescriptor& table = *table_ptr;
  ASSIGN_OR_RETURN(partition, PartitionOf(table, key));
  const std::string id = NewId();
  const std::string lock_key = TxnLockKey(partition);
  // The lock record read for update: a write from outside already under way on the partition
  // key holds it (OutsideGuard), so this waits for it, through whichever process it runs.
  RETURN_IF_ERROR(store_.ReadModifyWrite(
      {{kLeases, lock_key, /*usually_absent=*/true}},
      [&](const storage::RmwReads& reads, storage::WriteBatch& batch) -> Status {
        const int64_t now_ms = clock_.NowMs();
        if (reads[0]) {
          // The lock's new value below replaces the old one: not deleted too.
          ASSIGN_OR_RETURN(live, LockLive(*reads[0], lock_key, /*drop_lock=*/false, now_ms,
                                          batch));
          if (live) return Conflict();
        }
        TxnState state;
        state.table_id = table.id;
        state.table_name = table.name;
        state.partition = partition;
        state.partition_value = key[0].value;
        state.started_ms = state.last_used_ms = now_ms;
        batch.Put(kLeases, TxnStateKey(id), EncodeTxnState(state));
        batch.Put(kLeases, lock_key, id);
        return Status::Ok();
      }));
  return id;
}

Result<LocalTransactions::Session> LocalTransactions::Use(std::string_view id) {
  if (!WellFormedTxnId(id)) return Error::Validation("TransactionID is invalid.");
  const std::string holder = NewId();
  std::optional<TxnState> held;
  RETURN_IF_ERROR(store_.ReadModifyWrite(
      {{kLeases, TxnStateKey(id)}},
      [&](const storage::RmwReads& reads, storage::WriteBatch& batch) -> Status {
        if (!reads[0]) return SessionNotExist();
        ASSIGN_OR_RETURN(state, ParseTxnState(*reads[0]));
        const int64_t now_ms = clock_.NowMs();
        // An expired one is left for whoever holds its lock to drop (Start, a write, Reap).
        if (TxnExpired(state, limits_, now_ms)) return SessionNotExist();
        if (TxnHeld(state, now_ms)) return TxnError(kSessionBusyPrefix, kSessionBusyMessage);
        // Held until this request ends, or at most a lifetime if its process dies meanwhile.
        state.held_until_ms = now_ms + limits_.lifetime_ms;
        state.holder = holder;
        batch.Put(kLeases, TxnStateKey(id), EncodeTxnState(state));
        held = std::move(state);
        return Status::Ok();
      }));
  return Session(this, std::string(id), std::move(*held));
}

Result<TxnState> LocalTransactions::CheckHeld(const Session& session,
                                              const std::optional<std::string>& raw) const {
  if (!raw) return SessionNotExist();
  ASSIGN_OR_RETURN(state, ParseTxnState(*raw));
  // Another holder: this request's hold lapsed and the transaction went on without it.
  if (state.holder != session.state_.holder) return SessionNotExist();
  return state;
}

Status LocalTransactions::Release(Session& session) {
  session.owner_ = nullptr;
  const std::string key = TxnStateKey(session.id_);
  return store_.ReadModifyWrite(
      {{kLeases, key}}, [&](const storage::RmwReads& reads, storage::WriteBatch& batch) -> Status {
        auto state = CheckHeld(session, reads[0]);
        if (!state.ok()) return Status::Ok();  // nothing of ours to release
        state->held_until_ms = 0;
        state->holder.clear();
        state->last_used_ms = std::max(state->last_used_ms, clock_.NowMs());
        batch.Put(kLeases, key, EncodeTxnState(*state));
        return Status::Ok();
      });
}

// Commit and Abort: once the transaction's end is committed the session has nothing to release;
// if it is not (a storage outage, an unknown outcome), the session's destructor releases the
// hold, so that a retry of the call is served at once rather than answered OTSSessionBusy until
// the hold lapses (and finds the transaction gone if the end did commit).
Status LocalTransactions::End(Session& session) {
  const std::string lock_key = TxnLockKey(session.state_.partition);
  RETURN_IF_ERROR(store_.ReadModifyWrite(
      {{kLeases, TxnStateKey(session.id_)}, {kLeases, lock_key}},
      [&](const storage::RmwReads& reads, storage::WriteBatch& batch) -> Status {
        if (auto held = CheckHeld(session, reads[0]); !held) return std::move(held).error();
        StageEnd(batch, session.id_, reads[1] && *reads[1] == session.id_ ? lock_key : "");
        return Status::Ok();
      }));
  session.owner_ = nullptr;  // ended
  return Status::Ok();
}

Status LocalTransactions::Abort(Session session) { return End(session); }

Status LocalTransactions::Commit(Session session) {
  const std::string& id = session.id_;
  const std::string lock_key = TxnLockKey(session.state_.partition);
  const std::string state_key = TxnStateKey(id);
  TablePtr table = catalog_.Find(session.state_.table_name, Front::kTablestore);
  if (!table || table->id != session.state_.table_id) {
    // The transaction ends; nothing is written.
    RETURN_IF_ERROR(End(session));
    return Error::ResourceNotFound("Requested table does not exist.");
  }
  // Nothing else changes the buffer while this request holds the transaction.
  ASSIGN_OR_RETURN(writes, LoadOverlay(id));
  std::vector<streams::RowRecord> records;
  if (rows_.streams() && table->enabled_stream()) {
    ASSIGN_OR_RETURN(loaded, LoadRecords(id));
    records = std::move(loaded);
  }
  // One read-modify-write of the rows, as RowOps::Write and the purge make them (the purge may
  // be rewriting one of these rows: writes from outside are refused while the transaction is
  // open), with the transaction's state and lock: every record of it goes in the same batch.
  std::vector<storage::RmwKey> rmw_keys;
  rmw_keys.reserve(writes.size() + 2);
  for (const auto& [key, row] : writes) rmw_keys.push_back({storage::Family::kRows, key});
  rmw_keys.push_back({kLeases, state_key});
  rmw_keys.push_back({kLeases, lock_key});
  const auto& options = table->tablestore->options;
  uint64_t trimmed = 0;
  RETURN_IF_ERROR(store_.ReadModifyWrite(rmw_keys, [&](const storage::RmwReads& reads,
                                                       storage::WriteBatch& batch) -> Status {
    if (auto held = CheckHeld(session, reads[writes.size()]); !held) {
      return std::move(held).error();
    }
    const int64_t now_ms = clock_.NowMs();
    trimmed = 0;
    size_t i = 0;
    for (const auto& [key, buffered] : writes) {
      ASSIGN_OR_RETURN(old, RowOps::DecodeRead(reads[i++]));
      std::optional<StoredRow> row = buffered;
      // Trimmed again under the options and the time of the commit: versions that aged out or
      // fell past a lowered max versions since the write are not stored.
      if (row && versions::PurgeRow(*row, options, now_ms, &trimmed) ==
                     versions::PurgeVerdict::kRemove) {
        row.reset();
      }
      if (!old && !row) continue;
      StageRowChange(batch, *table->tablestore, key, old ? &*old : nullptr, row ? &*row : nullptr);
    }
    // The writes' stream records, in the order they were made, numbered now
    // (docs/tablestore.md); copies, as this may run again.
    for (const auto& record : records) {
      rows_.streams()->AddRowRecord(batch, *table, streams::RowRecord(record));
    }
    const auto& lock = reads[writes.size() + 1];
    StageEnd(batch, id, lock && *lock == id ? lock_key : "");
    return Status::Ok();
  }));
  session.owner_ = nullptr;  // ended
  rows_.NoteTrimmed(trimmed);
  return Status::Ok();
}

Result<std::optional<RowGuard>> LocalTransactions::OutsideGuard(
    const model::TableDescriptor& table, const std::vector<PkCell>& pk) {
  if (!table.tablestore->had_transactions) return std::optional<RowGuard>();
  ASSIGN_OR_RETURN(partition, PartitionOf(table, pk));
  RowGuard guard;
  guard.key = {kLeases, TxnLockKey(partition), /*usually_absent=*/true};
  guard.check = [this, lock_key = guard.key.key](const std::optional<std::string>& lock,
                                                 storage::WriteBatch& batch) -> Status {
    if (!lock) return Status::Ok();
    ASSIGN_OR_RETURN(live, LockLive(*lock, lock_key, /*drop_lock=*/true, clock_.NowMs(), batch));
    return live ? Status(Conflict()) : Status::Ok();
  };
  return std::optional<RowGuard>(std::move(guard));
}

Status LocalTransactions::CheckInScope(const TxnState& txn, const model::TableDescriptor& table,
                                       const PkCell& first) const {
  if (table.id != txn.table_id || !(first.value == txn.partition_value)) {
    return OutOfScope(txn, first.value);
  }
  return Status::Ok();
}

Status LocalTransactions::Compute(Session& session, const model::TableDescriptor& table,
                                  const RowChange& change, size_t bytes, RowOverlay* pending,
                                  std::vector<streams::RowRecord>* records, StoredRow* after) {
  const TxnState& txn = session.state_;
  ASSIGN_OR_RETURN(key, versions::EncodeRowKey(table.id, table.tablestore->primary_key,
                                               change.primary_key));
  RETURN_IF_ERROR(CheckInScope(txn, table, change.primary_key[0]));
  if (txn.bytes_written + bytes > limits_.max_bytes) {
    return TxnError(kOutOfTransactionDataSizeLimitPrefix,
                    "The data size of the transaction exceeds the limit: " +
                        std::to_string(limits_.max_bytes) + " bytes.");
  }
  // The row as the transaction sees it: this request's earlier changes, then the buffer, then
  // the store.
  std::optional<StoredRow> old;
  if (auto it = pending->find(key); it != pending->end()) {
    old = it->second;
  } else {
    ASSIGN_OR_RETURN(buffered, Buffered(session.id_, key));
    if (buffered) {
      old = std::move(*buffered);
    } else {
      ASSIGN_OR_RETURN(stored, rows_.Read(key));
      old = std::move(stored);
    }
  }
  const bool streamed = rows_.streams() && table.enabled_stream();
  std::optional<streams::RowRecord> record;
  ASSIGN_OR_RETURN(row, rows_.Apply(table, change, old, clock_.NowMs(), nullptr,
                                    streamed ? &record : nullptr));
  // As outside a transaction: a write that leaves nothing where there was nothing is no record.
  if (streamed && (old || row)) records->push_back(std::move(*record));
  if (after) *after = row ? *row : StoredRow();
  (*pending)[key] = std::move(row);
  return Status::Ok();
}

Status LocalTransactions::Write(Session* session, const model::TableDescriptor& table,
                                const RowChange& change, size_t request_bytes, StoredRow* after,
                                std::vector<PkCell>* written_key) {
  if (!session) {
    // Outside any transaction: refused while one locks the partition key (the lock record is
    // read for update with the row). A key that does not encode gets RowOps' error.
    auto guard = OutsideGuard(table, change.primary_key);
    if (!guard) return rows_.Write(table, change, after, written_key);
    return rows_.Write(table, change, after, written_key, *guard ? &**guard : nullptr);
  }
  RowOverlay pending;
  std::vector<streams::RowRecord> records;
  RETURN_IF_ERROR(Compute(*session, table, change, request_bytes, &pending, &records, after));
  RETURN_IF_ERROR(Buffer(*session, pending, std::move(records), request_bytes));
  if (written_key) *written_key = change.primary_key;
  return Status::Ok();
}

Status LocalTransactions::WriteAtomic(Session* session, const model::TableDescriptor& table,
                                      const std::vector<RowChange>& changes,
                                      const std::vector<size_t>& request_bytes,
                                      std::vector<versions::StoredRow>* afters, size_t* failed,
                                      std::vector<std::vector<PkCell>>* written_keys) {
  *failed = 0;
  if (changes.empty()) return Status::Ok();
  // One partition key: the first row's (a row without a key fails below, with its own error).
  const RowChange& first = changes[0];
  for (size_t i = 1; i < changes.size() && !first.primary_key.empty(); ++i) {
    const auto& pk = changes[i].primary_key;
    if (!pk.empty() && !(pk[0].value == first.primary_key[0].value)) {
      *failed = i;
      return TxnError(kDataOutOfRangePrefix, "Data out of scope of atomic. Atomic PartKey:" +
                                                 PartKeyText(first.primary_key[0].value) +
                                                 ". Data PartKey:" + PartKeyText(pk[0].value));
    }
  }
  if (!session) {
    auto guard = OutsideGuard(table, first.primary_key);
    if (!guard) return rows_.WriteAll(table, changes, afters, failed, written_keys);
    return rows_.WriteAll(table, changes, afters, failed, written_keys,
                          *guard ? &**guard : nullptr);
  }
  // Inside a transaction: computed one by one as Write computes them, each seeing the ones
  // before, then buffered together; nothing is buffered if one fails.
  RowOverlay pending;
  std::vector<streams::RowRecord> records;
  size_t bytes = 0;
  if (afters) afters->clear();
  const uint64_t bytes_before = session->state_.bytes_written;
  for (size_t i = 0; i < changes.size(); ++i) {
    versions::StoredRow after;
    const size_t row_bytes = i < request_bytes.size() ? request_bytes[i] : 0;
    // The data limit counts the rows before this one.
    session->state_.bytes_written = bytes_before + bytes;
    Status computed = Compute(*session, table, changes[i], row_bytes, &pending, &records,
                              afters ? &after : nullptr);
    session->state_.bytes_written = bytes_before;
    if (!computed) {
      *failed = i;
      return computed;
    }
    bytes += row_bytes;
    if (afters) afters->push_back(std::move(after));
  }
  RETURN_IF_ERROR(Buffer(*session, pending, std::move(records), bytes));
  if (written_keys) {
    written_keys->clear();
    for (const auto& c : changes) written_keys->push_back(c.primary_key);
  }
  return Status::Ok();
}

Result<std::optional<RowView>> LocalTransactions::Get(Session& session,
                                                      const model::TableDescriptor& table,
                                                      const std::vector<PkCell>& primary_key,
                                                      const versions::ReadSpec& spec) {
  ASSIGN_OR_RETURN(key, versions::EncodeRowKey(table.id, table.tablestore->primary_key,
                                               primary_key));
  RETURN_IF_ERROR(CheckInScope(session.state_, table, primary_key[0]));
  ASSIGN_OR_RETURN(buffered, Buffered(session.id_, key));
  if (buffered) {
    if (!*buffered) return std::optional<RowView>();
    return rows_.ViewRow(table, key, **buffered, spec);
  }
  return rows_.Get(table, primary_key, spec);
}

Result<RangeResult> LocalTransactions::GetRange(Session& session,
                                                const model::TableDescriptor& table,
                                                const RangeRequest& request) {
  // Both bounds must hold the partition key's value in their first column (an INF_MIN or
  // INF_MAX there reaches other partition keys).
  for (const auto* bound : {&request.start, &request.end}) {
    if (!bound->empty()) RETURN_IF_ERROR(CheckInScope(session.state_, table, (*bound)[0]));
  }
  ASSIGN_OR_RETURN(writes, LoadOverlay(session.id_));
  return rows_.GetRange(table, request, &writes);
}

}  // namespace ttlstore::ops
