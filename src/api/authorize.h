// Authorization of DynamoDB requests by the operator's policies (auth/policy.h): what a request
// asks for in IAM terms (action, resource ARNs, written attributes), the policy file, and the
// AccessDeniedException the service answers.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "api/dispatch.h"
#include "auth/policy.h"
#include "common/result.h"

namespace ttlstore::api {

// The accesses a request needs: usually one; a transaction needs one per action it performs.
// A body that does not parse yields the operation's action on "*" (the handler then refuses it).
std::vector<auth::Access> AccessesOf(std::string_view target, std::string_view body,
                                     const std::string& region, const std::string& account_id);

// Ok, or AccessDeniedException with the service's message. Every resource the request names
// is checked against the caller's identity policies (`policies`, null: none; a key they do
// not list is unrestricted) and the resource-based policy that governs it (its table's, or its
// stream's), combined as auth/resource_policy.h says.
Status Authorize(const auth::PolicySet* policies, const Services& services,
                 const std::string& access_key_id, std::string_view target, std::string_view body);

// Reads the policy file: {"<access key id>": [statement, ...], ...} where a statement is
// {"Effect": "Allow"|"Deny", "Action": "dynamodb:X" | [...], "Resource": "arn" | [...],
//  "Condition": {"ForAnyValue:StringEquals" | "ForAllValues:StringEquals":
//                {"dynamodb:Attributes": [...]}}}.
Result<auth::PolicySet> LoadPolicies(const std::string& path);
Result<auth::PolicySet> ParsePolicies(std::string_view json);

}  // namespace ttlstore::api
