// Data-plane handlers for single items: PutItem, GetItem, DeleteItem.
// Request shape checks and wire rendering live here; item rules in ops/item_ops.
#include <set>

#include "api/handlers.h"
#include "api/request.h"
#include "expr/projection.h"
#include "model/item_size.h"
#include "ops/capacity.h"

namespace ttlstore::api {
namespace {

constexpr auto kReturnValuesEnum = {"ALL_NEW", "UPDATED_OLD", "ALL_OLD", "NONE", "UPDATED_NEW"};

// Parameters that belong to features not yet served (expressions beyond projection,
// issue #3). Rejected rather than silently ignored: ignoring a condition would turn a
// conditional write into an unconditional one.
constexpr const char* kNotYetSupported[] = {"ConditionExpression", "Expected",
                                            "ConditionalOperator"};

std::string Finish(const rapidjson::StringBuffer& buf) { return {buf.GetString(), buf.GetSize()}; }

// The common head of every single-item request.
struct ItemRequest {
  std::string table_name;
  ops::TablePtr table;  // set by Resolve()
  std::optional<std::string> return_capacity;  // NONE | TOTAL | INDEXES
};

Status RejectUnsupported(const rapidjson::Value& req) {
  for (const char* field : kNotYetSupported) {
    if (Field(req, field)) {
      return Error::Validation(std::string(field) + " is not supported by this server yet");
    }
  }
  return Status::Ok();
}

void WriteCapacity(JsonWriter& w, const ItemRequest& r, double units) {
  if (!r.return_capacity || *r.return_capacity == "NONE") return;
  w.Key("ConsumedCapacity");
  w.StartObject();
  w.Key("TableName");
  w.String(r.table->name.data(), static_cast<rapidjson::SizeType>(r.table->name.size()));
  w.Key("CapacityUnits");
  w.Double(units);
  if (*r.return_capacity == "INDEXES") {
    w.Key("Table");
    w.StartObject();
    w.Key("CapacityUnits");
    w.Double(units);
    w.EndObject();
  }
  w.EndObject();
}

// Decodes ExpressionAttributeNames (a map of "#name" -> "name").
Result<std::map<std::string, std::string>> DecodeNames(const rapidjson::Value& req) {
  std::map<std::string, std::string> names;
  ASSIGN_OR_RETURN(json, OptObject(req, "ExpressionAttributeNames"));
  if (!json) return names;
  if (json->ObjectEmpty()) return Error::Validation("ExpressionAttributeNames must not be empty");
  for (const auto& m : json->GetObject()) {
    if (!m.value.IsString()) return Error::Serialization("Unexpected field type");
    std::string key(m.name.GetString(), m.name.GetStringLength());
    std::string value(m.value.GetString(), m.value.GetStringLength());
    if (key.size() < 2 || key[0] != '#') {
      return Error::Validation(
          "ExpressionAttributeNames contains invalid key: Syntax error; key: \"" + key + "\"");
    }
    if (value.empty()) {
      return Error::Validation(
          "ExpressionAttributeNames contains invalid value: Empty attribute name for key " + key);
    }
    names.emplace(std::move(key), std::move(value));
  }
  return names;
}

Status CheckAllNamesUsed(const std::map<std::string, std::string>& names,
                         const std::set<std::string>& used) {
  std::string unused;
  for (const auto& [placeholder, name] : names) {
    if (!used.count(placeholder)) unused += (unused.empty() ? "" : ", ") + placeholder;
  }
  if (unused.empty()) return Status::Ok();
  return Error::Validation("Value provided in ExpressionAttributeNames unused in expressions: "
                           "keys: {" + unused + "}");
}

}  // namespace

// Validates the fields shared by PutItem/GetItem/DeleteItem. The table is resolved later, by
// Resolve(): the service checks the request's shape and values before the table's existence.
static Result<ItemRequest> ParseHead(const rapidjson::Value& req, const char* item_field,
                                     const char* item_path, Constraints& c) {
  ItemRequest r;
  ASSIGN_OR_RETURN(name, OptString(req, "TableName"));
  ASSIGN_OR_RETURN(capacity, OptString(req, "ReturnConsumedCapacity"));
  ASSIGN_OR_RETURN(item, OptObject(req, item_field));
  c.NotNull(item_path, item != nullptr);
  c.NotNull("tableName", name.has_value());
  c.TableName("tableName", name, 1);
  c.Enum("returnConsumedCapacity", capacity, {"INDEXES", "TOTAL", "NONE"});
  if (!c.ok()) return c.ToError();
  r.table_name = std::move(*name);
  r.return_capacity = capacity;
  return r;
}

static Status Resolve(const Services& s, ItemRequest& r) {
  ASSIGN_OR_RETURN(table, s.catalog.Get(r.table_name));
  r.table = std::move(table);
  return Status::Ok();
}

// Checks shared by PutItem and DeleteItem, in the service's order.
static Status CheckWriteParameters(const rapidjson::Value& req,
                                   const std::optional<std::string>& return_values) {
  if (Field(req, "Expected") && Field(req, "ConditionExpression")) {
    return Error::Validation(
        "Can not use both expression and non-expression parameters in the same request: "
        "Non-expression parameters: {Expected} Expression parameters: {ConditionExpression}");
  }
  if (!Field(req, "ConditionExpression")) {
    if (Field(req, "ExpressionAttributeValues")) {
      return Error::Validation(
          "ExpressionAttributeValues can only be specified when using expressions: "
          "ConditionExpression is null");
    }
    if (Field(req, "ExpressionAttributeNames")) {
      return Error::Validation(
          "ExpressionAttributeNames can only be specified when using expressions");
    }
  }
  if (return_values && *return_values != "NONE" && *return_values != "ALL_OLD") {
    return Error::Validation("ReturnValues can only be ALL_OLD or NONE");
  }
  return RejectUnsupported(req);
}

Result<std::string> PutItem(const Services& s, const rapidjson::Value& req) {
  Constraints c;
  ASSIGN_OR_RETURN(return_values, OptString(req, "ReturnValues"));
  ASSIGN_OR_RETURN(metrics, OptString(req, "ReturnItemCollectionMetrics"));
  c.Enum("returnValues", return_values, kReturnValuesEnum);
  c.Enum("returnItemCollectionMetrics", metrics, {"SIZE", "NONE"});
  ASSIGN_OR_RETURN(head, ParseHead(req, "Item", "item", c));
  RETURN_IF_ERROR(CheckWriteParameters(req, return_values));
  ASSIGN_OR_RETURN(item, DecodeItem(*Field(req, "Item")));
  if (model::ItemSize(item) > model::kMaxItemBytes) {
    return Error::Validation("Item size has exceeded the maximum allowed size");
  }
  RETURN_IF_ERROR(Resolve(s, head));
  RETURN_IF_ERROR(ops::ValidateItemKey(*head.table, item));
  ASSIGN_OR_RETURN(outcome, s.items.Put(*head.table, item));

  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  if (return_values == "ALL_OLD" && outcome.old_item) {
    w.Key("Attributes");
    WriteItem(w, *outcome.old_item);
  }
  WriteCapacity(w, head, ops::WriteCapacityUnits(std::max(outcome.old_size, outcome.new_size)));
  w.EndObject();
  return Finish(buf);
}

Result<std::string> GetItem(const Services& s, const rapidjson::Value& req) {
  Constraints c;
  ASSIGN_OR_RETURN(projection_text, OptString(req, "ProjectionExpression"));
  ASSIGN_OR_RETURN(consistent, OptBool(req, "ConsistentRead"));
  ASSIGN_OR_RETURN(attributes_to_get, OptArray(req, "AttributesToGet"));
  if (attributes_to_get) {
    if (attributes_to_get->Empty()) {
      c.Add("Value '[]' at 'attributesToGet' failed to satisfy constraint: Member must have "
            "length greater than or equal to 1");
    }
  }
  ASSIGN_OR_RETURN(head, ParseHead(req, "Key", "key", c));
  ASSIGN_OR_RETURN(names, DecodeNames(req));
  if (projection_text && attributes_to_get) {
    return Error::Validation(
        "Can not use both expression and non-expression parameters in the same request: "
        "Non-expression parameters: {AttributesToGet} Expression parameters: "
        "{ProjectionExpression}");
  }
  if (!names.empty() && !projection_text) {
    return Error::Validation(
        "ExpressionAttributeNames can only be specified when using expressions");
  }
  std::optional<expr::Projection> projection;
  if (projection_text) {
    std::set<std::string> used;
    ASSIGN_OR_RETURN(p, expr::Projection::Parse(*projection_text, names, &used));
    RETURN_IF_ERROR(CheckAllNamesUsed(names, used));
    projection = std::move(p);
  } else if (attributes_to_get) {
    // Legacy AttributesToGet: top-level names, no placeholders.
    std::map<std::string, std::string> legacy;
    std::string text;
    std::set<std::string> seen;
    for (const auto& a : attributes_to_get->GetArray()) {
      if (!a.IsString()) return Error::Serialization("Unexpected field type");
      std::string name(a.GetString(), a.GetStringLength());
      if (!seen.insert(name).second) {
        return Error::Validation(
            "One or more parameter values were invalid: Duplicate value in attribute name: " +
            name);
      }
      std::string placeholder = "#a" + std::to_string(legacy.size());
      legacy[placeholder] = std::move(name);
      text += (text.empty() ? "" : ", ") + placeholder;
    }
    std::set<std::string> used;
    ASSIGN_OR_RETURN(p, expr::Projection::Parse(text, legacy, &used));
    projection = std::move(p);
  }
  ASSIGN_OR_RETURN(key, DecodeItem(*Field(req, "Key")));
  RETURN_IF_ERROR(Resolve(s, head));
  RETURN_IF_ERROR(ops::ValidateKey(*head.table, key));
  ASSIGN_OR_RETURN(outcome, s.items.Get(*head.table, key));

  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  if (outcome.item) {
    w.Key("Item");
    WriteItem(w, projection ? projection->Apply(*outcome.item) : *outcome.item);
  }
  WriteCapacity(w, head, ops::ReadCapacityUnits(outcome.size, consistent.value_or(false)));
  w.EndObject();
  return Finish(buf);
}

Result<std::string> DeleteItem(const Services& s, const rapidjson::Value& req) {
  Constraints c;
  ASSIGN_OR_RETURN(return_values, OptString(req, "ReturnValues"));
  ASSIGN_OR_RETURN(metrics, OptString(req, "ReturnItemCollectionMetrics"));
  c.Enum("returnValues", return_values, kReturnValuesEnum);
  c.Enum("returnItemCollectionMetrics", metrics, {"SIZE", "NONE"});
  ASSIGN_OR_RETURN(head, ParseHead(req, "Key", "key", c));
  RETURN_IF_ERROR(CheckWriteParameters(req, return_values));
  ASSIGN_OR_RETURN(key, DecodeItem(*Field(req, "Key")));
  RETURN_IF_ERROR(Resolve(s, head));
  RETURN_IF_ERROR(ops::ValidateKey(*head.table, key));
  ASSIGN_OR_RETURN(outcome, s.items.Delete(*head.table, key));

  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  if (return_values == "ALL_OLD" && outcome.old_item) {
    w.Key("Attributes");
    WriteItem(w, *outcome.old_item);
  }
  WriteCapacity(w, head, ops::WriteCapacityUnits(outcome.old_size));
  w.EndObject();
  return Finish(buf);
}

}  // namespace ttlstore::api
