#include "tablestore/plainbuffer.h"

#include <array>
#include <cassert>
#include <cstring>

namespace ttlstore::tablestore {
namespace {

constexpr uint32_t kHeader = 0x75;
enum Tag : uint8_t {
  kRowPk = 0x01,
  kRowData = 0x02,
  kCell = 0x03,
  kCellName = 0x04,
  kCellValue = 0x05,
  kCellType = 0x06,
  kCellTimestamp = 0x07,
  kDeleteMarker = 0x08,
  kRowChecksum = 0x09,
  kCellChecksum = 0x0A,
};

constexpr std::array<uint8_t, 256> MakeCrcTable() {
  std::array<uint8_t, 256> t{};
  for (int i = 0; i < 256; ++i) {
    uint8_t c = static_cast<uint8_t>(i);
    for (int b = 0; b < 8; ++b) c = (c & 0x80) ? static_cast<uint8_t>((c << 1) ^ 0x07) : c << 1;
    t[i] = c;
  }
  return t;
}
constexpr std::array<uint8_t, 256> kCrcTable = MakeCrcTable();

uint8_t CrcByte(uint8_t crc, uint8_t b) { return kCrcTable[crc ^ b]; }
uint8_t CrcU32(uint8_t crc, uint32_t v) {
  for (int i = 0; i < 4; ++i) crc = CrcByte(crc, static_cast<uint8_t>(v >> (8 * i)));
  return crc;
}
uint8_t CrcU64(uint8_t crc, uint64_t v) {
  for (int i = 0; i < 8; ++i) crc = CrcByte(crc, static_cast<uint8_t>(v >> (8 * i)));
  return crc;
}

Error Invalid(const std::string& what) {
  return Error::Validation("Invalid PlainBuffer: " + what + ".");
}

class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  bool empty() const { return pos_ >= in_.size(); }
  size_t remaining() const { return in_.size() - pos_; }
  bool Peek(uint8_t* b) const {
    if (empty()) return false;
    *b = static_cast<uint8_t>(in_[pos_]);
    return true;
  }
  bool U8(uint8_t* b) {
    if (!Peek(b)) return false;
    ++pos_;
    return true;
  }
  bool U32(uint32_t* v) {
    if (remaining() < 4) return false;
    *v = 0;
    for (int i = 0; i < 4; ++i) *v |= uint32_t(static_cast<uint8_t>(in_[pos_ + i])) << (8 * i);
    pos_ += 4;
    return true;
  }
  bool U64(uint64_t* v) {
    if (remaining() < 8) return false;
    *v = 0;
    for (int i = 0; i < 8; ++i) *v |= uint64_t(static_cast<uint8_t>(in_[pos_ + i])) << (8 * i);
    pos_ += 8;
    return true;
  }
  bool Bytes(size_t n, std::string_view* out) {
    if (remaining() < n) return false;
    *out = in_.substr(pos_, n);
    pos_ += n;
    return true;
  }
  // True if everything left is zero bytes.
  bool OnlyZerosLeft() const {
    for (size_t i = pos_; i < in_.size(); ++i) {
      if (in_[i] != 0) return false;
    }
    return true;
  }

