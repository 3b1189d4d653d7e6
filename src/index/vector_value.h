// The vector of an item in a DynamoDB vector index (model::VectorIndexSettings): reading the
// vector attribute (a list of numbers, DynamoDB's list format, stored at float32 precision) and
// the write-time checks the service makes of it, with their messages (docs/vector-indexes.md).
#pragma once

#include <optional>
#include <vector>

#include "common/result.h"
#include "model/attribute_value.h"
#include "model/table.h"
#include "vector/vector_index.h"

namespace ttlstore::index {

// `v` as `dimensions` float32 values, or nullopt unless it is a list of exactly `dimensions`
// numbers each finite at float32 precision.
std::optional<std::vector<float>> VectorOf(const model::AttributeValue& v, uint32_t dimensions);

// The item's vector for vector index `index`, or nullopt when the item has no usable one (the
// attribute absent, or not a valid vector: writes refuse the latter, CheckVectorAttribute).
// REQUIRES: index.IsVector().
std::optional<std::vector<float>> ItemVector(const model::SecondaryIndex& index,
                                             const model::Item& item);

// A write's check of the item's vector attribute for every vector index of `table`: absent is
// fine (the item is not in the index); present, it must be a list of numbers of the index's
// dimensions, and every INLINE_FILTER attribute present must have its declared type.
Status CheckVectorAttributes(const model::TableDescriptor& table, const model::Item& item);

// model::VectorMetric as the engine's metric (same numbering).
inline vector::Metric EngineMetric(model::VectorMetric m) {
  return static_cast<vector::Metric>(static_cast<uint8_t>(m));
}

}  // namespace ttlstore::index
