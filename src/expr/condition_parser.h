// Syntax of condition expressions (ConditionExpression, FilterExpression and
// KeyConditionExpression share one grammar, as in DynamoDB):
//   or      := and { OR and }
//   and     := not { AND not }
//   not     := NOT not | primary
//   primary := ( or ) | operand comp operand | operand BETWEEN operand AND operand
//            | operand IN ( operand {, operand} ) | call
//   operand := ( operand ) | :value | name ( operand {, operand} ) | path
// The grammar is deliberately permissive about where functions appear, like the service's:
// misplaced functions and wrong operand counts are parsed and then reported by CheckCondition
// with DynamoDB's own messages, after every syntax error.
#pragma once

#include <string_view>

#include "common/result.h"
#include "expr/ast.h"
#include "expr/lexer.h"

namespace ttlstore::expr {

struct ParsedCondition {
  CondExpr root;
};

// Parses the tokens of a condition; errors are syntax errors ("Invalid <kind>: Syntax error;
// token: ..., near: ..."), the path limits, and redundant parentheses: a group whose whole
// content is another group, e.g. "((a = :v))". The service reports those while it parses, as
// soon as the outer group closes, so they come after a syntax error earlier in the text and
// before one later in it, and before every check made on the parsed tree.
Result<ParsedCondition> ParseConditionSyntax(const TokenStream& ts, std::string_view kind);

// True if token i is one of the condition grammar's keywords (AND OR NOT BETWEEN IN).
bool IsConditionKeyword(const TokenStream& ts, size_t i);

}  // namespace ttlstore::expr
