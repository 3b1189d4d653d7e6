// The rules of the Tablestore model that decide what a reader sees and what a writer may stamp,
// as pure functions of a row, the table's *current* options and "now" (T2, T3, T5, T6, T8, T9).
// Reads, writes (which trim the row they write, ops/row_ops.h) and the purge (ops/row_purger.h)
// apply the same functions, so data is invisible the moment an option hides it and is dropped
// later by the same verdict.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "model/versioned_table.h"
#include "versions/filter.h"
#include "versions/row.h"

namespace ttlstore::versions {

// How many of the column's versions (newest first) are visible: at most max_versions (T2), and
// none older than the TTL (T8): a version is visible while now - timestamp <= TTL.
size_t VisibleCount(const Column& column, const model::VersionOptions& options, int64_t now_ms);

// A row exists for readers if it has a visible version, or if it holds no column at all (a row
// written with its primary key only). A row whose columns have all expired is gone (T6). An
// index row (versions/index_rows.h) exists while its lifetime column "" is visible; readers
// never see that column.
bool RowVisible(const StoredRow& row, const model::VersionOptions& options, int64_t now_ms);

// What a read asks for (T5). Columns are those of `columns` (all if empty) whose names lie in
// [start_column, end_column); their versions are filtered by the time range first, then capped
// at max_versions per column, newest first. The filter then sees exactly that, and decides
// whether the row is returned; a pagination filter last picks among the columns
// (docs/tablestore.md, "Filters and column conditions").
struct ReadSpec {
  int32_t max_versions = 1;          // <= 0: no cap beyond the table's own
  int64_t start_ms = 0;              // time range [start, end)
  int64_t end_ms = INT64_MAX;
  std::vector<std::string> columns;  // empty: all columns
  std::optional<std::string> start_column;  // inclusive, by name (bytewise)
  std::optional<std::string> end_column;    // exclusive
  std::shared_ptr<const Filter> filter;     // none: every row passes
};

// Whether the spec reads the attribute column `name` (columns to get and the column range).
bool ReadsColumn(const ReadSpec& spec, const std::string& name);

// The columns a reader sees, in name order, each with the versions the spec selects (columns
// with none are left out).
std::vector<Column> VisibleColumns(const StoredRow& row, const model::VersionOptions& options,
                                   int64_t now_ms, const ReadSpec& spec);

// The newest visible version of a column, or nullptr.
const Version* LatestVisible(const Column& column, const model::VersionOptions& options,
                             int64_t now_ms);

// T9: a written version must lie in [max(now - deviation, now - TTL), now + deviation), compared
// in seconds (timestamp / 1000). Error: the service's "Invalid timestamp. Cell:{name}.".
Status CheckWriteWindow(int64_t timestamp_ms, const std::string& column,
                        const model::VersionOptions& options, int64_t now_ms);

// What dropping the hidden versions did to one stored row (a write's trim, or the purge).
enum class PurgeVerdict { kKeep, kRewrite, kRemove };
// Drops every version the options hide from `row` (and columns left empty). kRemove when the
// row had columns and none is left; `purged` is increased by the number of versions dropped.
PurgeVerdict PurgeRow(StoredRow& row, const model::VersionOptions& options, int64_t now_ms,
                      uint64_t* purged);

}  // namespace ttlstore::versions
