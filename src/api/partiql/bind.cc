// Binding of PartiQL literals and `?` parameters to attribute values, and SELECT projection.
#include <algorithm>

#include "api/json_value.h"
#include "common/base64.h"
#include "api/partiql/parser.h"
#include "api/partiql/translate.h"
#include "model/number.h"

namespace ttlstore::api::partiql {
namespace {

using model::AttributeValue;
using model::ValueType;

// A bag (<<...>>) is a DynamoDB set: all strings, all numbers, or (from parameters) all binary.
Result<AttributeValue> BindBag(const Value& v, const Params& params) {
  std::vector<std::string> members;
  std::optional<ValueType> set_type;
  for (const Value& element : v.elements) {
    ASSIGN_OR_RETURN(bound, Bind(element, params));
    ValueType t = bound.type();
    ValueType member_type = t == ValueType::kS   ? ValueType::kSS
                            : t == ValueType::kN ? ValueType::kNS
                            : t == ValueType::kB ? ValueType::kBS
                                                 : ValueType::kNull;
    if (member_type == ValueType::kNull || (set_type && *set_type != member_type)) {
      return Error::Validation(
          "Unsupported data type in Bag. DynamoDB only supports either numbers or strings in "
          "bags");
    }
    set_type = member_type;
    members.push_back(bound.scalar());
  }
  // NS members are canonical text, so equal numbers are equal strings here.
  std::vector<std::string> sorted = members;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
    std::vector<std::string> listed = members;
    if (*set_type == ValueType::kBS) {
      for (std::string& m : listed) m = Base64Encode(m);
    }
    return DuplicateSetMembers(*set_type, listed);
  }
  return AttributeValue::Set(*set_type, std::move(members));
}

// Follows one path step; nullptr when absent.
const AttributeValue* Step(const AttributeValue& v, const expr::PathElement& e) {
  if (e.is_index()) {
    if (v.type() != ValueType::kL || static_cast<size_t>(e.index) >= v.list().size()) {
      return nullptr;
    }
    return &v.list()[e.index];
  }
  if (v.type() != ValueType::kM) return nullptr;
  auto it = v.map().find(e.name);
  return it == v.map().end() ? nullptr : &it->second;
}

}  // namespace

Result<AttributeValue> Bind(const Value& v, const Params& params) {
  return BindAt(v, params, "root");
}

Result<model::Item> BindItem(const Value& map, const Params& params) {
  if (map.kind != Value::Kind::kMap) {
    ASSIGN_OR_RETURN(bound, Bind(map, params));
    if (bound.type() != ValueType::kM) return model::Item();  // the caller refuses it
    return bound.map();
  }
  model::Item item;
  for (size_t i = 0; i < map.elements.size(); ++i) {
    ASSIGN_OR_RETURN(bound, BindAt(map.elements[i], params, "root"));
    item.emplace(map.keys[i], std::move(bound));
  }
  return item;
}

Result<AttributeValue> BindAt(const Value& v, const Params& params, const std::string& path) {
  switch (v.kind) {
    case Value::Kind::kString:
      return AttributeValue::String(v.text);
    case Value::Kind::kNumber: {
      auto n = model::Number::Parse(v.text);
      // The service names where in the value the number is ("... under root.x", a conformance
      // suite's capture): `root` is the attribute's value (or the WHERE or SET operand).
      if (!n) return Error::Validation(n.error().message() + " under " + path);
      return AttributeValue::Num(n->ToString());
    }
    case Value::Kind::kBool:
      return AttributeValue::Bool(v.boolean);
    case Value::Kind::kNull:
      return AttributeValue::Null();
    case Value::Kind::kMissing:
      return Error::Validation("Unsupported data type: MISSING");
    case Value::Kind::kParameter:
      if (v.parameter < 0 || static_cast<size_t>(v.parameter) >= params.size()) {
        return Error::Validation("Number of parameters in request and statement don't match.");
      }
      return params[v.parameter];
    case Value::Kind::kList: {
      model::List list;
      for (const Value& element : v.elements) {
        ASSIGN_OR_RETURN(bound,
                         BindAt(element, params, path + "[" + std::to_string(list.size()) + "]"));
        list.push_back(std::move(bound));
      }
      return AttributeValue::OfList(std::move(list));
    }
    case Value::Kind::kMap: {
      model::Map map;
      for (size_t i = 0; i < v.elements.size(); ++i) {
        ASSIGN_OR_RETURN(bound, BindAt(v.elements[i], params, path + "." + v.keys[i]));
        map.emplace(v.keys[i], std::move(bound));
      }
      return AttributeValue::OfMap(std::move(map));
    }
    case Value::Kind::kBag:
      return BindBag(v, params);
  }
  return Error::Internal("unknown PartiQL value kind");
}

model::Item Project(const Statement& s, const model::Item& item) {
  if (s.select_all) return item;
  model::Item out;
  for (const expr::Path& path : s.projection) {
    auto it = item.find(path.front().name);
    if (it == item.end()) continue;
    const AttributeValue* v = &it->second;
    for (size_t i = 1; v && i < path.size(); ++i) v = Step(*v, path[i]);
    if (v) out[OutputName(path)] = *v;
  }
  return out;
}

}  // namespace ttlstore::api::partiql
