// PartiQL WHERE and SET -> DynamoDB ConditionExpression / UpdateExpression text.
#include "api/partiql/translate.h"

#include "expr/condition_check.h"
#include "model/item_size.h"

namespace ttlstore::api::partiql {
namespace {

using model::AttributeValue;
using model::ValueType;

constexpr char kNotBoolean[] = "WHERE clause must contain an expression that resolves to a boolean";

Error IncorrectOperand(const std::string& op, ValueType type) {
  return Error::Validation(
      "Incorrect operand type for operator or function; operator or function: " + op +
      ", operand type: " + model::TypeName(type));
}

// "Unrecognized function: f at 1:40:6": the service points at the function's name.
Error Unrecognized(const Expr& call) {
  return Error::Validation("Unrecognized function: " + call.op + " at " +
                           At(call.pos, call.op.size()));
}

// The condition functions WHERE accepts, with their operand counts (0: not one).
size_t ConditionOperands(const std::string& f) {
  if (f == "attribute_exists" || f == "attribute_not_exists") return 1;
  if (f == "begins_with" || f == "contains" || f == "attribute_type") return 2;
  return 0;
}

bool Orderable(ValueType t) {
  return t == ValueType::kS || t == ValueType::kN || t == ValueType::kB;
}

}  // namespace

// `fn(...) = true` (or `<>`, or false): a condition function compared with a boolean literal or
// parameter. The condition function's side, and whether the comparison holds when it does.
struct BooleanCompare {
  const Expr* call = nullptr;
  bool when_true = true;
};

Status CheckInOperands(const Expr& in) {
  if (in.args.size() - 1 > expr::kMaxInOperands) {
    return Error::Validation(
        "The IN operator is provided with too many operands; number of operands: " +
        std::to_string(in.args.size() - 1));
  }
  return Status::Ok();
}

Result<AttributeValue> ExpressionWriter::BindOperand(const Expr& e) {
  ASSIGN_OR_RETURN(v, Bind(e.value, params_));
  if (model::NestingDepth(v) > model::kMaxContainerDepth) return Error::Validation(kNestingTooDeep);
  return v;
}

std::string ExpressionWriter::Name(const std::string& attribute) {
  auto it = name_tokens_.find(attribute);
  if (it != name_tokens_.end()) return it->second;
  std::string token = "#_p" + std::to_string(ph_.names.size());
  ph_.names.emplace(token, attribute);
  name_tokens_.emplace(attribute, token);
  return token;
}

std::string ExpressionWriter::ValueToken(AttributeValue value) {
  std::string token = ":_p" + std::to_string(ph_.values.size());
  ph_.values.emplace(token, std::move(value));
  return token;
}

std::string ExpressionWriter::PathText(const expr::Path& path) {
  std::string text;
  for (const auto& e : path) {
    if (e.is_index()) {
      text += "[" + std::to_string(e.index) + "]";
    } else {
      text += (text.empty() ? "" : ".") + Name(e.name);
    }
  }
  return text;
}

// A comparison operand: a path, a value or size(path). `op` names the operator for type errors
// (ordering operators accept only S, N and B values, as the service checks before reading).
Result<std::string> ExpressionWriter::Operand(const Expr& e, const char* op) {
  switch (e.kind) {
    case Expr::Kind::kPath:
      return PathText(e.path);
    case Expr::Kind::kValue: {
      if (e.value.kind == Value::Kind::kMissing) {
        return Error::Validation("MISSING must be compared using IS operator");
      }
      ASSIGN_OR_RETURN(v, BindOperand(e));
      if (op && !Orderable(v.type())) return IncorrectOperand(op, v.type());
      return ValueToken(std::move(v));
    }
    case Expr::Kind::kCall:
      if (e.op == "size" && e.args.size() == 1 && e.args[0].kind == Expr::Kind::kPath) {
        return "size(" + PathText(e.args[0].path) + ")";
      }
      if (e.op == "size") return Error::Validation("Unsupported operation: size");
      return Unrecognized(e);
    case Expr::Kind::kArith:
      return Error::Validation("Unsupported operator in Condition Expression. Operator: " + e.op);
    default:
      return Error::Validation("Unsupported operation: nested condition used as a value");
  }
}

Result<BooleanCompare> ExpressionWriter::CompareWithBoolean(const Expr& e) {
  BooleanCompare out;
  if (e.op != "=" && e.op != "<>") return out;
  for (int side = 0; side < 2; ++side) {
    const Expr& call = e.args[side];
    const Expr& other = e.args[1 - side];
    if (call.kind != Expr::Kind::kCall || ConditionOperands(call.op) == 0 ||
        other.kind != Expr::Kind::kValue) {
      continue;
    }
    if (other.value.kind == Value::Kind::kMissing) return out;
    ASSIGN_OR_RETURN(v, BindOperand(other));
    if (v.type() != ValueType::kBool) return out;
    out.call = &call;
    out.when_true = v.boolean() == (e.op == "=");
    return out;
  }
  return out;
}

Result<std::string> ExpressionWriter::Condition(const Expr& e) {
  auto wrap = [&](const std::string& text) { return e.negated ? "NOT (" + text + ")" : text; };
  switch (e.kind) {
    case Expr::Kind::kAnd:
    case Expr::Kind::kOr: {
      ASSIGN_OR_RETURN(l, Condition(e.args[0]));
      ASSIGN_OR_RETURN(r, Condition(e.args[1]));
      return "(" + l + (e.kind == Expr::Kind::kAnd ? ") AND (" : ") OR (") + r + ")";
    }
    case Expr::Kind::kNot: {
      ASSIGN_OR_RETURN(inner, Condition(e.args[0]));
      return "NOT (" + inner + ")";
    }
    case Expr::Kind::kCompare: {
      ASSIGN_OR_RETURN(boolean, CompareWithBoolean(e));
      if (boolean.call) {
        ASSIGN_OR_RETURN(cond, Condition(*boolean.call));
        return boolean.when_true ? cond : "NOT (" + cond + ")";
      }
      const char* ordering = e.op == "=" || e.op == "<>" ? nullptr : e.op.c_str();
      ASSIGN_OR_RETURN(l, Operand(e.args[0], ordering));
      ASSIGN_OR_RETURN(r, Operand(e.args[1], ordering));
      return l + " " + e.op + " " + r;
    }
    case Expr::Kind::kBetween: {
      ASSIGN_OR_RETURN(subject, Operand(e.args[0], "BETWEEN"));
      ASSIGN_OR_RETURN(lo, Operand(e.args[1], "BETWEEN"));
      ASSIGN_OR_RETURN(hi, Operand(e.args[2], "BETWEEN"));
      return wrap(subject + " BETWEEN " + lo + " AND " + hi);
    }
    case Expr::Kind::kIn: {
      if (e.args.size() < 2) {
        return Error::Validation(
            "IN operator must have a left hand argument of type Variable Reference and right "
            "hand argument of type Seq with at least one member");
      }
      // Checked here, before the operator count (DynamoDB Local).
      RETURN_IF_ERROR(CheckInOperands(e));
      ASSIGN_OR_RETURN(subject, Operand(e.args[0], nullptr));
      std::string list;
      for (size_t i = 1; i < e.args.size(); ++i) {
        ASSIGN_OR_RETURN(member, Operand(e.args[i], nullptr));
        list += (i > 1 ? ", " : "") + member;
      }
      return wrap(subject + " IN (" + list + ")");
    }
    case Expr::Kind::kIs: {
      if (e.args[0].kind != Expr::Kind::kPath) {
        return Error::Validation(
            "The left hand side argument to IS must be a Variable Reference, Literal, or Path");
      }
      std::string path = PathText(e.args[0].path);
      if (e.op == "MISSING") {
        return (e.negated ? "attribute_exists(" : "attribute_not_exists(") + path + ")";
      }
      static const std::map<std::string, const char*> kTypes = {
          {"NULL", "NULL"}, {"BOOLEAN", "BOOL"}, {"BOOL", "BOOL"}, {"STRING", "S"},
          {"NUMERIC", "N"}, {"NUMBER", "N"},     {"DECIMAL", "N"}, {"INT", "N"},
          {"INTEGER", "N"}, {"FLOAT", "N"},      {"DOUBLE", "N"},  {"BLOB", "B"},
          {"STRUCT", "M"},  {"TUPLE", "M"},      {"LIST", "L"}};
      std::string type = ValueToken(AttributeValue::String(kTypes.at(e.op)));
      return wrap("attribute_type(" + path + ", " + type + ")");
    }
    case Expr::Kind::kCall: {
      const std::string& f = e.op;
      const size_t operands = ConditionOperands(f);
      if (operands == 0) {
        if (f == "size") return Error::Validation(kNotBoolean);
        return Unrecognized(e);
      }
      const bool one = operands == 1;
      // The expression engine's texts, as the service gives them for PartiQL too (a conformance
      // suite's capture).
      if (e.args.size() != operands) {
        return Error::Validation(
            "Incorrect number of operands for operator or function; operator or function: " + f +
            ", number of operands: " + std::to_string(e.args.size()));
      }
      if (one && e.args[0].kind != Expr::Kind::kPath) {
        return Error::Validation(
            "Operator or function requires a document path; operator or function: " + f);
      }
      if (e.args[0].kind != Expr::Kind::kPath) {
        return Error::Validation(
            "Incorrect operand type for operator or function; operator or "
            "function: " +
            f + ", operand type: literal");
      }
      std::string path = PathText(e.args[0].path);
      if (one) return f + "(" + path + ")";
      ASSIGN_OR_RETURN(arg, Operand(e.args[1], nullptr));
      return f + "(" + path + ", " + arg + ")";
    }
    case Expr::Kind::kPath:
    case Expr::Kind::kValue:
    case Expr::Kind::kArith:
      return Error::Validation(kNotBoolean);
  }
  return Error::Validation(kNotBoolean);
}

Result<std::string> ExpressionWriter::Conjunction(const std::vector<const Expr*>& parts) {
  std::string text;
  for (const Expr* p : parts) {
    ASSIGN_OR_RETURN(c, Condition(*p));
    text += (text.empty() ? "(" : " AND (") + c + ")";
  }
  return text;
}

// The right-hand side of SET: path, value, if_not_exists, list_append, and one + or -.
Result<std::string> ExpressionWriter::UpdateOperand(const Expr& e, bool allow_arith) {
  switch (e.kind) {
    case Expr::Kind::kPath:
      return PathText(e.path);
    case Expr::Kind::kValue: {
      ASSIGN_OR_RETURN(v, BindOperand(e));
      return ValueToken(std::move(v));
    }
    case Expr::Kind::kArith: {
      if (!allow_arith) {
        return Error::Validation("Unsupported operator in Update Expression. Operator: " + e.op);
      }
      for (const Expr& side : e.args) {
        if (side.kind != Expr::Kind::kValue) continue;
        ASSIGN_OR_RETURN(v, BindOperand(side));
        if (v.type() != ValueType::kN) return IncorrectOperand(e.op, v.type());
      }
      ASSIGN_OR_RETURN(l, UpdateOperand(e.args[0], false));
      ASSIGN_OR_RETURN(r, UpdateOperand(e.args[1], false));
      return l + " " + e.op + " " + r;
    }
    case Expr::Kind::kCall: {
      if (e.op != "list_append" && e.op != "if_not_exists") {
        if (e.op == "set_add" || e.op == "set_delete") {
          return Error::Validation("Unsupported operation: nested " + e.op);
        }
        return Unrecognized(e);
      }
      if (e.args.size() != 2) {
        return Error::Validation(std::string(kMalformed) + "Wrong number of arguments to " + e.op);
      }
      if (e.op == "if_not_exists" && e.args[0].kind != Expr::Kind::kPath) {
        return Error::Validation(
            "Incorrect operand type for operator or function; operator or "
            "function: if_not_exists, operand type: literal");
      }
      ASSIGN_OR_RETURN(a, UpdateOperand(e.args[0], false));
      ASSIGN_OR_RETURN(b, UpdateOperand(e.args[1], false));
      return e.op + "(" + a + ", " + b + ")";
    }
    default:
      return Error::Validation("Unsupported operation: a condition is not a value");
  }
}

Result<std::string> ExpressionWriter::Update(const Statement& s) {
  std::string set, remove, add, del;
  auto append = [](std::string& clause, const std::string& part) {
    clause += (clause.empty() ? "" : ", ") + part;
  };
  for (const Assignment& a : s.set) {
    std::string target = PathText(a.path);
    const Expr& v = a.value;
    if (v.kind == Expr::Kind::kCall && (v.op == "set_add" || v.op == "set_delete")) {
      // SET s = set_add(s, <<...>>) is DynamoDB's ADD s :v (set_delete: DELETE s :v).
      std::string upper = v.op == "set_add" ? "ADD" : "DELETE";
      // The service points at the function's name, or (for the second argument) at the first.
      const std::string at_call = " at " + At(v.pos, v.op.size());
      if (v.args.size() != 2) {
        return Error::Validation("SET_" + upper + " must have exactly two arguments" + at_call);
      }
      if (v.args[0].kind != Expr::Kind::kPath || v.args[0].path.size() != a.path.size() ||
          PathText(v.args[0].path) != target) {
        return Error::Validation("The first argument to SET_" + upper +
                                 " must equal the assignment value" + at_call);
      }
      Result<AttributeValue> bound = v.args[1].kind == Expr::Kind::kValue
                                         ? BindOperand(v.args[1])
                                         : Result<AttributeValue>(AttributeValue::Null());
      if (!bound) return std::move(bound).error();
      if (!bound->IsSet()) {
        const Expr& first = v.args[0];
        return Error::Validation("The second argument to SET_" + upper +
                                 " must be a value with type SET at " +
                                 At(first.pos, first.path.front().name.size()));
      }
      append(upper == "ADD" ? add : del, target + " " + ValueToken(std::move(*bound)));
      continue;
    }
    if (v.kind == Expr::Kind::kValue && v.value.kind == Value::Kind::kMissing) {
      return Error::Validation("Unsupported data type: MISSING");
    }
    ASSIGN_OR_RETURN(value, UpdateOperand(v, true));
    append(set, target + " = " + value);
  }
  for (const expr::Path& p : s.remove) append(remove, PathText(p));
  std::string text;
  if (!set.empty()) text += "SET " + set;
  if (!remove.empty()) text += (text.empty() ? "" : " ") + ("REMOVE " + remove);
  if (!add.empty()) text += (text.empty() ? "" : " ") + ("ADD " + add);
  if (!del.empty()) text += (text.empty() ? "" : " ") + ("DELETE " + del);
  return text;
}

}  // namespace ttlstore::api::partiql
