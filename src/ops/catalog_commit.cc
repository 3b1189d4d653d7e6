// TableCatalog::CommitChange: how every change of a table's descriptor is committed, so that
// several processes on one database change one table one at a time (issue 34).
//
// Each process keeps its own copy of the catalog, refreshed every --catalog-refresh-ms
// (ops/catalog_refresh.cc). A change checked and made against that copy could miss another
// process's change committed since: two UpdateTable, two TagResource or a TTL enable and disable
// through two processes, and the last write would win with the other's change lost, or a change
// the other made impossible would pass its checks. So a change reads the stored descriptor for
// update (Store::ReadModifyWrite of its catalog record: on PostgreSQL the row is locked until
// the commit, an absent one through the storage's lock rows), checks and edits that, and writes
// it back in the same transaction; two changes of one table are serialized by the database,
// and each sees the other's effect. The copy here is then brought up to what was committed (or,
// when nothing was, to what was read).
#include "ops/table_ops.h"
#include "storage/catalog_codec.h"

namespace ttlstore::ops {

Result<TablePtr> TableCatalog::CommitChange(const std::string& name, std::optional<Front> front,
                                            std::optional<uint32_t> id, const Change& change) {
  std::optional<model::TableDescriptor> committed, seen;
  std::string seen_bytes;
  std::vector<storage::RmwKey> keys{{storage::Family::kCatalog, name}};
  EpochKeys(keys);  // raised with the change (ops/catalog_epoch.cc)
  Status status = store_.ReadModifyWrite(
      keys, [&](const storage::RmwReads& reads, storage::WriteBatch& batch) -> Status {
        // Assigned afresh: the function runs again after a serialization conflict.
        committed.reset();
        seen.reset();
        if (!reads[0]) return Status::Ok();
        std::optional<model::TableDescriptor> stored = storage::DecodeTableDescriptor(*reads[0]);
        if (!stored) {
          return Error::Internal("the catalog record of table " + name + " is unreadable");
        }
        const bool tablestore = stored->tablestore.has_value();
        if ((front && tablestore != (*front == Front::kTablestore)) || (id && stored->id != *id)) {
          return Status::Ok();  // another front end's table, or a new table of that name
        }
        seen = *stored;
        seen_bytes = *reads[0];
        ASSIGN_OR_RETURN(write, change(*stored, batch));
        if (!write) return Status::Ok();
        batch.PutTable(*stored);
        RaiseEpoch(reads, batch);
        committed = std::move(stored);
        return Status::Ok();
      });
  if (status.ok() && committed) {
    Install(std::make_shared<const model::TableDescriptor>(std::move(*committed)));
    return tables_.at(name);
  }
  // Nothing written: what was read is the newest copy (another process may have changed it).
  if (seen && !deleting_.count(name)) {
    auto it = tables_.find(name);
    if (it == tables_.end() || storage::EncodeTableDescriptor(*it->second) != seen_bytes) {
      Install(std::make_shared<const model::TableDescriptor>(std::move(*seen)));
    }
  }
  if (!status.ok()) return std::move(status).error();
  if (!seen) return NotFound(name);
  return TablePtr(nullptr);
}

Error TableCatalog::NotFound(const std::string& name) {
  return Error::ResourceNotFound("Requested resource not found: Table: " + name + " not found");
}

Result<bool> TableCatalog::CommitById(uint32_t table_id, const Change& change) {
  auto it = by_id_.find(table_id);
  if (it == by_id_.end()) return false;
  const std::string name = it->second->name;
  auto done = CommitChange(name, std::nullopt, table_id, change);
  if (!done) {
    if (done.error().code() == ErrorCode::kResourceNotFound) return false;  // dropped meanwhile
    return std::move(done).error();
  }
  return *done != nullptr;
}

}  // namespace ttlstore::ops
