// Vector index declarations (vector_index_schema.h). The texts the service's documentation
// quotes are used verbatim; the others are Chosen (docs/vector-indexes.md lists both).
#include "api/vector_index_schema.h"

#include <algorithm>

#include "api/json_value.h"
#include "api/table_schema.h"

namespace ttlstore::api {
namespace {

constexpr char kInvalid[] = "One or more parameter values were invalid: ";

const model::KeyElement* FindDefinition(const model::TableDescriptor& t, const std::string& name) {
  for (const auto& d : t.attribute_definitions) {
    if (d.name == name) return &d;
  }
  return nullptr;
}

model::VectorMetric MetricOf(const std::string& name) {
  if (name == "EUCLIDEAN") return model::VectorMetric::kEuclidean;
  if (name == "DOT_PRODUCT") return model::VectorMetric::kDotProduct;
  return model::VectorMetric::kCosine;
}

const char* ProjectionName(model::ProjectionType p) {
  switch (p) {
    case model::ProjectionType::kAll: return "ALL";
    case model::ProjectionType::kKeysOnly: return "KEYS_ONLY";
    case model::ProjectionType::kInclude: return "INCLUDE";
  }
  return "ALL";
}

}  // namespace

const char* DistanceFunctionName(model::VectorMetric m) {
  switch (m) {
    case model::VectorMetric::kEuclidean: return "EUCLIDEAN";
    case model::VectorMetric::kCosine: return "COSINE";
    case model::VectorMetric::kDotProduct: return "DOT_PRODUCT";
  }
  return "COSINE";
}

Result<VectorIndexSpec> DecodeVectorIndex(const rapidjson::Value& json, const std::string& at,
                                          Constraints& c) {
  if (!json.IsObject()) return Error::Serialization("Unexpected value type in VectorIndexes");
  VectorIndexSpec spec;
  ASSIGN_OR_RETURN(name, OptString(json, "IndexName"));
  c.NotNull((at + "indexName").c_str(), name.has_value());
  c.TableName(at + "indexName", name, 3);
  spec.name = name.value_or("");
  ASSIGN_OR_RETURN(attribute, OptObject(json, "VectorAttribute"));
  c.NotNull((at + "vectorAttribute").c_str(), attribute != nullptr);
  if (attribute) {
    ASSIGN_OR_RETURN(attr_name, OptString(*attribute, "AttributeName"));
    c.NotNull((at + "vectorAttribute.attributeName").c_str(), attr_name.has_value());
    c.Length(at + "vectorAttribute.attributeName", attr_name, 1, 255);
    spec.attribute = attr_name.value_or("");
  }
  ASSIGN_OR_RETURN(dimensions, OptInt(json, "Dimensions"));
  c.NotNull((at + "dimensions").c_str(), dimensions.has_value());
  c.Min(at + "dimensions", dimensions, 1);
  spec.dimensions = dimensions.value_or(0);
  ASSIGN_OR_RETURN(distance, OptString(json, "DistanceFunction"));
  c.NotNull((at + "distanceFunction").c_str(), distance.has_value());
  c.Enum(at + "distanceFunction", distance, {"COSINE", "DOT_PRODUCT", "EUCLIDEAN"});
  spec.distance_function = distance.value_or("");
  ASSIGN_OR_RETURN(schema, OptArray(json, "SearchSchema"));
  if (schema) {
    if (schema->Empty()) {
      c.Add("Value '[]' at '" + at +
            "searchSchema' failed to satisfy constraint: Member must have length greater than "
            "or equal to 1");
    }
    for (rapidjson::SizeType i = 0; i < schema->Size(); ++i) {
      std::string el = at + "searchSchema." + std::to_string(i + 1) + ".member.";
      if (!(*schema)[i].IsObject()) {
        return Error::Serialization("Unexpected value type in SearchSchema");
      }
      ASSIGN_OR_RETURN(el_name, OptString((*schema)[i], "AttributeName"));
      ASSIGN_OR_RETURN(el_type, OptString((*schema)[i], "SearchSchemaElementType"));
      c.NotNull((el + "attributeName").c_str(), el_name.has_value());
      c.NotNull((el + "searchSchemaElementType").c_str(), el_type.has_value());
      c.Length(el + "attributeName", el_name, 1, 255);
      c.Enum(el + "searchSchemaElementType", el_type, {"HASH", "INLINE_FILTER"});
      spec.search_schema.emplace_back(el_name.value_or(""), el_type.value_or(""));
    }
  }
  ASSIGN_OR_RETURN(projection, OptObject(json, "Projection"));
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
    }
  }
  return spec;
}

