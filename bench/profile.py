#!/usr/bin/env python3
"""Where a request's server CPU goes: perf profiles and flame graphs of ttlstore per workload.

For each workload, starts the server on CPU 0 on a fresh data dir, loads it with bench/loadgen
(on CPU 1), then samples the server with `perf record --call-graph dwarf` while loadgen drives
the workload at --connections, and writes into --out:
  WORKLOAD.folded   the stacks, one per line with its sample count (Brendan Gregg's format)
  WORKLOAD.svg      a flame graph of them (open it in a browser; hover for names and shares)
and prints one Markdown table: each workload's server CPU per op, split into where it went.

  bench/profile.py --bin build/ttlstore                        # put,get,update,query,batch-put
  bench/profile.py --bin build/ttlstore --workloads put --seconds 10

Needs perf (Debian's linux-perf) and, like run_peers.py, bench/loadgen built into build-bench/.
Only the standard library is used.
"""
import argparse
import collections
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

# Where a sample's CPU went. A sample of a RocksDB background thread (flush, compaction) counts
# as such. Any other goes to the first of CATEGORIES that names a frame anywhere in its stack
# (these never call each other); failing that, to the innermost frame that GENERAL names (so a
# malloc called by ttlstore's JSON parser counts as ttlstore's), then to its leaf's library.
BACKGROUND = "RocksDB background threads (flush, compaction)"
CATEGORIES = [
    ("network send (kernel; wakes the client)", re.compile(r"__sys_sendmsg|__sys_sendto|sys_writev")),
    ("network receive (kernel)", re.compile(r"__sys_recvfrom|__sys_recvmsg|sys_readv")),
    ("epoll, futex, scheduling (kernel)", re.compile(r"do_epoll_wait|futex|__schedule")),
    ("WAL write (RocksDB log writer, write(2))", re.compile(
        r"rocksdb::DBImpl::WriteToWAL|rocksdb::log::Writer|rocksdb::WritableFileWriter")),
    ("memtable insert (RocksDB skiplist)", re.compile(
        r"rocksdb::MemTable::Add|MemTableInserter|rocksdb::WriteBatchInternal::InsertInto|"
        r"InlineSkipList<.*>::Insert")),
    ("RocksDB reads (Get, iterators, block cache)", re.compile(
        r"rocksdb::DBImpl::Get|rocksdb::DBImpl::MultiGet|rocksdb::DBIter|rocksdb::Version::Get|"
        r"rocksdb::MemTable::Get|rocksdb::ArenaWrappedDBIter|rocksdb::MergingIterator|"
        r"rocksdb::BlockBasedTable|rocksdb::LRUCache|FindGreaterOrEqual")),
]
GENERAL = [
    ("RocksDB write group and the rest of Write", re.compile(r"rocksdb::")),
    ("ttlstore: request, JSON, items, indexes, streams", re.compile(r"ttlstore::")),
    ("HTTP (Beast parser, Asio)", re.compile(r"boost::beast|boost::asio")),
]
LEAF_CATEGORIES = [
    ("other kernel", re.compile(r"\[kernel\]")),
    ("libc, allocator, libstdc++ (no caller named)", re.compile(r"libc|libstdc|je_|malloc|free|mem")),
]
OTHER = "other"


def log(msg):
    print(f"[profile] {msg}", file=sys.stderr, flush=True)


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", default=str(REPO / "build/ttlstore"))
    ap.add_argument("--loadgen", default=str(REPO / "build-bench/loadgen"))
    ap.add_argument("--workloads", default="put,get,update,query,batch-put")
    ap.add_argument("--keys", type=int, default=200000, help="key space (query: its table's items)")
    ap.add_argument("--connections", type=int, default=50)
    ap.add_argument("--seconds", type=float, default=5.0, help="seconds sampled per workload")
    ap.add_argument("--frequency", type=int, default=499, help="samples per second")
    ap.add_argument("--port", type=int, default=18650)
    ap.add_argument("--out", default=str(REPO / "build-bench/profiles"))
    a = ap.parse_args()
    a.workloads = [w for w in a.workloads.split(",") if w]
    return a


