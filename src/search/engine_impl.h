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

#include "search/search_engine.h"
#include "search/vector_graphs.h"
#include "vector/graph_registry.h"

namespace ttlstore::search {

// Xapian metadata keys (docs/formats.md, "Search index metadata").
inline constexpr char kMetaAppliedSeq[] = "ttlstore.applied_seq";  // 8 BE: largest seq applied
inline constexpr char kMetaBuildCursor[] = "ttlstore.build_cursor";  // last row key built
inline constexpr char kMetaBuilt[] = "ttlstore.built";               // "1" once built

// One open index. The writer belongs to the background thread; readers are pooled for
// requests (each reopened at the start of a request, so it sees the last commit).
struct OpenIndex {
  uint32_t id = 0;
  uint32_t table_id = 0;
  std::string path;
  std::unique_ptr<Xapian::WritableDatabase> writer;  // background thread only
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
  std::condition_variable pass_cv;
  std::thread thread;
  int64_t last_purge_ms = 0;

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
