// SearchEngine's insides, shared by its background half (search_engine.cc: queue applier,
// build, purge, drop) and its read half (search_exec.cc: Search, ParallelScan). Not for other
// layers.
#pragma once

#include <atomic>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <thread>
#include <vector>

#include <xapian.h>

#include "ops/table_ops.h"
#include "search/search_engine.h"
#include "search/shared_queue.h"
#include "search/vector_graphs.h"
#include "vector/graph_registry.h"

namespace ttlstore::search {

// Xapian metadata keys (docs/formats.md, "Search index metadata").
inline constexpr char kMetaAppliedSeq[] = "ttlstore.applied_seq";  // 8 BE: largest seq applied
inline constexpr char kMetaBuildCursor[] = "ttlstore.build_cursor";  // last row key built
inline constexpr char kMetaBuilt[] = "ttlstore.built";               // "1" once built
// 8 BE, shared queue only (search/shared_queue.h): every entry of the table up to it applied.
inline constexpr char kMetaQueueCursor[] = "ttlstore.queue_cursor";

// The tables (Tablestore model) that have search indexes.
std::vector<ops::TablePtr> SearchTables(ops::TableCatalog& catalog);

// 8 bytes BE of `v`, and back (0 for anything else).
std::string Seq8(uint64_t v);
uint64_t SeqOf(const std::string& s);

struct OpenIndex;
// Writes `doc` under `unique_term` (replacing the document holding it), or deletes the document
// holding it when `doc` is nullopt. When the index has graphs, adds the docids written or
// deleted to `touched` (IndexGraphs::Changed after the commit).
void WriteDocument(OpenIndex& ix, const std::string& unique_term,
                   const std::optional<Xapian::Document>& doc, std::vector<Xapian::docid>* touched);

// One open index. The writer belongs to the background thread; readers are pooled for
// requests (each reopened at the start of a request, so it sees the last commit).
struct OpenIndex {
  uint32_t id = 0;
  uint32_t table_id = 0;
  std::string path;
  std::unique_ptr<Xapian::WritableDatabase> writer;  // background thread only
  // Shared queue only, background thread only: kMetaQueueCursor as committed (nullopt: the
  // copy has none yet, and waits for SharedQueue::Publish to give it its start).
  std::optional<uint64_t> queue_cursor;
  // kMetaBuilt as committed (set when opened and when the build's last chunk commits): for the
  // background thread and for request threads (DescribeSearchIndex's sync phase).
  std::atomic<bool> built{false};
  // The graphs of its Vector fields (null: none), set when opened (search/vector_graphs.h).
  std::unique_ptr<IndexGraphs> graphs;

  std::mutex readers_mu;
  std::vector<std::unique_ptr<Xapian::Database>> readers;  // GUARDED_BY(readers_mu)

  // A reader (from the pool or newly opened) brought up to the last commit; give it back with
  // PutReader.
  std::unique_ptr<Xapian::Database> TakeReader();
  void PutReader(std::unique_ptr<Xapian::Database> db);
};

struct SearchEngine::Impl {
  storage::Store& store;
  ops::TableCatalog& catalog;
  std::string dir;
  const Clock& clock;

  // The vector graphs (IndexGraphs publish there) and KNN's switch to exact ranking.
  vector::GraphRegistry own_registry;
  vector::GraphRegistry* registry = &own_registry;
  size_t knn_exact_up_to = 0;
  std::atomic<uint64_t> knn_graph_queries{0};
  std::atomic<uint64_t> knn_exact_queries{0};

  mutable std::shared_mutex mu;
  std::map<uint32_t, std::shared_ptr<OpenIndex>> indexes;  // GUARDED_BY(mu), by index id
  // Per table: when its queue was last seen empty (IndexStats.current_sync_timestamp_ms).
  std::map<uint32_t, int64_t> caught_up_ms;  // GUARDED_BY(mu)

