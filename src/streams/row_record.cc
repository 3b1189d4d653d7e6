#include "streams/row_record.h"

#include <cstring>

#include "common/coding.h"
#include "streams/stream_names.h"
#include "streams/stream_record.h"

namespace ttlstore::streams {
namespace {

void PutValue(std::string* out, const model::CellValue& v) {
  out->push_back(static_cast<char>(v.type));
  switch (v.type) {
    case model::CellType::kInteger: PutFixed64BE(out, static_cast<uint64_t>(v.integer)); break;
    case model::CellType::kDouble: {
      uint64_t bits;
      std::memcpy(&bits, &v.dbl, sizeof bits);
      PutFixed64BE(out, bits);
      break;
    }
    case model::CellType::kBoolean: out->push_back(v.boolean ? 1 : 0); break;
    case model::CellType::kString:
    case model::CellType::kBlob: PutLengthPrefixed(out, v.bytes); break;
    default: break;
  }
}

bool GetValue(std::string_view* in, model::CellValue* v) {
  if (in->empty()) return false;
  auto type = static_cast<model::CellType>((*in)[0]);
  in->remove_prefix(1);
  v->type = type;
  uint64_t bits = 0;
  std::string_view bytes;
  switch (type) {
    case model::CellType::kInteger:
      if (!GetFixed64BE(in, &bits)) return false;
      v->integer = static_cast<int64_t>(bits);
      return true;
    case model::CellType::kDouble:
      if (!GetFixed64BE(in, &bits)) return false;
      std::memcpy(&v->dbl, &bits, sizeof bits);
      return true;
    case model::CellType::kBoolean:
      if (in->empty() || static_cast<uint8_t>((*in)[0]) > 1) return false;
      v->boolean = (*in)[0] == 1;
      in->remove_prefix(1);
      return true;
    case model::CellType::kString:
    case model::CellType::kBlob:
      if (!GetLengthPrefixed(in, &bytes)) return false;
      v->bytes.assign(bytes);
      return true;
    default:
      return false;  // bound markers are never stored
  }
}

constexpr uint8_t kHasValue = 1, kHasTimestamp = 2;

void PutColumns(std::string* out, const std::vector<RecordColumn>& columns) {
  PutVarint64(out, columns.size());
  for (const auto& c : columns) {
    out->push_back(static_cast<char>(c.op));
    PutLengthPrefixed(out, c.name);
    out->push_back(
        static_cast<char>((c.value ? kHasValue : 0) | (c.timestamp_ms ? kHasTimestamp : 0)));
    if (c.value) PutValue(out, *c.value);
    if (c.timestamp_ms) PutVarint64(out, static_cast<uint64_t>(*c.timestamp_ms));
  }
}

bool GetColumns(std::string_view* in, std::vector<RecordColumn>* columns) {
  uint64_t n = 0;
  // Each column takes at least 3 bytes: the count cannot exceed what is left.
  if (!GetVarint64(in, &n) || n > in->size()) return false;
  std::string_view name;
  for (uint64_t i = 0; i < n; ++i) {
    RecordColumn c;
    if (in->empty()) return false;
    uint8_t op = static_cast<uint8_t>((*in)[0]);
    if (op != 0 && op != 1 && op != 3) return false;
    c.op = static_cast<ColumnOp>(op);
    in->remove_prefix(1);
    if (!GetLengthPrefixed(in, &name) || in->empty()) return false;
    c.name.assign(name);
    uint8_t flags = static_cast<uint8_t>((*in)[0]);
    in->remove_prefix(1);
    if (flags & ~(kHasValue | kHasTimestamp)) return false;
    if (flags & kHasValue) {
      if (!GetValue(in, &c.value.emplace())) return false;
    }
    if (flags & kHasTimestamp) {
      uint64_t ts = 0;
      if (!GetVarint64(in, &ts)) return false;
      c.timestamp_ms = static_cast<int64_t>(ts);
    }
    columns->push_back(std::move(c));
  }
  return true;
}

}  // namespace

std::string EncodeRowRecord(const RowRecord& r) {
  std::string out;
  out.push_back(kRowRecordFormat);
  out.push_back(static_cast<char>(r.action));
  out.push_back(0);  // reserved: keeps the creation time where RecordCreatedMs reads it
  out.push_back(0);
  PutVarint64(&out, static_cast<uint64_t>(r.created_ms));
  PutVarint64(&out, static_cast<uint64_t>(r.expires_ms));
  PutVarint64(&out, r.primary_key.size());
  for (const auto& [name, value] : r.primary_key) {
    PutLengthPrefixed(&out, name);
    PutValue(&out, value);
  }
  PutColumns(&out, r.columns);
  // The origin columns, only when there are some: records without them keep the format they
  // had before origin columns existed.
  if (!r.origin.empty()) PutColumns(&out, r.origin);
  return out;
}

std::optional<RowRecord> DecodeRowRecord(std::string_view in) {
  if (in.size() < 4 || in[0] != kRowRecordFormat) return std::nullopt;
  RowRecord r;
  uint8_t action = static_cast<uint8_t>(in[1]);
  if (action < 1 || action > 3) return std::nullopt;
  r.action = static_cast<RowAction>(action);
  in.remove_prefix(4);
  uint64_t created = 0, expires = 0, n = 0;
  if (!GetVarint64(&in, &created) || !GetVarint64(&in, &expires)) return std::nullopt;
  r.created_ms = static_cast<int64_t>(created);
  r.expires_ms = static_cast<int64_t>(expires);
  std::string_view name;
  if (!GetVarint64(&in, &n) || n > in.size()) return std::nullopt;
  for (uint64_t i = 0; i < n; ++i) {
    model::CellValue v;
    if (!GetLengthPrefixed(&in, &name) || !GetValue(&in, &v)) return std::nullopt;
    r.primary_key.emplace_back(std::string(name), std::move(v));
  }
  if (!GetColumns(&in, &r.columns)) return std::nullopt;
  if (!in.empty() && (!GetColumns(&in, &r.origin) || r.origin.empty())) return std::nullopt;
  if (!in.empty()) return std::nullopt;
  return r;
}

std::optional<int64_t> RecordExpiresMs(std::string_view bytes) {
  if (bytes.empty()) return std::nullopt;
  if (bytes[0] != kRowRecordFormat) {
    std::optional<int64_t> created = RecordCreatedMs(bytes);
    if (!created) return std::nullopt;
    return *created + kRetentionMs;
  }
  if (bytes.size() < 4) return std::nullopt;
  bytes.remove_prefix(4);
  uint64_t created = 0, expires = 0;
  if (!GetVarint64(&bytes, &created) || !GetVarint64(&bytes, &expires)) return std::nullopt;
  return static_cast<int64_t>(expires);
}

}  // namespace ttlstore::streams
