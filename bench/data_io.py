#!/usr/bin/env python3
"""Export and import rates (issue 22): items/s and MB/s of ImportTable, ExportTableToPointInTime
(DYNAMODB_JSON and ION) and `ttlstore export` for N items, on one fresh server.

    bench/data_io.py --bin build/ttlstore --items 1000000     # the issue's size
    bench/data_io.py --bin build/ttlstore --items 100000      # quicker

Steps: generate N DynamoDB JSON lines (an S key, an N, a 100-byte S, a small map, a string set;
about --item-bytes each) into the folder standing for S3; ImportTable them (uncompressed) into a
table; enable PITR; export it through the API in both formats, timing the call to COMPLETED; import
the gzipped JSON export back into a second table; `ttlstore export` it from a read-only view while
the server runs. MB/s counts the items' DynamoDB sizes (the export's BilledSizeBytes) per second.
Prints one line per step and a Markdown table for BENCHMARKS.md.
"""
import argparse
import json
import os
import random
import re
import shutil
import subprocess
import tempfile
import time

import boto3
from botocore.config import Config


def start(binary, data, log_path):
    log = open(log_path, "w")
    proc = subprocess.Popen([binary, "serve", "--host", "127.0.0.1", "--port", "0",
                             "--data-dir", data], stdout=log, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL)
    for _ in range(400):
        m = re.search(r"event=listening address=http://127.0.0.1:(\d+)", open(log_path).read())
        if m:
            return proc, int(m.group(1))
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    proc.kill()
    raise SystemExit("server did not start; log at " + log_path)


def wait(fn, key, status_key, timeout):
    deadline = time.monotonic() + timeout
    while True:
        d = fn()[key]
        if d[status_key] != "IN_PROGRESS":
            return d
        if time.monotonic() > deadline:
            raise SystemExit(f"still IN_PROGRESS after {timeout} s")
        time.sleep(0.02)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default="build/ttlstore")
    ap.add_argument("--items", type=int, default=1_000_000)
    ap.add_argument("--item-bytes", type=int, default=200)
    ap.add_argument("--timeout", type=int, default=3600, help="most seconds any step may take")
    ap.add_argument("--keep", action="store_true", help="keep the temp folder")
    a = ap.parse_args()

    root = tempfile.mkdtemp(prefix="data-io-")
    data = os.path.join(root, "data")
    bucket = os.path.join(data, "s3", "bench")
    os.makedirs(os.path.join(bucket, "source"))
    rng = random.Random(1)
    pad = max(0, a.item_bytes - 47)  # the other attributes and names take about 47 bytes
    t0 = time.monotonic()
    with open(os.path.join(bucket, "source", "items.json"), "w") as f:
        for i in range(a.items):
            item = {"pk": {"S": f"user#{i:09d}"}, "n": {"N": str(rng.randrange(10 ** 9))},
                    "s": {"S": "x" * pad}, "m": {"M": {"a": {"N": str(i)}, "b": {"BOOL": True}}},
                    "ss": {"SS": ["red", "green"]}}
            f.write(json.dumps({"Item": item}, separators=(",", ":")) + "\n")
    print(f"generated {a.items} lines in {time.monotonic() - t0:.1f} s", flush=True)

    proc, port = start(a.bin, data, os.path.join(root, "server.log"))
    rows = []
    try:
        c = boto3.client("dynamodb", endpoint_url=f"http://127.0.0.1:{port}",
                         region_name="us-east-1", aws_access_key_id="b",
                         aws_secret_access_key="b", config=Config(retries={"max_attempts": 1}))
        schema = {"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
                  "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
                  "BillingMode": "PAY_PER_REQUEST"}

        def imp(table, prefix, fmt, compression, label):
            t = time.monotonic()
            arn = c.import_table(S3BucketSource={"S3Bucket": "bench", "S3KeyPrefix": prefix},
                                 InputFormat=fmt, InputCompressionType=compression,
                                 TableCreationParameters=dict(schema, TableName=table))[
                "ImportTableDescription"]["ImportArn"]
            d = wait(lambda: c.describe_import(ImportArn=arn), "ImportTableDescription",
                     "ImportStatus", a.timeout)
            secs = time.monotonic() - t
            assert d["ImportStatus"] == "COMPLETED", d
            assert d["ImportedItemCount"] == a.items, d
            return secs

        def exp(fmt, label):
            t = time.monotonic()
            arn = c.export_table_to_point_in_time(
                TableArn="arn:aws:dynamodb:us-east-1:000000000000:table/src", S3Bucket="bench",
                S3Prefix=label, ExportFormat=fmt)["ExportDescription"]["ExportArn"]
            d = wait(lambda: c.describe_export(ExportArn=arn), "ExportDescription",
                     "ExportStatus", a.timeout)
            secs = time.monotonic() - t
            assert d["ExportStatus"] == "COMPLETED", d
            assert d["ItemCount"] == a.items, d
            return secs, d

        secs = imp("src", "source/", "DYNAMODB_JSON", "NONE", "import")
        size = None
        c.update_continuous_backups(TableName="src", PointInTimeRecoverySpecification={
            "PointInTimeRecoveryEnabled": True})
        secs_json, d = exp("DYNAMODB_JSON", "json")
        size = d["BilledSizeBytes"]
        rows.append(("ImportTable, DYNAMODB_JSON, uncompressed", secs))
        rows.append(("ExportTableToPointInTime, DYNAMODB_JSON (gzip)", secs_json))
        secs_ion, _ = exp("ION", "ion")
        rows.append(("ExportTableToPointInTime, ION (gzip)", secs_ion))
        data_prefix = d["ExportManifest"].rsplit("/", 1)[0] + "/data/"
        rows.append(("ImportTable of that export, DYNAMODB_JSON, GZIP",
                     imp("copy", data_prefix, "DYNAMODB_JSON", "GZIP", "reimport")))
        t = time.monotonic()
        p = subprocess.run([a.bin, "export", "--data-dir", data, "-t", "src", "--bucket", "bench",
                            "--prefix", "cli"], capture_output=True, text=True, timeout=a.timeout)
        assert p.returncode == 0, p.stderr
        rows.append(("`ttlstore export` (read-only view, server running)", time.monotonic() - t))
    finally:
        proc.terminate()
        proc.wait(60)
    mb = size / 1e6
    print(f"\n{a.items} items, {mb:.1f} MB of items ({size / a.items:.0f} B/item)\n")
    print("| step | seconds | items/s | MB/s |")
    print("|------|--------:|--------:|-----:|")
    for name, secs in rows:
        print(f"| {name} | {secs:.2f} | {a.items / secs:,.0f} | {mb / secs:.1f} |")
    if a.keep:
        print("kept", root)
    else:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
