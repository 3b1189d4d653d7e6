#include "model/item_size.h"

#include <algorithm>


namespace ttlstore::model {
namespace {

size_t NumberSize(const std::string& canonical) {
  // Canonical text is always parseable; count its significant digits directly.
  size_t digits = 0;
  size_t first = canonical.find_first_not_of("-0.");
  if (first != std::string::npos) {
    size_t last = canonical.find_last_not_of("0.");
    if (canonical.find('.') == std::string::npos) last = canonical.find_last_not_of('0');
    for (size_t i = first; i <= last; ++i) digits += (canonical[i] >= '0' && canonical[i] <= '9');
  }
  return 1 + (digits + 1) / 2;
}

}  // namespace

size_t ValueSize(const AttributeValue& value) {
  switch (value.type()) {
    case ValueType::kS:
    case ValueType::kB:
      return value.scalar().size();
    case ValueType::kN:
      return NumberSize(value.scalar());
    case ValueType::kBool:
    case ValueType::kNull:
      return 1;
    case ValueType::kM: {
      size_t n = 3;
      for (const auto& [name, v] : value.map()) n += name.size() + ValueSize(v) + 1;
      return n;
    }
    case ValueType::kL: {
      size_t n = 3;
      for (const auto& v : value.list()) n += ValueSize(v) + 1;
      return n;
    }
    case ValueType::kSS:
    case ValueType::kBS: {
      size_t n = 0;
      for (const auto& m : value.set()) n += m.size();
      return n;
    }
    case ValueType::kNS: {
      size_t n = 0;
      for (const auto& m : value.set()) n += NumberSize(m);
      return n;
    }
  }
  return 0;
}

size_t ItemSize(const Item& item) {
  size_t n = 0;
  for (const auto& [name, v] : item) n += name.size() + ValueSize(v);
  return n;
}

}  // namespace ttlstore::model

namespace ttlstore::model {

int NestingDepth(const AttributeValue& value) {
  int deepest = 0;
  if (value.type() == ValueType::kM) {
    for (const auto& [name, v] : value.map()) deepest = std::max(deepest, 1 + NestingDepth(v));
  } else if (value.type() == ValueType::kL) {
    for (const auto& v : value.list()) deepest = std::max(deepest, 1 + NestingDepth(v));
  }
  return deepest;
}

int NestingDepth(const Item& item) {
  int deepest = 0;
  for (const auto& [name, v] : item) deepest = std::max(deepest, NestingDepth(v));
  return deepest;
}

}  // namespace ttlstore::model
