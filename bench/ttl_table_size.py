#!/usr/bin/env python3
"""Expiry cost versus table size: deletes a wave of W expiring items in an otherwise empty table,
then the same wave in a table that also holds F items that never expire, and prints both.
The expiry index makes the second cost what the first does (issue 4, benchmark (c)).

    bench/ttl_table_size.py --endpoint http://127.0.0.1:8000 --wave 100000 --filler 5000000

Cost is reported three ways: wall time from expiry until the last item is gone, and (against
ttlstore, from /metrics) the sweeper thread's CPU time and its busy time for the wave. Before each
wave the script waits (bounded) for RocksDB's compactions to finish, so the figures compare the
sweeper's work rather than the compaction debt a fresh 5M-item load leaves behind.

Items are written with raw BatchWriteItem requests from several threads (a dummy SigV4 header,
which ttlstore and the local emulators accept): boto3 alone loads only ~5k items/s.
"""
import argparse
import concurrent.futures
import http.client
import json
import re
import time
import urllib.parse
import urllib.request
import uuid

import boto3
from botocore.config import Config

AUTH = ("AWS4-HMAC-SHA256 Credential=bench/20260101/us-east-1/dynamodb/aws4_request, "
        "SignedHeaders=host;x-amz-date;x-amz-target, Signature=" + "0" * 64)


def client(endpoint):
    return boto3.client("dynamodb", endpoint_url=endpoint, region_name="us-east-1",
                        aws_access_key_id="bench", aws_secret_access_key="bench",
                        config=Config(retries={"max_attempts": 3}, max_pool_connections=32))


def metrics(endpoint):
    """ttlstore's /metrics as {name: value} for unlabelled samples; {} for other servers."""
    try:
        text = urllib.request.urlopen(endpoint + "/metrics", timeout=5).read().decode()
    except OSError:
        return {}
    return {m[0]: float(m[1]) for m in re.findall(r"^([a-z_]+) (\S+)$", text, re.M)}


def batch_write(conn, table, items):
    pending = {table: [{"PutRequest": {"Item": it}} for it in items]}
    while pending:
        body = json.dumps({"RequestItems": pending})
        conn.request("POST", "/", body, {
            "Content-Type": "application/x-amz-json-1.0",
            "X-Amz-Target": "DynamoDB_20120810.BatchWriteItem",
            "X-Amz-Date": "20260101T000000Z", "Authorization": AUTH})
        r = conn.getresponse()
        reply = json.loads(r.read() or b"{}")
        if r.status != 200:
            raise SystemExit(f"BatchWriteItem failed: {r.status} {reply}")
        pending = reply.get("UnprocessedItems") or {}


def load(endpoint, table, prefix, count, ttl, threads=8):
    url = urllib.parse.urlparse(endpoint)

    def part(t):
        conn = http.client.HTTPConnection(url.hostname, url.port or 80, timeout=60)
        lo, hi = t * count // threads, (t + 1) * count // threads
        for base in range(lo, hi, 25):
            items = []
            for i in range(base, min(base + 25, hi)):
                item = {"pk": {"S": f"{prefix}{i}"}, "payload": {"S": "x" * 150}}
                if ttl is not None:
                    item["ttl"] = {"N": str(ttl)}
                items.append(item)
            batch_write(conn, table, items)
        conn.close()
    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        list(pool.map(part, range(threads)))


def wait_for_quiet_store(endpoint, limit):
    """Waits up to `limit` s until no compaction or flush runs (ttlstore only)."""
    deadline = time.time() + limit
    while time.time() < deadline:
        m = metrics(endpoint)
        if not m or (m.get("ttlstore_storage_running_compactions", 0) == 0 and
                     m.get("ttlstore_storage_running_flushes", 0) == 0):
            return
        time.sleep(0.5)
    print(f"  (compactions still running after {limit} s; measuring anyway)")


def wave(endpoint, filler, size, timeout, settle):
    c = client(endpoint)
    table = "ttl_size_" + uuid.uuid4().hex[:8]
    c.create_table(TableName=table, BillingMode="PAY_PER_REQUEST",
                   AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                   KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
    c.update_time_to_live(TableName=table,
                          TimeToLiveSpecification={"Enabled": True, "AttributeName": "ttl"})
    if filler:
        t0 = time.time()
        load(endpoint, table, "f", filler, None)
        print(f"  {filler} never-expiring items loaded in {time.time() - t0:.0f} s")
        wait_for_quiet_store(endpoint, settle)
    # Leave room to load the wave (beside millions of items, at a few thousand items/s).
    expires = int(time.time() + 8 + size / 4000)
    load(endpoint, table, "w", size, expires)
    if time.time() >= expires:
        raise SystemExit("the wave took past its expiry time to load; use a smaller wave")
    wait_for_quiet_store(endpoint, max(0.0, expires - time.time() - 1))
    before = metrics(endpoint)
    while time.time() < expires:
        time.sleep(0.05)
    while time.time() < expires + timeout:
        n = c.describe_table(TableName=table)["Table"]["ItemCount"]
        if n <= filler:
            break
        time.sleep(0.05)
    done = time.time() - expires
    after = metrics(endpoint)
    assert c.describe_table(TableName=table)["Table"]["ItemCount"] == filler, "wave not deleted"
    c.delete_table(TableName=table)
    cpu = busy = None
    if before and after:
        cpu = after["ttlstore_ttl_sweeper_cpu_seconds_total"] - before[
            "ttlstore_ttl_sweeper_cpu_seconds_total"]
        busy = after["ttlstore_ttl_sweeper_busy_seconds_total"] - before[
            "ttlstore_ttl_sweeper_busy_seconds_total"]
    return done, cpu, busy


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--endpoint", default="http://127.0.0.1:8000")
    ap.add_argument("--wave", type=int, default=100000)
    ap.add_argument("--filler", type=int, default=5000000)
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--settle", type=float, default=300,
                    help="longest wait for compactions to finish after the filler load (s)")
    args = ap.parse_args()
    for filler in (0, args.filler):
        took, cpu, busy = wave(args.endpoint, filler, args.wave, args.timeout, args.settle)
        line = (f"table of {filler + args.wave} items: {args.wave} expired items gone "
                f"{took:.2f} s after expiry ({args.wave / took:,.0f} items/s)")
        if cpu is not None:
            line += (f"; sweeper CPU {cpu:.2f} s ({cpu / args.wave * 1e6:.1f} us/item), "
                     f"busy {busy:.2f} s")
        print(line, flush=True)


if __name__ == "__main__":
    main()
