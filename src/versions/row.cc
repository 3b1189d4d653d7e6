#include "versions/row.h"

#include <algorithm>
#include <cstring>

#include "common/coding.h"

namespace ttlstore::versions {
namespace {

auto LowerBound(std::vector<Column>& cols, std::string_view name) {
  return std::lower_bound(cols.begin(), cols.end(), name,
                          [](const Column& c, std::string_view n) { return c.name < n; });
}

void PutValue(std::string* out, const model::CellValue& v) {
  out->push_back(static_cast<char>(v.type));
  switch (v.type) {
    case model::CellType::kInteger:
      PutFixed64BE(out, static_cast<uint64_t>(v.integer));
      break;
    case model::CellType::kDouble: {
      uint64_t bits;
      std::memcpy(&bits, &v.dbl, 8);
      PutFixed64BE(out, bits);
      break;
    }
    case model::CellType::kBoolean:
      out->push_back(v.boolean ? 1 : 0);
      break;
    default:
      PutLengthPrefixed(out, v.bytes);
      break;
  }
}

bool GetValue(std::string_view* in, model::CellValue* v) {
  if (in->empty()) return false;
  v->type = static_cast<model::CellType>((*in)[0]);
  in->remove_prefix(1);
  uint64_t bits;
  std::string_view s;
  switch (v->type) {
    case model::CellType::kInteger:
      if (!GetFixed64BE(in, &bits)) return false;
      v->integer = static_cast<int64_t>(bits);
      return true;
    case model::CellType::kDouble:
      if (!GetFixed64BE(in, &bits)) return false;
      std::memcpy(&v->dbl, &bits, 8);
      return true;
    case model::CellType::kBoolean:
      if (in->empty()) return false;
      v->boolean = (*in)[0] != 0;
      in->remove_prefix(1);
      return true;
    case model::CellType::kString:
    case model::CellType::kBlob:
      if (!GetLengthPrefixed(in, &s)) return false;
      v->bytes.assign(s);
      return true;
    default:
      return false;
  }
}

}  // namespace

Column* StoredRow::Find(std::string_view name) {
  auto it = LowerBound(columns, name);
  return it != columns.end() && it->name == name ? &*it : nullptr;
}

const Column* StoredRow::Find(std::string_view name) const {
  return const_cast<StoredRow*>(this)->Find(name);
}

Column& StoredRow::FindOrAdd(std::string_view name) {
  auto it = LowerBound(columns, name);
  if (it != columns.end() && it->name == name) return *it;
  it = columns.insert(it, Column{});
  it->name.assign(name);
  return *it;
}

void StoredRow::DropIfEmpty(std::string_view name) {
  auto it = LowerBound(columns, name);
  if (it != columns.end() && it->name == name && it->versions.empty()) columns.erase(it);
}

void PutVersion(Column& column, int64_t timestamp_ms, model::CellValue value) {
  auto& vs = column.versions;
  auto it = std::lower_bound(vs.begin(), vs.end(), timestamp_ms,
                             [](const Version& v, int64_t ts) { return v.timestamp_ms > ts; });
  if (it != vs.end() && it->timestamp_ms == timestamp_ms) {
    it->value = std::move(value);
  } else {
    vs.insert(it, Version{timestamp_ms, std::move(value)});
  }
}

void DeleteVersion(Column& column, int64_t timestamp_ms) {
  auto& vs = column.versions;
  auto it = std::lower_bound(vs.begin(), vs.end(), timestamp_ms,
                             [](const Version& v, int64_t ts) { return v.timestamp_ms > ts; });
  if (it != vs.end() && it->timestamp_ms == timestamp_ms) vs.erase(it);
}

// Layout: varint column count, then per column: length-prefixed name, varint version count,
// then per version: 8-byte BE timestamp, type byte, payload (8-byte BE integer or double bits,
// one byte boolean, length-prefixed bytes).
std::string EncodeRow(const StoredRow& row) {
  std::string out;
  out.reserve(64);
  PutVarint64(&out, row.columns.size());
  for (const auto& c : row.columns) {
    PutLengthPrefixed(&out, c.name);
    PutVarint64(&out, c.versions.size());
    for (const auto& v : c.versions) {
      PutFixed64BE(&out, static_cast<uint64_t>(v.timestamp_ms));
      PutValue(&out, v.value);
    }
  }
  return out;
}

bool DecodeRow(std::string_view in, StoredRow* row) {
  row->columns.clear();
  uint64_t ncols;
  if (!GetVarint64(&in, &ncols) || ncols > in.size()) return false;
  row->columns.resize(ncols);
  for (auto& c : row->columns) {
    std::string_view name;
    uint64_t nver;
    if (!GetLengthPrefixed(&in, &name) || !GetVarint64(&in, &nver) || nver > in.size()) {
      return false;
    }
    c.name.assign(name);
    c.versions.resize(nver);
    for (auto& v : c.versions) {
      uint64_t ts;
      if (!GetFixed64BE(&in, &ts) || !GetValue(&in, &v.value)) return false;
      v.timestamp_ms = static_cast<int64_t>(ts);
    }
  }
  return in.empty();
}

size_t ValueSize(const model::CellValue& v) {
  switch (v.type) {
    case model::CellType::kInteger:
    case model::CellType::kDouble: return 8;
    case model::CellType::kBoolean: return 1;
    default: return v.bytes.size();
  }
}

}  // namespace ttlstore::versions
