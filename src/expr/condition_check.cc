#include "expr/condition_check.h"

#include <functional>

#include "expr/key_condition.h"
#include "expr/path_parser.h"
#include "expr/resolve.h"

namespace ttlstore::expr {
namespace {

using Kind = CondExpr::Kind;

// The number of operands each condition function takes.
size_t ExpectedOperands(Function f) {
  switch (f) {
    case Function::kAttributeExists:
    case Function::kAttributeNotExists:
    case Function::kSize:
      return 1;
    default:
      return 2;
  }
}

bool SamePath(const Operand& a, const Operand& b) {
  if (!a.is_path() || !b.is_path() || a.path.size() != b.path.size()) return false;
  for (size_t i = 0; i < a.path.size(); ++i) {
    if (a.path[i].name != b.path[i].name || a.path[i].index != b.path[i].index) return false;
  }
  return true;
}

bool IsOrderableType(const std::string& t) { return t == "N" || t == "S" || t == "B"; }

void ForEachLeaf(CondExpr& node, const std::function<void(CondExpr&)>& f) {
  if (node.is_leaf()) {
    f(node);
    return;
  }
  for (CondExpr& child : node.children) ForEachLeaf(child, f);
}

std::optional<std::string> FirstUnknownFunction(CondExpr& root) {
  std::optional<std::string> found;
  ForEachLeaf(root, [&](CondExpr& leaf) {
    for (const Operand& op : leaf.operands) {
      ForEachCall(op, [&](const Operand& call) {
        if (!found && call.function == Function::kUnknown) found = call.name;
      });
    }
  });
  return found;
}

// Functions other than size() may only stand alone as conditions; size() may only be an operand.
class MisuseFinder {
 public:
  std::optional<std::string> Find(const CondExpr& root) {
    Visit(root);
    NoteStandaloneSize(root);
    return found_;
  }

 private:
  void Note(const std::string& name) {
    if (!found_) found_ = name;
  }
  void NoteStandaloneSize(const CondExpr& c) {
    if (c.kind == Kind::kCall && c.operands[0].function == Function::kSize)
      Note(c.operands[0].name);
  }
  void VisitOperand(const Operand& op) {
    ForEachCall(op, [&](const Operand& call) {
      for (const Operand& arg : call.args) {
        if (arg.is_call() && arg.function != Function::kSize) Note(arg.name);
      }
    });
  }
  void Visit(const CondExpr& c) {
    if (!c.is_leaf()) {
      for (const CondExpr& child : c.children) Visit(child);
      for (const CondExpr& child : c.children) NoteStandaloneSize(child);
      return;
    }
    for (const Operand& op : c.operands) VisitOperand(op);
    if (c.kind == Kind::kCall) return;
    for (const Operand& op : c.operands) {
      if (op.is_call() && op.function != Function::kSize) Note(op.name);
    }
  }

