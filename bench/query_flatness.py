#!/usr/bin/env python3
"""Query cost versus table size, in one ttlstore: the same 10-item query on a small table, then on
a big one, then on the small one again, each measured by bench/loadgen at 50 connections with the
server's CPU per query. Issue 8 asks for the big/small ratio to stay within 1.3x.

    bench/query_flatness.py --ttlstore build/ttlstore --small 100000 --big 2000000

It starts its own server (fresh data dir, a free-ish loopback port), loads --other items into the
`bench` table first so the data dir is not just the query tables, and before measuring the big
table waits (bounded) until /metrics shows no flush or compaction running or pending, so the
figure is the query's own cost and not the load's compaction debt. Measuring the small table
again after the big load separates "a bigger table" from "a bigger data dir".
"""
import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ttlstore", default=str(REPO / "build/ttlstore"))
    ap.add_argument("--loadgen", default=str(REPO / "build-bench/loadgen"))
    ap.add_argument("--port", type=int, default=18590)
    ap.add_argument("--small", type=int, default=100000, help="items in the small query table")
    ap.add_argument("--big", type=int, default=2000000, help="items in the big query table")
    ap.add_argument("--other", type=int, default=200000, help="items loaded into `bench` first")
    ap.add_argument("--duration", type=float, default=8)
    ap.add_argument("--warmup", type=float, default=2)
    ap.add_argument("--connections", type=int, default=50)
    a = ap.parse_args()

    data = tempfile.mkdtemp(prefix="ttlstore-qflat-")
    server = subprocess.Popen([a.ttlstore, "serve", "--port", str(a.port), "--data-dir", data,
                               "--log-level", "error"])
    try:
        wait_ready(a.port)

        def loadgen(workload, keys, duration, warmup, extra=()):
            out = subprocess.run(
                [a.loadgen, "--endpoint", f"http://127.0.0.1:{a.port}", "--workload", workload,
                 "--keys", str(keys), "--connections", str(a.connections),
                 "--duration", str(duration), "--warmup", str(warmup),
                 "--server-pid", str(server.pid), *extra],
                capture_output=True, text=True, timeout=3600).stdout
            rows = [json.loads(l) for l in out.splitlines() if l.startswith('{"workload"')]
            if not rows or rows[-1].get("error_count"):
                sys.exit(f"loadgen {workload} failed: {out[-300:]}")
            return rows[-1]

        def query(label, keys, extra=()):
            r = loadgen("query", keys, a.duration, a.warmup, extra)
            print(f"{label:<22} {keys:>9} items  {r['ops_per_s']:>8.0f} ops/s  "
                  f"{r['server_cpu_us_per_op']:>6.1f} us CPU/query  p50 {r['p50_us']} us",
                  flush=True)
            return r["server_cpu_us_per_op"]

        loadgen("load", a.other, 1, 0)
        wait_quiet(a.port)
        small = query("small table", a.small)
        big_table = ["--table", "bench_range_big"]
        loadgen("query", a.big, 0.1, 0, big_table)  # loads it
        wait_quiet(a.port)
        big = query("big table", a.big, big_table + ["--preload", "0"])
        again = query("small table again", a.small, ["--preload", "0"])
        print(f"big / small: {big / small:.2f}x; big / small again: {big / again:.2f}x "
              f"(target <= 1.3x)")
    finally:
        server.terminate()
        server.wait(timeout=60)
        shutil.rmtree(data, ignore_errors=True)


def wait_ready(port, limit_s=10.0):
    start = time.time()
    while time.time() - start < limit_s:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=1).read()
            return
        except OSError:
            time.sleep(0.01)
    sys.exit(f"ttlstore did not answer on port {port}")


def wait_quiet(port, limit_s=180.0):
    """Until /metrics shows no flush or compaction running or pending (at most limit_s)."""
    start = time.time()
    while time.time() - start < limit_s:
        text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5).read().decode()
        busy = [l for l in text.splitlines()
                if l.startswith(("ttlstore_storage_running_", "ttlstore_storage_pending_"))
                and float(l.split()[-1]) != 0]
        if not busy:
            return
        time.sleep(0.5)


if __name__ == "__main__":
    main()
