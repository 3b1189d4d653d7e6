// The nearest-neighbour half of Tablestore's KnnVectorQuery (issue 32): the k documents of a
// Xapian reader whose vector (a Vector field's value slot, float32 little-endian, dim x 4
// bytes: search/document.cc) is nearest to a query vector, among the documents matching a
// filter, and a Xapian query matching exactly those documents with their scores.
//
// Two rankings (docs/vector-engine.md, "How KNN is served"): exact, every matching document's
// vector compared; or through the field's HNSW graph (search/vector_graphs.h), whose candidates
// are checked against the reader. Either way every hit is a document of the reader the request
// holds, scored from that reader's vector, so the hits, the filter, the TTL, the sorts and the
// documents' other fields come from one committed state.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <xapian.h>

#include "search/match_all.h"
#include "vector/vector_index.h"

namespace ttlstore::search {

struct KnnSpec {
  unsigned slot = 0;  // the Xapian value slot holding the field's vectors
  size_t dim = 0;
  vector::Metric metric = vector::Metric::kEuclidean;
  const float* query = nullptr;  // dim floats
  size_t k = 10;
};

// The distance of `v` to `q` (dim floats each) as vector/vector_index.h defines it for `m`:
// euclidean the squared L2 distance, cosine 1 - cos (0 when either is a zero vector: cos 0),
// dot_product 1 - dot. Smaller is nearer.
float VectorDistance(vector::Metric m, const float* q, const float* v, size_t dim);

// The k documents of `db` matching `filter` nearest to the query (nearest first; ties by
// docid), with their distances; documents without a vector in the slot are skipped.
// `examined` (optional) adds the vectors compared.
std::vector<vector::Neighbor> NearestDocuments(const Xapian::Database& db, const KnnSpec& spec,
                                               const Xapian::Query& filter,
                                               size_t* examined = nullptr);

// What a graph search may return: documents matching `filter` (MatchAll: any), and when
// `min_timestamp` is set, whose timestamp slot (search/terms.h kSlotTimestamp) is at least it
// (the TTL).
struct GraphFilter {
  Xapian::Query filter = MatchAll();
  std::optional<std::string> min_timestamp;
};

// The same k documents from `graph`'s candidates: a filtered graph search with candidate list
// `ef` (nodes `gf` refuses are walked through, never returned: the filter's documents as a
// bitmap of `db`'s docids, the TTL read per candidate), of which those `db` holds, matching
// `alive` (the filter and the TTL), with a vector in the slot are kept and scored from `db`'s
// vector; when fewer than k are left the list is widened (vector/knn_plan.h WidenEf). nullopt
// when it would have to grow past kEfMax or the graph: exact ranking answers then.
std::optional<std::vector<vector::Neighbor>> GraphNearestDocuments(
    const Xapian::Database& db, const vector::VectorIndex& graph, const KnnSpec& spec,
    const GraphFilter& gf, const Xapian::Query& alive, size_t ef, size_t* examined = nullptr);

// The documents of `db` matching `q`: exact up to `at_least`, an estimate above.
size_t CountMatches(const Xapian::Database& db, const Xapian::Query& q, size_t at_least);

// The documents matching `q` in `db`, in docid order.
std::vector<Xapian::docid> MatchingDocids(const Xapian::Database& db, const Xapian::Query& q);

// A query matching exactly `hits` (docid, weight), each with its weight as its score.
Xapian::Query HitsQuery(std::vector<std::pair<Xapian::docid, double>> hits);

}  // namespace ttlstore::search
