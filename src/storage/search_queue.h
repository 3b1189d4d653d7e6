// The search-index change queue: the `search` family's keys (docs/formats.md, "Search queue").
// Every write of a row of a table with search indexes puts one entry in the same WriteBatch as
// the row (ops/row_batch.h), naming the row; search/ consumes the entries, re-reading each
// row's current state, and deletes them once every search index of the table has them.
//
//   key   = table id (4 bytes BE) . sequence (8 bytes BE)
//   value = the row's `rows` key (versions/row_key.h)
//
// Sequences come from Store::NextSearchQueueSeq: unique, and rising in the order they were
// handed out, which is not the commit order. The consumer therefore never skips an entry by its
// number: every entry present is unapplied or being applied.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/coding.h"

namespace ttlstore::storage {

inline std::string SearchQueueKey(uint32_t table_id, uint64_t seq) {
  std::string k;
  PutFixed32BE(&k, table_id);
  PutFixed64BE(&k, seq);
  return k;
}

// [begin, end) of one table's queue.
inline std::string SearchQueueBegin(uint32_t table_id) {
  std::string k;
  PutFixed32BE(&k, table_id);
  return k;
}
inline std::string SearchQueueEnd(uint32_t table_id) {
  std::string k;
  PutFixed32BE(&k, table_id);
  PutFixed64BE(&k, UINT64_MAX);
  k.push_back('\0');
  return k;
}

inline bool DecodeSearchQueueKey(std::string_view key, uint32_t* table_id, uint64_t* seq) {
  if (key.size() != 12) return false;
  return GetFixed32BE(&key, table_id) && GetFixed64BE(&key, seq);
}

}  // namespace ttlstore::storage
