// Shard iterators: opaque strings "<stream arn>|1|<hex payload>" where the payload holds the
// shard number, the position (the last sequence number already read; 0 before the first), the
// time the iterator was issued and a checksum over all of it, so that an edited or truncated
// iterator is refused rather than read from a wrong place.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace ttlstore::streams {

struct ShardIterator {
  std::string stream_arn;
  uint32_t shard_no = 0;
  uint64_t position = 0;
  int64_t issued_ms = 0;
};

std::string EncodeShardIterator(const ShardIterator& it);
// nullopt for a string EncodeShardIterator did not produce.
std::optional<ShardIterator> DecodeShardIterator(const std::string& text);

// FNV-1a 64 of `a` then `b`: catches edits, not an authenticator.
uint64_t Fnv64(std::string_view a, std::string_view b);

}  // namespace ttlstore::streams
