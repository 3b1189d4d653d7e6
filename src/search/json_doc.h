// A bounded JSON reader for the values of Nested fields (search/nested_field.h): a column's
// text parsed into a small tree. The text is untrusted (any row's cell): the input size, the
// nesting depth and the number of values are bounded, and the parse recurses at most
// kMaxJsonDepth levels, so no cell can exhaust the stack or the memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ttlstore::search {

// Nested values nest at most model::kMaxNestedDepth objects, each inside an array, and a
// sub-field may be an array: 16 levels is more than any value the schema can use.
inline constexpr int kMaxJsonDepth = 16;
inline constexpr size_t kMaxJsonBytes = 2 << 20;  // the service's 2 MB cell value
inline constexpr size_t kMaxJsonValues = 100000;

struct JsonValue {
  enum class Type : uint8_t { kNull, kBool, kInt, kDouble, kString, kArray, kObject };
  Type type = Type::kNull;
  bool boolean = false;
  int64_t integer = 0;  // kInt: a number without fraction or exponent that fits int64
  double number = 0;    // kDouble (and kInt, converted)
  std::string text;     // kString, UTF-8
  std::vector<JsonValue> items;                            // kArray
  std::vector<std::pair<std::string, JsonValue>> members;  // kObject, in text order

  // The member named `name` (the first of duplicates), or null.
  const JsonValue* Find(std::string_view name) const;
};

// False when `text` is not one JSON value (surrounded by whitespace only) within the bounds.
bool ParseJson(std::string_view text, JsonValue* out);

}  // namespace ttlstore::search
