// The semantic checks DynamoDB applies to a condition once it has parsed, in the service's order
// of precedence (each is reported only if no earlier kind of error exists anywhere):
//   1. redundant parentheses           "The expression has redundant parentheses;" (found while
//      parsing, see condition_parser.h)
//   2. unknown function names          "Invalid function name; function: foo"
//   3. functions used in the wrong place
//        "The function is not allowed to be used this way in an expression; function: size"
//   4. bare reserved words             "Attribute name is a reserved keyword; ..."
//   5. then, condition by condition from the left, the first of: undefined #name/:value,
//      wrong operand count (or IN with over 100 operands), identical operands ("a = a"),
//      wrong operand types known from :values (begins_with(a, :n), size(:bool), a < :bool,
//      attribute_type(a, :x) with an unknown type name, BETWEEN bounds of different types or
//      in the wrong order).
//   6. more than kMaxOperators operators "The expression contains too many operators; ..."
// This order is the one the service reports when an expression has several problems (observed
// by dynalite's tests against DynamoDB; the place of 6 observed against DynamoDB Local).
#pragma once

#include <string_view>

#include "common/result.h"
#include "expr/condition_parser.h"
#include "expr/placeholders.h"

namespace ttlstore::expr {

// DynamoDB's limit on the operands of IN (the developer guide: "up to 100 values").
inline constexpr size_t kMaxInOperands = 100;
// Operators and functions one condition expression may hold.
inline constexpr size_t kMaxOperators = 300;

// Checks `parsed` and resolves its placeholders in place. Errors are "Invalid <kind>: ...".
Status CheckCondition(ParsedCondition* parsed, std::string_view kind, Placeholders& ph);

// Parses and checks `text` as a condition: the size and emptiness checks, the syntax, then
// CheckCondition. Used by Condition and KeyCondition.
// `generated`: see Condition::Parse.
Result<CondExpr> ParseCheckedCondition(std::string_view text, std::string_view kind,
                                       Placeholders& ph, bool generated = false);

}  // namespace ttlstore::expr
