// DynamoDB's JSON form of attribute values ({"S": "x"}, {"N": "1"}, {"M": {...}}, ...) to and from
// model::AttributeValue, with the reference service's validation and error messages.
// Only api/ includes RapidJSON.
#pragma once

#include <rapidjson/document.h>

#include <string>
#include <vector>

#include "api/json_writer.h"
#include "common/result.h"
#include "model/attribute_value.h"

namespace ttlstore::api {

// Nesting limit of M and L values: DynamoDB's 32 levels count the attribute itself, so an
// attribute may hold at most 31 nested containers.
inline constexpr int kMaxNestingDepth = 32;

// Decodes one AttributeValue. Errors: SerializationException for wrong JSON types,
// ValidationException for an empty or multi-typed value, bad numbers, bad sets, too deep nesting.
Result<model::AttributeValue> DecodeAttributeValue(const rapidjson::Value& json);

// Decodes a map of name -> AttributeValue (an Item, a Key, ExpressionAttributeValues).
Result<model::Item> DecodeItem(const rapidjson::Value& json);

// DynamoDB's limits on an attribute name wherever a request names one (an item's or a map's
// names, AttributesToGet, AttributeUpdates): not empty, at most 65535 bytes, with the service's
// texts (ScyllaDB's Alternator test_limit_attribute_length_nonkey_empty and _bad, run against
// the service).
Status CheckAttributeName(std::string_view name);

// A set with duplicate members, as the service words it per set type: `listed` are its members
// as the request wrote them (base64 for a binary set).
Error DuplicateSetMembers(model::ValueType type, const std::vector<std::string>& listed);

// A string value, length-aware (std::string may hold NULs).
inline void WriteString(JsonWriter& w, const std::string& s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

void WriteAttributeValue(JsonWriter& w, const model::AttributeValue& value);
void WriteItem(JsonWriter& w, const model::Item& item);

}  // namespace ttlstore::api