  std::mutex wake_mu;
  std::condition_variable wake_cv;
  bool woken = false;       // GUARDED_BY(wake_mu)
  bool stopping = false;    // GUARDED_BY(wake_mu)
  // Passes: `started` counts passes begun, `idle_passes` the last pass number that ended with
  // nothing left to do (no queue entry, no build).
  uint64_t passes_started = 0;  // GUARDED_BY(wake_mu)
  uint64_t last_idle_pass = 0;  // GUARDED_BY(wake_mu)
  // The last pass that ended with no build running, and the smallest queue sequence it left
  // (UINT64_MAX: none): every change with a smaller sequence is searchable.
  uint64_t last_floor_pass = 0;     // GUARDED_BY(wake_mu)
  uint64_t last_floor = 0;          // GUARDED_BY(wake_mu)
  // Shared queue: after the last pass that ran no build, each table's smallest cursor.
  uint64_t last_through_pass = 0;                // GUARDED_BY(wake_mu)
  std::map<uint32_t, uint64_t> last_through;     // GUARDED_BY(wake_mu)
  std::condition_variable pass_cv;
  std::thread thread;
  int64_t last_purge_ms = 0;
  // Set by ShareQueue on a shared store (the lease), and made by Start (StartSharedQueue);
  // background thread only after Start.
  int64_t shared_lease_ms = 0;
  std::unique_ptr<SharedQueue> shared;
  int64_t last_trim_ms = 0;

  // ComputeSplits' sessions: expiry (ms) and the splits it gave (ParallelScan's max_parallel
  // bound). In memory: a restart forgets them, and a scan then goes on under the index's splits.
  struct Session {
    int64_t expiry_ms = 0;
    int32_t splits = 1;
  };
  std::mutex sessions_mu;
  std::map<std::string, Session> sessions;  // GUARDED_BY(sessions_mu), by session id

  Impl(storage::Store& s, ops::TableCatalog& c, std::string d, const Clock& k)
      : store(s), catalog(c), dir(std::move(d)), clock(k) {}

  std::string PathOf(uint32_t id) const { return dir + "/" + std::to_string(id); }
  std::shared_ptr<OpenIndex> Find(uint32_t id) const;

  void Run();
  // One pass; returns true when it found work (another pass follows at once).
  bool Pass();
  // After a pass: no build is running, and the smallest sequence still queued (UINT64_MAX if
  // none); nullopt while a build runs.
  std::optional<uint64_t> QueueFloor();
  // Whether an index of the table is building: in the catalog, or this process's copy.
  bool Building(const model::TablestoreSchema& schema) const;
  // Shared queue, after a pass: each table's smallest cursor; nullopt while a build runs.
  std::optional<std::map<uint32_t, uint64_t>> QueueThrough();
  // Shared queue: publishes the cursors when due or when a copy has none, and starts (or
  // rebuilds) the copies Publish says start at their table's head; trims about once a second.
  // Makes `shared` with the consumer id kept in <dir>/consumer-id (made once, at random).
  Status StartSharedQueue();
  void FollowSharedQueue(const std::vector<uint32_t>& table_ids);
  // A copy emptied and made again (its folder deleted), to be built from the rows.
  void ResetCopy(const std::shared_ptr<OpenIndex>& ix);
  // Opens (creating) the copy of index `id` and starts loading its graphs.
  std::shared_ptr<OpenIndex> OpenCopy(uint32_t id, uint32_t table_id,
                                      const std::vector<VectorField>& vector_fields);
  void SyncIndexes();
  bool ApplyQueue(uint32_t table_id);
  bool BuildChunk(const std::string& table_name, uint32_t table_id, uint32_t index_id);
  void Purge();
  // Each index's graphs: publishes finished loads, compacts; when `idle`, checkpoints.
  void PollGraphs(bool idle);
  // The splits ComputeSplits gives `index` now (one per kDocsPerSplit documents, at least 1).
  int32_t SplitsOf(const model::SearchIndexMeta& index);
};

}  // namespace ttlstore::search
