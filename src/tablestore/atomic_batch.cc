// BatchWriteRow with is_atomic: the rows of each table of the request are written all or none,
// all with one partition key (docs/tablestore.md, "Atomic batch writes"; the rows' engine side
// is ops::LocalTransactions::WriteAtomic). Each table of the request is its own atomic group,
// as the service's SDK tests show it ("all writes to this table will fail").
#include "tablestore/capacity_units.h"
#include "tablestore/error_map.h"
#include "tablestore/handlers.h"
#include "tablestore/row_convert.h"
#include "tablestore/row_request.h"

namespace ttlstore::tablestore {
namespace {

namespace pb = ::ttlstore::otspb;

// One row of the table as the engine's change, with its condition.
Result<ops::RowChange> ChangeOf(const pb::RowInBatchWriteRowRequest& row,
                                const Result<PbRow>& decoded) {
  if (!decoded) return decoded.error();
  Result<ops::RowChange> change = Error::Validation("Invalid operation type.");
  switch (row.type()) {
    case pb::PUT: change = PutChangeOf(*decoded); break;
    case pb::UPDATE: change = UpdateChangeOf(*decoded); break;
    case pb::DELETE: change = DeleteChangeOf(*decoded); break;
  }
  if (!change) return change.error();
  RETURN_IF_ERROR(ApplyCondition(row.has_condition() ? &row.condition() : nullptr, &*change));
  return change;
}

// Writes the group; on failure, the error (of the row that failed: every row reports it).
Status WriteGroup(const Services& s, ops::LocalTransactions::Session* txn,
                  const model::TableDescriptor& table, const pb::TableInBatchWriteRowRequest& t,
                  std::span<const Result<PbRow>> decoded, std::vector<ops::RowChange>* changes,
                  std::vector<versions::StoredRow>* afters,
                  std::vector<std::vector<versions::PkCell>>* written_keys) {
  if (!table.tablestore->index_of.empty()) return IndexWriteRefused(table.name);
  std::vector<size_t> bytes;
  for (int i = 0; i < t.rows_size(); ++i) {
    ASSIGN_OR_RETURN(change, ChangeOf(t.rows(i), decoded[i]));
    RETURN_IF_ERROR(CheckAutoIncrement(*table.tablestore, change));
    changes->push_back(std::move(change));
    bytes.push_back(RowDataSize(*decoded[i]));
  }
  size_t failed = 0;
  if (!s.transactions) return s.rows.WriteAll(table, *changes, afters, &failed, written_keys);
  return s.transactions->WriteAtomic(txn, table, *changes, bytes, afters, &failed, written_keys);
}

}  // namespace

void WriteTableAtomically(const Services& s, ops::LocalTransactions::Session* txn,
                          const pb::TableInBatchWriteRowRequest& t,
                          std::span<const Result<PbRow>> decoded,
                          pb::TableInBatchWriteRowResponse* out) {
  std::vector<ops::RowChange> changes;
  std::vector<versions::StoredRow> afters;
  std::vector<std::vector<versions::PkCell>> written_keys;  // generated values in place
  auto found = FindTable(s, t.table_name());
  Status written = found ? WriteGroup(s, txn, **found, t, decoded, &changes, &afters, &written_keys)
                         : Status(found.error());
  if (!written) {
    // Nothing of the table was written: every row says why, with the error of the row that
    // failed (as the service answers rows of several partition keys, the same error on each).
    OtsError ots = ToOtsError(written.error());
    for (int i = 0; i < t.rows_size(); ++i) {
      auto* row = out->add_rows();
      row->set_is_ok(false);
      row->mutable_error()->set_code(ots.code);
      row->mutable_error()->set_message(ots.message);
    }
    return;
  }
  const model::TableDescriptor& table = **found;
  const bool version_bytes = CountsVersionBytes(table.tablestore->options);
  const int64_t now_ms = s.clock.NowMs();
  for (int i = 0; i < t.rows_size(); ++i) {
    auto* row = out->add_rows();
    row->set_is_ok(true);
    const ops::RowChange& change = changes[i];
    Consumed c = WriteConsumed(*decoded[i], version_bytes,
                               change.condition != ops::RowExistence::kIgnore);
    FillConsumed(c.read, c.write, row->mutable_consumed());
    if (t.rows(i).has_return_content() && static_cast<size_t>(i) < afters.size()) {
      const auto& key =
          static_cast<size_t>(i) < written_keys.size() ? written_keys[i] : change.primary_key;
      auto returned = ReturnedRow(t.rows(i).return_content(), key, afters[i],
                                  table.tablestore->options, now_ms);
      if (returned) row->set_row(EncodeRow(*returned));
    }
  }
}

}  // namespace ttlstore::tablestore
