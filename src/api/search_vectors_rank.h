// How SearchVectors finds the k nearest items of a vector index (docs/vector-indexes.md,
// "Ranking"): exactly, in one pass over the index's entries (or the condition's HASH partition)
// keeping the k nearest in a heap; or, for an index larger than --knn-exact-up-to entries, by its
// HNSW graph (ops/vector_graphs.h), whose candidates are read back by key, checked and scored
// from their entries, with the candidate list widened until k pass (vector/knn_plan.h). Either
// way every answer is an entry as stored now, with the condition and expiry checked.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "api/dispatch.h"
#include "api/search_condition.h"
#include "model/table.h"
#include "ops/vector_graphs.h"

namespace ttlstore::api {

struct VectorCandidate {
  double distance = 0;
  std::string entry_key;  // ties: the entry order
  model::Item item;
  bool operator<(const VectorCandidate& o) const {
    return distance != o.distance ? distance < o.distance : entry_key < o.entry_key;
  }
};

class VectorRanker {
 public:
  // REQUIRES: index.IsVector(), query.size() == the index's dimensions.
  VectorRanker(const Services& s, const model::TableDescriptor& table,
               const model::SecondaryIndex& index, const SearchCondition& condition,
               std::vector<float> query, size_t k);

  // The k nearest, nearest first, by one pass over the entries.
  Result<std::vector<VectorCandidate>> Exact() const;
  // The k nearest by `graph`, given at least `matches` entries in the condition's range; nullopt
  // when exact ranking is the better (or the only sure) way (vector::PlanKnn, WidenEf).
  Result<std::optional<std::vector<VectorCandidate>>> ByGraph(const ops::IndexGraph& graph,
                                                              size_t matches,
                                                              size_t exact_up_to) const;
  // The entries' range: the index, or the condition's HASH partition.
  const std::string& lower() const { return lower_; }

 private:
  // The entry at `key` as a candidate if it passes the condition's filters, has a vector, is
  // nearer than `worse_than` (when given) and is not hidden as expired.
  Result<std::optional<VectorCandidate>> Check(std::string_view key, std::string_view raw,
                                               const VectorCandidate* worse_than) const;

  const Services& s_;
  const model::TableDescriptor& table_;
  const model::SecondaryIndex& index_;
  const SearchCondition& condition_;
  std::vector<float> query_;
  size_t k_;
  std::string lower_;
  bool hiding_;
  int64_t now_ms_;
};

}  // namespace ttlstore::api
