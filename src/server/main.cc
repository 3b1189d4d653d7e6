// ttlstore: the command line. `ttlstore serve` opens the data dir and serves the DynamoDB API.
#include <fmt/format.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>

#include "api/authorize.h"
#include "api/dispatch.h"
#include "api/export_lines.h"
#include "api/import_lines.h"
#include "auth/sigv4.h"
#include "backup/backups.h"
#include "backup/table_export.h"
#include "backup/table_import.h"
#include "backup/pitr_restore.h"
#include "backup/restore_lease.h"
#include "backup/pitr_trimmer.h"
#include "cli/backup_cli.h"
#include "cli/data_cli.h"
#include "cli/replicate_cli.h"
#include "check/consistency.h"
#include "cli/tablestore_cli.h"
#include "common/clock.h"
#include "common/periodic_thread.h"
#include "ops/item_ops.h"
#include "ops/request_tokens.h"
#include "ops/row_ops.h"
#include "ops/row_purge_scheduler.h"
#include "ops/ts_index_backfill.h"
#include "search/search_engine.h"
#include "vector/knn_plan.h"
#include "ops/row_purger.h"
#include "ops/stats_recount.h"
#include "ops/table_ops.h"
#include "ops/vector_graphs.h"
#include "server/http_server.h"
#include "server/lease_metrics.h"
#include "server/metrics.h"
#include "storage/lease.h"
#include "storage/lease_keeper.h"
#include "storage/store.h"
#include "streams/trimmer.h"
#include "tablestore/signing.h"
#include "ttl/backfill.h"
#include "ttl/sweep_shards.h"
#include "ttl/sweeper.h"
#include "ttl/ttl_stats.h"

