#!/usr/bin/env python3
"""Expiry cost versus table size: deletes a wave of W expiring items in an otherwise empty table,
then the same wave in a table that also holds F items that never expire, and prints both rates.
The expiry index makes the second as fast as the first (issue 4, benchmark (c)).

    bench/ttl_table_size.py --endpoint http://127.0.0.1:8000 --wave 100000 --filler 5000000
"""
import argparse
import concurrent.futures
import time
import uuid

import boto3
from botocore.config import Config


def client(endpoint):
    return boto3.client("dynamodb", endpoint_url=endpoint, region_name="us-east-1",
                        aws_access_key_id="bench", aws_secret_access_key="bench",
                        config=Config(retries={"max_attempts": 3}, max_pool_connections=32))


def load(endpoint, table, prefix, count, ttl, threads=8):
    def part(t):
        c = client(endpoint)
        lo, hi = t * count // threads, (t + 1) * count // threads
        for base in range(lo, hi, 25):
            items = []
            for i in range(base, min(base + 25, hi)):
                item = {"pk": {"S": f"{prefix}{i}"}, "payload": {"S": "x" * 150}}
                if ttl is not None:
                    item["ttl"] = {"N": str(ttl)}
                items.append({"PutRequest": {"Item": item}})
            pending = {table: items}
            while pending:
                pending = c.batch_write_item(RequestItems=pending).get("UnprocessedItems") or {}
    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        list(pool.map(part, range(threads)))


def wave(endpoint, filler, size, timeout):
    c = client(endpoint)
    table = "ttl_size_" + uuid.uuid4().hex[:8]
    c.create_table(TableName=table, BillingMode="PAY_PER_REQUEST",
                   AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                   KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
    c.update_time_to_live(TableName=table,
                          TimeToLiveSpecification={"Enabled": True, "AttributeName": "ttl"})
    t0 = time.time()
    load(endpoint, table, "f", filler, None)
    print(f"  {filler} never-expiring items loaded in {time.time() - t0:.0f} s")
    # Beside millions of items a Python client loads only ~5k items/s: leave room for that.
    expires = int(time.time() + 8 + size / 4000)
    load(endpoint, table, "w", size, expires)
    if time.time() >= expires:
        raise SystemExit("the wave took past its expiry time to load; use a smaller wave")
    while time.time() < expires:
        time.sleep(0.05)
    while time.time() < expires + timeout:
        n = c.describe_table(TableName=table)["Table"]["ItemCount"]
        if n <= filler:
            break
        time.sleep(0.05)
    done = time.time() - expires
    assert c.describe_table(TableName=table)["Table"]["ItemCount"] == filler, "wave not deleted"
    c.delete_table(TableName=table)
    return size / done, done


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--endpoint", default="http://127.0.0.1:8000")
    ap.add_argument("--wave", type=int, default=100000)
    ap.add_argument("--filler", type=int, default=5000000)
    ap.add_argument("--timeout", type=float, default=120)
    args = ap.parse_args()
    for filler in (0, args.filler):
        rate, took = wave(args.endpoint, filler, args.wave, args.timeout)
        print(f"table of {filler + args.wave} items: {args.wave} expired items deleted in "
              f"{took:.2f} s after expiry ({rate:,.0f} items/s)")


if __name__ == "__main__":
    main()
