// Update: a parsed UpdateExpression (SET, REMOVE, ADD, DELETE clauses), resolved and ready to
// apply to an item. Grammar (DynamoDB developer guide, "Update expressions"):
//   update  := clause+   (each of SET / REMOVE / ADD / DELETE at most once, any order)
//   SET     := SET path = value {, path = value}
//   value   := operand | operand + operand | operand - operand
//   operand := path | :value | if_not_exists(path, operand) | list_append(operand, operand)
//   REMOVE  := REMOVE path {, path}
//   ADD     := ADD path :value {, path :value}     (numbers and sets)
//   DELETE  := DELETE path :value {, path :value}  (sets)
// Parse rejects paths that overlap or conflict across all clauses, as the service does.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "expr/path.h"
#include "expr/placeholders.h"
#include "model/attribute_value.h"

namespace ttlstore::expr {

class Update {
 public:
  // `generated` marks text ttlstore wrote itself (PartiQL's translation of WHERE and SET): the
  // 4 KB limit on a caller's expression does not apply to it, and its nesting is bounded by
  // the PartiQL parser's own limits.
  static Result<Update> Parse(std::string_view text, Placeholders& ph, bool generated = false);

  // Applies the update to `item` in place: the old item, or only the key attributes when the item
  // does not exist yet. Runtime errors are ValidationExceptions with the service's wording, e.g.
  // "The provided expression refers to an attribute that does not exist in the item" or
  // "An operand in the update expression has an incorrect data type". On error `item` is
  // unspecified; callers apply to a copy.
  Status Apply(model::Item* item) const;

  // An update translated from AttributeUpdates (api/legacy.h): an ADD or DELETE whose operand's
  // type differs from the attribute's then answers "Type mismatch for attribute to update", the
  // service's text for those (the UpdateItem API reference's list; dynalite's tests and
  // ScyllaDB's Alternator test_update_item_add, written against the service).
  void UseLegacyWording() { legacy_ = true; }

  // Every path the update sets, removes, adds to or deletes from, in expression order.
  const std::vector<Path>& TargetPaths() const { return targets_; }

  struct Node;  // the resolved clauses (update.cc)

 private:
  std::shared_ptr<const Node> root_;
  std::vector<Path> targets_;
  bool legacy_ = false;
};

}  // namespace ttlstore::expr
