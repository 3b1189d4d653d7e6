// Reconcile (reconcile.h): one pass over the documents' vectors, then one over the graph's
// labels for those the documents no longer give.
#include "vector/reconcile.h"

#include <unordered_set>
#include <vector>

namespace ttlstore::vector {

ReconcileCounts Reconcile(VectorIndex& graph, const VectorSource& truth, bool apply) {
  ReconcileCounts counts;
  std::unordered_set<uint64_t> seen;
  truth([&](uint64_t label, const float* v) {
    if (!seen.insert(label).second) return;  // a label given twice: the first vector counts
    if (graph.Matches(label, v)) {
      ++counts.kept;
      return;
    }
    ++counts.upserted;
    if (apply) graph.Upsert(label, v);
  });
  std::vector<uint64_t> extra;
  graph.ForEach([&](uint64_t label, const float*) {
    if (!seen.count(label)) extra.push_back(label);
  });
  counts.removed = extra.size();
  if (apply) {
    for (uint64_t label : extra) graph.Remove(label);
  }
  return counts;
}

}  // namespace ttlstore::vector
