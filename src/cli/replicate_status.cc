#include "cli/replicate_status.h"

#include <algorithm>
#include <cstdio>
#include <fstream>

#include <fmt/format.h>

namespace ttlstore::cli {
namespace {

const char* PhaseName(int phase) {
  switch (phase) {
    case 1: return "copy";
    case 2: return "stream";
    default: return "setup";
  }
}

}  // namespace

double ReplicateStats::LagSeconds(int64_t now_ms) const {
  int64_t created = last_record_created_ms.load();
  if (caught_up.load() || created == 0) return 0;
  return std::max<int64_t>(0, now_ms - created) / 1000.0;
}

std::string StatusLine(const ReplicateStats& s, int64_t now_ms) {
  return fmt::format(
      "replicate: {}  applied {} records ({} TTL deletes)  copied {} items  lag {:.1f} s  "
      "shards {}",
      PhaseName(s.phase.load()), s.records_applied.load(), s.ttl_deletes_applied.load(),
      s.items_copied.load(), s.LagSeconds(now_ms), s.shards_active.load());
}

std::string StatusMetrics(const ReplicateStats& s, const std::string& table, int64_t now_ms) {
  std::string out;
  std::string label = fmt::format("table=\"{}\"", table);
  auto metric = [&](const char* name, const char* type, const char* help, auto value) {
    out += fmt::format("# HELP {} {}\n# TYPE {} {}\n{}{{{}}} {}\n", name, help, name, type, name,
                       label, value);
  };
  for (int p = 0; p <= 2; ++p) {
    if (p == 0) {
      out += "# HELP ttlstore_replicate_phase The phase the replicator is in (1 for the current one).\n"
             "# TYPE ttlstore_replicate_phase gauge\n";
    }
    out += fmt::format("ttlstore_replicate_phase{{{},phase=\"{}\"}} {}\n", label, PhaseName(p),
                       s.phase.load() == p ? 1 : 0);
  }
  metric("ttlstore_replicate_items_copied_total", "counter",
         "Items written to the target by the copy phase (Scan).", s.items_copied.load());
  metric("ttlstore_replicate_source_items_estimate", "gauge",
         "The source table's ItemCount when the copy started.", s.items_estimate.load());
  metric("ttlstore_replicate_records_applied_total", "counter",
         "Stream records applied to the target.", s.records_applied.load());
  metric("ttlstore_replicate_ttl_deletes_applied_total", "counter",
         "Of them, TTL deletions (service REMOVEs) applied as deletes.",
         s.ttl_deletes_applied.load());
  metric("ttlstore_replicate_write_retries_total", "counter",
         "BatchWriteItem rounds sent again for UnprocessedItems.", s.writes_retried.load());
  metric("ttlstore_replicate_shards_active", "gauge",
         "Stream shards being read (parents done, not yet finished).", s.shards_active.load());
  metric("ttlstore_replicate_lag_seconds", "gauge",
         "Now minus ApproximateCreationDateTime of the last applied record; 0 when caught up.",
         fmt::format("{:.3f}", s.LagSeconds(now_ms)));
  return out;
}

Status WriteFileAtomically(const std::string& path, const std::string& text) {
  std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out) return Error(ErrorCode::kInternal, "cannot write " + tmp);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    return Error(ErrorCode::kInternal, "cannot rename " + tmp + " to " + path);
  }
  return Status::Ok();
}

}  // namespace ttlstore::cli
