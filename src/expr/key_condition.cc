// KeyCondition: a KeyConditionExpression is parsed and checked as an ordinary condition first
// (so syntax, placeholder and operand-type errors read "Invalid KeyConditionExpression: ..."),
// then reduced to one condition per key attribute, then matched against the key schema. Each
// stage has DynamoDB's own wording, which for the later stages carries no "Invalid ..." prefix.
#include "expr/key_condition.h"

#include "expr/condition_check.h"
#include "expr/value_ops.h"

namespace ttlstore::expr {
namespace {

using model::AttributeValue;
using Kind = CondExpr::Kind;
using SortOp = KeyCondition::SortOp;

constexpr char kKind[] = "KeyConditionExpression";

// One condition on one key attribute, normalised so that the attribute is on the left.
struct KeyTerm {
  std::string attribute;
  SortOp op = SortOp::kEq;
  std::vector<AttributeValue> values;  // 1, or 2 for BETWEEN
};

SortOp Flipped(CompareOp op) {
  switch (op) {
    case CompareOp::kLt:
      return SortOp::kGt;
    case CompareOp::kLe:
      return SortOp::kGe;
    case CompareOp::kGt:
      return SortOp::kLt;
    case CompareOp::kGe:
      return SortOp::kLe;
    default:
      return SortOp::kEq;
  }
}

SortOp AsWritten(CompareOp op) {
  switch (op) {
    case CompareOp::kLt:
      return SortOp::kLt;
    case CompareOp::kLe:
      return SortOp::kLe;
    case CompareOp::kGt:
      return SortOp::kGt;
    case CompareOp::kGe:
      return SortOp::kGe;
    default:
      return SortOp::kEq;
  }
}

// Reduces the condition tree to key terms, rejecting what a key condition cannot express. The
// order of the checks, and the tree walk from the left, follow the service's error precedence.
class Reducer {
 public:
  Status Reduce(const CondExpr& c) {
    switch (c.kind) {
      case Kind::kOr:
        return Error::Validation("Invalid operator used in KeyConditionExpression: OR");
      case Kind::kNot:
        return Error::Validation("Invalid operator used in KeyConditionExpression: NOT");
      case Kind::kIn:
        return Error::Validation("Invalid operator used in KeyConditionExpression: IN");
      case Kind::kAnd:
        for (const CondExpr& child : c.children) RETURN_IF_ERROR(Reduce(child));
        return Status::Ok();
      default:
        break;
    }
    if (c.kind == Kind::kCompare && c.op == CompareOp::kNe) {
      return Error::Validation("Invalid operator used in KeyConditionExpression: <>");
    }
    const std::vector<Operand>* args = &c.operands;
    if (c.kind == Kind::kCall) {
      const Operand& call = c.operands[0];
      if (call.function != Function::kBeginsWith) {
        if (call.function == Function::kSize) return NestedOperation();
        return Error::Validation("Invalid operator used in KeyConditionExpression: " + call.name);
      }
      if (!call.args[0].is_path()) return NotFirst(call.name);
      args = &call.args;
    }
    if (c.kind == Kind::kBetween && !c.operands[0].is_path()) return NotFirst("BETWEEN");

    const Operand* key = nullptr;
    size_t key_index = 0;
    std::vector<AttributeValue> values;
    for (size_t i = 0; i < args->size(); ++i) {
      const Operand& arg = (*args)[i];
      if (arg.is_call()) return NestedOperation();
      if (arg.is_value()) {
        values.push_back(arg.value);
        continue;
      }
      if (key) {
        return Error::Validation(
            "Invalid condition in KeyConditionExpression: Multiple attribute names used in one "
            "condition");
      }
      if (arg.path.size() > 1) {
        return Error::Validation(
            "KeyConditionExpressions cannot have conditions on nested attributes");
      }
      key = &arg;
      key_index = i;
    }
    if (!key) {
      return Error::Validation(
          "Invalid condition in KeyConditionExpression: No key attribute specified");
    }
    const std::string& name = key->path[0].name;
    for (const KeyTerm& t : terms_) {
      if (t.attribute == name) {
        // The service's words (a conformance suite's capture, queryKeyConditionOperands).
        return Error::Validation(
            "Invalid KeyConditionExpression: KeyConditionExpressions must only contain one "
            "condition per key");
      }
    }
    KeyTerm term{name, SortOp::kEq, std::move(values)};
    if (c.kind == Kind::kCall)
      term.op = SortOp::kBeginsWith;
    else if (c.kind == Kind::kBetween)
      term.op = SortOp::kBetween;
    else
      term.op = key_index == 0 ? AsWritten(c.op) : Flipped(c.op);
    terms_.push_back(std::move(term));
    return Status::Ok();
  }

