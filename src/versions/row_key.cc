#include "versions/row_key.h"

#include "common/coding.h"

namespace ttlstore::versions {
namespace {

Error InvalidPk(std::string message) {
  return Error::Validation(std::string(kInvalidPkPrefix) + message);
}

bool TypeMatches(model::PkType t, model::CellType c) {
  switch (t) {
    case model::PkType::kInteger: return c == model::CellType::kInteger;
    case model::PkType::kString: return c == model::CellType::kString;
    case model::PkType::kBinary: return c == model::CellType::kBlob;
  }
  return false;
}

void AppendColumn(std::string* out, const model::CellValue& v) {
  if (v.type == model::CellType::kInteger) {
    PutFixed64BE(out, static_cast<uint64_t>(v.integer) ^ (uint64_t{1} << 63));
    return;
  }
  for (char c : v.bytes) {
    out->push_back(c);
    if (c == 0) out->push_back(static_cast<char>(0xFF));
  }
  out->push_back(0);
  out->push_back(1);
}

// The smallest key greater than every key starting with `prefix`.
std::string Successor(std::string prefix) {
  while (!prefix.empty() && static_cast<uint8_t>(prefix.back()) == 0xFF) prefix.pop_back();
  if (!prefix.empty()) prefix.back() = static_cast<char>(static_cast<uint8_t>(prefix.back()) + 1);
  return prefix;
}

Result<std::string> Encode(uint32_t table_id, const std::vector<model::PrimaryKeyColumn>& schema,
                           const std::vector<PkCell>& pk, bool allow_inf) {
  // The service's texts for a key that does not fit the schema (the Python SDK's row_op_test
  // and the Java SDK's DataOperationTest assert them).
  if (pk.size() != schema.size()) {
    return InvalidPk("Validate PK size fail. Input: " + std::to_string(pk.size()) +
                     ", Meta: " + std::to_string(schema.size()) + ".");
  }
  std::string out;
  out.reserve(4 + 16 * pk.size());
  PutFixed32BE(&out, table_id);
  for (size_t i = 0; i < pk.size(); ++i) {
    if (pk[i].name != schema[i].name) {
      return InvalidPk("Validate PK name fail. Input: " + pk[i].name +
                       ", Meta: " + schema[i].name + ".");
    }
    model::CellType t = pk[i].value.type;
    if (allow_inf && t == model::CellType::kInfMin) return out;
    if (allow_inf && t == model::CellType::kInfMax) return Successor(std::move(out));
    if (!TypeMatches(schema[i].type, t)) {
      return InvalidPk("Validate PK type fail. Input: " + std::string(TypeName(t)) +
                       ", Meta: " + std::string(TypeName(schema[i].type)) + ".");
    }
    AppendColumn(&out, pk[i].value);
  }
  return out;
}

}  // namespace

std::string_view TypeName(model::CellType t) {
  switch (t) {
    case model::CellType::kInteger: return "VT_INTEGER";
    case model::CellType::kDouble: return "VT_DOUBLE";
    case model::CellType::kBoolean: return "VT_BOOLEAN";
    case model::CellType::kString: return "VT_STRING";
    case model::CellType::kBlob: return "VT_BLOB";
    case model::CellType::kInfMin: return "VT_INF_MIN";
    case model::CellType::kInfMax: return "VT_INF_MAX";
    case model::CellType::kAutoIncrement: return "VT_AUTO_INCREMENT";
  }
  return "UNKNOWN";
}

std::string_view TypeName(model::PkType t) {
  switch (t) {
    case model::PkType::kInteger: return "VT_INTEGER";
    case model::PkType::kString: return "VT_STRING";
    case model::PkType::kBinary: return "VT_BLOB";
  }
  return "UNKNOWN";
}

Result<std::string> EncodeRowKey(uint32_t table_id,
                                 const std::vector<model::PrimaryKeyColumn>& schema,
                                 const std::vector<PkCell>& pk) {
  return Encode(table_id, schema, pk, false);
}

Result<std::string> EncodeRangeBound(uint32_t table_id,
                                     const std::vector<model::PrimaryKeyColumn>& schema,
                                     const std::vector<PkCell>& bound) {
  return Encode(table_id, schema, bound, true);
}

bool DecodeRowKey(std::string_view key, const std::vector<model::PrimaryKeyColumn>& schema,
                  std::vector<PkCell>* pk) {
  pk->clear();
  uint32_t id;
  if (!GetFixed32BE(&key, &id)) return false;
  for (const auto& col : schema) {
    PkCell cell{col.name, {}};
    if (col.type == model::PkType::kInteger) {
      uint64_t v;
      if (!GetFixed64BE(&key, &v)) return false;
      cell.value = model::CellValue::Integer(static_cast<int64_t>(v ^ (uint64_t{1} << 63)));
    } else {
      std::string bytes;
      for (;;) {
        if (key.size() < 1) return false;
        char c = key[0];
        key.remove_prefix(1);
        if (c != 0) {
          bytes.push_back(c);
          continue;
        }
        if (key.empty()) return false;
        uint8_t next = static_cast<uint8_t>(key[0]);
        key.remove_prefix(1);
        if (next == 0xFF) {
          bytes.push_back(0);
        } else if (next == 1) {
          break;
        } else {
          return false;
        }
      }
      cell.value = col.type == model::PkType::kString ? model::CellValue::String(std::move(bytes))
                                                      : model::CellValue::Blob(std::move(bytes));
    }
    pk->push_back(std::move(cell));
  }
  return key.empty();
}

std::string TableRowsBegin(uint32_t table_id) {
  std::string out;
  PutFixed32BE(&out, table_id);
  return out;
}

std::string TableRowsEnd(uint32_t table_id) {
  std::string out;
  PutFixed32BE(&out, table_id + 1);
  return out;
}

}  // namespace ttlstore::versions
