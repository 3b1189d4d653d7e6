// Syntax of UpdateExpression (DynamoDB developer guide, "Update expressions"):
//   update   := clause { clause }
//   clause   := SET set {, set} | REMOVE path {, path} | ADD path :v {, path :v}
//             | DELETE path :v {, path :v}
//   set      := path = ( arith ) | path = arith
//   arith    := oper [ (+ | -) oper ]
//   oper     := ( oper ) | operand
//   operand  := :value | name ( oper {, oper} ) | path
// Unlike conditions, update paths cannot be parenthesised. Parentheses around parentheses
// ("((:v))", "((:v + :w))") parse, and are then refused as redundant, as the service does, as
// soon as the outer pair closes (so before a syntax error later in the text).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "expr/ast.h"
#include "expr/lexer.h"

namespace ttlstore::expr {

struct ParsedUpdate {
  std::vector<UpdateAction> actions;  // in expression order
  // The first clause keyword used a second time ("SET"), reported after parsing.
  std::optional<std::string> repeated_clause;
};

Result<ParsedUpdate> ParseUpdateSyntax(const TokenStream& ts);

// True if token i is one of the update grammar's keywords (SET REMOVE ADD DELETE).
bool IsUpdateKeyword(const TokenStream& ts, size_t i);

}  // namespace ttlstore::expr
