// Request decoding helpers shared by every operation handler:
//   - typed access to the top-level fields of the request JSON (a wrong JSON type is a
//     SerializationException, as in the reference service);
//   - Constraints, which collects DynamoDB's model-level checks and renders them the way the
//     service does: "2 validation errors detected: Value 'x' at 'tableName' failed to satisfy
//     constraint: ...; Value ...".
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/json_value.h"
#include "common/result.h"

namespace ttlstore::api {

// Names as the service lists them in messages: "[a, b]".
std::string JoinNames(const std::vector<std::string>& names);

// Looks up a top-level field; nullptr if absent or JSON null.
const rapidjson::Value* Field(const rapidjson::Value& obj, const char* name);

// A string field: nullopt when absent; SerializationException when not a string.
Result<std::optional<std::string>> OptString(const rapidjson::Value& obj, const char* name);
Result<std::optional<bool>> OptBool(const rapidjson::Value& obj, const char* name);
Result<std::optional<int64_t>> OptInt(const rapidjson::Value& obj, const char* name);
// An array or object field: nullptr when absent; SerializationException on a wrong type.
Result<const rapidjson::Value*> OptArray(const rapidjson::Value& obj, const char* name);
Result<const rapidjson::Value*> OptObject(const rapidjson::Value& obj, const char* name);

class Constraints {
 public:
  // "Member must not be null"
  void NotNull(const char* path, bool present);
  // Length bounds for a string field (nullopt: nothing to check).
  void Length(const std::string& path, const std::optional<std::string>& v, size_t min, size_t max);
  // Table name: length [min, 255] and the pattern [a-zA-Z0-9_.-]+. Control-plane calls
  // (`all_errors`) report the pattern error, then the length error; data-plane calls report a
  // length error alone, or else the pattern error, as the service does.
  void TableName(const std::string& path, const std::optional<std::string>& v, size_t min,
                 bool all_errors = false);
  // Enum membership; `allowed` is listed in the order DynamoDB prints it.
  void Enum(const std::string& path, const std::optional<std::string>& v,
            std::initializer_list<const char*> allowed);
  void Min(const std::string& path, std::optional<int64_t> v, int64_t min);
  void Max(const std::string& path, std::optional<int64_t> v, int64_t max);
  void Add(std::string message) { errors_.push_back(std::move(message)); }

  bool ok() const { return errors_.empty(); }
  // The collected errors as one ValidationException. REQUIRES: !ok().
  Error ToError() const;

 private:
  static std::string Quote(const std::string& v) { return "'" + v + "'"; }
  std::vector<std::string> errors_;
};

}  // namespace ttlstore::api
