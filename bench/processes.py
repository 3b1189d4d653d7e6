#!/usr/bin/env python3
"""ttlstore with 1, 2 and 3 processes on one PostgreSQL database (issue 34): the same workloads
through all of them at once, a TTL wave deleted by all of them, and the time a takeover takes.

For each process count n: a fresh private PostgreSQL cluster (scripts/pg-server.sh, configured
as bench/backends.py does), n ttlstore processes on it, and bench/loadgen driving each workload
through every process at once (its client threads spread over the endpoints). CPU per operation
is reported for the ttlstore processes together and for PostgreSQL's whole process tree
separately: on a 2-core machine more processes show what they cost, not how they scale. Then a
TTL wave (bench/ttl_wave.py loads it through the first process; every process deletes the items
of its sweeper shards), with the share each process deleted and the CPU per deleted item. With
n > 1, last, the takeover: kill -9 of the process holding the most sweeper shards, and the
seconds until the others hold all of them (--lease-seconds, default 5, as `ttlstore serve`).

  bench/processes.py --tiny     # seconds: CI smoke (bench/smoke.sh)
  bench/processes.py --quick    # about 3 minutes
  bench/processes.py            # the run for BENCHMARKS.md (about 10 minutes)

Loopback only; every step bounded in time; stops only the processes it started (ttlstore by its
PID, the PostgreSQL cluster by its own data dir).
"""
import argparse
import os
import re
import sys
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import backends as bk  # noqa: E402  (PostgreSQL cluster, ttlstore process, TTL wave runner)
import run_peers as rp  # noqa: E402  (build and machine helpers)

WORKLOADS = ["put", "get", "update"]
SHARDS = 16
log = rp.log


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    size = ap.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true", help="3 s per workload, 20k items")
    size.add_argument("--tiny", action="store_true", help="seconds in all: for CI (bench/smoke.sh)")
    ap.add_argument("--counts", default="1,2,3", help="process counts to run")
    ap.add_argument("--workloads", default=",".join(WORKLOADS))
    ap.add_argument("--connections", type=int, help="loadgen connections in all (48; tiny 6)")
    ap.add_argument("--duration", type=float, help="measured seconds per workload (full 10)")
    ap.add_argument("--warmup", type=float, help="warm-up seconds per workload (full 2)")
    ap.add_argument("--items", type=int, help="key space, loaded first (full 100000)")
    ap.add_argument("--wave-items", type=int, help="items due in the same second (full 100000)")
    ap.add_argument("--wave-timeout", type=float, default=180)
    ap.add_argument("--lease-seconds", type=float, default=5,
                    help="ttlstore serve --lease-seconds (the takeover's bound)")
    ap.add_argument("--pg-threads", type=int, default=32, help="ttlstore --threads per process")
    ap.add_argument("--serve-arg", action="append", default=[])
    ap.add_argument("--out", default="bench/results/processes")
    ap.add_argument("--loadgen", help="loadgen binary (default: built into build-bench)")
    ap.add_argument("--ttlstore", help="ttlstore binary (default build/ttlstore)")
    a = ap.parse_args()
    pick = (lambda tiny, quick, whole: tiny if a.tiny else quick if a.quick else whole)
    a.connections = a.connections or pick(6, 48, 48)
    a.duration = a.duration or pick(1, 3, 10)
    a.warmup = a.warmup if a.warmup is not None else pick(0.2, 1, 2)
    a.items = a.items or pick(500, 20000, 100000)
    a.wave_items = a.wave_items or pick(500, 20000, 100000)
    a.counts = [int(c) for c in a.counts.split(",")]
    a.workloads = a.workloads.split(",")
    # What backends.py's helpers read.
    a.pin, a.threads, a.servers, a.wave_window = False, 0, "ttlstore", 0
    a.serve_arg = a.serve_arg + ["--lease-seconds", str(a.lease_seconds)]
    return a


