#include "api/import_lines.h"

#include <rapidjson/document.h>

#include "api/json_parse.h"
#include "api/json_value.h"

namespace ttlstore::api {

Result<model::Item> DecodeImportJsonLine(std::string_view line) {
  rapidjson::Document doc;
  // An item nests at most 32 levels; a few more for the line's own object and the type tags.
  switch (ParseJson(line, &doc, 2 * kMaxNestingDepth + 4)) {
    case JsonParse::kOk: break;
    case JsonParse::kInvalid: return Error::Validation("Unexpected token: the line is not JSON");
    case JsonParse::kTooDeep:
      return Error::Validation(
          "Nesting Levels have exceeded supported limits: Attributes in the item have nested "
          "levels beyond supported limit");
  }
  if (!doc.IsObject()) return Error::Validation("The line is not a JSON object");
  auto item = doc.FindMember("Item");
  if (item == doc.MemberEnd() || !item->value.IsObject()) {
    return Error::Validation("The line has no Item object");
  }
  return DecodeItem(item->value);
}

}  // namespace ttlstore::api
