#include "ops/row_batch.h"

#include <algorithm>

#include "versions/purge_index.h"

namespace ttlstore::ops {

void StageRowChange(storage::WriteBatch& batch, const std::string& key,
                    const versions::StoredRow* before, const versions::StoredRow* after,
                    bool put_all_marks) {
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
  if (after) {
    batch.Put(storage::Family::kRows, key, versions::EncodeRow(*after));
  } else {
    batch.Delete(storage::Family::kRows, key);
  }
}

}  // namespace ttlstore::ops