def tree_cpu_us(root):
    """CPU time of `root` and every live descendant, plus what `root` reaped (its cutime)."""
    total = 0.0
    for pid in bk.tree_pids(root):
        try:
            total += rp.cpu_us(pid)
        except OSError:
            pass  # exited meanwhile
    s = open(f"/proc/{root}/stat").read()
    f = s[s.rfind(")") + 2:].split()
    return total + (int(f[13]) + int(f[14])) * 1e6 / os.sysconf("SC_CLK_TCK")


def metrics(srv):
    url = f"http://127.0.0.1:{srv.port}/metrics"
    return urllib.request.urlopen(url, timeout=10).read().decode()


def deleted(srv):
    m = re.findall(r"^ttlstore_ttl_deleted_items_total(?:\{[^}]*\})? (\S+)$", metrics(srv), re.M)
    return sum(float(v) for v in m)


def held_shards(srv):
    return set(re.findall(r'^ttlstore_lease_held\{unit="(ttl/sweep/\d+)"\} 1$', metrics(srv), re.M))


def run_loadgen(a, servers, pg, workload, keys, duration, warmup, extra=()):
    cmd = [a.loadgen, "--endpoint", ",".join(f"http://127.0.0.1:{s.port}" for s in servers),
           "--threads", str(len(servers)), "--workload", workload,
           "--connections", str(a.connections), "--duration", str(duration),
           "--warmup", str(warmup), "--keys", str(keys),
           "--server-pid", ",".join(str(s.proc.pid) for s in servers),
           "--tree-pid", str(pg.pid), *extra]
    return rp.run_loadgen_cmd(cmd, workload, duration + warmup + 1800)


