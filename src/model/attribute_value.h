// AttributeValue and Item: DynamoDB's ten value types as plain C++ values.
// No JSON, no RocksDB here; api/ converts to and from the wire, storage/ to and from bytes.
// Values held here are already validated (numbers canonical, sets non-empty and duplicate-free).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ttlstore::model {

// The ten DynamoDB types. The numeric values are persisted in item encodings
// (see docs/formats.md): never reorder or reuse them.
enum class ValueType : uint8_t {
  kS = 1,     // UTF-8 string
  kN = 2,     // exact decimal, held as canonical text (see model/number.h)
  kB = 3,     // bytes
  kBool = 4,  // BOOL
  kNull = 5,  // NULL (always true on the wire)
  kM = 6,     // map of name -> value
  kL = 7,     // list of values
  kSS = 8,    // string set
  kNS = 9,    // number set (members canonical text)
  kBS = 10,   // binary set
};

// The wire name of a type: "S", "N", "B", "BOOL", "NULL", "M", "L", "SS", "NS", "BS".
const char* TypeName(ValueType type);

class AttributeValue;
using Map = std::map<std::string, AttributeValue>;
using List = std::vector<AttributeValue>;

class AttributeValue {
 public:
  AttributeValue() : type_(ValueType::kNull) {}

  static AttributeValue String(std::string s) { return Scalar(ValueType::kS, std::move(s)); }
  // REQUIRES: `canonical` is Number::ToString() output.
  static AttributeValue Num(std::string canonical) {
    return Scalar(ValueType::kN, std::move(canonical));
  }
  static AttributeValue Binary(std::string bytes) { return Scalar(ValueType::kB, std::move(bytes)); }
  static AttributeValue Bool(bool b);
  static AttributeValue Null();
  static AttributeValue OfMap(Map m);
  static AttributeValue OfList(List l);
  // REQUIRES: type is kSS, kNS or kBS; members non-empty, distinct (NS members canonical).
  static AttributeValue Set(ValueType type, std::vector<std::string> members);

  ValueType type() const { return type_; }
  bool IsSet() const {
    return type_ == ValueType::kSS || type_ == ValueType::kNS || type_ == ValueType::kBS;
  }
  // S, N (canonical text), B (raw bytes).
  const std::string& scalar() const { return scalar_; }
  bool boolean() const { return boolean_; }
  const Map& map() const { return map_; }
  Map& mutable_map() { return map_; }
  const List& list() const { return list_; }
  List& mutable_list() { return list_; }
  const std::vector<std::string>& set() const { return set_; }

  // Deep equality as DynamoDB compares values (sets compare as sets).
  friend bool operator==(const AttributeValue& a, const AttributeValue& b);

 private:
  static AttributeValue Scalar(ValueType type, std::string s) {
    AttributeValue v;
    v.type_ = type;
    v.scalar_ = std::move(s);
    return v;
  }

  ValueType type_;
  bool boolean_ = false;
  std::string scalar_;
  std::vector<std::string> set_;
  Map map_;
  List list_;
};

// An item: attribute name -> value. Key attributes are ordinary members.
using Item = Map;

}  // namespace ttlstore::model
