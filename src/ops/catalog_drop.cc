// TableCatalog::Delete: DeleteTable, and on a store several processes share its two steps
// (issue 34).
//
// One process: the table leaves the lookups at once, the drop waits until no request of this
// process holds it, and one batch drops the data with the catalog record.
//
// Several processes: another process goes on finding the table until its next catalog refresh
// (--catalog-refresh-ms), and a write it began with the table in hand commits whenever it
// commits. A drop made at once could be followed by such a write: an item without a table. So:
//   1. the stored descriptor is marked (deleting_since_ms) in a read-modify-write of its record
//      that raises the catalog epoch; no catalog installs a marked table, and a second
//      DeleteTable, through any process, finds it marked and answers ResourceNotFound;
//   2. the wait for this process's requests, then for every other live process to publish that
//      it has refreshed past the mark with no request holding the table any more
//      (WaitForOtherProcesses; bounded, 10 s);
//   3. one read-modify-write drops the data and the record, if the record is still this
//      table's, marked.
// A process that dies between 1 and 3 leaves the table marked: invisible, its name taken
// (CreateTable answers ResourceInUseException), its data stored. FinishInterruptedDrops, run by
// the restore recovery pass under its lease, drops tables marked more than kAbandonedDropMs ago.
// docs/background-jobs.md, "DeleteTable on a shared store".
#include <algorithm>
#include <chrono>
#include <thread>

#include <spdlog/spdlog.h>

#include "ops/table_ops.h"
#include "storage/catalog_codec.h"
#include "streams/stream_log.h"

namespace ttlstore::ops {
namespace {

Error DeletionProtected() {
  return Error::Validation("Resource cannot be deleted as it is currently protected against "
                           "deletion. Disable deletion protection first.");
}

}  // namespace

void TableCatalog::StageDrop(storage::WriteBatch& batch, const model::TableDescriptor& table) const {
  batch.DropTable(table);
  streams::AddDroppedStreams(batch, table, clock_.NowMs());
}

Status TableCatalog::MarkDeleting(const model::TableDescriptor& table) {
  std::vector<storage::RmwKey> keys{{storage::Family::kCatalog, table.name}};
  EpochKeys(keys);
  const int64_t now = clock_.NowMs();
  return store_.ReadModifyWrite(
      keys, [&](const storage::RmwReads& reads, storage::WriteBatch& batch) -> Status {
        std::optional<model::TableDescriptor> stored;
        if (reads[0]) stored = storage::DecodeTableDescriptor(*reads[0]);
        // Gone, created again, or being deleted through another process.
        if (!stored || stored->id != table.id || stored->deleting_since_ms > 0) {
          return NotFound(table.name);
        }
        if (stored->deletion_protection) return DeletionProtected();
        stored->deleting_since_ms = now;
        batch.PutTable(*stored);
        RaiseEpoch(reads, batch);
        return Status::Ok();
      });
}

Status TableCatalog::DropMarked(const model::TableDescriptor& table) {
  return store_.ReadModifyWrite(
      {{storage::Family::kCatalog, table.name}},
      [&](const storage::RmwReads& reads, storage::WriteBatch& batch) -> Status {
        std::optional<model::TableDescriptor> stored;
        if (reads[0]) stored = storage::DecodeTableDescriptor(*reads[0]);
        // Dropped already (the recovery pass, after a stall here longer than its bound).
        if (!stored || stored->id != table.id || stored->deleting_since_ms == 0) {
          return Status::Ok();
        }
        StageDrop(batch, *stored);
        return Status::Ok();
      });
}

Result<TablePtr> TableCatalog::Delete(const std::string& name, Front front) {
  std::vector<std::weak_ptr<const model::TableDescriptor>> versions;
  model::TableDescriptor gone;
  {
    std::unique_lock lock(mu_);
    auto found = FindLocked(name, front);
    if (found == tables_.end()) return NotFound(name);
    if (found->second->deletion_protection) return DeletionProtected();
    auto it = tables_.find(name);
    gone = *it->second;
    versions.push_back(it->second);
    if (auto r = retired_.find(gone.id); r != retired_.end()) {
      versions.insert(versions.end(), r->second.begin(), r->second.end());
    }
    deleting_.insert(name);
    Forget(it);
  }
  const bool shared = store_.SharedByProcesses();
  if (shared) {
    if (Status marked = MarkDeleting(gone); !marked) {
      std::unique_lock lock(mu_);
      deleting_.erase(name);
      // Not found: deleted (or being deleted) through another process; this copy was behind.
      if (marked.error().code() != ErrorCode::kResourceNotFound) {
        Install(std::make_shared<const model::TableDescriptor>(gone));  // as if never deleted
      }
      return std::move(marked).error();
    }
  }
  // Requests hold a version for one request's time; the bound only guards against a holder that
  // never lets go.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < deadline &&
         !std::all_of(versions.begin(), versions.end(), [](const auto& w) { return w.expired(); })) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  Status written;
  if (shared) {
    WaitForOtherProcesses();
    written = DropMarked(gone);
  } else {
    storage::WriteBatch batch(store_);
    StageDrop(batch, gone);
    written = store_.Write(batch);
  }
  std::unique_lock lock(mu_);
  deleting_.erase(name);
  if (!written) {
    // Shared: the table stays marked, and the recovery pass drops it (FinishInterruptedDrops).
    if (!shared) Install(std::make_shared<const model::TableDescriptor>(gone));
    return std::move(written).error();
  }
  return TablePtr(std::make_shared<const model::TableDescriptor>(std::move(gone)));
}

Status TableCatalog::FinishInterruptedDrops() {
  ASSIGN_OR_RETURN(tables, store_.LoadTables());
  const int64_t now = clock_.NowMs();
  for (const model::TableDescriptor& t : tables) {
    if (t.deleting_since_ms == 0 || now - t.deleting_since_ms < kAbandonedDropMs) continue;
    RETURN_IF_ERROR(DropMarked(t));
    spdlog::info("event=interrupted_drop_finished table={} marked_ms_ago={}", t.name,
                 now - t.deleting_since_ms);
  }
  return Status::Ok();
}

}  // namespace ttlstore::ops
