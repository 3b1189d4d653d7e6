// SearchEngine's queue half: applying each table's change queue to its indexes, and knowing how
// far that got (Flush). One process (RocksDB): the applied entries are deleted. A store several
// processes share: each copy's cursor moves past them instead, and SharedQueue trims what every
// live process applied (search/shared_queue.h). docs/background-jobs.md, "Search indexes".
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>

#include <spdlog/spdlog.h>

#include "ops/table_ops.h"
#include "search/document.h"
#include "search/engine_impl.h"
#include "search/terms.h"
#include "storage/search_queue.h"
#include "storage/store.h"
#include "versions/row_key.h"

namespace ttlstore::search {
namespace {

// Changes applied per Xapian commit: large enough that a commit's fixed cost (fsync of the
// Xapian tables) is spread, small enough that a pass stays short.
constexpr size_t kApplyBatch = 1000;
// The shared queue's floors are raised this often.
constexpr int64_t kTrimEveryMs = 1000;

}  // namespace

void SearchEngine::ShareQueue(int64_t lease_ms) {
  if (impl_->store.SharedByProcesses()) impl_->shared_lease_ms = lease_ms;
}

Status SearchEngine::Impl::StartSharedQueue() {
  const std::string path = dir + "/consumer-id";
  std::string id;
  {
    std::ifstream in(path);
    std::getline(in, id);
  }
  if (id.size() != 32 || id.find_first_not_of("0123456789abcdef") != std::string::npos) {
    std::random_device rd;
    id = fmt::format("{:08x}{:08x}{:08x}{:08x}", rd(), rd(), rd(), rd());
    const std::string temp = path + ".tmp";
    {
      std::ofstream out(temp, std::ios::trunc);
      out << id << "\n";
      out.flush();
      if (!out) return Error::Internal("cannot write " + temp);
    }
    std::error_code ec;
    std::filesystem::rename(temp, path, ec);
    if (ec) return Error::Internal("cannot write " + path + ": " + ec.message());
  }
  shared = std::make_unique<SharedQueue>(store, id, shared_lease_ms, clock);
  return Status::Ok();
}

Status SearchEngine::Flush() {
  // One process: every change committed before now has a sequence at most `target`; a pass
  // that began after this call and left only larger sequences (with no build running) has
  // applied them all, even while new writes keep the queue from ever being empty. Shared: every
  // change committed before now is numbered at most its table's head; a pass that began after
  // this call and ended with every copy's cursor there has applied it.
  uint64_t target = impl_->store.LastSearchQueueSeq();
  std::map<uint32_t, uint64_t> heads;
  if (impl_->shared) {
    for (const auto& t : SearchTables(impl_->catalog)) {
      ASSIGN_OR_RETURN(head, impl_->shared->Head(t->id));
      heads[t->id] = head;
    }
  }
  std::unique_lock lock(impl_->wake_mu);
  if (!impl_->thread.joinable()) return Error::Internal("search engine not started");
  uint64_t after = impl_->passes_started;
  impl_->woken = true;
  impl_->wake_cv.notify_all();
  bool done = impl_->pass_cv.wait_for(lock, std::chrono::seconds(120), [&] {
    if (impl_->stopping) return true;
    if (!impl_->shared) {
      return impl_->last_idle_pass > after ||
             (impl_->last_floor_pass > after && impl_->last_floor > target);
    }
    if (impl_->last_through_pass <= after) return false;
    for (const auto& [table_id, head] : heads) {
      auto it = impl_->last_through.find(table_id);
      // A table that has no search index any more has nothing to wait for.
      if (it != impl_->last_through.end() && it->second < head) return false;
    }
    return true;
  });
  if (!done) return Error::Internal("search index flush timed out");
  return Status::Ok();
}

bool SearchEngine::Impl::Building(const model::TablestoreSchema& schema) const {
  for (const auto& meta : schema.search_indexes) {
    if (meta.building) return true;
    auto ix = Find(meta.id);
    if (ix && ix->writer && !ix->built) return true;
  }
  return false;
}

std::optional<uint64_t> SearchEngine::Impl::QueueFloor() {
  uint64_t floor = UINT64_MAX;
  for (const auto& t : SearchTables(catalog)) {
    if (Building(*t->tablestore)) return std::nullopt;
    auto it = store.ScanFamily(storage::Family::kSearch, storage::SearchQueueBegin(t->id),
                               storage::SearchQueueEnd(t->id), false, nullptr);
    uint32_t table_id;
    uint64_t seq;
    if (it->Valid() && storage::DecodeSearchQueueKey(it->key(), &table_id, &seq)) {
      floor = std::min(floor, seq);
    }
  }
  return floor;
}

std::optional<std::map<uint32_t, uint64_t>> SearchEngine::Impl::QueueThrough() {
  std::map<uint32_t, uint64_t> through;
  for (const auto& t : SearchTables(catalog)) {
    if (Building(*t->tablestore)) return std::nullopt;
    uint64_t lowest = UINT64_MAX;
    for (const auto& meta : t->tablestore->search_indexes) {
      auto ix = Find(meta.id);
      if (!ix || !ix->writer || !ix->queue_cursor) return std::nullopt;
      lowest = std::min(lowest, *ix->queue_cursor);
    }
    through[t->id] = lowest;
  }
  return through;
}

void SearchEngine::Impl::FollowSharedQueue(const std::vector<uint32_t>& table_ids) {
  std::vector<CopyCursor> copies;
  bool starting = false;
  {
    std::shared_lock lock(mu);
    for (const auto& [id, ix] : indexes) {
      if (!ix->writer) continue;
      if (!ix->queue_cursor) {
        std::string committed = ix->writer->get_metadata(kMetaQueueCursor);
        if (!committed.empty()) {
          ix->queue_cursor = SeqOf(committed);
        } else if (ix->built) {
          // Built by one process that deleted what it applied: what is queued is unapplied.
          ix->queue_cursor = 0;
        }
      }
      starting |= !ix->queue_cursor;
      copies.push_back({ix->table_id, id, ix->queue_cursor});
    }
  }
  if (starting || shared->PublishDue()) {
    auto starts = shared->Publish(copies);
    if (!starts.ok()) {
      spdlog::warn("event=search_queue_publish_failed message=\"{}\"", starts.error().message());
    } else {
      for (const CopyStart& start : *starts) {
        auto ix = Find(start.index_id);
        if (!ix || !ix->writer) continue;
        // A copy without a cursor that is not built may hold documents from before (a build
        // begun by a version that kept none): it is built again from nothing, as a rebuild.
        if (start.rebuild || !ix->built) {
          if (start.rebuild) {
            spdlog::warn("event=search_copy_rebuilt index_id={} reason=queue_trimmed_past_cursor",
                         ix->id);
          }
          ResetCopy(ix);
          ix = Find(start.index_id);
          if (!ix || !ix->writer) continue;
        }
        ix->writer->set_metadata(kMetaQueueCursor, Seq8(start.cursor));
        ix->writer->commit();
        ix->queue_cursor = start.cursor;
      }
    }
  }
  int64_t now = clock.NowMs();
  if (now - last_trim_ms >= kTrimEveryMs) {
    last_trim_ms = now;
    if (Status s = shared->Trim(table_ids); !s) {
      spdlog::warn("event=search_queue_trim_failed message=\"{}\"", s.error().message());
    }
  }
}

bool SearchEngine::Impl::ApplyQueue(uint32_t table_id) {
  ops::TablePtr table = catalog.FindById(table_id);
  if (!table || !table->tablestore) return false;
  const model::TablestoreSchema& schema = *table->tablestore;
  std::vector<std::pair<const model::SearchIndexMeta*, std::shared_ptr<OpenIndex>>> targets;
  std::optional<uint64_t> from;  // shared: the smallest cursor of the table's copies
  for (const auto& meta : schema.search_indexes) {
    auto ix = Find(meta.id);
    if (!ix || !ix->writer) return false;  // not open: keep the entries for a later pass
    if (shared) {
      if (!ix->queue_cursor) return false;  // not started yet (FollowSharedQueue)
      from = std::min(from.value_or(UINT64_MAX), *ix->queue_cursor);
    }
    targets.emplace_back(&meta, std::move(ix));
  }
  std::string after = from ? storage::SearchQueueKey(table_id, *from) : std::string();
  auto it = store.ScanFamily(storage::Family::kSearch, storage::SearchQueueBegin(table_id),
                             storage::SearchQueueEnd(table_id), false, from ? &after : nullptr);
  std::vector<std::string> entries, rows;
  uint64_t largest = 0;
  for (; it->Valid() && entries.size() < kApplyBatch; it->Next()) {
    uint32_t t;
    uint64_t seq;
    if (storage::DecodeSearchQueueKey(it->key(), &t, &seq)) largest = std::max(largest, seq);
    entries.emplace_back(it->key());
    rows.emplace_back(it->value());
  }
  if (!it->status().ok()) return false;  // retried on a later pass
  int64_t now = clock.NowMs();
  if (entries.empty()) {
    std::unique_lock lock(mu);
    caught_up_ms[table_id] = now;
    return false;
  }
  std::sort(rows.begin(), rows.end());
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  std::vector<std::vector<Xapian::docid>> touched(targets.size());
  for (const auto& key : rows) {
    auto bytes = store.Get(storage::Family::kRows, key);
    if (!bytes.ok()) return false;  // a read error: retry the whole batch on a later pass
    versions::StoredRow row;
    bool present = bytes->has_value() && versions::DecodeRow(**bytes, &row);
    for (size_t i = 0; i < targets.size(); ++i) {
      auto& [meta, ix] = targets[i];
      std::optional<Xapian::Document> doc;
      if (present) doc = BuildDocument(*meta, schema, key, row, now);
      WriteDocument(*ix, UniqueTerm(key), doc, &touched[i]);
    }
  }
  for (size_t i = 0; i < targets.size(); ++i) {
    auto& [meta, ix] = targets[i];
    if (shared) {
      // Entries are numbered in commit order: every one up to `largest` has been read.
      ix->queue_cursor = std::max(*ix->queue_cursor, largest);
      ix->writer->set_metadata(kMetaQueueCursor, Seq8(*ix->queue_cursor));
    } else {
      uint64_t before = SeqOf(ix->writer->get_metadata(kMetaAppliedSeq));
      ix->writer->set_metadata(kMetaAppliedSeq, Seq8(std::max(before, largest)));
    }
    // The graphs first (from the writer's pending documents), so that a reader opened at the
    // commit never finds a graph behind it (search/vector_graphs.h).
    if (ix->graphs) ix->graphs->Changed(*ix->writer, touched[i]);
    ix->writer->commit();
  }
  if (shared) return true;  // trimmed once every live process is past them (SharedQueue::Trim)
  storage::WriteBatch batch(store);
  for (const auto& k : entries) batch.Delete(storage::Family::kSearch, k);
  if (auto s = store.Write(batch); !s.ok()) {
    spdlog::warn("event=search_queue_trim_failed message=\"{}\"", s.error().message());
  }
  return true;
}

}  // namespace ttlstore::search