Result<std::vector<VectorIndexSpec>> DecodeVectorIndexes(const rapidjson::Value& req,
                                                         Constraints& c) {
  std::vector<VectorIndexSpec> out;
  ASSIGN_OR_RETURN(list, OptArray(req, "VectorIndexes"));
  if (!list) return out;
  for (rapidjson::SizeType i = 0; i < list->Size(); ++i) {
    std::string at = "vectorIndexes." + std::to_string(i + 1) + ".member.";
    ASSIGN_OR_RETURN(spec, DecodeVectorIndex((*list)[i], at, c));
    out.push_back(std::move(spec));
  }
  return out;
}

Status AddVectorIndex(const VectorIndexSpec& spec, model::IndexStatus status,
                      model::TableDescriptor* t, std::set<std::string>* used) {
  // Developer guide, "Requirements and limitations": vector indexes only on on-demand tables.
  if (t->billing_mode != model::BillingMode::kPayPerRequest) {
    return Error::Validation(std::string(kInvalid) +
                             "Vector indexes are supported only on tables that use on-demand "
                             "capacity mode (BillingMode PAY_PER_REQUEST). IndexName: " +
                             spec.name);
  }
  for (const auto& ix : t->indexes) {
    if (ix.name == spec.name) {
      return Error::Validation(std::string(kInvalid) + "Duplicate index name: " + spec.name);
    }
  }
  size_t vectors = std::count_if(t->indexes.begin(), t->indexes.end(),
                                 [](const model::SecondaryIndex& ix) { return ix.IsVector(); });
  if (vectors >= kMaxVectorIndexes) {
    return Error::Validation(std::string(kInvalid) + "Number of VectorIndexes exceeds per-table "
                             "limit of " + std::to_string(kMaxVectorIndexes));
  }
  if (spec.dimensions < 1 || spec.dimensions > model::kMaxVectorDimensions) {
    return Error::Validation(std::string(kInvalid) + "Dimensions must be between 1 and " +
                             std::to_string(model::kMaxVectorDimensions) +
                             " for vector index: " + spec.name);
  }
  for (const auto& ix : t->indexes) {
    if (ix.IsVector() && ix.vector->attribute == spec.attribute &&
        static_cast<int64_t>(ix.vector->dimensions) != spec.dimensions) {
      return Error::Validation(std::string(kInvalid) + "Vector indexes on the same attribute "
                               "must use the same number of dimensions: vector index " + ix.name +
                               " indexes " + spec.attribute + " with " +
                               std::to_string(ix.vector->dimensions) + " dimensions");
    }
  }
  if (t->key.Contains(spec.attribute)) {
    return Error::Validation(std::string(kInvalid) + "The vector attribute " + spec.attribute +
                             " of vector index " + spec.name + " is a table key attribute");
  }
  IndexSpec projection;  // the GSI projection rules (no throughput: `global` false)
  projection.name = spec.name;
  projection.projection_type = spec.projection_type;
  projection.non_key_attributes = spec.non_key_attributes;
  projection.has_non_key_attributes = spec.has_non_key_attributes;
  RETURN_IF_ERROR(CheckProjectionAndThroughput(projection, t->billing_mode));

  model::SecondaryIndex ix;
  ix.name = spec.name;
  ix.status = status;
  model::VectorIndexSettings vs;
  vs.attribute = spec.attribute;
  vs.dimensions = static_cast<uint32_t>(spec.dimensions);
  vs.metric = MetricOf(spec.distance_function);
  std::set<std::string> seen;
  for (const auto& [name, kind] : spec.search_schema) {
    // Troubleshooting vector indexes: "One element in SearchSchema is not defined in attribute
    // definitions".
    const model::KeyElement* def = FindDefinition(*t, name);
    if (!def) {
      return Error::Validation("One element in SearchSchema is not defined in attribute "
                               "definitions");
    }
    if (!seen.insert(name).second || name == spec.attribute) {
      return Error::Validation(std::string(kInvalid) + "Duplicate AttributeName in SearchSchema: " +
                               name);
    }
    if (kind == "HASH") {
      if (vs.has_hash) {
        return Error::Validation(std::string(kInvalid) +
                                 "SearchSchema can have at most one HASH element");
      }
      vs.has_hash = true;
      ix.key.hash = *def;
    } else {
      vs.inline_filters.push_back(*def);
    }
    used->insert(name);
  }
  if (vs.inline_filters.size() > kMaxInlineFilters) {
    return Error::Validation(std::string(kInvalid) + "Number of INLINE_FILTER elements in "
                             "SearchSchema exceeds the per-index limit of " +
                             std::to_string(kMaxInlineFilters));
  }
  // Projected non-key attributes: NonKeyAttributes, the vector attribute and each
  // INLINE_FILTER count (CreateTableInput.VectorIndexes' Projection), against the limit of 100
  // summed over the table's indexes.
  size_t projected = spec.non_key_attributes.size() + 1 + vs.inline_filters.size();
  for (const auto& other : t->indexes) {
    projected += other.non_key_attributes.size();
    if (other.IsVector()) projected += 1 + other.vector->inline_filters.size();
  }
  if (projected > 100) {
    return Error::Validation(std::string(kInvalid) +
                             "Number of projected attributes in all indexes exceeds limit of 100");
  }
  ix.projection = spec.projection_type == "KEYS_ONLY" ? model::ProjectionType::kKeysOnly
                  : spec.projection_type == "INCLUDE" ? model::ProjectionType::kInclude
                                                      : model::ProjectionType::kAll;
  ix.non_key_attributes = spec.non_key_attributes;
  ix.vector = std::move(vs);
  ix.id = t->next_index_id++;
  t->indexes.push_back(std::move(ix));
  return Status::Ok();
}

