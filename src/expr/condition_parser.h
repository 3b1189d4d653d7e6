// Syntax of condition expressions (ConditionExpression, FilterExpression and
// KeyConditionExpression share one grammar, as in DynamoDB):
//   or      := and { OR and }
//   and     := not { AND not }
//   not     := NOT not | primary
//   primary := ( or ) | operand comp operand | operand BETWEEN operand AND operand
//            | operand IN ( operand {, operand} ) | call
//   operand := ( operand ) [path tail] | :value | name ( operand {, operand} ) | path
// The grammar is deliberately permissive about where functions and parentheses appear, like the
// service's: misplaced functions, wrong operand counts and redundant parentheses are parsed and
// then reported by CheckCondition with DynamoDB's own messages, after every syntax error.
#pragma once

#include <string_view>

#include "common/result.h"
#include "expr/ast.h"
#include "expr/lexer.h"

namespace ttlstore::expr {

struct ParsedCondition {
  CondExpr root;
  // Set when a group's whole content is another group, e.g. "((a = :v))". DynamoDB rejects
  // that, but only once the text has parsed, so the parser just remembers it.
  bool redundant_parens = false;
};

// Parses the tokens of a condition; errors are syntax errors ("Invalid <kind>: Syntax error;
// token: ..., near: ...") and the path limits.
Result<ParsedCondition> ParseConditionSyntax(const TokenStream& ts, std::string_view kind);

// True if token i is one of the condition grammar's keywords (AND OR NOT BETWEEN IN).
bool IsConditionKeyword(const TokenStream& ts, size_t i);

}  // namespace ttlstore::expr
