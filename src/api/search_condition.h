// SearchVectors' SearchConditionExpression: equalities on the vector index's SearchSchema
// attributes joined by AND (API reference, SearchVectorsInput: "The HASH and INLINE_FILTER
// attributes support only the equality operator (=). You can reference only top-level
// attributes from the search schema"). Parsed with the request's placeholders; every refusal
// names what was wrong (docs/vector-indexes.md gives the texts and their sources).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/result.h"
#include "expr/placeholders.h"
#include "model/table.h"

namespace ttlstore::api {

struct SearchCondition {
  // The HASH attribute's value, when the index has one and the expression names it.
  std::optional<model::AttributeValue> hash;
  // INLINE_FILTER attribute = value, in expression order.
  std::vector<std::pair<std::string, model::AttributeValue>> filters;
};

// The longest SearchConditionExpression accepted, in bytes (the service's 4 KB expression
// limit, developer guide "Expression parameters").
inline constexpr size_t kMaxSearchConditionBytes = 4096;

// Parses `text` against vector index `index`. REQUIRES: index.IsVector().
Result<SearchCondition> ParseSearchCondition(const std::string& text,
                                             const model::SecondaryIndex& index,
                                             expr::Placeholders& ph);

}  // namespace ttlstore::api
