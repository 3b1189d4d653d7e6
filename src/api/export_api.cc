// ExportTableToPointInTime, DescribeExport, ListExports (issue 22): request shapes, validation
// in the service's order and texts, and the service's descriptions; the export itself is
// backup/table_export.h. Sources of each rule: docs/compatibility.md, "Export to S3".
#include <rapidjson/stringbuffer.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

#include "api/handlers.h"
#include "api/item_common.h"
#include "api/request.h"
#include "backup/table_export.h"

namespace ttlstore::api {
namespace {

using backup::ExportRecord;
using backup::ExportSpec;
using backup::ExportStatus;
using backup::ExportType;

Result<backup::Exports*> ExportsOf(const Services& s) {
  if (!s.exports) return Error(ErrorCode::kUnknownOperation, "");
  return s.exports;
}

Error AccessDenied() { return Error(ErrorCode::kAccessDenied, "Access is denied"); }

// A Timestamp member (epoch seconds, fractions allowed) in milliseconds; nullopt if absent.
Result<std::optional<int64_t>> OptTime(const rapidjson::Value& obj, const char* name) {
  const rapidjson::Value* v = Field(obj, name);
  if (!v) return std::optional<int64_t>();
  if (!v->IsNumber()) return Error::Serialization("NUMBER_VALUE cannot be converted to Date");
  double seconds = v->GetDouble();
  if (!std::isfinite(seconds) || std::fabs(seconds) > 1e11) {
    return Error::Serialization("NUMBER_VALUE cannot be converted to Date");
  }
  return std::optional<int64_t>(std::llround(seconds * 1000.0));
}

std::vector<std::string> SplitArn(const std::string& arn) {
  // arn : partition : service : region : account : resource (which may hold more colons)
  std::vector<std::string> parts;
  size_t pos = 0;
  while (parts.size() < 5) {
    size_t colon = arn.find(':', pos);
    if (colon == std::string::npos) return {};
    parts.push_back(arn.substr(pos, colon - pos));
    pos = colon + 1;
  }
  parts.push_back(arn.substr(pos));
  return parts;
}

bool TableNameOk(const std::string& name) {
  if (name.size() < 3 || name.size() > 255) return false;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-' || c == '.';
    if (!ok) return false;
  }
  return true;
}

// ExportTableToPointInTime's TableArn: the table's name, or the service's refusal.
Result<std::string> ExportTableName(const Services& s, const std::string& arn) {
  std::vector<std::string> p = SplitArn(arn);
  if (p.size() != 6 || p[0] != "arn" || p[2] != "dynamodb") {
    return Error::Validation(
        "One or more parameter values were invalid: tableArn is not a valid ARN");
  }
  if (p[4] != s.account_id) return AccessDenied();
  if (p[5].rfind("table/", 0) != 0 || !TableNameOk(p[5].substr(6))) {
    return Error::Validation("Invalid Request: Table ARN is invalid.");
  }
  // The region is not checked: the service looks the name up in its own region.
  return p[5].substr(6);
}

bool RegionShaped(const std::string& r) {
  // us-east-1, ap-southeast-2, us-gov-west-1: letters and dashes, then a dash and digits.
  size_t dash = r.rfind('-');
  if (dash == std::string::npos || dash == 0 || dash + 1 == r.size()) return false;
  for (size_t i = dash + 1; i < r.size(); ++i) {
    if (r[i] < '0' || r[i] > '9') return false;
  }
  for (size_t i = 0; i < dash; ++i) {
    if (!((r[i] >= 'a' && r[i] <= 'z') || r[i] == '-')) return false;
  }
  return r.find('-') < dash;
}

// DescribeExport's ExportArn checks, in the order the service's answers show.
Status CheckExportArn(const Services& s, const std::string& arn) {
  if (arn.rfind("arn:", 0) != 0) return Error::Validation("Invalid Export ARN");
  std::vector<std::string> p = SplitArn(arn);
  if (p.size() != 6) return Error::Validation("Invalid Export ARN");
  if (p[1] != "aws" || p[2] != "dynamodb" || !RegionShaped(p[3]) || p[4] != s.account_id) {
    return AccessDenied();
  }
  const std::string& res = p[5];
  size_t mark = res.find("/export/");
  if (res.rfind("table/", 0) != 0 || mark == std::string::npos ||
      !TableNameOk(res.substr(6, mark - 6)) || mark + 8 >= res.size() ||
      res.find('/', mark + 8) != std::string::npos) {
    return Error::Validation("Invalid Export ARN");
  }
  if (p[3] != s.region) {
    return Error(ErrorCode::kExportNotFound, "Export not found: Invalid export arn");
  }
  return Status::Ok();
}

void WriteTime(JsonWriter& w, const char* name, int64_t ms) {
  w.Key(name);
  w.Double(static_cast<double>(ms) / 1000.0);
}

void WriteDescription(JsonWriter& w, const ExportRecord& r) {
  const ExportSpec& spec = r.spec;
  w.StartObject();
  w.Key("ExportArn");
  WriteString(w, r.arn);
  w.Key("ExportStatus");
  w.String(backup::ExportStatusName(r.status));
  WriteTime(w, "StartTime", r.start_ms);
  if (r.status != ExportStatus::kInProgress) WriteTime(w, "EndTime", r.end_ms);
  if (r.status == ExportStatus::kCompleted) {
    w.Key("ExportManifest");
    WriteString(w, r.manifest_key);
  }
  w.Key("TableArn");
  WriteString(w, spec.table_arn);
  w.Key("TableId");
  WriteString(w, r.table_id);
  if (spec.type == ExportType::kFull) WriteTime(w, "ExportTime", spec.export_ms);
  w.Key("ClientToken");
  WriteString(w, spec.client_token);
  w.Key("S3Bucket");
  WriteString(w, spec.bucket);
  if (!spec.bucket_owner.empty()) {
    w.Key("S3BucketOwner");
    WriteString(w, spec.bucket_owner);
  }
  if (!spec.prefix.empty()) {
    w.Key("S3Prefix");
    WriteString(w, spec.prefix);
  }
  w.Key("S3SseAlgorithm");
  WriteString(w, spec.sse_algorithm.empty() ? "AES256" : spec.sse_algorithm);
  if (!spec.sse_kms_key_id.empty()) {
    w.Key("S3SseKmsKeyId");
    WriteString(w, spec.sse_kms_key_id);
  }
  if (!r.failure_code.empty()) {
    w.Key("FailureCode");
    WriteString(w, r.failure_code);
    w.Key("FailureMessage");
    WriteString(w, r.failure_message);
  }
  w.Key("ExportFormat");
  w.String(backup::ExportFormatName(spec.format));
  if (r.status == ExportStatus::kCompleted) {
    w.Key("BilledSizeBytes");
    w.Int64(r.billed_bytes);
    w.Key("ItemCount");
    w.Int64(r.item_count);
  }
  if (spec.type_given) {
    w.Key("ExportType");
    w.String(backup::ExportTypeName(spec.type));
  }
  if (spec.type == ExportType::kIncremental) {
    w.Key("IncrementalExportSpecification");
    w.StartObject();
    WriteTime(w, "ExportFromTime", spec.from_ms);
    WriteTime(w, "ExportToTime", spec.to_ms);
    w.Key("ExportViewType");
    w.String(backup::ExportViewName(spec.view));
    w.EndObject();
  }
  w.EndObject();
}

std::string Described(const ExportRecord& r) {
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  w.Key("ExportDescription");
  WriteDescription(w, r);
  w.EndObject();
  return Finish(buf);
}

// A ClientToken for a request without one: the service returns one either way.
std::string NewClientToken() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  uint64_t a = rng(), b = rng();
  char out[40];
  std::snprintf(out, sizeof out, "%08x-%04x-4%03x-%04x-%012llx", static_cast<unsigned>(a >> 32),
                static_cast<unsigned>((a >> 16) & 0xffff), static_cast<unsigned>(a & 0xfff),
                static_cast<unsigned>(0x8000 | ((b >> 48) & 0x3fff)),
                static_cast<unsigned long long>(b & 0xffffffffffffULL));
  return out;
}

