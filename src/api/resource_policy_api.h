// What the resource-policy calls and the authorizer share: resolving a table or stream ARN to
// the table that holds its policy (resource_policy_api.cc).
#pragma once

#include <optional>
#include <string>

#include "api/dispatch.h"
#include "ops/resource_policies.h"

namespace ttlstore::api {

struct PolicyResource {
  ops::PolicyTarget target;
  ops::TablePtr table;                        // the snapshot the policy was read from
  std::optional<std::string> missing_stream;  // internal: a label that does not parse
};

// Resolves ResourceArn (a table's, or one of its streams') with the service's answers:
// ValidationException for an ARN that is not one, names another region, partition or account,
// an index or anything but a table or stream; ResourceNotFoundException "Requested resource not
// found: Table: T not found" or "... Stream: LABEL not found for Table: T".
Result<PolicyResource> ResolvePolicyArn(const Services& s, const std::string& arn);

}  // namespace ttlstore::api
