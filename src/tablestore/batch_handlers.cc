// BatchGetRow and BatchWriteRow: many rows of several tables in one request. Each row succeeds
// or fails on its own (is_ok, error); only problems with the request as a whole (too many rows,
// a table named twice, the refusals the service makes for the whole request) fail it with an
// HTTP error (tablestore-protocol.md 3.1; docs/tablestore.md, "Refusals of row requests").
#include <set>

#include "tablestore/capacity_units.h"
#include "tablestore/error_map.h"
#include "tablestore/handlers.h"
#include "tablestore/row_convert.h"
#include "tablestore/row_request.h"
#include "tablestore/tablestore.pb.h"

namespace ttlstore::tablestore {
namespace {

namespace pb = ::ttlstore::otspb;

void FillRowError(const Error& e, pb::Error* out) {
  OtsError ots = ToOtsError(e);
  out->set_code(ots.code);
  out->set_message(ots.message);
}

Status CheckTableNames(const std::vector<std::string>& names) {
  std::set<std::string> seen;
  for (const auto& n : names) {
    if (!seen.insert(n).second) {
      return Error::Validation("Duplicated table name: '" + EchoForError(n) + "'.");
    }
  }
  return Status::Ok();
}

// A table name the service refuses for the whole batch, not row by row.
Status CheckBatchTableName(const std::string& name) {
  if (!ValidName(name)) {
    return Error::Validation("Invalid table name: '" + EchoForError(name) + "'.");
  }
  return Status::Ok();
}

void SetConsumed(const Consumed& c, pb::ConsumedCapacity* out) {
  FillConsumed(c.read, c.write, out);
}

// One BatchWriteRow row (already decoded): convert by operation type, write; on success sets
// the row's consumed units.
Status WriteOne(const Services& s, ops::LocalTransactions::Session* txn,
                const model::TableDescriptor& table, const pb::RowInBatchWriteRowRequest& row,
                const Result<PbRow>& row_change, pb::RowInBatchWriteRowResponse* out) {
  if (!row_change) return row_change.error();
  const PbRow& decoded = *row_change;
  Result<ops::RowChange> change = Error::Validation("Invalid operation type.");
  switch (row.type()) {
    case pb::PUT: change = PutChangeOf(decoded); break;
    case pb::UPDATE: change = UpdateChangeOf(decoded); break;
    case pb::DELETE: change = DeleteChangeOf(decoded); break;
  }
  if (!change) return change.error();
  RETURN_IF_ERROR(ApplyCondition(row.has_condition() ? &row.condition() : nullptr, &*change));
  versions::StoredRow after;
  std::vector<versions::PkCell> written_key;
  RETURN_IF_ERROR(WriteChange(s, txn, table, *change, RowDataSize(decoded), &after, &written_key));
  SetConsumed(WriteConsumed(decoded, CountsVersionBytes(table.tablestore->options),
                            ChecksCondition(*change)),
              out->mutable_consumed());
  if (row.has_return_content()) {
    auto returned = ReturnedRow(row.return_content(), written_key, after, table.tablestore->options,
                                s.clock.NowMs());
    if (returned) out->set_row(EncodeRow(*returned));
  }
  return Status::Ok();
}

}  // namespace

Result<std::string> BatchGetRow(const Services& s, std::string_view body) {
  pb::BatchGetRowRequest req;
  RETURN_IF_ERROR(ParseMessage(body, &req));
  int rows = 0;
  std::vector<std::string> names;
  for (const auto& t : req.tables()) {
    rows += t.primary_key_size();
    names.push_back(t.table_name());
  }
  // The service's text (the Python SDK's row_op_test, test_no_table_in_batch_ops); a table
  // entry without rows is answered with no rows.
  if (req.tables_size() == 0) {
    return Error::Validation("No row specified in the request of BatchGetRow.");
  }
  if (static_cast<size_t>(rows) > kMaxBatchGetRows) {
    return Error::Validation("Rows count exceeds the upper limit: 100.");
  }
  RETURN_IF_ERROR(CheckTableNames(names));
  // What the service refuses for the whole request (the Java SDK's ParameterLegalityTest): a
  // table entry without a version condition, a name no table or column can have, INF_MIN or
  // INF_MAX in a key. A key that does not fit its table's schema fails on its own, below.
  std::vector<std::vector<Result<PbRow>>> keys;
  for (const auto& t : req.tables()) {
    RETURN_IF_ERROR(CheckBatchTableName(t.table_name()));
    if (!t.has_max_versions() && !t.has_time_range()) {
      return Error::Validation("No version condition is specified while querying row.");
    }
    RETURN_IF_ERROR(CheckColumnNames({t.columns_to_get().begin(), t.columns_to_get().end()}));
    auto& decoded = keys.emplace_back();
    for (const auto& key : t.primary_key()) {
      decoded.push_back(DecodeRow(key));
      if (decoded.back()) RETURN_IF_ERROR(CheckRowShape(*decoded.back()));
    }
  }
  pb::BatchGetRowResponse resp;
  size_t table_index = 0;
  for (const auto& t : req.tables()) {
    const std::vector<Result<PbRow>>& decoded_keys = keys[table_index++];
    auto* out = resp.add_tables();
    out->set_table_name(t.table_name());
    // Problems of the table entry (missing table, bad version condition or filter) fail each of
    // its rows.
    Status table_status = Status::Ok();
    ops::TablePtr table;
    versions::ReadSpec spec;
    if (auto found = FindTable(s, t.table_name()); !found) {
      table_status = found.error();
    } else {
      table = *found;
      if (auto parsed = ReadSpecOfRequest(t, false, true); !parsed) {
        table_status = parsed.error();
      } else {
        spec = std::move(*parsed);
      }
    }
    for (const Result<PbRow>& key : decoded_keys) {
      auto* row = out->add_rows();
      auto read = [&]() -> Result<std::optional<ops::RowView>> {
        RETURN_IF_ERROR(table_status);
        if (!key) return key.error();
        ASSIGN_OR_RETURN(pk, PrimaryKeyOf(*key));
        return s.rows.Get(*table, pk, spec);
      }();
      if (!read) {
        row->set_is_ok(false);
        FillRowError(read.error(), row->mutable_error());
        continue;
      }
      row->set_is_ok(true);
      const bool version_bytes = CountsVersionBytes(table->tablestore->options);
      if (read->has_value()) {
        PbRow returned = ToPbRow(**read);
        SetConsumed(ReadConsumed(&returned, version_bytes), row->mutable_consumed());
        row->set_row(EncodeRow(returned));
      } else {
        SetConsumed(ReadConsumed(nullptr, version_bytes), row->mutable_consumed());
        row->set_row(std::string());
      }
    }
  }
  return Serialize(resp);
}

Result<std::string> BatchWriteRow(const Services& s, std::string_view body) {
  pb::BatchWriteRowRequest req;
  RETURN_IF_ERROR(ParseMessage(body, &req));
  int rows = 0;
  std::vector<std::string> names;
  for (const auto& t : req.tables()) {
    rows += t.rows_size();
    names.push_back(t.table_name());
  }
  if (static_cast<size_t>(rows) > kMaxBatchWriteRows) {
    return Error::Validation("Rows count exceeds the upper limit: 200.");
  }
  RETURN_IF_ERROR(CheckTableNames(names));
  const bool atomic = req.has_is_atomic() && req.is_atomic();
  // The service's messages for a request or a table without rows (its SDKs' tests).
  if (rows == 0 && req.tables_size() == 0) {
    return Error::Validation("No row is specified in BatchWriteRow.");
  }
  for (const auto& t : req.tables()) {
    RETURN_IF_ERROR(CheckBatchTableName(t.table_name()));
    if (t.rows_size() == 0) {
      return Error::Validation("No operation is specified for table: '" +
                               EchoForError(t.table_name()) + "'.");
    }
  }
  // Every row is decoded before any is written: the 4 MB limit on the request's data covers
  // all of them, and a request refused for it leaves nothing behind. A row that does not decode
  // fails on its own below.
  std::vector<Result<PbRow>> decoded;
  decoded.reserve(static_cast<size_t>(rows));
  size_t data_size = 0;
  for (const auto& t : req.tables()) {
    for (const auto& r : t.rows()) {
      decoded.push_back(DecodeRow(r.row_change()));
      if (!decoded.back()) continue;
      RETURN_IF_ERROR(CheckRowShape(*decoded.back()));
      data_size += RowDataSize(*decoded.back());
    }
  }
  RETURN_IF_ERROR(CheckRequestDataSize("BatchWriteRow", data_size));
  // With a transaction_id every row goes into that transaction (a row of another table or
  // partition key fails on its own with OTSDataOutOfRange).
  ASSIGN_OR_RETURN(txn, UseTransaction(s, req.has_transaction_id(), req.transaction_id()));
  pb::BatchWriteRowResponse resp;
  size_t next = 0;
  for (const auto& t : req.tables()) {
    auto* out = resp.add_tables();
    out->set_table_name(t.table_name());
    if (atomic) {  // the table's rows all or none (atomic_batch.cc)
      WriteTableAtomically(s, txn ? &*txn : nullptr, t,
                           std::span<const Result<PbRow>>(decoded).subspan(next, t.rows_size()),
                           out);
      next += static_cast<size_t>(t.rows_size());
      continue;
    }
    auto found = FindTable(s, t.table_name());
    for (const auto& r : t.rows()) {
      auto* row = out->add_rows();
      const Result<PbRow>& row_change = decoded[next++];
      Status written = found ? WriteOne(s, txn ? &*txn : nullptr, **found, r, row_change, row)
                             : Status(found.error());
      if (!written) {
        row->set_is_ok(false);
        FillRowError(written.error(), row->mutable_error());
        // A failed condition still costs the read that checked it and one write unit.
        if (written.error().code() == ErrorCode::kConditionalCheckFailed) {
          SetConsumed(kFailedConditionConsumed, row->mutable_consumed());
        }
        continue;
      }
      row->set_is_ok(true);
    }
  }
  return Serialize(resp);
}

}  // namespace ttlstore::tablestore
