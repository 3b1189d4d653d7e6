// The table names of a batch's RequestItems map, checked before any table is looked up, as the
// service checks a map's keys: 3 to 255 characters of [a-zA-Z0-9_.-] (tighter than TableName's
// 1024, which admits ARNs). The service quotes the whole map in its message, as JSON for
// BatchGetItem and as its Java objects for BatchWriteItem (a conformance suite's capture against
// the service, tests/tier3/error-messages/batchGetItem and batchWriteItem).
#pragma once

#include "api/json_value.h"
#include "api/request.h"

namespace ttlstore::api {

// Adds the map-keys violation to `c` if a name in `items` (RequestItems) is not a table name.
void CheckBatchTableNames(const rapidjson::Value& items, bool writes, Constraints& c);

}  // namespace ttlstore::api
