#include "api/request.h"

namespace ttlstore::api {
namespace {

// The service's words for a JSON value of the wrong type: it names the JSON token it found
// and the Java type it wanted ("NUMBER_VALUE cannot be converted to String").
const char* TokenName(const rapidjson::Value& v) {
  switch (v.GetType()) {
    case rapidjson::kTrueType: return "TRUE_VALUE";
    case rapidjson::kFalseType: return "FALSE_VALUE";
    case rapidjson::kStringType: return "STRING_VALUE";
    case rapidjson::kNumberType: return v.IsDouble() ? "DECIMAL_VALUE" : "NUMBER_VALUE";
    default: return "VALUE";
  }
}

Error WrongType(const rapidjson::Value& v, const char* expected) {
  if (v.IsObject()) return Error::Serialization("Start of structure or map found where not expected");
  if (v.IsArray()) {
    return Error::Serialization(std::string("Unrecognized collection type class java.lang.") +
                                expected);
  }
  if (std::string_view(expected) == "Boolean") {
    return Error::Serialization("Unexpected token received from parser");
  }
  return Error::Serialization(std::string(TokenName(v)) + " cannot be converted to " + expected);
}

bool IsTableNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '-';
}

}  // namespace

std::string JoinNames(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return "[" + out + "]";
}

const rapidjson::Value* Field(const rapidjson::Value& obj, const char* name) {
  if (!obj.IsObject()) return nullptr;
  auto it = obj.FindMember(name);
  if (it == obj.MemberEnd() || it->value.IsNull()) return nullptr;
  return &it->value;
}

Result<std::optional<std::string>> OptString(const rapidjson::Value& obj, const char* name) {
  const rapidjson::Value* v = Field(obj, name);
  if (!v) return std::optional<std::string>();
  if (!v->IsString()) return WrongType(*v, "String");
  return std::optional<std::string>(std::string(v->GetString(), v->GetStringLength()));
}

Result<std::optional<bool>> OptBool(const rapidjson::Value& obj, const char* name) {
  const rapidjson::Value* v = Field(obj, name);
  if (!v) return std::optional<bool>();
  if (!v->IsBool()) return WrongType(*v, "Boolean");
  return std::optional<bool>(v->GetBool());
}

Result<std::optional<int64_t>> OptInt(const rapidjson::Value& obj, const char* name) {
  const rapidjson::Value* v = Field(obj, name);
  if (!v) return std::optional<int64_t>();
  if (!v->IsInt64()) return WrongType(*v, "Integer");
  return std::optional<int64_t>(v->GetInt64());
}

Result<const rapidjson::Value*> OptArray(const rapidjson::Value& obj, const char* name) {
  const rapidjson::Value* v = Field(obj, name);
  if (v && !v->IsArray()) return Error::Serialization("Unexpected field type");
  return v;
}

Result<const rapidjson::Value*> OptObject(const rapidjson::Value& obj, const char* name) {
  const rapidjson::Value* v = Field(obj, name);
  if (v && !v->IsObject()) return Error::Serialization("Unexpected field type");
  return v;
}

void Constraints::NotNull(const char* path, bool present) {
  if (!present) {
    errors_.push_back(std::string("Value null at '") + path +
                      "' failed to satisfy constraint: Member must not be null");
  }
}

void Constraints::Length(const std::string& path, const std::optional<std::string>& v, size_t min,
                         size_t max) {
  if (!v) return;
  if (v->size() < min) {
    errors_.push_back("Value " + Quote(*v) + " at '" + path +
                      "' failed to satisfy constraint: Member must have length greater than or "
                      "equal to " +
                      std::to_string(min));
  } else if (v->size() > max) {
    errors_.push_back("Value " + Quote(*v) + " at '" + path +
                      "' failed to satisfy constraint: Member must have length less than or "
                      "equal to " +
                      std::to_string(max));
  }
}

void Constraints::TableName(const std::string& path, const std::optional<std::string>& v,
                            size_t min, bool all_errors) {
  if (!v) return;
  bool pattern_ok = !v->empty();
  for (char c : *v) pattern_ok = pattern_ok && IsTableNameChar(c);
  bool length_ok = v->size() >= min && v->size() <= 255;
  if (!pattern_ok && (all_errors || length_ok)) {
    errors_.push_back("Value " + Quote(*v) + " at '" + path +
                      "' failed to satisfy constraint: Member must satisfy regular expression "
                      "pattern: [a-zA-Z0-9_.-]+");
  }
  Length(path, v, min, 255);
}

void Constraints::Enum(const std::string& path, const std::optional<std::string>& v,
                       std::initializer_list<const char*> allowed) {
  if (!v) return;
  std::string list;
  for (const char* a : allowed) {
    if (*v == a) return;
    if (!list.empty()) list += ", ";
    list += a;
  }
  errors_.push_back("Value " + Quote(*v) + " at '" + path +
                    "' failed to satisfy constraint: Member must satisfy enum value set: [" + list +
                    "]");
}

void Constraints::Min(const std::string& path, std::optional<int64_t> v, int64_t min) {
  if (v && *v < min) {
    errors_.push_back("Value '" + std::to_string(*v) + "' at '" + path +
                      "' failed to satisfy constraint: Member must have value greater than or "
                      "equal to " +
                      std::to_string(min));
  }
}

void Constraints::Max(const std::string& path, std::optional<int64_t> v, int64_t max) {
  if (v && *v > max) {
    errors_.push_back("Value '" + std::to_string(*v) + "' at '" + path +
                      "' failed to satisfy constraint: Member must have value less than or "
                      "equal to " +
                      std::to_string(max));
  }
}

Error Constraints::ToError() const {
  std::string msg = std::to_string(errors_.size()) +
                    (errors_.size() == 1 ? " validation error detected: "
                                         : " validation errors detected: ");
  for (size_t i = 0; i < errors_.size(); ++i) {
    if (i) msg += "; ";
    msg += errors_[i];
  }
  return Error::Validation(std::move(msg));
}

}  // namespace ttlstore::api
