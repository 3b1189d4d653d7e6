// The PlainBuffer decoder (tablestore/plainbuffer.h) on hostile bytes: never a crash; a decoded
// row never holds more cells than its RowLimits, whatever the buffer claims; rows that decode
// and carry no cell op re-encode to bytes that decode to the same rows.
//
// TTLSTORE_WRITE_SEEDS=DIR: write the seed inputs (rows of every value type, wide rows, long
// names, lengths that lie) to DIR and exit.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "tablestore/plainbuffer.h"

using namespace ttlstore;
using namespace ttlstore::tablestore;

namespace {

PbCell Cell(std::string name, model::CellValue v) {
  PbCell c;
  c.name = std::move(name);
  c.value = std::move(v);
  return c;
}

std::vector<std::pair<std::string, std::string>> Seeds() {
  std::vector<std::pair<std::string, std::string>> seeds;
  PbRow row;
  row.primary_key.push_back(Cell("pk", model::CellValue::String("k")));
  row.primary_key.push_back(Cell("n", model::CellValue::Integer(-1)));
  row.attributes.push_back(Cell("d", model::CellValue::Double(2.5)));
  row.attributes.back().timestamp = 1700000000000;
  row.attributes.push_back(Cell("b", model::CellValue::Boolean(true)));
  row.attributes.push_back(Cell("x", model::CellValue::Blob(std::string("\0\1", 2))));
  seeds.emplace_back("all_types", EncodeRow(row));
  PbRow bounds;
  bounds.primary_key.push_back(Cell("pk", model::CellValue::Marker(model::CellType::kInfMin)));
  bounds.primary_key.push_back(Cell("n", model::CellValue::Marker(model::CellType::kInfMax)));
  seeds.emplace_back("inf_bounds", EncodeRow(bounds));
  // Wide: 150 cells (under the 4 KB CI fuzzes at); five primary-key cells.
  PbRow wide;
  wide.primary_key = row.primary_key;
  for (int i = 0; i < 150; ++i) wide.attributes.push_back(Cell("c", model::CellValue::Integer(i)));
  seeds.emplace_back("wide_150_cells", EncodeRow(wide));
  PbRow five;
  for (int i = 0; i < 5; ++i) five.primary_key.push_back(Cell("p", model::CellValue::Integer(i)));
  seeds.emplace_back("five_pk_cells", EncodeRow(five));
  // A 3000-byte name; two rows; lengths that lie (2^31, 2^32-1 claimed for a name and a value).
  PbRow named;
  named.primary_key.push_back(Cell(std::string(3000, 'n'), model::CellValue::Integer(1)));
  seeds.emplace_back("long_name", EncodeRow(named));
  seeds.emplace_back("two_rows", EncodeRows({row, bounds}));
  seeds.emplace_back("lying_name", std::string("\x75\0\0\0\x01\x03\x04\x00\x00\x00\x80gid", 14));
  seeds.emplace_back("lying_value",
                     std::string("\x75\0\0\0\x01\x03\x04\x01\0\0\0g\x05\xff\xff\xff\xff\x03", 18));
  return seeds;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  if (const char* dir = std::getenv("TTLSTORE_WRITE_SEEDS")) {
    for (const auto& [name, bytes] : Seeds()) {
      std::ofstream(std::string(dir) + "/" + name, std::ios::binary) << bytes;
    }
    std::exit(0);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  (void)DecodeValue(in);
  // Small limits, so that short inputs reach the over-limit paths too.
  const RowLimits small{2, 3};
  if (auto row = DecodeRow(in, small); row) {
    if (row->primary_key.size() > 2 || row->attributes.size() > 3) std::abort();
  }
  auto rows = DecodeRows(in);
  if (!rows) return 0;
  for (const auto& row : *rows) {
    if (row.primary_key.size() > RowLimits().max_primary_key_cells ||
        row.attributes.size() > RowLimits().max_attribute_cells) {
      std::abort();
    }
    // Requests only: responses never carry ops, in primary-key cells neither (found by this
    // fuzzer: a key cell with an op does not re-encode; the front end now refuses such cells,
    // PlainBufferHostile.PrimaryKeyCellsWithAnOpOrATimestampAreRefused).
    for (const auto* cells : {&row.primary_key, &row.attributes}) {
      for (const auto& c : *cells) {
        if (c.op != CellOp::kNone) return 0;
      }
    }
  }
  auto again = DecodeRows(EncodeRows(*rows));
  if (!again || again->size() != rows->size()) std::abort();
  if (EncodeRows(*again) != EncodeRows(*rows)) std::abort();
  return 0;
}
