#include "streams/stream_head.h"

#include "common/coding.h"
#include "streams/stream_record.h"

namespace ttlstore::streams {

std::string HeadKey(uint32_t table_id, int64_t stream_ms) {
  std::string key(1, kHeadPrefix);
  PutFixed32BE(&key, table_id);
  PutFixed64BE(&key, static_cast<uint64_t>(stream_ms));
  return key;
}

std::string HeadKeysBegin(uint32_t table_id) {
  std::string key(1, kHeadPrefix);
  PutFixed32BE(&key, table_id);
  return key;
}

std::string HeadKeysEnd(uint32_t table_id) {
  return table_id == UINT32_MAX ? std::string(1, kHeadPrefix + 1) : HeadKeysBegin(table_id + 1);
}

std::string EncodeHead(const StreamHead& head) {
  std::string value;
  PutFixed64BE(&value, head.next_seq);
  PutFixed32BE(&value, head.open.shard_no);
  if (head.open.first_record_ms) {
    PutFixed64BE(&value, static_cast<uint64_t>(*head.open.first_record_ms));
  }
  return value;
}

std::optional<StreamHead> DecodeHead(std::string_view value) {
  StreamHead head;
  if (value.size() != 12 && value.size() != 20) return std::nullopt;
  if (!GetFixed64BE(&value, &head.next_seq) || !GetFixed32BE(&value, &head.open.shard_no)) {
    return std::nullopt;
  }
  if (!value.empty()) {
    uint64_t ms = 0;
    if (!GetFixed64BE(&value, &ms)) return std::nullopt;
    head.open.first_record_ms = static_cast<int64_t>(ms);
  }
  return head;
}

}  // namespace ttlstore::streams
