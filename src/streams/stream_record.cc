#include "streams/stream_record.h"

#include "common/coding.h"
#include "storage/item_codec.h"

namespace ttlstore::streams {
namespace {

constexpr char kFormat = 0x01;
constexpr uint8_t kFlagService = 1, kFlagNew = 2, kFlagOld = 4;

}  // namespace

std::string StreamPrefix(uint32_t table_id, int64_t stream_ms) {
  std::string k(1, kRecordPrefix);
  PutFixed32BE(&k, table_id);
  PutFixed64BE(&k, static_cast<uint64_t>(stream_ms));
  return k;
}

std::string ShardPrefix(uint32_t table_id, int64_t stream_ms, uint32_t shard_no) {
  std::string k = StreamPrefix(table_id, stream_ms);
  PutFixed32BE(&k, shard_no);
  return k;
}

std::string RecordKey(uint32_t table_id, int64_t stream_ms, uint32_t shard_no, uint64_t seq) {
  std::string k = ShardPrefix(table_id, stream_ms, shard_no);
  PutFixed64BE(&k, seq);
  return k;
}

std::string PrefixEnd(std::string prefix) {
  while (!prefix.empty() && static_cast<uint8_t>(prefix.back()) == 0xff) prefix.pop_back();
  if (!prefix.empty()) prefix.back() = static_cast<char>(static_cast<uint8_t>(prefix.back()) + 1);
  return prefix;
}

bool ParseRecordKey(std::string_view key, uint32_t* table_id, int64_t* stream_ms,
                    uint32_t* shard_no, uint64_t* seq) {
  if (key.size() != 25 || key[0] != kRecordPrefix) return false;
  key.remove_prefix(1);
  uint64_t ms = 0;
  bool ok = GetFixed32BE(&key, table_id) && GetFixed64BE(&key, &ms) &&
            GetFixed32BE(&key, shard_no) && GetFixed64BE(&key, seq);
  *stream_ms = static_cast<int64_t>(ms);
  return ok;
}

std::string EncodeRecord(const StreamRecord& r) {
  std::string out;
  out.push_back(kFormat);
  out.push_back(static_cast<char>(r.event));
  uint8_t flags = (r.service ? kFlagService : 0) | (r.new_image ? kFlagNew : 0) |
                  (r.old_image ? kFlagOld : 0);
  out.push_back(static_cast<char>(flags));
  out.push_back(static_cast<char>(r.view_type));
  PutVarint64(&out, static_cast<uint64_t>(r.created_ms));
  PutVarint64(&out, r.size_bytes);
  PutLengthPrefixed(&out, storage::EncodeItem(r.keys));
  if (r.new_image) PutLengthPrefixed(&out, storage::EncodeItem(*r.new_image));
  if (r.old_image) PutLengthPrefixed(&out, storage::EncodeItem(*r.old_image));
  return out;
}

std::optional<int64_t> RecordCreatedMs(std::string_view in) {
  // Tablestore row records (streams/row_record.h, format 0x02) keep the time at the same place.
  if (in.size() < 4 || (in[0] != kFormat && in[0] != 0x02)) return std::nullopt;
  in.remove_prefix(4);
  uint64_t ms = 0;
  if (!GetVarint64(&in, &ms)) return std::nullopt;
  return static_cast<int64_t>(ms);
}

std::optional<StreamRecord> DecodeRecord(std::string_view in) {
  if (in.size() < 4 || in[0] != kFormat) return std::nullopt;
  StreamRecord r;
  uint8_t event = static_cast<uint8_t>(in[1]);
  if (event < 1 || event > 3) return std::nullopt;
  r.event = static_cast<EventName>(event);
  uint8_t flags = static_cast<uint8_t>(in[2]);
  r.service = flags & kFlagService;
  uint8_t view = static_cast<uint8_t>(in[3]);
  if (view > 3) return std::nullopt;
  r.view_type = static_cast<model::StreamViewType>(view);
  in.remove_prefix(4);
  uint64_t ms = 0;
  std::string_view bytes;
  if (!GetVarint64(&in, &ms) || !GetVarint64(&in, &r.size_bytes)) return std::nullopt;
  r.created_ms = static_cast<int64_t>(ms);
  auto item = [&](std::optional<model::Item>* out) {
    if (!GetLengthPrefixed(&in, &bytes)) return false;
    *out = storage::DecodeItem(bytes);
    return out->has_value();
  };
  std::optional<model::Item> keys;
  if (!item(&keys)) return std::nullopt;
  r.keys = std::move(*keys);
  if ((flags & kFlagNew) && !item(&r.new_image)) return std::nullopt;
  if ((flags & kFlagOld) && !item(&r.old_image)) return std::nullopt;
  if (!in.empty()) return std::nullopt;
  return r;
}

std::string DroppedKey(uint32_t table_id, int64_t stream_ms) {
  std::string k(1, kDroppedPrefix);
  PutFixed32BE(&k, table_id);
  PutFixed64BE(&k, static_cast<uint64_t>(stream_ms));
  return k;
}

namespace {

void PutElement(std::string* out, const model::KeyElement& e) {
  std::string p(1, static_cast<char>(e.type));
  p += e.name;
  PutLengthPrefixed(out, p);
}

bool GetElement(std::string_view* in, model::KeyElement* e) {
  std::string_view p;
  if (!GetLengthPrefixed(in, &p) || p.empty()) return false;
  e->type = static_cast<model::ValueType>(p[0]);
  e->name.assign(p.substr(1));
  return true;
}

}  // namespace

// name . view type (varint) . disabled ms (varint) . hash key . [range key]
std::string EncodeDropped(const DroppedStream& d) {
  std::string out;
  PutLengthPrefixed(&out, d.table_name);
  PutVarint64(&out, static_cast<uint64_t>(d.info.view_type));
  PutVarint64(&out, static_cast<uint64_t>(d.info.disabled_ms));
  PutElement(&out, d.key.hash);
  if (d.key.range) PutElement(&out, *d.key.range);
  return out;
}

std::optional<DroppedStream> DecodeDropped(std::string_view key, std::string_view in) {
  DroppedStream d;
  uint64_t ms = 0, view = 0, disabled = 0;
  if (key.size() != 13 || key[0] != kDroppedPrefix) return std::nullopt;
  key.remove_prefix(1);
  if (!GetFixed32BE(&key, &d.table_id) || !GetFixed64BE(&key, &ms)) return std::nullopt;
  d.info.created_ms = static_cast<int64_t>(ms);
  std::string_view name;
  if (!GetLengthPrefixed(&in, &name) || !GetVarint64(&in, &view) ||
      !GetVarint64(&in, &disabled) || view > 3 || !GetElement(&in, &d.key.hash)) {
    return std::nullopt;
  }
  d.table_name.assign(name);
  d.info.view_type = static_cast<model::StreamViewType>(view);
  d.info.disabled_ms = static_cast<int64_t>(disabled);
  if (!in.empty() && !GetElement(&in, &d.key.range.emplace())) return std::nullopt;
  return d;
}

}  // namespace ttlstore::streams
