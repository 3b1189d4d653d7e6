// VectorGraphs: the HNSW graphs (vector/vector_index.h) SearchVectors ranks large DynamoDB vector
// indexes with, one per index, built on the first search of the index and kept in step with its
// entries (docs/vector-indexes.md, "Ranking").
//
// The entries are the truth; a graph only proposes candidates, which SearchVectors reads back
// by key, re-checks (condition, expiry) and scores from the entry. Life of a graph:
//   - Find on an index with no graph asks for a build: the background thread scans the index's
//     entries, labels each entry key with a new 64-bit label, and publishes the graph when done.
//     Until then SearchVectors ranks exactly.
//   - Every batch that writes or deletes entries of a vector index names their keys
//     (index/vector_entry_hook.h) once its outcome is known; the thread re-reads each key and
//     upserts or removes its vector. Keys named during a build are applied after it, so nothing
//     written meanwhile is missed; a key re-read after a later write only makes the graph newer.
//   - A graph whose index or table is gone is dropped (checked each minute).
// With several processes on one database, a process hears only its own batches: another
// process's writes reach its graphs when they are rebuilt (issue 34; docs/scaling.md).
//
// Thread-safety: every public method may be called from any thread.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <shared_mutex>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "common/thread.h"
#include "index/vector_entry_hook.h"
#include "model/table.h"
#include "ops/table_ops.h"
#include "storage/store.h"
#include "vector/vector_index.h"

namespace ttlstore::ops {

// One vector index's graph and the entry key of each label.
class IndexGraph {
 public:
  IndexGraph(size_t dim, vector::Metric metric) : graph_(dim, metric) {}

  const vector::VectorIndex& graph() const { return graph_; }
  // The entry key of `label`, or nullopt if it has none (removed since).
  std::optional<std::string> KeyOf(uint64_t label) const;
  // How many entry keys start with `prefix` (a HASH partition), counting at most `limit`.
  size_t CountPrefix(const std::string& prefix, size_t limit) const;
  // Stores `v` for `entry_key` (a new label for a new key) / forgets the key's vector.
  void Upsert(const std::string& entry_key, const float* v);
  void Remove(const std::string& entry_key);

 private:
  vector::VectorIndex graph_;
  mutable std::shared_mutex mu_;                       // the two maps below
  std::map<std::string, uint64_t> labels_;            // entry key -> label, in key order
  std::unordered_map<uint64_t, std::string> keys_;    // label -> entry key
  uint64_t next_label_ = 1;                           // labels are never reused
};

class VectorGraphs {
 public:
  VectorGraphs(storage::Store& store, TableCatalog& catalog);
  ~VectorGraphs();  // Stop()

  void Start();
  void Stop();

  // The published graph of vector index `index` of `table`, or nullptr; asks for its build when
  // there is none.
  std::shared_ptr<const IndexGraph> Find(const model::TableDescriptor& table,
                                         const model::SecondaryIndex& index);
  // SearchVectors answered from a graph (counted by the caller).
  void CountGraphSearch() { graph_searches_.fetch_add(1, std::memory_order_relaxed); }
  // Prometheus text: graphs published, their vectors, searches answered by a graph.
  std::string RenderMetrics() const;

 private:
  using IndexId = std::pair<uint32_t, uint32_t>;  // table id, index id
  void Loop();
  void Touched(const std::vector<index::VectorEntryTouch>& touches);
  // Builds the graph of `id` from its entries; nullptr if the index is gone or a read failed.
  std::shared_ptr<IndexGraph> Build(IndexId id);
  void Refresh(IndexGraph& graph, const model::SecondaryIndex& index, const std::string& key);
  void DropGone();

  storage::Store& store_;
  TableCatalog& catalog_;
  std::atomic<uint64_t> graph_searches_{0};
  mutable std::mutex mu_;
  std::condition_variable wake_;
  std::map<IndexId, std::shared_ptr<IndexGraph>> graphs_;  // GUARDED_BY(mu_): published
  std::set<IndexId> wanted_;                               // GUARDED_BY(mu_): to build
  std::set<std::tuple<uint32_t, uint32_t, std::string>> touched_;  // GUARDED_BY(mu_)
  bool stop_ = false;                                              // GUARDED_BY(mu_)
  Thread thread_;
  std::unique_ptr<index::VectorEntryListening> listening_;
};

}  // namespace ttlstore::ops
