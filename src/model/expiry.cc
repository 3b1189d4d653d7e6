#include "model/expiry.h"

#include <cmath>

#include "model/number.h"

namespace ttlstore::model {

std::optional<int64_t> ExpiryDueMs(const Item& item, const std::string& attribute) {
  auto it = item.find(attribute);
  if (it == item.end() || it->second.type() != ValueType::kN) return std::nullopt;
  auto n = Number::Parse(it->second.scalar());
  if (!n || n->IsNegative()) return std::nullopt;
  // Epoch seconds fit a double exactly to well below a millisecond; the clamp keeps absurd
  // values (1e125) representable: they simply never come due.
  double ms = std::floor(n->ToDouble() * 1000.0);
  if (ms >= 9.2e18) return INT64_MAX;
  return static_cast<int64_t>(ms);
}

bool HidesExpired(const TableDescriptor& table) {
  if (!table.ttl_enabled) return false;
  for (const auto& tag : table.tags) {
    if (tag.key == kHideExpiredTag) return tag.value == "true";
  }
  return false;
}

bool IsHiddenExpired(const TableDescriptor& table, const Item& item, int64_t now_ms) {
  if (!HidesExpired(table)) return false;
  std::optional<int64_t> due = ExpiryDueMs(item, table.ttl_attribute);
  return due && IsExpiredAt(*due, now_ms);
}

}  // namespace ttlstore::model