def loadgen(a, workload, duration, warmup, extra=(), pid=None):
    cmd = ["taskset", "-c", "1", a.loadgen, "--endpoint", f"http://127.0.0.1:{a.port}",
           "--workload", workload, "--connections", str(a.connections), "--keys",
           str(a.keys if workload != "query" else max(10, a.keys // 20)),
           "--duration", str(duration), "--warmup", str(warmup), *extra]
    if pid:
        cmd += ["--server-pid", str(pid)]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def result_of(proc, limit):
    out, err = proc.communicate(timeout=limit)
    rows = [json.loads(l) for l in out.splitlines() if l.startswith('{"workload"')]
    if not rows:
        raise RuntimeError(f"loadgen failed: {(err or out).strip()[-300:]}")
    return rows[-1]


def fold(perf_data):
    """perf script's samples -> {"frame;frame;...": count}, outermost frame first."""
    p = subprocess.run(["perf", "script", "-i", perf_data, "-F", "comm,ip,sym,dso"],
                       capture_output=True, text=True, timeout=1800)
    stacks = collections.Counter()
    comm, frames = None, []
    for line in p.stdout.splitlines() + [""]:
        if not line.strip():
            if comm is not None:
                stacks[";".join([comm] + [f for f in reversed(frames)])] += 1
            comm, frames = None, []
        elif not line.startswith((" ", "\t")):
            comm = line.split()[0].replace(";", ":")
        else:
            parts = line.strip().split(None, 1)
            rest = parts[1] if len(parts) > 1 else "[unknown]"
            m = re.match(r"(.*?)(?:\+0x[0-9a-f]+)? \((.*)\)$", rest)
            sym, dso = (m.group(1), m.group(2)) if m else (rest, "")
            if sym == "[unknown]":
                sym = f"[{os.path.basename(dso) or 'unknown'}]"
            elif "kernel" in dso:
                sym = f"{sym} [kernel]"
            frames.append(sym.replace(";", ":"))
    return stacks


def categorize(stacks):
    shares = collections.Counter()
    for stack, n in stacks.items():
        comm, *frames = stack.split(";")
        shares[category(comm, frames)] += n
    return shares


def category(comm, frames):
    if comm.startswith("rocksdb:"):
        return BACKGROUND
    for name, rx in CATEGORIES:
        if any(rx.search(f) for f in frames):
            return name
    for f in reversed(frames):
        for name, rx in GENERAL:
            if rx.search(f):
                return name
    leaf = frames[-1] if frames else ""
    for name, rx in LEAF_CATEGORIES:
        if rx.search(leaf):
            return name
    return OTHER


def flame_svg(stacks, title, width=1400, row=16):
    """A flame graph: each frame a box as wide as its samples, callers below callees."""
    root = {"n": 0, "kids": {}}
    for stack, n in stacks.items():
        node = root
        node["n"] += n
        for f in stack.split(";"):
            node = node["kids"].setdefault(f, {"n": 0, "kids": {}})
            node["n"] += n
    total = root["n"] or 1
    boxes, depth_max = [], 0

    def walk(node, name, x, depth):
        nonlocal depth_max
        w = node["n"] / total * width
        if w < 0.3:
            return
        depth_max = max(depth_max, depth)
        boxes.append((x, depth, w, name, node["n"]))
        cx = x
        for kid_name, kid in sorted(node["kids"].items()):
            walk(kid, kid_name, cx, depth + 1)
            cx += kid["n"] / total * width

    walk(root, "all", 0.0, 0)
    height = (depth_max + 1) * row + 40
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'font-family="monospace" font-size="11">',
           f'<text x="4" y="16" font-size="14">{html.escape(title)}</text>']
    for x, depth, w, name, n in boxes:
        y = height - (depth + 1) * row
        hue = 0 if "[kernel]" in name else 30 if "rocksdb" in name else 200 if "ttlstore" in name else 50
        label = html.escape(name[: max(0, int(w / 7))])
        out.append(f'<g><title>{html.escape(name)}: {n} samples, {100 * n / total:.2f}%</title>'
                   f'<rect x="{x:.1f}" y="{y}" width="{w:.1f}" height="{row - 1}" '
                   f'fill="hsl({hue},70%,{60 + (hash(name) % 20)}%)"/>'
                   f'<text x="{x + 2:.1f}" y="{y + row - 4}">{label}</text></g>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def profile_workload(a, w, out):
    tmp = tempfile.mkdtemp(prefix="ttlstore-profile-")
    server = subprocess.Popen(["taskset", "-c", "0", a.bin, "serve", "--port", str(a.port),
                               "--data-dir", f"{tmp}/data"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        time.sleep(0.5)
        # Load the key space (query: its own table), then let the load's flushes settle.
        result_of(loadgen(a, w if w == "query" else "load", 0.1, 0), 1800)
        time.sleep(2)
        warm = 1.0
        lg = loadgen(a, w, a.seconds + 2 * warm, warm, ["--preload", "0"], pid=server.pid)
        time.sleep(warm + 0.5)
        perf_data = f"{tmp}/perf.data"
        subprocess.run(["perf", "record", "-q", "-F", str(a.frequency), "--call-graph",
                        "dwarf,16384", "-p", str(server.pid), "-o", perf_data, "--", "sleep",
                        str(a.seconds)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       check=True)
        r = result_of(lg, a.seconds + 600)
    finally:
        server.terminate()
        server.wait(timeout=30)
    log(f"{w}: {r['ops_per_s']:.0f} ops/s, {r['server_cpu_us_per_op']} us CPU/op; folding stacks")
    stacks = fold(perf_data)
    shutil.rmtree(tmp, ignore_errors=True)
    (out / f"{w}.folded").write_text("".join(f"{s} {n}\n" for s, n in stacks.most_common()))
    title = (f"ttlstore {w}: {r['ops_per_s']:.0f} ops/s, {r['server_cpu_us_per_op']} µs server "
             f"CPU/op, {a.connections} connections, server on CPU 0")
    (out / f"{w}.svg").write_text(flame_svg(stacks, title))
    return r, categorize(stacks)


def main():
    a = parse_args()
    if not shutil.which("perf"):
        sys.exit("perf is missing (Debian: apt-get install linux-perf)")
    if not os.access(a.loadgen, os.X_OK):
        sys.exit(f"{a.loadgen} is missing: build it (bench/run_peers.py does, or cmake -S bench)")
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    results = {}
    for w in a.workloads:
        results[w] = profile_workload(a, w, out)
    names = [n for n, _ in CATEGORIES + GENERAL] + [BACKGROUND] + [n for n, _ in LEAF_CATEGORIES] + [OTHER]
    lines = ["| where the server's CPU goes | " + " | ".join(a.workloads) + " |",
             "|---|" + "---:|" * len(a.workloads)]
    for n in names:
        cells = []
        for w in a.workloads:
            r, shares = results[w]
            total = sum(shares.values()) or 1
            us = r["server_cpu_us_per_op"] * shares[n] / total
            cells.append(f"{100 * shares[n] / total:.0f}% · {us:.1f} µs")
        lines.append(f"| {n} | " + " | ".join(cells) + " |")
    lines.append("| **server CPU per op** | " + " | ".join(
        f"**{results[w][0]['server_cpu_us_per_op']:.1f} µs**" for w in a.workloads) + " |")
    md = "\n".join(lines) + "\n"
    print(md)
    (out / "profile.md").write_text(md)
    log(f"written {out}/*.folded, *.svg and profile.md")


if __name__ == "__main__":
    main()
