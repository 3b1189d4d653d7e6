#!/usr/bin/env python3
"""ttlstore on RocksDB and on PostgreSQL side by side: the same workloads, the same client.

For each backend in turn: starts ttlstore (RocksDB in a fresh data dir; or a private PostgreSQL 15
cluster that this script starts with scripts/pg-server.sh on 127.0.0.1 and `--storage` pointing at
it), loads the key space, drives run_peers.py's workloads (put, get, update, query, batch-put) with
bench/loadgen, then runs two TTL waves with bench/ttl_wave.py (N items due in the same second):
one on an idle server, one while loadgen drives a mixed get/put load, whose throughput is compared
with the same load without a wave. CPU per operation counts ttlstore's process and, on
PostgreSQL, the postmaster's whole process tree (utime+stime of every live descendant plus the
reaped children's, from /proc, over loadgen's measured window: loadgen --tree-pid).

  bench/backends.py --tiny     # seconds: CI smoke (bench/smoke.sh)
  bench/backends.py --quick    # about 3 minutes
  bench/backends.py            # the run for BENCHMARKS.md (about 12 minutes)

Loopback only; every step bounded in time; stops only the processes it started (ttlstore by its
PID, the PostgreSQL cluster by its own data dir). Only the standard library (and boto3 for
ttl_wave.py) is used.
"""
import argparse
import datetime
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run_peers as rp  # noqa: E402  (its loadgen runner, build and report helpers)

REPO = Path(__file__).resolve().parent.parent
BACKENDS = {"rocksdb": "RocksDB", "postgresql": "PostgreSQL"}
WORKLOADS = ["put", "get", "update", "query", "batch-put"]
# The targets (33): the wave's rate on PostgreSQL; put and get CPU per op (ttlstore +
# PostgreSQL) within this multiple of RocksDB's.
WAVE_TARGET = 20000
CPU_MULT = {"put": 5, "get": 5}
# PostgreSQL as durable as ttlstore's RocksDB default (WAL written, not fsynced per commit): the
# test script's fsync=off / full_page_writes=off are turned back on.
PG_OPTIONS = "-c fsync=on -c full_page_writes=on -c synchronous_commit=off"

log = rp.log


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    size = ap.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true", help="2 s per workload, 20k items")
    size.add_argument("--tiny", action="store_true", help="seconds in all: for CI (bench/smoke.sh)")
    ap.add_argument("--backends", default=",".join(BACKENDS))
    ap.add_argument("--workloads", default=",".join(WORKLOADS))
    ap.add_argument("--connections", type=int, help="loadgen connections (50; tiny 4)")
    ap.add_argument("--duration", type=float, help="measured seconds per workload (full 15)")
    ap.add_argument("--warmup", type=float, help="warm-up seconds per workload (full 3)")
    ap.add_argument("--items", type=int, help="key space, loaded first (full 200000)")
    ap.add_argument("--query-keys", type=int, help="items in the query table (full 50000)")
    ap.add_argument("--wave-items", type=int, help="items due in the same second (full 100000)")
    ap.add_argument("--wave-load-rate", type=float,
                    help="items/s ttl_wave.py is assumed to load at: sets how far ahead the wave "
                         "is due (default: a third of the backend's bulk-load rate, at most 2000)")
    ap.add_argument("--wave-window", type=float,
                    help="seconds of foreground load measured from the wave's expiry (full 10)")
    ap.add_argument("--wave-timeout", type=float, default=120,
                    help="give up on a wave this many seconds after its expiry")
    ap.add_argument("--no-wave", action="store_true")
    ap.add_argument("--waves", default="idle,load",
                    help="which TTL waves: idle (nothing else running), load (under a mixed load)")
    ap.add_argument("--threads", type=int, default=0,
                    help="ttlstore --threads on RocksDB (0: its default, one per CPU it may run on)")
    ap.add_argument("--pg-threads", type=int, default=32,
                    help="ttlstore --threads on PostgreSQL (32: a serving thread waits for each "
                         "round trip to the database, as under --sync; 0: ttlstore's default)")
    ap.add_argument("--serve-arg", action="append", default=[],
                    help="an extra `ttlstore serve` argument (repeatable), e.g. "
                         "--serve-arg=--ttl-sweep-threads=4")
    ap.add_argument("--settle", type=float, help="idle seconds after the bulk load (full 5)")
    ap.add_argument("--pin", action=argparse.BooleanOptionalAction, default=True,
                    help="ttlstore and PostgreSQL on CPU 0, the clients on CPU 1 (needs 2 CPUs)")
    ap.add_argument("--ttlstore", help="ttlstore binary (default build/ttlstore)")
    ap.add_argument("--loadgen", help="loadgen binary (default: built into build-bench/)")
    ap.add_argument("--out", default=str(REPO / "build-bench/backends"))
    a = ap.parse_args()
    q, t = a.quick, a.tiny
    pick = lambda v, tiny, quick, full: v if v is not None else (tiny if t else quick if q else full)
    a.connections = pick(a.connections, 4, 50, 50)
    a.duration = pick(a.duration, 0.5, 2.0, 15.0)
    a.warmup = pick(a.warmup, 0.0, 0.5, 3.0)
    a.items = pick(a.items, 2000, 20000, 200000)
    a.query_keys = pick(a.query_keys, 1000, 10000, 50000)
    a.wave_items = pick(a.wave_items, 2000, 20000, 100000)
    a.wave_window = pick(a.wave_window, 1.0, 4.0, 10.0)
    a.settle = pick(a.settle, 0.0, 1.0, 5.0)
    a.pin = a.pin and len(os.sched_getaffinity(0)) >= 2 and shutil.which("taskset") is not None
    a.backends = [b for b in a.backends.split(",") if b]
    a.workloads = [w for w in a.workloads.split(",") if w]
    a.servers = ["ttlstore"]  # for rp.build_tools
    for b in a.backends:
        if b not in BACKENDS:
            ap.error(f"unknown backend {b}")
    for w in a.workloads:
        if w not in rp.ALL_WORKLOADS:
            ap.error(f"unknown workload {w}")
    return a


