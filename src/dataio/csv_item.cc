#include "dataio/csv_item.h"

#include "common/base64.h"
#include "common/utf8.h"
#include "model/number.h"

namespace ttlstore::dataio {

using model::AttributeValue;
using model::ValueType;

Result<model::Item> CsvRecordToItem(const std::vector<std::string>& header,
                                    const std::vector<std::string>& fields,
                                    const std::map<std::string, ValueType>& key_types) {
  if (fields.size() != header.size()) {
    return Error::Validation("the record has " + std::to_string(fields.size()) +
                             " fields where the header has " + std::to_string(header.size()));
  }
  model::Item item;
  for (size_t i = 0; i < header.size(); ++i) {
    const std::string& name = header[i];
    const std::string& text = fields[i];
    auto key = key_types.find(name);
    if (key == key_types.end()) {
      if (text.empty()) continue;
      if (!IsValidUtf8(text)) return Error::Validation("column " + name + " is not valid UTF-8");
      item.insert_or_assign(name, AttributeValue::String(text));
      continue;
    }
    if (text.empty()) return Error::Validation("the key attribute " + name + " is empty");
    switch (key->second) {
      case ValueType::kN: {
        auto n = model::Number::Parse(text);
        if (!n) return Error::Validation("key attribute " + name + ": " + n.error().message());
        item.insert_or_assign(name, AttributeValue::Num(n->ToString()));
        break;
      }
      case ValueType::kB: {
        auto bytes = Base64Decode(text);
        if (!bytes) return Error::Validation("key attribute " + name + " is not valid base64");
        item.insert_or_assign(name, AttributeValue::Binary(std::move(*bytes)));
        break;
      }
      default:
        if (!IsValidUtf8(text)) return Error::Validation("column " + name + " is not valid UTF-8");
        item.insert_or_assign(name, AttributeValue::String(text));
    }
  }
  return item;
}

}  // namespace ttlstore::dataio
