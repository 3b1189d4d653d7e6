#include "ops/row_purger.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/coding.h"
#include "ops/row_batch.h"
#include "versions/purge_index.h"
#include "versions/row.h"
#include "versions/visibility.h"

namespace ttlstore::ops {
namespace {

// Rows purged per batch, in one read-modify-write (their keys locked while they are read,
// trimmed and written back):
// small enough that a writer of one of them waits a fraction of a millisecond, large enough
// that the WAL write is shared.
constexpr size_t kChunkRows = 64;

// Past every `rows` key (table ids are 4 bytes BE, and 0xFFFFFFFF is never reached).
const std::string kRowsEnd(5, '\xff');

}  // namespace

Status RowPurger::PurgeRows(uint32_t table_id, const std::vector<std::string>& row_keys,
                            const std::vector<std::string>& marks, bool put_all_marks,
                            PurgeStats* stats) {
  if (row_keys.empty()) return Status::Ok();
  // One read-modify-write of the rows (storage::Store::ReadModifyWrite): read, trimmed and
  // written back with no writer of them committing in between. The table is looked up inside
  // it and held until the batch is written: DeleteTable waits for holders before it drops the
  // table's rows, so a purge cannot write back a row of a table being dropped; and the options
  // are the current ones.
  std::vector<storage::RmwKey> rmw_keys;
  rmw_keys.reserve(row_keys.size());
  for (const auto& key : row_keys) rmw_keys.push_back({storage::Family::kRows, key});
  TablePtr table;
  PurgeStats local;
  RETURN_IF_ERROR(store_.ReadModifyWrite(rmw_keys, [&](const storage::RmwReads& reads,
                                                       storage::WriteBatch& batch) -> Status {
  table = catalog_.FindById(table_id);
  local = PurgeStats();
  if (!table || !table->tablestore) return Status::Ok();
  const model::VersionOptions& options = table->tablestore->options;
  const int64_t now_ms = clock_.NowMs();
  for (size_t i = 0; i < row_keys.size(); ++i) {
    const std::string& key = row_keys[i];
    const std::optional<std::string>& raw = reads[i];
    ++local.rows_read;
    versions::StoredRow before;
    bool present = raw.has_value();
    if (present && !versions::DecodeRow(*raw, &before)) {
      return Error::Internal("corrupt row in the rows family");
    }
    // An entry the row does not need (it cannot arise while every writer keeps the index, but
    // a stale entry must not make every later pass read this row again).
    if (!marks[i].empty()) {
      auto needed = present ? versions::MarksOf(key, before) : std::vector<std::string>();
      if (!std::binary_search(needed.begin(), needed.end(), marks[i])) {
        batch.Delete(storage::Family::kPurge, marks[i]);
      }
    }
    if (!present) continue;
    versions::StoredRow after = before;
    uint64_t purged = 0;
    auto verdict = versions::PurgeRow(after, options, now_ms, &purged);
    local.versions_purged += purged;
    switch (verdict) {
      case versions::PurgeVerdict::kKeep:
        if (put_all_marks) {
          StageRowChange(batch, *table->tablestore, key, &before, &after, true);
        }
        break;
      case versions::PurgeVerdict::kRewrite:
        StageRowChange(batch, *table->tablestore, key, &before, &after, put_all_marks);
        ++local.rows_rewritten;
        break;
      case versions::PurgeVerdict::kRemove:
        StageRowChange(batch, *table->tablestore, key, &before, nullptr);
        ++local.rows_removed;
        break;
    }
  }
  return Status::Ok();
  }));
  // Counted once written: a failed batch purged nothing.
  stats->rows_read += local.rows_read;
  stats->rows_rewritten += local.rows_rewritten;
  stats->rows_removed += local.rows_removed;
  stats->versions_purged += local.versions_purged;
  counters_.rows_read.fetch_add(local.rows_read, std::memory_order_relaxed);
  counters_.versions_purged.fetch_add(local.versions_purged, std::memory_order_relaxed);
  counters_.rows_removed.fetch_add(local.rows_removed, std::memory_order_relaxed);
  return Status::Ok();
}

Status RowPurger::PurgeMarkRange(uint32_t table_id, const std::string& begin,
                                 const std::string& end, PurgeStats* stats) {
  std::string from = begin;
  while (from < end && !cancelled_.load()) {
    std::vector<std::string> marks, keys;
    {
      auto it = store_.ScanFamily(storage::Family::kPurge, from, end, false, nullptr);
      for (; it->Valid() && marks.size() < kChunkRows; it->Next()) {
        std::string row_key;
        marks.emplace_back(it->key());
        if (!versions::RowKeyOfMark(marks.back(), &row_key)) {
          return Error::Internal("corrupt entry in the purge family");
        }
        keys.push_back(std::move(row_key));
      }
      if (!it->status()) return it->status();
    }
    if (marks.empty()) break;
    RETURN_IF_ERROR(PurgeRows(table_id, keys, marks, false, stats));
    // The rows just purged left this range (their entries now sit at a later bucket or a
    // lower count, or are gone): carry on past the last entry read.
    from = marks.back() + '\0';
  }
  return Status::Ok();
}

Result<PurgeStats> RowPurger::PurgeTable(uint32_t table_id) {
  PurgeStats stats;
  TablePtr table = catalog_.FindById(table_id);
  if (!table || !table->tablestore) return stats;
  const model::VersionOptions options = table->tablestore->options;
  table.reset();  // PurgeRows looks it up again, under the rows' locks
  // Rows keeping more versions of a column than max versions allows now.
  RETURN_IF_ERROR(PurgeMarkRange(table_id, versions::CountMarksBegin(table_id, options.max_versions),
                                 versions::CountMarksEnd(table_id), &stats));
  // Rows whose oldest version is past the TTL (T6, T8).
  if (options.time_to_live >= 0) {
    int64_t cutoff_ms = clock_.NowMs() - int64_t{options.time_to_live} * 1000;
    RETURN_IF_ERROR(PurgeMarkRange(table_id, versions::AgeMarksBegin(table_id),
                                   versions::AgeMarksEnd(table_id, cutoff_ms), &stats));
  }
  return stats;
}

Result<PurgeStats> RowPurger::PurgeAll() {
  PurgeStats total;
  for (const auto& name : catalog_.List(std::nullopt, SIZE_MAX, Front::kTablestore).names) {
    TablePtr table = catalog_.Find(name, Front::kTablestore);
    if (!table) continue;
    uint32_t id = table->id;
    table.reset();
    ASSIGN_OR_RETURN(stats, PurgeTable(id));
    total.rows_read += stats.rows_read;
    total.rows_rewritten += stats.rows_rewritten;
    total.rows_removed += stats.rows_removed;
    total.versions_purged += stats.versions_purged;
  }
  counters_.passes.fetch_add(1, std::memory_order_relaxed);
  return total;
}

Status RowPurger::BuildIndexIfNeeded() {
  const std::string built = versions::IndexBuiltKey();
  ASSIGN_OR_RETURN(done, store_.Get(storage::Family::kPurge, built));
  if (done.has_value()) return Status::Ok();
  PurgeStats stats;
  std::string from;
  while (true) {
    if (cancelled_.load()) return Status::Ok();  // not recorded as built: the next start resumes
    std::vector<std::string> keys;
    {
      auto it = store_.ScanFamily(storage::Family::kRows, from, kRowsEnd, false, nullptr);
      for (; it->Valid() && keys.size() < kChunkRows; it->Next()) keys.emplace_back(it->key());
      if (!it->status()) return it->status();
    }
    if (keys.empty()) break;
    from = keys.back() + '\0';
    // One batch per table: PurgeRows applies one table's options.
    for (size_t i = 0; i < keys.size();) {
      std::string_view prefix(keys[i].data(), std::min<size_t>(keys[i].size(), 4));
      size_t j = i;
      while (j < keys.size() && std::string_view(keys[j]).substr(0, 4) == prefix) ++j;
      std::string_view p = prefix;
      uint32_t table_id = 0;
      if (GetFixed32BE(&p, &table_id)) {
        std::vector<std::string> group(keys.begin() + i, keys.begin() + j);
        RETURN_IF_ERROR(PurgeRows(table_id, group, std::vector<std::string>(group.size()), true,
                                  &stats));
      }
      i = j;
    }
  }
  storage::WriteBatch batch(store_);
  batch.Put(storage::Family::kPurge, built, {});
  return store_.Write(batch);
}

std::string RenderVersionMetrics(const PurgeCounters& counters, const RowOps& rows) {
  return fmt::format(
      "# HELP ttlstore_versions_purged_total Versions of Tablestore-model rows purged because "
      "the table's max versions or TTL hid them.\n"
      "# TYPE ttlstore_versions_purged_total counter\n"
      "ttlstore_versions_purged_total {}\n"
      "# HELP ttlstore_versions_rows_purged_total Tablestore-model rows purged because no "
      "version of theirs was left visible.\n"
      "# TYPE ttlstore_versions_rows_purged_total counter\n"
      "ttlstore_versions_rows_purged_total {}\n"
      "# HELP ttlstore_versions_purge_rows_read_total Rows the purge read (the purge index "
      "names only rows that can hold hidden versions).\n"
      "# TYPE ttlstore_versions_purge_rows_read_total counter\n"
      "ttlstore_versions_purge_rows_read_total {}\n"
      "# HELP ttlstore_versions_purge_runs_total Purge passes finished.\n"
      "# TYPE ttlstore_versions_purge_runs_total counter\n"
      "ttlstore_versions_purge_runs_total {}\n"
      "# HELP ttlstore_versions_trimmed_total Versions writes dropped from the row they wrote "
      "because the table's max versions or TTL hid them.\n"
      "# TYPE ttlstore_versions_trimmed_total counter\n"
      "ttlstore_versions_trimmed_total {}\n",
      counters.versions_purged.load(), counters.rows_removed.load(), counters.rows_read.load(),
      counters.passes.load(), rows.versions_trimmed());
}

}  // namespace ttlstore::ops
