// TableDescriptor: everything the server knows about one table, independent of the wire format.
// The catalog (storage/catalog.h) persists it; api/ renders it as a DynamoDB TableDescription.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/attribute_value.h"
#include "model/vector_metric.h"
#include "model/versioned_table.h"

namespace ttlstore::model {

// The largest partition-key and sort-key values, in bytes, for a table's key and for every
// secondary index's key (DynamoDB limits).
inline constexpr size_t kMaxPartitionKeyBytes = 2048;
inline constexpr size_t kMaxSortKeyBytes = 1024;

// One key attribute: its name and scalar type (kS, kN or kB).
struct KeyElement {
  std::string name;
  ValueType type = ValueType::kS;
};

// The most partition-key and sort-key attributes a global secondary index's key may have
// (multi-attribute keys, DynamoDB November 2025; a table's key and an LSI's have one of each).
inline constexpr size_t kMaxIndexKeyAttributes = 4;

struct KeySchema {
  KeyElement hash;
  std::optional<KeyElement> range;
  // A GSI's multi-attribute key: its 2nd to 4th partition-key attributes, and (with `range`)
  // its 2nd to 4th sort-key attributes, in KeySchema order. Empty for a table's key, an LSI's
  // and every single-attribute GSI's. Items are ordered by the sort attributes left to right.
  std::vector<KeyElement> more_hash;
  std::vector<KeyElement> more_range;

