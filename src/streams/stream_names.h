// The names the Streams API shows for stream things, and their parsing: stream labels
// ("2026-11-22T07:40:12.345"), sequence numbers (21-digit decimals) and shard ids
// ("shardId-00000001795335014523-00000000"). Pure functions; no storage.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ttlstore::streams {

// Records (and disabled streams) are kept this long, as in DynamoDB.
inline constexpr int64_t kRetentionMs = 24LL * 3600 * 1000;
// A shard iterator is valid this long after GetShardIterator / GetRecords returned it.
inline constexpr int64_t kIteratorLifetimeMs = 15LL * 60 * 1000;

// ISO-8601 UTC with milliseconds, no zone suffix: the stream label DynamoDB uses.
std::string StreamLabel(int64_t ms);
// The inverse; nullopt unless `label` is exactly in StreamLabel's form.
std::optional<int64_t> ParseStreamLabel(std::string_view label);

// Sequence numbers: at least 21 decimal digits, zero-padded, so that they sort as strings too.
std::string SequenceNumberText(uint64_t seq);
// nullopt unless `text` is 1-40 decimal digits whose value fits in 64 bits.
std::optional<uint64_t> ParseSequenceNumber(std::string_view text);

// A shard of a stream: "shardId-" . stream creation ms (20 digits) . "-" . shard number (8 hex).
std::string ShardIdText(int64_t stream_created_ms, uint32_t shard_no);
// The shard number, if `text` is a shard id of the stream created at `stream_created_ms`.
std::optional<uint32_t> ParseShardId(std::string_view text, int64_t stream_created_ms);

}  // namespace ttlstore::streams
