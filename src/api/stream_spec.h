// StreamSpecification of CreateTable and UpdateTable: shape checks, the service's rules for
// enabling and disabling a stream, and the change to the table's stream list.
#pragma once

#include <cstdint>

#include "api/json_value.h"
#include "common/result.h"
#include "model/table.h"

namespace ttlstore::api {

using JsonValue = rapidjson::Value;

// Applies the StreamSpecification object `spec` to `table` at time `now_ms`. On CreateTable
// (`on_create`), StreamEnabled=false only checks that no view type is given; on UpdateTable it
// disables the enabled stream (which stays readable, DISABLED, for 24 hours). Enabling adds a
// new stream labelled with `now_ms` (or 1 ms past the previous label, so labels stay unique).
// Errors carry DynamoDB's messages; `table` is unchanged on error.
Status ApplyStreamSpecification(const JsonValue& spec, bool on_create,
                                model::TableDescriptor* table, int64_t now_ms);

// "NEW_AND_OLD_IMAGES" etc.
const char* StreamViewTypeName(model::StreamViewType type);

}  // namespace ttlstore::api
