// The SimpleRowMatrix encoder (layout in simple_row_matrix.h).
#include "tablestore/simple_row_matrix.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <unordered_map>
#include <unordered_set>

namespace ttlstore::tablestore {
namespace {

void PutU16(std::string* out, uint16_t v) {
  out->push_back(static_cast<char>(v & 0xff));
  out->push_back(static_cast<char>(v >> 8));
}
void PutU32(std::string* out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>(v >> (8 * i)));
}
void PutU64(std::string* out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>(v >> (8 * i)));
}
// Overwrites the int32 at `at` (the offsets, known only once the names are written).
void SetU32(std::string* out, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) (*out)[at + i] = static_cast<char>(v >> (8 * i));
}

constexpr size_t kMaxBlockBytes = static_cast<size_t>(std::numeric_limits<int32_t>::max());

// One cell: the value's type byte and payload; NULL for none. A stored row never holds a bound
// marker (INF_MIN, INF_MAX, AUTO_INCREMENT): such a value would be written NULL.
void AppendCell(std::string* out, const model::CellValue* v) {
  if (v == nullptr) {
    out->push_back(static_cast<char>(kMatrixNull));
    return;
  }
  switch (v->type) {
    case model::CellType::kInteger:
      out->push_back(static_cast<char>(v->type));
      PutU64(out, static_cast<uint64_t>(v->integer));
      return;
    case model::CellType::kDouble: {
      out->push_back(static_cast<char>(v->type));
      uint64_t bits;
      std::memcpy(&bits, &v->dbl, sizeof bits);
      PutU64(out, bits);
      return;
    }
    case model::CellType::kBoolean:
      out->push_back(static_cast<char>(v->type));
      out->push_back(v->boolean ? 1 : 0);
      return;
    case model::CellType::kString:
    case model::CellType::kBlob:
      out->push_back(static_cast<char>(v->type));
      PutU32(out, static_cast<uint32_t>(v->bytes.size()));
      out->append(v->bytes);
      return;
    default:
      out->push_back(static_cast<char>(kMatrixNull));
      return;
  }
}

// Where each field's value is found in one row: the field names' positions, then, per row, the
// first cell of each name (for attributes the newest version). Linear in the row's cells.
class FieldSlots {
 public:
  explicit FieldSlots(const std::vector<std::string>& names) : slots_(names.size()) {
    index_.reserve(names.size());
    for (size_t i = 0; i < names.size(); ++i) index_.emplace(names[i], i);
  }
  // Fills the slots from `cells`; returns them (nullptr: no such cell).
  const std::vector<const model::CellValue*>& Of(const std::vector<PbCell>& cells) {
    std::fill(slots_.begin(), slots_.end(), nullptr);
    for (const auto& c : cells) {
      if (!c.value) continue;
      auto it = index_.find(c.name);
      if (it != index_.end() && slots_[it->second] == nullptr) slots_[it->second] = &*c.value;
    }
    return slots_;
  }

 private:
  std::unordered_map<std::string_view, size_t> index_;
  std::vector<const model::CellValue*> slots_;
};

}  // namespace

MatrixFields MatrixFieldsOf(const std::vector<std::string>& table_key,
                            const std::vector<std::string>& key_columns,
                            const std::vector<std::string>& columns_to_get) {
  MatrixFields fields;
  fields.primary_key = key_columns;
  fields.entire_primary_key = key_columns.size() == table_key.size();
  std::unordered_set<std::string_view> seen(table_key.begin(), table_key.end());
  for (const auto& name : columns_to_get) {
    if (seen.insert(name).second) fields.attributes.push_back(name);
  }
  return fields;
}

Result<std::string> EncodeSimpleRowMatrix(const MatrixFields& fields,
                                          const std::vector<PbRow>& rows) {
  if (rows.size() > kMaxBlockBytes) return Error::Internal("SimpleRowMatrix: too many rows.");
  std::string out;
  PutU32(&out, kMatrixApiVersion);
  const size_t data_offset_at = out.size();
  PutU32(&out, 0);
  const size_t option_offset_at = out.size();
  PutU32(&out, 0);
  PutU32(&out, static_cast<uint32_t>(fields.primary_key.size()));
  PutU32(&out, static_cast<uint32_t>(fields.attributes.size()));
  for (const auto* names : {&fields.primary_key, &fields.attributes}) {
    for (const auto& name : *names) {
      if (name.size() > static_cast<size_t>(std::numeric_limits<int16_t>::max())) {
        return Error::Internal("SimpleRowMatrix: a column name is too long.");
      }
      PutU16(&out, static_cast<uint16_t>(name.size()));
      out.append(name);
    }
  }
  SetU32(&out, option_offset_at, static_cast<uint32_t>(out.size()));
  out.push_back(static_cast<char>(kMatrixTagEntirePrimaryKeys));
  out.push_back(fields.entire_primary_key ? 1 : 0);
  out.push_back(static_cast<char>(kMatrixTagRowCount));
  PutU32(&out, static_cast<uint32_t>(rows.size()));
  SetU32(&out, data_offset_at, static_cast<uint32_t>(out.size()));
  FieldSlots key_slots(fields.primary_key);
  FieldSlots attribute_slots(fields.attributes);
  for (const auto& row : rows) {
    out.push_back(static_cast<char>(kMatrixTagRow));
    for (const auto* v : key_slots.Of(row.primary_key)) AppendCell(&out, v);
    for (const auto* v : attribute_slots.Of(row.attributes)) AppendCell(&out, v);
    if (out.size() > kMaxBlockBytes) {
      return Error::Internal("SimpleRowMatrix: the block exceeds 2 GB.");
    }
  }
  out.push_back(static_cast<char>(kMatrixTagChecksum));
  out.push_back(static_cast<char>(Crc8(0, out)));
  return out;
}

}  // namespace ttlstore::tablestore
