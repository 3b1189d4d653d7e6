// KnnPlan: how a KNN query over a graph's documents is answered (docs/vector-engine.md, "How
// KNN is served"): exactly, by reading the vectors of every document the filter leaves, or by
// the HNSW graph with a candidate list (ef) wide enough that the filter still leaves k of them.
// Pure arithmetic, shared by Tablestore's KnnVectorQuery and DynamoDB's SearchVectors.
#pragma once

#include <cstddef>

namespace ttlstore::vector {

// Filtered sets at or below this many documents are ranked exactly (measured:
// BENCHMARKS.md, "Search: aggregations and KNN"; the server's --knn-exact-up-to).
inline constexpr size_t kDefaultExactUpTo = 20000;
// The candidate list of an unfiltered graph search: kEfBase for each kEfBaseVectors the graph
// holds (started), and the widest list before exact ranking is cheaper. Measured on clustered
// 768-d cosine data (BENCHMARKS.md, "KNN: the engine driven directly"): ef 256 gives recall@10
// 1.000 over 73k vectors but 0.896 over 1M, where ef 512 gives 0.963.
inline constexpr size_t kEfBase = 256;
inline constexpr size_t kEfBaseVectors = 500'000;
inline constexpr size_t kEfMax = 16384;

// The unfiltered candidate list for a graph of `live` vectors and `k` results:
// max(kEfBase * ceil(live / kEfBaseVectors), 2k).
size_t BaseEf(size_t live, size_t k);

struct KnnPlan {
  bool exact = true;
  size_t ef = 0;  // the graph's candidate list when !exact
};

// `matches`: the documents the filter (and the TTL) leaves, counted at least up to
// `exact_up_to` + 1; `live`: the vectors in the graph (0: no graph); `k` the results wanted.
// Exact when there is no graph, the filtered set is at most `exact_up_to`, or the candidate
// list the filter's selectivity needs (BaseEf(live, k) / (matches / live)) would exceed
// kEfMax or cover the whole graph.
KnnPlan PlanKnn(size_t matches, size_t live, size_t k, size_t exact_up_to);

// After a graph search with candidate list `ef` left fewer than k documents the filter
// accepts: the next, wider list (4x), or 0 when the answer must come from exact ranking.
size_t WidenEf(size_t ef, size_t live);

}  // namespace ttlstore::vector
