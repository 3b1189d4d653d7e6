#include "ops/row_purger.h"

#include "common/coding.h"
#include "versions/row.h"
#include "versions/visibility.h"

namespace ttlstore::ops {

RowPurger::Decision RowPurger::Purge(std::string_view key, std::string_view value,
                                     std::string* new_value) const {
  uint32_t table_id;
  std::string_view rest = key;
  if (!GetFixed32BE(&rest, &table_id)) return Decision::kKeep;
  TablePtr table = catalog_.FindById(table_id);
  // DeleteTable drops a table's rows with a range delete; anything of an unknown table left
  // over is garbage. Keep rows of a table that is not a Tablestore table: not ours to judge.
  if (!table) {
    counters_.rows_removed.fetch_add(1, std::memory_order_relaxed);
    return Decision::kRemove;
  }
  if (!table->tablestore) return Decision::kKeep;
  versions::StoredRow row;
  if (!versions::DecodeRow(value, &row)) return Decision::kKeep;
  uint64_t purged = 0;
  auto verdict = versions::PurgeRow(row, table->tablestore->options, clock_.NowMs(), &purged);
  counters_.versions_purged.fetch_add(purged, std::memory_order_relaxed);
  switch (verdict) {
    case versions::PurgeVerdict::kKeep: return Decision::kKeep;
    case versions::PurgeVerdict::kRewrite:
      *new_value = versions::EncodeRow(row);
      return Decision::kRewrite;
    case versions::PurgeVerdict::kRemove:
      counters_.rows_removed.fetch_add(1, std::memory_order_relaxed);
      return Decision::kRemove;
  }
  return Decision::kKeep;
}

}  // namespace ttlstore::ops
