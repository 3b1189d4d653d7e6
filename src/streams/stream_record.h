// One stream record (what a write looks like to a stream reader) and its persisted encoding, and
// the key layout of the `streams` family (docs/formats.md, "Streams").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "model/attribute_value.h"
#include "model/table.h"

namespace ttlstore::streams {

enum class EventName : uint8_t { kInsert = 1, kModify = 2, kRemove = 3 };  // persisted

struct StreamRecord {
  uint64_t seq = 0;  // from the key
  EventName event = EventName::kInsert;
  // A deletion made by the service (TTL expiry), not by a user request (D7).
  bool service = false;
  model::StreamViewType view_type = model::StreamViewType::kKeysOnly;
  int64_t created_ms = 0;
  uint64_t size_bytes = 0;
  model::Item keys;
  std::optional<model::Item> new_image;
  std::optional<model::Item> old_image;
};

// Key prefixes of the family.
inline constexpr char kRecordPrefix = 0x01;   // . table id . stream ms . shard no . seq
inline constexpr char kDroppedPrefix = 0x02;  // . table id . stream ms -> DroppedStream
inline constexpr char kSeqFloorKey[] = "\x03";  // -> 8 bytes BE: no sequence number <= it is reused
inline constexpr char kShardStatePrefix = 0x04;  // . table id . stream ms -> open shard no
// . table id . stream ms -> StreamHead (streams/stream_head.h), on a database shared by processes
inline constexpr char kHeadPrefix = 0x05;

// 0x01 . table id (4 BE) . stream created ms (8 BE): every record of one stream.
std::string StreamPrefix(uint32_t table_id, int64_t stream_ms);
// StreamPrefix . shard no (4 BE): every record of one shard.
std::string ShardPrefix(uint32_t table_id, int64_t stream_ms, uint32_t shard_no);
// ShardPrefix . seq (8 BE).
std::string RecordKey(uint32_t table_id, int64_t stream_ms, uint32_t shard_no, uint64_t seq);
// The smallest string greater than every string starting with `prefix`.
std::string PrefixEnd(std::string prefix);
// Splits a record key. False for keys of another form.
bool ParseRecordKey(std::string_view key, uint32_t* table_id, int64_t* stream_ms,
                    uint32_t* shard_no, uint64_t* seq);

std::string EncodeRecord(const StreamRecord& record);
// nullopt for bytes EncodeRecord did not produce. `seq` is set by the caller from the key.
std::optional<StreamRecord> DecodeRecord(std::string_view bytes);
// Only the creation time (without decoding the images), of this format or a Tablestore row
// record's (streams/row_record.h).
std::optional<int64_t> RecordCreatedMs(std::string_view bytes);

// What is left of a dropped table's stream (DescribeStream still answers for 24 hours).
struct DroppedStream {
  uint32_t table_id = 0;
  std::string table_name;
  model::KeySchema key;
  model::StreamInfo info;
};
std::string DroppedKey(uint32_t table_id, int64_t stream_ms);
std::string EncodeDropped(const DroppedStream& d);
std::optional<DroppedStream> DecodeDropped(std::string_view key, std::string_view value);

}  // namespace ttlstore::streams
