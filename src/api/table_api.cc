// Control-plane handlers: CreateTable, DescribeTable, ListTables, DeleteTable, the tagging calls,
// DescribeEndpoints and DescribeLimits. Shape checks here, catalog rules in ops/table_ops.
#include <algorithm>
#include <set>

#include "api/handlers.h"
#include "api/request.h"

namespace ttlstore::api {
namespace {

using model::BillingMode;
using model::ValueType;

constexpr char kInvalid[] = "One or more parameter values were invalid: ";

std::string Finish(const rapidjson::StringBuffer& buf) { return {buf.GetString(), buf.GetSize()}; }

void WriteString(JsonWriter& w, const std::string& s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

std::optional<ValueType> ParseScalarType(const std::string& s) {
  if (s == "S") return ValueType::kS;
  if (s == "N") return ValueType::kN;
  if (s == "B") return ValueType::kB;
  return std::nullopt;
}

void WriteTableDescription(JsonWriter& w, const Services& s, const model::TableDescriptor& t,
                           const storage::TableStats& stats, const char* status) {
  w.StartObject();
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
  w.Key("TableName");
  WriteString(w, t.name);
  w.Key("KeySchema");
  w.StartArray();
  w.StartObject();
  w.Key("AttributeName");
  WriteString(w, t.key.hash.name);
  w.Key("KeyType");
  w.String("HASH");
  w.EndObject();
  if (t.key.range) {
    w.StartObject();
    w.Key("AttributeName");
    WriteString(w, t.key.range->name);
    w.Key("KeyType");
    w.String("RANGE");
    w.EndObject();
  }
  w.EndArray();
  w.Key("TableStatus");
  w.String(status);
  double created = static_cast<double>(t.creation_time_ms) / 1000.0;
  w.Key("CreationDateTime");
  w.Double(created);
  w.Key("ProvisionedThroughput");
  w.StartObject();
  w.Key("NumberOfDecreasesToday");
  w.Int(0);
  w.Key("ReadCapacityUnits");
  w.Int64(t.read_capacity);
  w.Key("WriteCapacityUnits");
  w.Int64(t.write_capacity);
  w.EndObject();
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
  w.Key("DeletionProtectionEnabled");
  w.Bool(t.deletion_protection);
  w.EndObject();
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
    c.Length(at + "key", key, 1, 128);
    c.Length(at + "value", value, 0, 256);
    out.push_back({key.value_or(""), value.value_or("")});
  }
  return out;
}

// "arn:aws:dynamodb:<region>:<account>:table/<name>" -> name, or a ValidationException.
Result<std::string> TableNameFromArn(const Services& s, const std::string& arn) {
  std::string prefix = "arn:aws:dynamodb:" + s.region + ":" + s.account_id + ":table/";
  if (arn.rfind("arn:", 0) != 0) {
    return Error::Validation("Invalid TableArn: Invalid ResourceArn provided as input " + arn);
  }
  if (arn.rfind(prefix, 0) != 0 || arn.size() == prefix.size()) {
    return Error::ResourceNotFound("Requested resource not found: ResourcArn: " + arn +
                                   " not found");
  }
  return arn.substr(prefix.size());
}

Result<ops::TablePtr> TableForArn(const Services& s, const rapidjson::Value& req,
                                  Constraints& c) {
  ASSIGN_OR_RETURN(arn, OptString(req, "ResourceArn"));
  c.NotNull("resourceArn", arn.has_value());
  c.Length("resourceArn", arn, 1, 1283);
  if (!c.ok()) return c.ToError();
  ASSIGN_OR_RETURN(name, TableNameFromArn(s, *arn));
  ops::TablePtr table = s.catalog.Find(name);
  if (!table) {
    return Error::ResourceNotFound("Requested resource not found: ResourcArn: " + *arn +
                                   " not found");
  }
  return table;
}

}  // namespace

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
  if (!name) return Error::Validation("The parameter 'TableName' is required but was not present in the request");

  Constraints c;
  c.TableName("tableName", name, 3);
  c.NotNull("attributeDefinitions", definitions != nullptr);
  c.NotNull("keySchema", key_schema != nullptr);

  model::TableDescriptor t;
  t.name = *name;
  std::vector<std::pair<std::string, std::string>> keys;  // (name, HASH|RANGE)
  if (key_schema) {
    if (key_schema->Size() < 1 || key_schema->Size() > 2) {
      c.Add("Value '" + std::string("[...]") + "' at 'keySchema' failed to satisfy constraint: " +
            "Member must have length " +
            (key_schema->Size() < 1 ? "greater than or equal to 1" : "less than or equal to 2"));
    }
    for (rapidjson::SizeType i = 0; i < key_schema->Size(); ++i) {
      std::string at = "keySchema." + std::to_string(i + 1) + ".member.";
      ASSIGN_OR_RETURN(attr, OptString((*key_schema)[i], "AttributeName"));
      ASSIGN_OR_RETURN(type, OptString((*key_schema)[i], "KeyType"));
      c.NotNull((at + "attributeName").c_str(), attr.has_value());
      c.NotNull((at + "keyType").c_str(), type.has_value());
      c.Length(at + "attributeName", attr, 1, 255);
      c.Enum(at + "keyType", type, {"HASH", "RANGE"});
      keys.emplace_back(attr.value_or(""), type.value_or(""));
    }
  }
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
  c.Enum("billingMode", billing, {"PROVISIONED", "PAY_PER_REQUEST"});
  c.Enum("tableClass", table_class, {"STANDARD", "STANDARD_INFREQUENT_ACCESS"});
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
  ASSIGN_OR_RETURN(tags, DecodeTags(tags_json, "tags", c));
  if (!c.ok()) return c.ToError();

