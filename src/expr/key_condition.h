// KeyCondition: a parsed KeyConditionExpression for Query, checked against the key schema of the
// table or index queried: an equality on the partition key, and optionally one condition on the
// sort key (=, <, <=, >, >=, BETWEEN, begins_with). Errors use the service's wording, e.g.
// "Query condition missed key schema element: pk".
#pragma once

#include <optional>
#include <string_view>

#include "common/result.h"
#include "expr/placeholders.h"
#include "model/attribute_value.h"
#include "model/table.h"

namespace ttlstore::expr {

struct KeyCondition {
  enum class SortOp { kNone, kEq, kLt, kLe, kGt, kGe, kBetween, kBeginsWith };

  model::AttributeValue partition;  // the partition key's value
  SortOp sort_op = SortOp::kNone;
  model::AttributeValue sort1;      // the operand (lower bound for BETWEEN)
  model::AttributeValue sort2;      // the upper bound for BETWEEN

  // `generated` marks text ttlstore wrote itself (PartiQL's translation of WHERE and SET): the
  // 4 KB limit on a caller's expression does not apply to it, and its nesting is bounded by
  // the PartiQL parser's own limits.
  static Result<KeyCondition> Parse(std::string_view text, const model::KeySchema& schema,
                                    Placeholders& ph, bool generated = false);

  // True if `sort_key` satisfies the sort-key condition (always true for kNone).
  bool MatchesSort(const model::AttributeValue& sort_key) const;
};

// DynamoDB's ordering of two scalar values of the same type (N numerically, S and B by unsigned
// bytes). REQUIRES: a.type() == b.type() and both are S, N or B.
int CompareScalars(const model::AttributeValue& a, const model::AttributeValue& b);

}  // namespace ttlstore::expr
