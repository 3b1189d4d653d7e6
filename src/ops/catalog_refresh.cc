// TableCatalog's view of other processes' catalog changes (several ttlstore processes on one
// database, issue 34; docs/storage.md, "Several processes on one database").
#include <spdlog/spdlog.h>

#include <unordered_set>

#include "ops/table_ops.h"
#include "storage/catalog_codec.h"

namespace ttlstore::ops {

Status TableCatalog::Refresh() {
  // A change of this process committed after the read began (or is being made: it holds mu_
  // from its write to its install) would be undone by what the read found: read again.
  for (int attempt = 0; attempt < 4; ++attempt) {
    const uint64_t before = changes_.load();
    // The epoch first: every change it counts is in the tables read after it.
    uint64_t epoch = 0;
    if (!owner_.empty()) {
      ASSIGN_OR_RETURN(read, ReadEpoch());
      epoch = read;
    }
    auto tables = store_.LoadTables();
    if (!tables) return std::move(tables).error();
    bool drained = false;
    {
      std::unique_lock lock(mu_);
      if (changes_.load() != before) continue;
      InstallStored(std::move(*tables));
      drained = !AnyOlderVersionHeld();
    }
    if (drained && epoch > 0) PublishDrained(epoch);
    return Status::Ok();
  }
  return Status::Ok();  // the next round
}

void TableCatalog::InstallStored(std::vector<model::TableDescriptor> tables) {
  uint64_t applied = 0;
  std::unordered_set<uint32_t> live;
  for (model::TableDescriptor& t : tables) {
    if (t.deleting_since_ms > 0) continue;  // being deleted: gone from lookups (below)
    live.insert(t.id);
    if (deleting_.count(t.name)) continue;  // this process is dropping it
    auto by_id = by_id_.find(t.id);
    if (by_id != by_id_.end() &&
        storage::EncodeTableDescriptor(*by_id->second) == storage::EncodeTableDescriptor(t)) {
      continue;
    }
    // The name held by another table (dropped and created again elsewhere): the old one goes.
    if (auto named = tables_.find(t.name); named != tables_.end() && named->second->id != t.id) {
      Forget(named);
    }
    Install(std::make_shared<const model::TableDescriptor>(std::move(t)));
    ++applied;
  }
  for (auto it = tables_.begin(); it != tables_.end();) {
    auto next = std::next(it);
    if (!live.count(it->second->id)) {  // dropped by another process
      Forget(it);
      ++applied;
    }
    it = next;
  }
  if (applied) {
    refreshed_ += applied;
    spdlog::debug("event=catalog_refreshed tables_changed={}", applied);
  }
}

void TableCatalog::StartRefresh(int64_t interval_ms, std::string owner) {
  if (!store_.SharedByProcesses()) return;
  refresh_misses_ = true;
  owner_ = std::move(owner);
  refresher_.Start("catalog-refresh", interval_ms, [this] {
    if (Status s = Refresh(); !s) {
      spdlog::warn("event=catalog_refresh_failed message=\"{}\"", s.error().message());
    }
  });
}

bool TableCatalog::RefreshAfterMiss() const {
  if (!refresh_misses_) return false;
  std::lock_guard<std::mutex> one_at_a_time(miss_mu_);
  const int64_t now = SystemClock().NowMs();
  // Misses of one burst share a read; a name looked up again and again that exists nowhere
  // costs at most one read of the catalog per kMissRefreshMs.
  if (now - last_miss_refresh_ms_.load() < kMissRefreshMs) return true;
  last_miss_refresh_ms_.store(now);
  Status s = const_cast<TableCatalog*>(this)->Refresh();
  if (!s) spdlog::warn("event=catalog_refresh_failed message=\"{}\"", s.error().message());
  return s.ok();
}

}  // namespace ttlstore::ops