 private:
  std::string_view in_;
  size_t pos_ = 0;
};

// Decodes a value payload (type byte + payload) of exactly `bytes`.
Result<model::CellValue> ParseValue(std::string_view bytes) {
  Reader r(bytes);
  uint8_t type;
  if (!r.U8(&type)) return Invalid("empty value");
  model::CellValue v;
  v.type = static_cast<model::CellType>(type);
  uint64_t u64;
  uint32_t len;
  std::string_view s;
  switch (v.type) {
    case model::CellType::kInteger:
      if (!r.U64(&u64)) return Invalid("truncated integer");
      v.integer = static_cast<int64_t>(u64);
      break;
    case model::CellType::kDouble:
      if (!r.U64(&u64)) return Invalid("truncated double");
      std::memcpy(&v.dbl, &u64, 8);
      break;
    case model::CellType::kBoolean: {
      uint8_t b;
      if (!r.U8(&b)) return Invalid("truncated boolean");
      v.boolean = b != 0;
      break;
    }
    case model::CellType::kString:
    case model::CellType::kBlob:
      if (!r.U32(&len) || !r.Bytes(len, &s)) return Invalid("truncated string");
      v.bytes.assign(s);
      break;
    case model::CellType::kInfMin:
    case model::CellType::kInfMax:
    case model::CellType::kAutoIncrement:
      break;
    default:
      return Invalid("unknown value type " + std::to_string(type));
  }
  if (!r.empty()) return Invalid("value longer than its type");
  return v;
}

uint8_t CrcValue(uint8_t crc, const model::CellValue& v) {
  crc = CrcByte(crc, static_cast<uint8_t>(v.type));
  switch (v.type) {
    case model::CellType::kInteger: return CrcU64(crc, static_cast<uint64_t>(v.integer));
    case model::CellType::kDouble: {
      uint64_t bits;
      std::memcpy(&bits, &v.dbl, 8);
      return CrcU64(crc, bits);
    }
    case model::CellType::kBoolean: return CrcByte(crc, v.boolean ? 1 : 0);
    case model::CellType::kString:
    case model::CellType::kBlob:
      crc = CrcU32(crc, static_cast<uint32_t>(v.bytes.size()));
      return Crc8(crc, v.bytes);
    default: return crc;
  }
}

// The cell checksum: name, value (type + payload), timestamp, then op (not the wire order).
uint8_t CellCrc(const PbCell& c) {
  uint8_t crc = Crc8(0, c.name);
  if (c.value) crc = CrcValue(crc, *c.value);
  if (c.timestamp) crc = CrcU64(crc, static_cast<uint64_t>(*c.timestamp));
  if (c.op != CellOp::kNone) crc = CrcByte(crc, static_cast<uint8_t>(c.op));
  return crc;
}

Result<PbCell> ParseCell(Reader& r) {
  PbCell c;
  uint8_t tag;
  uint32_t len;
  std::string_view s;
  if (!r.U8(&tag) || tag != kCellName) return Invalid("cell without a name");
  if (!r.U32(&len) || !r.Bytes(len, &s)) return Invalid("truncated cell name");
  c.name.assign(s);
  if (!r.Peek(&tag)) return Invalid("truncated cell");
  if (tag == kCellValue) {
    r.U8(&tag);
    if (!r.U32(&len) || len == 0 || !r.Bytes(len, &s)) return Invalid("truncated cell value");
    auto v = ParseValue(s);
    if (!v) return v.error();
    c.value = std::move(*v);
    if (!r.Peek(&tag)) return Invalid("truncated cell");
  }
  if (tag == kCellType) {
    r.U8(&tag);
    uint8_t op;
    if (!r.U8(&op)) return Invalid("truncated cell type");
    if (op != 1 && op != 3 && op != 4) return Invalid("unknown cell type " + std::to_string(op));
    c.op = static_cast<CellOp>(op);
    if (!r.Peek(&tag)) return Invalid("truncated cell");
  }
  if (tag == kCellTimestamp) {
    r.U8(&tag);
    uint64_t ts;
    if (!r.U64(&ts)) return Invalid("truncated cell timestamp");
    c.timestamp = static_cast<int64_t>(ts);
  }
  uint8_t crc;
  if (!r.U8(&tag) || tag != kCellChecksum || !r.U8(&crc)) {
    return Invalid("cell without a checksum");
  }
  if (crc != CellCrc(c)) return Invalid("cell checksum mismatch in cell " + c.name);
  return c;
}

Result<PbRow> ParseRow(Reader& r) {
  PbRow row;
  uint8_t tag, row_crc = 0;
  if (!r.Peek(&tag)) return Invalid("empty row");
  if (tag == kRowPk) {
    r.U8(&tag);
    while (r.Peek(&tag) && tag == kCell) {
      r.U8(&tag);
      auto c = ParseCell(r);
      if (!c) return c.error();
      row_crc = CrcByte(row_crc, CellCrc(*c));
      row.primary_key.push_back(std::move(*c));
    }
  }
  if (r.Peek(&tag) && tag == kRowData) {
    r.U8(&tag);
    while (r.Peek(&tag) && tag == kCell) {
      r.U8(&tag);
      auto c = ParseCell(r);
      if (!c) return c.error();
      row_crc = CrcByte(row_crc, CellCrc(*c));
      row.attributes.push_back(std::move(*c));
    }
  }
  if (r.Peek(&tag) && tag == kDeleteMarker) {
    r.U8(&tag);
    row.delete_marker = true;
  }
  row_crc = CrcByte(row_crc, row.delete_marker ? 1 : 0);
  uint8_t crc;
  if (!r.U8(&tag) || tag != kRowChecksum || !r.U8(&crc)) return Invalid("row without a checksum");
  if (crc != row_crc) return Invalid("row checksum mismatch");
  return row;
}

void PutU32(std::string* out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>(v >> (8 * i)));
}
void PutU64(std::string* out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>(v >> (8 * i)));
}