  std::vector<KeyTerm>& terms() { return terms_; }

 private:
  static Error NestedOperation() {
    return Error::Validation("KeyConditionExpressions cannot contain nested operations");
  }
  static Error NotFirst(const std::string& op) {
    return Error::Validation("Invalid condition in KeyConditionExpression: " + op +
                             " operator must have the key attribute as its first operand");
  }

  std::vector<KeyTerm> terms_;
};

// A key value no stored item could have: empty (S, B), or a sort-key operand over the 1024-byte
// sort-key limit. The service refuses these rather than answer with nothing; it lets an
// over-long partition-key value through (it simply matches no item).
Status CheckKeyOperand(const model::KeyElement& key, const AttributeValue& v, bool is_hash) {
  if (v.type() == model::ValueType::kN) return Status::Ok();
  if (v.scalar().empty()) {
    return Error::Validation(
        std::string("One or more parameter values are not valid. The AttributeValue for a key "
                    "attribute cannot contain an empty ") +
        (v.type() == model::ValueType::kS ? "string" : "binary") + " value. Key: " + key.name);
  }
  if (!is_hash && v.scalar().size() > model::kMaxSortKeyBytes) {
    return Error::Validation(
        "One or more parameter values were invalid: Aggregated size of all range keys has "
        "exceeded the size limit of 1024 bytes");
  }
  return Status::Ok();
}

// The values of one term, checked against the key attribute it conditions, in the order the
// single-attribute path checks them.
Status CheckTermValues(const model::KeyElement& key, const KeyTerm& term, bool is_hash) {
  for (const AttributeValue& v : term.values) {
    if (v.type() != key.type) {
      return Error::Validation(
          "One or more parameter values were invalid: Condition parameter type does not match "
          "schema type");
    }
  }
  for (const AttributeValue& v : term.values) RETURN_IF_ERROR(CheckKeyOperand(key, v, is_hash));
  return Status::Ok();
}

// A key condition on a GSI with a multi-attribute key (docs/compatibility.md, "Multi-attribute
// GSI keys"): every partition-key attribute by equality; the sort-key attributes from the
// first, without a gap, all by equality except the last one given.
Result<KeyCondition> ReduceMulti(std::vector<KeyTerm>& terms, const model::KeySchema& schema) {
  auto find = [&](const std::string& name) -> KeyTerm* {
    for (KeyTerm& t : terms) {
      if (t.attribute == name) return &t;
    }
    return nullptr;
  };
  KeyCondition out;
  std::vector<const model::KeyElement*> hash = schema.HashElements();
  for (size_t i = 0; i < hash.size(); ++i) {
    KeyTerm* term = find(hash[i]->name);
    if (!term) {
      return Error::Validation("Query condition missed key schema element: " + hash[i]->name);
    }
    RETURN_IF_ERROR(CheckTermValues(*hash[i], *term, /*is_hash=*/true));
    if (term->op != SortOp::kEq) return Error::Validation("Query key condition not supported");
    (i == 0 ? out.partition : out.more_partition.emplace_back()) = term->values[0];
  }
  // The sort-key attributes given: a prefix of the schema's, so the first one missing is the
  // one a later condition skipped (or, after a condition on a non-key attribute, the one the
  // caller most likely meant).
  std::vector<const model::KeyElement*> range = schema.RangeElements();
  size_t given = 0;
  while (given < range.size() && find(range[given]->name)) ++given;
  size_t conditioned = 0;
  for (const KeyTerm& t : terms) {
    if (schema.Contains(t.attribute)) {
      ++conditioned;
      continue;
    }
    if (given < range.size()) {
      return Error::Validation("Query condition missed key schema element: " +
                               range[given]->name);
    }
    return Error::Validation("Query key condition not supported");
  }
  if (conditioned != hash.size() + given) {
    return Error::Validation("Query condition missed key schema element: " + range[given]->name);
  }
  for (size_t i = 0; i < given; ++i) {
    const KeyTerm& term = *find(range[i]->name);
    RETURN_IF_ERROR(CheckTermValues(*range[i], term, /*is_hash=*/false));
    if (i + 1 < given) {
      // Only the last sort-key attribute given may have a range condition.
      if (term.op != SortOp::kEq) return Error::Validation("Query key condition not supported");
      out.sort_prefix.push_back(term.values[0]);
      continue;
    }
    out.sort_op = term.op;
    out.sort1 = term.values[0];
    if (term.values.size() > 1) out.sort2 = term.values[1];
  }
  return out;
}

}  // namespace

Result<CondExpr> KeyCondition::ParseText(std::string_view text, Placeholders& ph,
                                         bool generated) {
  return ParseCheckedCondition(text, kKind, ph, generated);
}

Result<KeyCondition> KeyCondition::Parse(std::string_view text, const model::KeySchema& schema,
                                         Placeholders& ph, bool generated, bool legacy) {
  ASSIGN_OR_RETURN(root, ParseText(text, ph, generated));
  return Bind(root, schema, legacy);
}

Result<KeyCondition> KeyCondition::Bind(const CondExpr& root, const model::KeySchema& schema,
                                        bool legacy) {
  Reducer reducer;
  RETURN_IF_ERROR(reducer.Reduce(root));
  std::vector<KeyTerm>& terms = reducer.terms();
  if (schema.MultiAttribute()) return ReduceMulti(terms, schema);
  const size_t key_attributes = schema.range ? 2 : 1;
  if (!legacy && terms.size() > 2) {
    // The same capture: more conditions than the key has attributes.
    return Error::Validation("The number of query conditions (" + std::to_string(terms.size()) +
                             ") exceeds the number of key attributes defined in the schema (" +
                             std::to_string(key_attributes) + ")");
  }
  if (terms.size() != 1 && terms.size() != 2) {
    return Error::Validation("Conditions can be of length 1 or 2 only");
  }

  KeyCondition out;
  std::vector<std::pair<const model::KeyElement*, bool>> keys = {{&schema.hash, true}};
  if (schema.range) keys.push_back({&*schema.range, false});
  for (const auto& [key, is_hash] : keys) {
    if (is_hash && !schema.range && terms.size() > 1) {
      return Error::Validation("Query key condition not supported");
    }
    KeyTerm* term = nullptr;
    for (KeyTerm& t : terms) {
      if (t.attribute == key->name) term = &t;
    }
    if (!term) {
      if (is_hash || terms.size() > 1) {
        return Error::Validation("Query condition missed key schema element: " + key->name);
      }
      continue;
    }
    for (const AttributeValue& v : term->values) {
      if (v.type() != key->type) {
        return Error::Validation(
            "One or more parameter values were invalid: Condition parameter type does not match "
            "schema type");
      }
    }
    for (const AttributeValue& v : term->values) RETURN_IF_ERROR(CheckKeyOperand(*key, v, is_hash));
    if (is_hash) {
      if (term->op != SortOp::kEq) return Error::Validation("Query key condition not supported");
      out.partition = term->values[0];
    } else {
      out.sort_op = term->op;
      out.sort1 = term->values[0];
      if (term->values.size() > 1) out.sort2 = term->values[1];
    }
  }
  return out;
}

bool KeyCondition::MatchesSort(const AttributeValue& sort_key) const {
  if (sort_op == SortOp::kNone) return true;
  if (sort_key.type() != sort1.type()) return false;
  if (sort_op == SortOp::kBeginsWith) return BeginsWith(sort_key, sort1);
  int c = CompareScalars(sort_key, sort1);
  switch (sort_op) {
    case SortOp::kEq:
      return c == 0;
    case SortOp::kLt:
      return c < 0;
    case SortOp::kLe:
      return c <= 0;
    case SortOp::kGt:
      return c > 0;
    case SortOp::kGe:
      return c >= 0;
    case SortOp::kBetween:
      return c >= 0 && CompareScalars(sort_key, sort2) <= 0;
    default:
      return false;
  }
}

std::vector<const AttributeValue*> KeyCondition::PartitionValues() const {
  std::vector<const AttributeValue*> out = {&partition};
  for (const AttributeValue& v : more_partition) out.push_back(&v);
  return out;
}

bool KeyCondition::Matches(const model::KeySchema& schema, const model::Item& key) const {
  auto equals = [&](const model::KeyElement* e, const AttributeValue& v) {
    auto it = key.find(e->name);
    return it != key.end() && it->second == v;
  };
  std::vector<const model::KeyElement*> hash = schema.HashElements();
  std::vector<const AttributeValue*> values = PartitionValues();
  for (size_t i = 0; i < hash.size() && i < values.size(); ++i) {
    if (!equals(hash[i], *values[i])) return false;
  }
  std::vector<const model::KeyElement*> range = schema.RangeElements();
  for (size_t i = 0; i < sort_prefix.size() && i < range.size(); ++i) {
    if (!equals(range[i], sort_prefix[i])) return false;
  }
  if (sort_op == SortOp::kNone || sort_prefix.size() >= range.size()) return true;
  auto it = key.find(range[sort_prefix.size()]->name);
  return it != key.end() && MatchesSort(it->second);
}

}  // namespace ttlstore::expr
