#!/usr/bin/env python3
"""`ttlstore replicate` throughput and lag, ttlstore -> ttlstore on this machine.

    bench/replicate.py --items 100000 --rate 1000 --seconds 60

1. Starts two `ttlstore serve` (loopback, temp data dirs), loads --items items (~200 bytes each)
   into a source table with a NEW_AND_OLD_IMAGES stream.
2. Runs the replicator (--segments N); the copy phase's rate is its own closing line
   ("copy N items in S s (R items/s)").
3. Then a steady write load on the source (--rate PutItems/s of new keys for --seconds, paced),
   and a probe that, every 20 ms, takes the newest written key and polls the target (GetItem,
   every 2 ms) until it appears: end-to-end lag = seen - written, from the client's view (the
   write's answer to the item's arrival in the target). Reports p50 / p99 / max.

Every process it starts is stopped by its PID; the whole run is bounded by --timeout.
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def call(conn, op, body, prefix="DynamoDB_20120810"):
    conn.request("POST", "/", body=json.dumps(body), headers={
        "Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": f"{prefix}.{op}",
        "Authorization": "AWS4-HMAC-SHA256 Credential=bench/20260101/us-east-1/dynamodb/"
                         "aws4_request, SignedHeaders=host, Signature=0"})
    r = conn.getresponse()
    data = r.read()
    if r.status != 200:
        raise RuntimeError(f"{op}: {r.status} {data[:300]!r}")
    return json.loads(data)


def start_server(binary, root, name):
    log = open(root / f"{name}.log", "wb")
    p = subprocess.Popen([binary, "serve", "--port", "0", "--data-dir", str(root / name)],
                         stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        m = re.search(rb"address=http://127\.0\.0\.1:(\d+)", (root / f"{name}.log").read_bytes())
        if m:
            return p, int(m.group(1))
        time.sleep(0.05)
    p.kill()
    sys.exit(f"{name} did not start")


def load(port, table, n, threads=4):
    def worker(lo, hi):
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        for start in range(lo, hi, 25):
            reqs = [{"PutRequest": {"Item": {"pk": {"S": f"k{i:09d}"}, "v": {"S": "x" * 180},
                                             "n": {"N": str(i)}}}}
                    for i in range(start, min(hi, start + 25))]
            left = {table: reqs}
            while left:
                left = call(c, "BatchWriteItem", {"RequestItems": left}).get("UnprocessedItems") or {}
    step = (n + threads - 1) // threads
    ts = [threading.Thread(target=worker, args=(i * step, min(n, (i + 1) * step))) for i in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()


def pct(values, p):
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=str(REPO / "build/ttlstore"))
    ap.add_argument("--items", type=int, default=100000)
    ap.add_argument("--segments", type=int, default=4)
    ap.add_argument("--rate", type=int, default=1000, help="writes/s during the lag phase")
    ap.add_argument("--seconds", type=int, default=60)
    ap.add_argument("--timeout", type=int, default=900, help="bound on the whole run (s)")
    ap.add_argument("--keep", action="store_true", help="keep the temp dir (logs, status file)")
    a = ap.parse_args()
    root = Path(tempfile.mkdtemp(prefix="ttlstore-bench-repl-"))
    procs = []
    deadline = time.monotonic() + a.timeout
    try:
        src, sport = start_server(a.bin, root, "src")
        procs.append(src)
        dst, dport = start_server(a.bin, root, "dst")
        procs.append(dst)
        s = http.client.HTTPConnection("127.0.0.1", sport, timeout=60)
        table = "bench"
        call(s, "CreateTable", {
            "TableName": table, "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
            "StreamSpecification": {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}})
        t0 = time.monotonic()
        load(sport, table, a.items)
        print(f"loaded {a.items} items in {time.monotonic() - t0:.1f} s", flush=True)

        rlog = root / "replicate.log"
        rep = subprocess.Popen(
            [a.bin, "replicate", "--from", f"http://127.0.0.1:{sport}", "--to",
             f"http://127.0.0.1:{dport}", "--table", table, "--segments", str(a.segments),
             "--checkpoint", str(root / "ckpt"), "--status-file", str(root / "status")],
            stdout=open(rlog, "wb"), stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            env=dict(os.environ, AWS_ACCESS_KEY_ID="bench", AWS_SECRET_ACCESS_KEY="bench"))
        procs.append(rep)
        copy_re = re.compile(rb"copy (\d+) items in ([\d.]+) s \((\d+) items/s\)")
        while not copy_re.search(rlog.read_bytes()):
            if rep.poll() is not None or time.monotonic() > deadline:
                sys.exit("replicate ended or timed out during the copy:\n" + rlog.read_text())
            time.sleep(0.1)
        m = copy_re.search(rlog.read_bytes())
        print(f"copy phase: {int(m.group(1))} items in {float(m.group(2)):.2f} s = "
              f"{int(m.group(3))} items/s ({a.segments} segments)", flush=True)

        newest = [None]  # (key, written_at)
        lags = []
        written = [0]
        stop = threading.Event()

        def writer():
            c = http.client.HTTPConnection("127.0.0.1", sport, timeout=60)
            start = time.monotonic()
            i = 0
            while not stop.is_set() and time.monotonic() - start < a.seconds:
                due = start + i / a.rate
                now = time.monotonic()
                if due > now:
                    time.sleep(due - now)
                key = f"w{i:09d}"
                call(c, "PutItem", {"TableName": table, "Item": {"pk": {"S": key}, "v": {"S": "y" * 180}}})
                newest[0] = (key, time.monotonic())
                i += 1
                written[0] = i

        def probe():
            c = http.client.HTTPConnection("127.0.0.1", dport, timeout=60)
            last = None
            while not stop.is_set():
                sample = newest[0]
                if sample is None or sample == last:  # each write is measured once
                    time.sleep(0.02)
                    continue
                last = sample
                key, at = sample
                give_up = time.monotonic() + 30
                while time.monotonic() < give_up and not stop.is_set():
                    got = call(c, "GetItem", {"TableName": table, "Key": {"pk": {"S": key}}})
                    if "Item" in got:
                        lags.append(time.monotonic() - at)
                        if a.keep and lags[-1] > 0.5:
                            print(f"slow: {key} {lags[-1] * 1000:.0f} ms at {time.time():.3f}")
                        break
                    time.sleep(0.002)
                time.sleep(0.02)

        wt = threading.Thread(target=writer)
        pt = threading.Thread(target=probe)
        wt.start()
        pt.start()
        wt.join(a.seconds + 60)
        time.sleep(2)
        stop.set()
        pt.join(40)
        status = (root / "status").read_text()
        applied = re.search(r"^ttlstore_replicate_records_applied_total\{[^}]*\} (\d+)", status, re.M)
        rep.send_signal(signal.SIGTERM)
        rep.wait(timeout=30)
        print(f"steady load: {written[0]} writes in {a.seconds} s ({written[0] / a.seconds:.0f}/s "
              f"achieved, {a.rate}/s asked); {applied.group(1) if applied else '?'} records applied")
        print(f"end-to-end lag over {len(lags)} samples: p50 {pct(lags, 50) * 1000:.0f} ms, "
              f"p99 {pct(lags, 99) * 1000:.0f} ms, max {max(lags, default=float('nan')) * 1000:.0f} ms")
    finally:
        for p in reversed(procs):
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        if a.keep:
            print(f"kept {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
