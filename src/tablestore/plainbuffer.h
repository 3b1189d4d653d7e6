// PlainBuffer: the row format inside the Tablestore protocol's bytes fields
// (tablestore-protocol.md section 2.5): a 4-byte header, then rows of tagged cells, each cell
// and row closed by a CRC-8. Decoding is strict about checksums and lengths and never reads
// past the buffer; trailing zero bytes after the last row are ignored (the Node SDK leaves them).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "model/cell.h"

namespace ttlstore::tablestore {

enum class CellOp : uint8_t {
  kNone = 0,
  kDeleteAllVersions = 1,
  kDeleteOneVersion = 3,
  kIncrement = 4,
};

struct PbCell {
  std::string name;
  std::optional<model::CellValue> value;
  CellOp op = CellOp::kNone;
  std::optional<int64_t> timestamp;  // ms
};

struct PbRow {
  std::vector<PbCell> primary_key;
  std::vector<PbCell> attributes;
  bool delete_marker = false;
};

// CRC-8, polynomial 0x07, no reflection, no final XOR, continued from `crc`.
uint8_t Crc8(uint8_t crc, std::string_view bytes);

// A buffer of zero or more rows.
Result<std::vector<PbRow>> DecodeRows(std::string_view buffer);
// A buffer of exactly one row.
Result<PbRow> DecodeRow(std::string_view buffer);

// Header + rows. Responses never carry an op (the Node SDK's reader crashes on the tag).
std::string EncodeRows(const std::vector<PbRow>& rows);
std::string EncodeRow(const PbRow& row);
void AppendHeader(std::string* out);
void AppendRow(std::string* out, const PbRow& row);

// The bare value form used in filters: type byte + payload, no outer length.
Result<model::CellValue> DecodeValue(std::string_view bytes);
std::string EncodeValue(const model::CellValue& v);

}  // namespace ttlstore::tablestore