  std::optional<std::string> found_;
};

std::optional<std::string> FirstReservedWord(CondExpr& root) {
  std::optional<std::string> found;
  ForEachLeaf(root, [&](CondExpr& leaf) {
    for (const Operand& op : leaf.operands) {
      if (!found) found = FirstReservedName(op);
    }
  });
  return found;
}

// Operators and functions in the expression: every comparison, BETWEEN, IN, AND, OR, NOT and
// function call counts one (the service's count, measured against DynamoDB Local: n conditions
// joined by n-1 ORs count 2n-1). Stops counting past the limit.
size_t CountOperators(const CondExpr& node) {
  size_t n = node.kind == Kind::kCall ? 0 : 1;
  for (const Operand& op : node.operands) {
    ForEachCall(op, [&](const Operand&) { ++n; });
  }
  for (const CondExpr& child : node.children) {
    if (n > kMaxOperators) break;
    n += CountOperators(child);
  }
  return n;
}

std::string OperandTypeMessage(const std::string& function, const std::string& type) {
  return "Incorrect operand type for operator or function; operator or function: " + function +
         ", operand type: " + type;
}

std::optional<std::string> CountError(const CondExpr& leaf) {
  std::optional<std::string> found;
  for (const Operand& op : leaf.operands) {
    ForEachCall(op, [&](const Operand& call) {
      if (!found && call.args.size() != ExpectedOperands(call.function)) {
        found = "Incorrect number of operands for operator or function; operator or function: " +
                call.name + ", number of operands: " + std::to_string(call.args.size());
      }
    });
  }
  if (!found && leaf.kind == Kind::kIn && leaf.operands.size() - 1 > kMaxInOperands) {
    found = "The IN operator is provided with too many operands; number of operands: " +
            std::to_string(leaf.operands.size() - 1);
  }
  return found;
}

std::string DistinctMessage(const std::string& op, const Operand& first) {
  return "The first operand must be distinct from the remaining operands for this operator or "
         "function; operator: " +
         op + ", first operand: " + RenderPath(first);
}

std::optional<std::string> DistinctError(const CondExpr& leaf) {
  std::optional<std::string> found;
  for (const Operand& op : leaf.operands) {
    ForEachCall(op, [&](const Operand& call) {
      if (!found && call.args.size() == 2 && SamePath(call.args[0], call.args[1])) {
        found = DistinctMessage(call.name, call.args[0]);
      }
    });
  }
  if (!found && leaf.kind == Kind::kCompare && SamePath(leaf.operands[0], leaf.operands[1])) {
    found = DistinctMessage(CompareOpText(leaf.op), leaf.operands[0]);
  }
  return found;
}

std::optional<std::string> FunctionTypeError(const Operand& call) {
  switch (call.function) {
    case Function::kAttributeExists:
    case Function::kAttributeNotExists:
      if (!call.args[0].is_path()) {
        return "Operator or function requires a document path; operator or function: " + call.name;
      }
      return std::nullopt;
    case Function::kBeginsWith:
      for (const Operand& arg : call.args) {
        auto t = StaticType(arg);
        if (t && *t != "S" && *t != "B") return OperandTypeMessage(call.name, *t);
      }
      return std::nullopt;
    case Function::kAttributeType: {
      auto t = StaticType(call.args[1]);
      // DynamoDB lists the types it would have accepted when the operand is not a :value.
      if (t != "S")
        return OperandTypeMessage(call.name, t.value_or("{NS,SS,L,BS,N,M,B,BOOL,NULL,S}"));
      static const char* const kTypes[] = {"S", "N", "B",  "BOOL", "NULL",
                                           "M", "L", "SS", "NS",   "BS"};
      const std::string& name = call.args[1].value.scalar();
      for (const char* known : kTypes) {
        if (name == known) return std::nullopt;
      }
      return "Invalid attribute type name found; type: " + name +
             ", valid types: {B,NULL,SS,BOOL,L,BS,N,NS,S,M}";
    }
    case Function::kSize: {
      auto t = StaticType(call.args[0]);
      if (t == "N" || t == "BOOL" || t == "NULL") return OperandTypeMessage(call.name, *t);
      return std::nullopt;
    }
    default:
      return std::nullopt;
  }
}

std::optional<std::string> TypeError(const CondExpr& leaf) {
  std::optional<std::string> found;
  for (const Operand& op : leaf.operands) {
    ForEachCall(op, [&](const Operand& call) {
      if (!found) found = FunctionTypeError(call);
    });
  }
  if (found) return found;
  if (leaf.kind == Kind::kCompare && leaf.op != CompareOp::kEq && leaf.op != CompareOp::kNe) {
    // Only N, S and B have an order; DynamoDB refuses a :value of another type here.
    for (const Operand& op : leaf.operands) {
      auto t = ImmediateType(op);
      if (t && !IsOrderableType(*t)) return OperandTypeMessage(CompareOpText(leaf.op), *t);
    }
  }
  if (leaf.kind == Kind::kBetween) {
    // As for <, <=, > and >=: a :value of a type without an order is refused, not a condition
    // that fails (ScyllaDB's Alternator test_update_condition_between, run against the service).
    for (const Operand& op : leaf.operands) {
      auto t = ImmediateType(op);
      if (t && !IsOrderableType(*t)) return OperandTypeMessage("BETWEEN", *t);
    }
  }
  if (leaf.kind == Kind::kBetween && leaf.operands[1].is_value() && leaf.operands[2].is_value()) {
    const model::AttributeValue& low = leaf.operands[1].value;
    const model::AttributeValue& high = leaf.operands[2].value;
    std::string bounds = "lower bound operand: AttributeValue: {" + RenderValue(low) +
                         "}, upper bound operand: AttributeValue: {" + RenderValue(high) + "}";
    if (low.type() != high.type()) {
      return "The BETWEEN operator requires same data type for lower and upper bounds; " + bounds;
    }
    if (IsOrderableType(model::TypeName(low.type())) && CompareScalars(low, high) > 0) {
      return "The BETWEEN operator requires upper bound to be greater than or equal to lower "
             "bound; " +
             bounds;
    }
  }
  return std::nullopt;
}

}  // namespace

Status CheckCondition(ParsedCondition* parsed, std::string_view kind, Placeholders& ph) {
  CondExpr& root = parsed->root;
  if (auto name = FirstUnknownFunction(root)) {
    return InvalidExpression(kind, "Invalid function name; function: " + *name);
  }
  if (auto name = MisuseFinder().Find(root)) {
    return InvalidExpression(
        kind,
        "The function is not allowed to be used this way in an expression; function: " + *name);
  }
  if (auto word = FirstReservedWord(root)) {
    return InvalidExpression(kind,
                             "Attribute name is a reserved keyword; reserved keyword: " + *word);
  }
  std::optional<std::string> error;
  ForEachLeaf(root, [&](CondExpr& leaf) {
    if (error) return;
    UndefinedRefs undefined;
    for (Operand& op : leaf.operands) ResolveOperand(&op, ph, &undefined);
    if (undefined.any()) {
      error = undefined.first_message;
    } else if (auto e = CountError(leaf)) {
      error = e;
    } else if (auto e = DistinctError(leaf)) {
      error = e;
    } else if (auto e = TypeError(leaf)) {
      error = e;
    }
  });
  if (error) return InvalidExpression(kind, *error);
  if (CountOperators(root) > kMaxOperators) {
    // The service stops at the first operator past the limit, so it always reports 301.
    return InvalidExpression(kind, "The expression contains too many operators; operator count: " +
                                       std::to_string(kMaxOperators + 1));
  }
  return Status::Ok();
}

Result<CondExpr> ParseCheckedCondition(std::string_view text, std::string_view kind,
                                       Placeholders& ph, bool generated) {
  if (!generated) RETURN_IF_ERROR(CheckExpressionText(text, kind));
  TokenStream ts(text);
  ASSIGN_OR_RETURN(parsed, ParseConditionSyntax(ts, kind));
  RETURN_IF_ERROR(CheckCondition(&parsed, kind, ph));
  return std::move(parsed.root);
}

}  // namespace ttlstore::expr
