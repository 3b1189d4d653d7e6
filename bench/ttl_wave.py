#!/usr/bin/env python3
"""TTL expiry wave: load N items that all expire in the same second, then measure how fast the
server deletes them (items/s) and how long after their expiry time they are gone.

    bench/ttl_wave.py --endpoint http://127.0.0.1:8000 --items 100000
    bench/ttl_wave.py --items 200000 --spread 10     # a steady 20k items/s expiring for 10 s

With --spread S the expiry times (fractional epoch seconds) are spread evenly over S seconds
instead. Against ttlstore the per-item deletion lag distribution (p50, p99, max bucket) comes
from its /metrics histogram ttlstore_ttl_deletion_lag_seconds.

Works against any DynamoDB endpoint with TTL (the reference service takes days: D8). Uses
BatchWriteItem from several threads to load, then polls DescribeTable.ItemCount every 50 ms.
"""
import argparse
import concurrent.futures
import re
import time
import urllib.request
import uuid

import boto3
from botocore.config import Config


def client(endpoint):
    return boto3.client("dynamodb", endpoint_url=endpoint, region_name="us-east-1",
                        aws_access_key_id="bench", aws_secret_access_key="bench",
                        config=Config(retries={"max_attempts": 3}, max_pool_connections=32))


def lag_buckets(endpoint):
    """Cumulative deletion-lag histogram {upper bound s: count} from ttlstore's /metrics, or None."""
    try:
        text = urllib.request.urlopen(endpoint + "/metrics", timeout=5).read().decode()
    except OSError:
        return None
    found = re.findall(r'^ttlstore_ttl_deletion_lag_seconds_bucket\{le="([^"]+)"\} (\S+)$', text, re.M)
    return {float(le): float(n) for le, n in found} or None


def lag_quantile(before, after, q):
    """The upper bound of the bucket holding quantile q of the items deleted in between."""
    total = after[float("inf")] - before[float("inf")]
    for le in sorted(after):
        if after[le] - before[le] >= q * total:
            return le
    return float("inf")


def load(endpoint, table, start, count, expires_of):
    c = client(endpoint)
    for base in range(start, start + count, 25):
        items = [{"PutRequest": {"Item": {"pk": {"S": f"k{i}"}, "ttl": {"N": expires_of(i)},
                                          "payload": {"S": "x" * 150}}}}
                 for i in range(base, min(base + 25, start + count))]
        pending = {table: items}
        while pending:
            pending = c.batch_write_item(RequestItems=pending).get("UnprocessedItems") or {}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--endpoint", default="http://127.0.0.1:8000")
    ap.add_argument("--items", type=int, default=100000)
    ap.add_argument("--threads", type=int, default=8)
    ap.add_argument("--spread", type=float, default=0,
                    help="spread the expiry times evenly over this many seconds (default: 0, "
                         "all in one second)")
    ap.add_argument("--timeout", type=float, default=120, help="give up after this many seconds")
    ap.add_argument("--load-rate", type=float, default=15000,
                    help="items/s the load is expected to reach; the expiry time is set that far "
                         "ahead (lower it on a slow or busy machine)")
    args = ap.parse_args()

    c = client(args.endpoint)
    table = "ttl_wave_" + uuid.uuid4().hex[:8]
    c.create_table(TableName=table, BillingMode="PAY_PER_REQUEST",
                   AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                   KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
    c.update_time_to_live(TableName=table,
                          TimeToLiveSpecification={"Enabled": True, "AttributeName": "ttl"})
    # Everything expires at one whole second, far enough ahead for the load to finish.
    t0 = time.time()
    expires = int(t0 + 5 + args.items / args.load_rate)

    def expires_of(i):
        if not args.spread:
            return str(expires)
        return f"{expires + args.spread * i / args.items:.3f}"

    per = (args.items + args.threads - 1) // args.threads
    with concurrent.futures.ThreadPoolExecutor(args.threads) as pool:
        list(pool.map(lambda i: load(args.endpoint, table, i * per, min(per, args.items - i * per),
                                     expires_of), range(args.threads)))
    load_s = time.time() - t0
    if time.time() >= expires:
        raise SystemExit("load took past the expiry time; use fewer items or more threads")
    count = c.describe_table(TableName=table)["Table"]["ItemCount"]
    span = f"between {expires} and {expires + args.spread:.0f}" if args.spread else f"at {expires}"
    print(f"loaded {count} items in {load_s:.1f} s; they expire {span}")
    before = lag_buckets(args.endpoint)

    first_gone = last = None
    deadline = expires + args.timeout
    while time.time() < deadline:
        n = c.describe_table(TableName=table)["Table"]["ItemCount"]
        now = time.time()
        if first_gone is None and n < count:
            first_gone = now
        if n == 0:
            last = now
            break
        time.sleep(0.05)
    c.delete_table(TableName=table)
    if last is None:
        raise SystemExit(f"not all items were deleted within {args.timeout} s of their expiry")
    rate = count / max(last - max(first_gone, expires), 1e-3)
    end = expires + args.spread
    print(f"first deletions {first_gone - expires:.2f} s after the first expiry; "
          f"all {count} gone {last - end:.2f} s after the last; "
          f"deletion rate {rate:,.0f} items/s")
    after = lag_buckets(args.endpoint)
    if before and after:
        p50, p99, top = (lag_quantile(before, after, q) for q in (0.5, 0.99, 1.0))
        print(f"deletion lag per item (server histogram): p50 <= {p50:g} s, p99 <= {p99:g} s, "
              f"max <= {top:g} s")


if __name__ == "__main__":
    main()
