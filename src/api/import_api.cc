// ImportTable, DescribeImport, ListImports (issue 22): request shapes, validation and the
// service's descriptions; the import itself is backup/table_import.h. Sources of each rule:
// docs/compatibility.md, "Import from S3".
#include <rapidjson/stringbuffer.h>

#include "api/handlers.h"
#include "api/import_lines.h"
#include "api/item_common.h"
#include "api/json_parse.h"
#include "api/request.h"
#include "backup/table_import.h"

namespace ttlstore::api {

namespace {

using backup::ImportRecord;
using backup::ImportStatus;

Result<backup::Imports*> ImportsOf(const Services& s) {
  if (!s.imports) return Error(ErrorCode::kUnknownOperation, "");
  return s.imports;
}

std::string JsonText(const rapidjson::Value& v) {
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  v.Accept(w);
  return Finish(buf);
}

// A value kept as JSON text, written back as JSON.
void WriteRaw(JsonWriter& w, const std::string& json) {
  rapidjson::Document doc;
  if (json.empty() || ParseJson(json, &doc) != JsonParse::kOk) {
    w.Null();
    return;
  }
  doc.Accept(w);
}

std::string LogGroupArn(const Services& s) {
  return "arn:aws:logs:" + s.region + ":" + s.account_id + ":log-group:/aws-dynamodb/imports:*";
}

void WriteBucketSource(JsonWriter& w, const backup::ImportSpec& spec) {
  w.StartObject();
  if (!spec.bucket_owner.empty()) {
    w.Key("S3BucketOwner");
    WriteString(w, spec.bucket_owner);
  }
  w.Key("S3Bucket");
  WriteString(w, spec.bucket);
  if (!spec.prefix.empty()) {
    w.Key("S3KeyPrefix");
    WriteString(w, spec.prefix);
  }
  w.EndObject();
}

// The members an ImportTableDescription and an ImportSummary begin with.
void WriteImportHead(JsonWriter& w, const ImportRecord& r) {
  w.Key("ImportArn");
  WriteString(w, r.arn);
  w.Key("ImportStatus");
  w.String(backup::ImportStatusName(r.status));
  w.Key("TableArn");
  WriteString(w, r.table_arn);
}

void WriteDescription(JsonWriter& w, const Services& s, const ImportRecord& r) {
  w.StartObject();
  WriteImportHead(w, r);
  w.Key("TableId");
  WriteString(w, r.table_id);
  w.Key("ClientToken");
  WriteString(w, r.spec.client_token);
  w.Key("S3BucketSource");
  WriteBucketSource(w, r.spec);
  w.Key("ErrorCount");
  w.Int64(r.errors);
  w.Key("CloudWatchLogGroupArn");
  WriteString(w, LogGroupArn(s));
  w.Key("InputFormat");
  w.String(backup::ImportFormatName(r.spec.format));
  if (!r.spec.format_options_json.empty()) {
    w.Key("InputFormatOptions");
    WriteRaw(w, r.spec.format_options_json);
  }
  w.Key("InputCompressionType");
  w.String(backup::CompressionName(r.spec.compression));
  w.Key("TableCreationParameters");
  WriteRaw(w, r.spec.table_creation_json);
  w.Key("StartTime");
  w.Double(static_cast<double>(r.start_ms) / 1000.0);
  if (r.end_ms > 0) {
    w.Key("EndTime");
    w.Double(static_cast<double>(r.end_ms) / 1000.0);
  }
  if (r.processed_bytes >= 0) {
    w.Key("ProcessedSizeBytes");
    w.Int64(r.processed_bytes);
  }
  w.Key("ProcessedItemCount");
  w.Int64(r.processed_items);
  w.Key("ImportedItemCount");
  w.Int64(r.imported_items);
  if (!r.failure_code.empty()) {
    w.Key("FailureCode");
    WriteString(w, r.failure_code);
    w.Key("FailureMessage");
    WriteString(w, r.failure_message);
  }
  w.EndObject();
}

std::string Described(const Services& s, const ImportRecord& r) {
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  w.Key("ImportTableDescription");
  WriteDescription(w, s, r);
  w.EndObject();
  return Finish(buf);
}

// Whether `arn` has an import ARN's shape, "arn:aws:dynamodb:…:table/<name>/import/<id>",
// with a valid table name and a non-empty id.
bool ImportArnOk(const std::string& arn) {
  if (arn.size() < 37 || arn.size() > 1024 || arn.rfind("arn:aws:dynamodb:", 0) != 0) return false;
  size_t table = arn.find(":table/");
  size_t import = arn.rfind("/import/");
  if (table == std::string::npos || import == std::string::npos || import <= table) return false;
  std::string name = arn.substr(table + 7, import - table - 7);
  if (name.size() < 3 || name.size() > 255) return false;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-' || c == '.';
    if (!ok) return false;
  }
  return import + 8 < arn.size();
}

// ListImports' NextToken: the hex of the last ARN returned, padded with zero bytes to a whole
// number of 16-digit groups (the shape's pattern is ([0-9a-f]{16})+, at least 112 long).
std::string EncodeToken(const std::string& arn) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (char c : arn) {
    out += kHex[static_cast<unsigned char>(c) >> 4];
    out += kHex[static_cast<unsigned char>(c) & 15];
  }
  while (out.size() < 112 || out.size() % 16 != 0) out += "00";
  return out;
}

