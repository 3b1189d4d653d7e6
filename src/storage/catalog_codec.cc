#include "storage/catalog_codec.h"

#include "common/coding.h"
#include "storage/tagged_fields.h"
#include "storage/search_index_codec.h"

namespace ttlstore::storage {
namespace {

// Field tags; persisted.
enum Tag : uint64_t {
  kId = 1,
  kName = 2,
  kUuid = 3,
  kHashKey = 4,         // key element
  kRangeKey = 5,        // key element
  kAttributeDef = 6,    // key element, repeated
  kBillingMode = 7,     // varint
  kReadCapacity = 8,    // varint
  kWriteCapacity = 9,   // varint
  kCreationTimeMs = 10, // varint
  kDeletionProtection = 11,
  kTableClass = 12,
  kTag = 13,            // (key, value), repeated
  kIndex = 14,          // nested descriptor fields below, repeated
  kTtlEnabled = 15,     // varint 0/1
  kTtlAttribute = 16,   // bytes
  kNextIndexId = 17,    // varint
  kDroppedIndexId = 18, // varint, repeated
  // 19: reserved for the indexes feature. 20-24: streams.
  kStream = 20,         // nested StreamTag fields, repeated, oldest first
  kRestore = 25,        // nested RestoreTag fields: how a restored table came to be
  kTtlBackfill = 26,    // nested TtlBackfillTag fields: the TTL backfill still to finish
  kResourcePolicy = 27, // nested PolicyTag fields: the table's resource-based policy
  kPitr = 28,           // nested PitrTag fields: point-in-time recovery settings
  kDeletingSinceMs = 29,  // varint; present only while a shared-store DeleteTable runs
  kTablestore = 30,     // nested TablestoreTag fields: the table's Tablestore schema
  kSizeRule = 31,       // varint: the item-size rule the stats are counted by (absent: 0)
};

// Fields inside a kRestore payload; persisted.
enum RestoreTag : uint64_t {
  kRestoreBackupArn = 1,
  kRestoreTableArn = 2,
  kRestoreTimeMs = 3,     // varint
  kRestoreInProgress = 4, // varint 0/1
};

std::string EncodeRestore(const model::RestoreSummary& r);
bool DecodeRestore(std::string_view in, model::RestoreSummary* r);

// Fields inside a kPitr payload; persisted.
enum PitrTag : uint64_t {
  kPitrEnabledMs = 1,  // varint: when logging began (0: enabling still pending)
  kPitrDays = 2,       // varint: RecoveryPeriodInDays
};

// Fields inside a kResourcePolicy payload (and a stream's kStreamPolicy); persisted.
enum PolicyTag : uint64_t {
  kPolicyDocument = 1,  // bytes: the policy document as sent
  kPolicyRevision = 2,  // bytes: its RevisionId
};


std::string EncodePolicy(const model::ResourcePolicy& p) {
  std::string out;
  PutField(&out, kPolicyDocument, p.document);
  PutField(&out, kPolicyRevision, p.revision_id);
  return out;
}

bool DecodePolicy(std::string_view in, model::ResourcePolicy* p) {
  while (!in.empty()) {
    uint64_t tag;
    std::string_view v;
    if (!GetVarint64(&in, &tag) || !GetLengthPrefixed(&in, &v)) return false;
    if (tag == kPolicyDocument) p->document.assign(v);
    if (tag == kPolicyRevision) p->revision_id.assign(v);
  }
  return true;
}

// Fields inside a kTtlBackfill payload; persisted.
enum TtlBackfillTag : uint64_t {
  kTtlBackfillCursor = 1,  // bytes: the last item key indexed (absent: none yet)
};

// Fields inside a kTablestore payload; persisted.
enum TablestoreTag : uint64_t {
  kTsPrimaryKey = 1,     // type byte . name, repeated in key order
  kTsDefinedColumn = 2,  // type byte . name, repeated
  kTsTimeToLive = 3,     // varint (zigzag-free: stored as int64 two's complement)
  kTsMaxVersions = 4,    // varint
  kTsDeviation = 5,      // varint
  kTsAllowUpdate = 6,    // varint 0/1
  // varint: the position of the AUTO_INCREMENT primary-key column; present only when the table
  // has one (tags 8-10 are left to other Tablestore table settings).
  kTsAutoIncrement = 7,
  kTsUpdateFullRow = 11, // varint 1, present only when update_full_row is true
  // varint 0, present only when local transactions are disabled.
  kTsLocalTxnDisabled = 12,
  kTsIndex = 13,            // nested TsIndexTag fields, repeated in creation order
  kTsDroppedIndexRows = 14, // varint rows id, repeated: dropped indexes' rows still to remove
  kTsSearchIndex = 15,      // search index (storage/search_index_codec.h), repeated in creation order
  kTsHadTransactions = 16,  // varint 1, present only once a local transaction was started
};

// Fields inside a kTsIndex payload; persisted.
enum TsIndexTag : uint64_t {
  kTsIndexName = 1,
  kTsIndexLocal = 2,        // varint 0/1
  kTsIndexPrimaryKey = 3,   // column name, repeated in key order
  kTsIndexDefined = 4,      // column name, repeated
  kTsIndexRowsId = 5,       // varint
  kTsIndexBaseData = 6,     // varint 0/1: include_base_data
  kTsIndexCursor = 7,       // bytes, present only while the backfill runs
};

// Fields inside a kStream payload; persisted.
enum StreamTag : uint64_t {
  kStreamCreatedMs = 1,   // varint
  kStreamViewType = 2,    // varint StreamViewType
  kStreamDisabledMs = 3,  // varint, 0 while enabled
  kStreamPolicy = 4,      // nested PolicyTag fields: the stream's resource-based policy
  kStreamExpirationHours = 5,  // varint; Tablestore streams only (absent: 0)
  kStreamOriginColumn = 6,     // bytes, repeated in order; Tablestore streams only
};

// Fields inside a kIndex payload; persisted.
enum IndexTag : uint64_t {
  kIndexName = 1,
  kIndexGlobal = 2,       // varint 0/1
  kIndexHashKey = 3,      // key element
  kIndexRangeKey = 4,     // key element
  kIndexProjection = 5,   // varint ProjectionType
  kIndexNonKey = 6,       // bytes, repeated
  kIndexRead = 7,         // varint
  kIndexWrite = 8,        // varint
  kIndexId = 9,           // varint
  kIndexStatus = 10,      // varint IndexStatus
  // A multi-attribute GSI key's 2nd-4th partition-key and sort-key attributes, repeated in
  // KeySchema order (absent for every other index, so older descriptors read unchanged).
  kIndexMoreHashKey = 11,   // key element, repeated
  kIndexMoreRangeKey = 12,  // key element, repeated
  // Present only for a DynamoDB vector index: nested VectorTag fields.
  kIndexVector = 13,
};

// Fields inside a kIndexVector payload; persisted.
enum VectorTag : uint64_t {
  kVectorAttribute = 1,     // bytes: VectorAttribute.AttributeName
  kVectorDimensions = 2,    // varint
  kVectorMetric = 3,        // varint model::VectorMetric
  kVectorHasHash = 4,       // varint 0/1: the SearchSchema HASH element is the index's hash key
  kVectorInlineFilter = 5,  // key element, repeated in SearchSchema order
};

std::string EncodeElement(const model::KeyElement& e) {
  std::string p;
  p.push_back(static_cast<char>(e.type));
  p += e.name;
  return p;
}

bool DecodeElement(std::string_view p, model::KeyElement* e) {
  if (p.empty()) return false;
  e->type = static_cast<model::ValueType>(p.front());
  e->name.assign(p.substr(1));
  return true;
}


std::string EncodeTablestore(const model::TablestoreSchema& ts) {
  std::string out;
  for (const auto& c : ts.primary_key) {
    PutField(&out, kTsPrimaryKey, std::string(1, static_cast<char>(c.type)) + c.name);
  }
  for (const auto& c : ts.defined_columns) {
    PutField(&out, kTsDefinedColumn, std::string(1, static_cast<char>(c.type)) + c.name);
  }
  PutVarintField(&out, kTsTimeToLive, static_cast<uint64_t>(int64_t{ts.options.time_to_live}));
  PutVarintField(&out, kTsMaxVersions, static_cast<uint64_t>(ts.options.max_versions));
  PutVarintField(&out, kTsDeviation, static_cast<uint64_t>(ts.options.max_time_deviation));
  PutVarintField(&out, kTsAllowUpdate, ts.options.allow_update ? 1 : 0);
  if (int ai = ts.AutoIncrementColumn(); ai >= 0) {
    PutVarintField(&out, kTsAutoIncrement, static_cast<uint64_t>(ai));
  }
  if (ts.options.update_full_row) PutVarintField(&out, kTsUpdateFullRow, 1);
  if (!ts.local_transactions) PutVarintField(&out, kTsLocalTxnDisabled, 0);
  if (ts.had_transactions) PutVarintField(&out, kTsHadTransactions, 1);
  for (const auto& ix : ts.indexes) {
    std::string p;
    PutField(&p, kTsIndexName, ix.name);
    PutVarintField(&p, kTsIndexLocal, ix.local ? 1 : 0);
    for (const auto& c : ix.primary_key) PutField(&p, kTsIndexPrimaryKey, c);
    for (const auto& c : ix.defined_columns) PutField(&p, kTsIndexDefined, c);
    PutVarintField(&p, kTsIndexRowsId, ix.rows_id);
    PutVarintField(&p, kTsIndexBaseData, ix.include_base_data ? 1 : 0);
    if (ix.building) PutField(&p, kTsIndexCursor, ix.cursor);
    PutField(&out, kTsIndex, p);
  }
  for (uint32_t id : ts.dropped_index_rows) PutVarintField(&out, kTsDroppedIndexRows, id);
  for (const auto& si : ts.search_indexes) PutField(&out, kTsSearchIndex, EncodeSearchIndex(si));
  return out;
}

bool DecodeTsIndex(std::string_view in, model::TsIndex* ix) {
  while (!in.empty()) {
    uint64_t tag, v = 0;
    std::string_view p;
    if (!GetVarint64(&in, &tag) || !GetLengthPrefixed(&in, &p)) return false;
    bool ok = true;
    switch (tag) {
      case kTsIndexName: ix->name.assign(p); break;
      case kTsIndexLocal: ok = GetVarintPayload(p, &v); ix->local = v != 0; break;
      case kTsIndexPrimaryKey: ix->primary_key.emplace_back(p); break;
      case kTsIndexDefined: ix->defined_columns.emplace_back(p); break;
      case kTsIndexRowsId: ok = GetVarintPayload(p, &v); ix->rows_id = uint32_t(v); break;
      case kTsIndexBaseData: ok = GetVarintPayload(p, &v); ix->include_base_data = v != 0; break;
      case kTsIndexCursor: ix->building = true; ix->cursor.assign(p); break;
      default: break;
    }
    if (!ok) return false;
  }
  return !ix->name.empty() && ix->rows_id != 0;
}

bool DecodeTablestore(std::string_view in, model::TablestoreSchema* ts) {
  std::optional<uint64_t> auto_increment;  // tag 7 may come before the columns it names
  while (!in.empty()) {
    uint64_t tag, v = 0;
    std::string_view p;
    if (!GetVarint64(&in, &tag) || !GetLengthPrefixed(&in, &p)) return false;
    bool ok = true;
    switch (tag) {
      case kTsPrimaryKey:
        if (p.empty()) return false;
        ts->primary_key.push_back({std::string(p.substr(1)), static_cast<model::PkType>(p[0])});
        break;
      case kTsDefinedColumn:
        if (p.empty()) return false;
        ts->defined_columns.push_back({std::string(p.substr(1)), static_cast<uint8_t>(p[0])});
        break;
      case kTsTimeToLive:
        ok = GetVarintPayload(p, &v);
        ts->options.time_to_live = static_cast<int32_t>(static_cast<int64_t>(v));
        break;
      case kTsMaxVersions:
        ok = GetVarintPayload(p, &v);
        ts->options.max_versions = static_cast<int32_t>(v);
        break;
      case kTsDeviation:
        ok = GetVarintPayload(p, &v);
        ts->options.max_time_deviation = static_cast<int64_t>(v);
        break;
      case kTsAllowUpdate: ok = GetVarintPayload(p, &v); ts->options.allow_update = v != 0; break;
      case kTsAutoIncrement:
        ok = GetVarintPayload(p, &v);
        auto_increment = v;
        break;
      case kTsUpdateFullRow:
        ok = GetVarintPayload(p, &v);
        ts->options.update_full_row = v != 0;
        break;
      case kTsLocalTxnDisabled: ts->local_transactions = false; break;
      case kTsHadTransactions:
        ok = GetVarintPayload(p, &v);
        ts->had_transactions = v != 0;
        break;
      case kTsIndex: ok = DecodeTsIndex(p, &ts->indexes.emplace_back()); break;
      case kTsDroppedIndexRows:
        ok = GetVarintPayload(p, &v);
        ts->dropped_index_rows.push_back(uint32_t(v));
        break;
      case kTsSearchIndex: ok = DecodeSearchIndex(p, &ts->search_indexes.emplace_back()); break;
      default: break;
    }
    if (!ok) return false;
  }
  if (auto_increment) {
    // Never the first column (CreateTable refuses it), and a column the schema has.
    if (*auto_increment == 0 || *auto_increment >= ts->primary_key.size()) return false;
    ts->primary_key[*auto_increment].auto_increment = true;
  }
  return true;
}

std::string EncodeIndex(const model::SecondaryIndex& ix) {
  std::string out;
  PutField(&out, kIndexName, ix.name);
  PutVarintField(&out, kIndexGlobal, ix.global ? 1 : 0);
  PutField(&out, kIndexHashKey, EncodeElement(ix.key.hash));
  if (ix.key.range) PutField(&out, kIndexRangeKey, EncodeElement(*ix.key.range));
  for (const auto& e : ix.key.more_hash) PutField(&out, kIndexMoreHashKey, EncodeElement(e));
  for (const auto& e : ix.key.more_range) PutField(&out, kIndexMoreRangeKey, EncodeElement(e));
  PutVarintField(&out, kIndexProjection, static_cast<uint64_t>(ix.projection));
  for (const auto& a : ix.non_key_attributes) PutField(&out, kIndexNonKey, a);
  PutVarintField(&out, kIndexRead, static_cast<uint64_t>(ix.read_capacity));
  PutVarintField(&out, kIndexWrite, static_cast<uint64_t>(ix.write_capacity));
  PutVarintField(&out, kIndexId, ix.id);
  PutVarintField(&out, kIndexStatus, static_cast<uint64_t>(ix.status));
  if (ix.vector) {
    std::string v;
    PutField(&v, kVectorAttribute, ix.vector->attribute);
    PutVarintField(&v, kVectorDimensions, ix.vector->dimensions);
    PutVarintField(&v, kVectorMetric, static_cast<uint64_t>(ix.vector->metric));
    PutVarintField(&v, kVectorHasHash, ix.vector->has_hash ? 1 : 0);
    for (const auto& f : ix.vector->inline_filters) {
      PutField(&v, kVectorInlineFilter, EncodeElement(f));
    }
    PutField(&out, kIndexVector, v);
  }
  return out;
}

bool DecodeVector(std::string_view in, model::VectorIndexSettings* vs) {
  while (!in.empty()) {
    uint64_t tag, v = 0;
    std::string_view p;
    if (!GetVarint64(&in, &tag) || !GetLengthPrefixed(&in, &p)) return false;
    bool ok = true;
    switch (tag) {
      case kVectorAttribute: vs->attribute.assign(p); break;
      case kVectorDimensions:
        ok = GetVarintPayload(p, &v);
        vs->dimensions = static_cast<uint32_t>(v);
        break;
      case kVectorMetric:
        ok = GetVarintPayload(p, &v) && v <= 2;
        vs->metric = static_cast<model::VectorMetric>(v);
        break;
      case kVectorHasHash: ok = GetVarintPayload(p, &v); vs->has_hash = v != 0; break;
      case kVectorInlineFilter: ok = DecodeElement(p, &vs->inline_filters.emplace_back()); break;
      default: break;
    }
    if (!ok) return false;
  }
  return true;
}

bool DecodeIndex(std::string_view in, model::SecondaryIndex* ix) {
  while (!in.empty()) {
    uint64_t tag, v = 0;
    std::string_view p;
    if (!GetVarint64(&in, &tag) || !GetLengthPrefixed(&in, &p)) return false;
    bool ok = true;
    switch (tag) {
      case kIndexName: ix->name.assign(p); break;
      case kIndexGlobal: ok = GetVarintPayload(p, &v); ix->global = v != 0; break;
      case kIndexHashKey: ok = DecodeElement(p, &ix->key.hash); break;
      case kIndexRangeKey: ok = DecodeElement(p, &ix->key.range.emplace()); break;
      case kIndexMoreHashKey: ok = DecodeElement(p, &ix->key.more_hash.emplace_back()); break;
      case kIndexMoreRangeKey: ok = DecodeElement(p, &ix->key.more_range.emplace_back()); break;
      case kIndexProjection:
        ok = GetVarintPayload(p, &v);
        ix->projection = static_cast<model::ProjectionType>(v);
        break;
      case kIndexNonKey: ix->non_key_attributes.emplace_back(p); break;
      case kIndexRead: ok = GetVarintPayload(p, &v); ix->read_capacity = int64_t(v); break;
      case kIndexWrite: ok = GetVarintPayload(p, &v); ix->write_capacity = int64_t(v); break;
      case kIndexId: ok = GetVarintPayload(p, &v); ix->id = static_cast<uint32_t>(v); break;
      case kIndexStatus:
        ok = GetVarintPayload(p, &v);
        ix->status = static_cast<model::IndexStatus>(v);
        break;
      case kIndexVector: ok = DecodeVector(p, &ix->vector.emplace()); break;
      default: break;
    }
    if (!ok) return false;
  }
  return true;
}

std::string EncodeStream(const model::StreamInfo& st) {
  std::string out;
  PutVarintField(&out, kStreamCreatedMs, static_cast<uint64_t>(st.created_ms));
  PutVarintField(&out, kStreamViewType, static_cast<uint64_t>(st.view_type));
  PutVarintField(&out, kStreamDisabledMs, static_cast<uint64_t>(st.disabled_ms));
  if (st.policy) PutField(&out, kStreamPolicy, EncodePolicy(*st.policy));
  if (st.expiration_hours > 0) {
    PutVarintField(&out, kStreamExpirationHours, static_cast<uint64_t>(st.expiration_hours));
  }
  for (const auto& c : st.origin_columns) PutField(&out, kStreamOriginColumn, c);
  return out;
}

bool DecodeStream(std::string_view in, model::StreamInfo* st) {
  while (!in.empty()) {
    uint64_t tag, v = 0;
    std::string_view p;
    if (!GetVarint64(&in, &tag) || !GetLengthPrefixed(&in, &p)) return false;
    if (tag == kStreamPolicy) {
      if (!DecodePolicy(p, &st->policy.emplace())) return false;
      continue;
    }
    if (tag == kStreamOriginColumn) {
      st->origin_columns.emplace_back(p);
      continue;
    }
    if (tag != kStreamCreatedMs && tag != kStreamViewType && tag != kStreamDisabledMs &&
        tag != kStreamExpirationHours) {
      continue;
    }
    if (!GetVarintPayload(p, &v)) return false;
    if (tag == kStreamExpirationHours) st->expiration_hours = static_cast<int32_t>(v);
    if (tag == kStreamCreatedMs) st->created_ms = static_cast<int64_t>(v);
    if (tag == kStreamViewType) st->view_type = static_cast<model::StreamViewType>(v);
    if (tag == kStreamDisabledMs) st->disabled_ms = static_cast<int64_t>(v);
  }
  return true;
}

std::string EncodeRestore(const model::RestoreSummary& r) {
  std::string out;
  PutField(&out, kRestoreBackupArn, r.source_backup_arn);
  PutField(&out, kRestoreTableArn, r.source_table_arn);
  PutVarintField(&out, kRestoreTimeMs, static_cast<uint64_t>(r.restore_time_ms));
  PutVarintField(&out, kRestoreInProgress, r.in_progress ? 1 : 0);
  return out;
}

bool DecodeRestore(std::string_view in, model::RestoreSummary* r) {
  while (!in.empty()) {
    uint64_t tag, v = 0;
    std::string_view p;
    if (!GetVarint64(&in, &tag) || !GetLengthPrefixed(&in, &p)) return false;
    switch (tag) {
      case kRestoreBackupArn: r->source_backup_arn.assign(p); break;
      case kRestoreTableArn: r->source_table_arn.assign(p); break;
      case kRestoreTimeMs:
        if (!GetVarintPayload(p, &v)) return false;
        r->restore_time_ms = static_cast<int64_t>(v);
        break;
      case kRestoreInProgress:
        if (!GetVarintPayload(p, &v)) return false;
        r->in_progress = v != 0;
        break;
      default: break;
    }
  }
  return true;
}

bool DecodePitr(std::string_view in, model::PitrSettings* pitr) {
  while (!in.empty()) {
    uint64_t tag, v = 0;
    std::string_view p;
    if (!GetVarint64(&in, &tag) || !GetLengthPrefixed(&in, &p)) return false;
    if (tag != kPitrEnabledMs && tag != kPitrDays) continue;
    if (!GetVarintPayload(p, &v)) return false;
    if (tag == kPitrEnabledMs) pitr->enabled_ms = static_cast<int64_t>(v);
    if (tag == kPitrDays) pitr->recovery_period_days = static_cast<int32_t>(v);
  }
  return true;
}

bool DecodeTtlBackfill(std::string_view in, model::TtlBackfill* b) {
  while (!in.empty()) {
    uint64_t tag;
    std::string_view p;
    if (!GetVarint64(&in, &tag) || !GetLengthPrefixed(&in, &p)) return false;
    if (tag == kTtlBackfillCursor) b->cursor.assign(p);
  }
  return true;
}

}  // namespace

std::string EncodeTableDescriptor(const model::TableDescriptor& t) {
  std::string out;
  PutVarintField(&out, kId, t.id);
  PutField(&out, kName, t.name);
  PutField(&out, kUuid, t.uuid);
  PutField(&out, kHashKey, EncodeElement(t.key.hash));
  if (t.key.range) PutField(&out, kRangeKey, EncodeElement(*t.key.range));
  for (const auto& d : t.attribute_definitions) PutField(&out, kAttributeDef, EncodeElement(d));
  PutVarintField(&out, kBillingMode, static_cast<uint64_t>(t.billing_mode));
  PutVarintField(&out, kReadCapacity, static_cast<uint64_t>(t.read_capacity));
  PutVarintField(&out, kWriteCapacity, static_cast<uint64_t>(t.write_capacity));
  PutVarintField(&out, kCreationTimeMs, static_cast<uint64_t>(t.creation_time_ms));
  PutVarintField(&out, kDeletionProtection, t.deletion_protection ? 1 : 0);
  if (t.deleting_since_ms > 0) {
    PutVarintField(&out, kDeletingSinceMs, static_cast<uint64_t>(t.deleting_since_ms));
  }
  PutField(&out, kTableClass, t.table_class);
  for (const auto& tag : t.tags) {
    std::string p;
    PutLengthPrefixed(&p, tag.key);
    PutLengthPrefixed(&p, tag.value);
    PutField(&out, kTag, p);
  }
  for (const auto& ix : t.indexes) PutField(&out, kIndex, EncodeIndex(ix));
  PutVarintField(&out, kTtlEnabled, t.ttl_enabled ? 1 : 0);
  if (!t.ttl_attribute.empty()) PutField(&out, kTtlAttribute, t.ttl_attribute);
  PutVarintField(&out, kNextIndexId, t.next_index_id);
  for (uint32_t id : t.dropped_index_ids) PutVarintField(&out, kDroppedIndexId, id);
  for (const auto& st : t.streams) PutField(&out, kStream, EncodeStream(st));
  if (t.tablestore) PutField(&out, kTablestore, EncodeTablestore(*t.tablestore));
  if (t.size_rule != 0) PutVarintField(&out, kSizeRule, t.size_rule);
  if (t.restore) PutField(&out, kRestore, EncodeRestore(*t.restore));
  if (t.ttl_backfill) {
    std::string p;
    if (!t.ttl_backfill->cursor.empty()) PutField(&p, kTtlBackfillCursor, t.ttl_backfill->cursor);
    PutField(&out, kTtlBackfill, p);
  }
  if (t.resource_policy) PutField(&out, kResourcePolicy, EncodePolicy(*t.resource_policy));
  if (t.pitr) {
    std::string p;
    PutVarintField(&p, kPitrEnabledMs, static_cast<uint64_t>(t.pitr->enabled_ms));
    PutVarintField(&p, kPitrDays, static_cast<uint64_t>(t.pitr->recovery_period_days));
    PutField(&out, kPitr, p);
  }
  return out;
}

std::optional<model::TableDescriptor> DecodeTableDescriptor(std::string_view in) {
  model::TableDescriptor t;
  while (!in.empty()) {
    uint64_t tag, v = 0;
    std::string_view p;
    if (!GetVarint64(&in, &tag) || !GetLengthPrefixed(&in, &p)) return std::nullopt;
    bool ok = true;
    switch (tag) {
      case kId: ok = GetVarintPayload(p, &v); t.id = static_cast<uint32_t>(v); break;
      case kName: t.name.assign(p); break;
      case kUuid: t.uuid.assign(p); break;
      case kHashKey: ok = DecodeElement(p, &t.key.hash); break;
      case kRangeKey: ok = DecodeElement(p, &t.key.range.emplace()); break;
      case kAttributeDef: ok = DecodeElement(p, &t.attribute_definitions.emplace_back()); break;
      case kBillingMode:
        ok = GetVarintPayload(p, &v);
        t.billing_mode = static_cast<model::BillingMode>(v);
        break;
      case kReadCapacity: ok = GetVarintPayload(p, &v); t.read_capacity = int64_t(v); break;
      case kWriteCapacity: ok = GetVarintPayload(p, &v); t.write_capacity = int64_t(v); break;
      case kCreationTimeMs: ok = GetVarintPayload(p, &v); t.creation_time_ms = int64_t(v); break;
      case kDeletionProtection: ok = GetVarintPayload(p, &v); t.deletion_protection = v; break;
      case kDeletingSinceMs: ok = GetVarintPayload(p, &v); t.deleting_since_ms = int64_t(v); break;
      case kTableClass: t.table_class.assign(p); break;
      case kTag: {
        std::string_view k, val;
        ok = GetLengthPrefixed(&p, &k) && GetLengthPrefixed(&p, &val);
        t.tags.push_back({std::string(k), std::string(val)});
        break;
      }
      case kIndex: ok = DecodeIndex(p, &t.indexes.emplace_back()); break;
      case kTtlEnabled: ok = GetVarintPayload(p, &v); t.ttl_enabled = v != 0; break;
      case kTtlAttribute: t.ttl_attribute.assign(p); break;
      case kNextIndexId: ok = GetVarintPayload(p, &v); t.next_index_id = uint32_t(v); break;
      case kDroppedIndexId:
        ok = GetVarintPayload(p, &v);
        t.dropped_index_ids.push_back(static_cast<uint32_t>(v));
        break;
      case kStream: ok = DecodeStream(p, &t.streams.emplace_back()); break;
      case kTablestore: ok = DecodeTablestore(p, &t.tablestore.emplace()); break;
      case kRestore: ok = DecodeRestore(p, &t.restore.emplace()); break;
      case kTtlBackfill: ok = DecodeTtlBackfill(p, &t.ttl_backfill.emplace()); break;
      case kResourcePolicy: ok = DecodePolicy(p, &t.resource_policy.emplace()); break;
      case kPitr: ok = DecodePitr(p, &t.pitr.emplace()); break;
      case kSizeRule: ok = GetVarintPayload(p, &v); t.size_rule = uint32_t(v); break;
      default: break;  // a field from a newer version: skip
    }
    if (!ok) return std::nullopt;
  }
  // Descriptors written before index ids existed (no entries were kept then): number their
  // indexes now; the next write of the descriptor persists the ids.
  for (auto& ix : t.indexes) {
    if (ix.id == 0) ix.id = t.next_index_id++;
    if (ix.id >= t.next_index_id) t.next_index_id = ix.id + 1;
  }
  for (uint32_t id : t.dropped_index_ids) {
    if (id >= t.next_index_id) t.next_index_id = id + 1;
  }
  return t;
}

}  // namespace ttlstore::storage
