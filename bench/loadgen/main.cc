// ttlstore-loadgen: drives any DynamoDB endpoint with signed, keep-alive requests and reports
// throughput, latency percentiles, errors and (given --server-pid) the server's CPU per operation.
// See BENCHMARKS.md for how the runner uses it.
#include <dirent.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "engine.h"

using namespace loadgen;

namespace {

struct Options {
  std::string endpoint = "http://127.0.0.1:8000";
  std::vector<Workload> workloads;
  int connections = 50;
  int threads = 1;
  double duration_s = 5;
  double warmup_s = 1;
  uint64_t keys = 100000;
  int64_t preload = -1;  // -1: auto (load the key space unless it is already there)
  double preload_limit_s = 1800;
  std::string table;
  int scan_limit = 100;
  int timeout_ms = 10000;
  std::vector<long> server_pids;  // their CPU and RSS are summed (several ttlstore processes)
  long tree_pid = 0;  // a process tree whose CPU is reported too (a database's postmaster)
  std::string json_out;
  Credentials creds;
  bool sign_only = false;  // print the signed request for --op/--body at --now and exit
  std::string op = "ListTables", body = "{}";
  long long now = 0;
};

// The comma-separated parts of `v`, empty ones included ("" is one empty part).
std::vector<std::string> SplitCommas(const std::string& v) {
  std::vector<std::string> parts;
  for (size_t start = 0; start <= v.size();) {
    size_t comma = v.find(',', start);
    if (comma == std::string::npos) comma = v.size();
    parts.push_back(v.substr(start, comma - start));
    start = comma + 1;
  }
  return parts;
}

[[noreturn]] void Usage(const char* msg) {
  if (msg) std::fprintf(stderr, "loadgen: %s\n\n", msg);
  std::fprintf(stderr,
      "usage: loadgen --workload W[,W...] [options]\n"
      "  workloads: put get mixed update query batch-put scan, or load (only the preload)\n"
      "  --endpoint URL[,URL]  http://host:port (default http://127.0.0.1:8000); several: client\n"
      "                        thread t drives endpoint t mod their number (--threads)\n"
      "  --connections N       concurrent keep-alive connections, 1 request in flight each (50)\n"
      "  --threads N           client threads, each with its own epoll loop (1)\n"
      "  --duration S          measured seconds per workload, at most 3600 (5)\n"
      "  --warmup S            unmeasured seconds before each workload, at most 600 (1)\n"
      "  --keys N              key space (100000); query: N/10 partitions of 10 items\n"
      "  --preload auto|N      items written before measuring: auto loads the key space unless\n"
      "                        its last item is already there (default); 0 skips\n"
      "  --preload-limit S     give up preloading after S seconds (1800)\n"
      "  --table NAME          table (created if missing; default bench, bench_range for query)\n"
      "  --scan-limit N        Limit of the scan page (100)\n"
      "  --timeout-ms N        per-request timeout, counted as an error (10000)\n"
      "  --server-pid PID[,PID] report the server's CPU time per operation and its RSS (summed\n"
      "                        over the PIDs given)\n"
      "  --tree-pid PID        also report the CPU per operation of PID's whole process tree\n"
      "                        (its live descendants and its reaped children), e.g. the\n"
      "                        postmaster of the database a server keeps its data in\n"
      "  --json-out FILE       also append each result's JSON line to FILE\n"
      "  --access-key K --secret-key S --region R   SigV4 credentials (env AWS_* or bench/us-east-1)\n"
      "  --sign-only --op OP --body JSON --now EPOCH  print a signed request and exit\n"
      "Exit status: 0 when every workload ran without errors and with operations, 1 otherwise,\n"
      "2 for usage errors.\n");
  std::exit(2);
}

double ParseDouble(const std::string& v, const char* name) {
  char* end = nullptr;
  double d = std::strtod(v.c_str(), &end);
  if (end == v.c_str() || *end || !std::isfinite(d) || d < 0)
    Usage((std::string("bad value for ") + name).c_str());
  return d;
}

uint64_t ParseUint(const std::string& v, const char* name) {
  char* end = nullptr;
  unsigned long long n = std::strtoull(v.c_str(), &end, 10);
  if (end == v.c_str() || *end || v[0] == '-') Usage((std::string("bad value for ") + name).c_str());
  return n;
}

Options ParseArgs(int argc, char** argv) {
  Options o;
  if (const char* e = std::getenv("AWS_ACCESS_KEY_ID")) o.creds.access_key = e;
  if (const char* e = std::getenv("AWS_SECRET_ACCESS_KEY")) o.creds.secret_key = e;
  if (const char* e = std::getenv("AWS_REGION")) o.creds.region = e;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i], v;
    if (a == "-h" || a == "--help") Usage(nullptr);
    if (a == "--sign-only") { o.sign_only = true; continue; }
    if (auto eq = a.find('='); eq != std::string::npos) {
      v = a.substr(eq + 1);
      a = a.substr(0, eq);
    } else {
      if (i + 1 >= argc) Usage(("missing value for " + a).c_str());
      v = argv[++i];
    }
    if (a == "--endpoint") o.endpoint = v;
    else if (a == "--workload") {
      std::stringstream ss(v);
      std::string w;
      while (std::getline(ss, w, ',')) {
        Workload wl;
        if (!ParseWorkload(w, wl)) Usage(("unknown workload " + w).c_str());
        o.workloads.push_back(wl);
      }
    } else if (a == "--connections") o.connections = int(ParseUint(v, "--connections"));
    else if (a == "--threads") o.threads = int(ParseUint(v, "--threads"));
    else if (a == "--duration") o.duration_s = ParseDouble(v, "--duration");
    else if (a == "--warmup") o.warmup_s = ParseDouble(v, "--warmup");
    else if (a == "--keys") o.keys = ParseUint(v, "--keys");
    else if (a == "--preload") o.preload = v == "auto" ? -1 : int64_t(ParseUint(v, "--preload"));
    else if (a == "--preload-limit") o.preload_limit_s = ParseDouble(v, "--preload-limit");
    else if (a == "--table") o.table = v;
    else if (a == "--scan-limit") o.scan_limit = int(ParseUint(v, "--scan-limit"));
    else if (a == "--timeout-ms") o.timeout_ms = int(ParseUint(v, "--timeout-ms"));
    else if (a == "--server-pid") {
      for (const std::string& pid : SplitCommas(v)) {
        o.server_pids.push_back(long(ParseUint(pid, "--server-pid")));
      }
    }
    else if (a == "--tree-pid") o.tree_pid = long(ParseUint(v, "--tree-pid"));
    else if (a == "--json-out") o.json_out = v;
    else if (a == "--access-key") o.creds.access_key = v;
    else if (a == "--secret-key") o.creds.secret_key = v;
    else if (a == "--region") o.creds.region = v;
    else if (a == "--op") o.op = v;
    else if (a == "--body") o.body = v;
    else if (a == "--now") o.now = (long long)ParseUint(v, "--now");
    else Usage(("unknown option " + a).c_str());
  }
  if (o.sign_only) return o;
  if (o.workloads.empty()) Usage("--workload is required");
  if (o.connections < 1 || o.connections > 10000) Usage("--connections must be 1..10000");
  if (o.threads < 1 || o.threads > o.connections) Usage("--threads must be 1..connections");
  if (o.duration_s <= 0 || o.duration_s > 3600) Usage("--duration must be in (0, 3600]");
  if (o.warmup_s > 600) Usage("--warmup must be at most 600");
  if (o.keys < 25) Usage("--keys must be at least 25");
  if (o.preload > int64_t(o.keys)) Usage("--preload cannot exceed --keys");
  if (o.timeout_ms < 1) Usage("--timeout-ms must be positive");
  return o;
}

