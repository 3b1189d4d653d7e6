// The expression parameters a request carries: ExpressionAttributeNames and
// ExpressionAttributeValues, decoded into expr::Placeholders with the service's checks, and the
// check, once every expression of the request is parsed, that each placeholder was used.
#pragma once

#include "api/json_value.h"
#include "common/result.h"
#include "expr/placeholders.h"

namespace ttlstore::api {

// Decodes both maps of `req` (either may be absent).
Result<expr::Placeholders> DecodePlaceholders(const rapidjson::Value& req);

// "Value provided in ExpressionAttributeNames unused in expressions: keys: {#a, #b}", then the
// same for values. Call after parsing every expression of the request.
Status CheckPlaceholdersUsed(const expr::Placeholders& ph);

}  // namespace ttlstore::api
