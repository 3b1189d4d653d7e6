#include "expr/value_ops.h"

#include <algorithm>
#include <cstring>

#include "expr/key_condition.h"
#include "model/number.h"

namespace ttlstore::expr {

using model::AttributeValue;
using model::ValueType;

namespace {

bool IsOrderable(ValueType t) {
  return t == ValueType::kN || t == ValueType::kS || t == ValueType::kB;
}

int CompareBytes(const std::string& a, const std::string& b) {
  int c = std::memcmp(a.data(), b.data(), std::min(a.size(), b.size()));
  if (c != 0) return c < 0 ? -1 : 1;
  return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
}

ValueType ElementType(ValueType set) {
  switch (set) {
    case ValueType::kSS:
      return ValueType::kS;
    case ValueType::kNS:
      return ValueType::kN;
    default:
      return ValueType::kB;
  }
}

}  // namespace

int CompareScalars(const AttributeValue& a, const AttributeValue& b) {
  if (a.type() == ValueType::kN) {
    auto x = model::Number::Parse(a.scalar());
    auto y = model::Number::Parse(b.scalar());
    // Values held in AttributeValue are canonical, so parsing cannot fail; fall back to the
    // text order rather than crash if that contract is ever broken.
    if (x && y) return x->Compare(*y);
  }
  return CompareBytes(a.scalar(), b.scalar());
}

const AttributeValue* FindPath(const model::Item& item, const Path& path) {
  if (path.empty() || path[0].is_index()) return nullptr;
  auto it = item.find(path[0].name);
  if (it == item.end()) return nullptr;
  const AttributeValue* v = &it->second;
  for (size_t i = 1; i < path.size(); ++i) {
    const PathElement& e = path[i];
    if (e.is_index()) {
      if (v->type() != ValueType::kL || static_cast<size_t>(e.index) >= v->list().size()) {
        return nullptr;
      }
      v = &v->list()[e.index];
    } else {
      if (v->type() != ValueType::kM) return nullptr;
      auto m = v->map().find(e.name);
      if (m == v->map().end()) return nullptr;
      v = &m->second;
    }
  }
  return v;
}

bool ValuesEqual(const AttributeValue& a, const AttributeValue& b) {
  if (a.type() != b.type()) return false;
  if (a.type() == ValueType::kN) return CompareScalars(a, b) == 0;
  return a == b;
}

bool CompareValues(const AttributeValue* a, CompareOp op, const AttributeValue* b) {
  if (a == nullptr || b == nullptr) return op == CompareOp::kNe;
  if (op == CompareOp::kEq) return ValuesEqual(*a, *b);
  if (op == CompareOp::kNe) return !ValuesEqual(*a, *b);
  if (a->type() != b->type() || !IsOrderable(a->type())) return false;
  int c = CompareScalars(*a, *b);
  switch (op) {
    case CompareOp::kLt:
      return c < 0;
    case CompareOp::kLe:
      return c <= 0;
    case CompareOp::kGt:
      return c > 0;
    case CompareOp::kGe:
      return c >= 0;
    default:
      return false;
  }
}

std::optional<size_t> SizeOf(const AttributeValue& v) {
  switch (v.type()) {
    case ValueType::kS: {
      size_t units = 0;
      for (unsigned char c : v.scalar()) {
        if ((c & 0xC0) == 0x80) continue;  // continuation byte
        units += c >= 0xF0 ? 2 : 1;        // 4-byte sequences are surrogate pairs in UTF-16
      }
      return units;
    }
    case ValueType::kB:
      return v.scalar().size();
    case ValueType::kSS:
    case ValueType::kNS:
    case ValueType::kBS:
      return v.set().size();
    case ValueType::kL:
      return v.list().size();
    case ValueType::kM:
      return v.map().size();
    default:
      return std::nullopt;
  }
}

bool BeginsWith(const AttributeValue& v, const AttributeValue& prefix) {
  if (v.type() != prefix.type()) return false;
  if (v.type() != ValueType::kS && v.type() != ValueType::kB) return false;
  return v.scalar().compare(0, prefix.scalar().size(), prefix.scalar()) == 0;
}

bool Contains(const AttributeValue& v, const AttributeValue& operand) {
  switch (v.type()) {
    case ValueType::kS:
    case ValueType::kB:
      return operand.type() == v.type() && v.scalar().find(operand.scalar()) != std::string::npos;
    case ValueType::kSS:
    case ValueType::kNS:
    case ValueType::kBS:
      if (operand.type() != ElementType(v.type())) return false;
      return std::any_of(v.set().begin(), v.set().end(), [&](const std::string& m) {
        if (v.type() == ValueType::kNS) return CompareScalars(AttributeValue::Num(m), operand) == 0;
        return m == operand.scalar();
      });
    case ValueType::kL:
      return std::any_of(v.list().begin(), v.list().end(),
                         [&](const AttributeValue& e) { return ValuesEqual(e, operand); });
    default:
      return false;
  }
}

}  // namespace ttlstore::expr
