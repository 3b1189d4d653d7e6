#include "cli/data_cli.h"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <boost/json.hpp>
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
#include "cli/progress_bar.h"
#include "client/dynamodb_client.h"
#include "client/json.h"
#include "common/clock.h"
#include "model/arn.h"
#include "ops/item_ops.h"
#include "ops/table_ops.h"
#include "storage/store.h"

namespace ttlstore::cli {
namespace {

namespace json = boost::json;

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
  std::string storage;  // a PostgreSQL connection string (docs/storage.md)
  std::string export_dir;
  std::string table, bucket, prefix, format = "DYNAMODB_JSON", view;
  // Epoch seconds; NaN: not given.
  double export_time = NAN, from = NAN, to = NAN;
};

struct ImportFlags {
  RemoteFlags remote;
  std::string data_dir = "./ttlstore-data";
  std::string storage;  // a PostgreSQL connection string (docs/storage.md)
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

// The client of the server at --endpoint (http or https), signing as the flags say.
Result<client::ClientOptions> RemoteOptions(const RemoteFlags& f) {
  ASSIGN_OR_RETURN(endpoint, client::ParseEndpoint(f.endpoint));
  client::ClientOptions o;
  o.endpoint = std::move(endpoint);
  o.identity.access_key_id = f.access_key_id;
  o.identity.secret_access_key = f.secret_access_key;
  o.identity.region = f.region;
  // A command someone waits on: a few quick retries, not the replicator's patient ten.
  o.max_attempts = 3;
  return o;
}

// One call; the parsed response, or the service's "Type: message".
Result<json::value> CallJson(client::DynamoDbClient& c, const char* operation,
                             const json::object& request) {
  client::CallResult r = c.Call(operation, json::serialize(request));
  if (!r.ok()) return Error(ErrorCode::kInternal, r.Describe());
  return client::ParseJson(r.body);
}

// The text of member `key` of `envelope` in `doc`: a string as it is, a number written out;
// "" when absent.
std::string Text(const json::value& doc, const char* envelope, const char* key) {
  const json::value* outer = client::Member(doc, envelope);
  const json::value* v = outer ? client::Member(*outer, key) : nullptr;
  if (!v) return "";
  if (v->is_string()) return std::string(v->as_string());
  if (v->is_int64()) return std::to_string(v->as_int64());
  if (v->is_uint64()) return std::to_string(v->as_uint64());
  if (v->is_double()) return json::serialize(*v);
  return "";
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

// Polls `describe` until `envelope`.`status_member` is no longer IN_PROGRESS; the last
// response. Shows elapsed time while it waits (the service publishes counts only at the end).
Result<json::value> WaitForJob(client::DynamoDbClient& c, const RemoteFlags& f, const char* verb,
                               const char* describe, const json::object& request,
                               const char* envelope, const char* status_member) {
  auto start = std::chrono::steady_clock::now();
  for (;;) {
    ASSIGN_OR_RETURN(doc, CallJson(c, describe, request));
    if (Text(doc, envelope, status_member) != "IN_PROGRESS") {
      std::fprintf(stderr, "\n");
      return doc;
    }
    double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (waited > static_cast<double>(f.timeout_s)) {
      return Error(ErrorCode::kInternal,
                   "Timeout: still IN_PROGRESS after " + std::to_string(f.timeout_s) + " s");
    }
    std::fprintf(stderr, "\r%s: IN_PROGRESS %.1f s", verb, waited);
    std::fflush(stderr);
    std::this_thread::sleep_for(kPollInterval);
  }
}

// ---- export ------------------------------------------------------------------------------------

int ExportRemote(const ExportFlags& f) {
  auto options = RemoteOptions(f.remote);
  if (!options) return Fail("export", "--endpoint: " + options.error().message());
  client::DynamoDbClient c(std::move(*options));
  json::object req;
  req["TableArn"] = TableArnOf(f.table);
  req["S3Bucket"] = f.bucket;
  req["ExportFormat"] = f.format;
  if (!f.prefix.empty()) req["S3Prefix"] = f.prefix;
  if (Given(f.from)) {
    req["ExportType"] = "INCREMENTAL_EXPORT";
    json::object spec;
    spec["ExportFromTime"] = f.from;
    if (Given(f.to)) spec["ExportToTime"] = f.to;
    if (!f.view.empty()) spec["ExportViewType"] = f.view;
    req["IncrementalExportSpecification"] = std::move(spec);
  } else if (Given(f.export_time)) {
    req["ExportTime"] = f.export_time;
  }
  auto started = CallJson(c, "ExportTableToPointInTime", req);
  if (!started) return Fail("export", started.error().message());
  std::string arn = Text(*started, "ExportDescription", "ExportArn");
  json::object describe;
  describe["ExportArn"] = arn;
  auto done = WaitForJob(c, f.remote, "export", "DescribeExport", describe, "ExportDescription",
                         "ExportStatus");
  if (!done) return Fail("export", done.error().message());
  if (Text(*done, "ExportDescription", "ExportStatus") != "COMPLETED") {
    return Fail("export", arn + " FAILED: " + Text(*done, "ExportDescription", "FailureCode") +
                              ": " + Text(*done, "ExportDescription", "FailureMessage"));
  }
  std::string items = Text(*done, "ExportDescription", "ItemCount");
  std::fprintf(stderr, "export %s items\n", items.empty() ? "0" : items.c_str());
  std::printf("%s\n%s\n", arn.c_str(), Text(*done, "ExportDescription", "ExportManifest").c_str());
  return 0;
}

int ExportLocal(const ExportFlags& f, const DataCodecs& codecs) {
  if (f.storage.empty() && !std::filesystem::is_directory(f.data_dir)) {
    return Fail("export", "no data dir at " + f.data_dir);
  }
  storage::StoreOptions options;
  options.path = f.data_dir;
  options.storage = f.storage;
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
json::object CreationJson(const std::string& table, const model::KeyElement& hash,
                          const std::optional<model::KeyElement>& range) {
  json::array defs, keys;
  auto add = [&](const model::KeyElement& k, const char* key_type) {
    defs.push_back(json::object{{"AttributeName", k.name}, {"AttributeType", TypeLetter(k.type)}});
    keys.push_back(json::object{{"AttributeName", k.name}, {"KeyType", key_type}});
  };
  add(hash, "HASH");
  if (range) add(*range, "RANGE");
  return json::object{{"TableName", table},
                      {"AttributeDefinitions", std::move(defs)},
                      {"KeySchema", std::move(keys)},
                      {"BillingMode", "PAY_PER_REQUEST"}};
}

int ImportRemote(const ImportFlags& f, const json::object& creation) {
  auto options = RemoteOptions(f.remote);
  if (!options) return Fail("import", "--endpoint: " + options.error().message());
  client::DynamoDbClient c(std::move(*options));
  json::object source;
  source["S3Bucket"] = f.bucket;
  if (!f.prefix.empty()) source["S3KeyPrefix"] = f.prefix;
  json::object req;
  req["S3BucketSource"] = std::move(source);
  // ClientToken is required on the wire (the SDKs fill one in).
  req["ClientToken"] = "ttlstore-import-" + backup::NewArnId(SystemClock().NowMs());
  req["InputFormat"] = f.format;
  req["InputCompressionType"] = f.compression;
  req["TableCreationParameters"] = creation;
  auto started = CallJson(c, "ImportTable", req);
  if (!started) return Fail("import", started.error().message());
  std::string arn = Text(*started, "ImportTableDescription", "ImportArn");
  json::object describe;
  describe["ImportArn"] = arn;
  auto done = WaitForJob(c, f.remote, "import", "DescribeImport", describe,
                         "ImportTableDescription", "ImportStatus");
  if (!done) return Fail("import", done.error().message());
  auto text = [&](const char* key) { return Text(*done, "ImportTableDescription", key); };
  std::string items = text("ImportedItemCount");
  if (items.empty()) items = "0";
  if (text("ImportStatus") != "COMPLETED") {
    std::string errors = text("ErrorCount");
    return Fail("import", arn + " FAILED: " + text("FailureCode") + ": " +
                              text("FailureMessage") + " (" + items + " items imported, " +
                              (errors.empty() ? "0" : errors) + " errors)");
  }
  std::fprintf(stderr, "import %s items\n", items.c_str());
  std::printf("%s\n", arn.c_str());
  return 0;
}

int ImportLocal(const ImportFlags& f, const model::TableDescriptor& spec_in,
                const json::object& creation, const DataCodecs& codecs) {
  if (f.storage.empty() && !std::filesystem::is_directory(f.data_dir)) {
    return Fail("import", "no data dir at " + f.data_dir);
  }
  storage::StoreOptions options;
  options.path = f.data_dir;
  options.storage = f.storage;
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
  spec.table_creation_json = json::serialize(creation);
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
  exp->add_option("--storage", ef->storage,
                  "Read the PostgreSQL database of this connection string (docs/storage.md)");
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
  imp->add_option("--storage", imf->storage,
                  "Import into the PostgreSQL database of this connection string");
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
    const json::object creation = CreationJson(imf->table, hash, range);
    *exit_code = imf->remote.endpoint.empty() ? ImportLocal(*imf, t, creation, *shared)
                                              : ImportRemote(*imf, creation);
  });
}

}  // namespace ttlstore::cli
