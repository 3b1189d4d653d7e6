// The one table that maps our ErrorCode to DynamoDB's wire error: the `__type` string and the
// HTTP status. Nothing else in the server spells an exception name.
#pragma once

#include <string>

#include "common/error.h"

namespace ttlstore::api {

struct WireError {
  int http_status;
  const char* type;  // full __type, e.g. "com.amazonaws.dynamodb.v20120810#ValidationException"
  const char* name;  // short name, e.g. "ValidationException" (metrics and logs)
};

WireError ToWire(ErrorCode code);

// {"__type": ..., "message": ...}
std::string RenderErrorBody(const Error& error);

}  // namespace ttlstore::api
