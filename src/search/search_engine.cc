// SearchEngine's background half: one thread that, pass after pass,
//   1. opens the index of every SearchIndexMeta the catalog names (creating its Xapian
//      database) and closes and deletes the folder of every index no table names any more
//      (DeleteSearchIndex, DeleteTable; also at start-up, for drops a crash interrupted);
//   2. applies each table's change queue (storage/search_queue.h): up to kApplyBatch entries,
//      each row re-read as it is NOW and its document replaced or deleted in every index of the
//      table, one Xapian commit per index (with the largest sequence applied in its metadata),
//      then the entries deleted from the store. A crash between the two replays the entries,
//      which rebuilds the same documents: exactly the current state, whatever the order. On a
//      store several processes share, each copy moves a cursor instead and the floors trim
//      (queue_apply.cc, search/shared_queue.h);
//   3. builds indexes that are `building`: kBuildChunk rows of the table in key order per pass,
//      committed with the last row key as the cursor in the same Xapian commit; a restart
//      resumes after the cursor. At the end the catalog's `building` is cleared;
//   4. about once a second, purges documents past the effective TTL by walking the minute
//      terms (T...) in time order, from the oldest, so the cost follows what expires.
// Durability and resumption of each step: docs/background-jobs.md, "Search indexes".
#include "search/search_engine.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include <spdlog/spdlog.h>

#include "ops/table_ops.h"
#include "search/document.h"
#include "search/engine_impl.h"
#include "search/terms.h"
#include "storage/search_queue.h"
#include "storage/store.h"
#include "vector/knn_plan.h"
#include "versions/row_key.h"

