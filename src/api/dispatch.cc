#include "api/dispatch.h"

#include <cstddef>
#include <unordered_map>

#include "api/errors.h"
#include "api/handlers.h"
#include "api/json_parse.h"

namespace ttlstore::api {
namespace {

constexpr std::string_view kTargetPrefix = "DynamoDB_20120810.";
// The DynamoDB Streams API is served at the same endpoint, as DynamoDB Local does.
constexpr std::string_view kStreamsTargetPrefix = "DynamoDBStreams_20120810.";

const std::unordered_map<std::string_view, Handler>& StreamsHandlers() {
  static const auto* table = new std::unordered_map<std::string_view, Handler>{
      {"ListStreams", &ListStreams},
      {"DescribeStream", &DescribeStream},
      {"GetShardIterator", &GetShardIterator},
      {"GetRecords", &GetRecords},
  };
  return *table;
}

const std::unordered_map<std::string_view, Handler>& Handlers() {
  static const auto* table = new std::unordered_map<std::string_view, Handler>{
      {"CreateTable", &CreateTable},
      {"DescribeTable", &DescribeTable},
      {"ListTables", &ListTables},
      {"DeleteTable", &DeleteTable},
      {"UpdateTable", &UpdateTable},
      {"TagResource", &TagResource},
      {"UntagResource", &UntagResource},
      {"ListTagsOfResource", &ListTagsOfResource},
      {"PutResourcePolicy", &PutResourcePolicy},
      {"GetResourcePolicy", &GetResourcePolicy},
      {"DeleteResourcePolicy", &DeleteResourcePolicy},
      {"DescribeLimits", &DescribeLimits},
      {"PutItem", &PutItem},
      {"GetItem", &GetItem},
      {"DeleteItem", &DeleteItem},
      {"UpdateItem", &UpdateItem},
      {"Query", &Query},
      {"Scan", &Scan},
      {"SearchVectors", &SearchVectors},
      {"BatchGetItem", &BatchGetItem},
      {"BatchWriteItem", &BatchWriteItem},
      {"TransactWriteItems", &TransactWriteItems},
      {"TransactGetItems", &TransactGetItems},
      {"UpdateTimeToLive", &UpdateTimeToLive},
      {"DescribeTimeToLive", &DescribeTimeToLive},
      {"CreateBackup", &CreateBackup},
      {"DescribeBackup", &DescribeBackup},
      {"ListBackups", &ListBackups},
      {"DeleteBackup", &DeleteBackup},
      {"RestoreTableFromBackup", &RestoreTableFromBackup},
      {"ImportTable", &ImportTable},
      {"DescribeImport", &DescribeImport},
      {"ListImports", &ListImports},
      {"ExportTableToPointInTime", &ExportTableToPointInTime},
      {"DescribeExport", &DescribeExport},
      {"ListExports", &ListExports},
      {"DescribeContinuousBackups", &DescribeContinuousBackups},
      {"UpdateContinuousBackups", &UpdateContinuousBackups},
      {"RestoreTableToPointInTime", &RestoreTableToPointInTime},
      {"ExecuteStatement", &ExecuteStatement},
      {"BatchExecuteStatement", &BatchExecuteStatement},
      {"ExecuteTransaction", &ExecuteTransaction},
  };
  return *table;
}

ApiResponse FromError(const Error& error, std::string operation) {
  ApiResponse r;
  WireError wire = ToWire(error.code());
  r.http_status = wire.http_status;
  r.body = RenderErrorBody(error);
  r.operation = std::move(operation);
  r.error_type = wire.name;
  r.error_message = error.message();
  return r;
}

}  // namespace

ApiResponse ErrorResponse(const Error& error) { return FromError(error, ""); }

ApiResponse Dispatch(const Services& services, std::string_view target, std::string_view body,
                     const RequestContext& context) {
  Handler handler = nullptr;
  std::string_view operation;
  bool describe_endpoints = false;  // answered from the context, not by a table handler
  if (target.substr(0, kTargetPrefix.size()) == kTargetPrefix) {
    operation = target.substr(kTargetPrefix.size());
    auto it = Handlers().find(operation);
    if (it != Handlers().end()) handler = it->second;
    describe_endpoints = operation == "DescribeEndpoints";
  } else if (target.substr(0, kStreamsTargetPrefix.size()) == kStreamsTargetPrefix) {
    operation = target.substr(kStreamsTargetPrefix.size());
    auto it = StreamsHandlers().find(operation);
    if (it != StreamsHandlers().end()) handler = it->second;
  }
  if (!handler && !describe_endpoints) {
    return FromError(Error(ErrorCode::kUnknownOperation, ""), "");
  }
  // The document's values live in a pool whose first chunk is this buffer on the stack: a
  // request of ordinary size parses without one malloc for its values. RapidJSON's own first
  // chunk is 64 KB from the heap, a jemalloc "large" allocation and free per request (5% of a
  // PutItem's instructions). A bigger body spills into chunks of the usual size.
  alignas(std::max_align_t) char pool_buffer[16 * 1024];
  rapidjson::MemoryPoolAllocator<> pool(pool_buffer, sizeof pool_buffer);
  rapidjson::Document doc(&pool);
  if (ParseJson(body, &doc) != JsonParse::kOk || !doc.IsObject()) {
    // The service answers a body it cannot parse (or an empty one) with a bare
    // SerializationException: no message. A body nested deeper than kMaxJsonDepth is one we do
    // not parse (json_parse.h).
    return FromError(Error::Serialization(""), std::string(operation));
  }
  Result<std::string> result = describe_endpoints
                                   ? Result<std::string>(DescribeEndpoints(context.host))
                                   : handler(services, doc);
  if (!result) return FromError(result.error(), std::string(operation));
  ApiResponse r;
  r.body = std::move(*result);
  r.operation = std::string(operation);
  return r;
}

}  // namespace ttlstore::api
