// The Tablestore operations, one function each: parse the protobuf request, check it with the
// service's messages, run it on the engine, and serialize the protobuf response. Grouped by
// file: table_handlers.cc (table control plane), row_handlers.cc (single rows and GetRange),
// batch_handlers.cc (BatchGetRow, BatchWriteRow; atomic_batch.cc its is_atomic rows),
// split_handler.cc (ComputeSplitPointsBySize), stream_handlers.cc (ListStream, DescribeStream,
// GetShardIterator, GetStreamRecord).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "common/result.h"
#include "tablestore/plainbuffer.h"
#include "tablestore/tablestore.pb.h"
#include "tablestore/request_shapes.h"
#include "tablestore/search_shapes.h"
#include "tablestore/services.h"

namespace ttlstore::tablestore {

using Handler = Result<std::string> (*)(const Services&, std::string_view body);

Result<std::string> CreateTable(const Services& s, std::string_view body);
Result<std::string> UpdateTable(const Services& s, std::string_view body);
Result<std::string> DescribeTable(const Services& s, std::string_view body);
Result<std::string> CreateIndex(const Services& s, std::string_view body);
Result<std::string> DropIndex(const Services& s, std::string_view body);
Result<std::string> AddDefinedColumn(const Services& s, std::string_view body);
Result<std::string> DeleteDefinedColumn(const Services& s, std::string_view body);
Result<std::string> ListTable(const Services& s, std::string_view body);
Result<std::string> DeleteTable(const Services& s, std::string_view body);
Result<std::string> PutRow(const Services& s, std::string_view body);
Result<std::string> GetRow(const Services& s, std::string_view body);
Result<std::string> UpdateRow(const Services& s, std::string_view body);
Result<std::string> DeleteRow(const Services& s, std::string_view body);
Result<std::string> GetRange(const Services& s, std::string_view body);
Result<std::string> BatchGetRow(const Services& s, std::string_view body);
Result<std::string> BatchWriteRow(const Services& s, std::string_view body);
Result<std::string> ComputeSplitPointsBySize(const Services& s, std::string_view body);
Result<std::string> ListStream(const Services& s, std::string_view body);
Result<std::string> DescribeStream(const Services& s, std::string_view body);
Result<std::string> GetShardIterator(const Services& s, std::string_view body);
Result<std::string> GetStreamRecord(const Services& s, std::string_view body);
Result<std::string> StartLocalTransaction(const Services& s, std::string_view body);
Result<std::string> CommitTransaction(const Services& s, std::string_view body);
Result<std::string> AbortTransaction(const Services& s, std::string_view body);
// Search indexes: search_index_handlers.cc (the control plane) and search_handlers.cc.
Result<std::string> CreateSearchIndex(const Services& s, std::string_view body);
Result<std::string> DescribeSearchIndex(const Services& s, std::string_view body);
Result<std::string> ListSearchIndex(const Services& s, std::string_view body);
Result<std::string> DeleteSearchIndex(const Services& s, std::string_view body);
Result<std::string> UpdateSearchIndex(const Services& s, std::string_view body);
Result<std::string> Search(const Services& s, std::string_view body);
Result<std::string> ComputeSplits(const Services& s, std::string_view body);
Result<std::string> ParallelScan(const Services& s, std::string_view body);

// Shared by the handlers.
// Parses `body` into `message` (missing required fields are checked by the caller, so that
// they get the service's messages instead of a bare parse failure). The bytes are checked first
// (tablestore/wire_check.h): nesting, malformed bytes and entry counts are refused before the
// generated parser allocates anything.
template <typename Message>
Status ParseMessage(std::string_view body, Message* message) {
  RETURN_IF_ERROR(CheckWire(body, WireShapeOf(*message)));
  if (!message->ParsePartialFromArray(body.data(), static_cast<int>(body.size()))) {
    return Error::Validation(std::string(kParseFailedMessage));
  }
  return Status::Ok();
}
template <typename Message>
std::string Serialize(const Message& message) {
  std::string out;
  message.SerializePartialToString(&out);
  return out;
}
// The Tablestore table named `name`, or OTSObjectNotExist; OTSNoPermissionAccess if the
// caller's policies do not allow the request's action on it.
Result<ops::TablePtr> FindTable(const Services& s, const std::string& name);
// Table, index and column names: a letter or underscore, then letters, digits, underscores.
bool ValidName(const std::string& name);
// The read-only view of the secondary index `name` (index_handlers.cc), or nullptr.
ops::TablePtr FindIndexTable(const Services& s, const std::string& name);
// The refusal of a row write to an index (docs/tablestore.md, "Secondary indexes").
Error IndexWriteRefused(const std::string& index_name);
// Checks `meta` as an index of the table `schema` (which may already have indexes) and
// returns it as stored, with a fresh rows id. T12's option checks included.
Result<model::TsIndex> NewIndex(const Services& s, const model::TablestoreSchema& schema,
                                const otspb::IndexMeta& meta);
// T12 for a table with indexes: max versions 1; a TTL other than -1 needs allow_update false.
Status CheckIndexedOptions(const model::VersionOptions& options);
// T11/T12 for UpdateTable on a table with secondary or search indexes: `before` are the
// table's options, `after` what the request makes of them (search_index_handlers.cc).
Status CheckIndexedOptionsChange(const model::TablestoreSchema& table,
                                 const model::VersionOptions& before,
                                 const model::VersionOptions& after);
void FillIndexMeta(const model::TsIndex& ix, otspb::IndexMeta* out);
// Ok if the caller may perform the request's action on table `name` ("*" for ListTable).
Status AuthorizeTable(const Services& s, const std::string& name);
// The local transaction a row request names in its transaction_id, held until the returned
// session is destroyed; nullopt when it names none (absent or empty). Errors: the
// transaction's (ops/local_transactions.h), and the caller's policies on its table.
Result<std::optional<ops::LocalTransactions::Session>> UseTransaction(const Services& s,
                                                                      bool has_id,
                                                                      const std::string& id);
// One row change: inside `txn` if given (buffered), else straight to the store, refused while
// a transaction locks the row's partition key (ops::LocalTransactions::Write). `request_bytes`
// counts toward the transaction's data limit. The AUTO_INCREMENT rules the request breaks on its
// own are checked first (CheckAutoIncrement, row_request.h). `written_key`: the primary key as
// written, a generated AUTO_INCREMENT value in place (ops::RowOps::Write).
Status WriteChange(const Services& s, ops::LocalTransactions::Session* txn,
                   const model::TableDescriptor& table, const ops::RowChange& change,
                   size_t request_bytes, versions::StoredRow* after,
                   std::vector<versions::PkCell>* written_key);

// The rows of table `t` of a BatchWriteRow with is_atomic (atomic_batch.cc), written all or
// none (ops::LocalTransactions::WriteAtomic), inside `txn` if given; `decoded` holds its rows'
// PlainBuffer, one per row. Fills `out`'s rows: all succeed, or all fail with the error of the
// row that failed.
void WriteTableAtomically(const Services& s, ops::LocalTransactions::Session* txn,
                          const otspb::TableInBatchWriteRowRequest& t,
                          std::span<const Result<PbRow>> decoded,
                          otspb::TableInBatchWriteRowResponse* out);

}  // namespace ttlstore::tablestore