namespace ttlstore::search {
namespace {

// Rows built per commit: large enough that a commit's fixed cost (fsync of the Xapian tables)
// is spread, small enough that a pass stays short (the queue's batch: queue_apply.cc).
constexpr size_t kBuildChunk = 2000;
// Idle passes are this far apart unless woken (a write does not wake the thread: a change is
// searchable at most this long after it commits, plus the pass).
constexpr auto kIdleWait = std::chrono::milliseconds(50);
constexpr int64_t kPurgeEveryMs = 1000;
// Documents a purge pass deletes at most per index (the rest in the next pass).
constexpr size_t kPurgeBatch = 20000;

}  // namespace

std::vector<ops::TablePtr> SearchTables(ops::TableCatalog& catalog) {
  std::vector<ops::TablePtr> out;
  auto list = catalog.List(std::nullopt, SIZE_MAX, ops::Front::kTablestore);
  for (const auto& name : list.names) {
    ops::TablePtr t = catalog.Find(name, ops::Front::kTablestore);
    if (t && t->tablestore && !t->tablestore->search_indexes.empty()) out.push_back(std::move(t));
  }
  return out;
}

std::string Seq8(uint64_t v) {
  std::string s;
  PutFixed64BE(&s, v);
  return s;
}

uint64_t SeqOf(const std::string& s) {
  std::string_view v = s;
  uint64_t x = 0;
  if (!GetFixed64BE(&v, &x)) return 0;
  return x;
}

void WriteDocument(OpenIndex& ix, const std::string& unique_term,
                   const std::optional<Xapian::Document>& doc, std::vector<Xapian::docid>* touched) {
  Xapian::WritableDatabase& db = *ix.writer;
  if (doc) {
    Xapian::docid id = db.replace_document(unique_term, *doc);
    if (ix.graphs) touched->push_back(id);
    return;
  }
  if (ix.graphs) {
    for (auto p = db.postlist_begin(unique_term); p != db.postlist_end(unique_term); ++p) {
      touched->push_back(*p);
    }
  }
  db.delete_document(unique_term);
}

std::unique_ptr<Xapian::Database> OpenIndex::TakeReader() {
  std::unique_ptr<Xapian::Database> db;
  {
    std::lock_guard lock(readers_mu);
    if (!readers.empty()) {
      db = std::move(readers.back());
      readers.pop_back();
    }
  }
  if (!db) {
    db = std::make_unique<Xapian::Database>(path);
  } else {
    db->reopen();
  }
  return db;
}

void OpenIndex::PutReader(std::unique_ptr<Xapian::Database> db) {
  std::lock_guard lock(readers_mu);
  if (readers.size() < 8) readers.push_back(std::move(db));
}

std::shared_ptr<OpenIndex> SearchEngine::Impl::Find(uint32_t id) const {
  std::shared_lock lock(mu);
  auto it = indexes.find(id);
  return it == indexes.end() ? nullptr : it->second;
}

SearchEngine::SearchEngine(storage::Store& store, ops::TableCatalog& catalog, std::string dir,
                           const Clock& clock)
    : impl_(std::make_unique<Impl>(store, catalog, std::move(dir), clock)) {
  impl_->knn_exact_up_to = vector::kDefaultExactUpTo;
}

void SearchEngine::SetKnnExactUpTo(size_t n) { impl_->knn_exact_up_to = n; }

void SearchEngine::SetGraphRegistry(vector::GraphRegistry* registry) {
  impl_->registry = registry ? registry : &impl_->own_registry;
}

std::string SearchEngine::MetricsText() const {
  size_t ready = 0, vectors = 0, deleted = 0;
  {
    std::shared_lock lock(impl_->mu);
    for (const auto& [id, ix] : impl_->indexes) {
      if (!ix->graphs || !ix->graphs->ready()) continue;
      ready += ix->graphs->fields().size();
      for (const auto& f : ix->graphs->fields()) {
        if (auto g = ix->graphs->Graph(f.slot)) {
          vectors += g->size();
          deleted += g->deleted();
        }
      }
    }
  }
  return "# HELP ttlstore_knn_graph_queries_total KNN queries answered through an HNSW graph.\n"
         "# TYPE ttlstore_knn_graph_queries_total counter\n"
         "ttlstore_knn_graph_queries_total " + std::to_string(impl_->knn_graph_queries.load()) +
         "\n# HELP ttlstore_knn_exact_queries_total KNN queries ranked exactly.\n"
         "# TYPE ttlstore_knn_exact_queries_total counter\n"
         "ttlstore_knn_exact_queries_total " + std::to_string(impl_->knn_exact_queries.load()) +
         "\n# HELP ttlstore_vector_graphs_ready Vector fields whose graph is loaded and in step.\n"
         "# TYPE ttlstore_vector_graphs_ready gauge\n"
         "ttlstore_vector_graphs_ready " + std::to_string(ready) +
         "\n# HELP ttlstore_vector_graph_vectors Vectors in the ready graphs (live, deleted nodes).\n"
         "# TYPE ttlstore_vector_graph_vectors gauge\n"
         "ttlstore_vector_graph_vectors{state=\"live\"} " + std::to_string(vectors) +
         "\nttlstore_vector_graph_vectors{state=\"deleted\"} " + std::to_string(deleted) + "\n";
}

SearchEngine::~SearchEngine() { Stop(); }

Status SearchEngine::Start() {
  std::error_code ec;
  std::filesystem::create_directories(impl_->dir, ec);
  if (ec) return Error::Internal("cannot create " + impl_->dir + ": " + ec.message());
  if (impl_->shared_lease_ms > 0) RETURN_IF_ERROR(impl_->StartSharedQueue());
  try {
    impl_->SyncIndexes();
  } catch (const Xapian::Error& e) {
    return Error::Internal("search indexes: " + e.get_description());
  }
  // Folders of indexes no table names: drops (or table deletions) a crash interrupted. Only
  // the catalog decides: a folder that failed to open is kept.
  std::set<uint32_t> named;
  for (const auto& t : SearchTables(impl_->catalog)) {
    for (const auto& meta : t->tablestore->search_indexes) named.insert(meta.id);
  }
  for (const auto& entry : std::filesystem::directory_iterator(impl_->dir, ec)) {
    std::string name = entry.path().filename().string();
    if (name.empty() || name.size() > 10 ||
        name.find_first_not_of("0123456789") != std::string::npos) {
      continue;
    }
    uint32_t id = uint32_t(std::stoul(name));
    if (!named.count(id)) {
      std::filesystem::remove_all(entry.path(), ec);
      spdlog::info("event=search_index_folder_removed id={}", id);
    }
  }
  impl_->thread = std::thread([this] { impl_->Run(); });
  return Status::Ok();
}

void SearchEngine::Stop() {
  if (!impl_ || !impl_->thread.joinable()) return;
  {
    std::lock_guard lock(impl_->wake_mu);
    impl_->stopping = true;
  }
  impl_->wake_cv.notify_all();
  impl_->pass_cv.notify_all();
  impl_->thread.join();
  std::unique_lock lock(impl_->mu);
  for (auto& [id, ix] : impl_->indexes) {
    if (ix->graphs) {
      ix->graphs->Checkpoint(impl_->clock.NowMs(), true);
      ix->graphs->Cancel();
    }
    try {
      if (ix->writer) ix->writer->close();
    } catch (const Xapian::Error&) {
    }
  }
  impl_->indexes.clear();
}

void SearchEngine::Wake() {
  {
    std::lock_guard lock(impl_->wake_mu);
    impl_->woken = true;
  }
  impl_->wake_cv.notify_all();
}

IndexStats SearchEngine::Stats(const model::SearchIndexMeta& index) const {
  IndexStats st;
  // This process's copy too: one that is not open yet, or is (re)built from the rows here, is
  // not complete, whatever the catalog says (another process's copy may be).
  auto ix = impl_->Find(index.id);
  st.full_sync = index.building || !ix || !ix->built;
  if (!ix) return st;
  {
    std::shared_lock lock(impl_->mu);
    auto it = impl_->caught_up_ms.find(ix->table_id);
    if (it != impl_->caught_up_ms.end()) st.current_sync_timestamp_ms = it->second;
  }
  try {
    auto db = ix->TakeReader();
    st.row_count = db->get_doccount();
    ix->PutReader(std::move(db));
  } catch (const Xapian::Error&) {
  }
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(ix->path, ec)) {
    if (e.is_regular_file(ec)) st.storage_size += int64_t(e.file_size(ec));
  }
  return st;
}

