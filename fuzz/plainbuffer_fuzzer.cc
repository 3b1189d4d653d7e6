// The PlainBuffer decoder (tablestore/plainbuffer.h) on hostile bytes: never a crash; rows that
// decode and carry no cell op re-encode to bytes that decode to the same rows.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "tablestore/plainbuffer.h"

using namespace ttlstore::tablestore;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  auto rows = DecodeRows(in);
  (void)DecodeValue(in);
  if (!rows) return 0;
  for (const auto& row : *rows) {
    for (const auto& c : row.attributes) {
      if (c.op != CellOp::kNone) return 0;  // requests only; responses never carry ops
    }
  }
  auto again = DecodeRows(EncodeRows(*rows));
  if (!again || again->size() != rows->size()) std::abort();
  if (EncodeRows(*again) != EncodeRows(*rows)) std::abort();
  return 0;
}
