// ComputeSplitPointsBySize's engine side: cut a Tablestore table's rows, in key order, into
// ranges of about a given number of bytes, each range starting at a new value of the first
// primary-key column (a split point names that column only; a reader pads the other columns
// with INF_MIN, so the ranges INF_MIN..p1, p1..p2, ..., pn..INF_MAX cover the table once).
//
// Sizes are exact, not estimated: the rows are walked once and each counts the bytes of its
// stored key and value. That is a full scan of the table (cheap at the sizes a local server
// holds; the service answers from its partitions' statistics).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "model/table.h"
#include "storage/store.h"
#include "versions/row_key.h"

namespace ttlstore::ops {

// At most this many split points are returned whatever the caller asks (a bound on the
// response; 10,000 ranges is far more parallelism than any reader uses).
inline constexpr size_t kMaxSplitPoints = 10000;

// The pure part: fed the rows in key order, as (first primary-key column's value, bytes), it
// decides where ranges start. A range ends once it holds at least `split_bytes`, at the next
// change of the first column's value (rows sharing it cannot be told apart by a split point).
class SplitPointPicker {
 public:
  SplitPointPicker(uint64_t split_bytes, size_t max_points)
      : split_bytes_(split_bytes == 0 ? 1 : split_bytes), max_points_(max_points) {}

  // True if a new range starts at this row (its first column's value is then a split point).
  // `first` must compare as the values do (equal bytes for equal values).
  bool Add(std::string_view first, uint64_t row_bytes);
  size_t points() const { return points_; }

 private:
  uint64_t split_bytes_;
  size_t max_points_;
  uint64_t in_range_ = 0;  // bytes of the current range so far
  std::optional<std::string> last_first_;
  size_t points_ = 0;
};

// The table's split points (first primary-key column only), in increasing order. With
// `max_points` set, the range size grows so that at most that many points come back.
Result<std::vector<versions::PkCell>> ComputeSplitPoints(const storage::Store& store,
                                                         const model::TableDescriptor& table,
                                                         uint64_t split_bytes,
                                                         size_t max_points);

}  // namespace ttlstore::ops
