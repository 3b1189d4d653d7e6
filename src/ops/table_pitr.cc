// TableCatalog's point-in-time-recovery settings (UpdateContinuousBackups): turning the change
// log (storage/pitr_log.h) on and off with the catalog entry that says whether it is kept.
#include "ops/table_ops.h"
#include "storage/pitr_log.h"

namespace ttlstore::ops {

Result<TablePtr> TableCatalog::SetPointInTimeRecovery(const std::string& name, bool enabled,
                                                      std::optional<int32_t> days) {
  uint32_t table_id = 0;
  bool pending = false;  // enabled now: dated below
  {
    std::unique_lock lock(mu_);
    auto changed = CommitChange(
        name, Front::kDynamoDb, std::nullopt,
        [&](model::TableDescriptor& t, storage::WriteBatch& batch) -> Result<bool> {
          table_id = t.id;
          pending = false;
          // A restore writes with the descriptor it started from: its writes would not be
          // logged.
          if (t.restore && t.restore->in_progress) {
            return Error::ResourceInUse("Attempt to change a resource which is still in use: "
                                        "Table is being created: " + name);
          }
          if (!enabled) {
            if (!t.pitr) return false;
            t.pitr.reset();
            batch.DeleteRange(storage::Family::kPitr, storage::PitrLogTableBegin(t.id),
                              storage::PitrLogTableEnd(t.id));
            return true;
          }
          if (t.pitr) {
            if (!days || *days == t.pitr->recovery_period_days) return false;
            t.pitr->recovery_period_days = *days;
            return true;
          }
          t.pitr.emplace();
          t.pitr->enabled_ms = 0;  // pending until older descriptors are gone
          if (days) t.pitr->recovery_period_days = *days;
          pending = true;
          return true;
        });
    if (!changed) {
      if (changed.error().code() == ErrorCode::kResourceNotFound) {
        return Error(ErrorCode::kTableNotFound, "Table not found: " + name);
      }
      return std::move(changed).error();
    }
    if (!pending) {
      if (*changed) return *changed;
      auto it = FindLocked(name, Front::kDynamoDb);  // unchanged: as it is
      if (it == tables_.end()) return Error(ErrorCode::kTableNotFound, "Table not found: " + name);
      return it->second;
    }
  }
  // A request that looked the table up before the write above may still write without a
  // change-log record; the window may only begin once every such request is done.
  WaitForOlderVersions(table_id);
  std::unique_lock lock(mu_);
  RETURN_IF_ERROR(UpdateById(table_id, [&](model::TableDescriptor& t) {
    if (!t.pitr || t.pitr->enabled_ms != 0) return false;
    t.pitr->enabled_ms = clock_.NowMs();
    return true;
  }));
  auto it = FindLocked(name, Front::kDynamoDb);
  if (it == tables_.end() || it->second->id != table_id) {
    return Error(ErrorCode::kTableNotFound, "Table not found: " + name);
  }
  return it->second;
}

Status TableCatalog::FinishPendingPitrEnables() {
  std::unique_lock lock(mu_);
  std::vector<uint32_t> pending;
  for (const auto& [id, table] : by_id_) {
    if (table->pitr && table->pitr->enabled_ms == 0) pending.push_back(id);
  }
  for (uint32_t id : pending) {
    RETURN_IF_ERROR(UpdateById(id, [&](model::TableDescriptor& t) {
      t.pitr->enabled_ms = clock_.NowMs();
      return true;
    }));
  }
  return Status::Ok();
}

}  // namespace ttlstore::ops
