#include "api/json_value.h"

#include <algorithm>
#include <string_view>

#include "common/base64.h"
#include "model/number.h"

namespace ttlstore::api {
namespace {

using model::AttributeValue;
using model::ValueType;

constexpr char kInvalid[] = "One or more parameter values were invalid: ";
constexpr char kNestingMessage[] =
    "Nesting Levels have exceeded supported limits: Attributes in the item have nested levels "
    "beyond supported limit";
constexpr size_t kMaxAttributeNameBytes = 65535;

std::string_view View(const rapidjson::Value& v) { return {v.GetString(), v.GetStringLength()}; }

Error WrongJsonType(const char* expected) {
  return Error::Serialization(std::string("Unexpected value type in payload; expected ") +
                              expected);
}

Result<std::string> DecodeBinary(const rapidjson::Value& v) {
  if (!v.IsString()) return WrongJsonType("a base64 string");
  auto bytes = Base64Decode(View(v));
  if (!bytes) {
    return Error::Serialization("Base64 encoded length is expected a multiple of 4 bytes but found: " +
                                std::to_string(v.GetStringLength()));
  }
  return std::move(*bytes);
}

Result<std::string> DecodeNumber(const rapidjson::Value& v) {
  if (!v.IsString()) return WrongJsonType("a number string");
  auto n = model::Number::Parse(View(v));
  if (!n) return std::move(n).error();
  return n->ToString();
}

Result<AttributeValue> DecodeSet(ValueType type, const rapidjson::Value& v) {
  if (!v.IsArray()) return WrongJsonType("a list");
  if (v.Empty()) {
    const char* what = type == ValueType::kSS   ? "An string set  may not be empty"
                       : type == ValueType::kNS ? "An number set  may not be empty"
                                                : "Binary sets should not be empty";
    return Error::Validation(std::string(kInvalid) + what);
  }
  std::vector<std::string> members;
  members.reserve(v.Size());
  for (const auto& m : v.GetArray()) {
    if (type == ValueType::kSS) {
      if (!m.IsString()) return WrongJsonType("a string");
      members.emplace_back(View(m));
    } else {
      auto decoded = type == ValueType::kNS ? DecodeNumber(m) : DecodeBinary(m);
      if (!decoded) return std::move(decoded).error();
      members.push_back(std::move(*decoded));
    }
  }
  std::vector<std::string> sorted = members;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
    std::vector<std::string> listed;
    for (const auto& m : v.GetArray()) listed.emplace_back(View(m));
    return DuplicateSetMembers(type, listed);
  }
  return AttributeValue::Set(type, std::move(members));
}

Result<AttributeValue> Decode(const rapidjson::Value& json, int depth);

bool IsTypeName(std::string_view n) {
  return n == "S" || n == "N" || n == "B" || n == "BOOL" || n == "NULL" || n == "M" || n == "L" ||
         n == "SS" || n == "NS" || n == "BS";
}

Result<model::Map> DecodeMap(const rapidjson::Value& json, int depth) {
  if (!json.IsObject()) return WrongJsonType("a map");
  model::Map map;
  for (const auto& member : json.GetObject()) {
    RETURN_IF_ERROR(CheckAttributeName(View(member.name)));
    auto v = Decode(member.value, depth);
    if (!v) return std::move(v).error();
    map.insert_or_assign(std::string(View(member.name)), std::move(*v));
  }
  return map;
}

Result<AttributeValue> Decode(const rapidjson::Value& json, int depth) {
  if (!json.IsObject()) return WrongJsonType("an AttributeValue structure");
  if (depth >= kMaxNestingDepth) return Error::Validation(kNestingMessage);
  const rapidjson::Value* value = nullptr;
  std::string_view type;
  int count = 0;
  for (const auto& member : json.GetObject()) {
    // SDKs may send unset members as null; names that are not a type count as absent too.
    if (member.value.IsNull() || !IsTypeName(View(member.name))) continue;
    ++count;
    value = &member.value;
    type = View(member.name);
  }
  if (count == 0) {
    return Error::Validation(
        "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes");
  }
  if (count > 1) {
    return Error::Validation(
        "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the "
        "supported datatypes");
  }
  const rapidjson::Value& v = *value;
  if (type == "S") {
    if (!v.IsString()) return WrongJsonType("a string");
    return AttributeValue::String(std::string(View(v)));
  }
  if (type == "N") {
    auto n = DecodeNumber(v);
    if (!n) return std::move(n).error();
    return AttributeValue::Num(std::move(*n));
  }
  if (type == "B") {
    auto b = DecodeBinary(v);
    if (!b) return std::move(b).error();
    return AttributeValue::Binary(std::move(*b));
  }
  if (type == "BOOL") {
    if (!v.IsBool()) return WrongJsonType("a boolean");
    return AttributeValue::Bool(v.GetBool());
  }
  if (type == "NULL") {
    if (!v.IsBool()) return WrongJsonType("a boolean");
    if (!v.GetBool()) {
      return Error::Validation(std::string(kInvalid) +
                               "Null attribute value types must have the value of true");
    }
    return AttributeValue::Null();
  }
  if (type == "M") {
    auto m = DecodeMap(v, depth + 1);
    if (!m) return std::move(m).error();
    return AttributeValue::OfMap(std::move(*m));
  }
  if (type == "L") {
    if (!v.IsArray()) return WrongJsonType("a list");
    model::List list;
    list.reserve(v.Size());
    for (const auto& e : v.GetArray()) {
      auto d = Decode(e, depth + 1);
      if (!d) return std::move(d).error();
      list.push_back(std::move(*d));
    }
    return AttributeValue::OfList(std::move(list));
  }
  if (type == "SS") return DecodeSet(ValueType::kSS, v);
  if (type == "NS") return DecodeSet(ValueType::kNS, v);
  return DecodeSet(ValueType::kBS, v);
}


}  // namespace

