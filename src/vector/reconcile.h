// Reconcile: brings a graph (vector_index.h) in line with the vectors of its documents, the
// truth, after a checkpoint was loaded (it may be older than the documents) or to verify a
// graph (`ttlstore check`): every label the documents give gets exactly their vector, every
// other label leaves the graph.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

#include "vector/vector_index.h"

namespace ttlstore::vector {

struct ReconcileCounts {
  size_t kept = 0;      // labels whose stored vector already matched
  size_t upserted = 0;  // labels added or whose vector differed
  size_t removed = 0;   // labels the documents no longer give
};

// Calls its argument once per (label, vector of graph.dim() floats) of the documents.
using VectorSource = std::function<void(const std::function<void(uint64_t, const float*)>&)>;

// Compares `graph` with `truth` and, when `apply`, makes it hold exactly `truth`'s vectors
// (Upsert and Remove; the caller is the graph's only writer). Counts the differences either way.
ReconcileCounts Reconcile(VectorIndex& graph, const VectorSource& truth, bool apply);

}  // namespace ttlstore::vector
