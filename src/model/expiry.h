// The item-expiry rule of the DynamoDB model (rules D2-D4 of shared/spec/semantics.md), as pure
// functions of an item and a clock reading:
//   - only a Number attribute counts; any other type, or no attribute, never expires (D2);
//   - the Number is epoch seconds, fractions and exponents allowed; the item is expired once
//     now > value (D3);
//   - a value more than five years in the past never expires: it is a malformed value, not a
//     wish to delete at once (D4).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "model/attribute_value.h"
#include "model/table.h"

namespace ttlstore::model {

// Five years, the look-back beyond which a TTL value is ignored (D4), in milliseconds.
inline constexpr int64_t kMaxTtlPastMs = int64_t{5} * 365 * 24 * 3600 * 1000;

// A TTL value at or above this many seconds (year ~5138) is almost surely milliseconds — the most
// common TTL mistake; such items never expire in practice. Used for a warning metric.
inline constexpr double kMillisecondsLikeSeconds = 1e11;

// The instant the item expires after, in milliseconds since the epoch: floor(value * 1000) of its
// `attribute`, or nullopt when the attribute is absent or not a Number, or negative.
// "Expired" is then: now_ms > due_ms.
std::optional<int64_t> ExpiryDueMs(const Item& item, const std::string& attribute);

// True if an item due at `due_ms` is expired at `now_ms` and the value is not more than five
// years in the past.
inline bool IsExpiredAt(int64_t due_ms, int64_t now_ms) {
  return now_ms > due_ms && due_ms >= now_ms - kMaxTtlPastMs;
}

// True if a value due at `due_ms` is too far in the past ever to expire (D4).
inline bool IsTooOldToExpire(int64_t due_ms, int64_t now_ms) {
  return due_ms < now_ms - kMaxTtlPastMs;
}

// The reserved table tag that opts a table into read-time hiding of expired items (D9, ours):
// with `ttlstore:hide-expired` = `true`, reads treat an expired item as absent even before the
// sweeper deletes it. Set it with TagResource; remove it with UntagResource.
inline constexpr char kHideExpiredTag[] = "ttlstore:hide-expired";

// The reserved CreateTable tag that declares TTL at creation (D14, like an infrastructure
// template's TimeToLiveSpecification): `ttlstore:ttl-attribute` = the attribute name. It enables
// TTL on that attribute and is not kept as a tag.
inline constexpr char kTtlAttributeTag[] = "ttlstore:ttl-attribute";

// True if `table` has TTL enabled and the hide-expired tag set to "true".
bool HidesExpired(const TableDescriptor& table);

// True if reads of `table` at `now_ms` must not see `item`: hiding is on and the item is expired.
bool IsHiddenExpired(const TableDescriptor& table, const Item& item, int64_t now_ms);

}  // namespace ttlstore::model
