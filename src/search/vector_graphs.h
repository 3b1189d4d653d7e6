// IndexGraphs: the HNSW graphs (vector/vector_index.h) of one search index's Vector fields,
// one per field, labelled by Xapian docid, kept in step with the index's committed documents by
// the engine's background thread (docs/vector-engine.md, "Graphs are a cache").
//
// The documents are the truth: each holds its vectors in value slots (float32 little-endian,
// dim x 4 bytes; search/document.cc). A graph is derived from them and never decides an answer
// alone: the query path (search_exec.cc) takes the graph's candidates, keeps those the request's
// own Xapian reader says match the filter and the TTL, and scores them from that reader's slot.
//
// Life of the graphs:
//   - StartLoad (when the index is opened): a loader thread takes each field's checkpoint
//     `<index folder>/vectors-<slot>.hnsw` if it loads (else an empty graph) and reconciles it
//     with the documents' vectors (vector/reconcile.h): an old, missing or corrupt checkpoint
//     costs insertions, never a wrong graph. Until the load is done, queries rank exactly.
//   - Changed (right before each commit of the writer): the docids the commit writes or
//     deletes are read from the writer (its pending documents) and upserted or removed; while a
//     load runs they are kept and replayed when it finishes (Poll), so commits during a long
//     rebuild are not lost. Before, not after: a reader opened at the new commit must not find
//     the graph behind it (documents it holds missing from the graph, old vectors for
//     overwritten ones: measured recall fell to 0.86 in that window). A graph ahead of a
//     reader is harmless: candidates the reader does not hold, or holds differently, are
//     dropped or scored from the reader. If the commit fails, the next pass writes the same
//     documents again and the graph follows.
//   - Checkpoint: the graphs saved through a temporary file, fsynced and renamed, when idle
//     and enough has changed, and at shutdown. A kill -9 at any point leaves at worst an older
//     checkpoint, which the next StartLoad reconciles.
//
// Threads: StartLoad, Changed, Poll, Checkpoint and Cancel are the background thread's (the
// only user of the index's writer); request threads call Graph() (the registry's graphs are
// internally locked).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <xapian.h>

#include "model/search_index.h"
#include "vector/graph_registry.h"
#include "vector/vector_index.h"

namespace ttlstore::search {

struct VectorField {
  unsigned slot = 0;  // the Xapian value slot holding the field's vector
  size_t dim = 0;
  vector::Metric metric = vector::Metric::kEuclidean;
};

// The Vector fields of `index` (none: the index needs no graphs).
std::vector<VectorField> VectorFieldsOf(const model::SearchIndexMeta& index);

// The vector a document's slot holds (dim floats), or nullopt when the slot is empty or not of
// that size.
std::optional<std::vector<float>> SlotVector(const Xapian::Document& doc, unsigned slot,
                                             size_t dim);

// The checkpoint file of a slot's graph in an index folder.
std::string CheckpointPath(const std::string& folder, unsigned slot);

class IndexGraphs {
 public:
  // `registry` outlives this object; graphs are published there under RegistryId.
  IndexGraphs(uint32_t index_id, std::string folder, std::vector<VectorField> fields,
              vector::GraphRegistry& registry);
  ~IndexGraphs();  // Cancel()
  IndexGraphs(const IndexGraphs&) = delete;
  IndexGraphs& operator=(const IndexGraphs&) = delete;

  static std::string RegistryId(uint32_t index_id, unsigned slot);
  const std::vector<VectorField>& fields() const { return fields_; }
  bool ready() const { return ready_.load(std::memory_order_acquire); }
  // The field's published graph, or nullptr (not ready, or not a vector slot).
  std::shared_ptr<vector::VectorIndex> Graph(unsigned slot) const;

  // Starts the loader thread (see above). Changes from the writer's next commit on must be
  // passed to Changed.
  void StartLoad();
  // The docids the next commit of `writer` writes or deletes, right before the commit.
  void Changed(const Xapian::Database& writer, const std::vector<Xapian::docid>& ids);
  // Publishes a finished load (replaying the changes seen meanwhile from `writer`); compacts
  // graphs mostly made of deleted nodes. Returns true when it did something.
  bool Poll(const Xapian::Database& writer);
  // Saves every graph that changed since its last save, when `force` or when enough changed
  // (at least max(10000, a tenth of the vectors)) and the last save is 60 s old.
  void Checkpoint(int64_t now_ms, bool force);
  // Stops a running load and unpublishes the graphs (the index is dropped or closing).
  void Cancel();

 private:
  void LoadAll(std::string path);
  void Apply(const Xapian::Database& db, const std::vector<Xapian::docid>& ids);

  uint32_t index_id_;
  std::string folder_;
  std::vector<VectorField> fields_;
  vector::GraphRegistry& registry_;

  std::atomic<bool> ready_{false};
  std::atomic<bool> cancel_{false};
  std::thread loader_;
  std::mutex mu_;
  bool load_done_ = false;                                    // GUARDED_BY(mu_)
  std::vector<std::shared_ptr<vector::VectorIndex>> loaded_;  // GUARDED_BY(mu_)
  std::set<Xapian::docid> pending_;  // background thread only: changes during a load
  bool loading_ = false;             // background thread only
  std::vector<std::shared_ptr<vector::VectorIndex>> graphs_;  // set once ready
  uint64_t changes_since_save_ = 0;
  int64_t last_save_ms_ = 0;
};

}  // namespace ttlstore::search
