#include "model/item_size.h"

#include <algorithm>
#include <string>
#include <string_view>


namespace ttlstore::model {
namespace {

size_t NumberSize(const std::string& canonical) {
  // Base-100 digits aligned on the decimal point, leading and trailing zero pairs dropped: one
  // byte each, plus one, plus one for a negative number (docs/compatibility.md, "Item size").
  // Canonical text has no exponent, no leading zeros before the point (but "0.x") and no
  // trailing zeros after it.
  std::string_view text(canonical);
  const bool negative = !text.empty() && text[0] == '-';
  if (negative) text.remove_prefix(1);
  const size_t point = text.find('.');
  std::string_view whole = text.substr(0, point);
  std::string_view fraction = point == std::string_view::npos ? "" : text.substr(point + 1);
  while (!whole.empty() && whole[0] == '0') whole.remove_prefix(1);
  while (!fraction.empty() && fraction.back() == '0') fraction.remove_suffix(1);
  if (whole.empty() && fraction.empty()) return 1;  // zero, however written
  // Pairs: the whole part padded on the left, the fraction on the right, to even lengths.
  std::string digits = (whole.size() % 2 ? "0" : "") + std::string(whole) + std::string(fraction) +
                       (fraction.size() % 2 ? "0" : "");
  size_t first = 0, last = digits.size() / 2;  // [first, last) pairs
  auto zero_pair = [&](size_t i) { return digits[2 * i] == '0' && digits[2 * i + 1] == '0'; };
  while (first < last && zero_pair(first)) ++first;
  while (last > first && zero_pair(last - 1)) --last;
  return 1 + (last - first) + (negative ? 1 : 0);
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
