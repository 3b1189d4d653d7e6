// Condition: parse (condition_parser.cc), check and resolve (condition_check.cc), then evaluate
// here. Evaluation never fails: DynamoDB turns every run-time type mismatch in a condition into
// "false" (or "true" for <>), never into an error.
#include "expr/condition.h"

#include "expr/condition_check.h"
#include "expr/value_ops.h"

namespace ttlstore::expr {

struct Condition::Node {
  CondExpr root;
};

namespace {

using model::AttributeValue;
using Kind = CondExpr::Kind;

// The value of an operand, or nullptr when it names nothing in the item. size() produces a new
// value, kept in *scratch.
const AttributeValue* Eval(const Operand& op, const model::Item& item, AttributeValue* scratch) {
  switch (op.kind) {
    case Operand::Kind::kValue:
      return &op.value;
    case Operand::Kind::kPath:
      return FindPath(item, op.path);
    case Operand::Kind::kCall: {
      // The checks allow only size() as an operand; its argument may be a path or a :value.
      AttributeValue inner_scratch;
      const AttributeValue* v = Eval(op.args[0], item, &inner_scratch);
      if (v == nullptr) return nullptr;
      std::optional<size_t> n = SizeOf(*v);
      if (!n) return nullptr;
      *scratch = AttributeValue::Num(std::to_string(*n));
      return scratch;
    }
  }
  return nullptr;
}

bool EvalFunction(const Operand& call, const model::Item& item) {
  AttributeValue s1, s2;
  switch (call.function) {
    case Function::kAttributeExists:
      return FindPath(item, call.args[0].path) != nullptr;
    case Function::kAttributeNotExists:
      return FindPath(item, call.args[0].path) == nullptr;
    case Function::kAttributeType: {
      const AttributeValue* v = Eval(call.args[0], item, &s1);
      const AttributeValue* t = Eval(call.args[1], item, &s2);
      return v && t && t->type() == model::ValueType::kS &&
             t->scalar() == model::TypeName(v->type());
    }
    case Function::kBeginsWith: {
      const AttributeValue* v = Eval(call.args[0], item, &s1);
      const AttributeValue* p = Eval(call.args[1], item, &s2);
      return v && p && BeginsWith(*v, *p);
    }
    case Function::kContains: {
      const AttributeValue* v = Eval(call.args[0], item, &s1);
      const AttributeValue* o = Eval(call.args[1], item, &s2);
      return v && o && Contains(*v, *o);
    }
    default:
      return false;  // unreachable: the checks admit only the boolean functions here
  }
}

void CollectNames(const Operand& op, std::set<std::string>* out) {
  if (op.is_path() && !op.path.empty()) out->insert(op.path.front().name);
  for (const auto& arg : op.args) CollectNames(arg, out);
}

void CollectNames(const CondExpr& c, std::set<std::string>* out) {
  for (const auto& op : c.operands) CollectNames(op, out);
  for (const auto& child : c.children) CollectNames(child, out);
}

bool EvalCond(const CondExpr& c, const model::Item& item) {
  switch (c.kind) {
    case Kind::kAnd:
      return EvalCond(c.children[0], item) && EvalCond(c.children[1], item);
    case Kind::kOr:
      return EvalCond(c.children[0], item) || EvalCond(c.children[1], item);
    case Kind::kNot:
      return !EvalCond(c.children[0], item);
    case Kind::kCall:
      return EvalFunction(c.operands[0], item);
    case Kind::kCompare: {
      AttributeValue s1, s2;
      return CompareValues(Eval(c.operands[0], item, &s1), c.op, Eval(c.operands[1], item, &s2));
    }
    case Kind::kBetween: {
      AttributeValue s1, s2, s3;
      const AttributeValue* v = Eval(c.operands[0], item, &s1);
      const AttributeValue* low = Eval(c.operands[1], item, &s2);
      const AttributeValue* high = Eval(c.operands[2], item, &s3);
      if (!v || !low || !high) return false;
      return CompareValues(v, CompareOp::kGe, low) && CompareValues(v, CompareOp::kLe, high);
    }
    case Kind::kIn: {
      AttributeValue s1, s2;
      const AttributeValue* v = Eval(c.operands[0], item, &s1);
      if (!v) return false;
      for (size_t i = 1; i < c.operands.size(); ++i) {
        const AttributeValue* candidate = Eval(c.operands[i], item, &s2);
        if (candidate && ValuesEqual(*v, *candidate)) return true;
      }
      return false;
    }
  }
  return false;
}

}  // namespace

Result<Condition> Condition::Parse(std::string_view text, std::string_view kind, Placeholders& ph,
                                   bool generated) {
  ASSIGN_OR_RETURN(root, ParseCheckedCondition(text, kind, ph, generated));
  Condition c;
  c.root_ = std::make_shared<const Node>(Node{std::move(root)});
  return c;
}

bool Condition::Evaluate(const model::Item& item) const {
  return root_ && EvalCond(root_->root, item);
}

std::set<std::string> Condition::TopLevelNames() const {
  std::set<std::string> names;
  CollectNames(root_->root, &names);
  return names;
}

}  // namespace ttlstore::expr
