// Control-plane handlers: CreateTable, DescribeTable, ListTables, DeleteTable, the tagging calls,
// DescribeEndpoints and DescribeLimits. Shape checks here, catalog rules in ops/table_ops.
#include <algorithm>
#include <set>

#include "api/handlers.h"
#include "api/request.h"
#include "api/stream_spec.h"
#include "api/table_schema.h"
#include "streams/stream_names.h"
#include "model/expiry.h"

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
    WriteIndexes(w, TableArn(s, t.name), t, s.catalog.IndexStats(t));
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
  if (t.restore) {
    w.Key("RestoreSummary");
    w.StartObject();
    w.Key("SourceBackupArn");
    WriteString(w, t.restore->source_backup_arn);
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

// Tags: [{"Key": k, "Value": v}], checked as the service does.
Result<std::vector<model::Tag>> DecodeTags(const rapidjson::Value* tags, const char* path,
                                           Constraints& c) {
  std::vector<model::Tag> out;
  if (!tags) return out;
  for (rapidjson::SizeType i = 0; i < tags->Size(); ++i) {
    const rapidjson::Value& tag = (*tags)[i];
    std::string at = std::string(path) + "." + std::to_string(i + 1) + ".member.";
    ASSIGN_OR_RETURN(key, OptString(tag, "Key"));
    ASSIGN_OR_RETURN(value, OptString(tag, "Value"));
    c.NotNull((at + "key").c_str(), key.has_value());
    c.NotNull((at + "value").c_str(), value.has_value());
    out.push_back({key.value_or(""), value.value_or("")});
  }
  return out;
}

Status CheckTagSizes(const std::vector<model::Tag>& tags) {
  for (const auto& t : tags) {
    if (t.key.empty() || t.key.size() > 128) {
      return Error::Validation(std::string(kInvalid) +
                               "Tag key must be between 1 and 128 characters");
    }
    if (t.value.size() > 256) {
      return Error::Validation(std::string(kInvalid) +
                               "Tag value must be between 0 and 256 characters");
    }
  }
  return Status::Ok();
}

// How each tagging call reports a table that is not there (or not in this account/region).
enum class MissingTable { kNotFoundArn, kNotFound, kAccessDenied };

// Resolves ResourceArn "arn:aws:dynamodb:<region>:<account>:table/<name>" to a table.
Result<ops::TablePtr> TableForArn(const Services& s, const rapidjson::Value& req,
                                  const char* action, MissingTable missing) {
  ASSIGN_OR_RETURN(arn, OptString(req, "ResourceArn"));
  if (!arn) return Error::Validation("Invalid TableArn");
  Error invalid = Error::Validation("Invalid TableArn: Invalid ResourceArn provided as input " + *arn);
  // arn : partition : service : region : account : resource
  std::vector<std::string> parts;
  size_t pos = 0;
  for (int i = 0; i < 5; ++i) {
    size_t colon = arn->find(':', pos);
    if (colon == std::string::npos) return invalid;
    parts.push_back(arn->substr(pos, colon - pos));
    pos = colon + 1;
  }
  std::string resource = arn->substr(pos);
  if (parts[0] != "arn" || parts[2] != "dynamodb" || resource.rfind("table/", 0) != 0) {
    return invalid;
  }
  std::string name = resource.substr(6);
  Constraints c;
  c.TableName("tableName", name, 3);
  if (!c.ok()) return invalid;
  ops::TablePtr table;
  if (parts[3] == s.region && parts[4] == s.account_id) table = s.catalog.Find(name);
  if (table) return table;
  switch (missing) {
    case MissingTable::kNotFoundArn:
      return Error::ResourceNotFound("Requested resource not found: ResourcArn: " + *arn +
                                     " not found");
    case MissingTable::kNotFound:
      return Error::ResourceNotFound("Requested resource not found");
    case MissingTable::kAccessDenied:
      return Error(ErrorCode::kAccessDenied, "User: arn:aws:iam::" + s.account_id +
                                                 ":root is not authorized to perform: dynamodb:" +
                                                 action + " on resource: " + *arn);
  }
  return invalid;
}

// DescribeTable and DeleteTable word their name checks differently from other calls.
Result<std::string> CheckTableNameForLookup(const rapidjson::Value& req) {
  ASSIGN_OR_RETURN(name, OptString(req, "TableName"));
  if (!name) {
    return Error::Validation(
        "The parameter 'TableName' is required but was not present in the request");
  }
  if (name->size() < 3 || name->size() > 255) {
    return Error::Validation(
        "TableName must be at least 3 characters long and at most 255 characters long");
  }
  Constraints c;
  c.TableName("tableName", name, 3);
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
  return "arn:aws:dynamodb:" + s.region + ":" + s.account_id + ":table/" + table_name;
}

Result<std::string> CreateTable(const Services& s, const rapidjson::Value& req) {
  ASSIGN_OR_RETURN(name, OptString(req, "TableName"));
  ASSIGN_OR_RETURN(key_schema, OptArray(req, "KeySchema"));
  ASSIGN_OR_RETURN(definitions, OptArray(req, "AttributeDefinitions"));
  ASSIGN_OR_RETURN(billing, OptString(req, "BillingMode"));
  ASSIGN_OR_RETURN(throughput, OptObject(req, "ProvisionedThroughput"));
  ASSIGN_OR_RETURN(tags_json, OptArray(req, "Tags"));
  ASSIGN_OR_RETURN(table_class, OptString(req, "TableClass"));
  ASSIGN_OR_RETURN(protection, OptBool(req, "DeletionProtectionEnabled"));
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
  ASSIGN_OR_RETURN(local_indexes, DecodeIndexes(req, false, c));
  ASSIGN_OR_RETURN(global_indexes, DecodeIndexes(req, true, c));
  c.Enum("tableClass", table_class, {"STANDARD", "STANDARD_INFREQUENT_ACCESS"});
  ASSIGN_OR_RETURN(tags, DecodeTags(tags_json, "tags", c));
  if (!c.ok()) return c.ToError();
  RETURN_IF_ERROR(CheckTagSizes(tags));

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
  for (const char* list : {"LocalSecondaryIndexes", "GlobalSecondaryIndexes"}) {
    const rapidjson::Value* v = Field(req, list);
    if (v && v->Empty()) {
      return Error::Validation(std::string(kInvalid) + "List of " + list + " is empty");
    }
  }
  std::vector<IndexSpec> indexes = std::move(local_indexes);
  indexes.insert(indexes.end(), global_indexes.begin(), global_indexes.end());
  RETURN_IF_ERROR(BuildSchema(keys, indexes, &t));
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

Result<std::string> TagResource(const Services& s, const rapidjson::Value& req) {
  Constraints c;
  ASSIGN_OR_RETURN(tags_json, OptArray(req, "Tags"));
  c.NotNull("tags", tags_json != nullptr);
  ASSIGN_OR_RETURN(tags, DecodeTags(tags_json, "tags", c));
  if (!c.ok()) return c.ToError();
  if (tags.empty()) return Error::Validation("Atleast one Tag needs to be provided as Input.");
  RETURN_IF_ERROR(CheckTagSizes(tags));
  ASSIGN_OR_RETURN(table, TableForArn(s, req, "TagResource", MissingTable::kNotFoundArn));
  RETURN_IF_ERROR(s.catalog.Tag(table->name, tags));
  return std::string("{}");
}

Result<std::string> UntagResource(const Services& s, const rapidjson::Value& req) {
  Constraints c;
  ASSIGN_OR_RETURN(keys_json, OptArray(req, "TagKeys"));
  c.NotNull("tagKeys", keys_json != nullptr);
  if (!c.ok()) return c.ToError();
  std::vector<std::string> keys;
  for (const auto& k : keys_json->GetArray()) {
    if (!k.IsString()) return Error::Serialization("Unexpected field type");
    keys.emplace_back(k.GetString(), k.GetStringLength());
  }
  if (keys.empty()) return Error::Validation("Atleast one Tag Key needs to be provided as Input.");
  ASSIGN_OR_RETURN(table, TableForArn(s, req, "UntagResource", MissingTable::kNotFound));
  RETURN_IF_ERROR(s.catalog.Untag(table->name, keys));
  return std::string("{}");
}

Result<std::string> ListTagsOfResource(const Services& s, const rapidjson::Value& req) {
  ASSIGN_OR_RETURN(table,
                   TableForArn(s, req, "ListTagsOfResource", MissingTable::kAccessDenied));
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  w.Key("Tags");
  w.StartArray();
  for (const auto& tag : table->tags) {
    w.StartObject();
    w.Key("Key");
    WriteString(w, tag.key);
    w.Key("Value");
    WriteString(w, tag.value);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return Finish(buf);
}

Result<std::string> DescribeEndpoints(const Services& s, const rapidjson::Value&) {
  return std::string(R"({"Endpoints":[{"Address":"dynamodb.)") + s.region +
         R"(.amazonaws.com","CachePeriodInMinutes":1440}]})";
}

Result<std::string> DescribeLimits(const Services&, const rapidjson::Value&) {
  return std::string(
      R"({"AccountMaxReadCapacityUnits":80000,"AccountMaxWriteCapacityUnits":80000,)"
      R"("TableMaxReadCapacityUnits":40000,"TableMaxWriteCapacityUnits":40000})");
}

}  // namespace ttlstore::api
