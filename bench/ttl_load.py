#!/usr/bin/env python3
"""Creates a TTL table with one hot item that never expires and N items that all expire at
--expires (epoch seconds); used by ttl_foreground.sh."""
import argparse
import concurrent.futures
import time

import boto3
from botocore.config import Config


def client(endpoint):
    return boto3.client("dynamodb", endpoint_url=endpoint, region_name="us-east-1",
                        aws_access_key_id="bench", aws_secret_access_key="bench",
                        config=Config(retries={"max_attempts": 3}, max_pool_connections=32))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--endpoint", required=True)
    ap.add_argument("--table", required=True)
    ap.add_argument("--items", type=int, required=True)
    ap.add_argument("--expires", type=int, required=True)
    ap.add_argument("--threads", type=int, default=8)
    args = ap.parse_args()
    c = client(args.endpoint)
    c.create_table(TableName=args.table, BillingMode="PAY_PER_REQUEST",
                   AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                   KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
    c.update_time_to_live(TableName=args.table,
                          TimeToLiveSpecification={"Enabled": True, "AttributeName": "ttl"})
    c.put_item(TableName=args.table, Item={"pk": {"S": "hot"}, "payload": {"S": "x" * 150}})

    def load(t):
        w = client(args.endpoint)
        lo, hi = t * args.items // args.threads, (t + 1) * args.items // args.threads
        for base in range(lo, hi, 25):
            batch = [{"PutRequest": {"Item": {"pk": {"S": f"w{i}"}, "ttl": {"N": str(args.expires)},
                                              "payload": {"S": "x" * 150}}}}
                     for i in range(base, min(base + 25, hi))]
            pending = {args.table: batch}
            while pending:
                pending = w.batch_write_item(RequestItems=pending).get("UnprocessedItems") or {}

    with concurrent.futures.ThreadPoolExecutor(args.threads) as pool:
        list(pool.map(load, range(args.threads)))
    left = args.expires - time.time()
    if left < args.items / 100000 + 8:
        raise SystemExit(f"loading left only {left:.1f} s before the wave; use fewer items")
    print(f"loaded {args.items} items; they expire in {left:.1f} s")


if __name__ == "__main__":
    main()
