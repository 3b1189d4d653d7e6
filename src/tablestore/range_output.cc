// GetRange's output options (range_output.h).
#include "tablestore/range_output.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>

#include <algorithm>
#include <optional>

#include "tablestore/simple_row_matrix.h"

namespace ttlstore::tablestore {
namespace {

namespace pb = ::ttlstore::otspb;
using google::protobuf::internal::WireFormatLite;

constexpr int kDataBlockTypeHintField = 15;
constexpr int kCompressTypeHintField = 17;

// The value of the varint field `number` among a message's unknown fields (where proto2 keeps
// an enum value it does not know), or nullopt. The bytes were parsed once already, so they are
// well formed; a walk that fails anyway finds nothing.
std::optional<uint64_t> UnknownVarint(const std::string& unknown, int number) {
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(unknown.data()),
                                            static_cast<int>(unknown.size()));
  while (uint32_t tag = in.ReadTag()) {
    if (WireFormatLite::GetTagFieldNumber(tag) == number &&
        WireFormatLite::GetTagWireType(tag) == WireFormatLite::WIRETYPE_VARINT) {
      uint64_t value = 0;
      if (!in.ReadVarint64(&value)) return std::nullopt;
      return value;
    }
    if (!WireFormatLite::SkipField(&in, tag)) return std::nullopt;
  }
  return std::nullopt;
}

// The enum value as the sender wrote it (an int32 enum travels as a 64-bit varint).
std::string EnumText(uint64_t raw) { return std::to_string(static_cast<int32_t>(raw)); }

}  // namespace

Result<RangeOutput> RangeOutputOf(const pb::GetRangeRequest& req,
                                  std::vector<std::string> table_key) {
  if (auto raw = UnknownVarint(req.unknown_fields(), kDataBlockTypeHintField)) {
    return Error::Validation("The data_block_type_hint " + EnumText(*raw) +
                             " is not supported: DBT_PLAIN_BUFFER (0) and "
                             "DBT_SIMPLE_ROW_MATRIX (1) are.");
  }
  if (auto raw = UnknownVarint(req.unknown_fields(), kCompressTypeHintField)) {
    return Error::Validation("The compress_type_hint " + EnumText(*raw) +
                             " is not supported: only CPT_NONE (0) is.");
  }
  RangeOutput out;
  out.matrix = req.data_block_type_hint() == pb::DBT_SIMPLE_ROW_MATRIX;
  out.columns_to_get.assign(req.columns_to_get().begin(), req.columns_to_get().end());
  if (out.matrix && out.columns_to_get.empty()) {
    return Error::Validation("DBT_SIMPLE_ROW_MATRIX need at least one column to get.");
  }
  // return_entire_primary_keys: absent means true. False keeps the key columns columns_to_get
  // names (all of them when it names none: columns_to_get is empty, every column is asked).
  const bool entire = !req.has_return_entire_primary_keys() || req.return_entire_primary_keys();
  for (const auto& name : table_key) {
    if (entire || out.columns_to_get.empty() ||
        std::find(out.columns_to_get.begin(), out.columns_to_get.end(), name) !=
            out.columns_to_get.end()) {
      out.key_columns.push_back(name);
    }
  }
  out.table_key = std::move(table_key);
  return out;
}

Result<std::string> EncodeRangeRows(const RangeOutput& output, std::vector<PbRow> rows) {
  if (output.key_columns.size() != output.table_key.size()) {
    for (auto& row : rows) {
      std::erase_if(row.primary_key, [&](const PbCell& c) {
        return std::find(output.key_columns.begin(), output.key_columns.end(), c.name) ==
               output.key_columns.end();
      });
    }
  }
  if (output.matrix) {
    return EncodeSimpleRowMatrix(
        MatrixFieldsOf(output.table_key, output.key_columns, output.columns_to_get), rows);
  }
  std::string out;
  if (!rows.empty()) {
    AppendHeader(&out);
    for (const auto& row : rows) AppendRow(&out, row);
  }
  return out;
}

}  // namespace ttlstore::tablestore
