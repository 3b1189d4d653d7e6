#include "streams/shard_rollover.h"

#include "common/coding.h"
#include "streams/stream_record.h"

namespace ttlstore::streams {

bool RollsOver(const OpenShard& open, int64_t now_ms, int64_t period_ms) {
  if (period_ms <= 0 || !open.first_record_ms) return false;
  return now_ms - *open.first_record_ms >= period_ms;
}

std::string ShardStateKey(uint32_t table_id, int64_t stream_ms) {
  std::string key(1, kShardStatePrefix);
  PutFixed32BE(&key, table_id);
  PutFixed64BE(&key, static_cast<uint64_t>(stream_ms));
  return key;
}

std::string EncodeShardState(uint32_t open_shard_no) {
  std::string value;
  PutFixed32BE(&value, open_shard_no);
  return value;
}

std::optional<uint32_t> DecodeShardState(std::string_view value) {
  uint32_t no = 0;
  if (value.size() != 4 || !GetFixed32BE(&value, &no)) return std::nullopt;
  return no;
}

bool ParseShardStateKey(std::string_view key, uint32_t* table_id, int64_t* stream_ms) {
  if (key.size() != 13 || key[0] != kShardStatePrefix) return false;
  key.remove_prefix(1);
  uint64_t ms = 0;
  if (!GetFixed32BE(&key, table_id) || !GetFixed64BE(&key, &ms)) return false;
  *stream_ms = static_cast<int64_t>(ms);
  return true;
}

std::vector<ShardInfo> ChildShards(const std::vector<ShardInfo>& all, uint32_t parent_no) {
  std::vector<ShardInfo> out;
  for (const auto& sh : all) {
    if (sh.shard_no == parent_no + 1) out.push_back(sh);
  }
  return out;
}

bool SequenceInShard(const std::vector<ShardInfo>& all, size_t index, uint64_t seq,
                     uint64_t last_allocated) {
  for (size_t i = 0; i < all.size(); ++i) {
    if (i < index && all[i].last_seq && seq <= *all[i].last_seq) return false;
    if (i > index && all[i].first_seq && seq >= *all[i].first_seq) return false;
  }
  return seq <= last_allocated;
}

}  // namespace ttlstore::streams
