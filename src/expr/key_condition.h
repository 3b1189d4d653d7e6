// KeyCondition: a parsed KeyConditionExpression for Query, checked against the key schema of the
// table or index queried: an equality on the partition key, and optionally one condition on the
// sort key (=, <, <=, >, >=, BETWEEN, begins_with). Errors use the service's wording, e.g.
// "Query condition missed key schema element: pk".
//
// On a GSI with a multi-attribute key: an equality on every partition-key attribute, and the
// sort-key attributes conditioned left to right without a gap, all by equality but the last
// one given, which may have any sort-key condition (docs/compatibility.md, "Multi-attribute
// GSI keys").
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "expr/ast.h"
#include "expr/placeholders.h"
#include "model/attribute_value.h"
#include "model/table.h"

namespace ttlstore::expr {

struct KeyCondition {
  enum class SortOp { kNone, kEq, kLt, kLe, kGt, kGe, kBetween, kBeginsWith };

  model::AttributeValue partition;  // the partition key's value (its first attribute's)
  // A multi-attribute index key (model::KeySchema::more_hash): the other partition-key
  // attributes' values, in KeySchema order; and the equalities on the first sort-key
  // attributes, left to right, before the one `sort_op` is on (KeySchema::RangeElements()
  // [sort_prefix.size()]). Both empty for a single-attribute key.
  std::vector<model::AttributeValue> more_partition;
  std::vector<model::AttributeValue> sort_prefix;
  SortOp sort_op = SortOp::kNone;
  model::AttributeValue sort1;      // the operand (lower bound for BETWEEN)
  model::AttributeValue sort2;      // the upper bound for BETWEEN

  // `generated` marks text ttlstore wrote itself (PartiQL's translation of WHERE and SET): the
  // 4 KB limit on a caller's expression does not apply to it, and its nesting is bounded by
  // the PartiQL parser's own limits.
  // `legacy`: the text is the translation of the legacy KeyConditions map, whose count error
  // the service words differently ("Conditions can be of length 1 or 2 only").
  static Result<KeyCondition> Parse(std::string_view text, const model::KeySchema& schema,
                                    Placeholders& ph, bool generated = false, bool legacy = false);

  // Parse's first half, what the text alone shows (size, syntax, placeholders, operand types):
  // the service reports these before it looks up the table (a conformance suite's capture,
  // validation-ordering/queryKeyCondition).
  static Result<CondExpr> ParseText(std::string_view text, Placeholders& ph,
                                    bool generated = false);
  // Parse's second half: the parsed text reduced to one condition per key attribute and
  // matched against the key schema.
  static Result<KeyCondition> Bind(const CondExpr& root, const model::KeySchema& schema,
                                   bool legacy = false);

  // True if `sort_key` satisfies the sort-key condition (always true for kNone).
  bool MatchesSort(const model::AttributeValue& sort_key) const;

  // Every partition-key value, in KeySchema order.
  std::vector<const model::AttributeValue*> PartitionValues() const;

  // True if the key attributes of `key` (an item, or an ExclusiveStartKey) satisfy the whole
  // condition. REQUIRES: the condition was parsed against `schema`.
  bool Matches(const model::KeySchema& schema, const model::Item& key) const;
};

// DynamoDB's ordering of two scalar values of the same type (N numerically, S and B by unsigned
// bytes). REQUIRES: a.type() == b.type() and both are S, N or B.
int CompareScalars(const model::AttributeValue& a, const model::AttributeValue& b);

}  // namespace ttlstore::expr
