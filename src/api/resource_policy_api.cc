// The resource-based policy calls: PutResourcePolicy, GetResourcePolicy, DeleteResourcePolicy
// (issue 19), on a table or one of its streams. The ARN rules and their answers are the
// service's as measured by aws-controllers-k8s (docs/compatibility.md, "Resource-based
// policies"); the document's checks are in resource_policy_doc.h, the catalog change and the
// ExpectedRevisionId check in ops/resource_policies.h.
#include "api/resource_policy_api.h"

#include "api/handlers.h"
#include "api/request.h"
#include "api/resource_policy_doc.h"
#include "api/resource_policy_rules.h"
#include "ops/resource_policies.h"
#include "streams/stream_names.h"

namespace ttlstore::api {
namespace {

constexpr char kInvalid[] = "One or more parameter values were invalid: ";

std::string Finish(const rapidjson::StringBuffer& buf) { return {buf.GetString(), buf.GetSize()}; }

// ResourceArn: required, 1 to 1283 characters (the SDK model's ResourceArnString).
Result<std::string> RequiredArn(const rapidjson::Value& req) {
  ASSIGN_OR_RETURN(arn, OptString(req, "ResourceArn"));
  Constraints c;
  c.NotNull("resourceArn", arn.has_value());
  c.Length("resourceArn", arn, 1, 1283);
  if (!c.ok()) return c.ToError();
  return *arn;
}

// ExpectedRevisionId: 1 to 255 characters (the model's PolicyRevisionId).
Result<std::optional<std::string>> ExpectedRevision(const rapidjson::Value& req) {
  ASSIGN_OR_RETURN(expected, OptString(req, "ExpectedRevisionId"));
  Constraints c;
  c.Length("expectedRevisionId", expected, 1, 255);
  if (!c.ok()) return c.ToError();
  return expected;
}

std::string Response(const std::optional<std::string>& policy, const std::string& revision) {
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  if (policy) {
    w.Key("Policy");
    WriteString(w, *policy);
  }
  if (!revision.empty()) {
    w.Key("RevisionId");
    WriteString(w, revision);
  }
  w.EndObject();
  return Finish(buf);
}

}  // namespace

Result<PolicyResource> ResolvePolicyArn(const Services& s, const std::string& arn) {
  if (arn.rfind("arn:", 0) != 0) {
    return Error::Validation(std::string(kInvalid) + "ARNs must start with 'arn:': " + arn);
  }
  // arn : partition : service : region : account : resource
  std::vector<std::string_view> parts;
  std::string_view rest(arn);
  while (parts.size() < 5) {
    size_t colon = rest.find(':');
    if (colon == std::string_view::npos) break;
    parts.push_back(rest.substr(0, colon));
    rest.remove_prefix(colon + 1);
  }
  Error not_dynamodb = Error::Validation(std::string(kInvalid) +
                                         "Provided Arn is not a DynamoDB resource arn: " + arn);
  if (parts.size() < 5 || parts[2] != "dynamodb") return not_dynamodb;
  if (parts[1] != "aws" || parts[3] != s.region) {
    return Error::Validation(std::string(kInvalid) + "Invalid resource Arn: " + arn);
  }
  if (parts[4] != s.account_id) {
    return Error::Validation(
        "This action is only supported by accounts that match the resource owner\u2019s account.");
  }
  Error not_table_or_stream = Error::Validation(
      std::string(kInvalid) +
      "Invalid resource arn provided, only table or stream is accepted. Provided resource arn: " +
      arn);
  if (rest.substr(0, 6) != "table/") return not_table_or_stream;
  rest.remove_prefix(6);
  PolicyResource out;
  size_t slash = rest.find('/');
  out.target.table = std::string(rest.substr(0, slash));
  out.target.arn = arn;
  if (slash != std::string_view::npos) {
    std::string_view sub = rest.substr(slash);
    if (sub.substr(0, 7) == "/index/") return not_table_or_stream;
    if (sub.substr(0, 8) != "/stream/") return not_dynamodb;
    std::string_view label = sub.substr(8);
    auto ms = streams::ParseStreamLabel(label);
    out.target.stream_created_ms = ms.value_or(-1);
    if (!ms) {
      // Not a label this server could have made: a stream it does not have.
      out.missing_stream = std::string(label);
    }
  }
  out.table = s.catalog.Find(out.target.table);
  if (!out.table) {
    return Error::ResourceNotFound("Requested resource not found: Table: " + out.target.table +
                                   " not found");
  }
  if (out.target.stream_created_ms) {
    bool found = false;
    for (const auto& st : out.table->streams)
      found |= st.created_ms == *out.target.stream_created_ms;
    if (!found || out.missing_stream) {
      return ops::StreamNotFound(out.missing_stream
                                     ? *out.missing_stream
                                     : streams::StreamLabel(*out.target.stream_created_ms),
                                 out.target.table);
    }
  }
  return out;
}

Result<std::string> PutResourcePolicy(const Services& s, const rapidjson::Value& req) {
  ASSIGN_OR_RETURN(policy, OptString(req, "Policy"));
  ASSIGN_OR_RETURN(arn_field, OptString(req, "ResourceArn"));
  Constraints c;
  c.NotNull("resourceArn", arn_field.has_value());
  c.Length("resourceArn", arn_field, 1, 1283);
  c.NotNull("policy", policy.has_value());
  if (!c.ok()) return c.ToError();
  ASSIGN_OR_RETURN(expected, ExpectedRevision(req));
  // The model sends it as a header (x-amz-confirm-remove-self-resource-access); a body member
  // is accepted too, and must be a boolean.
  ASSIGN_OR_RETURN(confirm, OptBool(req, "ConfirmRemoveSelfResourceAccess"));
  (void)confirm;
  ASSIGN_OR_RETURN(statements, ParseResourcePolicy(*policy));
  ASSIGN_OR_RETURN(resource, ResolvePolicyArn(s, *arn_field));
  RETURN_IF_ERROR(CheckPolicyForResource(statements, resource.target.stream_created_ms
                                                         ? PolicyResourceKind::kStream
                                                         : PolicyResourceKind::kTable));
  ASSIGN_OR_RETURN(revision,
                   ops::PutResourcePolicy(s.catalog, s.clock, resource.target, *policy, expected));
  return Response(std::nullopt, revision);
}

Result<std::string> GetResourcePolicy(const Services& s, const rapidjson::Value& req) {
  ASSIGN_OR_RETURN(arn, RequiredArn(req));
  ASSIGN_OR_RETURN(resource, ResolvePolicyArn(s, arn));
  const model::ResourcePolicy* policy =
      ops::FindResourcePolicy(*resource.table, resource.target.stream_created_ms);
  if (!policy) return ops::PolicyNotFound(arn);
  return Response(policy->document, policy->revision_id);
}

Result<std::string> DeleteResourcePolicy(const Services& s, const rapidjson::Value& req) {
  ASSIGN_OR_RETURN(arn, RequiredArn(req));
  ASSIGN_OR_RETURN(expected, ExpectedRevision(req));
  ASSIGN_OR_RETURN(resource, ResolvePolicyArn(s, arn));
  // The removed policy's RevisionId is echoed back (measured by aws-controllers-k8s).
  ASSIGN_OR_RETURN(removed, ops::DeleteResourcePolicy(s.catalog, resource.target, expected));
  return Response(std::nullopt, removed);
}

}  // namespace ttlstore::api
