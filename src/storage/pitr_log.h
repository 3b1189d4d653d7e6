// The point-in-time-recovery change log: the `pitr` family (persisted; docs/formats.md).
//
// While a table has PITR enabled, every write to one of its items (PutItem, UpdateItem,
// DeleteItem, batch and transaction writes, TTL deletions, restores into it) adds one record here
// in the same WriteBatch as the item: the item's image BEFORE the write, dated by the write. It
// is an undo log: the table as it was at time T is the table now with, for every item written
// after T, the image recorded by its first write after T (backup/pitr_restore.h).
//
//   key   = table id (4 bytes BE) . time_ms (8 bytes BE) . seq (8 bytes BE) . item key suffix
//   value = 0x00                         the item did not exist before the write
//         | 0x01 . encoded item          its old image (storage/item_codec.h)
//
// The item key suffix is the item's storage key (storage/key_codec.h) without its 4-byte table
// id, which the record key already begins with. Big-endian times sort each table's records by
// time, so trimming the window is one DeleteRange per table; `seq` (a per-process counter started
// from the wall clock in ns) orders two writes of one item within one millisecond, in the order
// their key lock let them commit.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ttlstore::storage {

inline constexpr uint8_t kPitrAbsent = 0x00;
inline constexpr uint8_t kPitrImage = 0x01;

// REQUIRES: item_key is a full item key (it begins with the 4-byte table id).
std::string PitrLogKey(uint32_t table_id, int64_t time_ms, uint64_t seq, std::string_view item_key);
// The first key of `table_id`'s records dated at or after `time_ms` (a range bound).
std::string PitrLogBound(uint32_t table_id, int64_t time_ms);
// [PitrLogTableBegin, PitrLogTableEnd) holds every record of the table.
std::string PitrLogTableBegin(uint32_t table_id);
std::string PitrLogTableEnd(uint32_t table_id);

// `old_encoded_item` null: the write created the item.
std::string EncodePitrValue(const std::string* old_encoded_item);

struct PitrLogRecord {
  uint32_t table_id = 0;
  int64_t time_ms = 0;
  uint64_t seq = 0;
  std::string item_key;                  // the full item key (table id first)
  std::optional<std::string> old_image;  // encoded item, or nullopt: absent before the write
};

// Splits a record; false if the key or value is not one (too short, unknown tag).
bool DecodePitrRecord(std::string_view key, std::string_view value, PitrLogRecord* out);

}  // namespace ttlstore::storage