def wait_spread(servers, timeout=30):
    """Until the sweeper's shards are spread: every process holds its share, none twice."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        held = [held_shards(s) for s in servers]
        fair = -(-SHARDS // len(servers))
        if sum(len(h) for h in held) == SHARDS and all(len(h) <= fair for h in held):
            return held
        time.sleep(0.1)
    raise RuntimeError("the sweeper's shards did not spread over the processes")


def takeover(servers):
    """kill -9 of the process holding the most shards; seconds until the others hold them."""
    held = [held_shards(s) for s in servers]
    victim = max(range(len(servers)), key=lambda i: len(held[i]))
    survivors = [s for i, s in enumerate(servers) if i != victim]
    t0 = time.monotonic()
    servers[victim].proc.kill()
    servers[victim].proc.wait()
    while time.monotonic() - t0 < 60:
        if held[victim] <= set().union(*(held_shards(s) for s in survivors)):
            return {"shards": len(held[victim]), "seconds": time.monotonic() - t0}
        time.sleep(0.05)
    return {"shards": len(held[victim]), "seconds": None}


def bench_count(a, n, tmp):
    log(f"{n} process(es): starting")
    pg = bk.PgCluster(a)
    res = {"processes": n, "postgres": pg.version, "workloads": {}}
    servers = []
    try:
        servers = [bk.Ttlstore(a, tmp, f"p{n}-{i}", pg) for i in range(n)]
        wait_spread(servers)
        ld = run_loadgen(a, servers, pg, "load", a.items, 1, 0)
        res["load"] = ld
        log(f"  loaded {ld.get('items')} items in {ld.get('seconds')} s")
        for w in a.workloads:
            r = run_loadgen(a, servers, pg, w, a.items, a.duration, a.warmup)
            res["workloads"][w] = r
            log(f"  {w}: {r.get('ops_per_s', 0):.0f} ops/s, p50 {r.get('p50_us')} us, ttlstore "
                f"{r.get('server_cpu_us_per_op')} + PostgreSQL {r.get('tree_cpu_us_per_op')} "
                f"us/op, errors {r.get('error_count')}")
        before = [deleted(s) for s in servers]
        cpu0 = sum(rp.cpu_us(s.proc.pid) for s in servers), tree_cpu_us(pg.pid)
        rate = max(200.0, min(2000.0, ld["items"] / ld["seconds"] / 3)) if ld.get("seconds") \
            else 2000.0
        wave = bk.ttl_wave(a, servers[0], [], False, rate)
        cpu1 = sum(rp.cpu_us(s.proc.pid) for s in servers), tree_cpu_us(pg.pid)
        wave["per_process"] = [deleted(s) - b for s, b in zip(servers, before)]
        # The CPU of the whole wave step (its load included) per item: an upper bound.
        items = wave.get("items") or a.wave_items
        wave["ttlstore_cpu_us_per_item"] = (cpu1[0] - cpu0[0]) / items
        wave["postgres_cpu_us_per_item"] = (cpu1[1] - cpu0[1]) / items
        wave.pop("output", None)
        res["wave"] = wave
        log(f"  TTL wave: {wave.get('rate')} items/s, last gone {wave.get('last_s')} s after "
            f"expiry; deleted per process {wave['per_process']}")
        if n > 1:
            res["takeover"] = takeover(servers)
            log(f"  takeover: {res['takeover']}")
    finally:
        for s in servers:
            s.stop()
        pg.stop()
    return res


def fmt(v, spec=".0f"):
    return "–" if v is None else format(v, spec)


def report(res, a):
    lines = [f"## ttlstore processes on one PostgreSQL ({res['started']})", "",
             f"{res['machine']}; {a.connections} loadgen connections spread over the processes, "
             f"{a.duration} s per workload, {a.items} items; ttlstore --threads {a.pg_threads} "
             f"per process; load before: {res['uptime_before']}", "",
             "| processes | workload | ops/s | p50 µs | p99 µs | ttlstore CPU µs/op | "
             "PostgreSQL CPU µs/op | errors |", "|---|---|---|---|---|---|---|---|"]
    for n, r in res["counts"].items():
        if "error" in r:
            lines.append(f"| {n} | failed: {r['error']} | | | | | | |")
            continue
        for w, x in r["workloads"].items():
            lines.append(f"| {n} | {w} | {fmt(x.get('ops_per_s'))} | {x.get('p50_us')} | "
                         f"{x.get('p99_us')} | {fmt(x.get('server_cpu_us_per_op'), '.1f')} | "
                         f"{fmt(x.get('tree_cpu_us_per_op'), '.1f')} | {x.get('error_count')} |")
    lines += ["", f"TTL wave ({a.wave_items} items due in one second, loaded through the first "
              "process):", "",
              "| processes | deletion rate items/s | all gone s after expiry | deleted per process "
              "| ttlstore CPU µs/item | PostgreSQL CPU µs/item | takeover after kill -9 |",
              "|---|---|---|---|---|---|---|"]
    for n, r in res["counts"].items():
        w = r.get("wave")
        if not w:
            continue
        t = r.get("takeover")
        tk = (f"{t['shards']} shards in {fmt(t['seconds'], '.2f')} s" if t else "–")
        lines.append(f"| {n} | {fmt(w.get('rate'))} | {w.get('last_s')} | "
                     f"{', '.join(fmt(d) for d in w['per_process'])} | "
                     f"{fmt(w['ttlstore_cpu_us_per_item'], '.0f')} | "
                     f"{fmt(w['postgres_cpu_us_per_item'], '.0f')} | {tk} |")
    lines += ["", f"Takeover bound: --lease-seconds {a.lease_seconds} (a unit lapses after it; "
              "the others' keepers look every third of it). CPU per wave item counts the wave's "
              "load too.", f"Load after: {res['uptime_after']}", ""]
    return "\n".join(lines)


def failures(res):
    out = []
    for n, r in res["counts"].items():
        if "error" in r:
            out.append(f"{n}: {r['error']}")
            continue
        for w, x in r["workloads"].items():
            if x.get("error_count"):
                out.append(f"{n} {w}: errors {x.get('errors')}")
        if r.get("wave", {}).get("rate") is None:
            out.append(f"{n}: the TTL wave did not finish")
        if n > 1 and (r.get("takeover") or {}).get("seconds") is None:
            out.append(f"{n}: no takeover")
    return out


def main():
    a = parse_args()
    bk.run_cases(a, "counts", a.counts, bench_count, report, failures)


if __name__ == "__main__":
    main()