  // Every partition-key attribute, then every sort-key attribute, in KeySchema order.
  std::vector<const KeyElement*> HashElements() const {
    std::vector<const KeyElement*> out = {&hash};
    for (const auto& e : more_hash) out.push_back(&e);
    return out;
  }
  std::vector<const KeyElement*> RangeElements() const {
    std::vector<const KeyElement*> out;
    if (range) out.push_back(&*range);
    for (const auto& e : more_range) out.push_back(&e);
    return out;
  }
  bool MultiAttribute() const { return !more_hash.empty() || !more_range.empty(); }
  // True if `name` is one of the key's attributes.
  bool Contains(const std::string& name) const {
    for (const KeyElement* e : HashElements()) {
      if (e->name == name) return true;
    }
    for (const KeyElement* e : RangeElements()) {
      if (e->name == name) return true;
    }
    return false;
  }
};

enum class BillingMode : uint8_t { kProvisioned = 0, kPayPerRequest = 1 };  // persisted

enum class ProjectionType : uint8_t { kAll = 0, kKeysOnly = 1, kInclude = 2 };  // persisted

// Where a secondary index is in its life. kCreating: a GSI added by UpdateTable whose existing
// items are still being indexed (writes already maintain it; reads are refused).
enum class IndexStatus : uint8_t { kActive = 0, kCreating = 1 };  // persisted

// What makes a SecondaryIndex a DynamoDB vector index (CreateTable's VectorIndexes,
// UpdateTable's VectorIndexUpdates; docs/vector-indexes.md). Persisted. The index's entries are
// ordinary index entries (src/index/index_key.h): an item is in the index when its vector
// attribute is a list of `dimensions` numbers and it has the SearchSchema HASH attribute (if
// any, held as SecondaryIndex::key.hash); the entry holds the projected item.
struct VectorIndexSettings {
  std::string attribute;  // VectorAttribute.AttributeName
  uint32_t dimensions = 0;
  VectorMetric metric = VectorMetric::kCosine;  // DistanceFunction
  // The SearchSchema's HASH element, if any, is SecondaryIndex::key.hash (key.hash.name is
  // empty otherwise); its INLINE_FILTER elements, in SearchSchema order.
  bool has_hash = false;
  std::vector<KeyElement> inline_filters;
};

// A local or global secondary index (declared at CreateTable, or a GSI added by UpdateTable),
// or a vector index (`vector` set; `global` false, no range key).
struct SecondaryIndex {
  std::string name;
  // Prefixes the index's entries (src/index/index_key.h); unique within the table and never
  // reused, so leftovers of a deleted index can never be read by a new one of the same name.
  uint32_t id = 0;
  IndexStatus status = IndexStatus::kActive;
  bool global = false;
  KeySchema key;
  ProjectionType projection = ProjectionType::kAll;
  std::vector<std::string> non_key_attributes;  // for kInclude
  int64_t read_capacity = 0;                    // GSI ProvisionedThroughput
  int64_t write_capacity = 0;
  std::optional<VectorIndexSettings> vector;    // set for a vector index
  bool IsVector() const { return vector.has_value(); }
  // A local secondary index (neither global nor a vector index).
  bool IsLocal() const { return !global && !vector; }
};

// DynamoDB Streams view types. Persisted.
enum class StreamViewType : uint8_t {
  kKeysOnly = 0,
  kNewImage = 1,
  kOldImage = 2,
  kNewAndOldImages = 3,
};

// A resource-based policy attached to a table or a stream (PutResourcePolicy, CreateTable's
// ResourcePolicy): the document as the caller sent it, and its RevisionId, a decimal string
// that changes whenever the document does. Persisted (docs/formats.md).
struct ResourcePolicy {
  std::string document;
  std::string revision_id;
};

// One stream of a table (the current one or an earlier, disabled one). A stream is named by the
// time it was enabled (its label, "2026-11-22T07:40:12.345"), unique within the table.
struct StreamInfo {
  int64_t created_ms = 0;
  StreamViewType view_type = StreamViewType::kKeysOnly;
  // When it was disabled; 0 while enabled. A disabled stream stays readable for 24 hours.
  int64_t disabled_ms = 0;
  // The stream's own resource-based policy, independent of the table's.
  std::optional<ResourcePolicy> policy;
  // A Tablestore table's stream: how many hours its records are kept (StreamSpecification's
  // expiration_time, 1-168). 0 for DynamoDB streams, whose records are kept 24 hours.
  int32_t expiration_hours = 0;
  // A Tablestore table's stream: the columns whose values before each write its records carry
  // (StreamSpecification's columns_to_get, in the order given; docs/tablestore.md, "Streams").
  std::vector<std::string> origin_columns;
};

struct Tag {
  std::string key;
  std::string value;
};

// How a table made by RestoreTableFromBackup (or `ttlstore restore`) came to be: DescribeTable's
// RestoreSummary. Persisted.
struct RestoreSummary {
  // Empty for a point-in-time restore (RestoreTableToPointInTime), whose restore_time_ms is the
  // point in time restored to.
  std::string source_backup_arn;
  std::string source_table_arn;
  int64_t restore_time_ms = 0;
  // Items are still being loaded (TableStatus CREATING). A table found so at start-up is the
  // remains of a restore a stop interrupted, and is dropped (backup/backups.h).
  bool in_progress = false;
};

// The indexing of a table's existing items into the expiry index after UpdateTimeToLive enabled
// TTL (ttl/backfill.h). Persisted with TTL itself, so a crash in the middle leaves it pending
// and the next start resumes it instead of leaving TTL on with items that never expire.
struct TtlBackfill {
  // The last item key (storage/key_codec.h) whose entry is committed; the job resumes after it.
  // Empty: nothing done yet. Every item at or before it has its expiry entry.
  std::string cursor;
};

// Point-in-time recovery (UpdateContinuousBackups). Persisted. While set, every write to the
// table also adds its old image to the table's change log (storage/pitr_log.h).
struct PitrSettings {
  // When logging began: the earliest restorable time. 0 while enabling is pending: the change
  // log is already written, but requests holding the table's descriptor from before may still
  // write unlogged; UpdateContinuousBackups sets it once they are done (ops/table_ops.h).
  int64_t enabled_ms = 0;
  // RecoveryPeriodInDays (1-35; the service's default is 35).
  int32_t recovery_period_days = 35;
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
  // Set while a DeleteTable on a store several processes share is between its two steps (the
  // mark, then the drop once every process let go of the table: ops/catalog_drop.cc); a table
  // so marked is not installed by any catalog. 0: not being deleted.
  int64_t deleting_since_ms = 0;
  std::string table_class = "STANDARD";
  std::vector<Tag> tags;
  // Declared indexes (LSIs and GSIs). Their entries are maintained from issue #5 on.
  std::vector<SecondaryIndex> indexes;
  // The id the next index added to this table gets (SecondaryIndex::id).
  uint32_t next_index_id = 1;
  // Indexes deleted by UpdateTable whose entries are still being removed (SecondaryIndex::id);
  // kept here so that a restart finishes the removal.
  std::vector<uint32_t> dropped_index_ids;
  // Item TTL (D1): when enabled, the Number attribute holding each item's expiry in epoch
  // seconds. Writes keep the `expiry` index in step with it; the sweeper deletes what is due.
  bool ttl_enabled = false;
  std::string ttl_attribute;
  // Set while the items the table had when TTL was enabled are being indexed (ENABLED already:
  // writes keep the index from the moment TTL is on; the backfill covers the items before).
  std::optional<TtlBackfill> ttl_backfill;
  // DynamoDB Streams: every stream the table had within the retention period, oldest first.
  // Only the last one may be enabled; writes add records to it (src/streams).
  std::vector<StreamInfo> streams;
  // Set for a table created through the Tablestore front end: its rows are versioned cells in
  // the `rows` family, and the DynamoDB API refuses it (docs/compatibility.md).
  std::optional<TablestoreSchema> tablestore;
  // Set on a restored table.
  std::optional<RestoreSummary> restore;
  // The table's resource-based policy, if any (it governs the table's indexes too).
  std::optional<ResourcePolicy> resource_policy;
  // Set while point-in-time recovery is enabled.
  std::optional<PitrSettings> pitr;
  // The item-size rule the table's stats are counted by (model::kItemSizeRule); 0 for tables
  // written before the rule was versioned, whose stats are counted again at start-up.
  uint32_t size_rule = 0;

  // The enabled stream, or nullptr: the only thing the write path looks at.
  const StreamInfo* enabled_stream() const {
    return !streams.empty() && streams.back().disabled_ms == 0 ? &streams.back() : nullptr;
  }
  // The most recent stream (enabled or not): DescribeTable's LatestStreamArn.
  const StreamInfo* latest_stream() const { return streams.empty() ? nullptr : &streams.back(); }
};

}  // namespace ttlstore::model
