// The search-index change queue: the `search` family's keys (docs/formats.md, "Search queue").
// Every write of a row of a table with search indexes puts one entry in the same WriteBatch as
// the row (ops/row_batch.h), naming the row; search/ consumes the entries, re-reading each
// row's current state, and deletes them once every search index of the table has them.
//
//   key   = table id (4 bytes BE) . sequence (8 bytes BE)
//   value = the row's `rows` key (versions/row_key.h)
//
// One process (RocksDB): sequences come from Store::NextSearchQueueSeq: unique, and rising in
// the order they were handed out, which is not the commit order. The consumer therefore never
// skips an entry by its number: every entry present is unapplied or being applied, and it
// deletes what it applied.
//
// Several processes (a shared store): each table's sequences are numbered at commit from the
// table's head (WriteBatch::PutSequenced), so they rise in commit order and a reader that sees
// one entry sees every smaller one. Every process keeps its own copy of the indexes and a cursor
// per table (all entries up to it applied); entries stay until every live process is past them
// (search/shared_queue.h). The records that arrange this live under table id 0, which no table
// has (table ids start at 1):
//
//   head      0 (4) . 'h' . table id (4 BE) -> last sequence numbered (8 BE)
//   floor     0 (4) . 'f' . table id (4 BE) -> entries up to here are deleted (8 BE)
//   consumer  0 (4) . 'c' . owner           -> expiry ms (8 BE) . count (4 BE) .
//                                              (table id (4 BE) . cursor (8 BE)) * count
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

// Not an entry: a record of table id 0 (below) is not one, whatever its length.
inline bool DecodeSearchQueueKey(std::string_view key, uint32_t* table_id, uint64_t* seq) {
  if (key.size() != 12) return false;
  return GetFixed32BE(&key, table_id) && GetFixed64BE(&key, seq) && *table_id != 0;
}

inline std::string SearchSharedKey(char kind, std::string_view rest) {
  std::string k(4, '\0');
  k.push_back(kind);
  k.append(rest);
  return k;
}
inline std::string SearchTableKey(char kind, uint32_t table_id) {
  std::string id;
  PutFixed32BE(&id, table_id);
  return SearchSharedKey(kind, id);
}
inline std::string SearchQueueHeadKey(uint32_t table_id) { return SearchTableKey('h', table_id); }
inline std::string SearchQueueFloorKey(uint32_t table_id) { return SearchTableKey('f', table_id); }
inline std::string SearchConsumerKey(std::string_view owner) {
  return SearchSharedKey('c', owner);
}
inline std::string SearchConsumersBegin() { return SearchSharedKey('c', ""); }
inline std::string SearchConsumersEnd() { return SearchSharedKey('d', ""); }

// A head's or a floor's value.
inline std::string EncodeSearchSeq(uint64_t seq) {
  std::string v;
  PutFixed64BE(&v, seq);
  return v;
}
inline uint64_t DecodeSearchSeq(std::string_view v) {
  uint64_t seq = 0;
  return GetFixed64BE(&v, &seq) ? seq : 0;
}

}  // namespace ttlstore::storage
