// Keys of the `expiry` family (persisted; docs/formats.md):
//   due_ms (8 bytes BE, milliseconds since the epoch, >= 0) . item key
// Big-endian due times sort the index by expiry, so "everything due by now" is one range scan
// from the start; the item key (table id first) makes entries unique and names the item.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/coding.h"

namespace ttlstore::storage {

inline std::string ExpiryKey(int64_t due_ms, std::string_view item_key) {
  std::string key;
  key.reserve(8 + item_key.size());
  PutFixed64BE(&key, static_cast<uint64_t>(due_ms));
  key.append(item_key);
  return key;
}

// Splits an expiry key; false if it is too short to be one.
inline bool ParseExpiryKey(std::string_view key, int64_t* due_ms, std::string_view* item_key) {
  uint64_t due;
  if (!GetFixed64BE(&key, &due)) return false;
  *due_ms = static_cast<int64_t>(due);
  *item_key = key;
  return true;
}

}  // namespace ttlstore::storage
