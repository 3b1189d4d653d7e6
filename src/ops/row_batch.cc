#include "ops/row_batch.h"

#include <algorithm>

#include "storage/search_queue.h"
#include "versions/index_rows.h"
#include "versions/purge_index.h"

namespace ttlstore::ops {

void StageRowChange(storage::WriteBatch& batch, const model::TablestoreSchema& schema,
                    const std::string& key, const versions::StoredRow* before,
                    const versions::StoredRow* after, bool put_all_marks) {
  for (const auto& ix : schema.indexes) {
    std::optional<versions::IndexRow> old_row, new_row;
    if (before) old_row = versions::IndexRowOf(schema, ix, key, *before);
    if (after) new_row = versions::IndexRowOf(schema, ix, key, *after);
    std::string encoded = new_row ? versions::EncodeRow(new_row->row) : std::string();
    if (old_row && (!new_row || old_row->key != new_row->key)) {
      batch.Delete(storage::Family::kRows, old_row->key);
    }
    if (new_row && (!old_row || old_row->key != new_row->key ||
                    versions::EncodeRow(old_row->row) != encoded)) {
      batch.Put(storage::Family::kRows, new_row->key, encoded);
    }
  }
  std::vector<std::string> old_marks, new_marks;
  if (before) old_marks = versions::MarksOf(key, *before);
  if (after) new_marks = versions::MarksOf(key, *after);
  // Both lists are sorted: one merge walk finds what to delete and what to put.
  auto o = old_marks.begin();
  auto n = new_marks.begin();
  while (o != old_marks.end() || n != new_marks.end()) {
    if (n == new_marks.end() || (o != old_marks.end() && *o < *n)) {
      batch.Delete(storage::Family::kPurge, *o++);
    } else if (o == old_marks.end() || *n < *o) {
      batch.Put(storage::Family::kPurge, *n++, {});
    } else {
      if (put_all_marks) batch.Put(storage::Family::kPurge, *n, {});
      ++o;
      ++n;
    }
  }
  if (!schema.search_indexes.empty() && key.size() >= 4) {
    // The search indexes learn of the change from the queue (storage/search_queue.h); the
    // table id is the row key's first 4 bytes.
    std::string_view k = key;
    uint32_t table_id = 0;
    GetFixed32BE(&k, &table_id);
    if (batch.store().SharedByProcesses()) {
      // Numbered at commit from the table's head, so that every process can follow the queue
      // by a cursor (search/shared_queue.h). No head yet: above every entry stored at Open.
      const uint64_t fallback = batch.store().LastSearchQueueSeq();
      batch.PutSequenced(
          storage::Family::kSearch, storage::SearchQueueHeadKey(table_id),
          [table_id, fallback, row = std::string(key)](const std::optional<std::string>& head) {
            uint64_t seq = (head ? storage::DecodeSearchSeq(*head) : fallback) + 1;
            storage::SequencedWrite w;
            w.head = storage::EncodeSearchSeq(seq);
            w.puts.emplace_back(storage::SearchQueueKey(table_id, seq), row);
            return w;
          });
    } else {
      batch.Put(storage::Family::kSearch,
                storage::SearchQueueKey(table_id, batch.store().NextSearchQueueSeq()), key);
    }
  }
  if (after) {
    batch.Put(storage::Family::kRows, key, versions::EncodeRow(*after));
  } else {
    batch.Delete(storage::Family::kRows, key);
  }
}

}  // namespace ttlstore::ops
