#include "cli/replicate_cli.h"

#include <signal.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <boost/json.hpp>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <thread>

#include "cli/progress_bar.h"
#include "cli/replicate_target.h"
#include "cli/replicator.h"
#include "common/clock.h"

namespace ttlstore::cli {
namespace {

constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;
constexpr int kExitPrecondition = 3;

// Set by SIGINT/SIGTERM; every loop of the replicator polls it.
std::atomic<bool> g_stop{false};

extern "C" void OnStopSignal(int) { g_stop.store(true); }

struct SideFlags {
  std::string url;
  std::string region;
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;
};

struct ReplicateFlags {
  SideFlags from, to;
  std::string table;
  std::string to_table;
  std::string from_streams_url;
  std::string checkpoint;
  std::string status_file;
  int segments = 4;
  int scan_page_size = 0;
  bool enable_source_stream = false;
};

int Fail(int code, const std::string& message) {
  std::fprintf(stderr, "\nttlstore replicate: %s\n", message.c_str());
  return code;
}

std::string EnvOr(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

// Flags, else the AWS environment variables, else the keys any ttlstore without
// --credentials accepts. The region: the flag, else the one an AWS endpoint's host names, else
// the environment's, else us-east-1.
auth::SigningIdentity Identity(const SideFlags& f, const client::Endpoint& endpoint) {
  auth::SigningIdentity id;
  id.access_key_id = !f.access_key_id.empty() ? f.access_key_id : EnvOr("AWS_ACCESS_KEY_ID", "local");
  id.secret_access_key = !f.secret_access_key.empty() ? f.secret_access_key
                                                      : EnvOr("AWS_SECRET_ACCESS_KEY", "local");
  id.session_token = !f.session_token.empty() ? f.session_token : EnvOr("AWS_SESSION_TOKEN", "");
  std::string from_host = client::RegionOfHost(endpoint.host);
  id.region = !f.region.empty()    ? f.region
              : !from_host.empty() ? from_host
                                   : EnvOr("AWS_REGION", EnvOr("AWS_DEFAULT_REGION", "us-east-1"));
  return id;
}

void InstallSignalHandlers() {
  struct sigaction sa {};
  sa.sa_handler = OnStopSignal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

// Progress bar during the copy, a status line every second during the stream phase, and the
// status file every second throughout; until `done`.
void Report(ReplicateContext& ctx, const std::string& status_file, const std::atomic<bool>& done) {
  ProgressBar bar("copy", ctx.stats->items_estimate.load());
  bool tty = isatty(STDERR_FILENO);
  int64_t last_line_ms = 0;
  bool bar_closed = false;
  while (!done.load()) {
    int64_t now = SystemClock().NowMs();
    int phase = ctx.stats->phase.load();
    if (phase == 1) bar.Update(ctx.stats->items_copied.load());
    if (phase == 2 && !bar_closed) {
      bar_closed = true;
      if (ctx.stats->items_copied.load() > 0) bar.Done(ctx.stats->items_copied.load());
    }
    if (now - last_line_ms >= 1000) {
      last_line_ms = now;
      if (phase == 2) {
        std::string line = StatusLine(*ctx.stats, now);
        std::fprintf(stderr, tty ? "\r%s\x1b[K" : "%s\n", line.c_str());
        std::fflush(stderr);
      }
      if (!status_file.empty()) {
        (void)WriteFileAtomically(status_file, StatusMetrics(*ctx.stats, ctx.source_table, now));
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (!status_file.empty()) {
    int64_t now = SystemClock().NowMs();
    (void)WriteFileAtomically(status_file, StatusMetrics(*ctx.stats, ctx.source_table, now));
  }
}

int Replicate(const ReplicateFlags& f) {
  auto from = client::ParseEndpoint(f.from.url);
  if (!from) return Fail(kExitUsage, "--from: " + from.error().message());
  auto to = client::ParseEndpoint(f.to.url);
  if (!to) return Fail(kExitUsage, "--to: " + to.error().message());
  client::Endpoint streams_ep = client::StreamsEndpointFor(*from);
  if (!f.from_streams_url.empty()) {
    auto s = client::ParseEndpoint(f.from_streams_url);
    if (!s) return Fail(kExitUsage, "--from-streams-url: " + s.error().message());
    streams_ep = *s;
  }
  const std::string target_table = f.to_table.empty() ? f.table : f.to_table;
  if (from->Url() == to->Url() && f.table == target_table) {
    return Fail(kExitUsage, "the source and the target are the same table; give --to-table");
  }
  InstallSignalHandlers();
  ReplicateStats stats;
  auto ctx = std::make_unique<ReplicateContext>();
  ctx->stop = &g_stop;
  ctx->stats = &stats;
  ctx->source_table = f.table;
  ctx->target_table = target_table;
  ctx->checkpoint_path = f.checkpoint.empty() ? "replicate-" + f.table + ".checkpoint" : f.checkpoint;
  ctx->scan_limit = f.scan_page_size;
  ctx->source.endpoint = *from;
  ctx->source.identity = Identity(f.from, *from);
  ctx->source.cancel = &g_stop;
  ctx->source_streams = ctx->source;
  ctx->source_streams.endpoint = streams_ep;
  ctx->source_streams.target_prefix = client::kStreamsTargetPrefix;
  ctx->target.endpoint = *to;
  ctx->target.identity = Identity(f.to, *to);
  ctx->target.cancel = &g_stop;

  auto loaded = ReplicateCheckpoint::Load(ctx->checkpoint_path);
  if (!loaded) return Fail(kExitPrecondition, loaded.error().message());
  if (*loaded) {
    const ReplicateCheckpoint& c = **loaded;
    if (c.source_url != from->Url() || c.source_table != f.table || c.target_url != to->Url() ||
        c.target_table != target_table) {
      return Fail(kExitPrecondition,
                  "checkpoint " + ctx->checkpoint_path + " belongs to the replication of " +
                      c.source_url + " " + c.source_table + " to " + c.target_url + " " +
                      c.target_table + "; give another --checkpoint");
    }
  }

  client::DynamoDbClient source(ctx->source);
  client::DynamoDbClient target(ctx->target);
  auto described = DescribeTable(source, f.table);
  if (!described) {
    if (described.error().code() == ErrorCode::kResourceNotFound) {
      return Fail(kExitPrecondition, "source table " + f.table + " not found at " + from->Url());
    }
    return Fail(kExitFailure, described.error().message());
  }
  std::string why;
  if (NewImageStreamViewType(*described, &why).empty()) {
    bool disabled = why == "it has no stream";
    if (!f.enable_source_stream || !disabled) {
      std::string fix = disabled
          ? "run again with --enable-source-stream, or: aws dynamodb update-table --table-name " +
                f.table + " --stream-specification StreamEnabled=true,StreamViewType=NEW_AND_OLD_IMAGES"
          : "disable it and enable a NEW_AND_OLD_IMAGES stream (update-table "
            "--stream-specification StreamEnabled=false, then StreamEnabled=true,"
            "StreamViewType=NEW_AND_OLD_IMAGES; other readers of the old stream lose it)";
      return Fail(kExitPrecondition, "source table " + f.table + ": " + why +
                                         "; replicate needs a stream with NEW_IMAGE or "
                                         "NEW_AND_OLD_IMAGES: " + fix);
    }
    std::fprintf(stderr, "replicate: enabling a NEW_AND_OLD_IMAGES stream on %s\n", f.table.c_str());
    described = EnableSourceStream(source, f.table, g_stop);
    if (!described) return Fail(kExitFailure, described.error().message());
  }
  std::string stream_arn = boost::json::value_to<std::string>(described->at("LatestStreamArn"));
  if (*loaded && (*loaded)->stream_arn != stream_arn) {
    return Fail(kExitPrecondition,
                "the source's stream changed since checkpoint " + ctx->checkpoint_path + " (" +
                    (*loaded)->stream_arn + " then, " + stream_arn +
                    " now): changes between them are lost; start a fresh replication");
  }
  bool created = false;
  if (Status s = EnsureTarget(source, *described, target, target_table, g_stop, &created); !s) {
    int code = s.error().code() == ErrorCode::kValidation ? kExitPrecondition : kExitFailure;
    return Fail(code, s.error().message());
  }
  if (created) {
    std::fprintf(stderr, "replicate: created %s at %s from the source's description\n",
                 target_table.c_str(), to->Url().c_str());
  }
  if (const auto* count = described->if_contains("ItemCount"); count && count->is_int64()) {
    stats.items_estimate = count->as_int64();
  }

  if (*loaded) {
    ctx->checkpoint = std::move(**loaded);
    stats.items_copied = ctx->checkpoint.items_copied;
    stats.records_applied = ctx->checkpoint.records_applied;
    std::fprintf(stderr, "replicate: resuming from %s (%s phase)\n", ctx->checkpoint_path.c_str(),
                 ctx->checkpoint.copy_done ? "stream" : "copy");
  } else {
    ReplicateCheckpoint& c = ctx->checkpoint;
    c.source_url = from->Url();
    c.source_table = f.table;
    c.target_url = to->Url();
    c.target_table = target_table;
    c.stream_arn = stream_arn;
    c.segments.resize(static_cast<size_t>(f.segments));
    if (Status s = NoteStreamPosition(*ctx); !s) return Fail(kExitFailure, s.error().message());
    if (Status s = ctx->Save(); !s) return Fail(kExitFailure, s.error().message());
  }

  std::atomic<bool> reporting_done{false};
  std::thread reporter(Report, std::ref(*ctx), f.status_file, std::cref(reporting_done));
  auto finish = [&](int code, const std::string& message) {
    reporting_done = true;
    reporter.join();
    if (!message.empty()) return Fail(code, message);
    return code;
  };
  if (!ctx->checkpoint.copy_done) {
    stats.phase = 1;
    if (Status s = RunCopy(*ctx); !s) return finish(kExitFailure, s.error().message());
  }
  if (g_stop.load()) {
    reporting_done = true;
    reporter.join();
    std::fprintf(stderr, "\nreplicate: stopped during the copy; checkpoint saved in %s (run the "
                         "same command to resume)\n", ctx->checkpoint_path.c_str());
    return 0;
  }
  stats.phase = 2;
  if (Status s = RunStream(*ctx); !s) return finish(kExitFailure, s.error().message());
  reporting_done = true;
  reporter.join();
  std::fprintf(stderr, "\nreplicate: stopped; %lld records applied, checkpoint saved in %s\n",
               static_cast<long long>(stats.records_applied.load()), ctx->checkpoint_path.c_str());
  return 0;
}

}  // namespace

void AddReplicateCommand(CLI::App& app, int* exit_code) {
  auto f = std::make_shared<ReplicateFlags>();
  CLI::App* cmd = app.add_subcommand(
      "replicate",
      "Copy a table between two DynamoDB-API endpoints (ttlstore, DynamoDB, DynamoDB Local, "
      "Alternator) with no downtime: a parallel Scan, then the source's stream, until stopped "
      "(SIGINT/SIGTERM). Resumes from its checkpoint. Exit 0 when stopped, 1 on failure, 2 on bad "
      "flags, 3 when the source or target needs fixing first.");
  cmd->add_option("--from", f->from.url, "Source endpoint, http(s)://host[:port]")->required();
  cmd->add_option("--to", f->to.url, "Target endpoint, http(s)://host[:port]")->required();
  cmd->add_option("--table", f->table, "Source table")->required();
  cmd->add_option("--to-table", f->to_table, "Target table (default: the source's name)");
  cmd->add_option("--segments", f->segments, "Parallel Scan segments of the copy (default: 4)")
      ->check(CLI::Range(1, 1000));
  cmd->add_option("--scan-page-size", f->scan_page_size,
                  "Items per Scan page of the copy (Scan's Limit; default: the service's 1 MB "
                  "pages); smaller pages checkpoint more often and spread the read load")
      ->check(CLI::Range(1, 100000));
  cmd->add_option("--checkpoint", f->checkpoint,
                  "Checkpoint file, replaced atomically; a restart resumes from it (default: "
                  "./replicate-<table>.checkpoint)");
  cmd->add_option("--status-file", f->status_file,
                  "Write the counters and the lag as /metrics-style text to this file every second");
  cmd->add_flag("--enable-source-stream", f->enable_source_stream,
                "If the source table has no stream, enable a NEW_AND_OLD_IMAGES one");
  cmd->add_option("--from-streams-url", f->from_streams_url,
                  "The source's Streams API endpoint (default: streams.dynamodb.<region>."
                  "amazonaws.com for DynamoDB, else the --from endpoint)");
  for (auto [side, flags] : {std::pair{"from", &f->from}, std::pair{"to", &f->to}}) {
    std::string s(side);
    cmd->add_option("--" + s + "-region", flags->region,
                    "Signing region of the " + s + " side (default: the region a "
                    "dynamodb.<region>.amazonaws.com URL names, else $AWS_REGION, "
                    "$AWS_DEFAULT_REGION, us-east-1)");
    cmd->add_option("--" + s + "-access-key-id", flags->access_key_id,
                    "Access key of the " + s + " side (default: $AWS_ACCESS_KEY_ID, else 'local')");
    cmd->add_option("--" + s + "-secret-access-key", flags->secret_access_key,
                    "Secret key of the " + s + " side (default: $AWS_SECRET_ACCESS_KEY, else 'local')");
    cmd->add_option("--" + s + "-session-token", flags->session_token,
                    "Session token of the " + s + " side (default: $AWS_SESSION_TOKEN)");
  }
  cmd->callback([f, exit_code] { *exit_code = Replicate(*f); });
}

}  // namespace ttlstore::cli
