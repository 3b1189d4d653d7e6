// LocalTransactions' records in the store (ops/txn_state.h, docs/formats.md "Local
// transactions"): the buffered rows and stream records of a transaction, the removal of what is
// left of one, the lock's liveness as a write from outside finds it, and the reap.
#include "ops/local_transactions.h"
#include "ops/txn_errors.h"
#include "storage/key_codec.h"

namespace ttlstore::ops {
namespace {

using versions::StoredRow;

constexpr auto kLeases = storage::Family::kLeases;

// A buffered row's record: 'R' . the row, or 'D' for a delete.
std::string EncodeBuffered(const std::optional<StoredRow>& row) {
  return row ? "R" + versions::EncodeRow(*row) : std::string("D");
}
Result<std::optional<StoredRow>> DecodeBuffered(std::string_view bytes) {
  if (bytes == "D") return std::optional<StoredRow>();
  StoredRow row;
  if (bytes.empty() || bytes[0] != 'R' || !versions::DecodeRow(bytes.substr(1), &row)) {
    return Error::Internal("corrupt buffered row of a local transaction");
  }
  return std::optional<StoredRow>(std::move(row));
}

}  // namespace

void LocalTransactions::StageEnd(storage::WriteBatch& batch, const std::string& id,
                                 const std::string& lock_key) {
  batch.Delete(kLeases, TxnStateKey(id));
  if (!lock_key.empty()) batch.Delete(kLeases, lock_key);
  for (const std::string& prefix : {TxnWritePrefix(id), TxnRecordPrefix(id)}) {
    batch.DeleteRange(kLeases, prefix, storage::PrefixSuccessor(prefix));
  }
}

Result<bool> LocalTransactions::LockLive(const std::string& id, const std::string& lock_key,
                                         bool drop_lock, int64_t now_ms,
                                         storage::WriteBatch& batch) {
  ASSIGN_OR_RETURN(raw, store_.Get(kLeases, TxnStateKey(id)));
  if (raw) {
    ASSIGN_OR_RETURN(state, ParseTxnState(*raw));
    if (!TxnExpired(state, limits_, now_ms)) return true;
  }
  // Ended by expiry: dropped here, by whoever meets it first (a lock with no state left is a
  // lock only).
  StageEnd(batch, id, drop_lock ? lock_key : std::string());
  if (raw) {
    batch.OnOutcome([this](storage::BatchOutcome o) {
      if (o == storage::BatchOutcome::kCommitted) ++expired_;
    });
  }
  return false;
}

Result<std::optional<std::optional<StoredRow>>> LocalTransactions::Buffered(
    const std::string& id, const std::string& key) const {
  ASSIGN_OR_RETURN(raw, store_.Get(kLeases, TxnWriteKey(id, key)));
  if (!raw) return std::optional<std::optional<StoredRow>>();
  ASSIGN_OR_RETURN(row, DecodeBuffered(*raw));
  return std::optional<std::optional<StoredRow>>(std::move(row));
}

Result<RowOverlay> LocalTransactions::LoadOverlay(const std::string& id) const {
  RowOverlay overlay;
  RETURN_IF_ERROR(store_.ForEachUnder(
      kLeases, TxnWritePrefix(id), [&](std::string_view row_key, std::string_view value) -> Status {
        ASSIGN_OR_RETURN(row, DecodeBuffered(value));
        overlay.emplace(std::string(row_key), std::move(row));
        return Status::Ok();
      }));
  return overlay;
}

Result<std::vector<streams::RowRecord>> LocalTransactions::LoadRecords(
    const std::string& id) const {
  std::vector<streams::RowRecord> records;
  RETURN_IF_ERROR(store_.ForEachUnder(
      kLeases, TxnRecordPrefix(id), [&](std::string_view, std::string_view value) -> Status {
        auto record = streams::DecodeRowRecord(value);
        if (!record) {
          return Error::Internal("corrupt buffered stream record of a local transaction");
        }
        records.push_back(std::move(*record));
        return Status::Ok();
      }));
  return records;
}

Status LocalTransactions::Buffer(Session& session, const RowOverlay& rows,
                                 std::vector<streams::RowRecord> records, size_t bytes) {
  const std::string key = TxnStateKey(session.id_);
  TxnState written;
  RETURN_IF_ERROR(store_.ReadModifyWrite(
      {{kLeases, key}}, [&](const storage::RmwReads& reads, storage::WriteBatch& batch) -> Status {
        ASSIGN_OR_RETURN(held, CheckHeld(session, reads[0]));
        written = std::move(held);
        for (const auto& [row_key, row] : rows) {
          batch.Put(kLeases, TxnWriteKey(session.id_, row_key), EncodeBuffered(row));
        }
        for (const auto& record : records) {
          batch.Put(kLeases, TxnRecordKey(session.id_, written.records++),
                    streams::EncodeRowRecord(record));
        }
        written.bytes_written += bytes;
        batch.Put(kLeases, key, EncodeTxnState(written));
        return Status::Ok();
      }));
  session.state_ = std::move(written);
  return Status::Ok();
}

Result<size_t> LocalTransactions::Reap() {
  std::vector<std::pair<std::string, TxnState>> expired;
  const int64_t now_ms = clock_.NowMs();
  RETURN_IF_ERROR(store_.ForEachUnder(
      kLeases, kTxnStatePrefix, [&](std::string_view id, std::string_view value) -> Status {
        auto state = DecodeTxnState(value);  // a corrupt one is left to `ttlstore check`
        if (state && TxnExpired(*state, limits_, now_ms)) {
          expired.emplace_back(std::string(id), std::move(*state));
        }
        return Status::Ok();
      }));
  size_t dropped = 0;
  for (const auto& [id, seen] : expired) {
    const std::string lock_key = TxnLockKey(seen.partition);
    bool dropping = false;
    RETURN_IF_ERROR(store_.ReadModifyWrite(
        {{kLeases, TxnStateKey(id)}, {kLeases, lock_key}},
        [&](const storage::RmwReads& reads, storage::WriteBatch& batch) -> Status {
          dropping = false;
          if (!reads[0]) return Status::Ok();
          auto state = DecodeTxnState(*reads[0]);
          if (!state || !TxnExpired(*state, limits_, clock_.NowMs())) return Status::Ok();
          StageEnd(batch, id, reads[1] && *reads[1] == id ? lock_key : "");
          dropping = true;
          return Status::Ok();
        }));
    if (dropping) {
      ++dropped;
      ++expired_;
    }
  }
  return dropped;
}

Status LocalTransactions::DropAll() {
  storage::WriteBatch batch(store_);
  batch.DeleteRange(kLeases, std::string(kTxnPrefix),
                    storage::PrefixSuccessor(std::string(kTxnPrefix)));
  return store_.Write(batch);
}

size_t LocalTransactions::open() const {
  size_t n = 0;
  const int64_t now_ms = clock_.NowMs();
  // A failed scan counts what it read (this feeds /metrics only).
  (void)store_.ForEachUnder(kLeases, kTxnStatePrefix,
                            [&](std::string_view, std::string_view value) -> Status {
                              auto state = DecodeTxnState(value);
                              if (state && !TxnExpired(*state, limits_, now_ms)) ++n;
                              return Status::Ok();
                            });
  return n;
}

}  // namespace ttlstore::ops
