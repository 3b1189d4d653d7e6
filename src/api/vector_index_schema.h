// DynamoDB vector indexes in table declarations: CreateTable's VectorIndexes and UpdateTable's
// VectorIndexUpdates (Create/Delete) decoded, checked with the service's rules and messages
// (docs/vector-indexes.md names the source of each), and rendered as DescribeTable's
// VectorIndexes. A vector index is a model::SecondaryIndex with `vector` set.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "api/json_writer.h"
#include "api/request.h"
#include "model/table.h"
#include "storage/store.h"

namespace ttlstore::api {

// One vector index declaration as written (VectorIndex / CreateVectorIndexAction).
struct VectorIndexSpec {
  std::string name;
  std::string attribute;
  int64_t dimensions = 0;
  std::string distance_function;
  std::vector<std::pair<std::string, std::string>> search_schema;  // (name, HASH|INLINE_FILTER)
  std::string projection_type;
  std::vector<std::string> non_key_attributes;
  bool has_non_key_attributes = false;
};

// The most vector indexes one table may have, and SearchSchema INLINE_FILTER elements one
// index may have (Chosen: the service's quotas page was not found; docs/vector-indexes.md).
inline constexpr size_t kMaxVectorIndexes = 5;
inline constexpr size_t kMaxInlineFilters = 8;

// One declaration; shape errors go to `c` under `at` ("vectorIndexes.1.member.").
Result<VectorIndexSpec> DecodeVectorIndex(const rapidjson::Value& json, const std::string& at,
                                          Constraints& c);
// CreateTable's VectorIndexes (empty when absent).
Result<std::vector<VectorIndexSpec>> DecodeVectorIndexes(const rapidjson::Value& req,
                                                         Constraints& c);

// The rules that need the table (its AttributeDefinitions, billing mode and other indexes),
// then the index itself appended to t->indexes with `status`. `used` gets the SearchSchema's
// attribute names (they count as used AttributeDefinitions).
Status AddVectorIndex(const VectorIndexSpec& spec, model::IndexStatus status,
                      model::TableDescriptor* t, std::set<std::string>* used);

// DescribeTable's "VectorIndexes" member (nothing without vector indexes). `stats` as for
// WriteIndexes: one per t.indexes entry.
void WriteVectorIndexes(JsonWriter& w, const std::string& table_arn,
                        const model::TableDescriptor& t,
                        const std::vector<storage::TableStats>& stats);

// "COSINE", "EUCLIDEAN" or "DOT_PRODUCT".
const char* DistanceFunctionName(model::VectorMetric m);

}  // namespace ttlstore::api
