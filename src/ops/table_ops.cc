#include "ops/table_ops.h"

#include "model/item_size.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>
#include <mutex>
#include <random>

#include <spdlog/spdlog.h>
#include "streams/stream_log.h"

namespace ttlstore::ops {
namespace {

std::string NewUuid() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  uint64_t a = rng(), b = rng();
  // RFC 4122 version 4: set the version and variant bits.
  a = (a & 0xffffffffffff0fffull) | 0x0000000000004000ull;
  b = (b & 0x3fffffffffffffffull) | 0x8000000000000000ull;
  char buf[37];
  std::snprintf(buf, sizeof buf, "%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(a >> 32),
                static_cast<unsigned>((a >> 16) & 0xffff), static_cast<unsigned>(a & 0xffff),
                static_cast<unsigned>(b >> 48),
                static_cast<unsigned long long>(b & 0xffffffffffffull));
  return buf;
}

}  // namespace

Error TableNotFound() { return Error::ResourceNotFound("Requested resource not found"); }

namespace {

// A tagging change's answer: a table not found in the store is the tagging APIs' not-found.
Status TagStatus(Result<TablePtr> done) {
  if (done) return Status::Ok();
  if (done.error().code() == ErrorCode::kResourceNotFound) return TableNotFound();
  return std::move(done).error();
}

}  // namespace

// The service's words for a table in CREATING (seen on UpdateTable, UpdateTimeToLive and
// DeleteTable: docs/compatibility.md).
Error TableBeingCreated(const std::string& name) {
  return Error::ResourceInUse("Attempt to change a resource which is still in use: Table is "
                              "being created: " + name);
}

Status TableCatalog::Load() {
  auto tables = store_.LoadTables();
  if (!tables) return std::move(tables).error();
  std::unique_lock lock(mu_);
  for (auto& t : *tables) {
    if (t.deleting_since_ms > 0) continue;  // being deleted (ops/catalog_drop.cc)
    Install(std::make_shared<const model::TableDescriptor>(std::move(t)));
  }
  return Status::Ok();
}

namespace {

bool HasAnyResourcePolicy(const model::TableDescriptor& t) {
  return t.resource_policy ||
         std::any_of(t.streams.begin(), t.streams.end(), [](const auto& st) { return st.policy; });
}

}  // namespace

void TableCatalog::Install(TablePtr table) {
  ++changes_;
  auto& slot = by_id_[table->id];
  if (slot && HasAnyResourcePolicy(*slot)) --tables_with_policies_;
  if (HasAnyResourcePolicy(*table)) ++tables_with_policies_;
  if (slot) {
    auto& retired = retired_[table->id];
    std::erase_if(retired, [](const auto& w) { return w.expired(); });
    retired.push_back(slot);
  }
  slot = table;
  tables_[table->name] = std::move(table);
}

void TableCatalog::Forget(TableMap::iterator it) {
  ++changes_;
  const uint32_t id = it->second->id;
  if (HasAnyResourcePolicy(*it->second)) --tables_with_policies_;
  // A request may still hold the table (a lookup before this): the catalog epoch's drained
  // publication waits for it as for any replaced version.
  std::erase_if(forgotten_, [](const auto& w) { return w.expired(); });
  forgotten_.push_back(it->second);
  if (auto r = retired_.find(id); r != retired_.end()) {
    forgotten_.insert(forgotten_.end(), r->second.begin(), r->second.end());
  }
  tables_.erase(it);
  by_id_.erase(id);
  retired_.erase(id);
}

TablePtr TableCatalog::FindById(uint32_t id) const {
  for (bool retried = false;; retried = true) {
    {
      std::shared_lock lock(mu_);
      auto it = by_id_.find(id);
      if (it != by_id_.end()) return it->second;
    }
    if (retried || !RefreshAfterMiss()) return nullptr;
  }
}

Result<TablePtr> TableCatalog::SetTimeToLive(const std::string& name, bool enabled,
                                             const std::string& attribute) {
  std::unique_lock lock(mu_);
  return CommitChange(name, Front::kDynamoDb, std::nullopt,
                      [&](model::TableDescriptor& t, storage::WriteBatch&) -> Result<bool> {
    // A restore writes its items with the descriptor it started with: a TTL change now would
    // not reach them.
    if (RestoreInProgress(t)) return TableBeingCreated(name);
    if (enabled && t.ttl_enabled) return Error::Validation("TimeToLive is already enabled");
    if (!enabled && !t.ttl_enabled) return Error::Validation("TimeToLive is already disabled");
    if (!enabled && t.ttl_attribute != attribute) {
      return Error::Validation(
          "TimeToLive is active on a different AttributeName: current AttributeName is " +
          t.ttl_attribute);
    }
    // The service refuses any further change for up to an hour after one; we only while the
    // backfill of the last enable runs, so that it never races a disable and a re-enable.
    if (t.ttl_backfill) {
      return Error::Validation(
          "Time to live has been modified multiple times within a fixed interval");
    }
    t.ttl_enabled = enabled;
    t.ttl_attribute = enabled ? attribute : "";
    if (enabled) t.ttl_backfill.emplace();
    return true;
  });
}

