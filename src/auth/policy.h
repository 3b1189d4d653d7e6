// IAM-like authorization per access key (issue 7, rule D15): statements allow or deny actions
// ("dynamodb:GetItem", "dynamodb:*") on resources (table ARNs, with * and ? wildcards), with an
// optional condition on the attributes a write touches (`dynamodb:Attributes`), so an operator
// can forbid UpdateTimeToLive or writes of the TTL attribute. Evaluation is IAM's: an explicit
// deny wins, otherwise some statement must allow the action on every resource.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace ttlstore::auth {

struct Statement {
  bool allow = true;
  std::vector<std::string> actions;    // patterns
  std::vector<std::string> resources;  // patterns
  // Condition on dynamodb:Attributes (the attributes a write names), if any:
  //   kAnyOf: matches when at least one written attribute is in the list
  //           ("ForAnyValue:StringEquals");
  //   kAllOf: matches when every written attribute is in the list ("ForAllValues:StringEquals").
  enum class AttributeCondition { kNone, kAnyOf, kAllOf };
  AttributeCondition condition = AttributeCondition::kNone;
  std::vector<std::string> attributes;
};

// What one request asks for, as policies see it.
struct Access {
  std::string action;                  // "dynamodb:PutItem"
  std::vector<std::string> resources;  // ARNs, or "*" for account-level actions
  // The attributes the request writes; nullopt when it could not be determined (a condition on
  // attributes then matches as the more restrictive outcome: a Deny applies, an Allow does not).
  std::optional<std::set<std::string>> attributes;
};

enum class Verdict { kAllow, kImplicitDeny, kExplicitDeny };

struct Decision {
  Verdict verdict = Verdict::kAllow;
  std::string resource;  // the resource refused, for the message
};

// Glob match with '*' (any run) and '?' (one character), case-sensitive.
bool GlobMatch(std::string_view pattern, std::string_view text);

class PolicySet {
 public:
  // Keys with no statements are not restricted (policies are opt-in per key).
  void Set(const std::string& access_key_id, std::vector<Statement> statements) {
    by_key_[access_key_id] = std::move(statements);
  }
  bool Restricts(const std::string& access_key_id) const { return by_key_.count(access_key_id); }
  Decision Evaluate(const std::string& access_key_id, const Access& access) const;

 private:
  std::map<std::string, std::vector<Statement>> by_key_;
};

}  // namespace ttlstore::auth