// ListExports' NextToken: "e" and the hex of the last ARN returned (a ListImports token, which
// is bare hex, is refused, as the service refuses one).
std::string EncodeToken(const std::string& arn) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "e";
  for (char c : arn) {
    out += kHex[static_cast<unsigned char>(c) >> 4];
    out += kHex[static_cast<unsigned char>(c) & 15];
  }
  return out;
}

std::optional<std::string> DecodeToken(const std::string& token) {
  if (token.size() < 3 || token[0] != 'e' || token.size() % 2 != 1) return std::nullopt;
  auto hex = [](char c) {
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
  };
  std::string out;
  for (size_t i = 1; i < token.size(); i += 2) {
    int hi = hex(token[i]), lo = hex(token[i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out += static_cast<char>(hi * 16 + lo);
  }
  if (out.find("/export/") == std::string::npos) return std::nullopt;
  return out;
}

}  // namespace

Result<std::string> ExportTableToPointInTime(const Services& s, const rapidjson::Value& req) {
  ASSIGN_OR_RETURN(exports, ExportsOf(s));
  ASSIGN_OR_RETURN(table_arn, OptString(req, "TableArn"));
  ASSIGN_OR_RETURN(bucket, OptString(req, "S3Bucket"));
  ASSIGN_OR_RETURN(token, OptString(req, "ClientToken"));
  ASSIGN_OR_RETURN(owner, OptString(req, "S3BucketOwner"));
  ASSIGN_OR_RETURN(prefix, OptString(req, "S3Prefix"));
  ASSIGN_OR_RETURN(sse, OptString(req, "S3SseAlgorithm"));
  ASSIGN_OR_RETURN(kms, OptString(req, "S3SseKmsKeyId"));
  ASSIGN_OR_RETURN(format, OptString(req, "ExportFormat"));
  ASSIGN_OR_RETURN(type, OptString(req, "ExportType"));
  ASSIGN_OR_RETURN(export_time, OptTime(req, "ExportTime"));
  ASSIGN_OR_RETURN(incremental, OptObject(req, "IncrementalExportSpecification"));
  std::optional<int64_t> from, to;
  std::optional<std::string> view;
  if (incremental) {
    ASSIGN_OR_RETURN(f, OptTime(*incremental, "ExportFromTime"));
    ASSIGN_OR_RETURN(t, OptTime(*incremental, "ExportToTime"));
    ASSIGN_OR_RETURN(v, OptString(*incremental, "ExportViewType"));
    from = f;
    to = t;
    view = v;
  }
  Constraints c;
  c.NotNull("tableArn", table_arn.has_value());
  c.Length("tableArn", table_arn, 1, 1024);
  c.NotNull("s3Bucket", bucket.has_value());
  c.Length("s3Bucket", bucket, 0, 255);
  if (bucket && bucket->size() <= 255 && !S3BucketNameOk(*bucket)) {
    c.Add("Value '" + *bucket +
          "' at 's3Bucket' failed to satisfy constraint: Member must satisfy regular expression "
          "pattern: ^[a-z0-9A-Z]+[\\.\\-\\w]*[a-z0-9A-Z]+$");
  }
  if (token && (token->empty() || token->find('$') != std::string::npos)) {
    c.Add("Value '" + *token +
          "' at 'clientToken' failed to satisfy constraint: Member must satisfy regular "
          "expression pattern: ^[^$]+$");
  }
  if (owner && (owner->size() != 12 ||
                owner->find_first_not_of("0123456789") != std::string::npos)) {
    c.Add("Value '" + *owner +
          "' at 's3BucketOwner' failed to satisfy constraint: Member must satisfy regular "
          "expression pattern: [0-9]{12}");
  }
  c.Length("s3Prefix", prefix, 0, 1024);
  c.Enum("s3SseAlgorithm", sse, {"AES256", "KMS"});
  c.Length("s3SseKmsKeyId", kms, 1, 2048);
  c.Enum("exportFormat", format, {"DYNAMODB_JSON", "ION"});
  c.Enum("exportType", type, {"FULL_EXPORT", "INCREMENTAL_EXPORT"});
  c.Enum("incrementalExportSpecification.exportViewType", view,
         {"NEW_IMAGE", "NEW_AND_OLD_IMAGES"});
  if (!c.ok()) return c.ToError();
  ASSIGN_OR_RETURN(table_name, ExportTableName(s, *table_arn));
  const bool is_incremental = type == "INCREMENTAL_EXPORT";
  if (incremental && !type) {
    return Error::Validation(
        "Invalid Request: Export Type expected to be Incremental Export when incremental export "
        "specification is provided");
  }
  if (incremental && !is_incremental) {
    return Error::Validation(
        "Invalid Request: When Export Type is Full Export , Incremental Export Specification "
        "should not be provided");
  }
  if (is_incremental && !incremental) {
    return Error::Validation(
        "Invalid Request: Incremental Export Specification expected when export type is set as "
        "Incremental Export");
  }
  if (is_incremental && !from) {
    return Error::Validation(
        "Invalid Request: ExportFromTime must be provided in IncrementalExportSpecification");
  }
  if (kms && sse != "KMS") {
    return Error::Validation(
        "Invalid Request: KMS Key Id is not supported for this encryption type");
  }

  ExportSpec spec;
  spec.table_arn = *table_arn;
  spec.bucket = *bucket;
  spec.prefix = prefix.value_or("");
  spec.bucket_owner = owner.value_or("");
  spec.sse_algorithm = sse.value_or("AES256");
  spec.sse_given = sse.has_value();
  spec.sse_kms_key_id = kms.value_or("");
  spec.client_token = token ? *token : NewClientToken();
  spec.format = format == "ION" ? backup::ExportFormat::kIon : backup::ExportFormat::kDynamoDbJson;
  spec.type = is_incremental ? ExportType::kIncremental : ExportType::kFull;
  spec.type_given = type.has_value();
  spec.export_ms_given = is_incremental ? -1 : export_time.value_or(-1);
  if (is_incremental) {
    spec.from_ms = *from;
    spec.to_ms_given = to.value_or(-1);
    spec.view = view == "NEW_IMAGE" ? backup::ExportView::kNewImage
                                    : backup::ExportView::kNewAndOldImages;
    spec.view_given = view.has_value();
  }
  ASSIGN_OR_RETURN(record, exports->Start(std::move(spec), table_name));
  return Described(record);
}

Result<std::string> DescribeExport(const Services& s, const rapidjson::Value& req) {
  ASSIGN_OR_RETURN(exports, ExportsOf(s));
  ASSIGN_OR_RETURN(arn, OptString(req, "ExportArn"));
  Constraints c;
  c.NotNull("exportArn", arn.has_value());
  c.Length("exportArn", arn, 37, 1024);
  if (!c.ok()) return c.ToError();
  RETURN_IF_ERROR(CheckExportArn(s, *arn));
  ASSIGN_OR_RETURN(record, exports->Find(*arn));
  return Described(record);
}

Result<std::string> ListExports(const Services& s, const rapidjson::Value& req) {
  ASSIGN_OR_RETURN(exports, ExportsOf(s));
  ASSIGN_OR_RETURN(table_arn, OptString(req, "TableArn"));
  ASSIGN_OR_RETURN(max_results, OptInt(req, "MaxResults"));
  ASSIGN_OR_RETURN(next, OptString(req, "NextToken"));
  Constraints c;
  c.Length("tableArn", table_arn, 1, 1024);
  c.Min("maxResults", max_results, 1);
  c.Max("maxResults", max_results, 25);
  if (!c.ok()) return c.ToError();
  std::optional<std::string> after;
  if (next) {
    after = DecodeToken(*next);
    if (!after) {
      return Error::Validation("Invalid Request: Provided nextToken is invalid: " + *next);
    }
  }
  // A table's exports are those of the table that has its name now: once it is deleted, or
  // created again under that name, the list is empty (DescribeExport still finds each).
  std::string table_id;
  if (table_arn) {
    std::vector<std::string> p = SplitArn(*table_arn);
    if (p.size() == 6 && p[5].rfind("table/", 0) == 0) {
      if (ops::TablePtr t = s.catalog.Find(p[5].substr(6))) table_id = t->uuid;
    }
  }
  const size_t limit = static_cast<size_t>(max_results.value_or(25));
  ASSIGN_OR_RETURN(all, exports->List());
  size_t start = 0;
  if (after) {
    auto it = std::find_if(all.begin(), all.end(),
                           [&](const ExportRecord& r) { return r.arn == *after; });
    start = it == all.end() ? all.size() : static_cast<size_t>(it - all.begin()) + 1;
  }
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  w.Key("ExportSummaries");
  w.StartArray();
  size_t written = 0;
  std::string last;
  bool more = false;
  for (size_t i = start; i < all.size(); ++i) {
    const ExportRecord& r = all[i];
    if (table_arn && (r.spec.table_arn != *table_arn || r.table_id != table_id)) continue;
    if (written == limit) {
      more = true;
      break;
    }
    w.StartObject();
    w.Key("ExportArn");
    WriteString(w, r.arn);
    w.Key("ExportStatus");
    w.String(backup::ExportStatusName(r.status));
    w.Key("ExportType");
    w.String(backup::ExportTypeName(r.spec.type));
    w.EndObject();
    ++written;
    last = r.arn;
  }
  w.EndArray();
  if (more) {
    w.Key("NextToken");
    WriteString(w, EncodeToken(last));
  }
  w.EndObject();
  return Finish(buf);
}

}  // namespace ttlstore::api
