#include "storage/pitr_log.h"

#include "common/coding.h"

namespace ttlstore::storage {

std::string PitrLogKey(uint32_t table_id, int64_t time_ms, uint64_t seq,
                       std::string_view item_key) {
  std::string key;
  key.reserve(20 + item_key.size());
  PutFixed32BE(&key, table_id);
  PutFixed64BE(&key, static_cast<uint64_t>(time_ms < 0 ? 0 : time_ms));
  PutFixed64BE(&key, seq);
  if (item_key.size() >= 4) key.append(item_key.substr(4));
  return key;
}

std::string PitrLogBound(uint32_t table_id, int64_t time_ms) {
  std::string key;
  PutFixed32BE(&key, table_id);
  PutFixed64BE(&key, static_cast<uint64_t>(time_ms < 0 ? 0 : time_ms));
  return key;
}

std::string PitrLogTableBegin(uint32_t table_id) {
  std::string key;
  PutFixed32BE(&key, table_id);
  return key;
}

std::string PitrLogTableEnd(uint32_t table_id) {
  // Table ids are below 2^32 - 1 (they are allocated from 1 up), so id + 1 never wraps here;
  // the last id would get the empty-upper-bound form.
  if (table_id == UINT32_MAX) return std::string(5, '\xff');
  return PitrLogTableBegin(table_id + 1);
}

std::string EncodePitrValue(const std::string* old_encoded_item) {
  std::string out;
  if (!old_encoded_item) {
    out.push_back(static_cast<char>(kPitrAbsent));
    return out;
  }
  out.reserve(1 + old_encoded_item->size());
  out.push_back(static_cast<char>(kPitrImage));
  out.append(*old_encoded_item);
  return out;
}

bool DecodePitrRecord(std::string_view key, std::string_view value, PitrLogRecord* out) {
  std::string_view table_prefix = key.substr(0, 4);
  uint32_t id;
  uint64_t time, seq;
  if (!GetFixed32BE(&key, &id) || !GetFixed64BE(&key, &time) || !GetFixed64BE(&key, &seq)) {
    return false;
  }
  if (key.empty() || value.empty()) return false;
  out->table_id = id;
  out->time_ms = static_cast<int64_t>(time);
  out->seq = seq;
  out->item_key.assign(table_prefix);
  out->item_key.append(key);
  uint8_t tag = static_cast<uint8_t>(value[0]);
  if (tag == kPitrAbsent && value.size() == 1) {
    out->old_image.reset();
  } else if (tag == kPitrImage && value.size() > 1) {
    out->old_image.emplace(value.substr(1));
  } else {
    return false;
  }
  return true;
}

}  // namespace ttlstore::storage