void SearchEngine::Impl::Run() {
  while (true) {
    uint64_t pass;
    {
      std::lock_guard lock(wake_mu);
      if (stopping) break;
      pass = ++passes_started;
    }
    bool work = false;
    try {
      work = Pass();
    } catch (const Xapian::Error& e) {
      spdlog::error("event=search_pass_failed message=\"{}\"", e.get_description());
    } catch (const std::exception& e) {
      spdlog::error("event=search_pass_failed message=\"{}\"", e.what());
    }
    std::optional<uint64_t> floor;
    std::optional<std::map<uint32_t, uint64_t>> through;
    try {
      if (shared) {
        through = QueueThrough();
      } else {
        floor = QueueFloor();
      }
    } catch (const std::exception&) {
    }
    std::unique_lock lock(wake_mu);
    if (floor) {
      last_floor_pass = pass;
      last_floor = *floor;
      pass_cv.notify_all();
    }
    if (through) {
      last_through_pass = pass;
      last_through = std::move(*through);
      pass_cv.notify_all();
    }
    if (!work) {
      last_idle_pass = pass;
      pass_cv.notify_all();
      if (!woken && !stopping) wake_cv.wait_for(lock, kIdleWait, [&] { return woken || stopping; });
    }
    woken = false;
  }
}

bool SearchEngine::Impl::Pass() {
  SyncIndexes();
  bool work = false;
  struct Build {
    std::string table_name;
    uint32_t table_id;
    uint32_t index_id;
  };
  std::vector<uint32_t> table_ids;
  std::vector<Build> builds;
  {
    // The descriptors are not held while working: a build waits until no request holds an
    // older descriptor of its table, and one held here would be waited for until the wait's
    // bound (10 s, and a stop waited as long).
    std::vector<ops::TablePtr> tables = SearchTables(catalog);
    for (const auto& t : tables) {
      table_ids.push_back(t->id);
      for (const auto& meta : t->tablestore->search_indexes) {
        // The Xapian metadata decides, not only the catalog: an index whose folder was lost
        // (created empty again by SyncIndexes) is rebuilt from the rows the same way.
        auto ix = Find(meta.id);
        bool built = ix && ix->writer && ix->built;
        if (meta.building || (ix && ix->writer && !built)) {
          builds.push_back({t->name, t->id, meta.id});
        }
      }
    }
  }
  if (shared) FollowSharedQueue(table_ids);
  for (uint32_t id : table_ids) work |= ApplyQueue(id);
  for (const auto& b : builds) work |= BuildChunk(b.table_name, b.table_id, b.index_id);
  int64_t now = clock.NowMs();
  if (now - last_purge_ms >= kPurgeEveryMs) {
    last_purge_ms = now;
    Purge();
  }
  PollGraphs(!work);
  return work;
}

