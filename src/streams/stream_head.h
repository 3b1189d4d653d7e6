// A stream's head on a database several ttlstore processes share: the next sequence number and
// the open shard, kept in one record that every write to the stream locks, reads and rewrites at
// its commit (storage::WriteBatch::PutSequenced). So numbers rise in commit order within the
// stream and none is handed out twice, whichever process writes, and a reader never meets a
// number that a slower writer will commit later below what it has read (docs/formats.md,
// "Stream heads"; docs/storage.md, "Several processes on one database"). Pure functions; no
// storage.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "streams/shard_rollover.h"

namespace ttlstore::streams {

struct StreamHead {
  uint64_t next_seq = 1;  // the number the next record gets
  OpenShard open;         // the shard it goes to, unless it rolls over
};

// 0x05 . table id (4 BE) . stream created ms (8 BE).
std::string HeadKey(uint32_t table_id, int64_t stream_ms);
// The first head key of a table's streams, and the first past them.
std::string HeadKeysBegin(uint32_t table_id);
std::string HeadKeysEnd(uint32_t table_id);
// next seq (8 BE) . open shard no (4 BE) [. first record ms (8 BE)]; never empty.
std::string EncodeHead(const StreamHead& head);
std::optional<StreamHead> DecodeHead(std::string_view value);

}  // namespace ttlstore::streams
