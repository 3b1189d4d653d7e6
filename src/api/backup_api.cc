// On-demand backup handlers (D17): CreateBackup, DescribeBackup, ListBackups, DeleteBackup,
// RestoreTableFromBackup. Shapes and messages here; the work is in backup/backups.h.
#include <algorithm>

#include "api/handlers.h"
#include "api/request.h"
#include "api/restore_overrides.h"
#include "api/table_schema.h"
#include "api/vector_index_schema.h"
#include "backup/backups.h"
#include "storage/key_codec.h"

namespace ttlstore::api {
namespace {

std::string Finish(const rapidjson::StringBuffer& buf) { return {buf.GetString(), buf.GetSize()}; }

Result<backup::Backups*> BackupsOf(const Services& s) {
  if (!s.backups) return Error(ErrorCode::kUnknownOperation, "");
  return s.backups;
}

void WriteDetails(JsonWriter& w, const backup::BackupRecord& b, const char* status) {
  w.StartObject();
  w.Key("BackupArn");
  WriteString(w, b.header.backup_arn);
  w.Key("BackupName");
  WriteString(w, b.header.backup_name);
  w.Key("BackupSizeBytes");
  w.Int64(b.header.expected_bytes);
  w.Key("BackupStatus");
  w.String(status);
  w.Key("BackupType");
  w.String("USER");
  w.Key("BackupCreationDateTime");
  w.Double(static_cast<double>(b.header.created_ms) / 1000.0);
  w.EndObject();
}

void WriteSourceTable(JsonWriter& w, const backup::BackupRecord& b) {
  const model::TableDescriptor& t = b.source;
  w.StartObject();
  w.Key("TableName");
  WriteString(w, t.name);
  w.Key("TableId");
  WriteString(w, t.uuid);
  w.Key("TableArn");
  WriteString(w, b.header.table_arn);
  w.Key("TableSizeBytes");
  w.Int64(b.header.expected_bytes);
  w.Key("KeySchema");
  WriteKeySchema(w, t.key);
  w.Key("TableCreationDateTime");
  w.Double(static_cast<double>(t.creation_time_ms) / 1000.0);
  w.Key("ProvisionedThroughput");
  w.StartObject();
  w.Key("ReadCapacityUnits");
  w.Int64(t.read_capacity);
  w.Key("WriteCapacityUnits");
  w.Int64(t.write_capacity);
  w.EndObject();
  w.Key("ItemCount");
  w.Int64(b.trailer.records);
  w.Key("BillingMode");
  w.String(t.billing_mode == model::BillingMode::kPayPerRequest ? "PAY_PER_REQUEST"
                                                                 : "PROVISIONED");
  w.EndObject();
}

void WriteFeatures(JsonWriter& w, const backup::BackupRecord& b) {
  const model::TableDescriptor& t = b.source;
  w.StartObject();
  WriteIndexes(w, b.header.table_arn, t, {});
  if (const model::StreamInfo* st = t.enabled_stream()) {
    static constexpr const char* kViews[] = {"KEYS_ONLY", "NEW_IMAGE", "OLD_IMAGE",
                                             "NEW_AND_OLD_IMAGES"};
    w.Key("StreamDescription");
    w.StartObject();
    w.Key("StreamEnabled");
    w.Bool(true);
    w.Key("StreamViewType");
    w.String(kViews[static_cast<int>(st->view_type)]);
    w.EndObject();
  }
  w.Key("TimeToLiveDescription");
  w.StartObject();
  w.Key("TimeToLiveStatus");
  w.String(t.ttl_enabled ? "ENABLED" : "DISABLED");
  if (t.ttl_enabled) {
    w.Key("AttributeName");
    WriteString(w, t.ttl_attribute);
  }
  w.EndObject();
  w.EndObject();
}

std::string RenderDescription(const backup::BackupRecord& b, const char* status) {
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  w.Key("BackupDescription");
  w.StartObject();
  w.Key("BackupDetails");
  WriteDetails(w, b, status);
  w.Key("SourceTableDetails");
  WriteSourceTable(w, b);
  w.Key("SourceTableFeatureDetails");
  WriteFeatures(w, b);
  w.EndObject();
  w.EndObject();
  return Finish(buf);
}

Result<std::string> RequiredArn(const rapidjson::Value& req) {
  ASSIGN_OR_RETURN(arn, OptString(req, "BackupArn"));
  Constraints c;
  c.NotNull("backupArn", arn.has_value());
  c.Length("backupArn", arn, 37, 1024);
  if (!c.ok()) return c.ToError();
  return std::move(*arn);
}

}  // namespace

Result<std::string> CreateBackup(const Services& s, const rapidjson::Value& req) {
  ASSIGN_OR_RETURN(backups, BackupsOf(s));
  ASSIGN_OR_RETURN(table, OptString(req, "TableName"));
  ASSIGN_OR_RETURN(name, OptString(req, "BackupName"));
  Constraints c;
  c.NotNull("tableName", table.has_value());
  c.TableName("tableName", table, 3, /*all_errors=*/true);
  c.NotNull("backupName", name.has_value());
  c.TableName("backupName", name, 3, /*all_errors=*/true);
  if (!c.ok()) return c.ToError();
  ASSIGN_OR_RETURN(record, backups->Create(*table, TableArn(s, *table), *name));
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  w.Key("BackupDetails");
  WriteDetails(w, record, "AVAILABLE");
  w.EndObject();
  return Finish(buf);
}

Result<std::string> DescribeBackup(const Services& s, const rapidjson::Value& req) {
  ASSIGN_OR_RETURN(backups, BackupsOf(s));
  ASSIGN_OR_RETURN(arn, RequiredArn(req));
  ASSIGN_OR_RETURN(record, backups->Find(arn));
  return RenderDescription(record, "AVAILABLE");
}

Result<std::string> DeleteBackup(const Services& s, const rapidjson::Value& req) {
  ASSIGN_OR_RETURN(backups, BackupsOf(s));
  ASSIGN_OR_RETURN(arn, RequiredArn(req));
  ASSIGN_OR_RETURN(record, backups->Delete(arn));
  return RenderDescription(record, "DELETED");
}

Result<std::string> ListBackups(const Services& s, const rapidjson::Value& req) {
  ASSIGN_OR_RETURN(backups, BackupsOf(s));
  ASSIGN_OR_RETURN(table, OptString(req, "TableName"));
  ASSIGN_OR_RETURN(limit, OptInt(req, "Limit"));
  ASSIGN_OR_RETURN(start, OptString(req, "ExclusiveStartBackupArn"));
  ASSIGN_OR_RETURN(type, OptString(req, "BackupType"));
  const rapidjson::Value* lower = Field(req, "TimeRangeLowerBound");
  const rapidjson::Value* upper = Field(req, "TimeRangeUpperBound");
  Constraints c;
  c.TableName("tableName", table, 3, /*all_errors=*/true);
  c.Min("limit", limit, 1);
  c.Max("limit", limit, 100);
  c.Enum("backupType", type, {"USER", "SYSTEM", "AWS_BACKUP", "ALL"});
  c.Length("exclusiveStartBackupArn", start, 37, 1024);
  if (!c.ok()) return c.ToError();
  auto seconds = [](const rapidjson::Value* v) -> std::optional<double> {
    if (!v || !v->IsNumber()) return std::nullopt;
    return v->GetDouble();
  };
  std::optional<double> from = seconds(lower), to = seconds(upper);
  if ((lower && !from) || (upper && !to)) {
    return Error::Serialization("NUMBER_VALUE cannot be converted to Date");
  }
  bool only_system = type && *type != "USER" && *type != "ALL";
  std::vector<backup::BackupRecord> all = backups->List();
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  w.Key("BackupSummaries");
  w.StartArray();
  bool started = !start;
  int64_t n = 0, max = limit.value_or(INT64_MAX);
  std::optional<std::string> last;
  for (const auto& b : all) {
    if (!started) {
      started = b.header.backup_arn == *start;
      continue;
    }
    double created = static_cast<double>(b.header.created_ms) / 1000.0;
    if (only_system || (table && b.source.name != *table)) continue;
    if ((from && created < *from) || (to && created > *to)) continue;
    if (n == max) {
      break;
    }
    w.StartObject();
    w.Key("TableName");
    WriteString(w, b.source.name);
    w.Key("TableId");
    WriteString(w, b.source.uuid);
    w.Key("TableArn");
    WriteString(w, b.header.table_arn);
    w.Key("BackupArn");
    WriteString(w, b.header.backup_arn);
    w.Key("BackupName");
    WriteString(w, b.header.backup_name);
    w.Key("BackupCreationDateTime");
    w.Double(created);
    w.Key("BackupStatus");
    w.String("AVAILABLE");
    w.Key("BackupType");
    w.String("USER");
    w.Key("BackupSizeBytes");
    w.Int64(b.header.expected_bytes);
    w.EndObject();
    last = b.header.backup_arn;
    ++n;
  }
  w.EndArray();
  // As the service does: LastEvaluatedBackupArn whenever the page was cut by Limit.
  if (limit && n == max && last) {
    w.Key("LastEvaluatedBackupArn");
    WriteString(w, *last);
  }
  w.EndObject();
  return Finish(buf);
}

Result<backup::RestoreOverrides> ParseRestoreOverrides(const std::optional<std::string>& billing,
                                                       const rapidjson::Value* throughput,
                                                       const rapidjson::Value* gsis,
                                                       const rapidjson::Value* lsis,
                                                       const rapidjson::Value* vectors) {
  backup::RestoreOverrides overrides;
  if (billing) {
    overrides.billing_mode = *billing == "PAY_PER_REQUEST" ? model::BillingMode::kPayPerRequest
                                                           : model::BillingMode::kProvisioned;
  }
  if (throughput) {
    ASSIGN_OR_RETURN(r, OptInt(*throughput, "ReadCapacityUnits"));
    ASSIGN_OR_RETURN(wr, OptInt(*throughput, "WriteCapacityUnits"));
    if (!r || !wr || *r < 1 || *wr < 1) {
      return Error::Validation(
          "One or more parameter values were invalid: ProvisionedThroughputOverride needs "
          "ReadCapacityUnits and WriteCapacityUnits of at least 1");
    }
    overrides.throughput = std::make_pair(*r, *wr);
  }
  for (auto [list, out] : {std::make_pair(gsis, &overrides.global_indexes),
                           std::make_pair(lsis, &overrides.local_indexes)}) {
    if (!list) continue;
    out->emplace();
    for (const auto& ix : list->GetArray()) {
      const rapidjson::Value* name = ix.IsObject() ? Field(ix, "IndexName") : nullptr;
      if (!name || !name->IsString()) {
        return Error::Validation("One or more parameter values were invalid: an index override "
                                 "needs an IndexName");
      }
      (*out)->emplace_back(name->GetString(), name->GetStringLength());
    }
  }
  // VectorIndexOverride: VectorIndex shapes (the SDK's); their name chooses, and what else they
  // give must match the backup's index (RestoredDescriptorFrom).
  if (vectors) {
    overrides.vector_indexes.emplace();
    size_t member = 0;
    for (const auto& ix : vectors->GetArray()) {
      ++member;
      if (!ix.IsObject()) return Error::Serialization("Unexpected value type in VectorIndexOverride");
      backup::RestoreOverrides::VectorChoice choice;
      ASSIGN_OR_RETURN(name, OptString(ix, "IndexName"));
      if (!name) {
        return Error::Validation("One or more parameter values were invalid: a vector index "
                                 "override needs an IndexName");
      }
      choice.name = *name;
      ASSIGN_OR_RETURN(attribute, OptObject(ix, "VectorAttribute"));
      if (attribute) {
        ASSIGN_OR_RETURN(attr_name, OptString(*attribute, "AttributeName"));
        choice.attribute = attr_name;
      }
      ASSIGN_OR_RETURN(dims, OptInt(ix, "Dimensions"));
      if (dims) choice.dimensions = static_cast<uint32_t>(std::clamp<int64_t>(*dims, 0, UINT32_MAX));
      ASSIGN_OR_RETURN(distance, OptString(ix, "DistanceFunction"));
      Constraints c;
      c.Enum("vectorIndexOverride." + std::to_string(member) + ".member.distanceFunction",
             distance, {"COSINE", "DOT_PRODUCT", "EUCLIDEAN"});
      if (!c.ok()) return c.ToError();
      for (model::VectorMetric m : {model::VectorMetric::kCosine, model::VectorMetric::kEuclidean,
                                    model::VectorMetric::kDotProduct}) {
        if (distance == DistanceFunctionName(m)) choice.metric = m;
      }
      overrides.vector_indexes->push_back(std::move(choice));
    }
  }
  return overrides;
}

Result<std::string> RestoreTableFromBackup(const Services& s, const rapidjson::Value& req) {
  ASSIGN_OR_RETURN(backups, BackupsOf(s));
  ASSIGN_OR_RETURN(target, OptString(req, "TargetTableName"));
  ASSIGN_OR_RETURN(arn_opt, OptString(req, "BackupArn"));
  ASSIGN_OR_RETURN(billing, OptString(req, "BillingModeOverride"));
  ASSIGN_OR_RETURN(throughput, OptObject(req, "ProvisionedThroughputOverride"));
  ASSIGN_OR_RETURN(gsis, OptArray(req, "GlobalSecondaryIndexOverride"));
  ASSIGN_OR_RETURN(lsis, OptArray(req, "LocalSecondaryIndexOverride"));
  ASSIGN_OR_RETURN(vectors, OptArray(req, "VectorIndexOverride"));
  Constraints c;
  c.NotNull("targetTableName", target.has_value());
  c.TableName("targetTableName", target, 3, /*all_errors=*/true);
  c.NotNull("backupArn", arn_opt.has_value());
  c.Length("backupArn", arn_opt, 37, 1024);
  c.Enum("billingModeOverride", billing, {"PROVISIONED", "PAY_PER_REQUEST"});
  if (!c.ok()) return c.ToError();
  ASSIGN_OR_RETURN(overrides, ParseRestoreOverrides(billing, throughput, gsis, lsis, vectors));
  ASSIGN_OR_RETURN(table, backups->StartRestore(*arn_opt, *target, overrides));
  return RenderUpdatedTable(s, *table);
}

}  // namespace ttlstore::api
