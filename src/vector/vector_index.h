// VectorIndex: the approximate nearest-neighbour index of one vector field, shared by the
// Tablestore search indexes' Vector fields (search/) and DynamoDB's vector indexes. It wraps
// hnswlib 0.6.2 (Debian's libhnswlib-dev; chosen by measurement: docs/vector-engine.md): an
// HNSW graph over float32 vectors, each stored under a 64-bit label (the caller's document id).
// It is an in-memory structure derived from a durable store (a Xapian database's documents);
// Save/Load only spare a rebuild at start-up (search/vector_graphs.h keeps it in step).
//
// Metrics and distances (smaller is nearer): euclidean the squared L2 distance; cosine 1 - cos,
// vectors normalized on the way in (a zero vector stays zero: cos 0); dot_product 1 - dot.
// Each API turns a distance into its own score (vector/score.h).
//
// Thread-safety: any number of concurrent readers (Search, Exact, Get, ForEach, Save) with at
// most one writer (Upsert, Remove, Compact); the class takes the locks itself.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/result.h"

namespace ttlstore::vector {

// Numbered as Tablestore's VectorMetricType (persisted in catalogs and graph files).
enum class Metric : uint8_t { kEuclidean = 0, kCosine = 1, kDotProduct = 2 };

// The largest dimension either API allows (Tablestore's VectorOptions, DynamoDB's quotas).
inline constexpr size_t kMaxDimensions = 4096;

// HNSW's parameters (docs/vector-engine.md, "Parameters"): links per node, the candidate list
// while inserting, and the candidate list of a search (at least k).
inline constexpr size_t kLinks = 16;
inline constexpr size_t kEfConstruction = 200;
inline constexpr size_t kEfSearch = 128;

struct Neighbor {
  uint64_t label = 0;
  float distance = 0;  // smaller is nearer (see above)
};

// Which labels a search may return: called for each candidate, under the index's read lock.
using LabelFilter = std::function<bool(uint64_t)>;

class VectorIndex {
 public:
  // REQUIRES: 1 <= dim <= kMaxDimensions.
  VectorIndex(size_t dim, Metric metric);
  ~VectorIndex();
  VectorIndex(const VectorIndex&) = delete;
  VectorIndex& operator=(const VectorIndex&) = delete;

  size_t dim() const { return dim_; }
  Metric metric() const { return metric_; }

  // Stores `v` (dim() floats) under `label`, replacing the label's earlier vector if any.
  void Upsert(uint64_t label, const float* v);
  // Forgets the label's vector (a no-op if it has none). The graph keeps the node, marked
  // deleted, until Compact.
  void Remove(uint64_t label);
  bool Contains(uint64_t label) const;
  // The stored vector of `label` (normalized under cosine), false if none.
  bool Get(uint64_t label, std::vector<float>* out) const;
  // Live vectors, and deleted nodes still in the graph.
  size_t size() const;
  size_t deleted() const;
  // Bytes the graph holds (vectors, links, labels), approximately.
  size_t MemoryBytes() const;

  // The k nearest live vectors to `q` among those `allowed` accepts (all when null), nearest
  // first: HNSW's search with a candidate list of max(kEfSearch, k, ef) where filtered-out nodes
  // are walked through but never returned. `examined` (optional) counts the distances computed.
  std::vector<Neighbor> Search(const float* q, size_t k, const LabelFilter* allowed = nullptr,
                               size_t ef = 0, size_t* examined = nullptr) const;
  // The exact k nearest among `labels` (labels without a vector are skipped), nearest first.
  std::vector<Neighbor> Exact(const float* q, size_t k, const std::vector<uint64_t>& labels,
                              size_t* examined = nullptr) const;
  // The distance of `q` to the label's vector; false when the label has none.
  bool Distance(const float* q, uint64_t label, float* out) const;
  // Whether the label's stored vector is exactly `v` as Upsert would store it.
  bool Matches(uint64_t label, const float* v) const;

  // Each live (label, vector), in no particular order, under the read lock.
  void ForEach(const std::function<void(uint64_t, const float*)>& fn) const;

  // Writes the graph to `path` (through path + ".tmp", fsynced, renamed; the folder fsynced).
  Status Save(const std::string& path) const;
  // A graph saved by Save for this dim and metric; an error for a missing, truncated or
  // mismatched file (the caller then rebuilds from its documents).
  static Result<std::unique_ptr<VectorIndex>> Load(const std::string& path, size_t dim,
                                                   Metric metric);

  // Rebuilds the graph from its live vectors when deleted nodes outnumber them (and are more
  // than a few thousand): memory and search time follow the live vectors again. Readers keep
  // the old graph until the swap. Returns true if it rebuilt.
  bool CompactIfSparse();

 private:
  struct Impl;
  VectorIndex(size_t dim, Metric metric, std::unique_ptr<Impl> impl);
  // `v` as stored: normalized under cosine.
  const float* Prepared(const float* v, std::vector<float>* buf) const;

  size_t dim_;
  Metric metric_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ttlstore::vector
