// What store.cc and write_batch.cc share; included by nothing else. The value of a stats-family
// entry (a table's or an index's item count and bytes) is two big-endian int64, which the
// family's merge operator adds: WriteBatch merges deltas into it, Store reads it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <rocksdb/slice.h>

#include "common/coding.h"
#include "storage/store.h"

namespace ttlstore::storage {

inline std::string EncodeStats(int64_t items, int64_t bytes) {
  std::string v;
  PutFixed64BE(&v, static_cast<uint64_t>(items));
  PutFixed64BE(&v, static_cast<uint64_t>(bytes));
  return v;
}

inline bool DecodeStats(std::string_view v, TableStats* s) {
  uint64_t a, b;
  if (!GetFixed64BE(&v, &a) || !GetFixed64BE(&v, &b)) return false;
  s->item_count = static_cast<int64_t>(a);
  s->size_bytes = static_cast<int64_t>(b);
  return true;
}

inline rocksdb::Slice ToSlice(std::string_view s) { return {s.data(), s.size()}; }

}  // namespace ttlstore::storage
