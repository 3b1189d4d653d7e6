// RowOps::WriteAll: the rows of an atomic BatchWriteRow (is_atomic), written all or none in one
// WriteBatch (docs/tablestore.md, "Atomic batch writes").
#include <algorithm>
#include <map>
#include <optional>

#include "ops/row_batch.h"
#include "ops/row_ops.h"
#include "versions/auto_increment.h"

namespace ttlstore::ops {

Status RowOps::WriteAll(const model::TableDescriptor& table, const std::vector<RowChange>& input,
                        std::vector<versions::StoredRow>* afters, size_t* failed,
                        std::vector<std::vector<versions::PkCell>>* written_keys,
                        const RowGuard* guard) {
  const auto& schema = *table.tablestore;
  const int ai = schema.AutoIncrementColumn();
  auto has_placeholder = [&](const RowChange& c) {
    return ai >= 0 && static_cast<size_t>(ai) < c.primary_key.size() &&
           c.primary_key[ai].value.type == model::CellType::kAutoIncrement &&
           c.kind != RowChange::Kind::kDelete;
  };
  // One read-modify-write (storage::Store::ReadModifyWrite) of the keys known before reading:
  // the `sequences` records of the changes with the AUTO_INCREMENT placeholder
  // (versions/auto_increment.h), the rows of the others. A placeholder's row, under a value
  // never issued before, no other writer can create: it is read plainly.
  std::vector<std::string> sequence_keys(input.size()), fixed_keys(input.size());
  std::vector<storage::RmwKey> rmw_keys;
  for (size_t i = 0; i < input.size(); ++i) {
    if (has_placeholder(input[i])) {
      auto key = versions::SequenceKey(table.id, schema.primary_key, input[i].primary_key[0]);
      if (!key) {
        *failed = i;
        return key.error();
      }
      sequence_keys[i] = *key;
      rmw_keys.push_back({storage::Family::kSequences, std::move(*key)});
    } else {
      auto key = versions::EncodeRowKey(table.id, schema.primary_key, input[i].primary_key);
      if (!key) {
        *failed = i;
        return key.error();
      }
      fixed_keys[i] = *key;
      rmw_keys.push_back({storage::Family::kRows, std::move(*key)});
    }
  }
  const size_t guard_index = rmw_keys.size();
  if (guard) rmw_keys.push_back(guard->key);
  std::vector<RowChange> generated;
  uint64_t trimmed = 0;
  RETURN_IF_ERROR(store_.ReadModifyWrite(rmw_keys, [&](const storage::RmwReads& reads,
                                                       storage::WriteBatch& batch) -> Status {
    if (guard) {
      if (Status s = guard->check(reads[guard_index], batch); !s) {
        *failed = 0;
        return s;
      }
    }
    const int64_t now_ms = clock_.NowMs();  // with the rows locked, as in RowOps::Write
    std::map<std::string, const std::optional<std::string>*> read_rows, read_sequences;
    for (size_t j = 0; j < guard_index; ++j) {
      (rmw_keys[j].family == storage::Family::kRows ? read_rows
                                                    : read_sequences)[rmw_keys[j].key] = &reads[j];
    }
    // Each placeholder gets its partition key's next value; the changes are written as copies
    // with the values in place.
    std::map<std::string, int64_t> sequences;  // record key -> the last value this batch issues
    generated.clear();
    if (std::any_of(sequence_keys.begin(), sequence_keys.end(),
                    [](const std::string& k) { return !k.empty(); })) {
      generated = input;
      for (size_t i = 0; i < input.size(); ++i) {
        if (sequence_keys[i].empty()) continue;
        std::optional<int64_t> last;
        if (auto it = sequences.find(sequence_keys[i]); it != sequences.end()) {
          last = it->second;
        } else if (const auto& raw = *read_sequences.at(sequence_keys[i]); raw) {
          last = versions::DecodeSequenceValue(*raw);
          if (!last) {
            *failed = i;
            return Error::Internal("corrupt record in the sequences family");
          }
        }
        std::optional<int64_t> value = versions::NextAutoIncrement(last, now_ms * 1000);
        if (!value) {
          *failed = i;
          return Error::Validation("No AUTO_INCREMENT value is left for this partition key.");
        }
        sequences[sequence_keys[i]] = *value;
        generated[i].primary_key[ai].value = model::CellValue::Integer(*value);
        generated[i].generated_key = true;
      }
    }
    const std::vector<RowChange>& changes = generated.empty() ? input : generated;
    std::vector<std::string> keys;
    keys.reserve(changes.size());
    for (size_t i = 0; i < changes.size(); ++i) {
      if (!fixed_keys[i].empty()) {
        keys.push_back(fixed_keys[i]);
        continue;
      }
      auto key = versions::EncodeRowKey(table.id, schema.primary_key, changes[i].primary_key);
      if (!key) {
        *failed = i;
        return key.error();
      }
      keys.push_back(std::move(*key));
    }
    // Each row as stored, and as the changes so far leave it.
    std::map<std::string, std::optional<versions::StoredRow>> stored, current;
    for (const auto& key : keys) {
      if (stored.count(key)) continue;
      auto it = read_rows.find(key);
      auto read = it != read_rows.end() ? DecodeRead(*it->second) : Read(key);
      if (!read) {
        *failed = 0;
        return read.error();
      }
      current[key] = *read;
      stored[key] = std::move(*read);
    }
    const bool streamed = streams_ && table.enabled_stream();
    std::vector<streams::RowRecord> records;
    trimmed = 0;
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
    for (const auto& [key, before] : stored) {
      const std::optional<versions::StoredRow>& after = current[key];
      if (!before && !after) continue;
      StageRowChange(batch, schema, key, before ? &*before : nullptr, after ? &*after : nullptr);
    }
    // Issued values are written even when their rows leave nothing: they are never issued again.
    for (const auto& [key, value] : sequences) {
      batch.Put(storage::Family::kSequences, key, versions::EncodeSequenceValue(value));
    }
    for (auto& record : records) streams_->AddRowRecord(batch, table, std::move(record));
    return Status::Ok();
  }));
  NoteTrimmed(trimmed);
  if (written_keys) {
    written_keys->clear();
    for (const auto& c : generated.empty() ? input : generated) {
      written_keys->push_back(c.primary_key);
    }
  }
  return Status::Ok();
}

}  // namespace ttlstore::ops
