#include "auth/policy.h"

#include <algorithm>

namespace ttlstore::auth {
namespace {

bool AnyMatch(const std::vector<std::string>& patterns, std::string_view text) {
  return std::any_of(patterns.begin(), patterns.end(),
                     [&](const std::string& p) { return GlobMatch(p, text); });
}

// Whether the statement's condition holds. `for_deny`: an undeterminable attribute set makes a
// Deny apply and an Allow not.
bool ConditionHolds(const Statement& s, const Access& a) {
  if (s.condition == Statement::AttributeCondition::kNone) return true;
  if (!a.attributes) return !s.allow;
  auto listed = [&](const std::string& attr) {
    return std::find(s.attributes.begin(), s.attributes.end(), attr) != s.attributes.end();
  };
  if (s.condition == Statement::AttributeCondition::kAnyOf) {
    return std::any_of(a.attributes->begin(), a.attributes->end(), listed);
  }
  return std::all_of(a.attributes->begin(), a.attributes->end(), listed);
}

}  // namespace

bool GlobMatch(std::string_view p, std::string_view t) {
  size_t pi = 0, ti = 0, star = std::string_view::npos, mark = 0;
  while (ti < t.size()) {
    if (pi < p.size() && (p[pi] == '?' || p[pi] == t[ti])) {
      ++pi;
      ++ti;
    } else if (pi < p.size() && p[pi] == '*') {
      star = pi++;
      mark = ti;
    } else if (star != std::string_view::npos) {
      pi = star + 1;
      ti = ++mark;
    } else {
      return false;
    }
  }
  while (pi < p.size() && p[pi] == '*') ++pi;
  return pi == p.size();
}

Decision PolicySet::Evaluate(const std::string& access_key_id, const Access& access) const {
  auto it = by_key_.find(access_key_id);
  if (it == by_key_.end()) return {};
  const auto& statements = it->second;
  for (const auto& resource : access.resources) {
    bool allowed = false;
    for (const auto& s : statements) {
      if (!AnyMatch(s.actions, access.action) || !AnyMatch(s.resources, resource)) continue;
      if (!ConditionHolds(s, access)) continue;
      if (!s.allow) return {Verdict::kExplicitDeny, resource};
      allowed = true;
    }
    if (!allowed) return {Verdict::kImplicitDeny, resource};
  }
  return {};
}

}  // namespace ttlstore::auth
