// The bounded JSON parser (api/json_parse.h) and the DynamoDB decoder of items and attribute
// values (api/json_value.h): any bytes in, never a crash, however deep the nesting.
#include <rapidjson/document.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "api/json_parse.h"
#include "api/json_value.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  rapidjson::Document doc;
  if (ttlstore::api::ParseJson(text, &doc) != ttlstore::api::JsonParse::kOk) return 0;
  auto item = ttlstore::api::DecodeItem(doc);
  auto value = ttlstore::api::DecodeAttributeValue(doc);
  (void)item;
  (void)value;
  return 0;
}
