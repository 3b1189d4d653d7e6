#include "api/legacy.h"

#include <set>

#include "api/request.h"

namespace ttlstore::api {
namespace {

constexpr char kInvalid[] = "One or more parameter values were invalid: ";

// Adds a generated name / value placeholder and returns its token.
std::string NamePh(expr::Placeholders& ph, const std::string& name) {
  std::string token = "#_l" + std::to_string(ph.names.size());
  ph.names.emplace(token, name);
  return token;
}

std::string ValuePh(expr::Placeholders& ph, model::AttributeValue v) {
  std::string token = ":_l" + std::to_string(ph.values.size());
  ph.values.emplace(token, std::move(v));
  return token;
}

// One legacy condition {"ComparisonOperator": op, "AttributeValueList": [...]} (or the older
// {"Value": v, "Exists": b} form of Expected) on attribute `name`, as expression text.
Result<std::string> ConditionText(const std::string& name, const rapidjson::Value& spec,
                                  expr::Placeholders& ph) {
  if (!spec.IsObject()) return Error::Serialization("Unexpected field type");
  std::string path = NamePh(ph, name);
  ASSIGN_OR_RETURN(op, OptString(spec, "ComparisonOperator"));
  ASSIGN_OR_RETURN(exists, OptBool(spec, "Exists"));
  const rapidjson::Value* value = Field(spec, "Value");
  std::vector<model::AttributeValue> args;
  if (const rapidjson::Value* list = Field(spec, "AttributeValueList")) {
    if (!list->IsArray()) return Error::Serialization("Unexpected field type");
    for (const auto& a : list->GetArray()) {
      ASSIGN_OR_RETURN(v, DecodeAttributeValue(a));
      args.push_back(std::move(v));
    }
  }
  if (!op) {
    if (exists == false) {
      if (value) {
        return Error::Validation(std::string(kInvalid) +
                                 "Value cannot be used when Exists is false for Attribute: " + name);
      }
      return "attribute_not_exists(" + path + ")";
    }
    if (!value) {
      return Error::Validation(std::string(kInvalid) +
                               "Value must be provided when Exists is true for Attribute: " + name);
    }
    ASSIGN_OR_RETURN(v, DecodeAttributeValue(*value));
    return path + " = " + ValuePh(ph, std::move(v));
  }
  auto need = [&](size_t n) -> Status {
    if (args.size() == n) return Status::Ok();
    return Error::Validation(std::string(kInvalid) +
                             "Invalid number of argument(s) for the " + *op +
                             " ComparisonOperator");
  };
  static const std::map<std::string, std::string> kBinary = {
      {"EQ", "="}, {"NE", "<>"}, {"LE", "<="}, {"LT", "<"}, {"GE", ">="}, {"GT", ">"}};
  if (auto it = kBinary.find(*op); it != kBinary.end()) {
    RETURN_IF_ERROR(need(1));
    return path + " " + it->second + " " + ValuePh(ph, args[0]);
  }
  if (*op == "NOT_NULL") {
    RETURN_IF_ERROR(need(0));
    return "attribute_exists(" + path + ")";
  }
  if (*op == "NULL") {
    RETURN_IF_ERROR(need(0));
    return "attribute_not_exists(" + path + ")";
  }
  if (*op == "CONTAINS" || *op == "NOT_CONTAINS" || *op == "BEGINS_WITH") {
    RETURN_IF_ERROR(need(1));
    std::string fn = *op == "BEGINS_WITH" ? "begins_with" : "contains";
    std::string call = fn + "(" + path + ", " + ValuePh(ph, args[0]) + ")";
    return *op == "NOT_CONTAINS" ? "NOT " + call : call;
  }
  if (*op == "BETWEEN") {
    RETURN_IF_ERROR(need(2));
    std::string lo = ValuePh(ph, args[0]);
    return path + " BETWEEN " + lo + " AND " + ValuePh(ph, args[1]);
  }
  if (*op == "IN") {
    if (args.empty()) RETURN_IF_ERROR(need(1));
    std::string list;
    for (auto& a : args) list += (list.empty() ? "" : ", ") + ValuePh(ph, std::move(a));
    return path + " IN (" + list + ")";
  }
  return Error::Validation("1 validation error detected: Value '" + *op +
                           "' at 'comparisonOperator' failed to satisfy constraint: Member must "
                           "satisfy enum value set: [IN, NULL, BETWEEN, LT, NOT_CONTAINS, EQ, GT, "
                           "NOT_NULL, NE, LE, BEGINS_WITH, GE, CONTAINS]");
}

}  // namespace

Result<std::optional<expr::Projection>> LegacyProjection(const rapidjson::Value& req) {
  ASSIGN_OR_RETURN(list, OptArray(req, "AttributesToGet"));
  if (!list) return std::optional<expr::Projection>();
  if (list->Empty()) {
    return Error::Validation(
        "1 validation error detected: Value '[]' at 'attributesToGet' failed to satisfy "
        "constraint: Member must have length greater than or equal to 1");
  }
  std::map<std::string, std::string> names;
  std::set<std::string> seen;
  std::string text;
  for (const auto& a : list->GetArray()) {
    if (!a.IsString()) return Error::Serialization("Unexpected field type");
    std::string name(a.GetString(), a.GetStringLength());
    if (!seen.insert(name).second) {
      return Error::Validation(std::string(kInvalid) + "Duplicate value in attribute name: " + name);
    }
    std::string token = "#a" + std::to_string(names.size());
    names.emplace(token, std::move(name));
    text += (text.empty() ? "" : ", ") + token;
  }
  std::set<std::string> used;
  ASSIGN_OR_RETURN(p, expr::Projection::Parse(text, names, &used));
  return std::optional<expr::Projection>(std::move(p));
}

Result<std::optional<expr::Condition>> LegacyCondition(const rapidjson::Value& req,
                                                       const char* field, expr::Placeholders& ph) {
  ASSIGN_OR_RETURN(map, OptObject(req, field));
  ASSIGN_OR_RETURN(op, OptString(req, "ConditionalOperator"));
  if (op && *op != "AND" && *op != "OR") {
    return Error::Validation("1 validation error detected: Value '" + *op +
                             "' at 'conditionalOperator' failed to satisfy constraint: Member "
                             "must satisfy enum value set: [AND, OR]");
  }
  if (!map || map->ObjectEmpty()) return std::optional<expr::Condition>();
  std::string text;
  for (const auto& m : map->GetObject()) {
    ASSIGN_OR_RETURN(part, ConditionText(std::string(m.name.GetString(), m.name.GetStringLength()),
                                         m.value, ph));
    text += (text.empty() ? "" : (op == "OR" ? " OR " : " AND ")) + ("(" + part + ")");
  }
  ASSIGN_OR_RETURN(condition, expr::Condition::Parse(text, field, ph));
  return std::optional<expr::Condition>(std::move(condition));
}

Result<std::optional<expr::Update>> LegacyUpdate(const rapidjson::Value& req,
                                                 expr::Placeholders& ph) {
  ASSIGN_OR_RETURN(map, OptObject(req, "AttributeUpdates"));
  if (!map || map->ObjectEmpty()) return std::optional<expr::Update>();
  std::string set, remove, add, del;
  auto append = [](std::string& clause, const std::string& part) {
    clause += (clause.empty() ? "" : ", ") + part;
  };
  for (const auto& m : map->GetObject()) {
    std::string name(m.name.GetString(), m.name.GetStringLength());
    ASSIGN_OR_RETURN(action, OptString(m.value, "Action"));
    const rapidjson::Value* value = Field(m.value, "Value");
    std::optional<model::AttributeValue> v;
    if (value) {
      ASSIGN_OR_RETURN(decoded, DecodeAttributeValue(*value));
      v = std::move(decoded);
    }
    std::string path = NamePh(ph, name);
    std::string act = action.value_or("PUT");
    if (act == "PUT") {
      if (!v) {
        return Error::Validation(std::string(kInvalid) +
                                 "Only DELETE action is allowed when no attribute value is "
                                 "specified");
      }
      append(set, path + " = " + ValuePh(ph, std::move(*v)));
    } else if (act == "DELETE") {
      if (v) {
        append(del, path + " " + ValuePh(ph, std::move(*v)));
      } else {
        append(remove, path);
      }
    } else if (act == "ADD") {
      if (!v) {
        return Error::Validation(std::string(kInvalid) +
                                 "Only DELETE action is allowed when no attribute value is "
                                 "specified");
      }
      if (v->type() == model::ValueType::kL) {
        // Legacy ADD appends to a list (creating it when missing).
        std::string val = ValuePh(ph, std::move(*v));
        std::string empty = ValuePh(ph, model::AttributeValue::OfList({}));
        append(set, path + " = list_append(if_not_exists(" + path + ", " + empty + "), " + val + ")");
      } else {
        append(add, path + " " + ValuePh(ph, std::move(*v)));
      }
    } else {
      return Error::Validation("1 validation error detected: Value '" + act +
                               "' at 'attributeUpdates." + name +
                               ".member.action' failed to satisfy constraint: Member must "
                               "satisfy enum value set: [ADD, PUT, DELETE]");
    }
  }
  std::string text;
  if (!set.empty()) text += "SET " + set + " ";
  if (!remove.empty()) text += "REMOVE " + remove + " ";
  if (!add.empty()) text += "ADD " + add + " ";
  if (!del.empty()) text += "DELETE " + del;
  ASSIGN_OR_RETURN(update, expr::Update::Parse(text, ph));
  return std::optional<expr::Update>(std::move(update));
}

Result<std::optional<expr::KeyCondition>> LegacyKeyConditions(const rapidjson::Value& req,
                                                               const model::KeySchema& schema,
                                                               expr::Placeholders& ph) {
  ASSIGN_OR_RETURN(map, OptObject(req, "KeyConditions"));
  if (!map) return std::optional<expr::KeyCondition>();
  std::string text;
  for (const auto& m : map->GetObject()) {
    ASSIGN_OR_RETURN(part, ConditionText(std::string(m.name.GetString(), m.name.GetStringLength()),
                                         m.value, ph));
    text += (text.empty() ? "" : " AND ") + part;
  }
  ASSIGN_OR_RETURN(condition, expr::KeyCondition::Parse(text, schema, ph));
  return std::optional<expr::KeyCondition>(std::move(condition));
}

}  // namespace ttlstore::api
