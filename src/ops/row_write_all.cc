// RowOps::WriteAll: the rows of an atomic BatchWriteRow (is_atomic), written all or none in one
// WriteBatch (docs/tablestore.md, "Atomic batch writes").
#include <map>

#include "ops/row_batch.h"
#include "ops/row_ops.h"

namespace ttlstore::ops {

Status RowOps::WriteAll(const model::TableDescriptor& table, const std::vector<RowChange>& changes,
                        std::vector<versions::StoredRow>* afters, size_t* failed) {
  const auto& schema = *table.tablestore;
  std::vector<std::string> keys;
  keys.reserve(changes.size());
  for (size_t i = 0; i < changes.size(); ++i) {
    auto key = versions::EncodeRowKey(table.id, schema.primary_key, changes[i].primary_key);
    if (!key) {
      *failed = i;
      return key.error();
    }
    keys.push_back(std::move(*key));
  }
  KeyLocks::Guard guard(locks_, keys);
  const int64_t now_ms = clock_.NowMs();
  // Each row as stored, and as the changes so far leave it.
  std::map<std::string, std::optional<versions::StoredRow>> stored, current;
  for (const auto& key : keys) {
    if (stored.count(key)) continue;
    auto read = Read(key);
    if (!read) {
      *failed = 0;
      return read.error();
    }
    current[key] = *read;
    stored[key] = std::move(*read);
  }
  const bool streamed = streams_ && table.enabled_stream();
  std::vector<streams::RowRecord> records;
  uint64_t trimmed = 0;
  if (afters) afters->clear();
  for (size_t i = 0; i < changes.size(); ++i) {
    std::optional<versions::StoredRow>& row = current[keys[i]];
    std::optional<streams::RowRecord> record;
    auto applied = Apply(table, changes[i], row, now_ms, &trimmed, streamed ? &record : nullptr);
    if (!applied) {
      *failed = i;
      return applied.error();
    }
    // As Write: a change that leaves nothing where there was nothing makes no record.
    if (streamed && (row || *applied)) records.push_back(std::move(*record));
    row = std::move(*applied);
    if (afters) afters->push_back(row ? *row : versions::StoredRow());
  }
  storage::WriteBatch batch(store_);
  bool any = false;
  for (const auto& [key, before] : stored) {
    const std::optional<versions::StoredRow>& after = current[key];
    if (!before && !after) continue;
    StageRowChange(batch, schema, key, before ? &*before : nullptr, after ? &*after : nullptr);
    any = true;
  }
  if (!any && records.empty()) return Status::Ok();
  for (auto& record : records) streams_->AddRowRecord(batch, table, std::move(record));
  RETURN_IF_ERROR(store_.Write(batch));
  NoteTrimmed(trimmed);
  return Status::Ok();
}

}  // namespace ttlstore::ops