namespace {

// Serving threads under --sync or --storage when --threads is not given (see Serve).
constexpr int kSyncServingThreads = 32;
// TTL sweeper batches in the database at once on PostgreSQL when --ttl-sweep-threads is not
// given (BENCHMARKS.md, "Parallel sweep batches"); on RocksDB one (one WAL serializes writes).
constexpr size_t kPgSweepThreads = 4;

struct ServeFlags {
  ttlstore::server::ServerOptions server;
  std::string data_dir = "./ttlstore-data";
  std::string storage;  // a PostgreSQL connection string: the PostgreSQL backend
  bool sync = false;
  size_t block_cache_mb = 64;
  std::string log_level = "info";
  ttlstore::ttl::SweeperOptions sweeper;
  size_t sweep_threads = 0;  // 0: the backend's default (kPgSweepThreads or 1)
  std::string credentials_file;
  std::string policies_file;
  bool insecure = false;
  int64_t clock_start_ms = 0;
  int64_t tablestore_min_ttl = 86400;
  int64_t tablestore_txn_timeout_s = 60;
  int64_t version_purge_interval_s = 3600;
  int64_t stream_shard_rollover_s = 4 * 3600;
  int64_t stream_trim_interval_s = 60;
  // Leases of background work (storage/lease_keeper.h): how long a grant lasts; a unit whose
  // process died is taken over within this and a third.
  double lease_seconds = 5;
  // With several processes on one database: how often each reads the catalog for the others'
  // CreateTable, UpdateTable and DeleteTable (a name not found is looked up at once).
  int64_t catalog_refresh_ms = 500;
  std::string backup_dir;
  std::string export_dir;
  int64_t incremental_export_min_s = 900;
  // Point-in-time recovery: the most history any table keeps, in hours (fractions allowed, for
  // tests). The service keeps up to 35 days; the cost is the old image of every write to a
  // PITR table within the window (docs/background-jobs.md, "PITR change log").
  double pitr_window_hours = 24;
  // KNN: filtered sets of at most this many documents are ranked exactly, larger ones through
  // the field's HNSW graph (docs/vector-engine.md, "How KNN is served").
  size_t knn_exact_up_to = ttlstore::vector::kDefaultExactUpTo;
};

// Whether `host` only reaches this machine.
bool IsLoopback(const std::string& host) {
  return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

int Serve(const ServeFlags& flags) {
  using namespace ttlstore;
  auto level = spdlog::level::from_str(flags.log_level);
  spdlog::set_level(level);
  spdlog::set_pattern("%Y-%m-%dT%H:%M:%S.%eZ level=%l %v", spdlog::pattern_time_type::utc);

  std::error_code ec;
  std::filesystem::create_directories(flags.data_dir, ec);
  if (ec) {
    spdlog::error("event=startup_failed message=\"cannot create data dir {}: {}\"", flags.data_dir,
                  ec.message());
    return 1;
  }
  storage::StoreOptions store_options;
  store_options.path = flags.data_dir;
  store_options.storage = flags.storage;
  store_options.sync = flags.sync;
  store_options.block_cache_bytes = flags.block_cache_mb << 20;
  auto store = storage::Store::Open(store_options);
  if (!store) {
    spdlog::error("event=startup_failed message=\"{}\"", store.error().message());
    // 2: the database named by --storage cannot be reached (a supervisor may retry later).
    return store.error().code() == ErrorCode::kStorageUnavailable ? 2 : 1;
  }
  std::unique_ptr<Clock> clock_holder;
  if (flags.clock_start_ms != 0) {
    clock_holder = std::make_unique<OffsetClock>(flags.clock_start_ms);
  } else {
    clock_holder = std::make_unique<SystemClock>();
  }
  const Clock& clock = *clock_holder;
  std::optional<auth::Credentials> credentials;
  if (!flags.credentials_file.empty()) {
    auto loaded = auth::Credentials::Load(flags.credentials_file);
    if (!loaded) {
      spdlog::error("event=startup_failed message=\"{}\"", loaded.error().message());
      return 1;
    }
    credentials = std::move(*loaded);
  } else if (!IsLoopback(flags.server.host) && !flags.insecure) {
    spdlog::error("event=startup_failed message=\"refusing to listen on {} without "
                  "--credentials: anyone who can reach it could read and change every table. "
                  "Give --credentials FILE, or --insecure to accept unsigned requests anyway\"",
                  flags.server.host);
    return 2;
  }
  std::optional<auth::SigV4Verifier> sigv4;
  std::optional<auth::PolicySet> policies;
  ServeFlags effective = flags;
  // Group commit under --sync: a serving thread waits in the write's fsync, so with one thread
  // per core only two writes could ever share an fsync. RocksDB puts every writer that is
  // waiting when a write group forms into that group, with one WAL write and one fsync, and a
  // write stays invisible until its group's fsync is done. So more threads, mostly asleep in
  // fsync, is what lets one fsync carry many writes (BENCHMARKS.md, "--sync").
  if (flags.sync && flags.server.threads == 0) effective.server.threads = kSyncServingThreads;
  // On PostgreSQL a serving thread waits for each round trip to the database: one thread per
  // core would leave the cores idle (BENCHMARKS.md, "Storage backends": put 0.6k ops/s with 2
  // threads, 0.9k with 32).
  if (!flags.storage.empty() && flags.server.threads == 0) {
    effective.server.threads = kSyncServingThreads;
  }
  effective.sweeper.threads = flags.sweep_threads > 0       ? flags.sweep_threads
                              : flags.storage.empty() ? size_t{1}
                                                      : kPgSweepThreads;
  if (credentials) {
    sigv4.emplace(*credentials);
    effective.server.sigv4 = &*sigv4;
  }
  if (!flags.policies_file.empty()) {
    if (!credentials) {
      spdlog::error("event=startup_failed message=\"--policies needs --credentials: policies "
                    "name access keys, and only signed requests have one\"");
      return 2;
    }
    auto loaded = api::LoadPolicies(flags.policies_file);
    if (!loaded) {
      spdlog::error("event=startup_failed message=\"{}\"", loaded.error().message());
      return 1;
    }
    policies = std::move(*loaded);
    effective.server.policies = &*policies;
  }
  ops::TableCatalog catalog(**store, clock);
  if (Status s = catalog.Load(); !s) {
    spdlog::error("event=startup_failed message=\"{}\"", s.error().message());
    return 1;
  }
  ops::ItemOps items(**store, &clock);
  items.streams().set_rollover_ms(flags.stream_shard_rollover_s * 1000);
  // Background work that one process at a time does, with several on one database
  // (storage/lease.h). Leases are dated by the wall clock, never by --clock-start-ms.
  SystemClock lease_clock;
  storage::Leases leases(**store, lease_clock, storage::LeaseOwnerName());
  storage::LeaseKeeper lease_keeper(leases,
                                    static_cast<int64_t>(flags.lease_seconds * 1000.0));
  lease_keeper.Want(streams::kTrimLeaseUnit);
  lease_keeper.Want(backup::kPitrTrimLeaseUnit);
  lease_keeper.Want(ops::kPurgeLeaseUnit);
  lease_keeper.Want(ops::kTokenTrimLeaseUnit);
  lease_keeper.Want(ops::kTxnReapLeaseUnit);
  lease_keeper.Want(ops::kTsIndexLeaseUnit);
  lease_keeper.Want(backup::kRestoreRecoveryUnit);
  // The TTL sweeper's shards, spread over the processes on the database (ttl/sweep_shards.h).
  lease_keeper.Share(ttl::kSweepShardPrefix, ttl::kSweepShards);
  // A PITR enable a stop cut short between its two catalog writes gets its start time now.
  if (Status s = catalog.FinishPendingPitrEnables(); !s) {
    spdlog::error("event=startup_failed message=\"{}\"", s.error().message());
    return 1;
  }
  // Stats counted under an older item-size rule are counted again, before anything writes
  // (ops/stats_recount.h).
  if (auto recounted = ops::RecountStaleStats(**store, catalog); !recounted) {
    spdlog::error("event=startup_failed message=\"{}\"", recounted.error().message());
    return 1;
  }
  // A point-in-time restore a stop interrupted starts again from its source at the same point
  // (backup/pitr_restore.h); any other restore a stop interrupted left a partial table: drop it
  // (backup/backups.h).
  const int64_t pitr_window_ms = static_cast<int64_t>(flags.pitr_window_hours * 3'600'000.0);
  backup::PitrRestores pitr_restores(**store, catalog, items, clock, pitr_window_ms);
  pitr_restores.set_lease_keeper(&lease_keeper);
  pitr_restores.ResumeInterrupted();
  backup::DropAbandonedRestores(catalog, &lease_keeper);
  backup::Backups backups(**store, catalog, items, clock,
                          flags.backup_dir.empty() ? flags.data_dir + "/backups" : flags.backup_dir);
  backups.set_lease_keeper(&lease_keeper);
  if (Status s = backups.Load(); !s) {
    spdlog::error("event=startup_failed message=\"{}\"", s.error().message());
    return 1;
  }
  // The Tablestore model: versioned rows, their purge, and the front end's services.
  ops::PurgeCounters purge_counters;
  ops::RowOps rows(**store, clock);
  rows.set_streams(&items.streams());  // Tablestore stream records share the DynamoDB log
  ops::RowPurger purger(**store, catalog, rows, clock, purge_counters);
  // Local transactions: kept in the store. A restart aborts every open one, unless other
  // processes share the store (they may be using them).
  ops::TxnLimits txn_limits;
  txn_limits.lifetime_ms = txn_limits.idle_ms = flags.tablestore_txn_timeout_s * 1000;
  ops::LocalTransactions transactions(**store, catalog, rows, clock, txn_limits);
  if (!(*store)->SharedByProcesses()) {
    if (Status s = transactions.DropAll(); !s) {
      spdlog::error("event=startup_failed message=\"{}\"", s.error().message());
      return 1;
    }
  }
  // Secondary indexes' backfills and drops; resumes what a stop left at start.
  ops::TsIndexBackfill ts_index_backfill(**store, catalog, rows, &lease_keeper);
  tablestore::Services tablestore_services{catalog, rows, clock,
                                           credentials ? &*credentials : nullptr,
                                           flags.tablestore_min_ttl,
                                           policies ? &*policies : nullptr, &transactions,
                                           &ts_index_backfill, /*search=*/nullptr,
                                           /*access_key_id=*/{}, /*instance=*/{},
                                           /*action=*/{}};
  // Search indexes: a Xapian database per index under <data-dir>/search, fed from the change
  // queue by one background thread (search/search_engine.h). Started here so that the first
  // request finds every index open; the thread resumes whatever a stop or crash left.
  search::SearchEngine search_engine(**store, catalog, flags.data_dir + "/search", clock);
  search_engine.SetKnnExactUpTo(flags.knn_exact_up_to);
  search_engine.ShareQueue(static_cast<int64_t>(flags.lease_seconds * 1000.0));
  if (Status s = search_engine.Start(); !s) {
    spdlog::error("event=startup_failed message=\"{}\"", s.error().message());
    return 1;
  }
  tablestore_services.search = &search_engine;
  ops::RowPurgeScheduler purge_scheduler(
      purger, std::chrono::seconds(flags.version_purge_interval_s), &lease_keeper);
  // ImportTable: records in <data-dir>/imports, "S3" under --export-dir. An import a stop
  // interrupted lost its table above (DropAbandonedRestores); its record is marked FAILED here.
  backup::Imports imports(**store, catalog, items, clock, flags.data_dir + "/imports",
                          flags.export_dir.empty() ? flags.data_dir + "/s3" : flags.export_dir,
                          api::DecodeImportJsonLine);
  imports.set_lease_keeper(&lease_keeper);
  if (Status s = imports.Load(); !s) {
    spdlog::error("event=startup_failed message=\"{}\"", s.error().message());
    return 1;
  }
  // ExportTableToPointInTime: records in <data-dir>/exports, files under --export-dir. An
  // export a stop interrupted is marked FAILED here (backup/table_export.h).
  backup::Exports exports(**store, catalog, clock, flags.data_dir + "/exports",
                          flags.export_dir.empty() ? flags.data_dir + "/s3" : flags.export_dir,
                          "000000000000", api::ExportJsonLines(), pitr_window_ms,
                          flags.incremental_export_min_s * 1000);
  exports.set_lease_keeper(&lease_keeper);
  if (Status s = exports.Load(); !s) {
    spdlog::error("event=startup_failed message=\"{}\"", s.error().message());
    return 1;
  }
  ops::IdempotencyCache tokens(clock);
  api::Services services{catalog, items, tokens, clock};
  services.backups = &backups;
  services.imports = &imports;
  services.exports = &exports;
  services.pitr = &pitr_restores;
  // SearchVectors' graphs of large vector indexes, built on first search (ops/vector_graphs.h).
  ops::VectorGraphs vector_graphs(**store, catalog);
  vector_graphs.Start();
  services.vector_graphs = &vector_graphs;
  services.knn_exact_up_to = flags.knn_exact_up_to;
  // Keeps every PITR change log to its window; a tenth of the window between passes, 1-60 s.
  backup::PitrTrimmer pitr_trimmer(**store, catalog, clock, pitr_window_ms,
                                   std::clamp<int64_t>(pitr_window_ms / 10, 1000, 60'000),
                                   &lease_keeper);
  // UpdateTable's index backfills and drops; work interrupted by the last stop resumes.
  // Each job is a lease unit: any process on the database runs or takes it over.
  index::IndexBuilder index_builder(**store, catalog, &lease_keeper);
  services.index_builder = &index_builder;
  // UpdateTimeToLive's backfills of the expiry index; one a crash interrupted resumes.
  ttl::ExpiryBackfiller ttl_backfiller(catalog, items, &lease_keeper);
  services.ttl_backfiller = &ttl_backfiller;
  for (const auto& name : catalog.List(std::nullopt, SIZE_MAX).names) {
    if (ops::TablePtr t = catalog.Find(name)) {
      index_builder.Resume(*t);
      ttl_backfiller.Resume(*t);
    }
  }
  server::Metrics metrics;
  ttl::TtlStats ttl_stats;
  metrics.AddSource([&ttl_stats] { return ttl_stats.Render(); });
  metrics.AddSource([&vector_graphs] { return vector_graphs.RenderMetrics(); });
  metrics.AddSource([&search_engine] { return search_engine.MetricsText(); });
  metrics.AddCounter("ttlstore_ttl_millisecond_like_values_total",
                     "Writes whose TTL value looks like milliseconds, not epoch seconds: such "
                     "items never expire.",
                     [&items] { return items.ms_like_ttl_writes(); });
  metrics.AddSource([store = store->get()] {
    storage::CompactionState c = store->Compactions();
    return fmt::format(
        "# HELP ttlstore_storage_running_compactions RocksDB compactions in progress.\n"
        "# TYPE ttlstore_storage_running_compactions gauge\n"
        "ttlstore_storage_running_compactions {}\n"
        "# HELP ttlstore_storage_running_flushes RocksDB memtable flushes in progress.\n"
        "# TYPE ttlstore_storage_running_flushes gauge\n"
        "ttlstore_storage_running_flushes {}\n"
        "# HELP ttlstore_storage_pending_compaction_bytes Bytes RocksDB estimates compaction "
        "still has to rewrite.\n"
        "# TYPE ttlstore_storage_pending_compaction_bytes gauge\n"
        "ttlstore_storage_pending_compaction_bytes {}\n"
        "# HELP ttlstore_storage_conflict_retries_total Read-modify-writes and batches started "
        "over after a serialization failure or deadlock (PostgreSQL).\n"
        "# TYPE ttlstore_storage_conflict_retries_total counter\n"
        "ttlstore_storage_conflict_retries_total {}\n"
        "# HELP ttlstore_storage_shared_transactions_total Read-modify-writes committed in a "
        "transaction shared with others (PostgreSQL's groups).\n"
        "# TYPE ttlstore_storage_shared_transactions_total counter\n"
        "ttlstore_storage_shared_transactions_total {}\n",
        c.running, c.running_flushes, c.pending_bytes, store->conflict_retries(),
        store->shared_transactions());
  });
  metrics.AddSource([&transactions] {
    return fmt::format(
        "# HELP ttlstore_tablestore_open_transactions Tablestore local transactions open now.\n"
        "# TYPE ttlstore_tablestore_open_transactions gauge\n"
        "ttlstore_tablestore_open_transactions {}\n"
        "# HELP ttlstore_tablestore_expired_transactions_total Local transactions aborted "
        "because they timed out.\n"
        "# TYPE ttlstore_tablestore_expired_transactions_total counter\n"
        "ttlstore_tablestore_expired_transactions_total {}\n",
        transactions.open(), transactions.expired());
  });
  metrics.AddSource([&purge_counters, &rows] {
    return ops::RenderVersionMetrics(purge_counters, rows);
  });
  ttl::Sweeper sweeper(effective.sweeper, catalog, items, clock, ttl_stats, &metrics.load(),
                       &lease_keeper);
  // Drops stream records past the 24-hour retention (src/streams/trimmer.h).
  streams::Trimmer stream_trimmer(items.streams(), flags.stream_trim_interval_s * 1000,
                                  &lease_keeper);
  // Drops ClientRequestToken records past their 10 minutes (ops/request_tokens.h), a pass a
  // minute.
  ops::TokenTrimmer token_trimmer(**store, clock, 60'000, &lease_keeper);
  metrics.AddSource([&lease_keeper] { return server::RenderLeaseMetrics(lease_keeper); });
  metrics.AddCounter("ttlstore_request_tokens_trimmed_total",
                     "ClientRequestToken records removed after their 10 minutes.",
                     [&token_trimmer] { return token_trimmer.trimmed(); });
  metrics.AddCounter("ttlstore_catalog_refreshed_total",
                     "Tables this process installed or removed after reading the catalog another "
                     "process changed.",
                     [&catalog] { return catalog.refreshed(); });
  server::HttpServer http(effective.server, services, &tablestore_services, metrics);
  if (Status s = http.Listen(); !s) {
    spdlog::error("event=startup_failed message=\"{}\"", s.error().message());
    return 1;
  }
  // Scripts and tests wait for this line, so it is written whatever the log level.
  auto listening = spdlog::level::info;
  if (spdlog::get_level() > listening) spdlog::set_level(listening);
  // The connection string is not logged: it may hold a password.
  spdlog::info("event=listening address={}://{}:{} storage={} data_dir={} sync={} threads={}",
               http.tls() ? "https" : "http", flags.server.host, http.port(),
               flags.storage.empty() ? "rocksdb" : "postgresql", flags.data_dir, flags.sync,
               http.threads());
  spdlog::default_logger()->flush();
  spdlog::set_level(level);
  lease_keeper.Start();
  catalog.StartRefresh(flags.catalog_refresh_ms, lease_keeper.owner());
  sweeper.Start();
  stream_trimmer.Start();
  token_trimmer.Start();
  pitr_trimmer.Start();
  index_builder.Start();
  ttl_backfiller.Start();
  purge_scheduler.Start();
  ts_index_backfill.Start();
  // Several processes on one database: restores and imports a process left when it died (their
  // leases lapsed) are dropped, point-in-time restores resumed, as a start does here above
  // (backup/restore_lease.h), DeleteTables it left between their two steps are finished
  // (ops/catalog_drop.cc), and the imports and exports it ran are marked FAILED; by one process
  // at a time.
  // Expired local transactions that no request or write met: dropped with what they buffered.
  PeriodicThread txn_reaper;
  txn_reaper.Start("txn-reaper", std::min<int64_t>(txn_limits.idle_ms, 5000), [&] {
    if (!storage::MayRun(&lease_keeper, ops::kTxnReapLeaseUnit)) return;
    if (auto r = transactions.Reap(); !r) {
      spdlog::warn("event=transaction_reap_failed message=\"{}\"", r.error().message());
    }
  });
  PeriodicThread restore_recovery;
  if ((*store)->SharedByProcesses()) {
    restore_recovery.Start("restore-recovery", lease_keeper.duration_ms(), [&] {
      if (!storage::MayRun(&lease_keeper, backup::kRestoreRecoveryUnit)) return;
      pitr_restores.ResumeInterrupted();
      backup::DropAbandonedRestores(catalog, &lease_keeper);
      if (Status s = catalog.FinishInterruptedDrops(); !s) {
        spdlog::warn("event=interrupted_drops_failed message=\"{}\"", s.error().message());
      }
      // Their records (in the database here): imports whose table was just dropped, exports
      // whose process died.
      for (Status s : {imports.FailAbandoned(), exports.FailAbandoned()}) {
        if (!s) spdlog::warn("event=abandoned_jobs_failed message=\"{}\"", s.error().message());
      }
    });
  }
  http.Run();
  restore_recovery.Stop();
  txn_reaper.Stop();
  catalog.StopRefresh();
  search_engine.Stop();
  ts_index_backfill.Stop();
  purge_scheduler.Stop();
  sweeper.Stop();
  vector_graphs.Stop();
  stream_trimmer.Stop();
  token_trimmer.Stop();
  pitr_trimmer.Stop();
  index_builder.Stop();
  ttl_backfiller.Stop();
  lease_keeper.Stop();  // after the jobs: hands their units to another process at once
  spdlog::info("event=stopped");
  return 0;  // `store` closes RocksDB as it goes out of scope, after every session has ended
}

int Check(const std::string& data_dir, const std::string& storage_uri) {
  using namespace ttlstore;
  // stdout is the report; RocksDB's messages (e.g. the torn WAL tail a kill -9 leaves, which it
  // drops on open) go to stderr.
  spdlog::set_default_logger(spdlog::stderr_logger_st("check"));
  if (storage_uri.empty() && !std::filesystem::is_directory(data_dir)) {
    std::fprintf(stderr, "ttlstore check: no data dir at %s\n", data_dir.c_str());
    return 1;
  }
  storage::StoreOptions options;
  options.path = data_dir;
  options.storage = storage_uri;
  auto store = storage::Store::Open(options);
  if (!store) {
    std::fprintf(stderr, "ttlstore check: %s (is a server still running on it?)\n",
                 store.error().message().c_str());
    return 1;
  }
  auto report = check::CheckStore(**store, SystemClock().NowMs(), data_dir + "/search");
  if (!report) {
    std::fprintf(stderr, "ttlstore check: %s\n", report.error().message().c_str());
    return 1;
  }
  for (const auto& p : report->problems) std::printf("problem: %s\n", p.c_str());
  if (report->problem_count > report->problems.size()) {
    std::printf("... and %llu more problems\n",
                static_cast<unsigned long long>(report->problem_count - report->problems.size()));
  }
  auto n = [](uint64_t v) { return static_cast<unsigned long long>(v); };
  std::printf("%s: %llu tables, %llu items (%llu awaiting a TTL backfill), %llu rows, %llu expiry "
              "entries (%llu stale), %llu index entries (%llu of indexes being removed), %llu "
              "stream records (%llu past retention), %llu PITR change-log records, %llu Tablestore "
              "index rows (%llu of indexes being removed), %llu search-index documents (%llu "
              "changes queued), %llu auto-increment records, %llu problems\n",
              report->ok() ? "ok" : "FAILED", n(report->tables), n(report->items),
              n(report->ttl_backfill_items), n(report->rows), n(report->expiry_entries),
              n(report->stale_expiry_entries), n(report->index_entries),
              n(report->dropped_index_entries), n(report->stream_records),
              n(report->expired_stream_records), n(report->pitr_records),
              n(report->ts_index_rows), n(report->dropped_ts_index_rows),
              n(report->search_documents), n(report->search_queue_entries),
              n(report->sequence_records), n(report->problem_count));
  return report->ok() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "ttlstore: a self-hosted table store speaking the DynamoDB API, with item TTL and "
      "versioned cells."};
  app.require_subcommand(1);
  ServeFlags flags;
  CLI::App* serve = app.add_subcommand("serve", "Serve the DynamoDB HTTP/JSON API and the Tablestore API.");
  serve->add_option("--host", flags.server.host,
                    "Address to listen on (default: 127.0.0.1, loopback only)");
  serve->add_option("--port", flags.server.port,
                    "TCP port (default: 8000; 0 picks a free port, printed in the log)");
  serve->add_option("--data-dir", flags.data_dir,
                    "Folder for the RocksDB data; created if missing (default: ./ttlstore-data)");
  serve->add_option("--storage", flags.storage,
                    "Keep the data in PostgreSQL (or an engine speaking its protocol) instead of "
                    "the RocksDB folder: a libpq connection string or URI, e.g. "
                    "postgresql://user@host:5432/db; password from PGPASSWORD or ~/.pgpass. "
                    "--data-dir then holds only local state (search index copies, export "
                    "staging). docs/storage.md");
  serve->add_flag("--sync", flags.sync,
                  "fsync the write-ahead log before acknowledging each write (survives power "
                  "loss; slower). Without it, writes survive a process crash.");
  serve->add_option("--threads", flags.server.threads,
                    "Threads serving connections (default: 0 = one per CPU the process may run "
                    "on; with --sync or --storage, " +
                        std::to_string(kSyncServingThreads) +
                        ", so that writes share fsyncs or wait for the database together)");
  serve->add_option("--idle-timeout-seconds", flags.server.idle_timeout_seconds,
                    "Close a keep-alive connection after this long without a request (default: 300)")
      ->check(CLI::Range(1, 86400));
  serve->add_option("--request-timeout-seconds", flags.server.request_timeout_seconds,
                    "Close a connection whose request has not arrived whole this long after its "
                    "first byte: slow-loris defence (default: 30)")
      ->check(CLI::Range(1, 3600));
  serve->add_option("--max-connections", flags.server.max_connections,
                    "Connections beyond this many are closed on accept (default: 10000)")
      ->check(CLI::Range(1, 1000000));
  serve->add_option("--block-cache-mb", flags.block_cache_mb,
                    "RocksDB block cache size in MiB (default: 64)");
  serve->add_option("--ttl-sweep-interval-ms", flags.sweeper.interval_ms,
                    "How often the TTL sweeper looks for expired items when none are waiting; an "
                    "expired item is deleted within about this long (default: 200)")
      ->check(CLI::Range(1, 60000));
  serve->add_option("--ttl-sweep-budget-ms", flags.sweeper.budget_ms,
                    "Most time one TTL sweeper pass works before yielding to requests "
                    "(default: 25)")
      ->check(CLI::Range(1, 10000));
  serve->add_option("--ttl-sweep-batch-size", flags.sweeper.batch_size,
                    "Expired items the TTL sweeper deletes per write batch (default: 256)")
      ->check(CLI::Range(1, 100000));
  serve->add_option("--ttl-sweep-threads", flags.sweep_threads,
                    "TTL sweeper batches deleted at once, each on its own thread and database "
                    "connection, while the next are read (default: 0 = 1 on RocksDB, " +
                        std::to_string(kPgSweepThreads) + " with --storage)")
      ->check(CLI::Range(0, 64));
  serve->add_option("--ttl-sweep-busy-percent", flags.sweeper.busy_percent,
                    "Share of one core the TTL sweeper may take during an expiry wave while "
                    "requests are being served; an idle server lets it run flat out "
                    "(default: 25)")
      ->check(CLI::Range(1, 100));
  serve->add_option("--credentials", flags.credentials_file,
                    "File of access keys, one 'ACCESS_KEY_ID SECRET' per line: every request "
                    "(DynamoDB SigV4, Tablestore) must be signed by one of them (default: none, "
                    "any key and signature accepted, loopback only)");
  serve->add_option("--policies", flags.policies_file,
                    "JSON file of IAM-like statements per access key (Allow/Deny, dynamodb:* "
                    "actions, table ARN patterns, dynamodb:Attributes conditions); keys not "
                    "listed are unrestricted. Needs --credentials");
  serve->add_option("--tls-cert", flags.server.tls_cert_file,
                    "PEM certificate (optionally followed by its chain): with --tls-key, the "
                    "listener speaks HTTPS only (TLS 1.2+)")
      ->check(CLI::ExistingFile);
  serve->add_option("--tls-key", flags.server.tls_key_file,
                    "PEM private key of --tls-cert")
      ->check(CLI::ExistingFile);
  serve->add_flag("--insecure", flags.insecure,
                  "Allow listening on a non-loopback address without --credentials");
  serve->add_option("--export-dir", flags.export_dir,
                    "The folder that stands for S3 in ImportTable and exports: bucket B is "
                    "DIR/B (default: <data-dir>/s3)");
  serve->add_option("--backup-dir", flags.backup_dir,
                    "Folder of the on-demand backups (CreateBackup, `ttlstore backup`) "
                    "(default: <data-dir>/backups)");
  serve->add_option("--incremental-export-min-seconds", flags.incremental_export_min_s,
                    "Shortest period of an incremental ExportTableToPointInTime (lower it for "
                    "local testing) (default: 900, the service's 15 minutes)");
  serve->add_option("--tablestore-min-ttl", flags.tablestore_min_ttl,
                    "Smallest Tablestore table TTL in seconds other than -1 (default: 86400, "
                    "the service's; lower it for local testing)")
      ->check(CLI::Range(int64_t{1}, int64_t{INT32_MAX}));
  serve->add_option("--tablestore-transaction-timeout-seconds", flags.tablestore_txn_timeout_s,
                    "A Tablestore local transaction is aborted this long after its start, or "
                    "after its last request (default: 60, the service's; lower it for testing)")
      ->check(CLI::Range(int64_t{1}, int64_t{86400}));
  serve->add_option("--version-purge-interval", flags.version_purge_interval_s,
                    "Seconds between passes that purge Tablestore versions hidden by max "
                    "versions or TTL (default: 3600)")
      ->check(CLI::Range(int64_t{1}, int64_t{86400 * 30}));
  serve->add_option("--stream-shard-rollover-seconds", flags.stream_shard_rollover_s,
                    "A stream's open shard is closed and its child opened at the first write at "
                    "least this long after the shard's first record (default: 14400, about the "
                    "service's four hours; 0: never; lower it for testing readers that follow "
                    "shard lineage)")
      ->check(CLI::Range(int64_t{0}, int64_t{86400 * 365}));
  serve->add_option("--stream-trim-interval-seconds", flags.stream_trim_interval_s,
                    "Seconds between passes that drop stream records past their retention "
                    "(default: 60; lower it for testing)")
      ->check(CLI::Range(int64_t{1}, int64_t{86400}));
  serve->add_option("--lease-seconds", flags.lease_seconds,
                    "How long a process's lease of a unit of background work lasts without "
                    "renewal; with several processes on one database, a unit whose process died "
                    "is taken over within this and a third (default: 5)")
      ->check(CLI::Range(0.3, 3600.0));
  serve->add_option("--catalog-refresh-ms", flags.catalog_refresh_ms,
                    "With several processes on one database (--storage): how often each reads "
                    "the tables for the others' CreateTable, UpdateTable and DeleteTable; a table "
                    "name not found is looked up in the database at once (default: 500)")
      ->check(CLI::Range(int64_t{10}, int64_t{60'000}));
  serve->add_option("--knn-exact-up-to", flags.knn_exact_up_to,
                    "KNN queries (Tablestore) and SearchVectors whose filter or index leaves at "
                    "most this many documents are ranked exactly; larger ones go through the "
                    "field's or index's HNSW graph")
      ->capture_default_str();
  serve->add_option("--pitr-window-hours", flags.pitr_window_hours,
                    "Most history point-in-time recovery keeps for any table, in hours; a "
                    "table's RecoveryPeriodInDays is capped by it. Costs the old image of every "
                    "write to a PITR table within the window (default: 24; the service keeps up "
                    "to 35 days = 840)")
      ->check(CLI::Range(0.0005, 840.0));
  serve->add_option("--clock-start-ms", flags.clock_start_ms,
                    "For testing: start the server's clock at this epoch time in ms (it then "
                    "advances in real time)");
  serve->add_option("--log-level", flags.log_level,
                    "trace, debug, info, warn, error or off (default: info)")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}));
  std::string check_dir = "./ttlstore-data";
  CLI::App* check = app.add_subcommand(
      "check", "Verify a data dir's invariants (items, stats, expiry index, secondary indexes, "
               "streams, Tablestore rows); exit 0 if whole, 1 if not. Stop the server first.");
  check->add_option("--data-dir", check_dir, "The data dir to check (default: ./ttlstore-data)");
  std::string check_storage;
  check->add_option("--storage", check_storage,
                    "Check the PostgreSQL database of this connection string instead (the search "
                    "indexes' local copies are under --data-dir)");
  int cli_exit = 0;
  ttlstore::cli::AddTablestoreCommands(app, &cli_exit);
  ttlstore::cli::AddBackupCommands(app, &cli_exit);
  ttlstore::cli::AddDataCommands(app, &cli_exit,
                                 {ttlstore::api::DecodeImportJsonLine,
                                  ttlstore::api::ExportJsonLines()});
  ttlstore::cli::AddReplicateCommand(app, &cli_exit);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);  // prints the message and a hint to stderr
    return 2;
  }
  if (serve->parsed()) return Serve(flags);
  if (check->parsed()) return Check(check_dir, check_storage);
  return cli_exit;
}