void SearchEngine::Impl::PollGraphs(bool idle) {
  std::vector<std::shared_ptr<OpenIndex>> open;
  {
    std::shared_lock lock(mu);
    for (const auto& [id, ix] : indexes) {
      if (ix->graphs && ix->writer) open.push_back(ix);
    }
  }
  for (auto& ix : open) {
    ix->graphs->Poll(*ix->writer);
    if (idle) ix->graphs->Checkpoint(clock.NowMs(), false);
  }
}

void SearchEngine::Impl::SyncIndexes() {
  std::map<uint32_t, uint32_t> wanted;  // index id -> table id
  std::map<uint32_t, std::vector<VectorField>> vector_fields;
  for (const auto& t : SearchTables(catalog)) {
    for (const auto& meta : t->tablestore->search_indexes) {
      wanted[meta.id] = t->id;
      vector_fields[meta.id] = VectorFieldsOf(meta);
    }
  }
  std::vector<std::shared_ptr<OpenIndex>> dropped;
  {
    std::unique_lock lock(mu);
    for (auto it = indexes.begin(); it != indexes.end();) {
      if (!wanted.count(it->first)) {
        dropped.push_back(it->second);
        it = indexes.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (auto& ix : dropped) {
    if (ix->graphs) ix->graphs->Cancel();
    try {
      if (ix->writer) ix->writer->close();
    } catch (const Xapian::Error&) {
    }
    std::error_code ec;
    std::filesystem::remove_all(ix->path, ec);
    spdlog::info("event=search_index_dropped id={} table_id={}", ix->id, ix->table_id);
    // The table's last search index: nothing consumes its queue any more. Not on a shared
    // store, where another process may already have started a new index of the table at the
    // queue's head (its copies need what follows it): SharedQueue::Trim deletes the rest then.
    bool table_has_more = false;
    for (const auto& [id, table_id] : wanted) table_has_more |= table_id == ix->table_id;
    if (!table_has_more && !shared) {
      storage::WriteBatch batch(store);
      batch.DeleteRange(storage::Family::kSearch, storage::SearchQueueBegin(ix->table_id),
                        storage::SearchQueueEnd(ix->table_id));
      if (auto s = store.Write(batch); !s.ok()) {
        spdlog::warn("event=search_queue_drop_failed message=\"{}\"", s.error().message());
      }
    }
  }
  for (const auto& [id, table_id] : wanted) {
    if (Find(id)) continue;
    auto ix = OpenCopy(id, table_id, vector_fields[id]);
    if (!ix) continue;
    std::unique_lock lock(mu);
    indexes[id] = std::move(ix);
  }
}

std::shared_ptr<OpenIndex> SearchEngine::Impl::OpenCopy(
    uint32_t id, uint32_t table_id, const std::vector<VectorField>& vector_fields) {
  auto ix = std::make_shared<OpenIndex>();
  ix->id = id;
  ix->table_id = table_id;
  ix->path = PathOf(id);
  try {
    ix->writer = std::make_unique<Xapian::WritableDatabase>(ix->path, Xapian::DB_CREATE_OR_OPEN);
  } catch (const Xapian::Error& e) {
    spdlog::error("event=search_index_open_failed id={} message=\"{}\"", id, e.get_description());
    return nullptr;
  }
  ix->built = ix->writer->get_metadata(kMetaBuilt) == "1";
  if (!vector_fields.empty()) {
    ix->graphs = std::make_unique<IndexGraphs>(id, ix->path, vector_fields, *registry);
    ix->graphs->StartLoad();
  }
  return ix;
}

void SearchEngine::Impl::ResetCopy(const std::shared_ptr<OpenIndex>& ix) {
  std::vector<VectorField> fields;
  if (ix->graphs) {
    fields = ix->graphs->fields();
    ix->graphs->Cancel();
  }
  {
    std::unique_lock lock(mu);
    indexes.erase(ix->id);
  }
  try {
    if (ix->writer) ix->writer->close();
  } catch (const Xapian::Error&) {
  }
  std::error_code ec;
  std::filesystem::remove_all(ix->path, ec);
  auto fresh = OpenCopy(ix->id, ix->table_id, fields);
  if (!fresh) return;  // SyncIndexes opens it again on a later pass
  std::unique_lock lock(mu);
  indexes[ix->id] = std::move(fresh);
}

bool SearchEngine::Impl::BuildChunk(const std::string& table_name, uint32_t table_id,
                                    uint32_t index_id) {
  auto ix = Find(index_id);
  if (!ix || !ix->writer) return false;
  // A shared queue's copy reads the rows only once it has its start in the queue (the head
  // read before them): FollowSharedQueue.
  if (shared && !ix->queue_cursor) return false;
  bool built = ix->built;
  std::string cursor = built ? std::string() : ix->writer->get_metadata(kMetaBuildCursor);
  if (!built && cursor.empty()) {
    // Writers that resolved the table before the index existed queue nothing for it: wait
    // until none is left before reading the rows (the secondary-index backfill's rule). No
    // descriptor of the table is held here, or the wait would be for this one.
    catalog.WaitForOlderVersions(table_id);
  }
  ops::TablePtr table = catalog.FindById(table_id);
  if (!table || !table->tablestore) return false;
  const model::TablestoreSchema& schema = *table->tablestore;
  const model::SearchIndexMeta* meta = nullptr;
  for (const auto& m : schema.search_indexes) {
    if (m.id == index_id) meta = &m;
  }
  if (!meta) return false;
  if (built && !meta->building) return false;
  if (!built) {
    int64_t now = clock.NowMs();
    auto it = store.ScanFamily(storage::Family::kRows, versions::TableRowsBegin(table_id),
                               versions::TableRowsEnd(table_id), false,
                               cursor.empty() ? nullptr : &cursor);
    size_t n = 0;
    std::string last;
    std::vector<Xapian::docid> touched;
    for (; it->Valid() && n < kBuildChunk; it->Next(), ++n) {
      std::string key(it->key());
      versions::StoredRow row;
      std::optional<Xapian::Document> doc;
      if (versions::DecodeRow(it->value(), &row)) doc = BuildDocument(*meta, schema, key, row, now);
      WriteDocument(*ix, UniqueTerm(key), doc, &touched);
      last = std::move(key);
    }
    if (!it->status().ok()) return false;
    built = n < kBuildChunk;
    if (!last.empty()) ix->writer->set_metadata(kMetaBuildCursor, last);
    if (built) ix->writer->set_metadata(kMetaBuilt, "1");
    if (ix->graphs) ix->graphs->Changed(*ix->writer, touched);
    ix->writer->commit();
    if (!built) return true;
    ix->built = true;
    spdlog::info("event=search_index_built table={} index={}", table_name, meta->name);
  }
  auto r = catalog.Update(
      table_name,
      [&](model::TableDescriptor& d) -> Status {
        if (!d.tablestore || d.id != table_id) return Status::Ok();
        for (auto& m : d.tablestore->search_indexes) {
          if (m.id == index_id) m.building = false;
        }
        return Status::Ok();
      },
      ops::Front::kTablestore);
  if (!r.ok()) {
    spdlog::warn("event=search_index_build_publish_failed index={} message=\"{}\"", meta->name,
                 r.error().message());
  }
  return false;
}

void SearchEngine::Impl::Purge() {
  int64_t now = clock.NowMs();
  for (const auto& t : SearchTables(catalog)) {
    for (const auto& meta : t->tablestore->search_indexes) {
      int64_t ttl = EffectiveTtlSeconds(meta, *t->tablestore);
      if (ttl < 0) continue;
      auto ix = Find(meta.id);
      if (!ix || !ix->writer) continue;
      int64_t cutoff = now - ttl * 1000;
      std::vector<Xapian::docid> expired;
      Xapian::WritableDatabase& db = *ix->writer;
      for (auto term = db.allterms_begin("T"); term != db.allterms_end("T"); ++term) {
        std::string name = *term;
        if (name.size() != 9) continue;
        int64_t minute = int64_t(KeyFromBytes(std::string_view(name).substr(1)) ^ (uint64_t{1} << 63));
        if (minute * 60000 > cutoff) break;
        for (auto p = db.postlist_begin(name); p != db.postlist_end(name); ++p) {
          std::string v = db.get_document(*p).get_value(kSlotTimestamp);
          int64_t ts = int64_t(KeyFromBytes(v) ^ (uint64_t{1} << 63));
          if (ts < cutoff) expired.push_back(*p);
          if (expired.size() >= kPurgeBatch) break;
        }
        if (expired.size() >= kPurgeBatch) break;
      }
      if (expired.empty()) continue;
      for (Xapian::docid d : expired) db.delete_document(d);
      if (ix->graphs) ix->graphs->Changed(db, expired);
      db.commit();
      spdlog::debug("event=search_index_purged index={} documents={}", meta.name, expired.size());
    }
  }
}

}  // namespace ttlstore::search
