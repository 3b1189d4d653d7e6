// The policy document of PutResourcePolicy and CreateTable's ResourcePolicy: its limits, its
// validation (with the ValidationException texts), and its reading into the statements
// auth/resource_policy.h evaluates. The document is untrusted input kept on disk and read
// again on every request that its resource governs, so both paths go through here.
#pragma once

#include <string_view>
#include <vector>

#include "auth/resource_policy.h"
#include "common/result.h"

namespace ttlstore::api {

// The largest policy document, in bytes, whitespace included (API reference, PutResourcePolicy:
// "The maximum size supported for a resource-based policy document is 20 KB. DynamoDB counts
// whitespaces"). Checked before the document is parsed.
inline constexpr size_t kMaxResourcePolicyBytes = 20 * 1024;
// The deepest JSON a policy document may nest. An IAM policy is at most five levels deep
// (Statement / statement / Condition / operator / value list); anything deeper is not a policy,
// and is refused before it is read further (json_parse.h).
inline constexpr int kMaxResourcePolicyDepth = 8;

// Checks `document` and returns its statements; ValidationException "One or more parameter
// values were invalid: ..." naming what is wrong. Accepted: an object with an optional Version
// ("2012-10-17" or "2008-10-17") and a Statement (one object or an array of them); each
// statement has Effect Allow|Deny, Principal ("*", or {"AWS": "*" | arn | [arn...]}, other
// principal kinds allowed but naming no caller here), Action and Resource (a string or an array
// of strings), an optional Sid and Condition.
Result<std::vector<auth::ResourceStatement>> ParseResourcePolicy(std::string_view document);

}  // namespace ttlstore::api
