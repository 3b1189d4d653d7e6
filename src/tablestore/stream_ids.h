// The names and messages of the Tablestore stream API (tablestore/stream_handlers.cc): stream ids
// and the texts of its refusals. Pure functions; no storage.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ttlstore::tablestore {

// A stream id: "<table name>_<time the stream was enabled, ms>". Opaque to clients; a table
// name cannot hold anything but letters, digits and underscores, so the last '_' splits it.
std::string StreamIdText(std::string_view table_name, int64_t created_ms);

struct StreamIdParts {
  std::string table_name;
  int64_t created_ms = 0;
};
// nullopt unless `id` is in StreamIdText's form.
std::optional<StreamIdParts> ParseStreamId(std::string_view id);

// GetStreamRecord refuses the iterators of a stream whose table name is longer than this, as the
// service does (the Java SDK's APITest.testStreamWithLongTableName: 238 reads, 239 to 255 are
// "Invalid stream id"); its other stream calls serve such a table.
inline constexpr size_t kMaxStreamRecordTableNameBytes = 238;

// GetStreamRecord returns at most this many records (its `limit` may not exceed it).
inline constexpr int32_t kMaxStreamRecordLimit = 1000;

// Messages (ours: the service's texts are not published). 404 OTSObjectNotExist:
inline constexpr std::string_view kStreamNotExistMessage = "Stream does not exist.";
inline constexpr std::string_view kShardNotExistMessage = "Shard does not exist.";
// 400 OTSParameterInvalid:
inline constexpr std::string_view kInvalidIteratorMessage = "Invalid shard iterator.";
// 400 OTSTrimmedDataAccess:
inline constexpr std::string_view kTrimmedMessage =
    "The shard iterator points to stream records that have expired and been trimmed.";

}  // namespace ttlstore::tablestore
