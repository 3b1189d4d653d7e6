#include "ops/row_ops.h"

#include <algorithm>
#include <mutex>

#include "ops/row_batch.h"
#include "ops/row_overlay.h"
#include "ops/row_stream_record.h"
#include "ops/split_points.h"
#include "versions/auto_increment.h"

namespace ttlstore::ops {
namespace {

using versions::Column;
using versions::PkCell;
using versions::StoredRow;

Result<std::optional<StoredRow>> ReadRow(const storage::Store& store, const std::string& key) {
  auto raw = store.Get(storage::Family::kRows, key);
  if (!raw) return raw.error();
  if (!raw->has_value()) return std::optional<StoredRow>();
  StoredRow row;
  if (!versions::DecodeRow(**raw, &row)) return Error::Internal("corrupt row in the rows family");
  return std::optional<StoredRow>(std::move(row));
}

bool Wanted(const versions::ReadSpec& spec, const std::string& name) {
  return spec.columns.empty() ||
         std::find(spec.columns.begin(), spec.columns.end(), name) != spec.columns.end();
}

// update_full_row (docs/tablestore.md, "Update full row"): every column of `row` that no cell of
// `change` names gets its newest visible version put again at `now_ms`, so that an UpdateRow
// leaves every column of the row stamped with its time. The puts, for the stream record.
std::vector<streams::RecordColumn> RestampUntouched(StoredRow& row, const RowChange& change,
                                                    const model::VersionOptions& options,
                                                    int64_t now_ms) {
  std::vector<streams::RecordColumn> puts;
  for (auto& column : row.columns) {
    bool named = std::any_of(change.cells.begin(), change.cells.end(),
                             [&](const CellChange& c) { return c.column == column.name; });
    if (named) continue;
    const versions::Version* latest = versions::LatestVisible(column, options, now_ms);
    if (!latest || latest->timestamp_ms == now_ms) continue;
    model::CellValue value = latest->value;
    versions::PutVersion(column, now_ms, value);
    streams::RecordColumn put;
    put.name = column.name;
    put.value = std::move(value);
    put.timestamp_ms = now_ms;
    puts.push_back(std::move(put));
  }
  return puts;
}

size_t ViewBytes(const RowView& v) {
  size_t n = 0;
  for (const auto& c : v.primary_key) n += c.name.size() + versions::ValueSize(c.value);
  for (const auto& c : v.columns) {
    for (const auto& ver : c.versions) n += c.name.size() + 8 + versions::ValueSize(ver.value);
  }
  return n;
}

}  // namespace

Status RowOps::ApplyUpdate(const model::TableDescriptor& table, const RowChange& change,
                           int64_t now_ms, StoredRow& row) const {
  const auto& options = table.tablestore->options;
  for (const auto& cell : change.cells) {
    switch (cell.kind) {
      case CellChange::Kind::kPut:
        versions::PutVersion(row.FindOrAdd(cell.column), cell.timestamp_ms.value_or(now_ms),
                             cell.value);
        break;
      case CellChange::Kind::kDeleteOneVersion:
        if (Column* c = row.Find(cell.column)) {
          versions::DeleteVersion(*c, *cell.timestamp_ms);
          row.DropIfEmpty(cell.column);
        }
        break;
      case CellChange::Kind::kDeleteAllVersions:
        if (Column* c = row.Find(cell.column)) {
          c->versions.clear();
          row.DropIfEmpty(cell.column);
        }
        break;
      case CellChange::Kind::kIncrement: {
        int64_t base = 0;
        // The sum's version is never older than the version it adds to: a write whose time was
        // read before it waited for the row's lock (or another process's clock a little
        // ahead) may find a newer version there, and a sum stamped below it would stay hidden
        // behind it, the increment lost. At the same time it replaces that version.
        int64_t stamp = now_ms;
        if (const Column* c = row.Find(cell.column)) {
          if (const versions::Version* latest = versions::LatestVisible(*c, options, now_ms)) {
            if (latest->value.type != model::CellType::kInteger) {
              return Error::Validation("Column: " + cell.column +
                                       " is not of type INTEGER and cannot be incremented.");
            }
            base = latest->value.integer;
            stamp = std::max(stamp, latest->timestamp_ms);
          }
        }
        int64_t sum;
        if (__builtin_add_overflow(base, cell.value.integer, &sum)) {
          return Error::Validation("Increment of column: " + cell.column + " overflows INT64.");
        }
        versions::PutVersion(row.FindOrAdd(cell.column), stamp, model::CellValue::Integer(sum));
        break;
      }
    }
  }
  return Status::Ok();
}

Result<std::optional<StoredRow>> RowOps::Apply(const model::TableDescriptor& table,
                                                const RowChange& change,
                                                const std::optional<StoredRow>& old,
                                                int64_t now_ms, uint64_t* trimmed,
                                                std::optional<streams::RowRecord>* record) const {
  uint64_t unused = 0;
  if (!trimmed) trimmed = &unused;
  const auto& schema = *table.tablestore;
  if (change.kind == RowChange::Kind::kUpdate && !schema.options.allow_update) {
    return Error::Validation("UpdateRow is not allowed: the table's allow_update option is false.");
  }
  // T9: any version stamped outside the window fails the whole row.
  for (const auto& cell : change.cells) {
    if (cell.kind == CellChange::Kind::kPut && cell.timestamp_ms) {
      auto ok = versions::CheckWriteWindow(*cell.timestamp_ms, cell.column, schema.options, now_ms);
      if (!ok) return ok.error();
    }
  }
  // A put or update naming a value of the AUTO_INCREMENT column modifies an existing row only:
  // IGNORE works as EXPECT_EXIST, and EXPECT_NOT_EXIST can never hold (RowChange::generated_key).
  RowExistence condition = change.condition;
  if (schema.AutoIncrementColumn() >= 0 && !change.generated_key &&
      change.kind != RowChange::Kind::kDelete) {
    if (condition == RowExistence::kExpectNotExist) {
      return Error(ErrorCode::kConditionalCheckFailed, kConditionCheckFailed);
    }
    condition = RowExistence::kExpectExist;
  }
  if (condition != RowExistence::kIgnore || change.column_condition) {
    bool exists = old && versions::RowVisible(*old, schema.options, now_ms);
    if (condition != RowExistence::kIgnore && exists != (condition == RowExistence::kExpectExist)) {
      return Error(ErrorCode::kConditionalCheckFailed, kConditionCheckFailed);
    }
    // The column condition sees every visible version of every column of the row as stored
    // (none of a row that does not exist for readers), and the key.
    if (change.column_condition) {
      std::vector<Column> seen;
      if (exists) {
        versions::ReadSpec all;
        all.max_versions = 0;
        seen = versions::VisibleColumns(*old, schema.options, now_ms, all);
      }
      if (!versions::RowPasses(*change.column_condition, change.primary_key, seen)) {
        return Error(ErrorCode::kConditionalCheckFailed, kConditionCheckFailed);
      }
    }
  }

  // The row as it will be stored, or nullopt to delete it. Whatever the change, what the
  // options hide now is dropped, before the change (so that deleting a visible version cannot
  // bring back one hidden behind it) and after it (versions the change pushed out): a write
  // costs in proportion to max versions, not to the row's history. Data hidden by a lowered
  // option is thus gone for good at the row's next write (docs/tablestore.md).
  std::optional<StoredRow> row;
  switch (change.kind) {
    case RowChange::Kind::kDelete:
      break;
    case RowChange::Kind::kPut: {
      // PutRow replaces the row: every version of every column it had is gone.
      row.emplace();
      for (const auto& cell : change.cells) {
        versions::PutVersion(row->FindOrAdd(cell.column), cell.timestamp_ms.value_or(now_ms),
                             cell.value);
      }
      // A version inside the write window can still be past the TTL by less than a second
      // (T9 compares seconds); one that is hidden the moment it is written is not kept.
      if (versions::PurgeRow(*row, schema.options, now_ms, trimmed) ==
          versions::PurgeVerdict::kRemove) {
        row.reset();
      }
      break;
    }
    case RowChange::Kind::kUpdate: {
      row.emplace();
      if (old) {
        *row = *old;
        // An expired row updated is a new row: its hidden versions must not come back with
        // it. Trimming does exactly that (it leaves no column of a row that has aged out).
        versions::PurgeRow(*row, schema.options, now_ms, trimmed);
      }
      auto applied = ApplyUpdate(table, change, now_ms, *row);
      if (!applied) return applied.error();
      std::vector<streams::RecordColumn> restamped;
      if (schema.options.update_full_row) {
        restamped = RestampUntouched(*row, change, schema.options, now_ms);
      }
      // The stream shows the update as applied, before trimming (ops/row_stream_record.h), the
      // columns update_full_row stamped again after the request's own.
      if (record) {
        *record = RowStreamRecord(change, now_ms, &*row);
        for (auto& put : restamped) (*record)->columns.push_back(std::move(put));
      }
      versions::PurgeRow(*row, schema.options, now_ms, trimmed);
      // A row left with no cell is gone, as in the service's cell store (only PutRow makes a
      // row of its primary key alone).
      if (row->columns.empty()) row.reset();
      break;
    }
  }
  if (record) {
    if (!*record) *record = RowStreamRecord(change, now_ms, nullptr);
    // The values the stream's origin columns had before the write (docs/tablestore.md,
    // "Streams"): `old` is the row as the writer saw it, hidden versions included.
    const model::StreamInfo* stream = table.enabled_stream();
    if (stream && !stream->origin_columns.empty()) {
      (*record)->origin = OriginColumns(old, stream->origin_columns, schema.options, now_ms);
    }
  }
  return row;
}

Status RowOps::Write(const model::TableDescriptor& table, const RowChange& change, StoredRow* after,
                     std::vector<PkCell>* written_key, const RowGuard* guard) {
  const auto& schema = *table.tablestore;
  const int ai = schema.AutoIncrementColumn();
  if (ai >= 0 && static_cast<size_t>(ai) < change.primary_key.size() &&
      change.primary_key[ai].value.type == model::CellType::kAutoIncrement &&
      change.kind != RowChange::Kind::kDelete) {
    return WriteGenerated(table, change, ai, after, written_key);
  }
  auto key = versions::EncodeRowKey(table.id, schema.primary_key, change.primary_key);
  if (!key) return key.error();
  uint64_t trimmed = 0;
  std::vector<storage::RmwKey> rmw_keys{{storage::Family::kRows, *key}};
  if (guard) rmw_keys.push_back(guard->key);
  RETURN_IF_ERROR(store_.ReadModifyWrite(
      rmw_keys, [&](const storage::RmwReads& reads, storage::WriteBatch& batch) -> Status {
        if (guard) RETURN_IF_ERROR(guard->check(reads[1], batch));
        // The write's time is read with the row locked, so the versions it stamps follow the
        // order the row's writers commit in (and an INCREMENT never stamps below the version
        // it adds to: ApplyUpdate).
        const int64_t now_ms = clock_.NowMs();
        ASSIGN_OR_RETURN(old, DecodeRead(reads[0]));
        return Stage(table, change, *key, std::move(old), now_ms, nullptr, batch, after,
                     &trimmed);
      }));
  NoteTrimmed(trimmed);
  if (written_key) *written_key = change.primary_key;
  return Status::Ok();
}

Status RowOps::WriteGenerated(const model::TableDescriptor& table, const RowChange& change, int ai,
                              StoredRow* after, std::vector<PkCell>* written_key) {
  const auto& schema = *table.tablestore;
  if (change.primary_key.empty()) return Error::Validation("The primary key is empty.");
  auto sequence_key = versions::SequenceKey(table.id, schema.primary_key, change.primary_key[0]);
  if (!sequence_key) return sequence_key.error();
  uint64_t trimmed = 0;
  RowChange generated;
  // A read-modify-write of the partition key's record: the value is chosen from it and the
  // record written back in the row's batch.
  RETURN_IF_ERROR(store_.ReadModifyWrite(
      {{storage::Family::kSequences, *sequence_key}},
      [&](const storage::RmwReads& reads, storage::WriteBatch& batch) -> Status {
        const int64_t now_ms = clock_.NowMs();  // with the record locked, as in Write
        std::optional<int64_t> last;
        if (reads[0]) {
          last = versions::DecodeSequenceValue(*reads[0]);
          if (!last) return Error::Internal("corrupt record in the sequences family");
        }
        std::optional<int64_t> value = versions::NextAutoIncrement(last, now_ms * 1000);
        if (!value) {
          return Error::Validation("No AUTO_INCREMENT value is left for this partition key.");
        }
        generated = change;
        generated.primary_key[ai].value = model::CellValue::Integer(*value);
        generated.generated_key = true;
        auto key = versions::EncodeRowKey(table.id, schema.primary_key, generated.primary_key);
        if (!key) return key.error();
        // The row of a value never issued before: no other writer can create it (a write naming
        // a value only modifies an existing row), so a plain read is enough.
        ASSIGN_OR_RETURN(old, ReadRow(store_, *key));
        const std::pair<std::string, int64_t> sequence{*sequence_key, *value};
        return Stage(table, generated, *key, std::move(old), now_ms, &sequence, batch, after,
                     &trimmed);
      }));
  NoteTrimmed(trimmed);
  if (written_key) *written_key = std::move(generated.primary_key);
  return Status::Ok();
}

Status RowOps::Stage(const model::TableDescriptor& table, const RowChange& change,
                     const std::string& key, std::optional<StoredRow> old, int64_t now_ms,
                     const std::pair<std::string, int64_t>* sequence, storage::WriteBatch& batch,
                     StoredRow* after, uint64_t* trimmed) {
  const auto& schema = *table.tablestore;
  // The row is always read: its purge-index entries are a function of it, and a write replaces
  // them (ops/row_batch.h).
  *trimmed = 0;
  const bool streamed = streams_ && table.enabled_stream();
  std::optional<streams::RowRecord> record;
  auto applied = Apply(table, change, old, now_ms, trimmed, streamed ? &record : nullptr);
  if (!applied) return applied.error();
  std::optional<StoredRow>& row = *applied;
  // Nothing stored before or after: nothing to write, except a generated value, which is
  // issued (returned) all the same and so must never be issued again.
  if (!old && !row && !sequence) {
    if (after) *after = StoredRow();
    return Status::Ok();
  }
  if (old || row) {
    StageRowChange(batch, schema, key, old ? &*old : nullptr, row ? &*row : nullptr);
    if (streamed) streams_->AddRowRecord(batch, table, std::move(*record));
  }
  if (sequence) {
    batch.Put(storage::Family::kSequences, sequence->first,
              versions::EncodeSequenceValue(sequence->second));
  }
  if (after) *after = row ? std::move(*row) : StoredRow();
  return Status::Ok();
}

Result<std::optional<StoredRow>> RowOps::DecodeRead(const std::optional<std::string>& raw) {
  if (!raw) return std::optional<StoredRow>();
  StoredRow row;
  if (!versions::DecodeRow(*raw, &row)) return Error::Internal("corrupt row in the rows family");
  return std::optional<StoredRow>(std::move(row));
}

Result<std::optional<StoredRow>> RowOps::Read(const std::string& key) const {
  return ReadRow(store_, key);
}

std::optional<RowView> RowOps::View(const model::TableDescriptor& table, std::string_view key,
                                    const StoredRow& row, int64_t now_ms,
                                    const versions::ReadSpec& spec, bool* filtered_out) const {
  const auto& schema = *table.tablestore;
  if (!versions::RowVisible(row, schema.options, now_ms)) return std::nullopt;
  RowView view;
  view.columns = versions::VisibleColumns(row, schema.options, now_ms, spec);
  std::vector<PkCell> pk;
  if (!versions::DecodeRowKey(key, schema.primary_key, &pk)) return std::nullopt;
  // The filter sees what the read returns (and the whole key); a pagination filter then picks
  // among the returned columns.
  if (spec.filter) {
    if (!versions::RowPasses(*spec.filter, pk, view.columns)) {
      if (filtered_out) *filtered_out = true;
      return std::nullopt;
    }
    versions::Paginate(*spec.filter, view.columns);
  }
  // A row that shows none of the asked-for columns (no key column named, no named attribute
  // column visible) is reported as absent, like the service; a row that is returned carries
  // its whole primary key whatever `columns_to_get` names, as the service's rows do and the
  // Python, Java and Go SDKs' decoders require (docs/tablestore.md, "What a read returns").
  if (!spec.columns.empty() && view.columns.empty() &&
      std::none_of(pk.begin(), pk.end(),
                   [&](const PkCell& cell) { return Wanted(spec, cell.name); })) {
    return std::nullopt;
  }
  view.primary_key = std::move(pk);
  return view;
}

std::optional<RowView> RowOps::ViewRow(const model::TableDescriptor& table, std::string_view key,
                                       const StoredRow& row,
                                       const versions::ReadSpec& spec) const {
  return View(table, key, row, clock_.NowMs(), spec);
}

Result<std::optional<RowView>> RowOps::Get(const model::TableDescriptor& table,
                                           const std::vector<PkCell>& primary_key,
                                           const versions::ReadSpec& spec) const {
  auto key = versions::EncodeRowKey(table.id, table.tablestore->primary_key, primary_key);
  if (!key) return key.error();
  auto row = ReadRow(store_, *key);
  if (!row) return row.error();
  if (!row->has_value()) return std::optional<RowView>();
  return View(table, *key, **row, clock_.NowMs(), spec);
}

Result<RangeResult> RowOps::GetRange(const model::TableDescriptor& table,
                                     const RangeRequest& request,
                                     const RowOverlay* overlay) const {
  const auto& schema = *table.tablestore;
  auto start = versions::EncodeRangeBound(table.id, schema.primary_key, request.start);
  if (!start) return start.error();
  auto end = versions::EncodeRangeBound(table.id, schema.primary_key, request.end);
  if (!end) return end.error();
  RangeResult result;
  // Forward: [start, end). Backward: (end, start], walked from start down.
  std::string lower, upper;
  // A range that holds no key is refused, equal bounds included, with the service's texts
  // (the Python SDK's row_op_test asserts both; docs/tablestore.md, "Refusals of row reads").
  if (!request.backward) {
    if (*start >= *end) return Error::Validation("Begin key must less than end key in FORWARD");
    lower = *start;
    upper = *end;
  } else {
    if (*start <= *end) return Error::Validation("Begin key must more than end key in BACKWARD");
    lower = *end + '\0';  // the smallest key above end
    upper = *start + '\0';
  }
  const int64_t now_ms = clock_.NowMs();
  size_t limit = request.limit > 0 ? std::min<size_t>(request.limit, kMaxRangeRows) : kMaxRangeRows;
  // `read`: rows that exist for readers, returned or dropped by the filter (the service's
  // 5000 scanned rows); `scanned` also counts rows hidden by the options.
  size_t bytes = 0, scanned = 0, read = 0;
  OverlayScan it(store_.ScanFamily(storage::Family::kRows, lower, upper, request.backward, nullptr),
                 overlay, lower, upper, request.backward);
  for (; it.Valid(); it.Next()) {
    if (result.rows.size() >= limit || bytes >= kMaxRangeBytes || read >= kMaxRangeRows ||
        scanned >= 4 * kMaxRangeRows) {
      std::vector<PkCell> next;
      if (!versions::DecodeRowKey(it.key(), schema.primary_key, &next)) {
        return Error::Internal("corrupt row key in the rows family");
      }
      result.next_start = std::move(next);
      break;
    }
    ++scanned;
    const StoredRow* row = it.row();
    if (!row) return Error::Internal("corrupt row in the rows family");
    bool filtered_out = false;
    if (auto view = View(table, it.key(), *row, now_ms, request.spec, &filtered_out)) {
      bytes += ViewBytes(*view);
      result.rows.push_back(std::move(*view));
      ++read;
    } else if (filtered_out) {
      ++read;
    }
  }
  if (Status st = it.status(); !st) return st.error();
  return result;
}

Result<std::vector<versions::PkCell>> RowOps::SplitPoints(const model::TableDescriptor& table,
                                                          uint64_t split_bytes,
                                                          size_t max_points) const {
  return ComputeSplitPoints(store_, table, split_bytes, max_points);
}

}  // namespace ttlstore::ops
