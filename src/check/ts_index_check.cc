#include "check/ts_index_check.h"

#include <fmt/format.h>

#include "versions/index_rows.h"
#include "versions/row.h"
#include "versions/row_key.h"

namespace ttlstore::check {

std::set<uint32_t> TsIndexRowsIds(const std::map<uint32_t, model::TableDescriptor>& tables) {
  std::set<uint32_t> ids;
  for (const auto& [id, t] : tables) {
    if (!t.tablestore) continue;
    for (const auto& ix : t.tablestore->indexes) ids.insert(ix.rows_id);
    for (uint32_t d : t.tablestore->dropped_index_rows) ids.insert(d);
  }
  return ids;
}

namespace {

// Rule 2: the table's rows have their index rows.
Status CheckTableSide(const storage::Store& store, const model::TableDescriptor& t,
                      const model::TsIndex& ix, const std::function<void(std::string)>& problem) {
  if (!ix.include_base_data) return Status::Ok();
  auto it = store.ScanFamily(storage::Family::kRows, versions::TableRowsBegin(t.id),
                             versions::TableRowsEnd(t.id), false, nullptr);
  for (; it->Valid(); it->Next()) {
    std::string key(it->key());
    if (ix.building && (ix.cursor.empty() || key > ix.cursor)) break;
    versions::StoredRow row;
    if (!versions::DecodeRow(it->value(), &row)) continue;  // CheckRows reports it
    auto implied = versions::IndexRowOf(*t.tablestore, ix, key, row);
    if (!implied) continue;
    ASSIGN_OR_RETURN(stored, store.Get(storage::Family::kRows, implied->key));
    if (!stored) {
      problem(fmt::format("index {} of table {} lacks the row a table row implies", ix.name,
                          t.name));
    } else if (*stored != versions::EncodeRow(implied->row)) {
      problem(fmt::format("index {} of table {} holds a stale row", ix.name, t.name));
    }
  }
  return it->status();
}

// Rule 1: each index row is the one its table row implies.
Status CheckIndexSide(const storage::Store& store, const model::TableDescriptor& t,
                      const model::TsIndex& ix, uint64_t* index_rows,
                      const std::function<void(std::string)>& problem) {
  const model::TablestoreSchema schema = versions::IndexSchema(*t.tablestore, ix);
  auto it = store.ScanFamily(storage::Family::kRows, versions::TableRowsBegin(ix.rows_id),
                             versions::TableRowsEnd(ix.rows_id), false, nullptr);
  for (; it->Valid(); it->Next()) {
    ++*index_rows;
    std::string key(it->key());
    std::vector<versions::PkCell> pk, base_pk;
    if (!versions::DecodeRowKey(key, schema.primary_key, &pk)) {
      problem(fmt::format("a row key of index {} does not match its primary key", ix.name));
      continue;
    }
    for (const auto& col : t.tablestore->primary_key) {
      for (const auto& c : pk) {
        if (c.name == col.name) base_pk.push_back(c);
      }
    }
    auto base_key = versions::EncodeRowKey(t.id, t.tablestore->primary_key, base_pk);
    if (!base_key) {
      problem(fmt::format("a row of index {} names no row of table {}", ix.name, t.name));
      continue;
    }
    ASSIGN_OR_RETURN(raw, store.Get(storage::Family::kRows, *base_key));
    versions::StoredRow base;
    std::optional<versions::IndexRow> implied;
    if (raw && versions::DecodeRow(*raw, &base)) {
      implied = versions::IndexRowOf(*t.tablestore, ix, *base_key, base);
    }
    if (!implied || implied->key != key) {
      problem(fmt::format("index {} of table {} holds a row its table does not imply", ix.name,
                          t.name));
    } else if (versions::EncodeRow(implied->row) != it->value()) {
      problem(fmt::format("index {} of table {} holds a stale row", ix.name, t.name));
    }
  }
  return it->status();
}

}  // namespace

Status CheckTsIndexes(const storage::Store& store,
                      const std::map<uint32_t, model::TableDescriptor>& tables,
                      uint64_t* index_rows, uint64_t* dropped_rows,
                      const std::function<void(std::string)>& problem) {
  for (const auto& [id, t] : tables) {
    if (!t.tablestore) continue;
    for (const auto& ix : t.tablestore->indexes) {
      RETURN_IF_ERROR(CheckIndexSide(store, t, ix, index_rows, problem));
      RETURN_IF_ERROR(CheckTableSide(store, t, ix, problem));
    }
    for (uint32_t d : t.tablestore->dropped_index_rows) {
      auto it = store.ScanFamily(storage::Family::kRows, versions::TableRowsBegin(d),
                                 versions::TableRowsEnd(d), false, nullptr);
      for (; it->Valid(); it->Next()) ++*dropped_rows;
      RETURN_IF_ERROR(it->status());
    }
  }
  return Status::Ok();
}

}  // namespace ttlstore::check
