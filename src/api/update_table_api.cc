// UpdateTable: billing mode and throughput, deletion protection, table class, and
// GlobalSecondaryIndexUpdates (Create with a background backfill, Update of a GSI's throughput,
// Delete) and VectorIndexUpdates (Create with a backfill, Delete; api/vector_index_schema.h).
// Shape checks first, then the rules that need the table, applied under the catalog's
// lock so that two updates never interleave. Index work then runs in index::IndexBuilder.
#include <algorithm>
#include <tuple>
#include <set>

#include "api/handlers.h"
#include "api/request.h"
#include "api/stream_spec.h"
#include "api/table_schema.h"
#include "api/vector_index_schema.h"
#include "index/index_key.h"

namespace ttlstore::api {
namespace {

constexpr char kInvalid[] = "One or more parameter values were invalid: ";

struct GsiUpdate {
  enum class Kind { kCreate, kUpdate, kDelete } kind = Kind::kCreate;
  IndexSpec spec;  // kCreate: the declaration; kUpdate/kDelete: name (and throughput)
};

struct UpdateRequest {
  std::string name;
  std::optional<std::string> billing;
  std::optional<int64_t> rcu, wcu;
  bool has_throughput = false;
  std::optional<bool> deletion_protection;
  std::optional<std::string> table_class;
  std::vector<model::KeyElement> definitions;
  bool has_definitions = false;
  std::vector<GsiUpdate> gsi_updates;
  bool has_gsi_updates = false;
  // VectorIndexUpdates: a Create's declaration, or a Delete's name alone.
  std::vector<std::pair<bool, VectorIndexSpec>> vector_updates;  // (create, spec)
  const rapidjson::Value* stream_spec = nullptr;  // StreamSpecification (api/stream_spec.h)
  int64_t now_ms = 0;
};

std::optional<model::ValueType> ScalarType(const std::string& s) {
  if (s == "S") return model::ValueType::kS;
  if (s == "N") return model::ValueType::kN;
  if (s == "B") return model::ValueType::kB;
  return std::nullopt;
}

Result<UpdateRequest> Parse(const rapidjson::Value& req) {
  UpdateRequest u;
  ASSIGN_OR_RETURN(name, OptString(req, "TableName"));
  if (!name) {
    return Error::Validation(
        "The parameter 'TableName' is required but was not present in the request");
  }
  Constraints c;
  c.TableName("tableName", name, 3, /*all_errors=*/true);
  if (!c.ok()) return c.ToError();
  u.name = *name;
  ASSIGN_OR_RETURN(definitions, OptArray(req, "AttributeDefinitions"));
  if (definitions) {
    u.has_definitions = true;
    for (rapidjson::SizeType i = 0; i < definitions->Size(); ++i) {
      std::string at = "attributeDefinitions." + std::to_string(i + 1) + ".member.";
      ASSIGN_OR_RETURN(attr, OptString((*definitions)[i], "AttributeName"));
      ASSIGN_OR_RETURN(type, OptString((*definitions)[i], "AttributeType"));
      c.NotNull((at + "attributeName").c_str(), attr.has_value());
      c.NotNull((at + "attributeType").c_str(), type.has_value());
      c.Length(at + "attributeName", attr, 1, 255);
      c.Enum(at + "attributeType", type, {"B", "N", "S"});
      auto vt = type ? ScalarType(*type) : std::nullopt;
      if (attr && vt) u.definitions.push_back({*attr, *vt});
    }
  }
  ASSIGN_OR_RETURN(billing, OptString(req, "BillingMode"));
  c.Enum("billingMode", billing, {"PROVISIONED", "PAY_PER_REQUEST"});
  u.billing = std::move(billing);
  ASSIGN_OR_RETURN(throughput, OptObject(req, "ProvisionedThroughput"));
  if (throughput) {
    u.has_throughput = true;
    ASSIGN_OR_RETURN(r, OptInt(*throughput, "ReadCapacityUnits"));
    ASSIGN_OR_RETURN(w, OptInt(*throughput, "WriteCapacityUnits"));
    c.NotNull("provisionedThroughput.writeCapacityUnits", w.has_value());
    c.NotNull("provisionedThroughput.readCapacityUnits", r.has_value());
    c.Min("provisionedThroughput.writeCapacityUnits", w, 1);
    c.Min("provisionedThroughput.readCapacityUnits", r, 1);
    u.rcu = r;
    u.wcu = w;
  }
  ASSIGN_OR_RETURN(updates, OptArray(req, "GlobalSecondaryIndexUpdates"));
  if (updates) {
    u.has_gsi_updates = true;
    for (rapidjson::SizeType i = 0; i < updates->Size(); ++i) {
      const rapidjson::Value& entry = (*updates)[i];
      std::string at = "globalSecondaryIndexUpdates." + std::to_string(i + 1) + ".member.";
      ASSIGN_OR_RETURN(create, OptObject(entry, "Create"));
      ASSIGN_OR_RETURN(update, OptObject(entry, "Update"));
      ASSIGN_OR_RETURN(del, OptObject(entry, "Delete"));
      int actions = (create != nullptr) + (update != nullptr) + (del != nullptr);
      if (actions == 0) return Error::Validation("Update global secondary index action is null");
      if (create) {
        ASSIGN_OR_RETURN(spec, DecodeIndex(*create, /*global=*/true, at + "create.", c));
        u.gsi_updates.push_back({GsiUpdate::Kind::kCreate, std::move(spec)});
      }
      if (update) {
        GsiUpdate g{GsiUpdate::Kind::kUpdate, {}};
        ASSIGN_OR_RETURN(index_name, OptString(*update, "IndexName"));
        c.NotNull((at + "update.indexName").c_str(), index_name.has_value());
        c.TableName(at + "update.indexName", index_name, 3);
        g.spec.name = index_name.value_or("");
        ASSIGN_OR_RETURN(tp, OptObject(*update, "ProvisionedThroughput"));
        c.NotNull((at + "update.provisionedThroughput").c_str(), tp != nullptr);
        if (tp) {
          g.spec.has_throughput = true;
          ASSIGN_OR_RETURN(r, OptInt(*tp, "ReadCapacityUnits"));
          ASSIGN_OR_RETURN(w, OptInt(*tp, "WriteCapacityUnits"));
          c.Min(at + "update.provisionedThroughput.readCapacityUnits", r, 1);
          c.Min(at + "update.provisionedThroughput.writeCapacityUnits", w, 1);
          g.spec.read_capacity = r.value_or(0);
          g.spec.write_capacity = w.value_or(0);
        }
        u.gsi_updates.push_back(std::move(g));
      }
      if (del) {
        GsiUpdate g{GsiUpdate::Kind::kDelete, {}};
        ASSIGN_OR_RETURN(index_name, OptString(*del, "IndexName"));
        c.NotNull((at + "delete.indexName").c_str(), index_name.has_value());
        c.TableName(at + "delete.indexName", index_name, 3);
        g.spec.name = index_name.value_or("");
        u.gsi_updates.push_back(std::move(g));
      }
    }
  }
  ASSIGN_OR_RETURN(vector_updates, OptArray(req, "VectorIndexUpdates"));
  if (vector_updates) {
    for (rapidjson::SizeType i = 0; i < vector_updates->Size(); ++i) {
      const rapidjson::Value& entry = (*vector_updates)[i];
      std::string at = "vectorIndexUpdates." + std::to_string(i + 1) + ".member.";
      if (!entry.IsObject()) return Error::Serialization("Unexpected value type in VectorIndexUpdates");
      ASSIGN_OR_RETURN(create, OptObject(entry, "Create"));
      ASSIGN_OR_RETURN(del, OptObject(entry, "Delete"));
      if (!create && !del) return Error::Validation("Update vector index action is null");
      if (create) {
        ASSIGN_OR_RETURN(spec, DecodeVectorIndex(*create, at + "create.", c));
        u.vector_updates.emplace_back(true, std::move(spec));
      }
      if (del) {
        VectorIndexSpec spec;
        ASSIGN_OR_RETURN(index_name, OptString(*del, "IndexName"));
        c.NotNull((at + "delete.indexName").c_str(), index_name.has_value());
        c.TableName(at + "delete.indexName", index_name, 3);
        spec.name = index_name.value_or("");
        u.vector_updates.emplace_back(false, std::move(spec));
      }
    }
  }
  ASSIGN_OR_RETURN(stream_spec, OptObject(req, "StreamSpecification"));
  u.stream_spec = stream_spec;
  ASSIGN_OR_RETURN(protection, OptBool(req, "DeletionProtectionEnabled"));
  u.deletion_protection = protection;
  ASSIGN_OR_RETURN(table_class, OptString(req, "TableClass"));
  c.Enum("tableClass", table_class, {"STANDARD", "STANDARD_INFREQUENT_ACCESS"});
  u.table_class = std::move(table_class);
  if (!c.ok()) return c.ToError();
  return u;
}

// Attribute definitions in use: the table's key and every index's key, in the order they were
// defined (the table's first, then the request's).
void PruneDefinitions(model::TableDescriptor& t) {
  std::set<std::string> used = {t.key.hash.name};
  if (t.key.range) used.insert(t.key.range->name);
  for (const auto& ix : t.indexes) {
    for (const model::KeyElement* e : ix.key.HashElements()) used.insert(e->name);
    for (const model::KeyElement* e : ix.key.RangeElements()) used.insert(e->name);
    if (ix.IsVector()) {
      for (const auto& f : ix.vector->inline_filters) used.insert(f.name);
    }
  }
  std::erase_if(t.attribute_definitions,
                [&](const model::KeyElement& d) { return !used.count(d.name); });
}

// "key{name:type:HASH}" elements of a key schema, as the service prints schemas in its message
// for an attribute redefined with another type (Alternator's test_gsi_key_type_conflict_on_update,
// quoting the service: "... Existing schema: Schema:[SchemaElement: key{xyz:S:HASH}] New schema:
// Schema:[SchemaElement: key{xyz:N:HASH}]").
std::string SchemaText(const std::vector<std::tuple<std::string, std::string, std::string>>& keys) {
  std::string out;
  for (const auto& [name, type, key_type] : keys) {
    out += (out.empty() ? "" : ", ") + std::string("SchemaElement: key{") + name + ":" + type +
           ":" + key_type + "}";
  }
  return "Schema:[" + out + "]";
}

Error Redefined(const model::TableDescriptor& t, const UpdateRequest& u, const model::KeyElement& d) {
  using Keys = std::vector<std::tuple<std::string, std::string, std::string>>;
  auto schema_of = [](const model::KeySchema& k) {
    Keys out;
    for (const model::KeyElement* e : k.HashElements()) {
      out.emplace_back(e->name, model::TypeName(e->type), "HASH");
    }
    for (const model::KeyElement* e : k.RangeElements()) {
      out.emplace_back(e->name, model::TypeName(e->type), "RANGE");
    }
    return out;
  };
  auto uses = [&](const Keys& keys) {
    return std::any_of(keys.begin(), keys.end(),
                       [&](const auto& k) { return std::get<0>(k) == d.name; });
  };
  Keys existing = schema_of(t.key);
  for (const auto& ix : t.indexes) {
    if (uses(existing)) break;
    existing = schema_of(ix.key);
  }
  Keys created = {{d.name, model::TypeName(d.type), "HASH"}};
  for (const GsiUpdate& g : u.gsi_updates) {
    if (g.kind != GsiUpdate::Kind::kCreate) continue;
    Keys keys;
    for (const auto& [name, key_type] : g.spec.keys) {
      std::string type = name == d.name ? model::TypeName(d.type) : "";
      for (const auto& def : u.definitions) {
        if (def.name == name) type = model::TypeName(def.type);
      }
      keys.emplace_back(name, type, key_type);
    }
    if (uses(keys)) {
      created = std::move(keys);
      break;
    }
  }
  return Error::Validation(std::string(kInvalid) +
                           "Attributes cannot be redefined. Please check that your attribute has "
                           "the same type as previously defined. Existing schema: " +
                           SchemaText(existing) + " New schema: " + SchemaText(created));
}

Status CreateIndex(const UpdateRequest& u, const IndexSpec& spec, model::TableDescriptor& t) {
  if (index::FindIndex(t, spec.name)) {
    return Error::Validation("Attempting to create an index which already exists");
  }
  if (!u.has_definitions || u.definitions.empty()) {
    return Error::Validation("No Attribute Schema Defined");
  }
  RETURN_IF_ERROR(CheckKeyOrder(spec.keys, /*global=*/true));
  for (const auto& key : spec.keys) {
    const std::string& attr = key.first;  // a plain reference: clang 14 cannot capture bindings
    auto in_request = std::find_if(u.definitions.begin(), u.definitions.end(),
                                   [&](const model::KeyElement& d) { return d.name == attr; });
    if (in_request == u.definitions.end()) {
      return Error::Validation("Attribute " + attr + " is not defined in AttributeDefinitions");
    }
  }
  RETURN_IF_ERROR(CheckProjectionAndThroughput(spec, t.billing_mode));
  size_t globals = std::count_if(t.indexes.begin(), t.indexes.end(),
                                 [](const model::SecondaryIndex& ix) { return ix.global; });
  if (globals >= 20) {
    return Error::Validation(std::string(kInvalid) +
                             "GlobalSecondaryIndex count exceeds the per-table limit of 20");
  }
  size_t projected = spec.non_key_attributes.size();
  for (const auto& existing : t.indexes) projected += existing.non_key_attributes.size();
  if (projected > 100) {
    return Error::Validation(std::string(kInvalid) +
                             "Number of projected attributes in all indexes exceeds limit of 100");
  }
  model::SecondaryIndex ix = MakeIndex(spec, &t);
  ix.status = model::IndexStatus::kCreating;
  t.indexes.push_back(std::move(ix));
  return Status::Ok();
}

// The rules that need the current table, then the change itself.
Status Apply(const UpdateRequest& u, model::TableDescriptor& t) {
  // A restore writes its items with the descriptor it started with: an index created or
  // dropped now would miss them, or get entries after its removal.
  if (ops::RestoreInProgress(t)) return ops::TableBeingCreated(t.name);
  for (const auto& ix : t.indexes) {
    if (ix.status != model::IndexStatus::kCreating) continue;
    if (u.has_gsi_updates || !u.vector_updates.empty()) {
      return Error::LimitExceeded(
          "Subscriber limit exceeded: Only 1 online index can be created or deleted "
          "simultaneously per table");
    }
    return Error::ResourceInUse("Can't update table while indexes are in CREATING, "
                                "isBackfilling=true status. Table: " + t.name +
                                " Index: " + ix.name);
  }
  bool nothing = !u.billing && !u.has_throughput && !u.deletion_protection && !u.table_class &&
                 u.gsi_updates.empty() && !u.stream_spec && u.vector_updates.empty();
  if (nothing) return Error::Validation("Nothing to update");
  size_t online = std::count_if(u.gsi_updates.begin(), u.gsi_updates.end(), [](const auto& g) {
    return g.kind != GsiUpdate::Kind::kUpdate;
  });
  // UpdateTableInput.VectorIndexUpdates: "You can add or remove one vector index for each
  // UpdateTable operation"; with a GSI's, they count as the one online index change.
  online += u.vector_updates.size();
  if (online > 1) {
    return Error::LimitExceeded(
        "Subscriber limit exceeded: Only 1 online index can be created or deleted "
        "simultaneously per table");
  }

  model::BillingMode billing =
      u.billing ? (*u.billing == "PAY_PER_REQUEST" ? model::BillingMode::kPayPerRequest
                                                   : model::BillingMode::kProvisioned)
                : t.billing_mode;
  if (billing == model::BillingMode::kPayPerRequest && u.has_throughput) {
    return Error::Validation(std::string(kInvalid) +
                             "Neither ReadCapacityUnits nor WriteCapacityUnits can be specified "
                             "when BillingMode is PAY_PER_REQUEST");
  }
  if (billing == model::BillingMode::kProvisioned &&
      t.billing_mode == model::BillingMode::kPayPerRequest && !u.has_throughput) {
    return Error::Validation(std::string(kInvalid) +
                             "ReadCapacityUnits and WriteCapacityUnits must both be specified "
                             "when BillingMode is PROVISIONED");
  }
  if (u.has_throughput && t.billing_mode == model::BillingMode::kProvisioned &&
      *u.rcu == t.read_capacity && *u.wcu == t.write_capacity) {
    return Error::Validation("The requested throughput value equals the current value");
  }
  bool has_vector = std::any_of(t.indexes.begin(), t.indexes.end(),
                                [](const model::SecondaryIndex& ix) { return ix.IsVector(); });
  if (has_vector && billing == model::BillingMode::kProvisioned &&
      t.billing_mode == model::BillingMode::kPayPerRequest) {
    return Error::Validation(std::string(kInvalid) +
                             "Vector indexes are supported only on tables that use on-demand "
                             "capacity mode (BillingMode PAY_PER_REQUEST): the table's vector "
                             "indexes must be deleted before it switches to PROVISIONED");
  }
  bool to_on_demand = billing == model::BillingMode::kPayPerRequest &&
                      t.billing_mode == model::BillingMode::kProvisioned;
  bool to_provisioned = billing == model::BillingMode::kProvisioned &&
                        t.billing_mode == model::BillingMode::kPayPerRequest;
  t.billing_mode = billing;
  if (u.has_throughput) {
    t.read_capacity = *u.rcu;
    t.write_capacity = *u.wcu;
  }
  if (to_on_demand) t.read_capacity = t.write_capacity = 0;
  for (auto& ix : t.indexes) {
    if (!ix.global) continue;
    if (to_on_demand) ix.read_capacity = ix.write_capacity = 0;
    // Switching to PROVISIONED gives each index the table's throughput unless the request
    // names its own below.
    if (to_provisioned) {
      ix.read_capacity = t.read_capacity;
      ix.write_capacity = t.write_capacity;
    }
  }
  if (u.stream_spec) {
    RETURN_IF_ERROR(ApplyStreamSpecification(*u.stream_spec, /*on_create=*/false, &t, u.now_ms));
  }
  if (u.deletion_protection) t.deletion_protection = *u.deletion_protection;
  if (u.table_class) t.table_class = *u.table_class;

  // Definitions the request adds (for a new index's key).
  for (const auto& d : u.definitions) {
    auto existing = std::find_if(t.attribute_definitions.begin(), t.attribute_definitions.end(),
                                 [&](const model::KeyElement& e) { return e.name == d.name; });
    if (existing == t.attribute_definitions.end()) {
      t.attribute_definitions.push_back(d);
    } else if (existing->type != d.type) {
      return Redefined(t, u, d);
    }
  }
  for (const GsiUpdate& g : u.gsi_updates) {
    switch (g.kind) {
      case GsiUpdate::Kind::kCreate:
        RETURN_IF_ERROR(CreateIndex(u, g.spec, t));
        break;
      case GsiUpdate::Kind::kUpdate: {
        auto it = std::find_if(t.indexes.begin(), t.indexes.end(), [&](const auto& ix) {
          return ix.global && ix.name == g.spec.name;
        });
        if (it == t.indexes.end()) {
          return Error::ResourceNotFound("Requested resource not found: Index: " + g.spec.name +
                                         " not found");
        }
        if (t.billing_mode == model::BillingMode::kPayPerRequest) {
          return Error::Validation(std::string(kInvalid) +
                                   "ProvisionedThroughput should not be specified for index: " +
                                   g.spec.name + " when BillingMode is PAY_PER_REQUEST");
        }
        it->read_capacity = g.spec.read_capacity;
        it->write_capacity = g.spec.write_capacity;
        break;
      }
      case GsiUpdate::Kind::kDelete: {
        auto it = std::find_if(t.indexes.begin(), t.indexes.end(), [&](const auto& ix) {
          return ix.global && ix.name == g.spec.name;
        });
        if (it == t.indexes.end()) {
          return Error::ResourceNotFound("Requested resource not found: Index: " + g.spec.name +
                                         " not found");
        }
        t.dropped_index_ids.push_back(it->id);
        t.indexes.erase(it);
        break;
      }
    }
  }
  for (const auto& [create, spec] : u.vector_updates) {
    if (create) {
      std::set<std::string> used;
      RETURN_IF_ERROR(AddVectorIndex(spec, model::IndexStatus::kCreating, &t, &used));
      continue;
    }
    const std::string& name = spec.name;
    auto it = std::find_if(t.indexes.begin(), t.indexes.end(),
                           [&](const auto& ix) { return ix.IsVector() && ix.name == name; });
    if (it == t.indexes.end()) {
      return Error::ResourceNotFound("Requested resource not found: Index: " + name +
                                     " not found");
    }
    t.dropped_index_ids.push_back(it->id);
    t.indexes.erase(it);
  }
  PruneDefinitions(t);
  return Status::Ok();
}

}  // namespace

Result<std::string> UpdateTable(const Services& s, const rapidjson::Value& req) {
  ASSIGN_OR_RETURN(u, Parse(req));
  u.now_ms = s.clock.NowMs();
  ops::TablePtr before = s.catalog.Find(u.name);
  ASSIGN_OR_RETURN(table, s.catalog.Update(u.name, [&](model::TableDescriptor& t) {
    return Apply(u, t);
  }));
  // Start the index work the change asked for: a new index (CREATING) or a dropped one.
  std::vector<uint32_t> created, dropped;
  for (const auto& ix : table->indexes) {
    if (ix.status == model::IndexStatus::kCreating &&
        (!before || !std::any_of(before->indexes.begin(), before->indexes.end(),
                                 [&](const auto& b) { return b.id == ix.id; }))) {
      created.push_back(ix.id);
    }
  }
  for (uint32_t id : table->dropped_index_ids) {
    if (!before || std::find(before->dropped_index_ids.begin(), before->dropped_index_ids.end(),
                             id) == before->dropped_index_ids.end()) {
      dropped.push_back(id);
    }
  }
  before.reset();  // the builder waits for older versions of the table to be released
  uint32_t table_id = table->id;
  if (s.index_builder) {
    for (uint32_t id : dropped) s.index_builder->Drop(table_id, id);
    for (uint32_t id : created) s.index_builder->Build(table_id, id);
    return RenderUpdatedTable(s, *table);
  }
  ASSIGN_OR_RETURN(answer, RenderUpdatedTable(s, *table));
  table.reset();
  index::IndexBuilder inline_builder(s.items.store(), s.catalog);
  for (uint32_t id : dropped) RETURN_IF_ERROR(inline_builder.DropNow(table_id, id));
  for (uint32_t id : created) RETURN_IF_ERROR(inline_builder.BuildNow(table_id, id));
  return answer;
}

}  // namespace ttlstore::api
