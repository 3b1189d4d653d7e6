#include "versions/index_rows.h"

#include <algorithm>
#include <climits>

#include "versions/row_key.h"

namespace ttlstore::versions {
namespace {

const model::PrimaryKeyColumn* BasePk(const model::TablestoreSchema& base, std::string_view name) {
  for (const auto& c : base.primary_key) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

const model::DefinedColumn* Defined(const model::TablestoreSchema& base, std::string_view name) {
  for (const auto& c : base.defined_columns) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

model::CellType CellTypeOf(model::PkType t) {
  switch (t) {
    case model::PkType::kInteger: return model::CellType::kInteger;
    case model::PkType::kString: return model::CellType::kString;
    case model::PkType::kBinary: return model::CellType::kBlob;
  }
  return model::CellType::kInteger;
}

}  // namespace

std::optional<model::PkType> IndexKeyType(uint8_t dct) {
  switch (dct) {
    case 1: return model::PkType::kInteger;  // DCT_INTEGER
    case 4: return model::PkType::kString;   // DCT_STRING
    case 7: return model::PkType::kBinary;   // DCT_BLOB
    default: return std::nullopt;
  }
}

model::TablestoreSchema IndexSchema(const model::TablestoreSchema& base, const model::TsIndex& ix) {
  model::TablestoreSchema out;
  for (const auto& name : ix.primary_key) {
    if (const auto* pk = BasePk(base, name)) {
      out.primary_key.push_back(*pk);
    } else if (const auto* dc = Defined(base, name)) {
      out.primary_key.push_back({name, IndexKeyType(dc->type).value_or(model::PkType::kString)});
    }
  }
  for (const auto& pk : base.primary_key) {
    if (std::find(ix.primary_key.begin(), ix.primary_key.end(), pk.name) == ix.primary_key.end()) {
      out.primary_key.push_back(pk);
    }
  }
  for (const auto& name : ix.defined_columns) {
    if (const auto* dc = Defined(base, name)) out.defined_columns.push_back(*dc);
  }
  out.options = base.options;
  out.local_transactions = false;
  return out;
}

std::optional<IndexRow> IndexRowOf(const model::TablestoreSchema& base, const model::TsIndex& ix,
                                   std::string_view base_key, const StoredRow& row) {
  std::vector<PkCell> base_pk;
  if (!DecodeRowKey(base_key, base.primary_key, &base_pk)) return std::nullopt;
  const model::TablestoreSchema schema = IndexSchema(base, ix);
  size_t expected = ix.primary_key.size();
  for (const auto& c : base.primary_key) {
    if (std::find(ix.primary_key.begin(), ix.primary_key.end(), c.name) == ix.primary_key.end()) {
      ++expected;
    }
  }
  if (schema.primary_key.size() != expected) return std::nullopt;  // a column no longer declared
  int64_t newest = INT64_MIN;
  for (const auto& c : row.columns) newest = std::max(newest, c.versions.front().timestamp_ms);
  int64_t life = newest;

  std::vector<PkCell> pk;
  for (const auto& col : schema.primary_key) {
    auto in_base = std::find_if(base_pk.begin(), base_pk.end(),
                                [&](const PkCell& c) { return c.name == col.name; });
    if (in_base != base_pk.end()) {
      pk.push_back(*in_base);
      continue;
    }
    const Column* c = row.Find(col.name);
    if (!c || c->versions.empty()) return std::nullopt;
    const Version& v = c->versions.front();
    if (v.value.type != CellTypeOf(col.type)) return std::nullopt;
    pk.push_back({col.name, v.value});
    life = std::min(life, v.timestamp_ms);
  }
  auto key = EncodeRowKey(ix.rows_id, schema.primary_key, pk);
  if (!key) return std::nullopt;

  IndexRow out;
  out.key = std::move(*key);
  if (!row.columns.empty()) {
    out.row.columns.push_back({std::string(kIndexLifeColumn), {{life, model::CellValue::Integer(0)}}});
  }
  for (const auto& dc : schema.defined_columns) {
    const Column* c = row.Find(dc.name);
    if (!c || c->versions.empty()) continue;
    out.row.columns.push_back({dc.name, {c->versions.front()}});
  }
  std::sort(out.row.columns.begin(), out.row.columns.end(),
            [](const Column& a, const Column& b) { return a.name < b.name; });
  return out;
}

}  // namespace ttlstore::versions
