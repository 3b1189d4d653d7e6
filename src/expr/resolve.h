// Resolution of placeholders and the small static facts the check passes need about operands.
// Both grammars resolve the same way: #name -> attribute name, :value -> AttributeValue, each
// use recorded in the request's Placeholders so that unused ones can be reported.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "expr/ast.h"
#include "expr/placeholders.h"

namespace ttlstore::expr {

// The first undefined placeholders met while resolving, in textual order.
struct UndefinedRefs {
  std::optional<std::string> name;   // first undefined #name
  std::optional<std::string> value;  // first undefined :value
  // The message for whichever undefined placeholder came first (empty if none).
  std::string first_message;

  bool any() const { return name || value; }
};

// DynamoDB's messages for undefined placeholders (without the "Invalid <kind>: " prefix).
std::string UndefinedNameMessage(const std::string& name);
std::string UndefinedValueMessage(const std::string& value);

// Substitutes the placeholders of `op` (recursively through call arguments), sets
// Operand::resolved, records each defined placeholder as used in `ph`, and notes undefined ones.
void ResolveOperand(Operand* op, Placeholders& ph, UndefinedRefs* undefined);

// Calls `f` on every function call inside `op`, arguments before the call that contains them
// (the order in which DynamoDB notices problems). Iterative: calls nest as deep as 4 KB of
// "f(" allows, and the checks walk them several times.
void ForEachCall(const Operand& op, const std::function<void(const Operand&)>& f);

// The first bare (non-placeholder) name in `op`, recursively, that is a DynamoDB reserved word.
std::optional<std::string> FirstReservedName(const Operand& op);

// The type DynamoDB knows an operand has before evaluation: a :value's own type, "N" for size(),
// "BOOL" for the boolean functions; nothing for paths and undefined values.
std::optional<std::string> StaticType(const Operand& op);
// Like StaticType but only for :values (DynamoDB's "immediate" type).
std::optional<std::string> ImmediateType(const Operand& op);

// "[a, b, [3]]" for a resolved path (DynamoDB's rendering in error messages).
std::string RenderPath(const Operand& op);

// A value as DynamoDB quotes it in BETWEEN errors: "S:abc", "N:1", "B:<base64>".
std::string RenderValue(const model::AttributeValue& v);

}  // namespace ttlstore::expr