std::optional<std::string> DecodeToken(const std::string& token) {
  if (token.size() < 112 || token.size() > 1024 || token.size() % 16 != 0) return std::nullopt;
  std::string out;
  for (size_t i = 0; i < token.size(); i += 2) {
    auto hex = [](char c) {
      return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    };
    int hi = hex(token[i]), lo = hex(token[i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out += static_cast<char>(hi * 16 + lo);
  }
  while (!out.empty() && out.back() == '\0') out.pop_back();
  if (!ImportArnOk(out)) return std::nullopt;
  return out;
}

}  // namespace

bool S3BucketNameOk(const std::string& b) {
  // S3BucketSource.S3Bucket's pattern: ^[a-z0-9A-Z]+[\.\-\w]*[a-z0-9A-Z]+$
  auto alnum = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  };
  if (b.size() < 2 || !alnum(b.front()) || !alnum(b.back())) return false;
  for (char c : b) {
    if (!alnum(c) && c != '.' && c != '-' && c != '_') return false;
  }
  // Never a path outside the bucket root.
  return b.find("..") == std::string::npos;
}

Result<std::string> ImportTable(const Services& s, const rapidjson::Value& req) {
  ASSIGN_OR_RETURN(imports, ImportsOf(s));
  ASSIGN_OR_RETURN(token, OptString(req, "ClientToken"));
  ASSIGN_OR_RETURN(source, OptObject(req, "S3BucketSource"));
  ASSIGN_OR_RETURN(format, OptString(req, "InputFormat"));
  ASSIGN_OR_RETURN(compression, OptString(req, "InputCompressionType"));
  ASSIGN_OR_RETURN(options, OptObject(req, "InputFormatOptions"));
  ASSIGN_OR_RETURN(creation, OptObject(req, "TableCreationParameters"));
  Constraints c;
  c.NotNull("clientToken", token.has_value());
  if (token && (token->empty() || token->find('$') != std::string::npos)) {
    c.Add("Value '" + *token +
          "' at 'clientToken' failed to satisfy constraint: Member must satisfy regular "
          "expression pattern: ^[^\\$]+$");
  }
  c.NotNull("s3BucketSource", source != nullptr);
  std::optional<std::string> bucket, prefix, owner;
  if (source) {
    ASSIGN_OR_RETURN(b, OptString(*source, "S3Bucket"));
    ASSIGN_OR_RETURN(p, OptString(*source, "S3KeyPrefix"));
    ASSIGN_OR_RETURN(o, OptString(*source, "S3BucketOwner"));
    bucket = b;
    prefix = p;
    owner = o;
    c.NotNull("s3BucketSource.s3Bucket", bucket.has_value());
    c.Length("s3BucketSource.s3Bucket", bucket, 0, 255);
    if (bucket && bucket->size() <= 255 && !S3BucketNameOk(*bucket)) {
      c.Add("Value '" + *bucket +
            "' at 's3BucketSource.s3Bucket' failed to satisfy constraint: Member must satisfy "
            "regular expression pattern: ^[a-z0-9A-Z]+[\\.\\-\\w]*[a-z0-9A-Z]+$");
    }
    c.Length("s3BucketSource.s3KeyPrefix", prefix, 0, 1024);
    if (owner && (owner->size() != 12 ||
                  owner->find_first_not_of("0123456789") != std::string::npos)) {
      c.Add("Value '" + *owner +
            "' at 's3BucketSource.s3BucketOwner' failed to satisfy constraint: Member must "
            "satisfy regular expression pattern: [0-9]{12}");
    }
  }
  c.NotNull("inputFormat", format.has_value());
  c.Enum("inputFormat", format, {"DYNAMODB_JSON", "ION", "CSV"});
  c.Enum("inputCompressionType", compression, {"GZIP", "ZSTD", "NONE"});
  c.NotNull("tableCreationParameters", creation != nullptr);
  backup::ImportSpec spec;
  if (options) {
    ASSIGN_OR_RETURN(csv, OptObject(*options, "Csv"));
    if (csv) {
      ASSIGN_OR_RETURN(delimiter, OptString(*csv, "Delimiter"));
      ASSIGN_OR_RETURN(header, OptArray(*csv, "HeaderList"));
      if (delimiter) {
        if (delimiter->size() != 1 || std::string(",;:|\t ").find((*delimiter)[0]) ==
                                          std::string::npos) {
          c.Add("Value '" + *delimiter +
                "' at 'inputFormatOptions.csv.delimiter' failed to satisfy constraint: Member "
                "must satisfy regular expression pattern: [,;:|\\t ]");
        } else {
          spec.csv_delimiter = (*delimiter)[0];
        }
      }
      if (header) {
        if (header->Empty() || header->Size() > 255) {
          c.Add("Value at 'inputFormatOptions.csv.headerList' failed to satisfy constraint: "
                "Member must have length less than or equal to 255, Member must have length "
                "greater than or equal to 1");
        }
        for (const auto& h : header->GetArray()) {
          if (!h.IsString() || h.GetStringLength() == 0 || h.GetStringLength() > 65536) {
            c.Add("Value at 'inputFormatOptions.csv.headerList' failed to satisfy constraint: "
                  "Member must satisfy constraint: [Member must have length less than or "
                  "equal to 65536, Member must have length greater than or equal to 1]");
            break;
          }
          spec.csv_header.emplace_back(h.GetString(), h.GetStringLength());
        }
      }
    }
  }
  if (!c.ok()) return c.ToError();
  if (options && *format != "CSV") {
    return Error::Validation(
        "One or more parameter values were invalid: InputFormatOptions can only be given "
        "with InputFormat CSV");
  }
  ASSIGN_OR_RETURN(table, DecodeNewTable(s, *creation));

  spec.bucket = *bucket;
  spec.prefix = prefix.value_or("");
  spec.bucket_owner = owner.value_or("");
  spec.format = *format == "ION"   ? backup::ImportFormat::kIon
                : *format == "CSV" ? backup::ImportFormat::kCsv
                                   : backup::ImportFormat::kDynamoDbJson;
  spec.compression = compression == "GZIP"   ? dataio::Compression::kGzip
                     : compression == "ZSTD" ? dataio::Compression::kZstd
                                             : dataio::Compression::kNone;
  spec.client_token = *token;
  spec.table_creation_json = JsonText(*creation);
  if (options) spec.format_options_json = JsonText(*options);
  const std::string table_arn = TableArn(s, table.name);
  ASSIGN_OR_RETURN(record, imports->Start(std::move(spec), std::move(table), table_arn));
  return Described(s, record);
}

