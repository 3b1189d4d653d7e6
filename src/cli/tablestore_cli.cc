#include "cli/tablestore_cli.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "cli/ots_client.h"
#include "tablestore/search.pb.h"
#include "tablestore/tablestore.pb.h"

namespace ttlstore::cli {
namespace {

struct CommonFlags {
  std::string endpoint = "http://127.0.0.1:8000";
  std::string access_key_id;
  std::string access_key_secret;
  std::string instance = "ttlstore";
  std::string table;
};

struct AlterFlags {
  std::optional<int32_t> ttl;
  std::optional<int32_t> max_versions;
  std::optional<int64_t> deviation;
  std::optional<std::string> allow_update;
  std::optional<std::string> search_index;  // with --ttl: that search index's TTL instead
};

void AddCommon(CLI::App* cmd, CommonFlags& f) {
  cmd->add_option("-t,--table", f.table, "Table name")->required();
  cmd->add_option("--endpoint", f.endpoint, "Server URL (default: http://127.0.0.1:8000)");
  cmd->add_option("--access-key-id", f.access_key_id,
                  "Access key id (default: $TTLSTORE_ACCESS_KEY_ID, else 'local')");
  cmd->add_option("--access-key-secret", f.access_key_secret,
                  "Access key secret (default: $TTLSTORE_ACCESS_KEY_SECRET, else 'local')");
  cmd->add_option("--instance", f.instance, "Instance name (default: ttlstore)");
}

std::optional<OtsEndpoint> EndpointOf(const CommonFlags& f) {
  OtsEndpoint e;
  if (!e.SetUrl(f.endpoint)) {
    std::fprintf(stderr, "ttlstore: --endpoint must look like http://host:port, not %s\n",
                 f.endpoint.c_str());
    return std::nullopt;
  }
  auto env = [](const char* name, const char* fallback) {
    const char* v = std::getenv(name);
    return std::string(v && *v ? v : fallback);
  };
  e.access_key_id = f.access_key_id.empty() ? env("TTLSTORE_ACCESS_KEY_ID", "local")
                                            : f.access_key_id;
  e.access_key_secret = f.access_key_secret.empty()
                            ? env("TTLSTORE_ACCESS_KEY_SECRET", "local")
                            : f.access_key_secret;
  e.instance = f.instance;
  return e;
}

int Fail(const OtsCallResult& r) {
  if (r.error.http_status == 0) {
    std::fprintf(stderr, "ttlstore: %s\n", r.error.message.c_str());
  } else {
    std::fprintf(stderr, "ttlstore: %s (HTTP %d): %s\n", r.error.code.c_str(),
                 r.error.http_status, r.error.message.c_str());
  }
  return 1;
}

void PrintOptions(const otspb::TableOptions& o) {
  std::printf("time_to_live: %d%s\n", o.time_to_live(),
              o.time_to_live() == -1 ? " (never expires)" : " seconds");
  std::printf("max_versions: %d\n", o.max_versions());
  std::printf("max_time_deviation: %lld seconds\n",
              static_cast<long long>(o.deviation_cell_version_in_sec()));
  std::printf("allow_update: %s\n", o.allow_update() ? "true" : "false");
}

const char* PkTypeName(otspb::PrimaryKeyType t) {
  switch (t) {
    case otspb::INTEGER: return "INTEGER";
    case otspb::STRING: return "STRING";
    case otspb::BINARY: return "BINARY";
  }
  return "?";
}

// Describe's search-index lines: each index's TTL, build phase and row count.
int DescribeSearchIndexes(const OtsEndpoint& endpoint, const std::string& table) {
  otssearchpb::ListSearchIndexRequest list;
  list.set_table_name(table);
  auto r = CallOts(endpoint, "ListSearchIndex", list.SerializeAsString());
  if (!r.ok) return Fail(r);
  otssearchpb::ListSearchIndexResponse indices;
  if (!indices.ParsePartialFromString(r.body)) {
    std::fprintf(stderr, "ttlstore: the server's ListSearchIndex answer does not parse\n");
    return 1;
  }
  for (const auto& info : indices.indices()) {
    otssearchpb::DescribeSearchIndexRequest req;
    req.set_table_name(table);
    req.set_index_name(info.index_name());
    auto d = CallOts(endpoint, "DescribeSearchIndex", req.SerializeAsString());
    if (!d.ok) return Fail(d);
    otssearchpb::DescribeSearchIndexResponse resp;
    if (!resp.ParsePartialFromString(d.body)) {
      std::fprintf(stderr, "ttlstore: the server's DescribeSearchIndex answer does not parse\n");
      return 1;
    }
    std::printf("search index: %s time_to_live: %d%s (%s, %lld rows) fields:",
                info.index_name().c_str(), resp.time_to_live(),
                resp.time_to_live() == -1 ? " (never expires)" : " seconds",
                resp.sync_stat().sync_phase() == otssearchpb::FULL ? "building" : "ready",
                static_cast<long long>(resp.metering_info().row_count()));
    for (const auto& field : resp.schema().field_schemas()) {
      std::printf(" %s", field.field_name().c_str());
    }
    const auto& routing = resp.schema().index_setting().routing_fields();
    for (int i = 0; i < routing.size(); ++i) {
      std::printf("%s%s", i == 0 ? " routing_fields: " : ",", routing.Get(i).c_str());
    }
    std::printf("\n");
  }
  return 0;
}

int Describe(const CommonFlags& f) {
  auto endpoint = EndpointOf(f);
  if (!endpoint) return 2;
  otspb::DescribeTableRequest req;
  req.set_table_name(f.table);
  auto r = CallOts(*endpoint, "DescribeTable", req.SerializeAsString());
  if (!r.ok) return Fail(r);
  otspb::DescribeTableResponse resp;
  if (!resp.ParsePartialFromString(r.body)) {
    std::fprintf(stderr, "ttlstore: the server's DescribeTable answer does not parse\n");
    return 1;
  }
  std::printf("table: %s\n", resp.table_meta().table_name().c_str());
  std::printf("status: %s\n", resp.table_status() == otspb::ACTIVE ? "ACTIVE" : "NOT ACTIVE");
  std::printf("primary key:");
  for (const auto& pk : resp.table_meta().primary_key()) {
    std::printf(" %s (%s%s)", pk.name().c_str(), PkTypeName(pk.type()),
                pk.has_option() && pk.option() == otspb::AUTO_INCREMENT ? ", AUTO_INCREMENT" : "");
  }
  std::printf("\n");
  PrintOptions(resp.table_options());
  const auto& cu = resp.reserved_throughput_details().capacity_unit();
  std::printf("reserved throughput: read %d, write %d\n", cu.read(), cu.write());
  for (const auto& dc : resp.table_meta().defined_column()) {
    std::printf("defined column: %s\n", dc.name().c_str());
  }
  for (const auto& ix : resp.index_metas()) {
    std::printf("index: %s (%s, %s) primary key:", ix.name().c_str(),
                ix.index_type() == 1 ? "local" : "global",
                ix.index_sync_phase() == 1 ? "building" : "ready");
    for (const auto& c : ix.primary_key()) std::printf(" %s", c.c_str());
    std::printf(" defined columns:");
    for (const auto& c : ix.defined_column()) std::printf(" %s", c.c_str());
    std::printf("\n");
  }
  return DescribeSearchIndexes(*endpoint, f.table);
}

void PrintSearchIndexTtl(const std::string& name, int32_t ttl) {
  std::printf("search index: %s time_to_live: %d%s\n", name.c_str(), ttl,
              ttl == -1 ? " (never expires)" : " seconds");
}

// Alter's --search-index: UpdateSearchIndex with the new TTL (T11, T13).
int AlterSearchIndex(const OtsEndpoint& endpoint, const CommonFlags& f, const AlterFlags& a) {
  if (!a.ttl || a.max_versions || a.deviation || a.allow_update) {
    std::fprintf(stderr, "ttlstore alter: --search-index takes --ttl and nothing else\n");
    return 2;
  }
  otssearchpb::UpdateSearchIndexRequest req;
  req.set_table_name(f.table);
  req.set_index_name(*a.search_index);
  req.set_time_to_live(*a.ttl);
  auto r = CallOts(endpoint, "UpdateSearchIndex", req.SerializeAsString());
  if (!r.ok) return Fail(r);
  std::printf("table: %s\n", f.table.c_str());
  PrintSearchIndexTtl(*a.search_index, *a.ttl);
  return 0;
}

int Alter(const CommonFlags& f, const AlterFlags& a) {
  auto endpoint = EndpointOf(f);
  if (!endpoint) return 2;
  if (a.search_index) return AlterSearchIndex(*endpoint, f, a);
  otspb::UpdateTableRequest req;
  req.set_table_name(f.table);
  auto* o = req.mutable_table_options();
  if (a.ttl) o->set_time_to_live(*a.ttl);
  if (a.max_versions) o->set_max_versions(*a.max_versions);
  if (a.deviation) o->set_deviation_cell_version_in_sec(*a.deviation);
  if (a.allow_update) o->set_allow_update(*a.allow_update == "true");
  if (!a.ttl && !a.max_versions && !a.deviation && !a.allow_update) {
    std::fprintf(stderr,
                 "ttlstore alter: nothing to change (give --ttl, --version, --deviation or "
                 "--allow-update)\n");
    return 2;
  }
  auto r = CallOts(*endpoint, "UpdateTable", req.SerializeAsString());
  if (!r.ok) return Fail(r);
  otspb::UpdateTableResponse resp;
  if (!resp.ParsePartialFromString(r.body)) {
    std::fprintf(stderr, "ttlstore: the server's UpdateTable answer does not parse\n");
    return 1;
  }
  std::printf("table: %s\n", f.table.c_str());
  PrintOptions(resp.table_options());
  return 0;
}

}  // namespace

void AddTablestoreCommands(CLI::App& app, int* exit_code) {
  // The flags live as long as the app: the callbacks run during app.parse().
  auto describe_flags = std::make_shared<CommonFlags>();
  CLI::App* describe = app.add_subcommand(
      "describe", "Show a Tablestore table's primary key and options (time to live, max "
                  "versions, max time deviation, allow update) and its search indexes' time "
                  "to live from a running server.");
  AddCommon(describe, *describe_flags);
  describe->callback([describe_flags, exit_code] { *exit_code = Describe(*describe_flags); });

  auto alter_common = std::make_shared<CommonFlags>();
  auto alter_flags = std::make_shared<AlterFlags>();
  CLI::App* alter = app.add_subcommand(
      "alter", "Change a Tablestore table's options on a running server, e.g. "
               "`ttlstore alter -t mytable --ttl 86400 --version 1`.");
  AddCommon(alter, *alter_common);
  alter->add_option("--ttl", alter_flags->ttl, "Time to live in seconds (-1: never expire)");
  alter->add_option("--version", alter_flags->max_versions, "Max versions kept per column");
  alter->add_option("--deviation", alter_flags->deviation,
                    "Max time deviation in seconds (how far a written version may be from now)");
  alter->add_option("--allow-update", alter_flags->allow_update,
                    "Whether UpdateRow is allowed: true or false")
      ->check(CLI::IsMember({"true", "false"}));
  alter->add_option("--search-index", alter_flags->search_index,
                    "With --ttl: change this search index's time to live instead of the "
                    "table's (it may not exceed the table's; needs allow-update false)");
  alter->callback([alter_common, alter_flags, exit_code] {
    *exit_code = Alter(*alter_common, *alter_flags);
  });
}

}  // namespace ttlstore::cli
