#include "api/legacy.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>

#include "api/request.h"
#include "expr/value_ops.h"

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

// Where a legacy condition comes from: the checks differ (dynalite's validations, written
// against the service: validateAttributeConditions for Expected, validateConditions for the rest).
enum class Source { kExpected, kFilter, kKeyConditions };

// The types each comparison operator takes in a filter or key condition (dynalite's tests,
// written against the service, and the API reference's Condition page). EQ and NE take every
// type, as the API reference says.
bool OperatorTakes(const std::string& op, model::ValueType t) {
  using T = model::ValueType;
  bool scalar = t == T::kS || t == T::kN || t == T::kB;
  if (op == "LT" || op == "LE" || op == "GT" || op == "GE" || op == "IN" || op == "BETWEEN") {
    return scalar;
  }
  if (op == "CONTAINS" || op == "NOT_CONTAINS") return scalar;  // "String, Number, or Binary"
  if (op == "BEGINS_WITH") return t == T::kS || t == T::kB;
  return true;
}

// The operators a key condition cannot use (on the partition key NE too).
bool Indexable(const std::string& op, bool partition_key) {
  if (op == "NULL" || op == "NOT_NULL" || op == "CONTAINS" || op == "NOT_CONTAINS" || op == "IN") {
    return false;
  }
  return !(partition_key && op == "NE");
}

// The checks the service makes of an operator and its values, in its order: how many values,
// one type for all, a type the operator takes, and BETWEEN's order.
Status CheckArguments(const std::string& op, const std::vector<model::AttributeValue>& args) {
  static const std::map<std::string, std::pair<size_t, size_t>> kCounts = {
      {"EQ", {1, 1}}, {"NE", {1, 1}}, {"LE", {1, 1}}, {"LT", {1, 1}}, {"GE", {1, 1}},
      {"GT", {1, 1}}, {"CONTAINS", {1, 1}}, {"NOT_CONTAINS", {1, 1}}, {"BEGINS_WITH", {1, 1}},
      {"NULL", {0, 0}}, {"NOT_NULL", {0, 0}}, {"IN", {1, SIZE_MAX}}, {"BETWEEN", {2, 2}}};
  auto count = kCounts.find(op);
  if (count == kCounts.end()) {
    return Error::Validation("1 validation error detected: Value '" + op +
                             "' at 'comparisonOperator' failed to satisfy constraint: Member must "
                             "satisfy enum value set: [IN, NULL, BETWEEN, LT, NOT_CONTAINS, EQ, "
                             "GT, NOT_NULL, NE, LE, BEGINS_WITH, GE, CONTAINS]");
  }
  if (args.size() < count->second.first || args.size() > count->second.second) {
    return Error::Validation(std::string(kInvalid) + "Invalid number of argument(s) for the " + op +
                             " ComparisonOperator");
  }
  for (const auto& a : args) {
    if (a.type() != args[0].type()) {
      return Error::Validation(std::string(kInvalid) +
                               "AttributeValues inside AttributeValueList must be of same type");
    }
  }
  // Expected too: a list for CONTAINS, IN, LE or BETWEEN is a ValidationException there as in
  // filters (ScyllaDB's Alternator test_expected.py, run against the service).
  for (const auto& a : args) {
    if (!OperatorTakes(op, a.type())) {
      return Error::Validation(std::string(kInvalid) + "ComparisonOperator " + op +
                               " is not valid for " + model::TypeName(a.type()) +
                               " AttributeValue type");
    }
  }
  if (op == "BETWEEN" && expr::CompareValues(&args[0], expr::CompareOp::kGt, &args[1])) {
    return Error::Validation(
        "The BETWEEN condition was provided a range where the lower bound is greater than the "
        "upper bound");
  }
  return Status::Ok();
}

