#include "api/expression_params.h"

#include "api/request.h"
#include "model/item_size.h"

namespace ttlstore::api {
namespace {

std::string Key(const rapidjson::Value& name) { return {name.GetString(), name.GetStringLength()}; }

// DynamoDB's limits on the substitution maps: a placeholder of at most 255 bytes, and 2 MB for
// all names and values together (values sized as in an item).
constexpr size_t kMaxPlaceholderBytes = 255;
constexpr size_t kMaxSubstitutionBytes = 2u << 20;

std::string KeyTooLong(const char* map, const std::string& key, bool with_size) {
  return std::string(map) +
         " contains invalid key: The expression attribute map contains a key that is too long;" +
         (with_size ? " size of key: " + std::to_string(key.size()) : "");
}

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
  size_t substitution_bytes = 0;
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
      if (key.size() > kMaxPlaceholderBytes) {
        return Error::Validation(KeyTooLong("ExpressionAttributeNames", key, true));
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
      if (key.size() > kMaxPlaceholderBytes) {
        // The service leaves the size off here, unlike for names.
        return Error::Validation(KeyTooLong("ExpressionAttributeValues", key, false));
      }
      auto v = DecodeAttributeValue(m.value);
      if (!v) {
        if (v.error().code() != ErrorCode::kValidation) return std::move(v).error();
        // Too deep a document reads as it does in an item, without the placeholder's name.
        if (v.error().message().starts_with("Nesting Levels")) return std::move(v).error();
        return Error::Validation("ExpressionAttributeValues contains invalid value: " +
                                 v.error().message() + " for key " + key);
      }
      substitution_bytes += key.size() + model::ValueSize(*v);
      ph.values.emplace(std::move(key), std::move(*v));
    }
  }
  for (const auto& [key, name] : ph.names) substitution_bytes += key.size() + name.size();
  if (substitution_bytes > kMaxSubstitutionBytes) {
    return Error::Validation("ExpressionAttributeValues exceeds max size");
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