Result<bool> TableCatalog::AdvanceTtlBackfill(uint32_t table_id, const std::string& attribute,
                                              const std::string& cursor, bool done) {
  std::unique_lock lock(mu_);
  return CommitById(table_id, [&](model::TableDescriptor& t, storage::WriteBatch&) -> Result<bool> {
    if (!t.ttl_enabled || t.ttl_attribute != attribute || !t.ttl_backfill) return false;
    if (done) {
      t.ttl_backfill.reset();
    } else {
      t.ttl_backfill->cursor = cursor;
    }
    return true;
  });
}

Result<bool> TableCatalog::CommitWithTable(
    uint32_t table_id, const std::function<bool(model::TableDescriptor&)>& change,
    const std::function<void(storage::WriteBatch&)>& add) {
  std::unique_lock lock(mu_);
  return CommitById(table_id,
                    [&](model::TableDescriptor& t, storage::WriteBatch& batch) -> Result<bool> {
    if (!change(t)) return false;
    if (add) add(batch);
    return true;
  });
}

TablePtr TableCatalog::FindIndexOwner(const std::string& index_name) const {
  std::shared_lock lock(mu_);
  for (const auto& [name, t] : tables_) {
    if (t->tablestore && t->tablestore->FindIndex(index_name)) return t;
  }
  return nullptr;
}

Result<TablePtr> TableCatalog::Get(const std::string& name) const {
  TablePtr t = Find(name, Front::kDynamoDb);
  if (!t) return TableNotFound();
  return t;
}

TablePtr TableCatalog::Find(const std::string& name, Front front) const {
  for (bool retried = false;; retried = true) {
    {
      std::shared_lock lock(mu_);
      auto it = FindLocked(name, front);
      if (it != tables_.end()) return it->second;
    }
    if (retried || !RefreshAfterMiss()) return nullptr;
  }
}

TableCatalog::TableMap::const_iterator TableCatalog::FindLocked(const std::string& name,
                                                                Front front) const {
  auto it = tables_.find(name);
  if (it == tables_.end()) return it;
  bool tablestore = it->second->tablestore.has_value();
  return tablestore == (front == Front::kTablestore) ? it : tables_.end();
}

Result<TablePtr> TableCatalog::Create(model::TableDescriptor spec) {
  std::unique_lock lock(mu_);
  if (tables_.count(spec.name) || deleting_.count(spec.name)) {
    return Error::ResourceInUse("Table already exists: " + spec.name);
  }
  auto id = store_.AllocateTableId();
  if (!id) return std::move(id).error();
  spec.id = *id;
  spec.uuid = NewUuid();
  spec.creation_time_ms = clock_.NowMs();
  spec.size_rule = model::kItemSizeRule;  // its stats are counted from nothing, by this rule
  // The name is checked in the store too, with its record locked: another process may have
  // created the table since this one's catalog was refreshed, or be creating it now.
  std::vector<storage::RmwKey> keys{{storage::Family::kCatalog, spec.name}};
  EpochKeys(keys);
  Status created = store_.ReadModifyWrite(
      keys, [&](const storage::RmwReads& reads, storage::WriteBatch& batch) -> Status {
        if (reads[0]) return Error::ResourceInUse("Table already exists: " + spec.name);
        batch.PutTable(spec);
        RaiseEpoch(reads, batch);
        return Status::Ok();
      });
  if (!created) return std::move(created).error();
  auto table = std::make_shared<const model::TableDescriptor>(std::move(spec));
  Install(table);
  return TablePtr(table);
}

ListTablesResult TableCatalog::List(const std::optional<std::string>& exclusive_start,
                                    size_t limit, Front front) const {
  std::vector<std::string> names;
  {
    std::shared_lock lock(mu_);
    names.reserve(tables_.size());
    for (const auto& [name, t] : tables_) {
      if (t->tablestore.has_value() != (front == Front::kTablestore)) continue;
      if (!exclusive_start || name > *exclusive_start) names.push_back(name);
    }
  }
  std::sort(names.begin(), names.end());
  ListTablesResult result;
  if (names.size() > limit) {
    names.resize(limit);
    result.last_evaluated = names.back();
  }
  result.names = std::move(names);
  return result;
}