// One legacy condition {"ComparisonOperator": op, "AttributeValueList": [...]} (or Expected's
// {"Value": v, "Exists": b}, or {"ComparisonOperator": op, "Value": v}) on attribute `name`,
// checked as the service checks it, as expression text.
Result<std::string> ConditionText(const std::string& name, const rapidjson::Value& spec,
                                  expr::Placeholders& ph, Source source) {
  if (!spec.IsObject()) return Error::Serialization("Unexpected field type");
  std::string path = NamePh(ph, name);
  ASSIGN_OR_RETURN(op, OptString(spec, "ComparisonOperator"));
  ASSIGN_OR_RETURN(exists, OptBool(spec, "Exists"));
  const rapidjson::Value* value = Field(spec, "Value");
  const rapidjson::Value* list = Field(spec, "AttributeValueList");
  std::vector<model::AttributeValue> args;
  if (list) {
    if (!list->IsArray()) return Error::Serialization("Unexpected field type");
    for (const auto& a : list->GetArray()) {
      ASSIGN_OR_RETURN(v, DecodeAttributeValue(a));
      args.push_back(std::move(v));
    }
  }
  std::string at = " for Attribute: " + name;
  if (source == Source::kExpected) {
    if (list && value) {
      return Error::Validation(std::string(kInvalid) +
                               "Value and AttributeValueList cannot be used together" + at);
    }
    if (op && exists.has_value()) {
      return Error::Validation(std::string(kInvalid) +
                               "Exists and ComparisonOperator cannot be used together" + at);
    }
    if (op && *op != "NULL" && *op != "NOT_NULL" && !list && !value) {
      return Error::Validation(std::string(kInvalid) +
                               "Value or AttributeValueList must be used with ComparisonOperator: " +
                               *op + at);
    }
    if (!op && list) {
      return Error::Validation(std::string(kInvalid) +
                               "AttributeValueList can only be used with a ComparisonOperator" + at);
    }
    if (op && value) {
      ASSIGN_OR_RETURN(v, DecodeAttributeValue(*value));
      args.push_back(std::move(v));
    }
  }
  if (!op) {
    if (exists == false) {
      if (value) {
        return Error::Validation(std::string(kInvalid) +
                                 "Value cannot be used when Exists is false" + at);
      }
      return "attribute_not_exists(" + path + ")";
    }
    if (!value) {
      return Error::Validation(std::string(kInvalid) + "Value must be provided when Exists is " +
                               (exists ? "true" : "null") + at);
    }
    ASSIGN_OR_RETURN(v, DecodeAttributeValue(*value));
    return path + " = " + ValuePh(ph, std::move(v));
  }
  RETURN_IF_ERROR(CheckArguments(*op, args));
  static const std::map<std::string, std::string> kBinary = {
      {"EQ", "="}, {"NE", "<>"}, {"LE", "<="}, {"LT", "<"}, {"GE", ">="}, {"GT", ">"}};
  if (auto it = kBinary.find(*op); it != kBinary.end()) {
    return path + " " + it->second + " " + ValuePh(ph, args[0]);
  }
  if (*op == "NOT_NULL") return "attribute_exists(" + path + ")";
  if (*op == "NULL") return "attribute_not_exists(" + path + ")";
  if (*op == "CONTAINS" || *op == "NOT_CONTAINS" || *op == "BEGINS_WITH") {
    std::string fn = *op == "BEGINS_WITH" ? "begins_with" : "contains";
    std::string call = fn + "(" + path + ", " + ValuePh(ph, args[0]) + ")";
    if (*op != "NOT_CONTAINS") return call;
    // In Expected, NOT_CONTAINS of a missing attribute is false, not true (ScyllaDB's
    // Alternator test_update_expected_1_not_contains, run against the service). Filters keep
    // the plain negation: no source says what the service does there.
    // (No parentheses: AND binds tighter than the OR that may join it to the others, and the
    // checker refuses redundant ones.)
    if (source == Source::kExpected) return "attribute_exists(" + path + ") AND NOT " + call;
    return "NOT " + call;
  }
  if (*op == "BETWEEN") {
    std::string lo = ValuePh(ph, args[0]);
    return path + " BETWEEN " + lo + " AND " + ValuePh(ph, args[1]);
  }
  std::string in;  // IN
  for (auto& a : args) in += (in.empty() ? "" : ", ") + ValuePh(ph, std::move(a));
  return path + " IN (" + in + ")";
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
    RETURN_IF_ERROR(CheckAttributeName(name));
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

Status CheckConditionalOperator(const rapidjson::Value& req, const char* field) {
  ASSIGN_OR_RETURN(map, OptObject(req, field));
  ASSIGN_OR_RETURN(op, OptString(req, "ConditionalOperator"));
  if (!op) return Status::Ok();
  if (*op != "AND" && *op != "OR") {
    return Error::Validation("1 validation error detected: Value '" + *op +
                             "' at 'conditionalOperator' failed to satisfy constraint: Member "
                             "must satisfy enum value set: [AND, OR]");
  }
  if (!map || map->ObjectEmpty()) {
    return Error::Validation("ConditionalOperator cannot be used without Filter or Expected");
  }
  if (map->MemberCount() == 1) {
    return Error::Validation(
        "ConditionalOperator can only be used when Filter or Expected has two or more elements");
  }
  return Status::Ok();
}

Result<std::optional<expr::Condition>> LegacyCondition(const rapidjson::Value& req,
                                                       const char* field, expr::Placeholders& ph) {
  RETURN_IF_ERROR(CheckConditionalOperator(req, field));
  ASSIGN_OR_RETURN(map, OptObject(req, field));
  ASSIGN_OR_RETURN(op, OptString(req, "ConditionalOperator"));
  if (!map || map->ObjectEmpty()) return std::optional<expr::Condition>();
  Source source = std::string_view(field) == "Expected" ? Source::kExpected : Source::kFilter;
  std::string text;
  for (const auto& m : map->GetObject()) {
    ASSIGN_OR_RETURN(part, ConditionText(std::string(m.name.GetString(), m.name.GetStringLength()),
                                         m.value, ph, source));
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
    RETURN_IF_ERROR(CheckAttributeName(name));
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
  update.UseLegacyWording();
  return std::optional<expr::Update>(std::move(update));
}

Result<std::optional<expr::KeyCondition>> LegacyKeyConditions(const rapidjson::Value& req,
                                                               const model::KeySchema& schema,
                                                               expr::Placeholders& ph) {
  ASSIGN_OR_RETURN(map, OptObject(req, "KeyConditions"));
  if (!map) return std::optional<expr::KeyCondition>();
  // A GSI with a multi-attribute key takes one condition per key attribute: the service
  // accepts the legacy parameter on such an index as on any other (docs/compatibility.md).
  size_t most = std::max<size_t>(2, schema.HashElements().size() + schema.RangeElements().size());
  if (map->ObjectEmpty() || map->MemberCount() > most) {
    return Error::Validation("Conditions can be of length 1 or 2 only");
  }
  std::string text;
  for (const auto& m : map->GetObject()) {
    std::string name(m.name.GetString(), m.name.GetStringLength());
    ASSIGN_OR_RETURN(part, ConditionText(name, m.value, ph, Source::kKeyConditions));
    // Checked after the values, as the service does (dynalite's query tests).
    ASSIGN_OR_RETURN(op, OptString(m.value, "ComparisonOperator"));
    bool key_attribute = schema.Contains(name);
    bool partition_key = false;
    for (const model::KeyElement* e : schema.HashElements()) partition_key |= e->name == name;
    if (op && key_attribute && !Indexable(*op, partition_key)) {
      return Error::Validation("Attempted conditional constraint is not an indexable operation");
    }
    text += (text.empty() ? "" : " AND ") + part;
  }
  ASSIGN_OR_RETURN(condition, expr::KeyCondition::Parse(text, schema, ph, /*generated=*/false,
                                                        /*legacy=*/true));
  return std::optional<expr::KeyCondition>(std::move(condition));
}

}  // namespace ttlstore::api
