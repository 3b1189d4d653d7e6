// Point-in-time recovery handlers: DescribeContinuousBackups, UpdateContinuousBackups,
// RestoreTableToPointInTime. Shapes, checks and messages here (sources in docs/compatibility.md,
// "Point-in-time recovery"); the change log and restores are in backup/pitr_restore.h.
#include <cmath>

#include "api/handlers.h"
#include "api/request.h"
#include "api/restore_overrides.h"
#include "api/tags.h"
#include "backup/pitr_restore.h"
#include "backup/pitr_window.h"

namespace ttlstore::api {
namespace {

std::string Finish(const rapidjson::StringBuffer& buf) { return {buf.GetString(), buf.GetSize()}; }

// TableName: a table's name or, in the newer API, its ARN.
Result<std::string> TableNameOrArn(const rapidjson::Value& req) {
  ASSIGN_OR_RETURN(name, OptString(req, "TableName"));
  Constraints c;
  c.NotNull("tableName", name.has_value());
  if (name && name->rfind("arn:", 0) != 0) c.TableName("tableName", name, 3);
  if (!c.ok()) return c.ToError();
  if (name->rfind("arn:", 0) == 0) {
    ASSIGN_OR_RETURN(parts, ParseTableArn(*name));
    return std::move(parts.table);
  }
  return std::move(*name);
}

Error TableNotFound(const std::string& name) {
  return Error(ErrorCode::kTableNotFound, "Table not found: " + name);
}

std::string RenderDescription(const Services& s, const model::TableDescriptor& t) {
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  w.Key("ContinuousBackupsDescription");
  w.StartObject();
  // On-demand backups are always available: ContinuousBackupsStatus is ENABLED for every table
  // (API reference), whatever PITR is.
  w.Key("ContinuousBackupsStatus");
  w.String("ENABLED");
  w.Key("PointInTimeRecoveryDescription");
  w.StartObject();
  w.Key("PointInTimeRecoveryStatus");
  bool enabled = t.pitr.has_value() && s.pitr != nullptr;
  w.String(enabled ? "ENABLED" : "DISABLED");
  if (enabled) {
    backup::RestorableWindow win =
        backup::WindowOf(*t.pitr, s.clock.NowMs(), s.pitr->max_window_ms());
    w.Key("RecoveryPeriodInDays");
    w.Int(t.pitr->recovery_period_days);
    w.Key("EarliestRestorableDateTime");
    w.Double(static_cast<double>(win.earliest_ms) / 1000.0);
    w.Key("LatestRestorableDateTime");
    w.Double(static_cast<double>(win.latest_ms) / 1000.0);
  }
  w.EndObject();
  w.EndObject();
  w.EndObject();
  return Finish(buf);
}

}  // namespace

Result<std::string> DescribeContinuousBackups(const Services& s, const rapidjson::Value& req) {
  ASSIGN_OR_RETURN(name, TableNameOrArn(req));
  ops::TablePtr t = s.catalog.Find(name);
  if (!t) return TableNotFound(name);
  return RenderDescription(s, *t);
}

Result<std::string> UpdateContinuousBackups(const Services& s, const rapidjson::Value& req) {
  ASSIGN_OR_RETURN(spec, OptObject(req, "PointInTimeRecoverySpecification"));
  std::optional<bool> enabled;
  std::optional<int64_t> days;
  if (spec) {
    ASSIGN_OR_RETURN(e, OptBool(*spec, "PointInTimeRecoveryEnabled"));
    ASSIGN_OR_RETURN(d, OptInt(*spec, "RecoveryPeriodInDays"));
    enabled = e;
    days = d;
  }
  ASSIGN_OR_RETURN(raw_name, OptString(req, "TableName"));
  Constraints c;
  c.NotNull("tableName", raw_name.has_value());
  if (raw_name && raw_name->rfind("arn:", 0) != 0) c.TableName("tableName", raw_name, 3);
  c.NotNull("pointInTimeRecoverySpecification", spec != nullptr);
  if (spec) {
    c.NotNull("pointInTimeRecoverySpecification.pointInTimeRecoveryEnabled", enabled.has_value());
    c.Min("pointInTimeRecoverySpecification.recoveryPeriodInDays", days,
          backup::kMinRecoveryDays);
    c.Max("pointInTimeRecoverySpecification.recoveryPeriodInDays", days,
          backup::kMaxRecoveryDays);
  }
  if (!c.ok()) return c.ToError();
  if (!*enabled && days) {
    return Error::Validation(
        "Invalid Request: Cannot specify RecoveryPeriodInDays when disabling point-in-time "
        "recovery.");
  }
  ASSIGN_OR_RETURN(name, TableNameOrArn(req));
  if (!s.pitr) return Error(ErrorCode::kUnknownOperation, "");
  std::optional<int32_t> period;
  if (days) period = static_cast<int32_t>(*days);
  ASSIGN_OR_RETURN(table, s.catalog.SetPointInTimeRecovery(name, *enabled, period));
  return RenderDescription(s, *table);
}

Result<std::string> RestoreTableToPointInTime(const Services& s, const rapidjson::Value& req) {
  if (!s.pitr) return Error(ErrorCode::kUnknownOperation, "");
  ASSIGN_OR_RETURN(target, OptString(req, "TargetTableName"));
  ASSIGN_OR_RETURN(source_name, OptString(req, "SourceTableName"));
  ASSIGN_OR_RETURN(source_arn, OptString(req, "SourceTableArn"));
  ASSIGN_OR_RETURN(use_latest, OptBool(req, "UseLatestRestorableTime"));
  ASSIGN_OR_RETURN(billing, OptString(req, "BillingModeOverride"));
  ASSIGN_OR_RETURN(throughput, OptObject(req, "ProvisionedThroughputOverride"));
  ASSIGN_OR_RETURN(gsis, OptArray(req, "GlobalSecondaryIndexOverride"));
  ASSIGN_OR_RETURN(lsis, OptArray(req, "LocalSecondaryIndexOverride"));
  ASSIGN_OR_RETURN(sse, OptObject(req, "SSESpecificationOverride"));
  (void)sse;  // accepted: data at rest is the data dir's business (docs/compatibility.md)
  ASSIGN_OR_RETURN(vectors, OptArray(req, "VectorIndexOverride"));
  const rapidjson::Value* when = Field(req, "RestoreDateTime");
  if (when && !when->IsNumber()) {
    return Error::Serialization("NUMBER_VALUE cannot be converted to Date");
  }
  Constraints c;
  c.NotNull("targetTableName", target.has_value());
  c.TableName("targetTableName", target, 3, /*all_errors=*/true);
  c.TableName("sourceTableName", source_name, 3, /*all_errors=*/true);
  c.Length("sourceTableArn", source_arn, 1, 1024);
  c.Enum("billingModeOverride", billing, {"PROVISIONED", "PAY_PER_REQUEST"});
  if (!c.ok()) return c.ToError();
  if (source_name.has_value() == source_arn.has_value()) {
    return Error::Validation(
        "Invalid Request: Must provide exactly one of: sourceTableArn, sourceTableName");
  }
  bool latest = use_latest.value_or(false);
  if (when && latest) {
    return Error::Validation(
        "Invalid Request: Both RestoreDateTime and UseLatestRestorableTime cannot be set for "
        "point-in-time restore request. Please specify either RestoreDateTime time or "
        "UseLatestRestorableTime");
  }
  if (!when && !latest) {
    return Error::Validation(
        "Invalid Request: Either one of RestoreDateTime or UseLatestRestorableTime must be "
        "specified, but not both");
  }
  ASSIGN_OR_RETURN(overrides, ParseRestoreOverrides(billing, throughput, gsis, lsis, vectors));
  backup::PitrRestoreRequest r;
  if (source_arn) {
    ASSIGN_OR_RETURN(parts, ParseTableArn(*source_arn));
    r.source = std::move(parts.table);
    r.source_arn = *source_arn;
  } else {
    r.source = *source_name;
    r.source_arn = TableArn(s, *source_name);
  }
  r.target = *target;
  r.use_latest = latest;
  if (when) {
    // Seconds since the epoch; bounded before the conversion (a huge value is simply outside
    // every window).
    double seconds = when->GetDouble();
    if (!std::isfinite(seconds) || seconds < 0) seconds = 0;
    if (seconds > 1e11) seconds = 1e11;
    r.restore_ms = std::llround(seconds * 1000.0);
  }
  r.overrides = std::move(overrides);
  ASSIGN_OR_RETURN(table, s.pitr->Start(r));
  return RenderUpdatedTable(s, *table);
}

}  // namespace ttlstore::api