def uptime():
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


# ---------------------------------------------------------------- PostgreSQL

class PgCluster:
    """A private PostgreSQL cluster from scripts/pg-server.sh, on 127.0.0.1, stopped by its dir."""

    def __init__(self, a):
        env = dict(os.environ, PG_EXTRA_OPTIONS=PG_OPTIONS)
        out = subprocess.run(["bash", str(REPO / "scripts/pg-server.sh"), "start"], env=env,
                             capture_output=True, text=True, timeout=120)
        if out.returncode != 0:
            raise RuntimeError("scripts/pg-server.sh start failed: " + out.stderr.strip()[-300:])
        vals = dict(re.findall(r"^export (\w+)='([^']*)'$", out.stdout, re.M))
        self.conninfo, self.dir = vals["TTLSTORE_TEST_PG"], vals["TTLSTORE_PG_DIR"]
        self.pid = int(Path(self.dir, "data/postmaster.pid").read_text().split()[0])
        if a.pin:  # the postmaster and what it runs already; backends forked later inherit it
            for pid in tree_pids(self.pid):
                subprocess.run(["taskset", "-a", "-p", "-c", str(rp.SERVER_CPU), str(pid)],
                               capture_output=True)
        ver = subprocess.run(["/usr/lib/postgresql/15/bin/postgres", "--version"],
                             capture_output=True, text=True).stdout.strip()
        self.version = ver.split()[2] if len(ver.split()) > 2 else "?"

    def stop(self):
        subprocess.run(["bash", str(REPO / "scripts/pg-server.sh"), "stop", self.dir],
                       capture_output=True, timeout=60)


def tree_pids(root):
    parent = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                s = Path(f"/proc/{d}/stat").read_text()
            except OSError:
                continue
            parent[int(d)] = int(s[s.rfind(")") + 2:].split()[1])
    out = []
    for pid in parent:
        p, hops = pid, 0
        while p > 0 and hops < 64:
            if p == root:
                out.append(pid)
                break
            p, hops = parent.get(p, 0), hops + 1
    return out


# ---------------------------------------------------------------- ttlstore

