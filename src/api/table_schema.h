// Key schemas and secondary-index declarations of CreateTable: decoding, the service's
// validation rules (with its messages), and their rendering in a TableDescription.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "api/dispatch.h"
#include "api/request.h"
#include "api/vector_index_schema.h"
#include "model/table.h"
#include "storage/store.h"

namespace ttlstore::api {

// KeySchema as written: (AttributeName, KeyType) pairs.
using KeySchemaSpec = std::vector<std::pair<std::string, std::string>>;

struct IndexSpec {
  std::string name;
  bool global = false;
  KeySchemaSpec keys;
  std::string projection_type;
  std::vector<std::string> non_key_attributes;
  bool has_non_key_attributes = false;
  bool has_throughput = false;
  int64_t read_capacity = 0, write_capacity = 0;
};

// Shape checks go to `c`; wrong JSON types are returned as SerializationException.
// `max_elements`: 2 for a table's or an LSI's KeySchema, 8 for a GSI's (multi-attribute keys).
Result<KeySchemaSpec> DecodeKeySchema(const rapidjson::Value* json, const std::string& path,
                                      Constraints& c, size_t max_elements = 2);

// The order rules of a KeySchema, with the service's messages: HASH first; for a table or an
// LSI then at most one RANGE; for a GSI (`global`) up to 4 HASH then up to 4 RANGE elements
// (multi-attribute keys), never a HASH after a RANGE, and no attribute twice.
Status CheckKeyOrder(const KeySchemaSpec& keys, bool global = false);
Result<std::vector<IndexSpec>> DecodeIndexes(const rapidjson::Value& req, bool global,
                                             Constraints& c);
// One index declaration; `at` is its path for messages ("globalSecondaryIndexes.1.member.").
Result<IndexSpec> DecodeIndex(const rapidjson::Value& ix, bool global, const std::string& at,
                              Constraints& c);

// The Projection and ProvisionedThroughput rules of one index declaration (CreateTable's and
// UpdateTable's Create), with the service's messages.
Status CheckProjectionAndThroughput(const IndexSpec& spec, model::BillingMode billing);
// The index `spec` declares, with the next index id of `t`.
// REQUIRES: spec's key attributes are defined in t->attribute_definitions.
model::SecondaryIndex MakeIndex(const IndexSpec& spec, model::TableDescriptor* t);

// The semantic rules, in the service's order: HASH then RANGE, definitions for every key
// attribute and no unused ones, index rules. Fills t.key and t.indexes.
// REQUIRES: t.attribute_definitions and t.billing_mode are set.
// `vectors`: CreateTable's VectorIndexes (vector_index_schema.h), added after the others.
Status BuildSchema(const KeySchemaSpec& keys, const std::vector<IndexSpec>& indexes,
                   model::TableDescriptor* t, const std::vector<VectorIndexSpec>& vectors = {});

// "LocalSecondaryIndexes" and "GlobalSecondaryIndexes" members of a TableDescription. `stats`
// holds each index's entry count and size, in t.indexes order (missing ones read as zero).
void WriteIndexes(JsonWriter& w, const std::string& table_arn, const model::TableDescriptor& t,
                  const std::vector<storage::TableStats>& stats);

// {"NumberOfDecreasesToday": 0, "ReadCapacityUnits": r, "WriteCapacityUnits": w}
void WriteThroughput(JsonWriter& w, int64_t read_capacity, int64_t write_capacity);

// A KeySchema array: [{"AttributeName": ..., "KeyType": "HASH"}, ...].
void WriteKeySchema(JsonWriter& w, const model::KeySchema& key);

}  // namespace ttlstore::api