Result<std::string> DescribeImport(const Services& s, const rapidjson::Value& req) {
  ASSIGN_OR_RETURN(imports, ImportsOf(s));
  ASSIGN_OR_RETURN(arn, OptString(req, "ImportArn"));
  Constraints c;
  c.NotNull("importArn", arn.has_value());
  c.Length("importArn", arn, 37, 1024);
  if (!c.ok()) return c.ToError();
  if (!ImportArnOk(*arn)) return Error::Validation("Invalid Import ARN: " + *arn);
  ASSIGN_OR_RETURN(record, imports->Find(*arn));
  return Described(s, record);
}

Result<std::string> ListImports(const Services& s, const rapidjson::Value& req) {
  ASSIGN_OR_RETURN(imports, ImportsOf(s));
  ASSIGN_OR_RETURN(table_arn, OptString(req, "TableArn"));
  ASSIGN_OR_RETURN(page_size, OptInt(req, "PageSize"));
  ASSIGN_OR_RETURN(next, OptString(req, "NextToken"));
  Constraints c;
  c.Min("pageSize", page_size, 1);
  c.Max("pageSize", page_size, 25);
  c.Length("tableArn", table_arn, 1, 1024);
  if (!c.ok()) return c.ToError();
  std::optional<std::string> after;
  if (next) {
    after = DecodeToken(*next);
    if (!after) return Error::Validation("Invalid NextToken");
  }
  const size_t limit = static_cast<size_t>(page_size.value_or(25));
  ASSIGN_OR_RETURN(all, imports->List());
  size_t start = 0;
  if (after) {
    auto it = std::find_if(all.begin(), all.end(),
                           [&](const ImportRecord& r) { return r.arn == *after; });
    start = it == all.end() ? all.size() : static_cast<size_t>(it - all.begin()) + 1;
  }
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  w.Key("ImportSummaryList");
  w.StartArray();
  size_t written = 0;
  std::string last;
  bool more = false;
  for (size_t i = start; i < all.size(); ++i) {
    const ImportRecord& r = all[i];
    if (table_arn && r.table_arn != *table_arn) continue;
    if (written == limit) {
      more = true;
      break;
    }
    w.StartObject();
    WriteImportHead(w, r);
    w.Key("S3BucketSource");
    WriteBucketSource(w, r.spec);
    w.Key("CloudWatchLogGroupArn");
    WriteString(w, LogGroupArn(s));
    w.Key("InputFormat");
    w.String(backup::ImportFormatName(r.spec.format));
    w.Key("StartTime");
    w.Double(static_cast<double>(r.start_ms) / 1000.0);
    if (r.end_ms > 0) {
      w.Key("EndTime");
      w.Double(static_cast<double>(r.end_ms) / 1000.0);
    }
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
