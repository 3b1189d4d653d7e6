#include "cli/data_cli.h"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>

#include "backup/backups.h"
#include "backup/pitr_window.h"
#include "cli/dynamodb_call.h"
#include "cli/progress_bar.h"
#include "common/clock.h"
#include "model/arn.h"
#include "ops/item_ops.h"
#include "ops/table_ops.h"
#include "storage/store.h"

namespace ttlstore::cli {
namespace {

// The ARN a ttlstore server gives `table` (it always answers as the default region and account).
std::string TableArnOf(const std::string& table) {
  return model::TableArn(model::kDefaultRegion, model::kDefaultAccountId, table);
}

// How often a running job is polled through --endpoint.
constexpr auto kPollInterval = std::chrono::milliseconds(250);

struct RemoteFlags {
  std::string endpoint;
  std::string region = "us-east-1";
  std::string access_key_id = "local";
  std::string secret_access_key = "local";
  int64_t timeout_s = 3600;
};

struct ExportFlags {
  RemoteFlags remote;
  std::string data_dir = "./ttlstore-data";
  std::string export_dir;
  std::string table, bucket, prefix, format = "DYNAMODB_JSON", view;
  // Epoch seconds; NaN: not given.
  double export_time = NAN, from = NAN, to = NAN;
};

struct ImportFlags {
  RemoteFlags remote;
  std::string data_dir = "./ttlstore-data";
  std::string export_dir;
  std::string table, bucket, prefix, format = "DYNAMODB_JSON", compression = "NONE";
  std::string hash_key, range_key;
};

int Fail(const char* command, const std::string& message) {
  std::fprintf(stderr, "ttlstore %s: %s\n", command, message.c_str());
  return 1;
}

bool Given(double seconds) { return !std::isnan(seconds); }

int64_t Ms(double seconds) { return std::llround(seconds * 1000.0); }

std::string SecondsText(double seconds) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.3f", seconds);
  return buf;
}

bool SetRemote(const RemoteFlags& f, DynamoDbEndpoint* e) {
  e->region = f.region;
  e->access_key_id = f.access_key_id;
  e->secret_access_key = f.secret_access_key;
  return e->SetUrl(f.endpoint);
}

void AddRemoteOptions(CLI::App* cmd, RemoteFlags& f) {
  if (const char* v = std::getenv("AWS_ACCESS_KEY_ID")) f.access_key_id = v;
  if (const char* v = std::getenv("AWS_SECRET_ACCESS_KEY")) f.secret_access_key = v;
  if (const char* v = std::getenv("AWS_DEFAULT_REGION")) f.region = v;
  cmd->add_option("--endpoint", f.endpoint,
                  "Work through the server at this URL (http://127.0.0.1:8000) instead of on "
                  "--data-dir");
  cmd->add_option("--region", f.region, "Region to sign for with --endpoint (default: "
                                        "$AWS_DEFAULT_REGION or us-east-1)");
  cmd->add_option("--access-key-id", f.access_key_id,
                  "Access key with --endpoint (default: $AWS_ACCESS_KEY_ID or local)");
  cmd->add_option("--secret-access-key", f.secret_access_key,
                  "Secret key with --endpoint (default: $AWS_SECRET_ACCESS_KEY or local)");
  cmd->add_option("--timeout-seconds", f.timeout_s,
                  "With --endpoint: give up waiting for the job after this long (default: 3600)")
      ->check(CLI::Range(int64_t{1}, int64_t{7 * 86400}));
}

// Polls `describe` until `status_member` is no longer IN_PROGRESS. The reply's body, or an error
// reply. Shows elapsed time while it waits (the service publishes counts only at the end).
DynamoDbReply WaitForJob(const DynamoDbEndpoint& e, const RemoteFlags& f, const char* verb,
                         const std::string& describe, const std::string& body,
                         const char* status_member) {
  auto start = std::chrono::steady_clock::now();
  for (;;) {
    DynamoDbReply r = CallDynamoDb(e, describe, body);
    if (!r.ok) return r;
    if (JsonMemberText(r.body, status_member).value_or("") != "IN_PROGRESS") {
      std::fprintf(stderr, "\n");
      return r;
    }
    double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (waited > static_cast<double>(f.timeout_s)) {
      r.ok = false;
      r.error_type = "Timeout";
      r.message = "still IN_PROGRESS after " + std::to_string(f.timeout_s) + " s";
      return r;
    }
    std::fprintf(stderr, "\r%s: IN_PROGRESS %.1f s", verb, waited);
    std::fflush(stderr);
    std::this_thread::sleep_for(kPollInterval);
  }
}

// ---- export ------------------------------------------------------------------------------------

int ExportRemote(const ExportFlags& f) {
  DynamoDbEndpoint e;
  if (!SetRemote(f.remote, &e)) return Fail("export", "--endpoint must be http://host[:port]");
  std::string body = "{\"TableArn\":" + JsonQuote(TableArnOf(f.table)) +
                     ",\"S3Bucket\":" + JsonQuote(f.bucket) + ",\"ExportFormat\":" +
                     JsonQuote(f.format);
  if (!f.prefix.empty()) body += ",\"S3Prefix\":" + JsonQuote(f.prefix);
  if (Given(f.from)) {
    body += ",\"ExportType\":\"INCREMENTAL_EXPORT\",\"IncrementalExportSpecification\":{"
            "\"ExportFromTime\":" + SecondsText(f.from);
    if (Given(f.to)) body += ",\"ExportToTime\":" + SecondsText(f.to);
    if (!f.view.empty()) body += ",\"ExportViewType\":" + JsonQuote(f.view);
    body += "}";
  } else if (Given(f.export_time)) {
    body += ",\"ExportTime\":" + SecondsText(f.export_time);
  }
  body += "}";
  DynamoDbReply started = CallDynamoDb(e, "ExportTableToPointInTime", body);
  if (!started.ok) return Fail("export", started.error_type + ": " + started.message);
  std::string arn = JsonMemberText(started.body, "ExportArn").value_or("");
  DynamoDbReply done = WaitForJob(e, f.remote, "export", "DescribeExport",
                                  "{\"ExportArn\":" + JsonQuote(arn) + "}", "ExportStatus");
  if (!done.ok) return Fail("export", done.error_type + ": " + done.message);
  if (JsonMemberText(done.body, "ExportStatus") != "COMPLETED") {
    return Fail("export", arn + " FAILED: " +
                              JsonMemberText(done.body, "FailureCode").value_or("") + ": " +
                              JsonMemberText(done.body, "FailureMessage").value_or(""));
  }
  std::string items = JsonMemberText(done.body, "ItemCount").value_or("0");
  std::fprintf(stderr, "export %s items\n", items.c_str());
  std::printf("%s\n%s\n", arn.c_str(), JsonMemberText(done.body, "ExportManifest").value_or("").c_str());
  return 0;
}

int ExportLocal(const ExportFlags& f, const DataCodecs& codecs) {
  if (!std::filesystem::is_directory(f.data_dir)) return Fail("export", "no data dir at " + f.data_dir);
  storage::StoreOptions options;
  options.path = f.data_dir;
  options.read_only = true;
  auto store = storage::Store::Open(options);
  if (!store) return Fail("export", store.error().message());
  SystemClock clock;
  ops::TableCatalog catalog(**store, clock);
  if (Status s = catalog.Load(); !s) return Fail("export", s.error().message());
  ops::TablePtr table = catalog.Find(f.table);
  if (!table) return Fail("export", "Table not found: " + f.table);
  const int64_t now = clock.NowMs();
  backup::ExportRecord r;
  r.start_ms = now;
  r.spec.table_arn = TableArnOf(table->name);
  r.arn = r.spec.table_arn + "/export/" + backup::NewArnId(now);
  r.table_id = table->uuid;
  r.spec.bucket = f.bucket;
  r.spec.prefix = f.prefix;
  r.spec.format = f.format == "ION" ? backup::ExportFormat::kIon : backup::ExportFormat::kDynamoDbJson;
  r.spec.export_ms = now;
  int64_t log_from = now + 1;
  int64_t point = now;
  if (Given(f.from) || Given(f.export_time)) {
    if (!table->pitr) {
      return Fail("export", "Point in time recovery is not enabled for table '" + f.table +
                                "': only an export of the table as it is now is possible");
    }
    backup::RestorableWindow w =
        backup::WindowOf(*table->pitr, now, backup::kMaxRecoveryDays * backup::kDayMs);
    if (Given(f.from)) {
      r.spec.type = backup::ExportType::kIncremental;
      r.spec.from_ms = Ms(f.from);
      r.spec.to_ms = Given(f.to) ? Ms(f.to) : now;
      r.spec.view = f.view == "NEW_IMAGE" ? backup::ExportView::kNewImage
                                          : backup::ExportView::kNewAndOldImages;
      if (r.spec.from_ms < w.earliest_ms || r.spec.to_ms > now || r.spec.from_ms >= r.spec.to_ms) {
        return Fail("export", "the period must lie in the table's recovery window [" +
                                  backup::IsoSeconds(w.earliest_ms) + ", " +
                                  backup::IsoSeconds(now) + "] and --from must be before --to");
      }
      log_from = r.spec.from_ms;
      point = r.spec.to_ms;
    } else {
      r.spec.export_ms = Ms(f.export_time);
      if (r.spec.export_ms < w.earliest_ms || r.spec.export_ms > now) {
        return Fail("export", "--export-time must lie in the table's recovery window [" +
                                  backup::IsoSeconds(w.earliest_ms) + ", " +
                                  backup::IsoSeconds(now) + "]");
      }
      log_from = r.spec.export_ms + 1;
      point = r.spec.export_ms;
    }
  }
  // A server may be writing: every write dated at or before the point must have committed.
  int64_t wait_ms = point + backup::kCommitLagMs - clock.NowMs();
  if (wait_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(wait_ms));
  backup::PitrViews views = backup::OpenPitrViews(**store, table->id, log_from);
  auto stats = (*store)->GetStats(table->id);
  ProgressBar bar("export", r.spec.type == backup::ExportType::kFull && stats ? stats->item_count : 0);
  std::atomic<bool> cancel{false};
  const std::string bucket_root = f.export_dir.empty() ? f.data_dir + "/s3" : f.export_dir;
  auto outcome = backup::WriteExportFiles(*table, views, r, bucket_root, "000000000000",
                                          codecs.export_lines, clock, cancel,
                                          [&bar](int64_t n) { bar.Update(n); });
  if (!outcome) return Fail("export", outcome.error().message());
  if (outcome->failure_code == "S3NoSuchBucket") {
    return Fail("export", "S3NoSuchBucket: the bucket's folder " + bucket_root + "/" + f.bucket +
                              " does not exist");
  }
  if (!outcome->failure_code.empty()) {
    return Fail("export", outcome->failure_code + ": the prefix leaves the bucket's folder");
  }
  bar.Done(outcome->item_count);
  std::printf("%s\n%s\n", r.arn.c_str(), (bucket_root + "/" + f.bucket + "/" + outcome->manifest_key).c_str());
  return 0;
}

// ---- import ------------------------------------------------------------------------------------

// "name:S" into a key element; false if malformed.
bool ParseKeyFlag(const std::string& flag, model::KeyElement* out) {
  size_t colon = flag.rfind(':');
  if (colon == std::string::npos || colon == 0) return false;
  std::string type = flag.substr(colon + 1);
  out->name = flag.substr(0, colon);
  if (type == "S") out->type = model::ValueType::kS;
  else if (type == "N") out->type = model::ValueType::kN;
  else if (type == "B") out->type = model::ValueType::kB;
  else return false;
  return true;
}

const char* TypeLetter(model::ValueType t) {
  return t == model::ValueType::kN ? "N" : t == model::ValueType::kB ? "B" : "S";
}

// TableCreationParameters as JSON (what the API takes and DescribeImport echoes).
std::string CreationJson(const std::string& table, const model::KeyElement& hash,
                         const std::optional<model::KeyElement>& range) {
  std::string defs = "{\"AttributeName\":" + JsonQuote(hash.name) +
                     ",\"AttributeType\":\"" + TypeLetter(hash.type) + "\"}";
  std::string keys = "{\"AttributeName\":" + JsonQuote(hash.name) + ",\"KeyType\":\"HASH\"}";
  if (range) {
    defs += ",{\"AttributeName\":" + JsonQuote(range->name) + ",\"AttributeType\":\"" +
            TypeLetter(range->type) + "\"}";
    keys += ",{\"AttributeName\":" + JsonQuote(range->name) + ",\"KeyType\":\"RANGE\"}";
  }
  return "{\"TableName\":" + JsonQuote(table) + ",\"AttributeDefinitions\":[" + defs +
         "],\"KeySchema\":[" + keys + "],\"BillingMode\":\"PAY_PER_REQUEST\"}";
}

int ImportRemote(const ImportFlags& f, const std::string& creation) {
  DynamoDbEndpoint e;
  if (!SetRemote(f.remote, &e)) return Fail("import", "--endpoint must be http://host[:port]");
  std::string body = "{\"S3BucketSource\":{\"S3Bucket\":" + JsonQuote(f.bucket);
  if (!f.prefix.empty()) body += ",\"S3KeyPrefix\":" + JsonQuote(f.prefix);
  // ClientToken is required on the wire (the SDKs fill one in).
  body += "},\"ClientToken\":" + JsonQuote("ttlstore-import-" + backup::NewArnId(SystemClock().NowMs()));
  body += ",\"InputFormat\":" + JsonQuote(f.format) + ",\"InputCompressionType\":" +
          JsonQuote(f.compression) + ",\"TableCreationParameters\":" + creation + "}";
  DynamoDbReply started = CallDynamoDb(e, "ImportTable", body);
  if (!started.ok) return Fail("import", started.error_type + ": " + started.message);
  std::string arn = JsonMemberText(started.body, "ImportArn").value_or("");
  DynamoDbReply done = WaitForJob(e, f.remote, "import", "DescribeImport",
                                  "{\"ImportArn\":" + JsonQuote(arn) + "}", "ImportStatus");
  if (!done.ok) return Fail("import", done.error_type + ": " + done.message);
  std::string items = JsonMemberText(done.body, "ImportedItemCount").value_or("0");
  if (JsonMemberText(done.body, "ImportStatus") != "COMPLETED") {
    return Fail("import", arn + " FAILED: " +
                              JsonMemberText(done.body, "FailureCode").value_or("") + ": " +
                              JsonMemberText(done.body, "FailureMessage").value_or("") + " (" +
                              items + " items imported, " +
                              JsonMemberText(done.body, "ErrorCount").value_or("0") + " errors)");
  }
  std::fprintf(stderr, "import %s items\n", items.c_str());
  std::printf("%s\n", arn.c_str());
  return 0;
}

int ImportLocal(const ImportFlags& f, const model::TableDescriptor& spec_in,
                const std::string& creation, const DataCodecs& codecs) {
  if (!std::filesystem::is_directory(f.data_dir)) return Fail("import", "no data dir at " + f.data_dir);
  storage::StoreOptions options;
  options.path = f.data_dir;
  auto store = storage::Store::Open(options);
  if (!store) {
    return Fail("import", store.error().message() +
                              " (is a server running on it? Stop it first, or import through it "
                              "with --endpoint)");
  }
  // The import's log lines (one per bad line, as the service's CloudWatch log) go to stderr:
  // stdout carries only the ImportArn.
  spdlog::set_default_logger(spdlog::stderr_logger_mt("import"));
  SystemClock clock;
  ops::TableCatalog catalog(**store, clock);
  if (Status s = catalog.Load(); !s) return Fail("import", s.error().message());
  backup::DropAbandonedRestores(catalog);
  ops::ItemOps items(**store);
  const std::string bucket_root = f.export_dir.empty() ? f.data_dir + "/s3" : f.export_dir;
  backup::Imports imports(**store, catalog, items, clock, f.data_dir + "/imports", bucket_root,
                          codecs.json_lines);
  if (Status s = imports.Load(); !s) return Fail("import", s.error().message());
  backup::ImportSpec spec;
  spec.bucket = f.bucket;
  spec.prefix = f.prefix;
  spec.format = f.format == "ION"   ? backup::ImportFormat::kIon
                : f.format == "CSV" ? backup::ImportFormat::kCsv
                                    : backup::ImportFormat::kDynamoDbJson;
  spec.compression = f.compression == "GZIP"   ? dataio::Compression::kGzip
                     : f.compression == "ZSTD" ? dataio::Compression::kZstd
                                               : dataio::Compression::kNone;
  spec.client_token = "ttlstore-import-" + backup::NewArnId(clock.NowMs());
  spec.table_creation_json = creation;
  auto started = imports.Start(std::move(spec), spec_in, TableArnOf(f.table));
  if (!started) return Fail("import", started.error().message());
  ProgressBar bar("import", 0);
  std::thread waiter([&imports] { imports.WaitIdle(); });
  while (true) {
    auto r = imports.Find(started->arn);
    if (r && r->status != backup::ImportStatus::kInProgress) break;
    bar.Update(imports.items_written());
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  waiter.join();
  auto done = imports.Find(started->arn);
  if (!done) return Fail("import", done.error().message());
  bar.Done(done->imported_items);
  if (done->status != backup::ImportStatus::kCompleted) {
    return Fail("import", done->failure_code + ": " + done->failure_message + " (" +
                              std::to_string(done->imported_items) + " items imported, " +
                              std::to_string(done->errors) + " errors; the server log format "
                              "lines above name each)");
  }
  std::printf("%s\n", done->arn.c_str());
  return 0;
}

}  // namespace

void AddDataCommands(CLI::App& app, int* exit_code, DataCodecs codecs) {
  auto shared = std::make_shared<DataCodecs>(std::move(codecs));

  auto ef = std::make_shared<ExportFlags>();
  CLI::App* exp = app.add_subcommand(
      "export", "Export a table to S3's layout (as ExportTableToPointInTime) under a folder that "
                "stands for S3, with a progress bar. On --data-dir it reads a read-only view "
                "(works while a server runs); with --endpoint it asks that server.");
  exp->add_option("-t,--table", ef->table, "Table to export")->required();
  exp->add_option("--bucket", ef->bucket, "S3Bucket: the folder <export-dir>/<bucket>, which "
                                          "must exist")->required();
  exp->add_option("--prefix", ef->prefix, "S3Prefix");
  exp->add_option("--format", ef->format, "DYNAMODB_JSON (default) or ION")
      ->check(CLI::IsMember({"DYNAMODB_JSON", "ION"}));
  exp->add_option("--export-time", ef->export_time,
                  "Epoch seconds: the table as it was then (needs PITR; default: now)");
  exp->add_option("--from", ef->from,
                  "Epoch seconds: an INCREMENTAL_EXPORT of the writes from then (needs PITR)");
  exp->add_option("--to", ef->to, "Epoch seconds: the incremental period's end (default: now)")
      ->needs("--from");
  exp->add_option("--view", ef->view, "NEW_AND_OLD_IMAGES (default) or NEW_IMAGE")
      ->check(CLI::IsMember({"NEW_IMAGE", "NEW_AND_OLD_IMAGES"}))
      ->needs("--from");
  exp->add_option("--data-dir", ef->data_dir, "The data dir (default: ./ttlstore-data)");
  exp->add_option("--export-dir", ef->export_dir, "The folder standing for S3 (default: "
                                                  "<data-dir>/s3)");
  AddRemoteOptions(exp, ef->remote);
  exp->callback([ef, shared, exit_code] {
    if (Given(ef->export_time) && Given(ef->from)) {
      *exit_code = Fail("export", "--export-time and --from exclude each other");
      return;
    }
    *exit_code = ef->remote.endpoint.empty() ? ExportLocal(*ef, *shared) : ExportRemote(*ef);
  });

  auto imf = std::make_shared<ImportFlags>();
  CLI::App* imp = app.add_subcommand(
      "import", "Import files in S3's export layout (as ImportTable) into a new table, with a "
                "progress bar. On --data-dir the server must be stopped; with --endpoint it asks "
                "that server.");
  imp->add_option("-t,--table", imf->table, "Name of the new table")->required();
  imp->add_option("--bucket", imf->bucket, "S3Bucket: the folder <export-dir>/<bucket>")->required();
  imp->add_option("--prefix", imf->prefix,
                  "S3KeyPrefix: the files whose key starts with it (an export's data files: "
                  "<prefix>/AWSDynamoDB/<id>/data/)");
  imp->add_option("--format", imf->format, "DYNAMODB_JSON (default), ION or CSV")
      ->check(CLI::IsMember({"DYNAMODB_JSON", "ION", "CSV"}));
  imp->add_option("--compression", imf->compression, "NONE (default), GZIP or ZSTD")
      ->check(CLI::IsMember({"NONE", "GZIP", "ZSTD"}));
  imp->add_option("--hash-key", imf->hash_key, "Partition key NAME:TYPE (S, N or B)")->required();
  imp->add_option("--range-key", imf->range_key, "Sort key NAME:TYPE");
  imp->add_option("--data-dir", imf->data_dir, "The data dir (default: ./ttlstore-data)");
  imp->add_option("--export-dir", imf->export_dir, "The folder standing for S3 (default: "
                                                   "<data-dir>/s3)");
  AddRemoteOptions(imp, imf->remote);
  imp->callback([imf, shared, exit_code] {
    model::TableDescriptor t;
    t.name = imf->table;
    model::KeyElement hash;
    if (!ParseKeyFlag(imf->hash_key, &hash)) {
      *exit_code = Fail("import", "--hash-key must be NAME:S, NAME:N or NAME:B");
      return;
    }
    std::optional<model::KeyElement> range;
    if (!imf->range_key.empty()) {
      range.emplace();
      if (!ParseKeyFlag(imf->range_key, &*range)) {
        *exit_code = Fail("import", "--range-key must be NAME:S, NAME:N or NAME:B");
        return;
      }
    }
    t.key.hash = hash;
    t.key.range = range;
    t.attribute_definitions.push_back(hash);
    if (range) t.attribute_definitions.push_back(*range);
    t.billing_mode = model::BillingMode::kPayPerRequest;
    const std::string creation = CreationJson(imf->table, hash, range);
    *exit_code = imf->remote.endpoint.empty() ? ImportLocal(*imf, t, creation, *shared)
                                              : ImportRemote(*imf, creation);
  });
}

}  // namespace ttlstore::cli