class Ttlstore:
    def __init__(self, a, tmp, backend, pg):
        cmd = rp.pinned(a, rp.SERVER_CPU) + [a.ttlstore, "serve", "--port", "0", "--data-dir",
                                             f"{tmp}/{backend}"]
        if pg:
            cmd += ["--storage", pg.conninfo]
        threads = a.pg_threads if pg else a.threads
        if threads:
            cmd += ["--threads", str(threads)]
        cmd += a.serve_arg
        self.log_path = f"{tmp}/{backend}.log"
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen(cmd, stdout=self.log, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        self.port, t0 = None, time.monotonic()
        while time.monotonic() - t0 < 60:
            if self.proc.poll() is not None:
                raise RuntimeError(f"ttlstore exited during start-up; see {self.log_path}")
            m = re.search(r"address=http://127\.0\.0\.1:(\d+)", Path(self.log_path).read_text())
            if m and rp.list_tables_ok(int(m.group(1))):
                self.port = int(m.group(1))
                break
            time.sleep(0.01)
        if self.port is None:
            self.stop()
            raise RuntimeError("ttlstore did not answer within 60 s")
        m = re.search(r"threads=(\d+)", Path(self.log_path).read_text())
        self.threads = int(m.group(1)) if m else None

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


# ---------------------------------------------------------------- the TTL wave

def ttl_wave(a, srv, tree, foreground, load_rate):
    """One wave of a.wave_items items due in one second (bench/ttl_wave.py). With foreground,
    loadgen drives a mixed get/put load from the wave's expiry for a.wave_window seconds."""
    cmd = rp.pinned(a, rp.CLIENT_CPU) + [
        sys.executable, str(REPO / "bench/ttl_wave.py"), "--endpoint",
        f"http://127.0.0.1:{srv.port}", "--items", str(a.wave_items), "--load-rate",
        f"{load_rate:.0f}", "--timeout", str(a.wave_timeout)]
    limit = a.wave_items / load_rate * 3 + a.wave_timeout + 60
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines, fg, deadline = [], None, time.monotonic() + limit
    try:
        for line in p.stdout:
            lines.append(line.rstrip())
            m = re.match(r"loaded (\d+) items in ([\d.]+) s; they expire at (\d+)", line)
            if m and foreground:
                wait = max(0.0, int(m.group(3)) - time.time())
                fg = rp.run_loadgen(a, srv.port, srv.proc.pid, "mixed", a.items, a.connections,
                                    a.wave_window, wait, ["--preload", "0"] + tree)
            if time.monotonic() > deadline:
                break
        p.wait(timeout=max(1.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        pass
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    text = "\n".join(lines)
    out = {"output": text, "foreground": fg}
    m = re.search(r"loaded (\d+) items in ([\d.]+) s", text)
    if m:
        out["items"], out["load_s"] = int(m.group(1)), float(m.group(2))
    m = re.search(r"first deletions ([-\d.]+) s after the first expiry; all (\d+) gone ([-\d.]+) s "
                  r"after the last; deletion rate ([\d,]+) items/s", text)
    if m:
        out.update(first_s=float(m.group(1)), last_s=float(m.group(3)),
                   rate=float(m.group(4).replace(",", "")))
        # ttl_wave.py's rate runs from the first deletion it saw to the last; when both fell in
        # one 50 ms poll that is no measure: count from the expiry second instead (a floor).
        if out["last_s"] - out["first_s"] < 0.2 and out.get("items"):
            out["rate"] = out["items"] / max(out["last_s"], 0.05)
            out["rate_floor"] = True
    m = re.search(r"p50 <= (\S+) s, p99 <= (\S+) s, max <= (\S+) s", text)
    if m:
        out["lag"] = {"p50": m.group(1), "p99": m.group(2), "max": m.group(3)}
    return out


# ---------------------------------------------------------------- one backend

def bench_backend(a, backend, tmp):
    log(f"{BACKENDS[backend]}: starting")
    pg = PgCluster(a) if backend == "postgresql" else None
    res = {"backend": backend, "workloads": {}}
    srv = None
    try:
        if pg:
            res["postgres"] = pg.version
            log(f"  PostgreSQL {pg.version}, postmaster pid {pg.pid}")
        srv = Ttlstore(a, tmp, backend, pg)
        res["threads"] = srv.threads
        tree = ["--tree-pid", str(pg.pid)] if pg else []
        ld = rp.run_loadgen(a, srv.port, srv.proc.pid, "load", a.items, a.connections, 1, 0, tree)
        res["load"] = ld
        log(f"  loaded {ld.get('items')} items in {ld.get('seconds')} s")
        time.sleep(a.settle)
        for w in a.workloads:
            keys = a.query_keys if w == "query" else a.items
            r = rp.run_loadgen(a, srv.port, srv.proc.pid, w, keys, a.connections, a.duration,
                               a.warmup, tree)
            res["workloads"][w] = r
            log(f"  {w}: {r.get('ops_per_s', 0):.0f} ops/s, p50 {r.get('p50_us')} us, ttlstore "
                f"{r.get('server_cpu_us_per_op')} + PostgreSQL {r.get('tree_cpu_us_per_op')} "
                f"us/op, errors {r.get('error_count')}")
        if not a.no_wave:
            r = rp.run_loadgen(a, srv.port, srv.proc.pid, "mixed", a.items, a.connections,
                               a.wave_window, a.warmup, ["--preload", "0"] + tree)
            res["workloads"]["mixed"] = r
            log(f"  mixed (no wave): {r.get('ops_per_s', 0):.0f} ops/s")
            rate = a.wave_load_rate
            if not rate:
                bulk = ld["items"] / ld["seconds"] if ld.get("seconds") else 2000
                rate = max(200.0, min(2000.0, bulk / 3))
            res["wave_load_rate"] = rate
            for fg in (False, True):
                if ("load" if fg else "idle") not in a.waves.split(","):
                    continue
                w = ttl_wave(a, srv, tree, fg, rate)
                res["wave_fg" if fg else "wave"] = w
                log(f"  TTL wave{' under load' if fg else ''}: {w.get('rate')} items/s, last gone "
                    f"{w.get('last_s')} s after expiry"
                    + (f"; foreground {w['foreground'].get('ops_per_s', 0):.0f} ops/s"
                       if w.get("foreground") else ""))
    finally:
        if srv:
            srv.stop()
        if pg:
            pg.stop()
    return res


# ---------------------------------------------------------------- report

def total_cpu(r):
    if not r or r.get("server_cpu_us_per_op") is None:
        return None
    return r["server_cpu_us_per_op"] + (r.get("tree_cpu_us_per_op") or 0)


def cell(r):
    if not r or "ops_per_s" not in r:
        return "failed"
    s = f"{rp.k(r['ops_per_s'])} · {r['p50_us'] / 1000:.2f}/{r['p99_us'] / 1000:.1f} ms"
    if r.get("server_cpu_us_per_op") is not None:
        s += f" · {r['server_cpu_us_per_op']:.0f}"
        if r.get("tree_cpu_us_per_op") is not None:
            s += f" + {r['tree_cpu_us_per_op']:.0f} = {total_cpu(r):.0f}"
        s += " µs"
    if r.get("error_count"):
        s += f" · **{r['error_count']} errors**"
    return s


def report(res, a):
    m, lines = res["machine"], []
    done = [b for b in a.backends if "workloads" in res["backends"].get(b, {})]
    pgv = res["backends"].get("postgresql", {}).get("postgres")
    thr = ", ".join(f"{BACKENDS[b]} {res['backends'][b].get('threads')}" for b in done)
    lines.append(f"Run {res['started']} ({'tiny' if a.tiny else 'quick' if a.quick else 'full'}): "
                 f"{a.connections} connections, {a.duration:g} s per workload after {a.warmup:g} s "
                 f"warm-up, {a.items} items loaded (query table {a.query_keys}); {m['cpu']}, "
                 f"{m['cpus']} CPUs, {m['mem_gib']} GiB, Linux {m['kernel']}; ttlstore serving "
                 f"threads: {thr}"
                 + (f"; PostgreSQL {pgv} ({PG_OPTIONS})" if pgv else "") + "; "
                 + ("ttlstore and PostgreSQL on CPU 0, the clients on CPU 1.\n" if a.pin
                    else "not pinned.\n"))
    lines.append(f"Machine load: before `{res['uptime_before']}`; after `{res['uptime_after']}`.\n")
    lines.append("Each cell: ops/s · p50/p99 latency · CPU per op: ttlstore [+ PostgreSQL's "
                 "processes = total] (user+system time ÷ ops). batch-put counts requests of 25 "
                 "items.\n")
    hdr = ["workload"] + [BACKENDS[b] for b in done]
    both = "rocksdb" in done and "postgresql" in done
    if both:
        hdr += ["PG ÷ RocksDB throughput", "PG ÷ RocksDB CPU/op"]
    lines.append("| " + " | ".join(hdr) + " |")
    lines.append("|" + "---|" * len(hdr))
    wls = list(a.workloads) + ([] if a.no_wave else ["mixed"])
    for w in wls:
        rs = [res["backends"][b]["workloads"].get(w) for b in done]
        row = [w if w != "mixed" else "mixed (50% get, 50% put; no wave)"] + [cell(r) for r in rs]
        if both:
            r0, r1 = (res["backends"][b]["workloads"].get(w) or {} for b in ("rocksdb", "postgresql"))
            t = (f"{r1['ops_per_s'] / r0['ops_per_s']:.2f}×"
                 if r0.get("ops_per_s") and r1.get("ops_per_s") else "–")
            c0, c1 = total_cpu(r0), total_cpu(r1)
            row += [t, f"{c1 / c0:.1f}×" if c0 and c1 else "–"]
        lines.append("| " + " | ".join(row) + " |")
    lines.append("")
    lines.append("| | " + " | ".join(BACKENDS[b] for b in done) + " |")
    lines.append("|---|" + "---|" * len(done))
    def ld(b):
        x = res["backends"][b].get("load", {})
        return f"{rp.k(x['items'] / x['seconds'])} items/s" if x.get("seconds") else "?"
    lines.append("| bulk load (BatchWriteItem, loadgen) | " + " | ".join(ld(b) for b in done) + " |")
    if not a.no_wave:
        for key, name in (("wave", f"TTL wave, {a.wave_items} items due in one second, idle server"),
                          ("wave_fg", "the same wave under a mixed load")):
            cells = []
            for b in done:
                w = res["backends"][b].get(key, {})
                if "rate" not in w:
                    cells.append("failed: " + (w.get("output", "").splitlines() or ["?"])[-1][:120])
                    continue
                s = (f"{'≥ ' if w.get('rate_floor') else ''}{rp.k(w['rate'])} items/s; first deleted {w['first_s']:.2f} s after expiry, "
                     f"last {w['last_s']:.2f} s after")
                if w.get("lag"):
                    s += f"; lag p50 ≤ {w['lag']['p50']} s, p99 ≤ {w['lag']['p99']} s"
                fg, base = w.get("foreground"), res["backends"][b]["workloads"].get("mixed")
                if fg and fg.get("ops_per_s"):
                    s += (f"; foreground {rp.k(fg['ops_per_s'])} ops/s"
                          f" (p99 {fg['p99_us'] / 1000:.1f} ms)")
                    if base and base.get("ops_per_s"):
                        s += f", {fg['ops_per_s'] / base['ops_per_s']:.0%} of it without a wave"
                    if fg.get("error_count"):
                        s += f", **{fg['error_count']} errors**"
                cells.append(s)
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines += ["", *targets(res, a, done)]
    return "\n".join(lines) + "\n"


def targets(res, a, done):
    out = ["| target (issue 33) | measured | met |", "|---|---|---|"]
    if "postgresql" in done and not a.no_wave:
        w = res["backends"]["postgresql"].get("wave", {})
        rate = w.get("rate")
        out.append(f"| TTL wave ≥ {rp.k(WAVE_TARGET)} items/s on PostgreSQL (idle server) | "
                   f"{rp.k(rate) + ' items/s' if rate else 'failed'} | "
                   f"{'yes' if rate and rate >= WAVE_TARGET else 'no'} |")
    if "postgresql" in done and "rocksdb" in done:
        for w, mult in CPU_MULT.items():
            c0 = total_cpu(res["backends"]["rocksdb"]["workloads"].get(w))
            c1 = total_cpu(res["backends"]["postgresql"]["workloads"].get(w))
            if c0 and c1:
                out.append(f"| {w} CPU/op on PostgreSQL (ttlstore + PostgreSQL) ≤ {mult}× "
                           f"RocksDB's | {c1:.0f} vs {c0:.0f} µs ({c1 / c0:.1f}×) | "
                           f"{'yes' if c1 <= mult * c0 else 'no'} |")
    return out if len(out) > 2 else []


def failures(res):
    errs = []
    for b, r in res["backends"].items():
        if "error" in r:
            errs.append(f"{b}: {r['error']}")
            continue
        for w, x in r.get("workloads", {}).items():
            if x.get("error_count") or not x.get("ops"):
                errs.append(f"{b}/{w}")
        for key in ("wave", "wave_fg"):
            if key in r and "rate" not in r[key]:
                errs.append(f"{b}/{key}")
            fg = r.get(key, {}).get("foreground")
            if fg is not None and (fg.get("error_count") or not fg.get("ops")):
                errs.append(f"{b}/{key}/foreground")
    return errs


def run_cases(a, name, cases, bench_one, report, failures):
    """The runner this script and bench/processes.py share: builds the tools, runs
    bench_one(a, case, tmp) for each case into res[name][case] (a case that fails records its
    error and the others go on), writes the report and the raw results to a.out, and exits 1
    when failures(res) names any."""
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    rp.build_tools(a)
    tmp = tempfile.mkdtemp(prefix=f"ttlstore-{name}-")
    res = {"started": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
           "machine": rp.machine(), "uptime_before": uptime(), name: {},
           "settings": {k: v for k, v in vars(a).items()}}
    log(f"load: {res['uptime_before']}")
    try:
        for case in cases:
            try:
                res[name][case] = bench_one(a, case, tmp)
            except (RuntimeError, OSError, KeyError, subprocess.TimeoutExpired) as e:
                log(f"{case}: {e}")
                res[name][case] = {"error": str(e)}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    res["uptime_after"] = uptime()
    rp.write_results(res, report(res, a), a.out)
    errs = failures(res)
    if errs:
        log("failed: " + ", ".join(errs))
    sys.exit(1 if errs else 0)


def main():
    a = parse_args()
    run_cases(a, "backends", a.backends, bench_backend, report, failures)


if __name__ == "__main__":
    main()
