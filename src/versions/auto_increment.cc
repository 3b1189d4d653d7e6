#include "versions/auto_increment.h"

#include <algorithm>

#include "common/coding.h"

namespace ttlstore::versions {

Result<std::string> SequenceKey(uint32_t table_id,
                                const std::vector<model::PrimaryKeyColumn>& schema,
                                const PkCell& first) {
  if (first.value.type == model::CellType::kInfMin ||
      first.value.type == model::CellType::kInfMax) {
    return Error::Validation(std::string(kInvalidPkPrefix) + "Primary key schema mismatch.");
  }
  // The first column, then INF_MIN for the others: a range bound encodes as the columns before
  // its first INF_MIN (versions/row_key.h), i.e. the prefix of the partition key's rows.
  std::vector<PkCell> bound{first};
  for (size_t i = 1; i < schema.size(); ++i) {
    bound.push_back({schema[i].name, model::CellValue::Marker(model::CellType::kInfMin)});
  }
  return EncodeRangeBound(table_id, schema, bound);
}

std::string EncodeSequenceValue(int64_t last) {
  std::string out;
  PutFixed64BE(&out, static_cast<uint64_t>(last));
  return out;
}

std::optional<int64_t> DecodeSequenceValue(std::string_view value) {
  uint64_t v = 0;
  if (value.size() != 8 || !GetFixed64BE(&value, &v)) return std::nullopt;
  return static_cast<int64_t>(v);
}

std::optional<int64_t> NextAutoIncrement(std::optional<int64_t> last, int64_t now_us) {
  int64_t next = std::max<int64_t>(now_us, 1);
  if (last) {
    if (*last == INT64_MAX) return std::nullopt;
    next = std::max(next, *last + 1);
  }
  return next;
}

std::optional<int64_t> AutoIncrementValueOf(const std::vector<model::PrimaryKeyColumn>& schema,
                                            const std::vector<PkCell>& pk) {
  for (size_t i = 0; i < schema.size() && i < pk.size(); ++i) {
    if (schema[i].auto_increment && pk[i].value.type == model::CellType::kInteger) {
      return pk[i].value.integer;
    }
  }
  return std::nullopt;
}

}  // namespace ttlstore::versions