  // Key schema rules, in the order the service checks them.
  std::set<std::string> defined;
  for (const auto& d : t.attribute_definitions) {
    if (!defined.insert(d.name).second) {
      return Error::Validation(std::string(kInvalid) +
                               "Duplicate AttributeName in AttributeDefinitions: " + d.name);
    }
  }
  if (keys[0].second != "HASH") {
    return Error::Validation("Invalid KeySchema: The first KeySchemaElement is not a HASH key type");
  }
  if (keys.size() == 2 && keys[1].second != "RANGE") {
    return Error::Validation("Invalid KeySchema: The second KeySchemaElement is not a RANGE key type");
  }
  if (keys.size() == 2 && keys[0].first == keys[1].first) {
    return Error::Validation(
        "Both the Hash Key and the Range Key element in the KeySchema have the same name");
  }
  for (const auto& [attr, kind] : keys) {
    if (!defined.count(attr)) {
      return Error::Validation("Invalid KeySchema: Some index key attribute have no definition");
    }
  }
  if (t.attribute_definitions.size() != keys.size()) {
    return Error::Validation(std::string(kInvalid) +
                             "Number of attributes in KeySchema does not exactly match number of "
                             "attributes defined in AttributeDefinitions");
  }
  auto type_of = [&](const std::string& attr) {
    for (const auto& d : t.attribute_definitions) {
      if (d.name == attr) return d.type;
    }
    return ValueType::kS;
  };
  t.key.hash = {keys[0].first, type_of(keys[0].first)};
  if (keys.size() == 2) t.key.range = model::KeyElement{keys[1].first, type_of(keys[1].first)};

  t.billing_mode = billing == "PAY_PER_REQUEST" ? BillingMode::kPayPerRequest
                                                : BillingMode::kProvisioned;
  if (t.billing_mode == BillingMode::kPayPerRequest && throughput) {
    return Error::Validation(std::string(kInvalid) +
                             "Neither ReadCapacityUnits nor WriteCapacityUnits can be specified "
                             "when BillingMode is PAY_PER_REQUEST");
  }
  if (t.billing_mode == BillingMode::kProvisioned && !throughput) {
    return Error::Validation(
        "No provisioned throughput specified for the table");
  }
  t.read_capacity = rcu.value_or(0);
  t.write_capacity = wcu.value_or(0);
  t.deletion_protection = protection.value_or(false);
  t.table_class = table_class.value_or("STANDARD");
  t.tags = std::move(tags);

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
  ASSIGN_OR_RETURN(name, OptString(req, "TableName"));
  Constraints c;
  c.NotNull("tableName", name.has_value());
  c.TableName("tableName", name, 3);
  if (!c.ok()) return c.ToError();
  ops::TablePtr t = s.catalog.Find(*name);
  if (!t) {
    return Error::ResourceNotFound("Requested resource not found: Table: " + *name + " not found");
  }
  return RenderTable(s, *t, "ACTIVE");
}

Result<std::string> DeleteTable(const Services& s, const rapidjson::Value& req) {
  ASSIGN_OR_RETURN(name, OptString(req, "TableName"));
  Constraints c;
  c.NotNull("tableName", name.has_value());
  c.TableName("tableName", name, 3);
  if (!c.ok()) return c.ToError();
  ops::TablePtr before = s.catalog.Find(*name);
  storage::TableStats stats;
  if (before) {
    auto st = s.catalog.Stats(*before);
    if (st) stats = *st;
  }
  ASSIGN_OR_RETURN(deleted, s.catalog.Delete(*name));
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
  c.TableName("exclusiveStartTableName", start, 3);
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
  ASSIGN_OR_RETURN(table, TableForArn(s, req, c));
  if (Status st = s.catalog.Tag(table->name, tags); !st) return std::move(st).error();
  return std::string("{}");
}

Result<std::string> UntagResource(const Services& s, const rapidjson::Value& req) {
  Constraints c;
  ASSIGN_OR_RETURN(keys_json, OptArray(req, "TagKeys"));
  c.NotNull("tagKeys", keys_json != nullptr);
  std::vector<std::string> keys;
  if (keys_json) {
    for (const auto& k : keys_json->GetArray()) {
      if (!k.IsString()) return Error::Serialization("Unexpected value type for field 'TagKeys'");
      keys.emplace_back(k.GetString(), k.GetStringLength());
    }
  }
  ASSIGN_OR_RETURN(table, TableForArn(s, req, c));
  if (Status st = s.catalog.Untag(table->name, keys); !st) return std::move(st).error();
  return std::string("{}");
}

Result<std::string> ListTagsOfResource(const Services& s, const rapidjson::Value& req) {
  Constraints c;
  ASSIGN_OR_RETURN(table, TableForArn(s, req, c));
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
