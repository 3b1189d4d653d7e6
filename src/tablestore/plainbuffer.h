// PlainBuffer: the row format inside the Tablestore protocol's bytes fields
// (tablestore-protocol.md section 2.5): a 4-byte header, then rows of tagged cells, each cell
// and row closed by a CRC-8. Decoding is strict about checksums and lengths and never reads
// past the buffer; trailing zero bytes after the last row are ignored (the Node SDK leaves them).
// The format has no nesting: decoding is one pass, without recursion, and keeps at most the
// RowLimits' cells however many the buffer claims.
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

// What one decoded row may hold: the service's limits on a request's row (docs/limits.md).
// Every cell is still read and checked, so a longer row costs time in its length but memory only
// up to the limits; it is then refused with OTSInvalidPK "Primary key schema mismatch." (more
// primary-key cells than any table has) or OTSParameterInvalid "The number of attribute columns
// exceeds the limit, limit count: 1024, column count: N.".
struct RowLimits {
  size_t max_primary_key_cells = 4;
  size_t max_attribute_cells = 1024;
};

// A buffer of zero or more rows (at most `max_rows`).
Result<std::vector<PbRow>> DecodeRows(std::string_view buffer, const RowLimits& limits = {},
                                      size_t max_rows = 5000);
// A buffer of exactly one row. Errors carry the service's messages for broken PlainBuffer
// ("data format is invalid.", "Cell data broken, checksum is mismatch, ...", ...).
Result<PbRow> DecodeRow(std::string_view buffer, const RowLimits& limits = {});

// Header + rows. Responses never carry an op (the Node SDK's reader crashes on the tag).
std::string EncodeRows(const std::vector<PbRow>& rows);
std::string EncodeRow(const PbRow& row);
void AppendHeader(std::string* out);
void AppendRow(std::string* out, const PbRow& row);

// A stream record's sequence info (PlainBuffer's row extension, tags 0x0B-0x0F).
struct PbSequenceInfo {
  uint32_t epoch = 0;
  int64_t timestamp = 0;  // microseconds
  uint32_t row_index = 0;
};
// A stream record (GetStreamRecord's `record`): header + one row whose cells carry their op type
// (delete one version 0x03, delete all versions 0x01; none for a put), followed by the sequence
// info extension before the row checksum, as the Java, Go and Python SDKs read it.
std::string EncodeStreamRow(const PbRow& row, const PbSequenceInfo& seq);

// The bare value form used in filters: type byte + payload, no outer length.
Result<model::CellValue> DecodeValue(std::string_view bytes);
std::string EncodeValue(const model::CellValue& v);

}  // namespace ttlstore::tablestore
