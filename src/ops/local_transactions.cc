#include "ops/local_transactions.h"

#include <cstdio>
#include <random>

#include "ops/row_batch.h"
#include "ops/txn_errors.h"

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

Error OutOfScope(const Txn& txn, const model::CellValue& data) {
  return TxnError(kDataOutOfRangePrefix, "Data out of scope of transaction. Transaction PartKey:" +
                                             PartKeyText(txn.partition_cell.value) +
                                             ". Data PartKey:" + PartKeyText(data));
}

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
    : store_(store), catalog_(catalog), rows_(rows), clock_(clock), table_(limits) {}

LocalTransactions::Session::~Session() {
  if (owner_ && txn_) owner_->Release(txn_);
}

void LocalTransactions::Release(const TxnPtr& txn) {
  std::lock_guard lock(mu_);
  table_.Release(txn, clock_.NowMs());
}

size_t LocalTransactions::open() const {
  std::lock_guard lock(mu_);
  return table_.open();
}

uint64_t LocalTransactions::expired() const {
  std::lock_guard lock(mu_);
  return table_.expired();
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

Result<std::string> LocalTransactions::Start(const model::TableDescriptor& table,
                                             const std::vector<PkCell>& key) {
  if (!table.tablestore->local_transactions) {
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
  ASSIGN_OR_RETURN(partition, PartitionOf(table, key));
  std::unique_lock lock(mu_);
  const int64_t now_ms = clock_.NowMs();
  table_.Reap(now_ms);
  ASSIGN_OR_RETURN(txn, table_.Start(NewId(), table.id, table.name, partition, key[0], now_ms));
  // From here writes from outside are refused; those admitted before are let finish, so that
  // the transaction's reads see them and its commit does not overwrite them unseen. The
  // transaction is held meanwhile so that nothing can expire it.
  txn->busy = true;
  outside_done_.wait(lock, [&] { return table_.OutsideWriters(partition) == 0; });
  table_.Release(txn, clock_.NowMs());
  return txn->id;
}

Result<LocalTransactions::Session> LocalTransactions::Use(std::string_view id) {
  if (!WellFormedTxnId(id)) return Error::Validation("TransactionID is invalid.");
  std::lock_guard lock(mu_);
  const int64_t now_ms = clock_.NowMs();
  table_.Reap(now_ms);
  ASSIGN_OR_RETURN(txn, table_.Acquire(id, now_ms));
  return Session(this, std::move(txn));
}

void LocalTransactions::Abort(Session session) {
  std::lock_guard lock(mu_);
  table_.Erase(session.txn_);
  session.owner_ = nullptr;
}

Status LocalTransactions::Commit(Session session) {
  TxnPtr txn = session.txn_;
  // Whatever happens below, the transaction ends here.
  struct Ender {
    LocalTransactions* self;
    Session* session;
    ~Ender() {
      std::lock_guard lock(self->mu_);
      self->table_.Erase(session->txn_);
      session->owner_ = nullptr;
    }
  } ender{this, &session};

  TablePtr table = catalog_.Find(txn->table_name, Front::kTablestore);
  if (!table || table->id != txn->table_id) {
    return Error::ResourceNotFound("Requested table does not exist.");
  }
  if (txn->writes.empty()) return Status::Ok();
  std::vector<std::string> keys;
  keys.reserve(txn->writes.size());
  for (const auto& [key, row] : txn->writes) keys.push_back(key);
  // One read-modify-write of the rows, as RowOps::Write and the purge make them: the purge may
  // be rewriting one of these rows (writes from outside are refused while the transaction is
  // open).
  std::vector<storage::RmwKey> rmw_keys;
  rmw_keys.reserve(keys.size());
  for (const auto& key : keys) rmw_keys.push_back({storage::Family::kRows, key});
  const int64_t now_ms = clock_.NowMs();
  const auto& options = table->tablestore->options;
  uint64_t trimmed = 0;
  RETURN_IF_ERROR(store_.ReadModifyWrite(rmw_keys, [&](const storage::RmwReads& reads,
                                                       storage::WriteBatch& batch) -> Status {
    trimmed = 0;
    size_t i = 0;
    for (const auto& [key, buffered] : txn->writes) {
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
    if (rows_.streams() && table->enabled_stream()) {
      for (const auto& record : txn->stream_records) {
        rows_.streams()->AddRowRecord(batch, *table, streams::RowRecord(record));
      }
    }
    return Status::Ok();
  }));
  rows_.NoteTrimmed(trimmed);
  return Status::Ok();
}

Status LocalTransactions::CheckInScope(const Txn& txn, const model::TableDescriptor& table,
                                       const PkCell& first) const {
  if (table.id != txn.table_id || !(first.value == txn.partition_cell.value)) {
    return OutOfScope(txn, first.value);
  }
  return Status::Ok();
}

Status LocalTransactions::Write(Session* session, const model::TableDescriptor& table,
                                const RowChange& change, size_t request_bytes, StoredRow* after,
                                std::vector<PkCell>* written_key) {
  if (!session) {
    // Outside any transaction: refused while one locks the partition key, and counted as under
    // way meanwhile (Start waits for it). A key that does not encode gets RowOps' error.
    auto partition = PartitionOf(table, change.primary_key);
    if (!partition) return rows_.Write(table, change, after, written_key);
    {
      std::lock_guard lock(mu_);
      if (table_.Locked(*partition, clock_.NowMs())) {
        return TxnError(kRowOperationConflictPrefix, kRowOperationConflictMessage);
      }
      table_.AddOutsideWriter(*partition);
    }
    Status written = rows_.Write(table, change, after, written_key);
    {
      std::lock_guard lock(mu_);
      table_.RemoveOutsideWriter(*partition);
    }
    outside_done_.notify_all();
    return written;
  }
  Txn& txn = *session->txn_;
  ASSIGN_OR_RETURN(key, versions::EncodeRowKey(table.id, table.tablestore->primary_key,
                                               change.primary_key));
  RETURN_IF_ERROR(CheckInScope(txn, table, change.primary_key[0]));
  if (txn.bytes_written + request_bytes > table_.limits().max_bytes) {
    return TxnError(kOutOfTransactionDataSizeLimitPrefix,
                    "The data size of the transaction exceeds the limit: " +
                        std::to_string(table_.limits().max_bytes) + " bytes.");
  }
  std::optional<StoredRow> old;
  if (auto it = txn.writes.find(key); it != txn.writes.end()) {
    old = it->second;
  } else {
    ASSIGN_OR_RETURN(stored, rows_.Read(key));
    old = std::move(stored);
  }
  const int64_t now_ms = clock_.NowMs();
  const bool streamed = rows_.streams() && table.enabled_stream();
  std::optional<streams::RowRecord> record;
  ASSIGN_OR_RETURN(row, rows_.Apply(table, change, old, now_ms, nullptr,
                                    streamed ? &record : nullptr));
  // As outside a transaction: a write that leaves nothing where there was nothing is no record.
  if (streamed && (old || row)) {
    txn.stream_records.push_back(std::move(*record));
  }
  txn.bytes_written += request_bytes;
  if (after) *after = row ? *row : StoredRow();
  if (written_key) *written_key = change.primary_key;
  txn.writes[key] = std::move(row);
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
    auto partition = PartitionOf(table, first.primary_key);
    if (!partition) return rows_.WriteAll(table, changes, afters, failed, written_keys);
    {
      std::lock_guard lock(mu_);
      if (table_.Locked(*partition, clock_.NowMs())) {
        return TxnError(kRowOperationConflictPrefix, kRowOperationConflictMessage);
      }
      table_.AddOutsideWriter(*partition);
    }
    Status written = rows_.WriteAll(table, changes, afters, failed, written_keys);
    {
      std::lock_guard lock(mu_);
      table_.RemoveOutsideWriter(*partition);
    }
    outside_done_.notify_all();
    return written;
  }
  // Inside a transaction: buffered one by one as Write buffers them, and put back as they were
  // if one fails (the session is held by this request: nothing else changes the buffer).
  Txn& txn = *session->txn_;
  RowOverlay writes = txn.writes;
  std::vector<streams::RowRecord> records = txn.stream_records;
  const size_t bytes_written = txn.bytes_written;
  if (afters) afters->clear();
  for (size_t i = 0; i < changes.size(); ++i) {
    versions::StoredRow after;
    Status written =
        Write(session, table, changes[i], i < request_bytes.size() ? request_bytes[i] : 0,
              afters ? &after : nullptr);
    if (!written) {
      txn.writes = std::move(writes);
      txn.stream_records = std::move(records);
      txn.bytes_written = bytes_written;
      *failed = i;
      return written;
    }
    if (afters) afters->push_back(std::move(after));
  }
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
  const Txn& txn = *session.txn_;
  ASSIGN_OR_RETURN(key, versions::EncodeRowKey(table.id, table.tablestore->primary_key,
                                               primary_key));
  RETURN_IF_ERROR(CheckInScope(txn, table, primary_key[0]));
  if (auto it = txn.writes.find(key); it != txn.writes.end()) {
    if (!it->second) return std::optional<RowView>();
    return rows_.ViewRow(table, key, *it->second, spec);
  }
  return rows_.Get(table, primary_key, spec);
}

Result<RangeResult> LocalTransactions::GetRange(Session& session,
                                                const model::TableDescriptor& table,
                                                const RangeRequest& request) {
  const Txn& txn = *session.txn_;
  // Both bounds must hold the partition key's value in their first column (an INF_MIN or
  // INF_MAX there reaches other partition keys).
  for (const auto* bound : {&request.start, &request.end}) {
    if (!bound->empty()) RETURN_IF_ERROR(CheckInScope(txn, table, (*bound)[0]));
  }
  return rows_.GetRange(table, request, &txn.writes);
}

}  // namespace ttlstore::ops
