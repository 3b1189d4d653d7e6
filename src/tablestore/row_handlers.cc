// PutRow, GetRow, UpdateRow, DeleteRow and GetRange: single-row operations and range reads
// over the versioned-row engine (T2-T10). GetRange's output options (block type, key columns,
// compression) are range_output.h's.
#include "tablestore/capacity_units.h"
#include "tablestore/handlers.h"
#include "tablestore/range_output.h"
#include "tablestore/row_convert.h"
#include "tablestore/row_request.h"
#include "tablestore/tablestore.pb.h"

namespace ttlstore::tablestore {
namespace {

namespace pb = ::ttlstore::otspb;

void SetConsumed(const Consumed& c, pb::ConsumedCapacity* out) {
  FillConsumed(c.read, c.write, out);
}

// Runs one row change (PutRow, UpdateRow, DeleteRow) and builds its response. `row` is the
// request's row, which the write units are counted from.
template <typename Response, typename Request>
Result<std::string> WriteRow(const Services& s, const Request& req, const PbRow& row,
                             Result<ops::RowChange> change) {
  const pb::Condition* condition = req.has_condition() ? &req.condition() : nullptr;
  const pb::ReturnContent* return_content =
      req.has_return_content() ? &req.return_content() : nullptr;
  ASSIGN_OR_RETURN(table, FindTable(s, req.table_name()));
  if (!change) return change.error();
  RETURN_IF_ERROR(ApplyCondition(condition, &*change));
  ASSIGN_OR_RETURN(txn, UseTransaction(s, req.has_transaction_id(), req.transaction_id()));
  versions::StoredRow after;
  std::vector<versions::PkCell> written_key;
  RETURN_IF_ERROR(WriteChange(s, txn ? &*txn : nullptr, *table, *change, RowDataSize(row),
                              &after, &written_key));
  Response resp;
  SetConsumed(WriteConsumed(row, CountsVersionBytes(table->tablestore->options),
                            ChecksCondition(*change)),
              resp.mutable_consumed());
  if (return_content) {
    auto returned = ReturnedRow(*return_content, written_key, after, table->tablestore->options,
                                s.clock.NowMs());
    if (returned) resp.set_row(EncodeRow(*returned));
  }
  return Serialize(resp);
}

}  // namespace

Result<std::string> PutRow(const Services& s, std::string_view body) {
  pb::PutRowRequest req;
  RETURN_IF_ERROR(ParseMessage(body, &req));
  ASSIGN_OR_RETURN(row, DecodeRow(req.row()));
  RETURN_IF_ERROR(CheckRequestDataSize("PutRow", RowDataSize(row)));
  return WriteRow<pb::PutRowResponse>(s, req, row, PutChangeOf(row));
}

Result<std::string> UpdateRow(const Services& s, std::string_view body) {
  pb::UpdateRowRequest req;
  RETURN_IF_ERROR(ParseMessage(body, &req));
  ASSIGN_OR_RETURN(row, DecodeRow(req.row_change()));
  RETURN_IF_ERROR(CheckRequestDataSize("UpdateRow", RowDataSize(row)));
  return WriteRow<pb::UpdateRowResponse>(s, req, row, UpdateChangeOf(row));
}

Result<std::string> DeleteRow(const Services& s, std::string_view body) {
  pb::DeleteRowRequest req;
  RETURN_IF_ERROR(ParseMessage(body, &req));
  ASSIGN_OR_RETURN(row, DecodeRow(req.primary_key()));
  return WriteRow<pb::DeleteRowResponse>(s, req, row, DeleteChangeOf(row));
}

Result<std::string> GetRow(const Services& s, std::string_view body) {
  pb::GetRowRequest req;
  RETURN_IF_ERROR(ParseMessage(body, &req));
  ASSIGN_OR_RETURN(table, FindTable(s, req.table_name()));
  ASSIGN_OR_RETURN(row, DecodeRow(req.primary_key()));
  ASSIGN_OR_RETURN(pk, PrimaryKeyOf(row));
  ASSIGN_OR_RETURN(spec, ReadSpecOfRequest(req, false));
  ASSIGN_OR_RETURN(txn, UseTransaction(s, req.has_transaction_id(), req.transaction_id()));
  ASSIGN_OR_RETURN(view, txn ? s.transactions->Get(*txn, *table, pk, spec)
                             : s.rows.Get(*table, pk, spec));
  pb::GetRowResponse resp;
  const bool version_bytes = CountsVersionBytes(table->tablestore->options);
  if (view) {
    PbRow out = ToPbRow(*view);
    SetConsumed(ReadConsumed(&out, version_bytes), resp.mutable_consumed());
    resp.set_row(EncodeRow(out));
  } else {
    SetConsumed(ReadConsumed(nullptr, version_bytes), resp.mutable_consumed());
    resp.set_row(std::string());
  }
  return Serialize(resp);
}

Result<std::string> GetRange(const Services& s, std::string_view body) {
  pb::GetRangeRequest req;
  RETURN_IF_ERROR(ParseMessage(body, &req));
  ASSIGN_OR_RETURN(table, FindTable(s, req.table_name()));
  std::vector<std::string> table_key;
  for (const auto& column : table->tablestore->primary_key) table_key.push_back(column.name);
  ASSIGN_OR_RETURN(output, RangeOutputOf(req, std::move(table_key)));
  ops::RangeRequest range;
  range.backward = req.direction() == pb::BACKWARD;
  ASSIGN_OR_RETURN(start_row, DecodeRow(req.inclusive_start_primary_key()));
  ASSIGN_OR_RETURN(start, BoundOf(start_row));
  ASSIGN_OR_RETURN(end_row, DecodeRow(req.exclusive_end_primary_key()));
  ASSIGN_OR_RETURN(end, BoundOf(end_row));
  range.start = std::move(start);
  range.end = std::move(end);
  if (req.has_limit()) {
    if (req.limit() <= 0) {
      return Error::Validation("The limit must be greater than 0.");
    }
    range.limit = req.limit();
  }
  ASSIGN_OR_RETURN(spec, ReadSpecOfRequest(req, true));
  range.spec = std::move(spec);
  ASSIGN_OR_RETURN(txn, UseTransaction(s, req.has_transaction_id(), req.transaction_id()));
  ASSIGN_OR_RETURN(result, txn ? s.transactions->GetRange(*txn, *table, range)
                               : s.rows.GetRange(*table, range));
  pb::GetRangeResponse resp;
  std::vector<PbRow> returned;
  returned.reserve(result.rows.size());
  for (const auto& view : result.rows) returned.push_back(ToPbRow(view));
  SetConsumed(RangeConsumed(returned, CountsVersionBytes(table->tablestore->options)),
              resp.mutable_consumed());
  ASSIGN_OR_RETURN(rows, EncodeRangeRows(output, std::move(returned)));
  resp.set_rows(std::move(rows));
  resp.set_data_block_type(output.matrix ? pb::DBT_SIMPLE_ROW_MATRIX : pb::DBT_PLAIN_BUFFER);
  resp.set_compress_type(pb::CPT_NONE);
  if (result.next_start) resp.set_next_start_primary_key(EncodeRow(ToPbKey(*result.next_start)));
  return Serialize(resp);
}

}  // namespace ttlstore::tablestore
