// TableDescriptor: everything the server knows about one table, independent of the wire format.
// The catalog (storage/catalog.h) persists it; api/ renders it as a DynamoDB TableDescription.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/attribute_value.h"

namespace ttlstore::model {

// One key attribute: its name and scalar type (kS, kN or kB).
struct KeyElement {
  std::string name;
  ValueType type = ValueType::kS;
};

struct KeySchema {
  KeyElement hash;
  std::optional<KeyElement> range;
};

enum class BillingMode : uint8_t { kProvisioned = 0, kPayPerRequest = 1 };  // persisted

enum class ProjectionType : uint8_t { kAll = 0, kKeysOnly = 1, kInclude = 2 };  // persisted

// A local or global secondary index as declared at CreateTable.
struct SecondaryIndex {
  std::string name;
  bool global = false;
  KeySchema key;
  ProjectionType projection = ProjectionType::kAll;
  std::vector<std::string> non_key_attributes;  // for kInclude
  int64_t read_capacity = 0;                    // GSI ProvisionedThroughput
  int64_t write_capacity = 0;
};

struct Tag {
  std::string key;
  std::string value;
};

struct TableDescriptor {
  // Internal id, unique for the life of the data dir; prefixes every key of the table's items.
  uint32_t id = 0;
  std::string name;
  // Random UUID reported as TableId (distinguishes a re-created table of the same name).
  std::string uuid;
  KeySchema key;
  // AttributeDefinitions as given (only key attributes are allowed by the reference).
  std::vector<KeyElement> attribute_definitions;
  BillingMode billing_mode = BillingMode::kProvisioned;
  int64_t read_capacity = 0;   // ProvisionedThroughput; 0 under PAY_PER_REQUEST
  int64_t write_capacity = 0;
  // Creation time, milliseconds since the epoch.
  int64_t creation_time_ms = 0;
  bool deletion_protection = false;
  std::string table_class = "STANDARD";
  std::vector<Tag> tags;
  // Declared indexes (LSIs and GSIs). Their entries are maintained from issue #5 on.
  std::vector<SecondaryIndex> indexes;
  // Item TTL (D1): when enabled, the Number attribute holding each item's expiry in epoch
  // seconds. Writes keep the `expiry` index in step with it; the sweeper deletes what is due.
  bool ttl_enabled = false;
  std::string ttl_attribute;
};

}  // namespace ttlstore::model
