// What the service checks in a resource-based policy once it knows the resource the policy is
// for (PutResourcePolicy's ARN, or CreateTable's new table), beyond the document's shape
// (resource_policy_doc.h):
//  - every action must apply to that kind of resource: a table's policy may name the table and
//    index actions, a stream's only the stream actions (DescribeStream, GetRecords,
//    GetShardIterator and the policy calls themselves); ListStreams applies to no resource, so no
//    policy may name it. The refusal lists the offending names as written, each once;
//  - Block Public Access: an Allow whose Principal is everyone ("*" or {"AWS": "*"}) must be
//    narrowed by a trusted condition key (aws:PrincipalAccount, aws:SourceVpc, ...), or the
//    policy is refused.
// Sources and texts: docs/compatibility.md, "Resource-based policies".
#pragma once

#include <string_view>
#include <vector>

#include "auth/resource_policy.h"
#include "common/result.h"

namespace ttlstore::api {

enum class PolicyResourceKind { kTable, kStream };

// Whether `action` (e.g. "dynamodb:GetItem", "dynamodb:Get*", "*"; case-insensitive) names at
// least one action that applies to a resource of `kind`.
bool ActionAppliesTo(std::string_view action, PolicyResourceKind kind);

// Whether a condition on `key` (case-insensitive) is one Block Public Access trusts to narrow
// "everyone" to known principals.
bool IsTrustedConditionKey(std::string_view key);

// The checks above, in that order; ValidationException with the service's text.
Status CheckPolicyForResource(const std::vector<auth::ResourceStatement>& statements,
                              PolicyResourceKind kind);

}  // namespace ttlstore::api
