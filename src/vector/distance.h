// Exact vector distances, the one place their math lives for DynamoDB's vector indexes
// (SearchVectors' brute-force ranking, index/vector_value.h) in the convention of VectorIndex
// (vector_index.h: smaller is nearer): euclidean the squared L2 distance, cosine 1 - cos (a zero
// vector has cos 0), dot_product 1 - dot. Each API turns a distance into its score
// (vector/score.h), so an exact ranking and a graph's ranking answer alike.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "vector/vector_index.h"

namespace ttlstore::vector {

// The distance between `a` and `b`, `dim` floats each, accumulated in double.
inline double Distance(Metric m, const float* a, const float* b, size_t dim) {
  double dot = 0, na = 0, nb = 0, l2 = 0;
  for (size_t i = 0; i < dim; ++i) {
    double x = a[i], y = b[i];
    switch (m) {
      case Metric::kEuclidean: l2 += (x - y) * (x - y); break;
      case Metric::kCosine: dot += x * y; na += x * x; nb += y * y; break;
      case Metric::kDotProduct: dot += x * y; break;
    }
  }
  switch (m) {
    case Metric::kEuclidean: return l2;
    case Metric::kCosine:
      if (na == 0 || nb == 0) return 1.0;
      return 1.0 - dot / (std::sqrt(na) * std::sqrt(nb));
    case Metric::kDotProduct: return 1.0 - dot;
  }
  return 0;
}

// SearchVectors' Score of a neighbour at `distance` (as vector/score.h's DynamoScore, in double
// so that a DOT_PRODUCT score is the dot product to the last digit): COSINE 1 - cos (0 identical
// to 2 opposite), EUCLIDEAN the Euclidean distance, DOT_PRODUCT the dot product.
inline double DynamoScoreOf(Metric m, double distance) {
  switch (m) {
    case Metric::kEuclidean: return std::sqrt(std::max(0.0, distance));
    case Metric::kCosine: return std::clamp(distance, 0.0, 2.0);
    case Metric::kDotProduct: return 1.0 - distance;
  }
  return 0;
}

}  // namespace ttlstore::vector
