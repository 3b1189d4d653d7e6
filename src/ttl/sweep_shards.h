// The TTL sweeper's shards: with several ttlstore processes on one database (issue 34) the
// expiry index is deleted from by all of them together, each deleting the items of the shards
// it holds a lease of (storage/lease_keeper.h, LeaseKeeper::Share; docs/background-jobs.md,
// "TTL sweep"). An item's shard is a hash of its item key, so the items of one expiry wave,
// even of one table and one second, spread evenly over the shards and so over the processes.
//
// The shard is not part of the expiry key: every process reads the whole due range and skips
// the entries of shards it does not hold. Reading an entry costs a small part of deleting its
// item (the item's read, its index entries, its stream record, the commit), so the deletions
// split and the reading repeats; a shard prefix in the key (a format change) would split the
// reading too.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ttlstore::ttl {

inline constexpr int kSweepShards = 16;
inline constexpr char kSweepShardPrefix[] = "ttl/sweep/";
// Every shard, as a mask of bits 0 .. kSweepShards - 1.
inline constexpr uint32_t kAllSweepShards = (1u << kSweepShards) - 1;

// The shard of an item: FNV-1a over its item key, stable across processes and versions, its
// bits mixed at the end (FNV's low bits depend only on the bytes' low bits).
inline int SweepShardOf(std::string_view item_key) {
  uint32_t h = 2166136261u;
  for (unsigned char c : item_key) {
    h ^= c;
    h *= 16777619u;
  }
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  return static_cast<int>(h % kSweepShards);
}

inline std::string SweepShardUnit(int shard) { return kSweepShardPrefix + std::to_string(shard); }

}  // namespace ttlstore::ttl
