// Translation of a parsed PartiQL statement into what the item operations take:
//   bind.cc       literals and `?` parameters -> attribute values; SELECT projection
//   translate.cc  WHERE / SET -> DynamoDB expression TEXT (ConditionExpression, UpdateExpression)
//                 over generated placeholders (#_pN names, :_pN values, added to an
//                 expr::Placeholders)
//   plan.cc       the item key a WHERE clause names; Query (KeyConditionExpression per
//                 partition) or Scan for a SELECT
// The caller parses the text with expr::Condition / Update / KeyCondition, so PartiQL and the
// expression API share one engine (the same design as api/legacy.h).
//
// Everything here is pure (no storage, no expression parsing), so it is unit-testable alone.
// Errors are ValidationExceptions with the service's PartiQL wording.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "api/partiql/ast.h"
#include "common/result.h"
#include "expr/path.h"
#include "expr/placeholders.h"
#include "model/attribute_value.h"
#include "model/table.h"

namespace ttlstore::api::partiql {

using Params = std::vector<model::AttributeValue>;

// A literal nested past 32 levels, as the service words it for PartiQL (DynamoDB Local; no
// ": Attributes in the item have nested levels beyond supported limit" suffix).
inline constexpr char kNestingTooDeep[] = "Nesting Levels have exceeded supported limits";

// Binds a literal or parameter to a value. Bags become SS / NS (or BS from binary parameters).
// REQUIRES: params.size() == the statement's parameter_count (Parse counted the `?`).
Result<model::AttributeValue> Bind(const Value& v, const Params& params);
// The same, naming the value's place in number errors ("root", "root.x", "root[1]").
Result<model::AttributeValue> BindAt(const Value& v, const Params& params,
                                     const std::string& path);
// An INSERT's item: each attribute's value is bound as a root of its own.
Result<model::Item> BindItem(const Value& map, const Params& params);

// Writes expression text, adding placeholders to `ph`. One writer per statement.
struct BooleanCompare;

class ExpressionWriter {
 public:
  ExpressionWriter(expr::Placeholders& ph, const Params& params) : ph_(ph), params_(params) {}

  std::string Name(const std::string& attribute);       // "#_p0"; the same name, the same token
  std::string ValueToken(model::AttributeValue value);  // ":_p1"
  std::string PathText(const expr::Path& path);         // "#_p0.#_p2[3]"
  // A WHERE condition as ConditionExpression syntax.
  Result<std::string> Condition(const Expr& e);
  // The conjunction of `parts` ("" when empty).
  Result<std::string> Conjunction(const std::vector<const Expr*>& parts);
  // The SET / REMOVE / set_add / set_delete clauses of an UPDATE as an UpdateExpression.
  Result<std::string> Update(const Statement& s);

  const Params& params() const { return params_; }

 private:
  Result<std::string> Operand(const Expr& e, const char* op);
  // `fn(...) = true` and the like: the condition function compared, or none.
  Result<BooleanCompare> CompareWithBoolean(const Expr& e);
  Result<std::string> UpdateOperand(const Expr& e, bool allow_arith);
  // A WHERE or SET value; values nested past 32 levels are refused.
  Result<model::AttributeValue> BindOperand(const Expr& e);

  expr::Placeholders& ph_;
  const Params& params_;
  std::map<std::string, std::string> name_tokens_;
};

// IN's limit of 100 operands, as the service words it. REQUIRES: `in` is a kIn with its subject.
Status CheckInOperands(const Expr& in);

// The top-level AND-ed parts of a WHERE clause (a missing clause has none).
std::vector<const Expr*> Conjuncts(const Expr* where);

// A single-item statement's key, read from equalities on every key attribute among the WHERE
// clause's conjuncts; `rest` are the other conjuncts. Errors, as the service words them:
//   "Where clause does not contain a mandatory equality on all key attributes"
//   "Multiple conditions on same key pk. Only single item Update/Insert/Delete are supported"
//   "Key attribute's data type should match its data type in table's schema: Key pk"
struct SingleItem {
  model::Item key;
  std::vector<const Expr*> rest;
};
Result<SingleItem> SingleItemKey(const Statement& s, const model::KeySchema& schema,
                                 const Params& params);

// How a SELECT reads: a Query per partition-key value (pk = v, or pk IN [...]) narrowed by at
// most one sort-key condition, or else a Scan; the rest of WHERE is the filter.
struct ReadPlan {
  enum class PartitionOrder { kAsWritten, kAscending, kDescending };
  std::vector<std::string> key_conditions;  // one KeyConditionExpression per partition; none: Scan
  std::string filter;                       // FilterExpression, "" for none
  bool forward = true;                      // ORDER BY sk DESC reads backwards
  PartitionOrder partition_order = PartitionOrder::kAsWritten;  // ORDER BY pk
  std::vector<model::AttributeValue> partitions;                // parallel to key_conditions
};
Result<ReadPlan> PlanSelect(const Statement& s, const model::KeySchema& schema,
                            ExpressionWriter& w);

// What a single-item statement does to its item:
//   INSERT:  `item` is the new item; `condition` refuses an existing one.
//   UPDATE:  `item` is the key; `update` the UpdateExpression; `condition` requires the item to
//            exist and the rest of WHERE to hold.
//   DELETE:  `item` is the key; `condition` (if any) is the rest of WHERE, true when the item
//            is absent (deleting a missing item is a no-op, not a failure).
//   EXISTS:  `item` is the key; `condition` requires the item to exist and WHERE to hold.
//   SELECT (batch and transaction reads of one item): `item` is the key; `condition` filters.
struct ItemPlan {
  model::Item item;
  std::string update;
  std::string condition;
  std::vector<expr::Path> targets;  // UPDATE: paths it writes (for RETURNING MODIFIED ...)
};
Result<ItemPlan> PlanItem(const Statement& s, const model::KeySchema& schema, ExpressionWriter& w);

// The projection of a SELECT applied to one item (SELECT * returns it whole).
model::Item Project(const Statement& s, const model::Item& item);

}  // namespace ttlstore::api::partiql
