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
                        std::vector<std::vector<versions::PkCell>>* written_keys) {
  const auto& schema = *table.tablestore;
  const int64_t now_ms = clock_.NowMs();
  // AUTO_INCREMENT placeholders first (versions/auto_increment.h): under the locks of their
  // partition keys' records, taken before any row lock as Write takes them, each gets the next
  // value, and the changes are written as copies with the values in place.
  std::vector<RowChange> generated;
  std::map<std::string, int64_t> sequences;  // record key -> the last value this batch issues
  std::optional<KeyLocks::Guard> sequence_guard;
  const int ai = schema.AutoIncrementColumn();
  auto has_placeholder = [&](const RowChange& c) {
    return ai >= 0 && static_cast<size_t>(ai) < c.primary_key.size() &&
           c.primary_key[ai].value.type == model::CellType::kAutoIncrement &&
           c.kind != RowChange::Kind::kDelete;
  };
  if (std::any_of(input.begin(), input.end(), has_placeholder)) {
    std::vector<std::string> sequence_keys(input.size());
    std::vector<std::string> locked;
    for (size_t i = 0; i < input.size(); ++i) {
      if (!has_placeholder(input[i])) continue;
      auto key = versions::SequenceKey(table.id, schema.primary_key, input[i].primary_key[0]);
      if (!key) {
        *failed = i;
        return key.error();
      }
      sequence_keys[i] = *key;
      locked.push_back(std::move(*key));
    }
    sequence_guard.emplace(sequence_locks_, locked);
    generated = input;
    for (size_t i = 0; i < input.size(); ++i) {
      if (sequence_keys[i].empty()) continue;
      std::optional<int64_t> last;
      if (auto it = sequences.find(sequence_keys[i]); it != sequences.end()) {
        last = it->second;
      } else {
        auto raw = store_.Get(storage::Family::kSequences, sequence_keys[i]);
        if (!raw) {
          *failed = i;
          return raw.error();
        }
        if (raw->has_value()) {
          last = versions::DecodeSequenceValue(**raw);
          if (!last) {
            *failed = i;
            return Error::Internal("corrupt record in the sequences family");
          }
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
    auto key = versions::EncodeRowKey(table.id, schema.primary_key, changes[i].primary_key);
    if (!key) {
      *failed = i;
      return key.error();
    }
    keys.push_back(std::move(*key));
  }
  KeyLocks::Guard guard(locks_, keys);
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
  // Issued values are written even when their rows leave nothing: they are never issued again.
  for (const auto& [key, value] : sequences) {
    batch.Put(storage::Family::kSequences, key, versions::EncodeSequenceValue(value));
  }
  if (written_keys) {
    written_keys->clear();
    for (const auto& c : changes) written_keys->push_back(c.primary_key);
  }
  if (!any && records.empty() && sequences.empty()) return Status::Ok();
  for (auto& record : records) streams_->AddRowRecord(batch, table, std::move(record));
  RETURN_IF_ERROR(store_.Write(batch));
  NoteTrimmed(trimmed);
  return Status::Ok();
}

}  // namespace ttlstore::ops
