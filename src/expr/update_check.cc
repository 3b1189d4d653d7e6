#include "expr/update_check.h"

#include <functional>

#include "expr/path_parser.h"
#include "expr/resolve.h"

namespace ttlstore::expr {
namespace {

constexpr char kKind[] = "UpdateExpression";
using ActionKind = UpdateAction::Kind;

// Every operand of an action, in the order it is written.
std::vector<Operand*> OperandsOf(UpdateAction& a) {
  std::vector<Operand*> out = {&a.target};
  for (Operand& o : a.value.operands) out.push_back(&o);
  if (a.kind == ActionKind::kAdd || a.kind == ActionKind::kDelete) out.push_back(&a.operand);
  return out;
}


std::string PathMessage(const char* relation, const Path& one, const Path& two) {
  return std::string("Two document paths ") + relation +
         " with each other; must remove or rewrite one of these paths; path one: " +
         PathToString(one) + ", path two: " + PathToString(two);
}

// The first pair of target paths where one is a prefix of the other (overlap), else the first
// pair that names a member and an element at the same position (conflict).
std::optional<std::string> PathError(const std::vector<UpdateAction>& actions) {
  std::optional<std::string> conflict;
  for (size_t i = 0; i < actions.size(); ++i) {
    const Path& p = actions[i].target.path;
    for (size_t j = 0; j < i; ++j) {
      const Path& q = actions[j].target.path;
      size_t n = std::min(p.size(), q.size());
      size_t k = 0;
      bool diverged = false;
      for (; k < n; ++k) {
        if (p[k].is_index() != q[k].is_index()) {
          if (!conflict) conflict = PathMessage("conflict", q, p);
          diverged = true;
          break;
        }
        if (p[k].is_index() ? p[k].index != q[k].index : p[k].name != q[k].name) {
          diverged = true;
          break;
        }
      }
      if (!diverged) return PathMessage("overlap", q, p);
    }
  }
  return conflict;
}

// ADD takes a number or a set, DELETE a set; anything else is refused before the item is read.
std::optional<std::string> OperandTypeError(const UpdateAction& a) {
  if (a.kind != ActionKind::kAdd && a.kind != ActionKind::kDelete) return std::nullopt;
  const char* name = nullptr;
  switch (a.operand.value.type()) {
    case model::ValueType::kS:
      name = "STRING";
      break;
    case model::ValueType::kN:
      name = a.kind == ActionKind::kAdd ? nullptr : "NUMBER";
      break;
    case model::ValueType::kB:
      name = "BINARY";
      break;
    case model::ValueType::kNull:
      name = "NULL";
      break;
    case model::ValueType::kBool:
      name = "BOOLEAN";
      break;
    case model::ValueType::kL:
      name = "LIST";
      break;
    case model::ValueType::kM:
      name = "MAP";
      break;
    default:
      break;  // sets
  }
  if (!name) return std::nullopt;
  return std::string("Incorrect operand type for operator or function; operator: ") +
         (a.kind == ActionKind::kAdd ? "ADD" : "DELETE") + ", operand type: " + name;
}

std::string OperandTypeMessage(const std::string& function, const std::string& type) {
  return "Incorrect operand type for operator or function; operator or function: " + function +
         ", operand type: " + type;
}

std::optional<std::string> CallError(const Operand& call) {
  if (call.args.size() != 2) {
    return "Incorrect number of operands for operator or function; operator or function: " +
           call.name + ", number of operands: " + std::to_string(call.args.size());
  }
  if (call.function == Function::kIfNotExists) {
    if (!call.args[0].is_path()) {
      return "Operator or function requires a document path; operator or function: " + call.name;
    }
    return std::nullopt;
  }
  for (const Operand& arg : call.args) {  // list_append
    auto t = ImmediateType(arg);
    if (t && *t != "L") return OperandTypeMessage(call.name, *t);
  }
  return std::nullopt;
}

std::optional<std::string> FunctionError(const SetValue& value) {
  std::optional<std::string> found;
  for (const Operand& op : value.operands) {
    ForEachCall(op, [&](const Operand& call) {
      if (!found) found = CallError(call);
    });
  }
  if (found || value.kind == SetValue::Kind::kOperand) return found;
  for (const Operand& op : value.operands) {
    auto t = ImmediateType(op);
    if (t && *t != "N") {
      return OperandTypeMessage(value.kind == SetValue::Kind::kPlus ? "+" : "-", *t);
    }
  }
  return std::nullopt;
}

// The first function, innermost first, that an update cannot call: an unknown name, or one of
// the condition functions (size, attribute_exists, ...), which the service names separately.
std::optional<std::string> FunctionNameError(const SetValue& value) {
  std::optional<std::string> found;
  for (const Operand& op : value.operands) {
    ForEachCall(op, [&](const Operand& call) {
      if (found || call.function == Function::kIfNotExists ||
          call.function == Function::kListAppend) {
        return;
      }
      if (call.function == Function::kUnknown) {
        found = "Invalid function name; function: " + call.name;
      } else {
        found = "The function is not allowed in an update expression; function: " + call.name;
      }
    });
  }
  return found;
}

// list_append may only be the whole value: not an argument of another function (not even of
// if_not_exists) and not an operand of + or - (observed against DynamoDB Local).
std::optional<std::string> MisusedFunction(const SetValue& value) {
  std::optional<std::string> found;
  for (const Operand& op : value.operands) {
    ForEachCall(op, [&](const Operand& call) {
      for (const Operand& arg : call.args) {
        if (!found && arg.is_call() && arg.function == Function::kListAppend) found = arg.name;
      }
    });
    if (!found && value.kind != SetValue::Kind::kOperand && op.is_call() &&
        op.function == Function::kListAppend) {
      found = op.name;
    }
  }
  return found;
}

}  // namespace

Status CheckUpdate(ParsedUpdate* parsed, Placeholders& ph) {
  std::vector<UpdateAction>& actions = parsed->actions;
  for (UpdateAction& a : actions) {
    for (Operand* op : OperandsOf(a)) {
      if (auto word = FirstReservedName(*op)) {
        return InvalidExpression(
            kKind, "Attribute name is a reserved keyword; reserved keyword: " + *word);
      }
    }
  }
  for (UpdateAction& a : actions) {
    if (auto e = FunctionNameError(a.value)) return InvalidExpression(kKind, *e);
  }
  for (UpdateAction& a : actions) {
    if (auto name = MisusedFunction(a.value)) {
      return InvalidExpression(
          kKind,
          "The function is not allowed to be used this way in an expression; function: " + *name);
    }
  }
  if (parsed->repeated_clause) {
    return InvalidExpression(kKind,
                             "The \"" + *parsed->repeated_clause +
                                 "\" section can only be used once in an update expression;");
  }
  UndefinedRefs undefined;
  for (UpdateAction& a : actions) {
    for (Operand* op : OperandsOf(a)) ResolveOperand(op, ph, &undefined);
  }
  if (undefined.name) return InvalidExpression(kKind, UndefinedNameMessage(*undefined.name));
  if (undefined.value) return InvalidExpression(kKind, UndefinedValueMessage(*undefined.value));
  if (auto e = PathError(actions)) return InvalidExpression(kKind, *e);
  for (const UpdateAction& a : actions) {
    if (auto e = OperandTypeError(a)) return InvalidExpression(kKind, *e);
  }
  for (const UpdateAction& a : actions) {
    if (a.kind != ActionKind::kSet) continue;
    if (auto e = FunctionError(a.value)) return InvalidExpression(kKind, *e);
  }
  return Status::Ok();
}

}  // namespace ttlstore::expr
