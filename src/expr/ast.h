// Expression trees shared by Condition, KeyCondition and Update. The parsers build them with
// placeholders as written (RawElement, Operand::name); the check passes then fill in the resolved
// fields (Operand::path, Operand::value), after which the tree is immutable and evaluated as is.
// Every node is a plain value with named constructors, so trees can be copied and compared.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "expr/path.h"
#include "model/attribute_value.h"

namespace ttlstore::expr {

// Builds a vector by moving its elements in (a braced initializer list would copy them, which
// for long AND/OR chains copies whole subtrees).
template <typename T, typename... Rest>
std::vector<T> MoveIntoVector(T first, Rest... rest) {
  std::vector<T> v;
  v.reserve(1 + sizeof...(rest));
  v.push_back(std::move(first));
  (v.push_back(std::move(rest)), ...);
  return v;
}

// One step of a document path as written in the expression.
struct RawElement {
  enum class Kind { kName, kNameRef, kIndex };
  Kind kind = Kind::kName;
  std::string text;  // the bare name or "#placeholder"
  int index = -1;    // for kIndex

  static RawElement Name(std::string s) { return {Kind::kName, std::move(s), -1}; }
  static RawElement NameRef(std::string s) { return {Kind::kNameRef, std::move(s), -1}; }
  static RawElement Index(int i) { return {Kind::kIndex, "", i}; }
};

// The functions of both grammars. Names are case-sensitive in DynamoDB ("ATTRIBUTE_EXISTS" is
// an invalid function name), so anything else is kUnknown and reported after parsing.
enum class Function {
  kUnknown,
  kAttributeExists,
  kAttributeNotExists,
  kAttributeType,
  kBeginsWith,
  kContains,
  kSize,
  kIfNotExists,
  kListAppend,
};

Function FunctionNamed(const std::string& name);

// An operand: a document path, a :value, or a function call.
struct Operand {
  enum class Kind { kPath, kValue, kCall };
  Kind kind = Kind::kValue;
  std::vector<RawElement> raw;             // kPath, as written
  std::string name;                        // kValue: ":v"; kCall: the function name as written
  Function function = Function::kUnknown;  // kCall
  std::vector<Operand> args;               // kCall
  // Filled by resolution.
  Path path;                    // kPath, placeholders substituted
  model::AttributeValue value;  // kValue
  bool resolved = false;        // kPath, kValue: every placeholder was defined

  static Operand OfPath(std::vector<RawElement> raw) {
    Operand o;
    o.kind = Kind::kPath;
    o.raw = std::move(raw);
    return o;
  }
  static Operand OfValue(std::string ref) {
    Operand o;
    o.kind = Kind::kValue;
    o.name = std::move(ref);
    return o;
  }
  static Operand Call(std::string fn, std::vector<Operand> args) {
    Operand o;
    o.kind = Kind::kCall;
    o.function = FunctionNamed(fn);
    o.name = std::move(fn);
    o.args = std::move(args);
    return o;
  }
  bool is_path() const { return kind == Kind::kPath; }
  bool is_value() const { return kind == Kind::kValue; }
  bool is_call() const { return kind == Kind::kCall; }
};

enum class CompareOp { kEq, kNe, kLt, kLe, kGt, kGe };
const char* CompareOpText(CompareOp op);  // "=", "<>", ...

// A condition (ConditionExpression, FilterExpression, KeyConditionExpression).
struct CondExpr {
  enum class Kind { kCompare, kBetween, kIn, kCall, kAnd, kOr, kNot };
  Kind kind = Kind::kCall;
  CompareOp op = CompareOp::kEq;   // kCompare
  std::vector<Operand> operands;   // kCompare: 2; kBetween: value, low, high; kIn: value then
                                   // candidates; kCall: the call itself
  std::vector<CondExpr> children;  // kAnd, kOr: 2; kNot: 1

  static CondExpr Compare(CompareOp op, Operand a, Operand b) {
    CondExpr c;
    c.kind = Kind::kCompare;
    c.op = op;
    c.operands = MoveIntoVector(std::move(a), std::move(b));
    return c;
  }
  static CondExpr Between(Operand v, Operand low, Operand high) {
    CondExpr c;
    c.kind = Kind::kBetween;
    c.operands = MoveIntoVector(std::move(v), std::move(low), std::move(high));
    return c;
  }
  static CondExpr In(std::vector<Operand> value_then_candidates) {
    CondExpr c;
    c.kind = Kind::kIn;
    c.operands = std::move(value_then_candidates);
    return c;
  }
  static CondExpr OfCall(Operand call) {
    CondExpr c;
    c.kind = Kind::kCall;
    c.operands = MoveIntoVector(std::move(call));
    return c;
  }
  static CondExpr Logical(Kind kind, std::vector<CondExpr> children) {
    CondExpr c;
    c.kind = kind;
    c.children = std::move(children);
    return c;
  }
  bool is_leaf() const { return kind != Kind::kAnd && kind != Kind::kOr && kind != Kind::kNot; }
};

// The right-hand side of SET: operand, operand + operand, or operand - operand.
struct SetValue {
  enum class Kind { kOperand, kPlus, kMinus };
  Kind kind = Kind::kOperand;
  std::vector<Operand> operands;  // 1 for kOperand, 2 otherwise

  static SetValue Of(Operand a) { return {Kind::kOperand, MoveIntoVector(std::move(a))}; }
  static SetValue Arithmetic(Kind kind, Operand a, Operand b) {
    return {kind, MoveIntoVector(std::move(a), std::move(b))};
  }
};

// One action of an UpdateExpression.
struct UpdateAction {
  enum class Kind { kSet, kRemove, kAdd, kDelete };
  Kind kind = Kind::kSet;
  Operand target;   // a kPath operand
  SetValue value;   // kSet
  Operand operand;  // kAdd, kDelete: a kValue operand

  static UpdateAction Set(Operand target, SetValue value) {
    return {Kind::kSet, std::move(target), std::move(value), {}};
  }
  static UpdateAction Remove(Operand target) { return {Kind::kRemove, std::move(target), {}, {}}; }
  static UpdateAction AddOrDelete(Kind kind, Operand target, Operand value) {
    return {kind, std::move(target), {}, std::move(value)};
  }
};

}  // namespace ttlstore::expr
