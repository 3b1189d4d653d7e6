// Resource-based policies (issue 19): the statements attached to a table or a stream by
// PutResourcePolicy (or CreateTable's ResourcePolicy), and how they combine with the per-key
// identity policies of `--policies` (policy.h). Pure functions; the policy document is parsed
// by api/resource_policy_doc.h.
//
// The rules, as IAM evaluates a request within one account (IAM User Guide, "Policy evaluation
// logic"; DynamoDB Developer Guide, "Using resource-based policies for DynamoDB"):
//  - an explicit Deny in either kind of policy refuses the request;
//  - otherwise an Allow in either kind allows it (same account: the union);
//  - otherwise it is refused (implicit deny).
// A resource policy's statement applies to a caller its Principal names: "*" (or {"AWS": "*"})
// names everyone, "arn:aws:iam::<account>:user/<key>" names one access key. A Principal that
// names the account itself (its id, or "arn:aws:iam::<account>:root") names every key of the
// account for a Deny, but its Allow only delegates to the account's identity policies, so it
// allows nobody by itself (IAM User Guide, "AWS account principals").
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "auth/policy.h"

namespace ttlstore::auth {

struct ResourceStatement {
  // Effect, actions, resources and the dynamodb:Attributes condition, as in identity policies.
  Statement statement;
  // The Principal is "*" / {"AWS": "*"}.
  bool any_principal = false;
  // The AWS principals it names, as written (user ARNs, account ids, account root ARNs).
  std::vector<std::string> principals;
  // The statement carries a condition this server cannot evaluate (any key but
  // dynamodb:Attributes): as for an unknown attribute set, its Deny applies and its Allow does
  // not, the more restrictive reading.
  bool unsupported_condition = false;
  // Conditions on who the caller is, which this server can evaluate: aws:PrincipalAccount and
  // aws:PrincipalArn under String(Not)Equals, String(Not)Like, Arn(Not)Equals, Arn(Not)Like
  // (with or without IfExists: both keys are always present for a signed request). All must
  // hold for the statement to apply.
  struct PrincipalCondition {
    bool arn = false;      // aws:PrincipalArn (else aws:PrincipalAccount)
    bool like = false;     // values are globs
    bool negated = false;  // a Not operator
    std::vector<std::string> values;
  };
  std::vector<PrincipalCondition> principal_conditions;
  // The statement has a condition on a key Block Public Access trusts to narrow "everyone"
  // (aws:PrincipalAccount, aws:SourceVpc, ...; api/resource_policy_rules.h).
  bool trusted_condition = false;
};

// The caller as resource policies see it.
struct Caller {
  std::string account_id;  // "000000000000"
  std::string user_arn;    // "arn:aws:iam::000000000000:user/KEY"
};

// What `statements` say about `caller` performing `action` on `resource` (an ARN of the
// resource the policy is attached to, or of one of its indexes): kExplicitDeny if a matching
// Deny applies, else kAllow if a matching Allow does, else kImplicitDeny.
Verdict EvaluateResourcePolicy(const std::vector<ResourceStatement>& statements,
                               const Caller& caller, const std::string& action,
                               const std::string& resource,
                               const std::optional<std::set<std::string>>& attributes);

// Where a refusal came from, for the service's message.
enum class DenySource { kNone, kIdentityPolicy, kResourcePolicy };

struct CombinedDecision {
  Verdict verdict = Verdict::kAllow;
  DenySource source = DenySource::kNone;
};

// Combines the identity policies' verdict (kAllow for a key --policies does not restrict) with
// the resource policy's (nullopt: the resource has no policy) for one resource.
CombinedDecision Combine(Verdict identity, std::optional<Verdict> resource);

}  // namespace ttlstore::auth