void WriteVectorIndexes(JsonWriter& w, const std::string& table_arn,
                        const model::TableDescriptor& t,
                        const std::vector<storage::TableStats>& stats) {
  bool any = std::any_of(t.indexes.begin(), t.indexes.end(),
                         [](const model::SecondaryIndex& ix) { return ix.IsVector(); });
  if (!any) return;
  w.Key("VectorIndexes");
  w.StartArray();
  for (size_t i = 0; i < t.indexes.size(); ++i) {
    const model::SecondaryIndex& ix = t.indexes[i];
    if (!ix.IsVector()) continue;
    const model::VectorIndexSettings& vs = *ix.vector;
    w.StartObject();
    w.Key("IndexName");
    WriteString(w, ix.name);
    if (vs.has_hash || !vs.inline_filters.empty()) {
      w.Key("SearchSchema");
      w.StartArray();
      auto element = [&](const std::string& name, const char* kind) {
        w.StartObject();
        w.Key("AttributeName");
        WriteString(w, name);
        w.Key("SearchSchemaElementType");
        w.String(kind);
        w.EndObject();
      };
      if (vs.has_hash) element(ix.key.hash.name, "HASH");
      for (const auto& f : vs.inline_filters) element(f.name, "INLINE_FILTER");
      w.EndArray();
    }
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
    w.Key("VectorAttribute");
    w.StartObject();
    w.Key("AttributeName");
    WriteString(w, vs.attribute);
    w.EndObject();
    w.Key("Dimensions");
    w.Int64(vs.dimensions);
    w.Key("DistanceFunction");
    w.String(DistanceFunctionName(vs.metric));
    bool creating = ix.status == model::IndexStatus::kCreating;
    w.Key("IndexStatus");
    w.String(creating ? "CREATING" : "ACTIVE");
    w.Key("Backfilling");
    w.Bool(creating);
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

}  // namespace ttlstore::api
