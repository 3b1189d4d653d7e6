#include "expr/ast.h"

namespace ttlstore::expr {

Function FunctionNamed(const std::string& name) {
  // Case-sensitive on purpose: DynamoDB rejects "Size(a)" as an invalid function name.
  if (name == "attribute_exists") return Function::kAttributeExists;
  if (name == "attribute_not_exists") return Function::kAttributeNotExists;
  if (name == "attribute_type") return Function::kAttributeType;
  if (name == "begins_with") return Function::kBeginsWith;
  if (name == "contains") return Function::kContains;
  if (name == "size") return Function::kSize;
  if (name == "if_not_exists") return Function::kIfNotExists;
  if (name == "list_append") return Function::kListAppend;
  return Function::kUnknown;
}

const char* CompareOpText(CompareOp op) {
  switch (op) {
    case CompareOp::kEq:
      return "=";
    case CompareOp::kNe:
      return "<>";
    case CompareOp::kLt:
      return "<";
    case CompareOp::kLe:
      return "<=";
    case CompareOp::kGt:
      return ">";
    case CompareOp::kGe:
      return ">=";
  }
  return "?";
}

}  // namespace ttlstore::expr
