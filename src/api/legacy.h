// The pre-expression ("legacy") parameters that older SDKs and tools still send:
// AttributesToGet, Expected (+ ConditionalOperator), AttributeUpdates, KeyConditions,
// QueryFilter and ScanFilter. Each is translated into the equivalent expression text over
// generated placeholders (#_lN, :_lN, added to the request's Placeholders) and parsed by the same
// expression engine, so both forms behave identically.
#pragma once

#include <optional>

#include "api/json_value.h"
#include "common/result.h"
#include "expr/condition.h"
#include "expr/key_condition.h"
#include "expr/placeholders.h"
#include "expr/projection.h"
#include "expr/update.h"
#include "model/table.h"

namespace ttlstore::api {

// AttributesToGet -> projection of top-level attributes.
Result<std::optional<expr::Projection>> LegacyProjection(const rapidjson::Value& req);

// `field` is "Expected", "QueryFilter" or "ScanFilter"; combined with ConditionalOperator.
// ConditionalOperator in `req`: AND or OR, and only with a `field` (Expected, QueryFilter or
// ScanFilter) of two or more conditions, with the service's texts ("ConditionalOperator cannot
// be used without Filter or Expected", also for an empty map; "... can only be used when Filter
// or Expected has two or more elements"): ExtendDB's tests/test_conditional_operator.py, run
// against the service, and ScyllaDB's Alternator test_expected.py. LegacyCondition checks it.
Status CheckConditionalOperator(const rapidjson::Value& req, const char* field);

Result<std::optional<expr::Condition>> LegacyCondition(const rapidjson::Value& req,
                                                       const char* field, expr::Placeholders& ph);

// AttributeUpdates -> an update (PUT -> SET, DELETE -> REMOVE or set DELETE, ADD -> ADD).
Result<std::optional<expr::Update>> LegacyUpdate(const rapidjson::Value& req,
                                                 expr::Placeholders& ph);

// KeyConditions -> a key condition against `schema`.
Result<std::optional<expr::KeyCondition>> LegacyKeyConditions(const rapidjson::Value& req,
                                                               const model::KeySchema& schema,
                                                               expr::Placeholders& ph);

}  // namespace ttlstore::api
