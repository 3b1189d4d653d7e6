// Control-plane handlers: CreateTable, DescribeTable, ListTables, DeleteTable, DescribeEndpoints
// and DescribeLimits (the tagging calls are in tag_api.cc). Shape checks here, catalog rules in ops/table_ops.
#include <algorithm>
#include <cctype>
#include <set>

#include "api/handlers.h"
#include "api/request.h"
#include "api/resource_policy_doc.h"
#include "api/resource_policy_rules.h"
#include "api/stream_spec.h"
#include "api/table_schema.h"
#include "api/tags.h"
#include "model/arn.h"
#include "model/expiry.h"
#include "ops/resource_policies.h"
#include "streams/stream_names.h"

namespace ttlstore::api {
namespace {

using model::BillingMode;
using model::ValueType;

constexpr char kInvalid[] = "One or more parameter values were invalid: ";

std::string Finish(const rapidjson::StringBuffer& buf) { return {buf.GetString(), buf.GetSize()}; }


std::optional<ValueType> ParseScalarType(const std::string& s) {
  if (s == "S") return ValueType::kS;
  if (s == "N") return ValueType::kN;
  if (s == "B") return ValueType::kB;
  return std::nullopt;
}

void WriteTableDescription(JsonWriter& w, const Services& s, const model::TableDescriptor& t,
                           const storage::TableStats& stats, const char* status) {
  // DeleteTable's answer leaves out the schema: no AttributeDefinitions, KeySchema,
  // CreationDateTime or indexes (Alternator's test_delete_table_description and
  // test_delete_table_description_with_si, run against the service).
  const bool deleting = std::string_view(status) == "DELETING";
  w.StartObject();
  if (!deleting) {
    w.Key("AttributeDefinitions");
    w.StartArray();
    for (const auto& d : t.attribute_definitions) {
      w.StartObject();
      w.Key("AttributeName");
      WriteString(w, d.name);
      w.Key("AttributeType");
      w.String(model::TypeName(d.type));
      w.EndObject();
    }
    w.EndArray();
  }
  w.Key("TableName");
  WriteString(w, t.name);
  if (!deleting) {
    w.Key("KeySchema");
    WriteKeySchema(w, t.key);
  }
  w.Key("TableStatus");
  w.String(status);
  double created = static_cast<double>(t.creation_time_ms) / 1000.0;
  if (!deleting) {
    w.Key("CreationDateTime");
    w.Double(created);
  }
  w.Key("ProvisionedThroughput");
  WriteThroughput(w, t.read_capacity, t.write_capacity);
  w.Key("TableSizeBytes");
  w.Int64(stats.size_bytes);
  w.Key("ItemCount");
  w.Int64(stats.item_count);
  w.Key("TableArn");
  WriteString(w, TableArn(s, t.name));
  w.Key("TableId");
  WriteString(w, t.uuid);
  if (t.billing_mode == BillingMode::kPayPerRequest) {
    w.Key("BillingModeSummary");
    w.StartObject();
    w.Key("BillingMode");
    w.String("PAY_PER_REQUEST");
    w.Key("LastUpdateToPayPerRequestDateTime");
    w.Double(created);
    w.EndObject();
  }
  if (!deleting) {
    auto index_stats = s.catalog.IndexStats(t);
    WriteIndexes(w, TableArn(s, t.name), t, index_stats);
    WriteVectorIndexes(w, TableArn(s, t.name), t, index_stats);
  }
  // A disabled stream shows no StreamSpecification, but stays the latest stream (as in DynamoDB).
  if (const model::StreamInfo* st = t.enabled_stream()) {
    w.Key("StreamSpecification");
    w.StartObject();
    w.Key("StreamEnabled");
    w.Bool(true);
    w.Key("StreamViewType");
    w.String(StreamViewTypeName(st->view_type));
    w.EndObject();
  }
  if (const model::StreamInfo* st = t.latest_stream()) {
    std::string label = streams::StreamLabel(st->created_ms);
    w.Key("LatestStreamLabel");
    WriteString(w, label);
    w.Key("LatestStreamArn");
    WriteString(w, TableArn(s, t.name) + "/stream/" + label);
  }
  // An import's table carries only the loading mark (backup/table_import.h): no summary.
  if (t.restore && !(t.restore->source_backup_arn.empty() && t.restore->source_table_arn.empty())) {
    w.Key("RestoreSummary");
    w.StartObject();
    // A point-in-time restore has no backup (RestoreSummary.SourceBackupArn is optional).
    if (!t.restore->source_backup_arn.empty()) {
      w.Key("SourceBackupArn");
      WriteString(w, t.restore->source_backup_arn);
    }
    w.Key("SourceTableArn");
    WriteString(w, t.restore->source_table_arn);
    w.Key("RestoreDateTime");
    w.Double(static_cast<double>(t.restore->restore_time_ms) / 1000.0);
    w.Key("RestoreInProgress");
    w.Bool(t.restore->in_progress);
    w.EndObject();
  }
  w.Key("DeletionProtectionEnabled");
  w.Bool(t.deletion_protection);
  w.EndObject();
}

// CREATING while a restore loads the table, UPDATING while an index is being built (the table
// stays readable and writable), else ACTIVE.
const char* TableStatusOf(const model::TableDescriptor& t) {
  if (t.restore && t.restore->in_progress) return "CREATING";
  for (const auto& ix : t.indexes) {
    if (ix.status == model::IndexStatus::kCreating) return "UPDATING";
  }
  return "ACTIVE";
}

Result<std::string> RenderTable(const Services& s, const model::TableDescriptor& t,
                                const char* status) {
  auto stats = s.catalog.Stats(t);
  if (!stats) return std::move(stats).error();
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  w.Key(status[0] == 'D' ? "TableDescription" : "Table");
  WriteTableDescription(w, s, t, *stats, status);
  w.EndObject();
  return Finish(buf);
}

// DescribeTable and DeleteTable report a bad name's length before its pattern, each failure as
// the service's constraint text (a live answer of the service to DescribeTable with '', us-west-2,
// 2026-10: "2 validation errors detected: … length greater than or equal to 3; … pattern …").
Result<std::string> CheckTableNameForLookup(const rapidjson::Value& req) {
  ASSIGN_OR_RETURN(name, OptString(req, "TableName"));
  if (!name) {
    return Error::Validation(
        "The parameter 'TableName' is required but was not present in the request");
  }
  Constraints c;
  c.Length("tableName", name, 3, 255);
  bool pattern_ok = !name->empty();
  for (char ch : *name) {
    pattern_ok = pattern_ok && (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' ||
                                ch == '.' || ch == '-');
  }
  if (!pattern_ok) {
    c.Add("Value '" + *name + "' at 'tableName' failed to satisfy constraint: Member must "
          "satisfy regular expression pattern: [a-zA-Z0-9_.-]+");
  }
  if (!c.ok()) return c.ToError();
  return std::move(*name);
}

}  // namespace

Result<std::string> RenderUpdatedTable(const Services& s, const model::TableDescriptor& t) {
  auto stats = s.catalog.Stats(t);
  if (!stats) return std::move(stats).error();
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  w.Key("TableDescription");
  WriteTableDescription(w, s, t, *stats, TableStatusOf(t));
  w.EndObject();
  return Finish(buf);
}

std::string TableArn(const Services& s, const std::string& table_name) {
  return model::TableArn(s.region, s.account_id, table_name);
}

Result<model::TableDescriptor> DecodeNewTable(const Services& s, const rapidjson::Value& req) {
  ASSIGN_OR_RETURN(name, OptString(req, "TableName"));
  ASSIGN_OR_RETURN(key_schema, OptArray(req, "KeySchema"));
  ASSIGN_OR_RETURN(definitions, OptArray(req, "AttributeDefinitions"));
  ASSIGN_OR_RETURN(billing, OptString(req, "BillingMode"));
  ASSIGN_OR_RETURN(throughput, OptObject(req, "ProvisionedThroughput"));
  ASSIGN_OR_RETURN(tags_json, OptArray(req, "Tags"));
  ASSIGN_OR_RETURN(table_class, OptString(req, "TableClass"));
  ASSIGN_OR_RETURN(protection, OptBool(req, "DeletionProtectionEnabled"));
  ASSIGN_OR_RETURN(resource_policy, OptString(req, "ResourcePolicy"));
  if (!name) {
    return Error::Validation(
        "The parameter 'TableName' is required but was not present in the request");
  }
  // A bad name is reported alone; every other shape error is then collected in the service's
  // order: billing mode, throughput, key schema, attribute definitions, indexes.
  Constraints c;
  c.TableName("tableName", name, 3, /*all_errors=*/true);
  if (!c.ok()) return c.ToError();
  c.Enum("billingMode", billing, {"PROVISIONED", "PAY_PER_REQUEST"});
  std::optional<int64_t> rcu, wcu;
  if (throughput) {
    ASSIGN_OR_RETURN(r, OptInt(*throughput, "ReadCapacityUnits"));
    ASSIGN_OR_RETURN(wr, OptInt(*throughput, "WriteCapacityUnits"));
    rcu = r;
    wcu = wr;
    c.NotNull("provisionedThroughput.writeCapacityUnits", wcu.has_value());
    c.NotNull("provisionedThroughput.readCapacityUnits", rcu.has_value());
    c.Min("provisionedThroughput.writeCapacityUnits", wcu, 1);
    c.Min("provisionedThroughput.readCapacityUnits", rcu, 1);
  }
  c.NotNull("keySchema", key_schema != nullptr);
  ASSIGN_OR_RETURN(keys, DecodeKeySchema(key_schema, "keySchema", c));
  c.NotNull("attributeDefinitions", definitions != nullptr);
  model::TableDescriptor t;
  t.name = *name;
  if (definitions) {
    for (rapidjson::SizeType i = 0; i < definitions->Size(); ++i) {
      std::string at = "attributeDefinitions." + std::to_string(i + 1) + ".member.";
      ASSIGN_OR_RETURN(attr, OptString((*definitions)[i], "AttributeName"));
      ASSIGN_OR_RETURN(type, OptString((*definitions)[i], "AttributeType"));
      c.NotNull((at + "attributeName").c_str(), attr.has_value());
      c.NotNull((at + "attributeType").c_str(), type.has_value());
      c.Length(at + "attributeName", attr, 1, 255);
      c.Enum(at + "attributeType", type, {"B", "N", "S"});
      auto vt = type ? ParseScalarType(*type) : std::nullopt;
      if (attr && vt) t.attribute_definitions.push_back({*attr, *vt});
    }
  }
  // The service reports the global indexes' violations before the local ones' (a conformance
  // suite's capture, validation-ordering/createTable).
  ASSIGN_OR_RETURN(global_indexes, DecodeIndexes(req, true, c));
  ASSIGN_OR_RETURN(local_indexes, DecodeIndexes(req, false, c));
  ASSIGN_OR_RETURN(vector_indexes, DecodeVectorIndexes(req, c));
  c.Enum("tableClass", table_class, {"STANDARD", "STANDARD_INFREQUENT_ACCESS"});
  if (!c.ok()) return c.ToError();
  std::vector<model::Tag> tags;
  if (tags_json) {
    ASSIGN_OR_RETURN(decoded, DecodeTags(*tags_json));
    tags = std::move(decoded);
  }

  t.billing_mode = billing == "PAY_PER_REQUEST" ? BillingMode::kPayPerRequest
                                                : BillingMode::kProvisioned;
  if (t.billing_mode == BillingMode::kPayPerRequest && throughput) {
    return Error::Validation(std::string(kInvalid) +
                             "Neither ReadCapacityUnits nor WriteCapacityUnits can be specified "
                             "when BillingMode is PAY_PER_REQUEST");
  }
  if (t.billing_mode == BillingMode::kProvisioned && !throughput) {
    return Error::Validation(std::string(kInvalid) +
                             "ReadCapacityUnits and WriteCapacityUnits must both be specified "
                             "when BillingMode is PROVISIONED");
  }
  if (const rapidjson::Value* spec = Field(req, "StreamSpecification")) {
    RETURN_IF_ERROR(ApplyStreamSpecification(*spec, /*on_create=*/true, &t, s.clock.NowMs()));
  }
  for (const char* list : {"LocalSecondaryIndexes", "GlobalSecondaryIndexes", "VectorIndexes"}) {
    const rapidjson::Value* v = Field(req, list);
    if (v && v->Empty()) {
      return Error::Validation(std::string(kInvalid) + "List of " + list + " is empty");
    }
  }
  std::vector<IndexSpec> indexes = std::move(local_indexes);
  indexes.insert(indexes.end(), global_indexes.begin(), global_indexes.end());
  RETURN_IF_ERROR(BuildSchema(keys, indexes, &t, vector_indexes));
  t.read_capacity = rcu.value_or(0);
  t.write_capacity = wcu.value_or(0);
  t.deletion_protection = protection.value_or(false);
  t.table_class = table_class.value_or("STANDARD");
  t.tags = std::move(tags);
  // TTL declared at creation (D14) through the reserved tag.
  for (auto it = t.tags.begin(); it != t.tags.end(); ++it) {
    if (it->key != model::kTtlAttributeTag) continue;
    if (it->value.empty()) {
      return Error::Validation(std::string(kInvalid) + "The " + model::kTtlAttributeTag +
                               " tag needs the TTL attribute name as its value");
    }
    t.ttl_enabled = true;
    t.ttl_attribute = it->value;
    t.tags.erase(it);
    break;
  }
  // The table's resource-based policy (issue 19), checked as PutResourcePolicy checks it;
  // DescribeTable does not show it (GetResourcePolicy does).
  if (resource_policy) {
    ASSIGN_OR_RETURN(statements, ParseResourcePolicy(*resource_policy));
    RETURN_IF_ERROR(CheckPolicyForResource(statements, PolicyResourceKind::kTable));
    t.resource_policy =
        model::ResourcePolicy{*resource_policy, ops::NextRevisionId("", s.clock.NowMs())};
  }
  return t;
}

Result<std::string> CreateTable(const Services& s, const rapidjson::Value& req) {
  ASSIGN_OR_RETURN(t, DecodeNewTable(s, req));
  ASSIGN_OR_RETURN(created, s.catalog.Create(std::move(t)));
  storage::TableStats empty;
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  w.Key("TableDescription");
  WriteTableDescription(w, s, *created, empty, "ACTIVE");
  w.EndObject();
  return Finish(buf);
}

Result<std::string> DescribeTable(const Services& s, const rapidjson::Value& req) {
  ASSIGN_OR_RETURN(name, CheckTableNameForLookup(req));
  ops::TablePtr t = s.catalog.Find(name);
  if (!t) {
    return Error::ResourceNotFound("Requested resource not found: Table: " + name + " not found");
  }
  return RenderTable(s, *t, TableStatusOf(*t));
}

Result<std::string> DeleteTable(const Services& s, const rapidjson::Value& req) {
  ASSIGN_OR_RETURN(name, CheckTableNameForLookup(req));
  ops::TablePtr before = s.catalog.Find(name);
  storage::TableStats stats;
  if (before) {
    auto st = s.catalog.Stats(*before);
    if (st) stats = *st;
  }
  // A restore still loading the table would keep writing into the dropped table's key range.
  if (before && ops::RestoreInProgress(*before)) return ops::TableBeingCreated(name);
  before.reset();  // Delete waits until no request holds the table
  // The drop and the streams kept readable after it are one write (ops/table_ops.h).
  ASSIGN_OR_RETURN(deleted, s.catalog.Delete(name));
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  w.Key("TableDescription");
  WriteTableDescription(w, s, *deleted, stats, "DELETING");
  w.EndObject();
  return Finish(buf);
}

Result<std::string> ListTables(const Services& s, const rapidjson::Value& req) {
  ASSIGN_OR_RETURN(start, OptString(req, "ExclusiveStartTableName"));
  ASSIGN_OR_RETURN(limit, OptInt(req, "Limit"));
  Constraints c;
  c.TableName("exclusiveStartTableName", start, 3, /*all_errors=*/true);
  c.Min("limit", limit, 1);
  c.Max("limit", limit, 100);
  if (!c.ok()) return c.ToError();
  ops::ListTablesResult list = s.catalog.List(start, static_cast<size_t>(limit.value_or(100)));
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  if (list.last_evaluated) {
    w.Key("LastEvaluatedTableName");
    WriteString(w, *list.last_evaluated);
  }
  w.Key("TableNames");
  w.StartArray();
  for (const auto& n : list.names) WriteString(w, n);
  w.EndArray();
  w.EndObject();
  return Finish(buf);
}

// This server's own address, never the cloud's: a client with endpoint discovery on must stay
// here. The host is a Host header the transport checked to be host[:port] characters only.
std::string DescribeEndpoints(std::string_view host) {
  std::string address;
  for (char c : host) {
    if (c > 0x20 && c < 0x7f && c != '"' && c != '\\') address.push_back(c);  // stays a JSON string
  }
  if (address.empty()) address = "localhost";
  return R"({"Endpoints":[{"Address":")" + address + R"(","CachePeriodInMinutes":1440}]})";
}

Result<std::string> DescribeLimits(const Services&, const rapidjson::Value&) {
  return std::string(
      R"({"AccountMaxReadCapacityUnits":80000,"AccountMaxWriteCapacityUnits":80000,)"
      R"("TableMaxReadCapacityUnits":40000,"TableMaxWriteCapacityUnits":40000})");
}

}  // namespace ttlstore::api
