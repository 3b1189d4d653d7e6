#include "api/resource_policy_doc.h"

#include <rapidjson/document.h>

#include <algorithm>
#include <optional>
#include <string>

#include "api/json_parse.h"
#include "api/resource_policy_rules.h"
#include "common/ascii.h"

namespace ttlstore::api {
namespace {

constexpr char kInvalidDoc[] =
    "One or more parameter values were invalid: Invalid policy document: ";

Error Invalid(const std::string& why) { return Error::Validation(kInvalidDoc + why); }

// A string or a non-empty array of strings.
Result<std::vector<std::string>> Strings(const rapidjson::Value& v, const char* field) {
  std::vector<std::string> out;
  if (v.IsString()) {
    out.emplace_back(v.GetString(), v.GetStringLength());
    return out;
  }
  if (!v.IsArray() || v.Empty()) {
    return Invalid(std::string(field) + " must be a string or a non-empty array of strings");
  }
  for (const auto& e : v.GetArray()) {
    if (!e.IsString()) return Invalid(std::string(field) + " must hold only strings");
    out.emplace_back(e.GetString(), e.GetStringLength());
  }
  return out;
}

Status ReadPrincipal(const rapidjson::Value& v, auth::ResourceStatement* rs) {
  if (v.IsString()) {
    if (std::string_view(v.GetString(), v.GetStringLength()) != "*") {
      return Invalid("Principal must be \"*\" or an object such as {\"AWS\": ...}");
    }
    rs->any_principal = true;
    return Status::Ok();
  }
  if (!v.IsObject() || v.MemberCount() == 0) {
    return Invalid("Principal must be \"*\" or an object such as {\"AWS\": ...}");
  }
  for (const auto& kind : v.GetObject()) {
    ASSIGN_OR_RETURN(names, Strings(kind.value, "Principal"));
    std::string_view kind_name(kind.name.GetString(), kind.name.GetStringLength());
    // The service principals DynamoDB accepts in a resource policy (Redshift zero-ETL and
    // multi-account global tables; its refusal of others measured through aws-cdk#37273).
    if (kind_name == "Service") {
      for (const auto& n : names) {
        if (n != "redshift.amazonaws.com" && n != "replication.dynamodb.amazonaws.com") {
          return Invalid("Policy contains invalid service principal");
        }
      }
    }
    // Service and federated principals never sign requests to this server: they are kept out
    // of `principals`, so such a statement names no caller.
    if (kind_name != "AWS") continue;
    for (auto& n : names) {
      if (n == "*") {
        rs->any_principal = true;
      } else {
        rs->principals.push_back(std::move(n));
      }
    }
  }
  return Status::Ok();
}

// The condition: dynamodb:Attributes under ForAnyValue:StringEquals / ForAllValues:StringEquals
// is evaluated as in identity policies, aws:PrincipalAccount and aws:PrincipalArn under the
// string and ARN operators as principal conditions; any other operator or key is kept as
// unsupported.
std::optional<auth::ResourceStatement::PrincipalCondition> PrincipalConditionOf(
    std::string_view op, std::string_view key) {
  std::string k = AsciiLower(key);
  if (k != "aws:principalaccount" && k != "aws:principalarn") return std::nullopt;
  if (op.size() > 8 && op.substr(op.size() - 8) == "IfExists") op.remove_suffix(8);
  auth::ResourceStatement::PrincipalCondition c;
  c.arn = k == "aws:principalarn";
  if (op == "StringEquals" || op == "ArnEquals") {
  } else if (op == "StringLike" || op == "ArnLike") {
    c.like = true;
  } else if (op == "StringNotEquals" || op == "ArnNotEquals") {
    c.negated = true;
  } else if (op == "StringNotLike" || op == "ArnNotLike") {
    c.like = c.negated = true;
  } else {
    return std::nullopt;
  }
  return c;
}

Status ReadCondition(const rapidjson::Value& v, auth::ResourceStatement* rs) {
  if (!v.IsObject()) return Invalid("Condition must be an object");
  for (const auto& op : v.GetObject()) {
    if (!op.value.IsObject()) return Invalid("a Condition operator must hold an object");
    std::string_view name(op.name.GetString(), op.name.GetStringLength());
    for (const auto& key : op.value.GetObject()) {
      ASSIGN_OR_RETURN(values, Strings(key.value, "a Condition value"));
      std::string_view k(key.name.GetString(), key.name.GetStringLength());
      if (IsTrustedConditionKey(k) &&
          std::none_of(values.begin(), values.end(), [](const std::string& v) { return v == "*"; })) {
        rs->trusted_condition = true;
      }
      if (auto pc = PrincipalConditionOf(name, k)) {
        pc->values = std::move(values);
        rs->principal_conditions.push_back(std::move(*pc));
        continue;
      }
      auto& s = rs->statement;
      bool known = k == "dynamodb:Attributes" &&
                   s.condition == auth::Statement::AttributeCondition::kNone &&
                   (name == "ForAnyValue:StringEquals" || name == "ForAllValues:StringEquals");
      if (!known) {
        rs->unsupported_condition = true;
        continue;
      }
      s.condition = name == "ForAnyValue:StringEquals"
                        ? auth::Statement::AttributeCondition::kAnyOf
                        : auth::Statement::AttributeCondition::kAllOf;
      s.attributes = std::move(values);
    }
  }
  return Status::Ok();
}

Result<auth::ResourceStatement> ReadStatement(const rapidjson::Value& v) {
  if (!v.IsObject()) return Invalid("each Statement must be an object");
  auth::ResourceStatement rs;
  for (const char* unsupported : {"NotPrincipal", "NotAction", "NotResource"}) {
    if (v.HasMember(unsupported)) {
      return Invalid(std::string(unsupported) + " is not supported by this server");
    }
  }
  auto effect = v.FindMember("Effect");
  if (effect == v.MemberEnd() || !effect->value.IsString() ||
      (std::string_view(effect->value.GetString()) != "Allow" &&
       std::string_view(effect->value.GetString()) != "Deny")) {
    return Invalid("Effect must be \"Allow\" or \"Deny\"");
  }
  rs.statement.allow = std::string_view(effect->value.GetString()) == "Allow";
  auto principal = v.FindMember("Principal");
  if (principal == v.MemberEnd()) return Invalid("each Statement needs a Principal");
  RETURN_IF_ERROR(ReadPrincipal(principal->value, &rs));
  auto action = v.FindMember("Action");
  if (action == v.MemberEnd()) return Invalid("each Statement needs an Action");
  ASSIGN_OR_RETURN(actions, Strings(action->value, "Action"));
  rs.statement.actions = std::move(actions);
  auto resource = v.FindMember("Resource");
  if (resource == v.MemberEnd()) return Invalid("each Statement needs a Resource");
  ASSIGN_OR_RETURN(resources, Strings(resource->value, "Resource"));
  rs.statement.resources = std::move(resources);
  if (auto cond = v.FindMember("Condition"); cond != v.MemberEnd()) {
    RETURN_IF_ERROR(ReadCondition(cond->value, &rs));
  }
  if (auto sid = v.FindMember("Sid"); sid != v.MemberEnd() && !sid->value.IsString()) {
    return Invalid("Sid must be a string");
  }
  return rs;
}

}  // namespace

Result<std::vector<auth::ResourceStatement>> ParseResourcePolicy(std::string_view document) {
  if (document.size() > kMaxResourcePolicyBytes) {
    return Error::Validation("One or more parameter values were invalid: the policy document is " +
                             std::to_string(document.size()) + " bytes; the largest allowed is " +
                             std::to_string(kMaxResourcePolicyBytes) +
                             " bytes (20 KB, whitespace included)");
  }
  rapidjson::Document doc;
  switch (ParseJson(document, &doc, kMaxResourcePolicyDepth)) {
    case JsonParse::kOk:
      break;
    case JsonParse::kTooDeep:
      return Invalid("it is nested too deeply");
    case JsonParse::kInvalid:
      return Invalid("it is not valid JSON");
  }
  if (!doc.IsObject()) return Invalid("it must be a JSON object");
  if (auto version = doc.FindMember("Version"); version != doc.MemberEnd()) {
    if (!version->value.IsString() ||
        (std::string_view(version->value.GetString()) != "2012-10-17" &&
         std::string_view(version->value.GetString()) != "2008-10-17")) {
      return Invalid("Version must be \"2012-10-17\" or \"2008-10-17\"");
    }
  }
  auto statement = doc.FindMember("Statement");
  if (statement == doc.MemberEnd()) return Invalid("it needs a Statement");
  std::vector<auth::ResourceStatement> out;
  if (statement->value.IsObject()) {
    ASSIGN_OR_RETURN(rs, ReadStatement(statement->value));
    out.push_back(std::move(rs));
    return out;
  }
  if (!statement->value.IsArray() || statement->value.Empty()) {
    return Invalid("Statement must be an object or a non-empty array of objects");
  }
  for (const auto& st : statement->value.GetArray()) {
    ASSIGN_OR_RETURN(rs, ReadStatement(st));
    out.push_back(std::move(rs));
  }
  return out;
}

}  // namespace ttlstore::api
