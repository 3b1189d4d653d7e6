#include "api/table_schema.h"

#include <algorithm>
#include <set>

namespace ttlstore::api {
namespace {

constexpr char kInvalid[] = "One or more parameter values were invalid: ";

const model::KeyElement* FindDefinition(const model::TableDescriptor& t, const std::string& name) {
  for (const auto& d : t.attribute_definitions) {
    if (d.name == name) return &d;
  }
  return nullptr;
}


const char* ProjectionName(model::ProjectionType p) {
  switch (p) {
    case model::ProjectionType::kAll: return "ALL";
    case model::ProjectionType::kKeysOnly: return "KEYS_ONLY";
    case model::ProjectionType::kInclude: return "INCLUDE";
  }
  return "ALL";
}

const char* Ordinal(size_t i) {
  static const char* const kOrdinals[] = {"first", "second", "third", "fourth",
                                          "fifth", "sixth",  "seventh", "eighth"};
  return i < 8 ? kOrdinals[i] : "next";
}

}  // namespace

Status CheckKeyOrder(const KeySchemaSpec& keys, bool global) {
  if (keys.empty() || keys[0].second != "HASH") {
    return Error::Validation("Invalid KeySchema: The first KeySchemaElement is not a HASH key type");
  }
  bool multi = global && (keys.size() > 2 || (keys.size() == 2 && keys[1].second == "HASH"));
  if (!multi) {
    if (keys.size() == 2 && keys[1].second != "RANGE") {
      return Error::Validation(
          "Invalid KeySchema: The second KeySchemaElement is not a RANGE key type");
    }
    if (keys.size() == 2 && keys[0].first == keys[1].first) {
      return Error::Validation(
          "Both the Hash Key and the Range Key element in the KeySchema have the same name");
    }
    return Status::Ok();
  }
  // A multi-attribute GSI key: HASH elements, then RANGE elements, at most 4 of each. The
  // service's texts for these were not found; these follow its single-attribute ones
  // (docs/compatibility.md, "Multi-attribute GSI keys").
  size_t hash = 0, range = 0;
  for (size_t i = 0; i < keys.size(); ++i) {
    if (keys[i].second == "HASH") {
      if (range > 0) {
        return Error::Validation(std::string("Invalid KeySchema: The ") + Ordinal(i) +
                                 " KeySchemaElement is not a RANGE key type");
      }
      ++hash;
    } else {
      ++range;
    }
  }
  if (hash > model::kMaxIndexKeyAttributes) {
    return Error::Validation(
        "Invalid KeySchema: A global secondary index key can have at most 4 HASH key elements");
  }
  if (range > model::kMaxIndexKeyAttributes) {
    return Error::Validation(
        "Invalid KeySchema: A global secondary index key can have at most 4 RANGE key elements");
  }
  std::set<std::string> seen;
  for (const auto& [name, kind] : keys) {
    if (!seen.insert(name).second) {
      return Error::Validation(std::string(kInvalid) +
                               "Duplicate AttributeName in KeySchema: " + name);
    }
  }
  return Status::Ok();
}

Result<KeySchemaSpec> DecodeKeySchema(const rapidjson::Value* json, const std::string& path,
                                      Constraints& c, size_t max_elements) {
  KeySchemaSpec keys;
  if (!json) return keys;
  if (json->Size() < 1 || json->Size() > max_elements) {
    // The service prints the list as its Java objects.
    std::string rendered;
    for (const auto& e : json->GetArray()) {
      auto attr = OptString(e, "AttributeName");
      auto type = OptString(e, "KeyType");
      rendered += std::string(rendered.empty() ? "" : ", ") + "KeySchemaElement(attributeName=" +
                  (attr && *attr ? **attr : "null") + ", keyType=" +
                  (type && *type ? **type : "null") + ")";
    }
    c.Add("Value '[" + rendered + "]' at '" + path +
          "' failed to satisfy constraint: Member must have length " +
          (json->Size() < 1 ? std::string("greater than or equal to 1")
                            : "less than or equal to " + std::to_string(max_elements)));
  }
  for (rapidjson::SizeType i = 0; i < json->Size(); ++i) {
    std::string at = path + "." + std::to_string(i + 1) + ".member.";
    ASSIGN_OR_RETURN(attr, OptString((*json)[i], "AttributeName"));
    ASSIGN_OR_RETURN(type, OptString((*json)[i], "KeyType"));
    c.NotNull((at + "attributeName").c_str(), attr.has_value());
    c.NotNull((at + "keyType").c_str(), type.has_value());
    c.Length(at + "attributeName", attr, 1, 255);
    c.Enum(at + "keyType", type, {"HASH", "RANGE"});
    keys.emplace_back(attr.value_or(""), type.value_or(""));
  }
  return keys;
}

Result<IndexSpec> DecodeIndex(const rapidjson::Value& ix, bool global, const std::string& at,
                              Constraints& c) {
  IndexSpec spec;
  spec.global = global;
  ASSIGN_OR_RETURN(name, OptString(ix, "IndexName"));
  c.NotNull((at + "indexName").c_str(), name.has_value());
  c.TableName(at + "indexName", name, 3);
  spec.name = name.value_or("");
  ASSIGN_OR_RETURN(key_json, OptArray(ix, "KeySchema"));
  c.NotNull((at + "keySchema").c_str(), key_json != nullptr);
  // A GSI's key may have up to 4 HASH and 4 RANGE attributes (multi-attribute keys).
  ASSIGN_OR_RETURN(keys, DecodeKeySchema(key_json, at + "keySchema", c,
                                         global ? 2 * model::kMaxIndexKeyAttributes : 2));
  spec.keys = std::move(keys);
  ASSIGN_OR_RETURN(projection, OptObject(ix, "Projection"));
  c.NotNull((at + "projection").c_str(), projection != nullptr);
  if (projection) {
    ASSIGN_OR_RETURN(type, OptString(*projection, "ProjectionType"));
    c.Enum(at + "projection.projectionType", type, {"ALL", "KEYS_ONLY", "INCLUDE"});
    spec.projection_type = type.value_or("");
    ASSIGN_OR_RETURN(non_key, OptArray(*projection, "NonKeyAttributes"));
    if (non_key) {
      spec.has_non_key_attributes = true;
      for (const auto& a : non_key->GetArray()) {
        if (!a.IsString()) return Error::Serialization("Unexpected value type in NonKeyAttributes");
        spec.non_key_attributes.emplace_back(a.GetString(), a.GetStringLength());
      }
      bool bad_name = false;
      std::string rendered;
      for (const std::string& n : spec.non_key_attributes) {
        bad_name |= n.empty() || n.size() > 255;
        rendered += (rendered.empty() ? "" : ", ") + n;
      }
      if (bad_name) {
        c.Add("Value '[" + rendered + "]' at '" + at +
              "projection.nonKeyAttributes' failed to satisfy constraint: Member must satisfy "
              "constraint: [Member must have length less than or equal to 255, Member must have "
              "length greater than or equal to 1]");
      }
    }
  }
  if (global) {
    ASSIGN_OR_RETURN(throughput, OptObject(ix, "ProvisionedThroughput"));
    if (throughput) {
      spec.has_throughput = true;
      ASSIGN_OR_RETURN(r, OptInt(*throughput, "ReadCapacityUnits"));
      ASSIGN_OR_RETURN(w, OptInt(*throughput, "WriteCapacityUnits"));
      c.Min(at + "provisionedThroughput.readCapacityUnits", r, 1);
      c.Min(at + "provisionedThroughput.writeCapacityUnits", w, 1);
      spec.read_capacity = r.value_or(0);
      spec.write_capacity = w.value_or(0);
    }
  }
  return spec;
}

Result<std::vector<IndexSpec>> DecodeIndexes(const rapidjson::Value& req, bool global,
                                             Constraints& c) {
  const char* field = global ? "GlobalSecondaryIndexes" : "LocalSecondaryIndexes";
  std::string path = global ? "globalSecondaryIndexes" : "localSecondaryIndexes";
  std::vector<IndexSpec> out;
  ASSIGN_OR_RETURN(list, OptArray(req, field));
  if (!list) return out;
  for (rapidjson::SizeType i = 0; i < list->Size(); ++i) {
    std::string at = path + "." + std::to_string(i + 1) + ".member.";
    ASSIGN_OR_RETURN(spec, DecodeIndex((*list)[i], global, at, c));
    out.push_back(std::move(spec));
  }
  return out;
}

Status CheckProjectionAndThroughput(const IndexSpec& spec, model::BillingMode billing) {
  if (spec.projection_type.empty()) {
    return Error::Validation(std::string(kInvalid) + "Unknown ProjectionType: null");
  }
  if (spec.projection_type == "INCLUDE" && !spec.has_non_key_attributes) {
    return Error::Validation(std::string(kInvalid) +
                             "ProjectionType is INCLUDE, but NonKeyAttributes is not specified");
  }
  if (spec.projection_type != "INCLUDE" && spec.has_non_key_attributes) {
    return Error::Validation(std::string(kInvalid) + "ProjectionType is " +
                             spec.projection_type + ", but NonKeyAttributes is specified");
  }
  if (spec.global) {
    bool on_demand = billing == model::BillingMode::kPayPerRequest;
    if (on_demand && spec.has_throughput) {
      return Error::Validation(std::string(kInvalid) +
                               "ProvisionedThroughput should not be specified for index: " +
                               spec.name + " when BillingMode is PAY_PER_REQUEST");
    }
    if (!on_demand && !spec.has_throughput) {
      return Error::Validation(std::string(kInvalid) +
                               "ProvisionedThroughput must be specified for index: " + spec.name);
    }
  }
  return Status::Ok();
}

model::SecondaryIndex MakeIndex(const IndexSpec& spec, model::TableDescriptor* t) {
  model::SecondaryIndex ix;
  ix.name = spec.name;
  ix.id = t->next_index_id++;
  ix.global = spec.global;
  // HASH elements first, then RANGE ones (CheckKeyOrder): the first of each goes to hash and
  // range, the others (a multi-attribute GSI key) to more_hash and more_range.
  ix.key.hash = {spec.keys[0].first, FindDefinition(*t, spec.keys[0].first)->type};
  for (size_t i = 1; i < spec.keys.size(); ++i) {
    model::KeyElement e{spec.keys[i].first, FindDefinition(*t, spec.keys[i].first)->type};
    if (spec.keys[i].second == "HASH") {
      ix.key.more_hash.push_back(std::move(e));
    } else if (!ix.key.range) {
      ix.key.range = std::move(e);
    } else {
      ix.key.more_range.push_back(std::move(e));
    }
  }
  ix.projection = spec.projection_type == "KEYS_ONLY" ? model::ProjectionType::kKeysOnly
                  : spec.projection_type == "INCLUDE" ? model::ProjectionType::kInclude
                                                      : model::ProjectionType::kAll;
  ix.non_key_attributes = spec.non_key_attributes;
  ix.read_capacity = spec.read_capacity;
  ix.write_capacity = spec.write_capacity;
  return ix;
}

Status BuildSchema(const KeySchemaSpec& keys, const std::vector<IndexSpec>& indexes,
                   model::TableDescriptor* t, const std::vector<VectorIndexSpec>& vectors) {
  std::set<std::string> defined;
  for (const auto& d : t->attribute_definitions) {
    if (!defined.insert(d.name).second) {
      return Error::Validation(std::string(kInvalid) +
                               "Duplicate AttributeName in AttributeDefinitions: " + d.name);
    }
  }
  std::vector<std::string> undefined_keys;
  for (const auto& [attr, kind] : keys) {
    if (!defined.count(attr)) undefined_keys.push_back(attr);
  }
  // One attribute named twice in a two-element schema counts as a missing definition unless
  // two attributes are defined (then the "same name" rule below reports it).
  bool repeated = keys.size() == 2 && keys[0].first == keys[1].first;
  if (repeated && t->attribute_definitions.size() < 2) {
    return Error::Validation("Invalid KeySchema: Some index key attribute have no definition");
  }
  if (!undefined_keys.empty()) {
    if (keys.size() == 1 && !defined.empty()) {
      std::vector<std::string> defs;
      for (const auto& d : t->attribute_definitions) defs.push_back(d.name);
      return Error::Validation(std::string(kInvalid) +
                               "Some index key attributes are not defined in "
                               "AttributeDefinitions. Keys: " +
                               JoinNames(undefined_keys) + ", AttributeDefinitions: " +
                               JoinNames(defs));
    }
    return Error::Validation("Invalid KeySchema: Some index key attribute have no definition");
  }
  RETURN_IF_ERROR(CheckKeyOrder(keys));
  t->key.hash = {keys[0].first, FindDefinition(*t, keys[0].first)->type};
  if (keys.size() == 2) {
    t->key.range = model::KeyElement{keys[1].first, FindDefinition(*t, keys[1].first)->type};
  }

  std::set<std::string> used = {keys[0].first};
  if (keys.size() == 2) used.insert(keys[1].first);
  std::set<std::string> names;
  size_t local_count = 0, global_count = 0;
  for (const IndexSpec& spec : indexes) {
    (spec.global ? global_count : local_count)++;
    if (!spec.global && !t->key.range) {
      return Error::Validation(std::string(kInvalid) +
                               "Table KeySchema does not have a range key, which is required "
                               "when specifying a LocalSecondaryIndex");
    }
    if (!names.insert(spec.name).second) {
      return Error::Validation(std::string(kInvalid) + "Duplicate index name: " + spec.name);
    }
    RETURN_IF_ERROR(CheckKeyOrder(spec.keys, spec.global));
    if (!spec.global) {
      if (spec.keys[0].first != t->key.hash.name) {
        return Error::Validation(std::string(kInvalid) +
                                 "Index KeySchema does not have the same leading hash key as "
                                 "table KeySchema for index: " +
                                 spec.name + ". index hash key: " + spec.keys[0].first +
                                 ", table hash key: " + t->key.hash.name);
      }
      if (spec.keys.size() != 2) {
        return Error::Validation(std::string(kInvalid) +
                                 "Index KeySchema does not have a range key for index: " +
                                 spec.name);
      }
    }
    std::vector<std::string> undefined;
    for (const auto& [attr, kind] : spec.keys) {
      if (!defined.count(attr)) undefined.push_back(attr);
      used.insert(attr);
    }
    if (!undefined.empty()) {
      std::vector<std::string> defs(defined.begin(), defined.end());
      return Error::Validation(std::string(kInvalid) +
                               "Some index key attributes are not defined in "
                               "AttributeDefinitions. Keys: " +
                               JoinNames(undefined) + ", AttributeDefinitions: " + JoinNames(defs));
    }
    RETURN_IF_ERROR(CheckProjectionAndThroughput(spec, t->billing_mode));
    t->indexes.push_back(MakeIndex(spec, t));
  }
  // At most 100 attributes projected by name, summed over the indexes (a name in two indexes
  // counts twice; ALL projects without naming, so it does not count).
  size_t projected = 0;
  for (const IndexSpec& spec : indexes) projected += spec.non_key_attributes.size();
  for (const VectorIndexSpec& spec : vectors) {
    projected += spec.non_key_attributes.size() + 1;
    for (const auto& element : spec.search_schema) projected += element.second != "HASH";
  }
  if (projected > 100) {
    return Error::Validation(std::string(kInvalid) +
                             "Number of projected attributes in all indexes exceeds limit of 100");
  }
  if (local_count > 5) {
    return Error::Validation(std::string(kInvalid) +
                             "Number of LocalSecondaryIndexes exceeds per-table limit of 5");
  }
  if (global_count > 20) {
    return Error::Validation(std::string(kInvalid) +
                             "GlobalSecondaryIndex count exceeds the per-table limit of 20");
  }
  for (const VectorIndexSpec& spec : vectors) {
    RETURN_IF_ERROR(AddVectorIndex(spec, model::IndexStatus::kActive, t, &used));
  }
  if (used.size() != defined.size()) {
    if (indexes.empty() && vectors.empty()) {
      return Error::Validation(std::string(kInvalid) +
                               "Number of attributes in KeySchema does not exactly match number "
                               "of attributes defined in AttributeDefinitions");
    }
    std::vector<std::string> defs(defined.begin(), defined.end());
    std::vector<std::string> keys_used(used.begin(), used.end());
    return Error::Validation(std::string(kInvalid) +
                             "Some AttributeDefinitions are not used. AttributeDefinitions: " +
                             JoinNames(defs) + ", keys used: " + JoinNames(keys_used));
  }
  return Status::Ok();
}

void WriteThroughput(JsonWriter& w, int64_t read_capacity, int64_t write_capacity) {
  w.StartObject();
  w.Key("NumberOfDecreasesToday");
  w.Int(0);
  w.Key("ReadCapacityUnits");
  w.Int64(read_capacity);
  w.Key("WriteCapacityUnits");
  w.Int64(write_capacity);
  w.EndObject();
}

void WriteKeySchema(JsonWriter& w, const model::KeySchema& key) {
  w.StartArray();
  for (bool hash : {true, false}) {
    for (const model::KeyElement* e : hash ? key.HashElements() : key.RangeElements()) {
      w.StartObject();
      w.Key("AttributeName");
      WriteString(w, e->name);
      w.Key("KeyType");
      w.String(hash ? "HASH" : "RANGE");
      w.EndObject();
    }
  }
  w.EndArray();
}

void WriteIndexes(JsonWriter& w, const std::string& table_arn, const model::TableDescriptor& t,
                  const std::vector<storage::TableStats>& stats) {
  for (bool global : {false, true}) {
    bool any = std::any_of(t.indexes.begin(), t.indexes.end(),
                           [&](const model::SecondaryIndex& ix) {
                             return !ix.IsVector() && ix.global == global;
                           });
    if (!any) continue;
    w.Key(global ? "GlobalSecondaryIndexes" : "LocalSecondaryIndexes");
    w.StartArray();
    for (size_t i = 0; i < t.indexes.size(); ++i) {
      const model::SecondaryIndex& ix = t.indexes[i];
      if (ix.IsVector() || ix.global != global) continue;
      w.StartObject();
      w.Key("IndexName");
      WriteString(w, ix.name);
      w.Key("KeySchema");
      WriteKeySchema(w, ix.key);
      w.Key("Projection");
      w.StartObject();
      w.Key("ProjectionType");
      w.String(ProjectionName(ix.projection));
      if (ix.projection == model::ProjectionType::kInclude) {
        w.Key("NonKeyAttributes");
        w.StartArray();
        for (const auto& a : ix.non_key_attributes) WriteString(w, a);
        w.EndArray();
      }
      w.EndObject();
      if (global) {
        bool creating = ix.status == model::IndexStatus::kCreating;
        w.Key("IndexStatus");
        w.String(creating ? "CREATING" : "ACTIVE");
        if (creating) {
          w.Key("Backfilling");
          w.Bool(true);
        }
        w.Key("ProvisionedThroughput");
        WriteThroughput(w, ix.read_capacity, ix.write_capacity);
      }
      storage::TableStats st = i < stats.size() ? stats[i] : storage::TableStats();
      w.Key("IndexSizeBytes");
      w.Int64(st.size_bytes);
      w.Key("ItemCount");
      w.Int64(st.item_count);
      w.Key("IndexArn");
      WriteString(w, table_arn + "/index/" + ix.name);
      w.EndObject();
    }
    w.EndArray();
  }
}

}  // namespace ttlstore::api
