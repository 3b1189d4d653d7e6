// Operation handlers, one per DynamoDB action. Each takes the parsed request object and returns
// the response JSON text or an Error. Internal to api/: dispatch.cc routes to them.
#pragma once

#include <string>

#include "api/dispatch.h"
#include "api/json_value.h"

namespace ttlstore::api {

using Handler = Result<std::string> (*)(const Services&, const rapidjson::Value&);

// Control plane (table_api.cc).
Result<std::string> CreateTable(const Services&, const rapidjson::Value&);
Result<std::string> DescribeTable(const Services&, const rapidjson::Value&);
Result<std::string> ListTables(const Services&, const rapidjson::Value&);
Result<std::string> DeleteTable(const Services&, const rapidjson::Value&);
Result<std::string> TagResource(const Services&, const rapidjson::Value&);
Result<std::string> UntagResource(const Services&, const rapidjson::Value&);
Result<std::string> ListTagsOfResource(const Services&, const rapidjson::Value&);
// Resource-based policies (resource_policy_api.cc).
Result<std::string> PutResourcePolicy(const Services&, const rapidjson::Value&);
Result<std::string> GetResourcePolicy(const Services&, const rapidjson::Value&);
Result<std::string> DeleteResourcePolicy(const Services&, const rapidjson::Value&);
// DescribeEndpoints names the address the client reached (RequestContext::host), so Dispatch
// answers it from the request's context rather than through the handler table.
std::string DescribeEndpoints(std::string_view host);
Result<std::string> DescribeLimits(const Services&, const rapidjson::Value&);
// update_table_api.cc
Result<std::string> UpdateTable(const Services&, const rapidjson::Value&);
// {"TableDescription": ...} of `t` as it is now, status included (UpdateTable's answer).
Result<std::string> RenderUpdatedTable(const Services& s, const model::TableDescriptor& t);

// Data plane (item_api.cc).
Result<std::string> PutItem(const Services&, const rapidjson::Value&);
Result<std::string> GetItem(const Services&, const rapidjson::Value&);
Result<std::string> DeleteItem(const Services&, const rapidjson::Value&);
Result<std::string> UpdateItem(const Services&, const rapidjson::Value&);

// Reads of many items (query_api.cc, batch_api.cc).
Result<std::string> Query(const Services&, const rapidjson::Value&);
Result<std::string> Scan(const Services&, const rapidjson::Value&);
Result<std::string> BatchGetItem(const Services&, const rapidjson::Value&);
Result<std::string> BatchWriteItem(const Services&, const rapidjson::Value&);
// Vector similarity search on a vector index (search_vectors_api.cc).
Result<std::string> SearchVectors(const Services&, const rapidjson::Value&);

// Transactions (transact_api.cc).
Result<std::string> TransactWriteItems(const Services&, const rapidjson::Value&);
Result<std::string> TransactGetItems(const Services&, const rapidjson::Value&);

// Item TTL (ttl_api.cc).
Result<std::string> UpdateTimeToLive(const Services&, const rapidjson::Value&);
Result<std::string> DescribeTimeToLive(const Services&, const rapidjson::Value&);

// On-demand backups (backup_api.cc).
Result<std::string> CreateBackup(const Services&, const rapidjson::Value&);
Result<std::string> DescribeBackup(const Services&, const rapidjson::Value&);
Result<std::string> ListBackups(const Services&, const rapidjson::Value&);
Result<std::string> DeleteBackup(const Services&, const rapidjson::Value&);
Result<std::string> RestoreTableFromBackup(const Services&, const rapidjson::Value&);
// Point-in-time recovery (pitr_api.cc).
Result<std::string> DescribeContinuousBackups(const Services&, const rapidjson::Value&);
Result<std::string> UpdateContinuousBackups(const Services&, const rapidjson::Value&);
Result<std::string> RestoreTableToPointInTime(const Services&, const rapidjson::Value&);

// Import from S3, from a local folder standing for S3 (import_api.cc).
Result<std::string> ImportTable(const Services&, const rapidjson::Value&);
Result<std::string> DescribeImport(const Services&, const rapidjson::Value&);
Result<std::string> ListImports(const Services&, const rapidjson::Value&);
// S3BucketSource.S3Bucket's and S3Bucket's pattern, ^[a-z0-9A-Z]+[\.\-\w]*[a-z0-9A-Z]+$, and never
// a path outside the bucket root (import_api.cc).
bool S3BucketNameOk(const std::string& bucket);

// Export to S3, into a local folder standing for S3 (export_api.cc).
Result<std::string> ExportTableToPointInTime(const Services&, const rapidjson::Value&);
Result<std::string> DescribeExport(const Services&, const rapidjson::Value&);
Result<std::string> ListExports(const Services&, const rapidjson::Value&);

// PartiQL (partiql/partiql_api.cc).
Result<std::string> ExecuteStatement(const Services&, const rapidjson::Value&);
Result<std::string> BatchExecuteStatement(const Services&, const rapidjson::Value&);
Result<std::string> ExecuteTransaction(const Services&, const rapidjson::Value&);

// DynamoDB Streams (streams_api.cc), target prefix DynamoDBStreams_20120810.
Result<std::string> ListStreams(const Services&, const rapidjson::Value&);
Result<std::string> DescribeStream(const Services&, const rapidjson::Value&);
Result<std::string> GetShardIterator(const Services&, const rapidjson::Value&);
Result<std::string> GetRecords(const Services&, const rapidjson::Value&);

// CreateTable's request as the descriptor of a new table, validated with the service's messages
// (table_api.cc); ImportTable decodes its TableCreationParameters with it too.
Result<model::TableDescriptor> DecodeNewTable(const Services& s, const rapidjson::Value& req);

// The table's ARN: arn:aws:dynamodb:<region>:<account>:table/<name>.
std::string TableArn(const Services& s, const std::string& table_name);

}  // namespace ttlstore::api
