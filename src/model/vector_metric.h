// How vectors are compared, for Tablestore's Vector fields (VectorOptions.metric_type) and
// DynamoDB's vector indexes (DistanceFunction). Numbered as Tablestore's VectorMetricType
// (persisted in the catalog; never renumber). vector/ has the same three (vector::Metric).
#pragma once

#include <cstdint>

namespace ttlstore::model {

enum class VectorMetric : uint8_t { kEuclidean = 0, kCosine = 1, kDotProduct = 2 };

// The largest dimension of a vector in either API (Tablestore's VectorOptions: "Maximum value:
// 4096"; DynamoDB's vector index quotas: 4,096).
inline constexpr uint32_t kMaxVectorDimensions = 4096;

}  // namespace ttlstore::model
