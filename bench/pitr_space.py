#!/usr/bin/env python3
"""What point-in-time recovery costs in space: the same overwrite workload on a table without and
with PITR, each in a fresh data dir, measured after a clean stop (every memtable flushed).

    bench/pitr_space.py --bin build/ttlstore --keys 2000 --writes 40000 --item-bytes 200

Every write to a PITR table keeps the item's old image in the `pitr` family for the window
(docs/background-jobs.md), so the extra space is about writes x (item size + key + 21 bytes),
compressed by RocksDB. Prints both sizes and the extra bytes per write.
"""
import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import tempfile
import time

import boto3
from botocore.config import Config


def dir_bytes(path):
    total = 0
    for root, _, files in os.walk(path):
        for f in files:
            try:
                total += os.path.getsize(os.path.join(root, f))
            except OSError:
                pass
    return total


def run(binary, pitr, keys, writes, item_bytes):
    data = tempfile.mkdtemp(prefix="pitr-space-")
    log = open(os.path.join(data, "server.log"), "w")
    proc = subprocess.Popen([binary, "serve", "--port", "0", "--data-dir", data + "/d"],
                            stdout=log, stderr=subprocess.STDOUT)
    try:
        port = None
        for _ in range(200):
            text = open(os.path.join(data, "server.log")).read()
            m = re.search(r"event=listening address=http://127.0.0.1:(\d+)", text)
            if m:
                port = int(m.group(1))
                break
            time.sleep(0.05)
        assert port, "server did not start"
        endpoint = f"http://127.0.0.1:{port}"
        mk = lambda: boto3.client("dynamodb", endpoint_url=endpoint, region_name="us-east-1",  # noqa
                                  aws_access_key_id="b", aws_secret_access_key="b",
                                  config=Config(retries={"max_attempts": 3},
                                                max_pool_connections=16))
        c = mk()
        c.create_table(TableName="space", BillingMode="PAY_PER_REQUEST",
                       AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                       KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
        if pitr:
            c.update_continuous_backups(TableName="space", PointInTimeRecoverySpecification={
                "PointInTimeRecoveryEnabled": True})

        def work(start):
            cl = mk()
            for i in range(start, writes, 8):
                # Random bytes as hex: about as compressible as real data (the hex halves it).
                payload = os.urandom(item_bytes // 2).hex()
                cl.put_item(TableName="space", Item={"pk": {"S": f"key{i % keys:08d}"},
                                                     "v": {"S": payload}, "n": {"N": str(i)}})
        with concurrent.futures.ThreadPoolExecutor(8) as ex:
            list(ex.map(work, range(8)))
    finally:
        proc.terminate()
        proc.wait(30)
        log.close()
    size = dir_bytes(data + "/d")
    shutil.rmtree(data)
    return size


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="build/ttlstore")
    ap.add_argument("--keys", type=int, default=2000)
    ap.add_argument("--writes", type=int, default=40000)
    ap.add_argument("--item-bytes", type=int, default=200)
    a = ap.parse_args()
    off = run(a.bin, False, a.keys, a.writes, a.item_bytes)
    on = run(a.bin, True, a.keys, a.writes, a.item_bytes)
    print(f"writes={a.writes} keys={a.keys} item_bytes~{a.item_bytes}")
    print(f"data dir without PITR: {off} bytes; with PITR: {on} bytes; "
          f"extra {on - off} bytes = {(on - off) / a.writes:.1f} bytes per write")


if __name__ == "__main__":
    main()
