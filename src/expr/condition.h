// Condition: a parsed ConditionExpression or FilterExpression, with placeholders substituted,
// ready to evaluate against items. Grammar (DynamoDB developer guide, "Condition expressions"):
//   condition := operand comparator operand | operand BETWEEN operand AND operand
//              | operand IN ( operand {, operand} ) | function | condition AND condition
//              | condition OR condition | NOT condition | ( condition )
//   comparator := = | <> | < | <= | > | >=
//   function   := attribute_exists(path) | attribute_not_exists(path) | attribute_type(path, :t)
//              | begins_with(path, operand) | contains(path, operand)
//   operand    := path | :value | size(path)
// Precedence: comparisons/BETWEEN/IN, then NOT, then AND, then OR.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <string_view>

#include "common/result.h"
#include "expr/placeholders.h"
#include "model/attribute_value.h"

namespace ttlstore::expr {

class Condition {
 public:
  // Parses and resolves `text`. `kind` names the parameter in error messages
  // ("ConditionExpression", "FilterExpression"): "Invalid ConditionExpression: Syntax error; ...".
  // Every placeholder used is added to ph.used_names / ph.used_values.
  // `generated` marks text ttlstore wrote itself (PartiQL's translation of WHERE and SET): the
  // 4 KB limit on a caller's expression does not apply to it, and its nesting is bounded by
  // the PartiQL parser's own limits.
  static Result<Condition> Parse(std::string_view text, std::string_view kind, Placeholders& ph,
                                 bool generated = false);

  // True if `item` satisfies the condition. A missing item is an empty map. Comparisons between
  // different types are false (not errors), as in DynamoDB.
  bool Evaluate(const model::Item& item) const;

  // The top-level attribute names the condition reads (the first element of every path), e.g.
  // to reject a FilterExpression on key attributes.
  std::set<std::string> TopLevelNames() const;

  struct Node;  // the resolved expression tree (condition.cc)

 private:
  std::shared_ptr<const Node> root_;
};

}  // namespace ttlstore::expr
