#include "api/resource_policy_rules.h"

#include <algorithm>
#include <iterator>
#include <string>
#include <string_view>

#include "auth/policy.h"
#include "common/ascii.h"

namespace ttlstore::api {
namespace {

// The DynamoDB actions whose resource type is a table or an index (Service Authorization
// Reference, "Actions defined by Amazon DynamoDB"), lower case.
constexpr std::string_view kTableActions[] = {
    "batchgetitem", "batchwriteitem", "conditioncheckitem", "createbackup", "createtable",
    "createtablereplica", "deleteitem", "deleteresourcepolicy", "deletetable",
    "deletetablereplica", "describecontinuousbackups", "describecontributorinsights",
    "describekinesisstreamingdestination", "describetable", "describetablereplicaautoscaling",
    "describetimetolive", "disablekinesisstreamingdestination",
    "enablekinesisstreamingdestination", "exporttabletopointintime", "getitem",
    "getresourcepolicy", "importtable", "listtagsofresource", "partiqldelete", "partiqlinsert",
    "partiqlselect", "partiqlupdate", "putitem", "putresourcepolicy", "query",
    "restoretablefromawsbackup", "restoretablefrombackup", "restoretabletopointintime", "scan",
    "tagresource", "untagresource", "updatecontinuousbackups", "updatecontributorinsights",
    "updateitem", "updatekinesisstreamingdestination", "updatetable",
    "updatetablereplicaautoscaling", "updatetimetolive"};
// The actions whose resource type is a stream.
constexpr std::string_view kStreamActions[] = {
    "describestream", "getrecords", "getsharditerator", "getresourcepolicy",
    "putresourcepolicy", "deleteresourcepolicy"};

// Condition keys that Block Public Access accepts as narrowing "everyone" to known principals
// (developer guide, "Blocking public access with resource-based policies"), lower case.
constexpr std::string_view kTrustedKeys[] = {
    "aws:principalaccount", "aws:principalarn",      "aws:principalorgid",
    "aws:principalorgpaths", "aws:sourceaccount",    "aws:sourcearn",
    "aws:sourceowner",      "aws:sourcevpc",         "aws:sourcevpce",
    "aws:userid",           "aws:principalservicename", "aws:principalservicenameslist",
    "aws:sourceorgid",      "aws:sourceorgpaths"};

}  // namespace

bool IsTrustedConditionKey(std::string_view key) {
  std::string k = AsciiLower(key);
  return std::find(std::begin(kTrustedKeys), std::end(kTrustedKeys), k) != std::end(kTrustedKeys);
}

bool ActionAppliesTo(std::string_view action, PolicyResourceKind kind) {
  std::string pattern = AsciiLower(action);
  if (pattern == "*") return true;
  constexpr std::string_view kPrefix = "dynamodb:";
  if (pattern.rfind(kPrefix, 0) != 0) return false;
  std::string_view name = std::string_view(pattern).substr(kPrefix.size());
  auto matches = [&](const auto& actions) {
    return std::any_of(std::begin(actions), std::end(actions),
                       [&](std::string_view a) { return auth::GlobMatch(name, a); });
  };
  return kind == PolicyResourceKind::kTable ? matches(kTableActions) : matches(kStreamActions);
}

Status CheckPolicyForResource(const std::vector<auth::ResourceStatement>& statements,
                              PolicyResourceKind kind) {
  std::vector<std::string> invalid;
  for (const auto& rs : statements) {
    for (const auto& action : rs.statement.actions) {
      if (ActionAppliesTo(action, kind)) continue;
      if (std::find(invalid.begin(), invalid.end(), action) == invalid.end()) {
        invalid.push_back(action);
      }
    }
  }
  if (!invalid.empty()) {
    std::string names;
    for (const auto& a : invalid) names += (names.empty() ? "\"" : ", \"") + a + "\"";
    return Error::Validation(
        "One or more parameter values were invalid: Invalid policy document: The following "
        "action names are invalid: " +
        names);
  }
  for (const auto& rs : statements) {
    if (rs.statement.allow && rs.any_principal && !rs.trusted_condition) {
      return Error::Validation(
          "One or more parameter values were invalid: Block Public Access refuses a policy that "
          "grants public access: an Allow statement names Principal \"*\" without a condition "
          "on a trusted key such as aws:PrincipalAccount; name the principals instead");
    }
  }
  return Status::Ok();
}

}  // namespace ttlstore::api
