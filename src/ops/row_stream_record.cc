#include "ops/row_stream_record.h"

#include "versions/visibility.h"

namespace ttlstore::ops {

streams::RowRecord RowStreamRecord(const RowChange& change, int64_t now_ms,
                                   const versions::StoredRow* applied) {
  streams::RowRecord r;
  r.created_ms = now_ms;
  r.action = change.kind == RowChange::Kind::kPut      ? streams::RowAction::kPutRow
             : change.kind == RowChange::Kind::kUpdate ? streams::RowAction::kUpdateRow
                                                       : streams::RowAction::kDeleteRow;
  for (const auto& pk : change.primary_key) r.primary_key.emplace_back(pk.name, pk.value);
  if (change.kind == RowChange::Kind::kDelete) return r;
  for (const auto& cell : change.cells) {
    streams::RecordColumn c;
    c.name = cell.column;
    switch (cell.kind) {
      case CellChange::Kind::kPut:
        c.value = cell.value;
        c.timestamp_ms = cell.timestamp_ms.value_or(now_ms);
        break;
      case CellChange::Kind::kDeleteOneVersion:
        c.op = streams::ColumnOp::kDeleteOneVersion;
        c.timestamp_ms = cell.timestamp_ms;
        break;
      case CellChange::Kind::kDeleteAllVersions:
        c.op = streams::ColumnOp::kDeleteAllVersions;
        break;
      case CellChange::Kind::kIncrement: {
        c.timestamp_ms = now_ms;
        const versions::Column* col = applied ? applied->Find(cell.column) : nullptr;
        if (col) {
          for (const auto& v : col->versions) {
            if (v.timestamp_ms == now_ms) c.value = v.value;
          }
        }
        if (!c.value) c.value = cell.value;  // not reached: the increment put that version
        break;
      }
    }
    r.columns.push_back(std::move(c));
  }
  return r;
}

std::vector<streams::RecordColumn> OriginColumns(const std::optional<versions::StoredRow>& old,
                                                 const std::vector<std::string>& names,
                                                 const model::VersionOptions& options,
                                                 int64_t now_ms) {
  std::vector<streams::RecordColumn> out;
  if (!old) return out;
  for (const auto& name : names) {
    const versions::Column* column = old->Find(name);
    if (!column) continue;
    const versions::Version* latest = versions::LatestVisible(*column, options, now_ms);
    if (!latest) continue;
    streams::RecordColumn c;
    c.name = name;
    c.value = latest->value;
    c.timestamp_ms = latest->timestamp_ms;
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace ttlstore::ops
