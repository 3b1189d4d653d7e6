// The parsed form of one PartiQL statement (see parser.h for the grammar). Values and `?`
// parameters are kept as written; translate.h binds the parameters and turns WHERE / SET into
// DynamoDB expression text.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "api/partiql/lexer.h"
#include "expr/path.h"

namespace ttlstore::api::partiql {

// A literal or a parameter, before parameters are bound.
struct Value {
  enum class Kind { kString, kNumber, kBool, kNull, kMissing, kParameter, kList, kMap, kBag };
  Kind kind = Kind::kNull;
  std::string text;  // kString: the contents; kNumber: the text as written (sign included)
  bool boolean = false;
  int parameter = -1;             // kParameter: 0-based position among the statement's `?`
  std::vector<Value> elements;    // kList and kBag elements; kMap member values
  std::vector<std::string> keys;  // kMap member names, parallel to `elements`
  Position pos;
};

// A WHERE condition, one of its operands, or the right-hand side of a SET.
struct Expr {
  enum class Kind {
    kPath,     // path
    kValue,    // value
    kCall,     // op(args...): op is the function name in lower case
    kCompare,  // args[0] op args[1]; op is one of = <> < <= > >= ("!=" is stored as "<>")
    kArith,    // args[0] op args[1]; op is + or -
    kBetween,  // args[0] [NOT] BETWEEN args[1] AND args[2]
    kIn,       // args[0] [NOT] IN (args[1], ...)
    kIs,       // args[0] IS [NOT] op; op is MISSING, NULL or a type name, upper case
    kAnd,      // args[0] AND args[1]
    kOr,       // args[0] OR args[1]
    kNot,      // NOT args[0]
  };
  Kind kind = Kind::kValue;
  expr::Path path;
  Value value;
  std::string op;
  bool negated = false;  // NOT BETWEEN, NOT IN, IS NOT
  std::vector<Expr> args;
  Position pos;
};

// RETURNING ALL|MODIFIED OLD|NEW * (UPDATE and DELETE).
enum class Returning { kNone, kAllOld, kModifiedOld, kAllNew, kModifiedNew };

struct Assignment {
  expr::Path path;
  Expr value;
};

struct OrderBy {
  expr::Path path;
  bool descending = false;
};

struct Statement {
  // kExists is `EXISTS(SELECT ...)`, a condition check inside ExecuteTransaction.
  enum class Kind { kSelect, kInsert, kUpdate, kDelete, kExists };
  Kind kind = Kind::kSelect;
  std::string table;
  std::optional<std::string> index;  // SELECT ... FROM "table"."index"

  // SELECT / EXISTS
  bool select_all = false;             // SELECT *
  std::vector<expr::Path> projection;  // SELECT a, b.c
  std::vector<OrderBy> order_by;

  // INSERT: the item, a kMap value.
  Value item;

  // UPDATE: SET and REMOVE clauses in statement order.
  std::vector<Assignment> set;
  std::vector<expr::Path> remove;

  std::optional<Expr> where;
  Returning returning = Returning::kNone;

  // How many `?` the statement has; Parameters must supply exactly this many.
  int parameter_count = 0;
  // Operators in WHERE (AND, OR, NOT, comparisons, BETWEEN, IN, IS, function calls), which the
  // service limits to 300 like an expression's.
  size_t where_operators = 0;

  bool IsRead() const { return kind == Kind::kSelect; }
};

}  // namespace ttlstore::api::partiql
