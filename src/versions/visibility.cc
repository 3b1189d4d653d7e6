#include "versions/visibility.h"

#include <algorithm>

namespace ttlstore::versions {
namespace {

// Floor division, so that negative timestamps round toward minus infinity like seconds should.
int64_t Seconds(int64_t ms) { return ms >= 0 ? ms / 1000 : -((-ms + 999) / 1000); }

}  // namespace

size_t VisibleCount(const Column& column, const model::VersionOptions& options, int64_t now_ms) {
  size_t n = std::min(column.versions.size(), static_cast<size_t>(std::max(options.max_versions, 0)));
  if (options.time_to_live < 0) return n;
  int64_t oldest_ms = now_ms - int64_t{options.time_to_live} * 1000;
  // Versions are newest first: the visible ones are a prefix.
  size_t i = 0;
  while (i < n && column.versions[i].timestamp_ms >= oldest_ms) ++i;
  return i;
}

bool RowVisible(const StoredRow& row, const model::VersionOptions& options, int64_t now_ms) {
  if (row.columns.empty()) return true;
  // An index row lives exactly while its lifetime column does (versions/index_rows.h).
  if (row.columns.front().name.empty()) {
    return VisibleCount(row.columns.front(), options, now_ms) > 0;
  }
  for (const auto& c : row.columns) {
    if (VisibleCount(c, options, now_ms) > 0) return true;
  }
  return false;
}

bool ReadsColumn(const ReadSpec& spec, const std::string& name) {
  if (spec.start_column && name < *spec.start_column) return false;
  if (spec.end_column && name >= *spec.end_column) return false;
  return spec.columns.empty() ||
         std::find(spec.columns.begin(), spec.columns.end(), name) != spec.columns.end();
}

std::vector<Column> VisibleColumns(const StoredRow& row, const model::VersionOptions& options,
                                   int64_t now_ms, const ReadSpec& spec) {
  std::vector<Column> out;
  for (const auto& c : row.columns) {
    if (c.name.empty() || !ReadsColumn(spec, c.name)) continue;  // "": an index row's lifetime
    size_t visible = VisibleCount(c, options, now_ms);
    Column picked;
    for (size_t i = 0; i < visible; ++i) {
      const Version& v = c.versions[i];
      if (v.timestamp_ms < spec.start_ms || v.timestamp_ms >= spec.end_ms) continue;
      if (spec.max_versions > 0 && picked.versions.size() >= size_t(spec.max_versions)) break;
      picked.versions.push_back(v);
    }
    if (picked.versions.empty()) continue;
    picked.name = c.name;
    out.push_back(std::move(picked));
  }
  return out;
}

const Version* LatestVisible(const Column& column, const model::VersionOptions& options,
                             int64_t now_ms) {
  return VisibleCount(column, options, now_ms) > 0 ? &column.versions.front() : nullptr;
}

Status CheckWriteWindow(int64_t timestamp_ms, const std::string& column,
                        const model::VersionOptions& options, int64_t now_ms) {
  int64_t ts = Seconds(timestamp_ms), now = Seconds(now_ms);
  // A deviation past the seconds since 1970 disables the lower bound (T9); saturate instead of
  // overflowing.
  int64_t deviation = std::min<int64_t>(options.max_time_deviation, INT64_MAX / 4);
  int64_t lower = now - deviation;
  if (options.time_to_live >= 0) lower = std::max(lower, now - int64_t{options.time_to_live});
  int64_t upper = now + deviation;
  if (ts < lower || ts >= upper) {
    return Error::Validation("Invalid timestamp. Cell:" + column + ".");
  }
  return Status::Ok();
}

PurgeVerdict PurgeRow(StoredRow& row, const model::VersionOptions& options, int64_t now_ms,
                      uint64_t* purged) {
  if (row.columns.empty()) return PurgeVerdict::kKeep;
  bool changed = false;
  for (auto& c : row.columns) {
    size_t keep = VisibleCount(c, options, now_ms);
    if (keep < c.versions.size()) {
      *purged += c.versions.size() - keep;
      c.versions.resize(keep);
      changed = true;
    }
  }
  if (!changed) return PurgeVerdict::kKeep;
  std::erase_if(row.columns, [](const Column& c) { return c.versions.empty(); });
  return row.columns.empty() ? PurgeVerdict::kRemove : PurgeVerdict::kRewrite;
}

}  // namespace ttlstore::versions
