// StartLocalTransaction, CommitTransaction and AbortTransaction, and UseTransaction, which the
// row handlers call for a request's transaction_id (ops/local_transactions.h;
// docs/tablestore.md, "Local transactions").
#include "tablestore/handlers.h"
#include "tablestore/row_convert.h"
#include "tablestore/row_request.h"
#include "tablestore/tablestore.pb.h"

namespace ttlstore::tablestore {
namespace {

namespace pb = ::ttlstore::otspb;

Status CheckServed(const Services& s) {
  if (!s.transactions) return Error::Validation("Local transactions are not served here.");
  return Status::Ok();
}

// The transaction `id` names, held for this request, after the caller's policies allow the
// request's action on its table.
Result<ops::LocalTransactions::Session> UseNamed(const Services& s, const std::string& id) {
  RETURN_IF_ERROR(CheckServed(s));
  ASSIGN_OR_RETURN(session, s.transactions->Use(id));
  RETURN_IF_ERROR(AuthorizeTable(s, session.table_name()));
  return session;
}

}  // namespace

Result<std::optional<ops::LocalTransactions::Session>> UseTransaction(const Services& s,
                                                                      bool has_id,
                                                                      const std::string& id) {
  if (!has_id || id.empty()) return std::optional<ops::LocalTransactions::Session>();
  ASSIGN_OR_RETURN(session, UseNamed(s, id));
  return std::optional<ops::LocalTransactions::Session>(std::move(session));
}

Status WriteChange(const Services& s, ops::LocalTransactions::Session* txn,
                   const model::TableDescriptor& table, const ops::RowChange& change,
                   size_t request_bytes, versions::StoredRow* after,
                   std::vector<versions::PkCell>* written_key) {
  if (!table.tablestore->index_of.empty()) return IndexWriteRefused(table.name);
  RETURN_IF_ERROR(CheckAutoIncrement(*table.tablestore, change));
  if (!s.transactions) return s.rows.Write(table, change, after, written_key);
  return s.transactions->Write(txn, table, change, request_bytes, after, written_key);
}

Result<std::string> StartLocalTransaction(const Services& s, std::string_view body) {
  pb::StartLocalTransactionRequest req;
  RETURN_IF_ERROR(ParseMessage(body, &req));
  RETURN_IF_ERROR(CheckServed(s));
  ASSIGN_OR_RETURN(table, FindTable(s, req.table_name()));
  ASSIGN_OR_RETURN(row, DecodeRow(req.key()));
  ASSIGN_OR_RETURN(key, PrimaryKeyOf(row));
  ASSIGN_OR_RETURN(id, s.transactions->Start(std::move(table), key));
  pb::StartLocalTransactionResponse resp;
  resp.set_transaction_id(id);
  return Serialize(resp);
}

Result<std::string> CommitTransaction(const Services& s, std::string_view body) {
  pb::CommitTransactionRequest req;
  RETURN_IF_ERROR(ParseMessage(body, &req));
  ASSIGN_OR_RETURN(session, UseNamed(s, req.transaction_id()));
  RETURN_IF_ERROR(s.transactions->Commit(std::move(session)));
  return Serialize(pb::CommitTransactionResponse());
}

Result<std::string> AbortTransaction(const Services& s, std::string_view body) {
  pb::AbortTransactionRequest req;
  RETURN_IF_ERROR(ParseMessage(body, &req));
  ASSIGN_OR_RETURN(session, UseNamed(s, req.transaction_id()));
  RETURN_IF_ERROR(s.transactions->Abort(std::move(session)));
  pb::AbortTransactionResponse resp;
  resp.set_transaction_id(req.transaction_id());  // see tablestore.proto
  return Serialize(resp);
}

}  // namespace ttlstore::tablestore