Result<model::AttributeValue> DecodeAttributeValue(const rapidjson::Value& json) {
  return Decode(json, 0);
}

// Whether a value nests past DynamoDB's limit (Decode's rule), looked at alone.
static bool TooDeep(const rapidjson::Value& v, int depth) {
  if (!v.IsObject()) return false;
  if (depth >= kMaxNestingDepth) return true;
  for (const auto& member : v.GetObject()) {
    if (View(member.name) == "M" && member.value.IsObject()) {
      for (const auto& child : member.value.GetObject()) {
        if (TooDeep(child.value, depth + 1)) return true;
      }
    } else if (View(member.name) == "L" && member.value.IsArray()) {
      for (const auto& e : member.value.GetArray()) {
        if (TooDeep(e, depth + 1)) return true;
      }
    }
  }
  return false;
}

// The service's order within an item (a conformance suite's capture, validation-ordering/
// deepRequests): its top-level names first, then how deep its values nest, then the rest
// (a nested map's empty key comes after a value nested too deep elsewhere in the item).
Result<model::Item> DecodeItem(const rapidjson::Value& json) {
  if (json.IsObject()) {
    for (const auto& member : json.GetObject()) {
      RETURN_IF_ERROR(CheckAttributeName(View(member.name)));
    }
  }
  auto item = DecodeMap(json, 0);
  if (!item && json.IsObject() && item.error().message() != kNestingMessage) {
    for (const auto& member : json.GetObject()) {
      if (TooDeep(member.value, 0)) return Error::Validation(kNestingMessage);
    }
  }
  return item;
}

Status CheckAttributeName(std::string_view name) {
  if (name.empty()) return Error::Validation("Empty attribute name");
  if (name.size() > kMaxAttributeNameBytes) {
    return Error::Validation("Attribute name is too large, must be less than 65536 bytes");
  }
  return Status::Ok();
}

void WriteAttributeValue(JsonWriter& w, const AttributeValue& v) {
  w.StartObject();
  w.Key(model::TypeName(v.type()));
  switch (v.type()) {
    case ValueType::kS:
    case ValueType::kN:
      WriteString(w, v.scalar());
      break;
    case ValueType::kB:
      WriteString(w, Base64Encode(v.scalar()));
      break;
    case ValueType::kBool:
      w.Bool(v.boolean());
      break;
    case ValueType::kNull:
      w.Bool(true);
      break;
    case ValueType::kM:
      WriteItem(w, v.map());
      break;
    case ValueType::kL:
      w.StartArray();
      for (const auto& e : v.list()) WriteAttributeValue(w, e);
      w.EndArray();
      break;
    case ValueType::kSS:
    case ValueType::kNS:
    case ValueType::kBS:
      w.StartArray();
      for (const auto& m : v.set()) {
        WriteString(w, v.type() == ValueType::kBS ? Base64Encode(m) : m);
      }
      w.EndArray();
      break;
  }
  w.EndObject();
}

void WriteItem(JsonWriter& w, const model::Item& item) {
  w.StartObject();
  for (const auto& [name, v] : item) {
    w.Key(name.data(), static_cast<rapidjson::SizeType>(name.size()));
    WriteAttributeValue(w, v);
  }
  w.EndObject();
}

Error DuplicateSetMembers(ValueType type, const std::vector<std::string>& listed) {
  // Three different wordings, as the service has them (NS compares by value, so it cannot
  // echo "the" duplicate text).
  if (type == ValueType::kNS) return Error::Validation("Input collection contains duplicates");
  std::string list;
  for (const auto& m : listed) list += (list.empty() ? "" : ", ") + m;
  return Error::Validation(std::string(kInvalid) + "Input collection [" + list + "]" +
                           (type == ValueType::kBS ? "of type BS contains duplicates."
                                                   : " contains duplicates."));
}

}  // namespace ttlstore::api