Result<TablePtr> TableCatalog::Update(
    const std::string& name, const std::function<Status(model::TableDescriptor&)>& change,
    Front front) {
  std::unique_lock lock(mu_);
  return CommitChange(name, front, std::nullopt,
                      [&](model::TableDescriptor& t, storage::WriteBatch&) -> Result<bool> {
    RETURN_IF_ERROR(change(t));
    return true;
  });
}

std::vector<std::shared_ptr<const model::TableDescriptor>> TableCatalog::AllTables() const {
  std::shared_lock lock(mu_);
  std::vector<std::shared_ptr<const model::TableDescriptor>> out;
  out.reserve(tables_.size());
  for (const auto& [name, t] : tables_) out.push_back(t);
  return out;
}

void TableCatalog::WaitForOlderVersions(uint32_t table_id) const {
  // Requests hold a version for one request's time; the bound only guards against a holder
  // that never lets go.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  bool done = false;
  while (!done && std::chrono::steady_clock::now() < deadline) {
    {
      std::shared_lock lock(mu_);
      auto it = retired_.find(table_id);
      done = it == retired_.end() ||
             std::all_of(it->second.begin(), it->second.end(),
                         [](const auto& w) { return w.expired(); });
    }
    if (!done) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  // Past the bound the caller goes on; a holder that long is a fault worth seeing in the log.
  if (!done) spdlog::warn("event=older_versions_wait_timeout table_id={}", table_id);
  WaitForOtherProcesses();  // and every other process on the database
}

Status TableCatalog::UpdateById(uint32_t table_id,
                                const std::function<bool(model::TableDescriptor&)>& change) {
  auto done = CommitById(table_id,
                         [&](model::TableDescriptor& t, storage::WriteBatch&) -> Result<bool> {
    return change(t);
  });
  if (!done) return std::move(done).error();
  return Status::Ok();
}

Status TableCatalog::SetIndexActive(uint32_t table_id, uint32_t index_id) {
  std::unique_lock lock(mu_);
  return UpdateById(table_id, [&](model::TableDescriptor& t) {
    for (auto& ix : t.indexes) {
      if (ix.id == index_id && ix.status != model::IndexStatus::kActive) {
        ix.status = model::IndexStatus::kActive;
        return true;
      }
    }
    return false;
  });
}

Status TableCatalog::ForgetDroppedIndex(uint32_t table_id, uint32_t index_id) {
  std::unique_lock lock(mu_);
  return UpdateById(table_id, [&](model::TableDescriptor& t) {
    return std::erase(t.dropped_index_ids, index_id) > 0;
  });
}

std::vector<storage::TableStats> TableCatalog::IndexStats(
    const model::TableDescriptor& table) const {
  std::vector<storage::TableStats> out;
  out.reserve(table.indexes.size());
  for (const auto& ix : table.indexes) {
    auto st = store_.GetIndexStats(table.id, ix.id);
    out.push_back(st ? *st : storage::TableStats());
  }
  return out;
}

Status TableCatalog::Tag(const std::string& name, const std::vector<model::Tag>& tags) {
  std::unique_lock lock(mu_);
  auto done = CommitChange(name, Front::kDynamoDb, std::nullopt,
                           [&](model::TableDescriptor& t, storage::WriteBatch&) -> Result<bool> {
    for (const auto& tag : tags) {
      auto existing = std::find_if(t.tags.begin(), t.tags.end(),
                                   [&](const model::Tag& x) { return x.key == tag.key; });
      if (existing != t.tags.end()) {
        existing->value = tag.value;
      } else {
        t.tags.push_back(tag);
      }
    }
    if (t.tags.size() > kMaxTagsPerResource) {
      // The service's answer, a ValidationException (not LimitExceededException).
      return Error::Validation(
          "Number of Tags exceed the current limit for the provided ResourceArn");
    }
    return true;
  });
  return TagStatus(std::move(done));
}

Status TableCatalog::Untag(const std::string& name, const std::vector<std::string>& keys) {
  std::unique_lock lock(mu_);
  auto done = CommitChange(name, Front::kDynamoDb, std::nullopt,
                           [&](model::TableDescriptor& t, storage::WriteBatch&) -> Result<bool> {
    std::erase_if(t.tags, [&](const model::Tag& x) {
      return std::find(keys.begin(), keys.end(), x.key) != keys.end();
    });
    return true;
  });
  return TagStatus(std::move(done));
}

}  // namespace ttlstore::ops
