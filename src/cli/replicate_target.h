// The tables at both ends of `ttlstore replicate`: the source's description and stream check,
// and the target created from the source's DescribeTable when it is missing (keys, attribute
// definitions, GSIs, LSIs, billing mode and throughput, stream specification, table class,
// deletion protection; then UpdateTimeToLive with the source's TTL setting), waited for until
// it and its indexes are ACTIVE.
#pragma once

#include <atomic>
#include <boost/json/object.hpp>
#include <string>

#include "client/dynamodb_client.h"
#include "common/result.h"

namespace ttlstore::cli {

// The `Table` member of a DescribeTable response (as parsed JSON).
using TableDescription = boost::json::object;

// DescribeTable `table`; kResourceNotFound when it does not exist, kInternal with the
// service's error text otherwise.
Result<TableDescription> DescribeTable(client::DynamoDbClient& ddb, const std::string& table);

// Pure: the CreateTable request that makes `target_name` a table like `source` (without items).
boost::json::object CreateTableRequestFrom(const TableDescription& source,
                                           const std::string& target_name);

// Polls DescribeTable until the table and all its GSIs are ACTIVE (at most `timeout_s`).
Result<TableDescription> WaitActive(client::DynamoDbClient& ddb, const std::string& table,
                                    int timeout_s, const std::atomic<bool>& stop);

// Creates the target from `source` if it does not exist (and copies the TTL setting read from
// `source_ddb`); checks that an existing target has the source's key schema. `created` says
// whether it was made here.
Status EnsureTarget(client::DynamoDbClient& source_ddb, const TableDescription& source,
                    client::DynamoDbClient& target_ddb, const std::string& target_table,
                    const std::atomic<bool>& stop, bool* created);

// Enables TTL on the target with the source's attribute when the source has TTL and the target
// has none.
Status CopyTtlSetting(client::DynamoDbClient& source_ddb, const std::string& source_table,
                      client::DynamoDbClient& target_ddb, const std::string& target_table);

// The source's stream view type if it records new images (NEW_IMAGE, NEW_AND_OLD_IMAGES), else
// "" and `why` says what the stream is (disabled, KEYS_ONLY, OLD_IMAGE).
std::string NewImageStreamViewType(const TableDescription& source, std::string* why);

// Turns on a NEW_AND_OLD_IMAGES stream on the source (UpdateTable) and waits for ACTIVE.
Result<TableDescription> EnableSourceStream(client::DynamoDbClient& ddb, const std::string& table,
                                            const std::atomic<bool>& stop);

}  // namespace ttlstore::cli
