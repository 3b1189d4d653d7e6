// What each API answers for a neighbour found at a VectorIndex distance (vector_index.h: the
// squared L2 distance, 1 - cos, or 1 - dot), with the sources of each formula.
#pragma once

#include <algorithm>
#include <cmath>

#include "vector/vector_index.h"

namespace ttlstore::vector {

// Tablestore's KnnVectorQuery score: larger is more similar, never negative (KnnVectorQuery's
// min_score "must be greater than or equal to 0"). The service's VectorMetricType page: its
// euclidean "does not perform the final square root", larger meaning more similar; its scoring
// formulas are published as images only, so these are Lucene's, whose wording they match:
// euclidean 1 / (1 + d^2), cosine (1 + cos) / 2, dot_product max((1 + dot) / 2, 0). Chosen.
inline double TablestoreScore(Metric m, float distance) {
  double d = distance;
  switch (m) {
    case Metric::kEuclidean: return 1.0 / (1.0 + std::max(0.0, d));
    case Metric::kCosine: return std::clamp((2.0 - d) / 2.0, 0.0, 1.0);
    case Metric::kDotProduct: return std::max((2.0 - d) / 2.0, 0.0);
  }
  return 0;
}

// DynamoDB SearchVectors' Score (API reference, SearchVectors): COSINE 0 (identical) to 2
// (opposite), lower more similar, i.e. 1 - cos; EUCLIDEAN the Euclidean distance, lower more
// similar; DOT_PRODUCT the dot product, higher more similar.
inline double DynamoScore(Metric m, float distance) {
  double d = distance;
  switch (m) {
    case Metric::kEuclidean: return std::sqrt(std::max(0.0, d));
    case Metric::kCosine: return std::clamp(d, 0.0, 2.0);
    case Metric::kDotProduct: return 1.0 - d;
  }
  return 0;
}

}  // namespace ttlstore::vector
