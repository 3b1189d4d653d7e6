// Placeholders: a request's ExpressionAttributeNames (#name -> attribute name) and
// ExpressionAttributeValues (:value -> AttributeValue), shared by every expression of the request.
// Parsing an expression substitutes them and records which were used, so that the request can
// reject unused ones as DynamoDB does ("Value provided in ExpressionAttributeValues unused in
// expressions: keys: {:v}").
#pragma once

#include <map>
#include <set>
#include <string>

#include "model/attribute_value.h"

namespace ttlstore::expr {

struct Placeholders {
  std::map<std::string, std::string> names;
  std::map<std::string, model::AttributeValue> values;
  std::set<std::string> used_names;   // filled by parsing
  std::set<std::string> used_values;  // filled by parsing
};

}  // namespace ttlstore::expr
