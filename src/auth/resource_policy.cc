#include "auth/resource_policy.h"

#include <algorithm>

#include "common/ascii.h"

namespace ttlstore::auth {
namespace {

bool AnyMatch(const std::vector<std::string>& patterns, std::string_view text) {
  return std::any_of(patterns.begin(), patterns.end(),
                     [&](const std::string& p) { return GlobMatch(p, text); });
}

// Action names are case-insensitive (IAM User Guide, "IAM JSON policy elements: Action").
bool AnyActionMatch(const std::vector<std::string>& patterns, std::string_view action) {
  std::string a = AsciiLower(action);
  return std::any_of(patterns.begin(), patterns.end(),
                     [&](const std::string& p) { return GlobMatch(AsciiLower(p), a); });
}

bool PrincipalConditionHolds(const ResourceStatement::PrincipalCondition& c,
                             const Caller& caller) {
  const std::string& value = c.arn ? caller.user_arn : caller.account_id;
  bool any = std::any_of(c.values.begin(), c.values.end(), [&](const std::string& v) {
    return c.like ? GlobMatch(v, value) : v == value;
  });
  return c.negated ? !any : any;
}

// Whether `p` names the caller's whole account rather than one key.
bool NamesAccount(const std::string& p, const Caller& caller) {
  return p == caller.account_id || p == "arn:aws:iam::" + caller.account_id + ":root";
}

// Whether the statement's Principal covers the caller, for a statement of this effect.
bool PrincipalMatches(const ResourceStatement& rs, const Caller& caller) {
  if (rs.any_principal) return true;
  for (const auto& p : rs.principals) {
    if (p == caller.user_arn) return true;
    // The account as principal delegates an Allow to identity policies; a Deny covers everyone
    // in it.
    if (!rs.statement.allow && NamesAccount(p, caller)) return true;
  }
  return false;
}

// The dynamodb:Attributes condition, as identity policies read it (policy.cc).
bool ConditionHolds(const ResourceStatement& rs, const Caller& caller,
                    const std::optional<std::set<std::string>>& attributes) {
  const Statement& s = rs.statement;
  if (rs.unsupported_condition) return !s.allow;
  for (const auto& c : rs.principal_conditions) {
    if (!PrincipalConditionHolds(c, caller)) return false;
  }
  if (s.condition == Statement::AttributeCondition::kNone) return true;
  if (!attributes) return !s.allow;
  auto listed = [&](const std::string& a) {
    return std::find(s.attributes.begin(), s.attributes.end(), a) != s.attributes.end();
  };
  if (s.condition == Statement::AttributeCondition::kAnyOf) {
    return std::any_of(attributes->begin(), attributes->end(), listed);
  }
  return std::all_of(attributes->begin(), attributes->end(), listed);
}

}  // namespace

Verdict EvaluateResourcePolicy(const std::vector<ResourceStatement>& statements,
                               const Caller& caller, const std::string& action,
                               const std::string& resource,
                               const std::optional<std::set<std::string>>& attributes) {
  bool allowed = false;
  for (const auto& rs : statements) {
    const Statement& s = rs.statement;
    if (!AnyActionMatch(s.actions, action) || !AnyMatch(s.resources, resource)) continue;
    if (!PrincipalMatches(rs, caller) || !ConditionHolds(rs, caller, attributes)) continue;
    if (!s.allow) return Verdict::kExplicitDeny;
    allowed = true;
  }
  return allowed ? Verdict::kAllow : Verdict::kImplicitDeny;
}

CombinedDecision Combine(Verdict identity, std::optional<Verdict> resource) {
  // An explicit deny anywhere wins; the resource policy's is reported first, as the service
  // names the policy that denied.
  if (resource == Verdict::kExplicitDeny) {
    return {Verdict::kExplicitDeny, DenySource::kResourcePolicy};
  }
  if (identity == Verdict::kExplicitDeny) {
    return {Verdict::kExplicitDeny, DenySource::kIdentityPolicy};
  }
  if (identity == Verdict::kAllow || resource == Verdict::kAllow) return {};
  return {Verdict::kImplicitDeny, DenySource::kIdentityPolicy};
}

}  // namespace ttlstore::auth
