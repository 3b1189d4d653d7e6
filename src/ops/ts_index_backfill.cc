#include "ops/ts_index_backfill.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include "versions/index_rows.h"
#include "versions/row_key.h"

namespace ttlstore::ops {
namespace {

// Rows per chunk: their locks are held while they are read and their index rows written, as the
// purge's chunks (ops/row_purger.cc).
constexpr size_t kChunkRows = 64;

model::TsIndex* Mutable(model::TableDescriptor& t, const std::string& name, uint32_t rows_id) {
  if (!t.tablestore) return nullptr;
  for (auto& ix : t.tablestore->indexes) {
    if (ix.name == name && ix.rows_id == rows_id) return &ix;
  }
  return nullptr;
}

}  // namespace

void TsIndexBackfill::Start() {
  thread_ = Thread("ts-index", [this] { Loop(); });
}

void TsIndexBackfill::Stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void TsIndexBackfill::Wake() {
  {
    std::lock_guard lock(mu_);
    woken_ = true;
  }
  cv_.notify_all();
}

void TsIndexBackfill::Loop() {
  std::unique_lock lock(mu_);
  while (!stopping_) {
    woken_ = false;
    lock.unlock();
    bool more = false;
    // Another process holds the unit: it does the work (this one waits to take it over).
    auto r = storage::MayRun(keeper_, kTsIndexLeaseUnit) ? RunOnce() : Result<bool>(false);
    if (!r) {
      spdlog::warn("event=ts_index_backfill_failed message=\"{}\"", r.error().message());
    } else {
      more = *r;
    }
    lock.lock();
    if (!more) cv_.wait_for(lock, std::chrono::seconds(1), [this] { return stopping_ || woken_; });
  }
}

Result<bool> TsIndexBackfill::RunOnce() {
  bool more = false;
  auto list = catalog_.List(std::nullopt, SIZE_MAX, Front::kTablestore);
  for (const auto& name : list.names) {
    uint32_t table_id = 0;
    std::vector<uint32_t> dropped;
    std::vector<std::string> building;
    {
      // Not held while working: the waits for older descriptors would wait for this one.
      TablePtr t = catalog_.Find(name, Front::kTablestore);
      if (!t || !t->tablestore) continue;
      table_id = t->id;
      dropped = t->tablestore->dropped_index_rows;
      for (const auto& ix : t->tablestore->indexes) {
        if (ix.building) building.push_back(ix.name);
      }
    }
    for (uint32_t id : dropped) RETURN_IF_ERROR(RemoveDropped(table_id, id));
    for (const auto& ix : building) {
      ASSIGN_OR_RETURN(left, Chunk(table_id, ix));
      more = more || left;
    }
  }
  return more;
}

Status TsIndexBackfill::RemoveDropped(uint32_t table_id, uint32_t rows_id) {
  catalog_.WaitForOlderVersions(table_id);
  auto done = catalog_.CommitWithTable(
      table_id,
      [&](model::TableDescriptor& t) {
        auto& ids = t.tablestore->dropped_index_rows;
        auto it = std::find(ids.begin(), ids.end(), rows_id);
        if (it == ids.end()) return false;
        ids.erase(it);
        return true;
      },
      [&](storage::WriteBatch& batch) { batch.DropIndexRows(rows_id); });
  if (!done) return done.error();
  return Status::Ok();
}

Result<bool> TsIndexBackfill::Chunk(uint32_t table_id, const std::string& name) {
  TablePtr t = catalog_.FindById(table_id);
  const model::TsIndex* ix = t && t->tablestore ? t->tablestore->FindIndex(name) : nullptr;
  if (!ix || !ix->building) return false;
  const uint32_t rows_id = ix->rows_id;
  if (!waited_.count({table_id, rows_id})) {
    t.reset();  // not holding a descriptor ourselves
    catalog_.WaitForOlderVersions(table_id);
    waited_.insert({table_id, rows_id});
    t = catalog_.FindById(table_id);
    ix = t && t->tablestore ? t->tablestore->FindIndex(name) : nullptr;
    if (!ix || !ix->building || ix->rows_id != rows_id) return false;
  }
  const std::string cursor = ix->cursor;
  std::string from = cursor.empty() ? versions::TableRowsBegin(table_id) : cursor + '\0';
  std::vector<std::string> keys;
  {
    auto it = store_.ScanFamily(storage::Family::kRows, from, versions::TableRowsEnd(table_id),
                                false, nullptr);
    for (; it->Valid() && keys.size() < kChunkRows; it->Next()) keys.emplace_back(it->key());
    RETURN_IF_ERROR(it->status());
  }
  const bool done = keys.size() < kChunkRows;
  // One read-modify-write of the chunk's rows (storage::Store::ReadModifyWrite) writes their
  // index rows: a writer of one of them commits before the read (and the index row is made from
  // what it wrote) or after (and keeps the index row itself). Inside it, the current
  // descriptor: its index definition is the one the rows' writers see from then on. The cursor
  // follows in its own commit (a crash between redoes the chunk, putting the same index rows).
  std::vector<storage::RmwKey> rmw_keys;
  rmw_keys.reserve(keys.size());
  for (const auto& key : keys) rmw_keys.push_back({storage::Family::kRows, key});
  std::vector<std::string> written;  // the index rows' keys
  bool current = false;
  RETURN_IF_ERROR(store_.ReadModifyWrite(rmw_keys, [&](const storage::RmwReads& reads,
                                                       storage::WriteBatch& rmw_batch) -> Status {
    written.clear();
    t = catalog_.FindById(table_id);
    ix = t && t->tablestore ? t->tablestore->FindIndex(name) : nullptr;
    current = ix && ix->rows_id == rows_id && ix->building && ix->cursor == cursor;
    if (!current) return Status::Ok();
    for (size_t i = 0; i < keys.size(); ++i) {
      ASSIGN_OR_RETURN(row, RowOps::DecodeRead(reads[i]));
      if (!row) continue;
      if (auto ir = versions::IndexRowOf(*t->tablestore, *ix, keys[i], *row)) {
        rmw_batch.Put(storage::Family::kRows, ir->key, versions::EncodeRow(ir->row));
        written.push_back(ir->key);
      }
    }
    return Status::Ok();
  }));
  if (!current) return false;
  const model::TsIndex snapshot = *ix;
  t.reset();
  ASSIGN_OR_RETURN(committed, catalog_.CommitWithTable(
                                  table_id,
                                  [&](model::TableDescriptor& d) {
                                    model::TsIndex* m = Mutable(d, name, rows_id);
                                    if (!m || !m->building || m->cursor != cursor) return false;
                                    if (done) {
                                      m->building = false;
                                      m->cursor.clear();
                                    } else {
                                      m->cursor = keys.back();
                                    }
                                    return true;
                                  }));
  if (!committed && !written.empty()) {
    // The index went away between the two commits (a drop, whose removal of its rows may have
    // run already): take back what this chunk wrote under its rows id.
    ops::TablePtr now = catalog_.FindById(table_id);
    const model::TsIndex* still = now && now->tablestore ? now->tablestore->FindIndex(name) : nullptr;
    if (!still || still->rows_id != rows_id) {
      storage::WriteBatch undo(store_);
      for (const auto& key : written) undo.Delete(storage::Family::kRows, key);
      RETURN_IF_ERROR(store_.Write(undo));
    }
  }
  if (committed && done) {
    spdlog::info("event=ts_index_built table_id={} index={}", table_id, snapshot.name);
  }
  return committed && !done;
}

}  // namespace ttlstore::ops
