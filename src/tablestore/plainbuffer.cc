#include "tablestore/plainbuffer.h"

#include <array>
#include <cassert>
#include <cstring>

#include "tablestore/ots_error.h"
#include "versions/row_key.h"

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
  kExtension = 0x0B,
  kSeqInfo = 0x0C,
  kSeqInfoEpoch = 0x0D,
  kSeqInfoTs = 0x0E,
  kSeqInfoRowIndex = 0x0F,
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

// The service's messages for broken PlainBuffer (its error-code page, "HTTP 400 errors:
// PlainBuffer encoding"; docs/limits.md). All are 400 OTSParameterInvalid.
Error Broken(std::string message) { return Error::Validation(std::move(message)); }
Error Truncated() { return Broken("data format is invalid."); }
Error MismatchTag(uint8_t actual, uint8_t expected) {
  return Broken("Cell data broken, mismatch tag, actual tag(" + std::to_string(actual) +
                "), expect(" + std::to_string(expected) + ").");
}
Error ChecksumMismatch(uint8_t sent, uint8_t computed) {
  return Broken("Cell data broken, checksum is mismatch, " + std::to_string(sent) + ":" +
                std::to_string(computed) + ".");
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
  if (!r.U8(&type)) return Truncated();
  model::CellValue v;
  v.type = static_cast<model::CellType>(type);
  uint64_t u64;
  uint32_t len;
  std::string_view s;
  switch (v.type) {
    case model::CellType::kInteger:
      if (!r.U64(&u64)) return Truncated();
      v.integer = static_cast<int64_t>(u64);
      break;
    case model::CellType::kDouble:
      if (!r.U64(&u64)) return Truncated();
      std::memcpy(&v.dbl, &u64, 8);
      break;
    case model::CellType::kBoolean: {
      uint8_t b;
      if (r.remaining() != 1 || !r.U8(&b)) {
        return Broken("Invalid boolean real value, value length: " +
                      std::to_string(r.remaining()) + ".");
      }
      v.boolean = b != 0;
      break;
    }
    case model::CellType::kString:
    case model::CellType::kBlob:
      if (!r.U32(&len)) return Truncated();
      if (!r.Bytes(len, &s)) {
        return Broken("Cell data broken, wrong string format, size: " + std::to_string(len) + ".");
      }
      v.bytes.assign(s);
      break;
    case model::CellType::kInfMin:
    case model::CellType::kInfMax:
    case model::CellType::kAutoIncrement:
      break;
    default:
      return Broken("data format is invalid, unknown variant type occured.");
  }
  if (!r.empty()) {
    return Broken("Cell data broken, has more data in cell, but they can't be parsed.");
  }
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

// One cell after its 0x03 tag, into `c` (reused between cells).
Status ParseCell(Reader& r, PbCell& c) {
  c.value.reset();
  c.op = CellOp::kNone;
  c.timestamp.reset();
  uint8_t tag;
  uint32_t len;
  std::string_view s;
  if (!r.U8(&tag)) return Truncated();
  if (tag != kCellName) return MismatchTag(tag, kCellName);
  if (!r.U32(&len) || !r.Bytes(len, &s)) return Truncated();
  c.name.assign(s);
  auto missing_checksum = [&] {
    return Broken("Invalid Column(" + EchoForError(c.name) + "): missing checksum.");
  };
  if (!r.Peek(&tag)) return missing_checksum();
  if (tag == kCellValue) {
    r.U8(&tag);
    if (!r.U32(&len) || len == 0 || !r.Bytes(len, &s)) return Truncated();
    ASSIGN_OR_RETURN(v, ParseValue(s));
    c.value = std::move(v);
    if (!r.Peek(&tag)) return missing_checksum();
  }
  if (tag == kCellType) {
    r.U8(&tag);
    uint8_t op;
    if (!r.U8(&op)) return Truncated();
    if (op != 1 && op != 3 && op != 4) {
      return Broken("Invalid op type of cell: " + std::to_string(op) + ".");
    }
    c.op = static_cast<CellOp>(op);
    if (!r.Peek(&tag)) return missing_checksum();
  }
  if (tag == kCellTimestamp) {
    r.U8(&tag);
    uint64_t ts;
    if (!r.U64(&ts)) return Truncated();
    c.timestamp = static_cast<int64_t>(ts);
  }
  uint8_t crc;
  if (!r.U8(&tag)) return missing_checksum();
  if (tag != kCellChecksum) return MismatchTag(tag, kCellChecksum);
  if (!r.U8(&crc)) return missing_checksum();
  if (uint8_t computed = CellCrc(c); crc != computed) return ChecksumMismatch(crc, computed);
  return Status::Ok();
}

// The cells of one section (primary key or attributes): every cell is read and checked, at most
// `limit` are kept; `*count` is how many there were.
Status ParseCells(Reader& r, std::vector<PbCell>* out, size_t limit, size_t* count,
                  uint8_t* row_crc) {
  PbCell scratch;
  uint8_t tag;
  *count = 0;
  while (r.Peek(&tag) && tag == kCell) {
    r.U8(&tag);
    PbCell& c = out->size() < limit ? out->emplace_back() : scratch;
    RETURN_IF_ERROR(ParseCell(r, c));
    *row_crc = CrcByte(*row_crc, CellCrc(c));
    ++*count;
  }
  return Status::Ok();
}

Result<PbRow> ParseRow(Reader& r, const RowLimits& limits) {
  PbRow row;
  uint8_t tag, row_crc = 0;
  size_t pk_count = 0, attribute_count = 0;
  if (!r.Peek(&tag)) return Truncated();
  if (tag == kRowPk) {
    r.U8(&tag);
    RETURN_IF_ERROR(ParseCells(r, &row.primary_key, limits.max_primary_key_cells, &pk_count,
                               &row_crc));
  }
  if (r.Peek(&tag) && tag == kRowData) {
    r.U8(&tag);
    RETURN_IF_ERROR(ParseCells(r, &row.attributes, limits.max_attribute_cells, &attribute_count,
                               &row_crc));
  }
  if (r.Peek(&tag) && tag == kDeleteMarker) {
    r.U8(&tag);
    row.delete_marker = true;
  }
  row_crc = CrcByte(row_crc, row.delete_marker ? 1 : 0);
  uint8_t crc;
  if (!r.U8(&tag)) return Broken("Invalid row: missing checksum.");
  if (tag != kRowChecksum) return Broken("Cell data broken, row is not end with checksum tag.");
  if (!r.U8(&crc)) return Broken("Invalid row: missing checksum.");
  if (crc != row_crc) return ChecksumMismatch(crc, row_crc);
  // A table has at most 4 primary-key columns, so more can match none (as a wrong count does).
  if (pk_count > limits.max_primary_key_cells) {
    return Error::Validation(std::string(versions::kInvalidPkPrefix) +
                             "Primary key schema mismatch.");
  }
  if (attribute_count > limits.max_attribute_cells) {
    return Broken("The number of attribute columns exceeds the limit, limit count: " +
                  std::to_string(limits.max_attribute_cells) +
                  ", column count: " + std::to_string(attribute_count) + ".");
  }
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

// `with_op`: the cell's op type is written (stream records); responses to reads never carry one.
void AppendCell(std::string* out, const PbCell& c, bool with_op = false) {
  assert(with_op || c.op == CellOp::kNone);
  out->push_back(kCell);
  out->push_back(kCellName);
  PutU32(out, static_cast<uint32_t>(c.name.size()));
  out->append(c.name);
  if (c.value) {
    out->push_back(kCellValue);
    PutU32(out, static_cast<uint32_t>(1 + PayloadSize(*c.value)));
    AppendValue(out, *c.value);
  }
  if (with_op && c.op != CellOp::kNone) {
    out->push_back(kCellType);
    out->push_back(static_cast<char>(c.op));
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

namespace {

Status ParseHeader(Reader& r) {
  uint32_t header;
  if (!r.U32(&header)) return Truncated();
  if (header != kHeader) {
    return Broken("Cell data broken, mismatch header, actual: " + std::to_string(header) +
                  ", expect: " + std::to_string(kHeader) + ".");
  }
  return Status::Ok();
}

}  // namespace

Result<std::vector<PbRow>> DecodeRows(std::string_view buffer, const RowLimits& limits,
                                      size_t max_rows) {
  Reader r(buffer);
  RETURN_IF_ERROR(ParseHeader(r));
  std::vector<PbRow> rows;
  while (!r.empty() && !r.OnlyZerosLeft()) {
    if (rows.size() == max_rows) return Truncated();
    ASSIGN_OR_RETURN(row, ParseRow(r, limits));
    rows.push_back(std::move(row));
  }
  return rows;
}

Result<PbRow> DecodeRow(std::string_view buffer, const RowLimits& limits) {
  Reader r(buffer);
  RETURN_IF_ERROR(ParseHeader(r));
  if (r.empty() || r.OnlyZerosLeft()) return Truncated();
  ASSIGN_OR_RETURN(row, ParseRow(r, limits));
  // Only the Node SDK's zero padding may follow the one row.
  if (!r.OnlyZerosLeft()) return Truncated();
  return row;
}

void AppendHeader(std::string* out) { PutU32(out, kHeader); }

namespace {

// A row; with `seq`, its cells carry their op types and the row the sequence-info extension
// after the delete marker. The extension is not part of the row checksum (the Java and Go
// SDKs' readers: the checksum covers the cells and the delete marker only).
void AppendRowImpl(std::string* out, const PbRow& row, const PbSequenceInfo* seq) {
  const bool with_op = seq != nullptr;
  uint8_t row_crc = 0;
  if (!row.primary_key.empty()) {
    out->push_back(kRowPk);
    for (const auto& c : row.primary_key) {
      AppendCell(out, c, with_op);
      row_crc = CrcByte(row_crc, CellCrc(c));
    }
  }
  if (!row.attributes.empty()) {
    out->push_back(kRowData);
    for (const auto& c : row.attributes) {
      AppendCell(out, c, with_op);
      row_crc = CrcByte(row_crc, CellCrc(c));
    }
  }
  if (row.delete_marker) out->push_back(kDeleteMarker);
  row_crc = CrcByte(row_crc, row.delete_marker ? 1 : 0);
  if (seq) {
    // Each length counts the bytes after it: the sequence info is 3 tagged fields (19 bytes),
    // the extension that block with its tag and length (24 bytes).
    out->push_back(kExtension);
    PutU32(out, 24);
    out->push_back(kSeqInfo);
    PutU32(out, 19);
    out->push_back(kSeqInfoEpoch);
    PutU32(out, seq->epoch);
    out->push_back(kSeqInfoTs);
    PutU64(out, static_cast<uint64_t>(seq->timestamp));
    out->push_back(kSeqInfoRowIndex);
    PutU32(out, seq->row_index);
  }
  out->push_back(kRowChecksum);
  out->push_back(static_cast<char>(row_crc));
}

}  // namespace

void AppendRow(std::string* out, const PbRow& row) { AppendRowImpl(out, row, nullptr); }

std::string EncodeStreamRow(const PbRow& row, const PbSequenceInfo& seq) {
  std::string out;
  out.reserve(96);
  AppendHeader(&out);
  AppendRowImpl(&out, row, &seq);
  return out;
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
