#include "api/authorize.h"

#include <rapidjson/document.h>

#include <fstream>
#include <set>
#include <sstream>

#include "api/expression_params.h"
#include "api/json_parse.h"
#include "api/parsed_policy_cache.h"
#include "api/resource_policy_doc.h"
#include "auth/resource_policy.h"
#include "expr/update.h"
#include "model/arn.h"
#include "ops/resource_policies.h"
#include "streams/shard_iterator.h"
#include "streams/stream_names.h"

namespace ttlstore::api {
namespace {

using auth::Access;

std::string Str(const rapidjson::Value& v, const char* field) {
  if (!v.IsObject()) return "";
  auto it = v.FindMember(field);
  return it != v.MemberEnd() && it->value.IsString() ? it->value.GetString() : "";
}

std::set<std::string> KeysOf(const rapidjson::Value& obj) {
  std::set<std::string> out;
  if (obj.IsObject()) {
    for (const auto& m : obj.GetObject()) out.insert(m.name.GetString());
  }
  return out;
}

// The top-level attributes an update writes (UpdateExpression, or legacy AttributeUpdates);
// nullopt if it cannot be told (the handler will refuse such a request anyway).
std::optional<std::set<std::string>> UpdatedAttributes(const rapidjson::Value& req) {
  if (auto it = req.FindMember("AttributeUpdates"); it != req.MemberEnd()) {
    return KeysOf(it->value);
  }
  std::string text = Str(req, "UpdateExpression");
  if (text.empty()) return std::set<std::string>{};
  auto ph = DecodePlaceholders(req);
  if (!ph) return std::nullopt;
  auto update = expr::Update::Parse(text, *ph);
  if (!update) return std::nullopt;
  std::set<std::string> out;
  for (const auto& path : update->TargetPaths()) {
    if (!path.empty()) out.insert(path.front().name);
  }
  return out;
}

std::string OperationOf(std::string_view target) {
  size_t dot = target.find('.');
  return std::string(dot == std::string_view::npos ? target : target.substr(dot + 1));
}

}  // namespace

std::vector<Access> AccessesOf(std::string_view target, std::string_view body,
                               const std::string& region, const std::string& account_id) {
  const std::string op = OperationOf(target);
  const std::string action = "dynamodb:" + op;
  auto arn = [&](const std::string& table) {
    return model::TableArn(region, account_id, table);
  };
  rapidjson::Document req;
  if (ParseJson(body, &req) != JsonParse::kOk || !req.IsObject()) return {{action, {"*"}, std::nullopt}};

  if (op == "BatchGetItem" || op == "BatchWriteItem") {
    Access a{action, {}, std::set<std::string>{}};
    auto items = req.FindMember("RequestItems");
    if (items == req.MemberEnd() || !items->value.IsObject()) return {{action, {"*"}, std::nullopt}};
    for (const auto& t : items->value.GetObject()) {
      a.resources.push_back(arn(t.name.GetString()));
      if (op != "BatchWriteItem" || !t.value.IsArray()) continue;
      for (const auto& w : t.value.GetArray()) {
        if (!w.IsObject()) continue;
        if (auto put = w.FindMember("PutRequest"); put != w.MemberEnd() && put->value.IsObject()) {
          if (auto item = put->value.FindMember("Item"); item != put->value.MemberEnd()) {
            for (auto& k : KeysOf(item->value)) a.attributes->insert(k);
          }
        }
      }
    }
    return {a};
  }
  if (op == "TransactWriteItems" || op == "TransactGetItems") {
    std::vector<Access> out;
    auto items = req.FindMember("TransactItems");
    if (items == req.MemberEnd() || !items->value.IsArray()) return {{action, {"*"}, std::nullopt}};
    for (const auto& entry : items->value.GetArray()) {
      if (!entry.IsObject()) continue;
      for (const auto& m : entry.GetObject()) {
        std::string kind = m.name.GetString();  // Put, Update, Delete, ConditionCheck, Get
        std::string sub = kind == "Put" ? "PutItem" : kind == "Update" ? "UpdateItem"
                        : kind == "Delete" ? "DeleteItem" : kind == "Get" ? "GetItem"
                                                               : "ConditionCheckItem";
        Access a{"dynamodb:" + sub, {arn(Str(m.value, "TableName"))}, std::set<std::string>{}};
        if (kind == "Put" && m.value.IsObject()) {
          if (auto item = m.value.FindMember("Item"); item != m.value.MemberEnd()) {
            a.attributes = KeysOf(item->value);
          }
        } else if (kind == "Update" && m.value.IsObject()) {
          a.attributes = UpdatedAttributes(m.value);
        }
        out.push_back(std::move(a));
      }
    }
    if (out.empty()) out.push_back({action, {"*"}, std::nullopt});
    return out;
  }
  if (op == "TagResource" || op == "UntagResource" || op == "ListTagsOfResource" ||
      op == "PutResourcePolicy" || op == "GetResourcePolicy" || op == "DeleteResourcePolicy") {
    std::string r = Str(req, "ResourceArn");
    return {{action, {r.empty() ? "*" : r}, std::set<std::string>{}}};
  }
  if (op == "DescribeBackup" || op == "DeleteBackup") {
    std::string r = Str(req, "BackupArn");
    return {{action, {r.empty() ? "*" : r}, std::set<std::string>{}}};
  }
  if (op == "RestoreTableFromBackup") {
    // As in IAM: the backup read, and the table it creates.
    std::string r = Str(req, "BackupArn");
    return {{action, {r.empty() ? "*" : r}, std::set<std::string>{}},
            {action, {arn(Str(req, "TargetTableName"))}, std::set<std::string>{}}};
  }
  if (op == "ImportTable") {
    // The table it creates (as in IAM, where the resource is the target table).
    auto params = req.FindMember("TableCreationParameters");
    std::string table = params == req.MemberEnd() ? "" : Str(params->value, "TableName");
    return {{action, {table.empty() ? "*" : arn(table)}, std::set<std::string>{}}};
  }
  if (op == "DescribeImport") {
    std::string r = Str(req, "ImportArn");
    return {{action, {r.empty() ? "*" : r}, std::set<std::string>{}}};
  }
  if (op == "ExportTableToPointInTime") {
    // The table it reads (as in IAM, where the resource is the source table's ARN).
    std::string r = Str(req, "TableArn");
    return {{action, {r.empty() ? "*" : r}, std::set<std::string>{}}};
  }
  if (op == "DescribeExport") {
    std::string r = Str(req, "ExportArn");
    return {{action, {r.empty() ? "*" : r}, std::set<std::string>{}}};
  }
  if (op == "RestoreTableToPointInTime") {
    // The source table read (by name or ARN), and the table it creates.
    std::string source = Str(req, "SourceTableArn");
    if (source.empty()) source = arn(Str(req, "SourceTableName"));
    return {{action, {source}, std::set<std::string>{}},
            {action, {arn(Str(req, "TargetTableName"))}, std::set<std::string>{}}};
  }
  if (op == "DescribeStream" || op == "GetShardIterator") {
    std::string r = Str(req, "StreamArn");
    return {{action, {r.empty() ? "*" : r}, std::set<std::string>{}}};
  }
  if (op == "GetRecords") {
    // The iterator names its stream (streams/shard_iterator.h): GetRecords acts on that stream,
    // as in IAM, so the stream's resource-based policy governs it too. An iterator that does
    // not decode is refused by the handler; until then it names nothing but "*".
    auto it = streams::DecodeShardIterator(Str(req, "ShardIterator"));
    return {{action, {it ? it->stream_arn : "*"}, std::set<std::string>{}}};
  }
  std::string table = Str(req, "TableName");
  if (table.empty()) return {{action, {"*"}, std::set<std::string>{}}};
  Access a{action, {arn(table)}, std::set<std::string>{}};
  if (std::string index = Str(req, "IndexName"); !index.empty()) {
    a.resources[0] += "/index/" + index;
  }
  if (op == "PutItem") {
    if (auto item = req.FindMember("Item"); item != req.MemberEnd()) a.attributes = KeysOf(item->value);
  } else if (op == "UpdateItem") {
    a.attributes = UpdatedAttributes(req);
  }
  return {a};
}

namespace {

// The resource-based policy that governs `resource` (a table ARN, an index ARN: its table's,
// a stream ARN: the stream's), parsed; nullptr when there is none (or the ARN names nothing
// here). Documents were validated when attached; one that no longer parses counts as empty.
// Each document is parsed once (the cache is keyed by its text).
std::shared_ptr<const ParsedPolicyCache::Statements> GoverningPolicy(const Services& s,
                                                                     const std::string& resource) {
  static ParsedPolicyCache cache;
  const std::string prefix = model::TableArnPrefix(s.region, s.account_id);
  if (resource.rfind(prefix, 0) != 0) return nullptr;
  std::string_view rest = std::string_view(resource).substr(prefix.size());
  size_t slash = rest.find('/');
  ops::TablePtr table = s.catalog.Find(std::string(rest.substr(0, slash)));
  if (!table) return nullptr;
  std::optional<int64_t> stream;
  if (slash != std::string_view::npos && rest.substr(slash, 8) == "/stream/") {
    stream = streams::ParseStreamLabel(rest.substr(slash + 8));
    if (!stream) return nullptr;
  }
  const model::ResourcePolicy* policy = ops::FindResourcePolicy(*table, stream);
  if (!policy) return nullptr;
  return cache.Get(policy->document);
}

}  // namespace

Status Authorize(const auth::PolicySet* policies, const Services& services,
                 const std::string& access_key_id, std::string_view target, std::string_view body) {
  const std::string& account_id = services.account_id;
  const bool restricted = policies && policies->Restricts(access_key_id);
  // The common case costs nothing: an unrestricted key and no resource policy anywhere.
  if (!restricted && !services.catalog.AnyResourcePolicy()) return Status::Ok();
  const auth::Caller caller{account_id, "arn:aws:iam::" + account_id + ":user/" + access_key_id};
  for (const auto& access : AccessesOf(target, body, services.region, account_id)) {
    for (const auto& resource : access.resources) {
      // Identity policies: a key the policy file does not list is unrestricted (an allow).
      auth::Verdict identity = auth::Verdict::kAllow;
      if (restricted) {
        identity = policies->Evaluate(access_key_id, {access.action, {resource}, access.attributes})
                       .verdict;
      }
      std::optional<auth::Verdict> by_resource;
      if (auto statements = GoverningPolicy(services, resource)) {
        by_resource = auth::EvaluateResourcePolicy(*statements, caller, access.action, resource,
                                                   access.attributes);
      }
      auth::CombinedDecision d = auth::Combine(identity, by_resource);
      if (d.verdict == auth::Verdict::kAllow) continue;
      std::string why =
          d.verdict == auth::Verdict::kImplicitDeny
              ? " because no identity-based policy allows the " + access.action + " action"
          : d.source == auth::DenySource::kResourcePolicy
              ? std::string(" with an explicit deny in a resource-based policy")
              : std::string(" with an explicit deny in an identity-based policy");
      return Error(ErrorCode::kAccessDenied, "User: " + caller.user_arn +
                                                 " is not authorized to perform: " + access.action +
                                                 " on resource: " + resource + why);
    }
  }
  return Status::Ok();
}

namespace {

Result<std::vector<std::string>> Strings(const rapidjson::Value& v, const std::string& what) {
  std::vector<std::string> out;
  if (v.IsString()) {
    out.emplace_back(v.GetString());
  } else if (v.IsArray()) {
    for (const auto& e : v.GetArray()) {
      if (!e.IsString()) return Error::Validation(what + " must hold strings");
      out.emplace_back(e.GetString());
    }
  } else {
    return Error::Validation(what + " must be a string or an array of strings");
  }
  return out;
}

Result<auth::Statement> ParseStatement(const rapidjson::Value& v, const std::string& where) {
  if (!v.IsObject()) return Error::Validation(where + ": a statement must be an object");
  auth::Statement s;
  std::string effect = Str(v, "Effect");
  if (effect != "Allow" && effect != "Deny") {
    return Error::Validation(where + ": Effect must be \"Allow\" or \"Deny\"");
  }
  s.allow = effect == "Allow";
  auto action = v.FindMember("Action");
  auto resource = v.FindMember("Resource");
  if (action == v.MemberEnd() || resource == v.MemberEnd()) {
    return Error::Validation(where + ": a statement needs Action and Resource");
  }
  ASSIGN_OR_RETURN(actions, Strings(action->value, where + ": Action"));
  ASSIGN_OR_RETURN(resources, Strings(resource->value, where + ": Resource"));
  s.actions = std::move(actions);
  s.resources = std::move(resources);
  if (auto cond = v.FindMember("Condition"); cond != v.MemberEnd()) {
    if (!cond->value.IsObject() || cond->value.MemberCount() != 1) {
      return Error::Validation(where + ": Condition must hold one operator");
    }
    const auto& op = *cond->value.MemberBegin();
    std::string name = op.name.GetString();
    if (name == "ForAnyValue:StringEquals") {
      s.condition = auth::Statement::AttributeCondition::kAnyOf;
    } else if (name == "ForAllValues:StringEquals") {
      s.condition = auth::Statement::AttributeCondition::kAllOf;
    } else {
      return Error::Validation(where + ": unsupported condition operator " + name);
    }
    auto attrs = op.value.IsObject() ? op.value.FindMember("dynamodb:Attributes")
                                     : op.value.MemberEnd();
    if (!op.value.IsObject() || attrs == op.value.MemberEnd() || op.value.MemberCount() != 1) {
      return Error::Validation(where + ": the only condition key supported is dynamodb:Attributes");
    }
    ASSIGN_OR_RETURN(list, Strings(attrs->value, where + ": dynamodb:Attributes"));
    s.attributes = std::move(list);
  }
  return s;
}

}  // namespace

Result<auth::PolicySet> ParsePolicies(std::string_view json) {
  rapidjson::Document doc;
  if (ParseJson(json, &doc) != JsonParse::kOk || !doc.IsObject()) {
    return Error::Validation("the policy file must be a JSON object of access key -> statements");
  }
  auth::PolicySet set;
  for (const auto& key : doc.GetObject()) {
    std::string id = key.name.GetString();
    if (!key.value.IsArray()) return Error::Validation(id + ": expected an array of statements");
    std::vector<auth::Statement> statements;
    int i = 0;
    for (const auto& st : key.value.GetArray()) {
      ASSIGN_OR_RETURN(s, ParseStatement(st, id + " statement " + std::to_string(i++)));
      statements.push_back(std::move(s));
    }
    set.Set(id, std::move(statements));
  }
  return set;
}

Result<auth::PolicySet> LoadPolicies(const std::string& path) {
  std::ifstream f(path);
  if (!f) return Error::Validation("cannot read policy file " + path);
  std::stringstream ss;
  ss << f.rdbuf();
  auto set = ParsePolicies(ss.str());
  if (!set) return Error::Validation(path + ": " + set.error().message());
  return set;
}

}  // namespace ttlstore::api