void AppendValue(std::string* out, const model::CellValue& v) {
  out->push_back(static_cast<char>(v.type));
  switch (v.type) {
    case model::CellType::kInteger: PutU64(out, static_cast<uint64_t>(v.integer)); break;
    case model::CellType::kDouble: {
      uint64_t bits;
      std::memcpy(&bits, &v.dbl, 8);
      PutU64(out, bits);
      break;
    }
    case model::CellType::kBoolean: out->push_back(v.boolean ? 1 : 0); break;
    case model::CellType::kString:
    case model::CellType::kBlob:
      PutU32(out, static_cast<uint32_t>(v.bytes.size()));
      out->append(v.bytes);
      break;
    default: break;
  }
}

size_t PayloadSize(const model::CellValue& v) {
  switch (v.type) {
    case model::CellType::kInteger:
    case model::CellType::kDouble: return 8;
    case model::CellType::kBoolean: return 1;
    case model::CellType::kString:
    case model::CellType::kBlob: return 4 + v.bytes.size();
    default: return 0;
  }
}

void AppendCell(std::string* out, const PbCell& c) {
  assert(c.op == CellOp::kNone);
  out->push_back(kCell);
  out->push_back(kCellName);
  PutU32(out, static_cast<uint32_t>(c.name.size()));
  out->append(c.name);
  if (c.value) {
    out->push_back(kCellValue);
    PutU32(out, static_cast<uint32_t>(1 + PayloadSize(*c.value)));
    AppendValue(out, *c.value);
  }
  if (c.timestamp) {
    out->push_back(kCellTimestamp);
    PutU64(out, static_cast<uint64_t>(*c.timestamp));
  }
  out->push_back(kCellChecksum);
  out->push_back(static_cast<char>(CellCrc(c)));
}

}  // namespace

uint8_t Crc8(uint8_t crc, std::string_view bytes) {
  for (char b : bytes) crc = CrcByte(crc, static_cast<uint8_t>(b));
  return crc;
}

Result<std::vector<PbRow>> DecodeRows(std::string_view buffer) {
  Reader r(buffer);
  uint32_t header;
  if (!r.U32(&header) || header != kHeader) return Invalid("bad header");
  std::vector<PbRow> rows;
  while (!r.empty() && !r.OnlyZerosLeft()) {
    auto row = ParseRow(r);
    if (!row) return row.error();
    rows.push_back(std::move(*row));
  }
  return rows;
}

Result<PbRow> DecodeRow(std::string_view buffer) {
  auto rows = DecodeRows(buffer);
  if (!rows) return rows.error();
  if (rows->size() != 1) return Invalid("expected one row, found " + std::to_string(rows->size()));
  return std::move(rows->front());
}

void AppendHeader(std::string* out) { PutU32(out, kHeader); }

void AppendRow(std::string* out, const PbRow& row) {
  uint8_t row_crc = 0;
  if (!row.primary_key.empty()) {
    out->push_back(kRowPk);
    for (const auto& c : row.primary_key) {
      AppendCell(out, c);
      row_crc = CrcByte(row_crc, CellCrc(c));
    }
  }
  if (!row.attributes.empty()) {
    out->push_back(kRowData);
    for (const auto& c : row.attributes) {
      AppendCell(out, c);
      row_crc = CrcByte(row_crc, CellCrc(c));
    }
  }
  if (row.delete_marker) out->push_back(kDeleteMarker);
  row_crc = CrcByte(row_crc, row.delete_marker ? 1 : 0);
  out->push_back(kRowChecksum);
  out->push_back(static_cast<char>(row_crc));
}

std::string EncodeRows(const std::vector<PbRow>& rows) {
  std::string out;
  out.reserve(64 * rows.size() + 4);
  AppendHeader(&out);
  for (const auto& row : rows) AppendRow(&out, row);
  return out;
}

std::string EncodeRow(const PbRow& row) {
  std::string out;
  out.reserve(64);
  AppendHeader(&out);
  AppendRow(&out, row);
  return out;
}

Result<model::CellValue> DecodeValue(std::string_view bytes) { return ParseValue(bytes); }

std::string EncodeValue(const model::CellValue& v) {
  std::string out;
  AppendValue(&out, v);
  return out;
}

}  // namespace ttlstore::tablestore
