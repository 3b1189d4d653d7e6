#include "tablestore/capacity_units.h"

namespace ttlstore::tablestore {
namespace {

size_t ValueDataSize(const model::CellValue& v) {
  switch (v.type) {
    case model::CellType::kInteger:
    case model::CellType::kDouble:
    case model::CellType::kAutoIncrement: return 8;  // the INTEGER it becomes
    case model::CellType::kBoolean: return 1;
    case model::CellType::kString:
    case model::CellType::kBlob: return v.bytes.size();
    default: return 0;
  }
}

size_t CellDataSize(const PbCell& c, bool version_bytes) {
  // A delete (of one version or of all) carries no value: only its name counts.
  if (c.op == CellOp::kDeleteAllVersions || c.op == CellOp::kDeleteOneVersion || !c.value) {
    return c.name.size();
  }
  return c.name.size() + ValueDataSize(*c.value) + (version_bytes ? 8 : 0);
}

}  // namespace

int32_t CapacityUnitsOf(size_t bytes) {
  size_t units = (bytes + kCapacityUnitBytes - 1) / kCapacityUnitBytes;
  if (units < 1) units = 1;
  if (units > static_cast<size_t>(INT32_MAX)) units = INT32_MAX;
  return static_cast<int32_t>(units);
}

bool CountsVersionBytes(const model::VersionOptions& options) {
  return options.max_versions > 1 || options.time_to_live != -1;
}

size_t PrimaryKeyDataSize(const PbRow& row) {
  size_t size = 0;
  for (const auto& c : row.primary_key) size += c.name.size() + (c.value ? ValueDataSize(*c.value) : 0);
  return size;
}

size_t RowCapacityDataSize(const PbRow& row, bool version_bytes) {
  size_t size = PrimaryKeyDataSize(row);
  for (const auto& c : row.attributes) size += CellDataSize(c, version_bytes);
  return size;
}

Consumed ReadConsumed(const PbRow* returned, bool version_bytes) {
  return {returned ? CapacityUnitsOf(RowCapacityDataSize(*returned, version_bytes)) : 1, 0};
}

Consumed RangeConsumed(const std::vector<PbRow>& returned, bool version_bytes) {
  size_t size = 0;
  for (const auto& row : returned) size += RowCapacityDataSize(row, version_bytes);
  return {CapacityUnitsOf(size), 0};
}

Consumed WriteConsumed(const PbRow& written, bool version_bytes, bool checks_condition) {
  Consumed c;
  c.write = CapacityUnitsOf(RowCapacityDataSize(written, version_bytes));
  if (checks_condition) c.read = CapacityUnitsOf(PrimaryKeyDataSize(written));
  return c;
}

}  // namespace ttlstore::tablestore