// utime+stime of a process in microseconds, or -1 if it cannot be read.
double ProcessCpuUs(long pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string s((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  auto rp = s.rfind(')');
  if (rp == std::string::npos) return -1;
  std::istringstream in(s.substr(rp + 2));
  std::string tok;
  unsigned long long utime = 0, stime = 0;
  // Fields after the command name start at field 3 (state); utime is field 14, stime 15.
  for (int field = 3; field <= 15 && in >> tok; ++field) {
    if (field == 14) utime = std::stoull(tok);
    if (field == 15) stime = std::stoull(tok);
  }
  return double(utime + stime) * 1e6 / double(sysconf(_SC_CLK_TCK));
}

// Fields 4 (ppid), 14-17 (utime, stime, cutime, cstime) of /proc/PID/stat; false if unreadable.
bool ReadStat(long pid, long* ppid, unsigned long long* self_ticks,
              unsigned long long* reaped_ticks) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string s((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  auto rp = s.rfind(')');
  if (rp == std::string::npos || rp + 2 > s.size()) return false;
  std::istringstream in(s.substr(rp + 2));
  std::string tok;
  unsigned long long v[18] = {};
  for (int field = 3; field <= 17 && in >> tok; ++field) {
    if (field == 4 || field >= 14) v[field] = std::strtoull(tok.c_str(), nullptr, 10);
  }
  *ppid = long(v[4]);
  *self_ticks = v[14] + v[15];
  *reaped_ticks = v[16] + v[17];
  return true;
}

// utime+stime of PID and of every live descendant, plus the cutime+cstime of PID (its children
// that exited and were waited for, e.g. a database's finished backends), in microseconds; -1 if
// PID cannot be read. Descendants' own reaped children count through them, transitively.
double TreeCpuUs(long root) {
  std::unordered_map<long, long> parent;
  std::unordered_map<long, unsigned long long> ticks;
  unsigned long long root_reaped = 0;
  bool root_seen = false;
  if (DIR* d = opendir("/proc")) {
    while (dirent* e = readdir(d)) {
      char* end = nullptr;
      long pid = std::strtol(e->d_name, &end, 10);
      if (pid <= 0 || *end) continue;
      long ppid = 0;
      unsigned long long self = 0, reaped = 0;
      if (!ReadStat(pid, &ppid, &self, &reaped)) continue;
      parent[pid] = ppid;
      ticks[pid] = self + (pid == root ? 0 : reaped);
      if (pid == root) {
        root_reaped = reaped;
        root_seen = true;
      }
    }
    closedir(d);
  }
  if (!root_seen) return -1;
  unsigned long long total = root_reaped;
  for (const auto& [pid, t] : ticks) {
    for (long p = pid, hops = 0; p > 0 && hops < 64; ++hops) {
      if (p == root) {
        total += t;
        break;
      }
      auto it = parent.find(p);
      if (it == parent.end()) break;
      p = it->second;
    }
  }
  return double(total) * 1e6 / double(sysconf(_SC_CLK_TCK));
}

long ProcessRssKb(long pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::atol(line.c_str() + 6);
  return -1;
}

// The CPU time (µs) and RSS (kB) of every --server-pid, summed; -1 without one.
double ServersCpuUs(const Options& o) {
  if (o.server_pids.empty()) return -1;
  double total = 0;
  for (long pid : o.server_pids) total += ProcessCpuUs(pid);
  return total;
}

long ServersRssKb(const Options& o) {
  if (o.server_pids.empty()) return -1;
  long total = 0;
  for (long pid : o.server_pids) total += ProcessRssKb(pid);
  return total;
}

double SelfCpuUs() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e6 +
         double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

std::string JsonEscape(const std::string& s) {
  std::string o;
  for (char ch : s) {
    if (ch == '"' || ch == '\\') o += '\\';
    if (static_cast<unsigned char>(ch) < 0x20) continue;
    o += ch;
  }
  return o;
}

struct Client {
  std::vector<std::unique_ptr<SigV4Signer>> signers;
  std::vector<std::unique_ptr<Worker>> workers;

  // Runs the phase on every worker (one thread each) and merges their statistics.
  Stats Run(const Phase& p) {
    for (auto& w : workers) w->ResetStats();
    if (workers.size() == 1) {
      workers[0]->Run(p);
    } else {
      std::vector<std::thread> ts;
      for (auto& w : workers) ts.emplace_back([&w, &p] { w->Run(p); });
      for (auto& t : ts) t.join();
    }
    Stats total;
    for (auto& w : workers) total.Merge(w->stats());
    return total;
  }
};

std::string FormatErrors(const Stats& st) {
  std::string o;
  for (const auto& [k, v] : st.errors) o += (o.empty() ? "" : " ") + k + "=" + std::to_string(v);
  return o;
}

// Runs one workload; returns true if it had no errors and completed operations.
bool RunWorkload(const Options& o, Workload w, const Endpoint& ep, SigV4Signer& setup_signer,
                 Client& cl) {
  Settings s;
  s.range_key = NeedsRangeKey(w);
  s.table = !o.table.empty() ? o.table : (s.range_key ? "bench_range" : "bench");
  s.keys = o.keys;
  s.scan_limit = o.scan_limit;
  s.ttl_epoch = std::time(nullptr) + 86400;
  uint64_t total_items = s.range_key ? std::max<uint64_t>(1, s.keys / 10) * 10 : s.keys;

  BlockingClient setup(ep, setup_signer, o.timeout_ms);
  bool created = EnsureTable(setup, s, true);
  uint64_t to_load = 0;
  if (o.preload > 0) to_load = uint64_t(o.preload);
  else if (o.preload < 0 && (created || !LooksLoaded(setup, s))) to_load = total_items;
  for (auto& wk : cl.workers) wk->set_settings(s);

  Stats preload_stats;
  double preload_s = 0;
  if (to_load) {
    std::atomic<uint64_t> next{0};
    Phase p;
    p.kind = Phase::kPreload;
    p.next_item = &next;
    p.total_items = to_load;
    uint64_t t0 = NowNs();
    p.deadline_ns = t0 + uint64_t(o.preload_limit_s * 1e9);
    preload_stats = cl.Run(p);
    preload_s = double(NowNs() - t0) / 1e9;
    std::printf("preload %s: %llu items in %.2f s (%.0f items/s)%s%s\n", s.table.c_str(),
                (unsigned long long)preload_stats.items, preload_s,
                preload_s > 0 ? double(preload_stats.items) / preload_s : 0.0,
                preload_stats.errors.empty() ? "" : ", ERRORS: ",
                FormatErrors(preload_stats).c_str());
    std::fflush(stdout);
  }
  if (w == Workload::kLoad) {
    bool ok = preload_stats.ErrorCount() == 0;
    std::printf("{\"workload\":\"load\",\"table\":\"%s\",\"items\":%llu,\"seconds\":%.3f,"
                "\"errors\":%llu,\"server_rss_kb\":%ld}\n",
                JsonEscape(s.table).c_str(), (unsigned long long)preload_stats.items, preload_s,
                (unsigned long long)preload_stats.ErrorCount(),
                ServersRssKb(o));
    return ok;
  }

  Stats warm;
  if (o.warmup_s > 0) {
    Phase p;
    p.kind = Phase::kWarmup;
    p.workload = w;
    p.deadline_ns = NowNs() + uint64_t(o.warmup_s * 1e9);
    warm = cl.Run(p);
  }

  Phase p;
  p.kind = Phase::kMeasure;
  p.workload = w;
  double srv0 = ServersCpuUs(o), self0 = SelfCpuUs();
  double tree0 = o.tree_pid ? TreeCpuUs(o.tree_pid) : -1;
  uint64_t t0 = NowNs();
  p.deadline_ns = t0 + uint64_t(o.duration_s * 1e9);
  Stats st = cl.Run(p);
  double srv1 = ServersCpuUs(o), self1 = SelfCpuUs();
  double tree1 = o.tree_pid ? TreeCpuUs(o.tree_pid) : -1;
  double elapsed = o.duration_s;  // only completions before the deadline are counted
  st.Merge(warm);                 // warm-up errors count too (its ops were never recorded)
  st.Merge(preload_stats);
  st.ops -= preload_stats.ops;
  st.items -= preload_stats.items;
  // A run in which nothing completed measured nothing: that is a failure, not a zero.
  if (st.ops == 0) ++st.errors["NoOperationCompleted"];

  double ops_s = double(st.ops) / elapsed;
  double srv_us = (srv0 >= 0 && srv1 >= 0 && st.ops) ? (srv1 - srv0) / double(st.ops) : -1;
  double cli_us = st.ops ? (self1 - self0) / double(st.ops) : -1;
  double tree_us = (tree0 >= 0 && tree1 >= 0 && st.ops) ? (tree1 - tree0) / double(st.ops) : -1;
  long rss = ServersRssKb(o);
  uint64_t nerr = st.ErrorCount();
  const char* name = WorkloadName(w);

  std::printf("%s: %llu ops in %.2f s = %.0f ops/s", name, (unsigned long long)st.ops, elapsed,
              ops_s);
  if (w == Workload::kBatchPut) std::printf(" (%.0f items/s)", double(st.items) / elapsed);
  std::printf(", %d connections\n  latency us: p50 %llu  p90 %llu  p99 %llu  p999 %llu  max %llu"
              "  mean %.1f\n",
              o.connections, (unsigned long long)st.hist.Quantile(0.5),
              (unsigned long long)st.hist.Quantile(0.9), (unsigned long long)st.hist.Quantile(0.99),
              (unsigned long long)st.hist.Quantile(0.999), (unsigned long long)st.hist.max(),
              st.hist.mean());
  if (srv_us >= 0) std::printf("  server cpu: %.1f us/op (%zu process(es), rss %ld kB)\n",
                               srv_us, o.server_pids.size(), rss);
  if (tree_us >= 0) std::printf("  tree cpu: %.1f us/op (pid %ld and its descendants)\n", tree_us,
                                o.tree_pid);
  std::printf("  client cpu: %.1f us/op\n", cli_us);
  if (nerr) std::printf("  ERRORS: %llu (%s)\n", (unsigned long long)nerr, FormatErrors(st).c_str());
  else std::printf("  errors: none\n");

  char head[1024];
  std::snprintf(head, sizeof head,
                "{\"workload\":\"%s\",\"endpoint\":\"%s\",\"table\":\"%s\",\"connections\":%d,"
                "\"threads\":%d,\"duration_s\":%.3f,\"keys\":%llu,\"ops\":%llu,\"ops_per_s\":%.1f,"
                "\"items_per_s\":%.1f,\"p50_us\":%llu,\"p90_us\":%llu,\"p99_us\":%llu,"
                "\"p999_us\":%llu,\"max_us\":%llu,\"mean_us\":%.1f,",
                name, JsonEscape(o.endpoint).c_str(), JsonEscape(s.table).c_str(), o.connections,
                o.threads, elapsed, (unsigned long long)s.keys, (unsigned long long)st.ops, ops_s,
                double(st.items) / elapsed, (unsigned long long)st.hist.Quantile(0.5),
                (unsigned long long)st.hist.Quantile(0.9),
                (unsigned long long)st.hist.Quantile(0.99),
                (unsigned long long)st.hist.Quantile(0.999), (unsigned long long)st.hist.max(),
                st.hist.mean());
  std::string json = head;
  auto num = [](double v) {
    if (v < 0) return std::string("null");
    char b[32];
    std::snprintf(b, sizeof b, "%.2f", v);
    return std::string(b);
  };
  json += "\"server_cpu_us_per_op\":" + num(srv_us) + ",\"tree_cpu_us_per_op\":" + num(tree_us) +
          ",\"client_cpu_us_per_op\":" + num(cli_us) +
          ",\"server_rss_kb\":" + (rss >= 0 ? std::to_string(rss) : "null") +
          ",\"preload_items\":" + std::to_string(preload_stats.items) +
          ",\"preload_s\":" + num(preload_s) + ",\"error_count\":" + std::to_string(nerr) +
          ",\"errors\":{";
  bool first = true;
  for (const auto& [k, v] : st.errors) {
    json += (first ? "\"" : ",\"") + JsonEscape(k) + "\":" + std::to_string(v);
    first = false;
  }
  json += "}}";
  std::printf("%s\n", json.c_str());
  std::fflush(stdout);
  if (!o.json_out.empty()) {
    std::ofstream f(o.json_out, std::ios::app);
    f << json << "\n";
  }
  return nerr == 0 && st.ops > 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o = ParseArgs(argc, argv);
  try {
    if (o.sign_only) {
      Endpoint ep = ParseEndpoint(o.endpoint);
      SigV4Signer signer(o.creds);
      std::string req;
      BuildRequest(req, signer, ep, o.op, o.body, std::time_t(o.now ? o.now : std::time(nullptr)));
      std::fwrite(req.data(), 1, req.size(), stdout);
      std::printf("\n");
      return 0;
    }
    // One or several endpoints (comma-separated): worker t drives endpoint t mod their number.
    std::vector<Endpoint> eps;
    for (const std::string& url : SplitCommas(o.endpoint)) eps.push_back(ParseEndpoint(url));
    const Endpoint& ep = eps.front();  // tables are created and checked through the first
    SigV4Signer setup_signer(o.creds);
    Client cl;
    int per = o.connections / o.threads, extra = o.connections % o.threads;
    for (int t = 0; t < o.threads; ++t) {
      cl.signers.push_back(std::make_unique<SigV4Signer>(o.creds));
      Settings placeholder;
      cl.workers.push_back(std::make_unique<Worker>(eps[size_t(t) % eps.size()],
                                                    *cl.signers.back(), placeholder,
                                                    per + (t < extra ? 1 : 0),
                                                    uint64_t(getpid()) * 31 + uint64_t(t),
                                                    o.timeout_ms));
    }
    bool ok = true;
    for (Workload w : o.workloads) ok = RunWorkload(o, w, ep, setup_signer, cl) && ok;
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "loadgen: %s\n", e.what());
    return 1;
  }
}
