#include "api/expression_params.h"

#include "api/request.h"

namespace ttlstore::api {
namespace {

std::string Key(const rapidjson::Value& name) { return {name.GetString(), name.GetStringLength()}; }

std::string Unused(const auto& map, const std::set<std::string>& used) {
  std::string out;
  for (const auto& [key, v] : map) {
    if (!used.count(key)) out += (out.empty() ? "" : ", ") + key;
  }
  return out;
}

}  // namespace

Result<expr::Placeholders> DecodePlaceholders(const rapidjson::Value& req) {
  expr::Placeholders ph;
  ASSIGN_OR_RETURN(names, OptObject(req, "ExpressionAttributeNames"));
  if (names) {
    if (names->ObjectEmpty()) return Error::Validation("ExpressionAttributeNames must not be empty");
    for (const auto& m : names->GetObject()) {
      std::string key = Key(m.name);
      if (!m.value.IsString()) return Error::Serialization("Unexpected field type");
      std::string value(m.value.GetString(), m.value.GetStringLength());
      if (key.size() < 2 || key[0] != '#') {
        return Error::Validation(
            "ExpressionAttributeNames contains invalid key: Syntax error; key: \"" + key + "\"");
      }
      if (value.empty()) {
        return Error::Validation(
            "ExpressionAttributeNames contains invalid value: Empty attribute name for key " + key);
      }
      if (value.size() > 65535) {
        return Error::Validation(
            "ExpressionAttributeNames contains invalid value: Attribute name is too large, must "
            "be less than 65536 bytes for key " + key);
      }
      ph.names.emplace(std::move(key), std::move(value));
    }
  }
  ASSIGN_OR_RETURN(values, OptObject(req, "ExpressionAttributeValues"));
  if (values) {
    if (values->ObjectEmpty()) {
      return Error::Validation("ExpressionAttributeValues must not be empty");
    }
    for (const auto& m : values->GetObject()) {
      std::string key = Key(m.name);
      if (key.size() < 2 || key[0] != ':') {
        return Error::Validation(
            "ExpressionAttributeValues contains invalid key: Syntax error; key: \"" + key + "\"");
      }
      auto v = DecodeAttributeValue(m.value);
      if (!v) {
        if (v.error().code() != ErrorCode::kValidation) return std::move(v).error();
        return Error::Validation("ExpressionAttributeValues contains invalid value: " +
                                 v.error().message() + " for key " + key);
      }
      ph.values.emplace(std::move(key), std::move(*v));
    }
  }
  return ph;
}

Status CheckPlaceholdersUsed(const expr::Placeholders& ph) {
  if (std::string unused = Unused(ph.names, ph.used_names); !unused.empty()) {
    return Error::Validation(
        "Value provided in ExpressionAttributeNames unused in expressions: keys: {" + unused + "}");
  }
  if (std::string unused = Unused(ph.values, ph.used_values); !unused.empty()) {
    return Error::Validation(
        "Value provided in ExpressionAttributeValues unused in expressions: keys: {" + unused +
        "}");
  }
  return Status::Ok();
}

}  // namespace ttlstore::api
