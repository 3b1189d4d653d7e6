#include "model/attribute_value.h"

#include <algorithm>

namespace ttlstore::model {

const char* TypeName(ValueType type) {
  switch (type) {
    case ValueType::kS: return "S";
    case ValueType::kN: return "N";
    case ValueType::kB: return "B";
    case ValueType::kBool: return "BOOL";
    case ValueType::kNull: return "NULL";
    case ValueType::kM: return "M";
    case ValueType::kL: return "L";
    case ValueType::kSS: return "SS";
    case ValueType::kNS: return "NS";
    case ValueType::kBS: return "BS";
  }
  return "?";
}

AttributeValue AttributeValue::Bool(bool b) {
  AttributeValue v;
  v.type_ = ValueType::kBool;
  v.boolean_ = b;
  return v;
}

AttributeValue AttributeValue::Null() {
  AttributeValue v;
  v.type_ = ValueType::kNull;
  v.boolean_ = true;
  return v;
}

AttributeValue AttributeValue::OfMap(Map m) {
  AttributeValue v;
  v.type_ = ValueType::kM;
  v.map_ = std::move(m);
  return v;
}

AttributeValue AttributeValue::OfList(List l) {
  AttributeValue v;
  v.type_ = ValueType::kL;
  v.list_ = std::move(l);
  return v;
}

AttributeValue AttributeValue::Set(ValueType type, std::vector<std::string> members) {
  AttributeValue v;
  v.type_ = type;
  v.set_ = std::move(members);
  return v;
}

bool operator==(const AttributeValue& a, const AttributeValue& b) {
  if (a.type_ != b.type_) return false;
  switch (a.type_) {
    case ValueType::kS:
    case ValueType::kN:
    case ValueType::kB:
      return a.scalar_ == b.scalar_;
    case ValueType::kBool:
      return a.boolean_ == b.boolean_;
    case ValueType::kNull:
      return true;
    case ValueType::kM:
      return a.map_ == b.map_;
    case ValueType::kL:
      return a.list_ == b.list_;
    case ValueType::kSS:
    case ValueType::kNS:
    case ValueType::kBS: {
      if (a.set_.size() != b.set_.size()) return false;
      std::vector<std::string> x = a.set_, y = b.set_;
      std::sort(x.begin(), x.end());
      std::sort(y.begin(), y.end());
      return x == y;
    }
  }
  return false;
}

}  // namespace ttlstore::model
