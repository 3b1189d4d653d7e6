// The Tablestore operations, one function each: parse the protobuf request, check it with the
// service's messages, run it on the engine, and serialize the protobuf response. Grouped by
// file: table_handlers.cc (table control plane), row_handlers.cc (single rows and GetRange),
// batch_handlers.cc (BatchGetRow, BatchWriteRow), split_handler.cc (ComputeSplitPointsBySize), stream_handlers.cc
// (ListStream, DescribeStream, GetShardIterator, GetStreamRecord).
#pragma once

#include <string>
#include <string_view>

#include "common/result.h"
#include "tablestore/request_shapes.h"
#include "tablestore/services.h"

namespace ttlstore::tablestore {

using Handler = Result<std::string> (*)(const Services&, std::string_view body);

Result<std::string> CreateTable(const Services& s, std::string_view body);
Result<std::string> UpdateTable(const Services& s, std::string_view body);
Result<std::string> DescribeTable(const Services& s, std::string_view body);
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
// Ok if the caller may perform the request's action on table `name` ("*" for ListTable).
Status AuthorizeTable(const Services& s, const std::string& name);

}  // namespace ttlstore::tablestore
