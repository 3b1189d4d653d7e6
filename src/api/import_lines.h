// One line of a DYNAMODB_JSON import file (the export's format): {"Item": {<name>: <AttributeValue>,
// ...}}, decoded and validated as PutItem's Item is (api/json_value.h), within the JSON parser's
// depth bound. backup::Imports calls it for every line (backup/ may not include RapidJSON).
#pragma once

#include <string_view>

#include "common/result.h"
#include "model/attribute_value.h"

namespace ttlstore::api {

Result<model::Item> DecodeImportJsonLine(std::string_view line);

}  // namespace ttlstore::api
