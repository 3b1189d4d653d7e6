"""ExportTableToPointInTime, DescribeExport and ListExports through boto3 (issue 22), into a local
folder that stands for S3 (bucket B is <data dir>/s3/B); the CLI is test_export_cli.py.
The service's behaviour and texts, with their sources, are in docs/compatibility.md, "Export to
S3"; the file layout in docs/formats.md.
"""
from __future__ import annotations

import base64
import gzip
import hashlib
import json
import threading
import time
from decimal import Decimal
from pathlib import Path

import pytest
from boto3.dynamodb.types import Binary, TypeSerializer

import e2e_util
from e2e_util import assert_error, check_data_dir, ddb_error, make_client, normalize_sets, wait_until
from test_pitr import Writer, create_source, enable_pitr, expected_at, scan_all

ARN = "arn:aws:dynamodb:us-east-1:000000000000:table/"
FUTURE = 4102444800  # 2100-01-01: a TTL that never passes during the tests

ITEMS = [
    {"pk": "minimal", "sk": Decimal(1), "exp": Decimal(FUTURE)},
    {"pk": "strings", "sk": Decimal(2), "unicode": "zażółć 日本語 🦑", "g": "gA", "l": "l1",
     "escapes": 'quote" backslash\\ newline\n tab\t', "empty": "", "long": "x" * 1000},
    {"pk": "numbers", "sk": Decimal(3), "zero": Decimal(0), "neg": Decimal("-17.5"),
     "digits38": Decimal("1" * 38), "small": Decimal("1E-130"), "big": Decimal("9.9E+125"),
     "frac": Decimal("0.000001")},
    {"pk": "binary", "sk": Decimal(4), "bytes": Binary(b"\x00\x01\xfe\xff"), "empty": Binary(b"")},
    {"pk": "scalars", "sk": Decimal(5), "yes": True, "no": False, "nothing": None, "g": "gB"},
    {"pk": "sets", "sk": Decimal(6), "ss": {"a", "b", "ü"}, "ns": {Decimal(1), Decimal("3.5")},
     "bs": {Binary(b"\x00"), Binary(b"\x01")}},
    {"pk": "documents", "sk": Decimal(7), "exp": Decimal(FUTURE), "l": "l2",
     "list": ["s", Decimal(1), True, None, Binary(b"b"), [], {}, {"ss": {"x"}}],
     "map": {"a": Decimal(1), "b": {"c": {"d": ["deep", {"e": Decimal(2)}]}}}},
    {"pk": "big", "sk": Decimal(8), "blob": "y" * 300000},
]


def low_level(item) -> dict:
    ser = TypeSerializer()
    return {k: ser.serialize(v) for k, v in item.items()}


def api(port, op, body):
    """The operation without an SDK: Debian's botocore (1.29) predates ExportType and
    IncrementalExportSpecification and drops them from answers. Returns the answer's JSON."""
    status, _, payload = e2e_util.raw_call(port, "DynamoDB_20120810." + op, body)
    assert status == 200, payload
    return json.loads(payload)


def wait_raw(port, arn, timeout=120):
    deadline = time.monotonic() + timeout
    while True:
        d = api(port, "DescribeExport", {"ExportArn": arn})["ExportDescription"]
        if d["ExportStatus"] != "IN_PROGRESS":
            return d
        assert time.monotonic() < deadline, f"export {arn} still IN_PROGRESS"
        time.sleep(0.05)


def wait_export(ddb, arn, timeout=120):
    deadline = time.monotonic() + timeout
    while True:
        d = ddb.describe_export(ExportArn=arn)["ExportDescription"]
        if d["ExportStatus"] != "IN_PROGRESS":
            return d
        assert time.monotonic() < deadline, f"export {arn} still IN_PROGRESS"
        time.sleep(0.05)


def wait_import(ddb, arn, timeout=120):
    deadline = time.monotonic() + timeout
    while True:
        d = ddb.describe_import(ImportArn=arn)["ImportTableDescription"]
        if d["ImportStatus"] != "IN_PROGRESS":
            return d
        assert time.monotonic() < deadline
        time.sleep(0.05)


def b64md5(data: bytes) -> bytes:
    return base64.b64encode(hashlib.md5(data).digest())


def export_folder(bucket_dir: Path, prefix: str, arn: str) -> Path:
    base = bucket_dir / prefix if prefix else bucket_dir
    return base / "AWSDynamoDB" / arn.rsplit("/", 1)[1]


def check_layout(bucket_dir: Path, prefix: str, desc: dict) -> list:
    """Checks the files of a COMPLETED export as a reader of a real one would; returns the lines
    of its data files (text)."""
    folder = export_folder(bucket_dir, prefix, desc["ExportArn"])
    names = {p.name for p in folder.iterdir()}
    assert names == {"data", "manifest-files.json", "manifest-files.md5",
                     "manifest-summary.json", "manifest-summary.md5", "_started"}
    assert (folder / "_started").read_bytes() == b""
    for name in ("manifest-files", "manifest-summary"):
        content = (folder / f"{name}.json").read_bytes()
        assert (folder / f"{name}.md5").read_bytes().strip() == b64md5(content)
    summary = json.loads((folder / "manifest-summary.json").read_bytes())
    key_base = (prefix.rstrip("/") + "/" if prefix else "") + "AWSDynamoDB/" + desc["ExportArn"].rsplit("/", 1)[1] + "/"
    assert summary["version"] == "2020-06-30"
    assert summary["exportArn"] == desc["ExportArn"]
    assert summary["tableArn"] == desc["TableArn"]
    assert summary["tableId"] == desc["TableId"]
    assert summary["s3Bucket"] == desc["S3Bucket"]
    assert summary["s3Prefix"] == (prefix or None)
    assert summary["s3SseAlgorithm"] == "AES256" and summary["s3SseKmsKeyId"] is None
    assert summary["manifestFilesS3Key"] == key_base + "manifest-files.json"
    assert summary["itemCount"] == desc["ItemCount"]
    assert summary["billedSizeBytes"] == desc["BilledSizeBytes"]
    assert summary["outputFormat"] == desc["ExportFormat"]
    assert summary["startTime"] <= summary["endTime"]
    assert desc["ExportManifest"] == key_base + "manifest-summary.json"
    lines, total = [], 0
    suffix = ".ion.gz" if desc["ExportFormat"] == "ION" else ".json.gz"
    listed = set()
    for line in (folder / "manifest-files.json").read_text().splitlines():
        entry = json.loads(line)
        assert set(entry) == {"itemCount", "md5Checksum", "etag", "dataFileS3Key"}
        assert entry["dataFileS3Key"].startswith(key_base + "data/")
        assert entry["dataFileS3Key"].endswith(suffix)
        stored = (bucket_dir / entry["dataFileS3Key"]).read_bytes()
        assert entry["md5Checksum"].encode() == b64md5(stored)
        assert entry["etag"] == hashlib.md5(stored).hexdigest()
        text = gzip.decompress(stored).decode()
        file_lines = text.splitlines()
        assert entry["itemCount"] == len(file_lines)
        total += len(file_lines)
        lines += file_lines
        listed.add(Path(entry["dataFileS3Key"]).name)
    assert listed == {p.name for p in (folder / "data").iterdir()}
    assert total == desc["ItemCount"]
    return lines


def make_bucket(server, name="exports") -> Path:
    path = server.data_dir / "s3" / name
    path.mkdir(parents=True, exist_ok=True)
    return path


def table_spec():
    return {
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"},
                                 {"AttributeName": "sk", "AttributeType": "N"},
                                 {"AttributeName": "g", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                      {"AttributeName": "sk", "KeyType": "RANGE"}],
        # ImportTable's TableCreationParameters take GSIs only (API reference), no LSIs.
        "GlobalSecondaryIndexes": [{
            "IndexName": "by_g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "ALL"}}],
        "BillingMode": "PAY_PER_REQUEST",
    }


def wire(av):
    """A boto3 low-level value as the wire (and the export) writes it: binaries in base64."""
    if isinstance(av, dict):
        out = {}
        for k, v in av.items():
            if k == "B":
                out[k] = base64.b64encode(bytes(v)).decode()
            elif k == "BS":
                out[k] = [base64.b64encode(bytes(b)).decode() for b in v]
            else:
                out[k] = wire(v)
        return out
    if isinstance(av, list):
        return [wire(v) for v in av]
    return av


def by_key(items):
    return {(i["pk"]["S"], i["sk"]["N"]): normalize_sets(i) for i in items}


# --------------------------------------------------------------------------------------------
# Round trips
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["DYNAMODB_JSON", "ION"])
def test_export_then_import_round_trips_every_type_index_and_ttl(server, ddb, table_name, fmt):
    bucket_dir = make_bucket(server)
    create_source(ddb, table_name, ttl=True)
    for item in ITEMS:
        ddb.put_item(TableName=table_name, Item=low_level(item))
    enable_pitr(ddb, table_name)
    prefix = f"dira/{table_name}"
    d = api(server.port, "ExportTableToPointInTime", {
        "TableArn": ARN + table_name, "S3Bucket": "exports", "S3Prefix": prefix,
        "ExportFormat": fmt})["ExportDescription"]
    assert d["ExportStatus"] in ("IN_PROGRESS", "COMPLETED")
    assert "ExportType" not in d  # the service echoes it only when the request gave it
    assert d["ClientToken"]
    assert d["ExportArn"].startswith(ARN + table_name + "/export/")
    final = wait_export(ddb, d["ExportArn"])
    assert final["ExportStatus"] == "COMPLETED", final
    assert final["ItemCount"] == len(ITEMS)
    assert final["BilledSizeBytes"] > 300000
    lines = check_layout(bucket_dir, prefix, final)
    if fmt == "DYNAMODB_JSON":
        exported = by_key([json.loads(l)["Item"] for l in lines])
        assert exported == by_key([wire(i) for i in scan_all(ddb, table_name)])
    else:
        assert all(l.startswith("$ion_1_0 {Item:{") for l in lines)

    # ImportTable reads the export's data/ folder as it is.
    target = table_name[:200] + "_imp"
    spec = dict(table_spec(), TableName=target)
    arn = ddb.import_table(
        S3BucketSource={"S3Bucket": "exports",
                        "S3KeyPrefix": final["ExportManifest"].rsplit("/", 1)[0] + "/data/"},
        InputFormat=fmt, InputCompressionType="GZIP",
        TableCreationParameters=spec)["ImportTableDescription"]["ImportArn"]
    imported = wait_import(ddb, arn)
    assert imported["ImportStatus"] == "COMPLETED", imported
    assert imported["ImportedItemCount"] == len(ITEMS)
    assert by_key(scan_all(ddb, target)) == by_key(scan_all(ddb, table_name))
    for item in ITEMS:
        key = {"pk": {"S": item["pk"]}, "sk": {"N": str(item["sk"])}}
        a = ddb.get_item(TableName=table_name, Key=key, ConsistentRead=True)["Item"]
        b = ddb.get_item(TableName=target, Key=key, ConsistentRead=True)["Item"]
        assert normalize_sets(a) == normalize_sets(b)
    q = ddb.query(TableName=target, IndexName="by_g", KeyConditionExpression="g = :g",
                  ExpressionAttributeValues={":g": {"S": "gB"}})["Items"]
    assert [i["pk"]["S"] for i in q] == ["scalars"]


def test_an_empty_table_exports_one_empty_data_file(server, ddb, table_name):
    bucket_dir = make_bucket(server)
    e2e_util.create_table(ddb, table_name)
    enable_pitr(ddb, table_name)
    arn = api(server.port, "ExportTableToPointInTime", {
        "TableArn": ARN + table_name, "S3Bucket": "exports", "ExportType": "FULL_EXPORT",
        "ClientToken": "tok-" + table_name})["ExportDescription"]["ExportArn"]
    final = wait_raw(server.port, arn)
    assert final["ExportType"] == "FULL_EXPORT"
    assert final["ItemCount"] == 0 and final["BilledSizeBytes"] == 0
    assert check_layout(bucket_dir, "", final) == []
    folder = export_folder(bucket_dir, "", arn)
    assert len(list((folder / "data").iterdir())) == 1


def test_export_at_a_past_time_under_concurrent_writes_equals_the_model(server, ddb, table_name):
    bucket_dir = make_bucket(server)
    create_source(ddb, table_name, ttl=True)
    enable_pitr(ddb, table_name)
    w = Writer(server.endpoint, table_name, keys=60, threads=3, seed=7).start()
    try:
        time.sleep(1.0)
        point, snapshot = w.gap()
        time.sleep(1.5)  # writes, updates, deletes and TTL deletions after the point
    finally:
        w.finish()
    assert not w.errors
    arn = ddb.export_table_to_point_in_time(
        TableArn=ARN + table_name, S3Bucket="exports", S3Prefix="past",
        ExportTime=point)["ExportDescription"]["ExportArn"]
    final = wait_export(ddb, arn)
    assert final["ExportStatus"] == "COMPLETED"
    assert final["ExportTime"].timestamp() == point
    lines = check_layout(bucket_dir, "past", final)
    assert by_key([json.loads(l)["Item"] for l in lines]) == {
        k: normalize_sets(wire(v)) for k, v in expected_at(snapshot, point).items()}


# --------------------------------------------------------------------------------------------
# Incremental exports
# --------------------------------------------------------------------------------------------


def test_incremental_export_of_puts_updates_deletes_and_ttl_deletes(start_server):
    srv = start_server(extra_args=["--incremental-export-min-seconds", "1"])
    ddb = make_client(srv.endpoint)
    bucket_dir = make_bucket(srv, "inc")
    e2e_util.create_table(ddb, "inc", range_key=("sk", "N"))
    ddb.update_time_to_live(TableName="inc", TimeToLiveSpecification={
        "Enabled": True, "AttributeName": "exp"})
    enable_pitr(ddb, "inc")
    k = lambda p: {"pk": {"S": p}, "sk": {"N": "1"}}
    ddb.put_item(TableName="inc", Item={**k("upd"), "v": {"S": "before"}})
    ddb.put_item(TableName="inc", Item={**k("del"), "v": {"S": "doomed"}})
    ddb.put_item(TableName="inc", Item={**k("quiet"), "v": {"S": "untouched"}})
    # Expires 2-3 s from now, inside the period: the sweeper's delete is a change in it.
    ddb.put_item(TableName="inc", Item={**k("ttl"), "exp": {"N": str(int(time.time()) + 3)}})
    time.sleep(1.2)
    start = time.time()
    time.sleep(0.05)
    ddb.put_item(TableName="inc", Item={**k("new"), "v": {"S": "created"}})
    ddb.update_item(TableName="inc", Key=k("upd"), UpdateExpression="SET v = :v",
                    ExpressionAttributeValues={":v": {"S": "after"}})
    ddb.delete_item(TableName="inc", Key=k("del"))
    deadline = time.monotonic() + 10  # the sweeper deletes it within about a second of expiry
    while "Item" in ddb.get_item(TableName="inc", Key=k("ttl"), ConsistentRead=True):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    time.sleep(1.0)  # reads may hide an expired item before the sweeper's delete lands
    time.sleep(max(0.05, start + 1.5 - time.time()))  # a period above the 1 s minimum set
    end = time.time()
    time.sleep(0.1)
    ddb.put_item(TableName="inc", Item={**k("upd"), "v": {"S": "after the period"}})

    def run(view):
        d = api(srv.port, "ExportTableToPointInTime", {
            "TableArn": ARN + "inc", "S3Bucket": "inc", "S3Prefix": view,
            "ExportType": "INCREMENTAL_EXPORT",
            "IncrementalExportSpecification": {"ExportFromTime": start, "ExportToTime": end,
                                               "ExportViewType": view}})["ExportDescription"]
        assert d["ExportType"] == "INCREMENTAL_EXPORT"
        assert "ExportTime" not in d
        spec = d["IncrementalExportSpecification"]
        assert spec["ExportViewType"] == view
        assert abs(spec["ExportFromTime"] - start) < 0.002 and abs(spec["ExportToTime"] - end) < 0.002
        final = wait_raw(srv.port, d["ExportArn"])
        assert final["ExportStatus"] == "COMPLETED", final
        assert final["BilledSizeBytes"] == 10000000
        folder = export_folder(bucket_dir, view, d["ExportArn"])
        summary = json.loads((folder / "manifest-summary.json").read_bytes())
        assert summary["exportType"] == "INCREMENTAL_EXPORT" and summary["outputView"] == view
        assert "exportFromTime" in summary and "exportToTime" in summary
        lines = [json.loads(l) for l in check_layout(bucket_dir, view, final)]
        out = {}
        for line in lines:
            micros = int(line["Metadata"]["WriteTimeEpochMicros"])
            assert start * 1e6 - 1000 <= micros <= end * 1e6
            out[line["Keys"]["pk"]["S"]] = line
            assert set(line["Keys"]) == {"pk", "sk"}
        return out

    both = run("NEW_AND_OLD_IMAGES")
    assert set(both) == {"new", "upd", "del", "ttl"}  # "quiet" was not written in the period
    assert "OldImage" not in both["new"] and both["new"]["NewImage"]["v"] == {"S": "created"}
    assert both["upd"]["OldImage"]["v"] == {"S": "before"}
    assert both["upd"]["NewImage"]["v"] == {"S": "after"}  # not the write after the period
    assert both["del"]["OldImage"]["v"] == {"S": "doomed"} and "NewImage" not in both["del"]
    assert "NewImage" not in both["ttl"] and "exp" in both["ttl"]["OldImage"]
    new_only = run("NEW_IMAGE")
    assert all("OldImage" not in line for line in new_only.values())
    assert set(new_only["del"]) == {"Metadata", "Keys"}
    assert new_only["upd"]["NewImage"]["v"] == {"S": "after"}


# --------------------------------------------------------------------------------------------
# Refusals
# --------------------------------------------------------------------------------------------


def raw(server, op, body):
    status, _, payload = e2e_util.raw_call(server.port, "DynamoDB_20120810." + op, body)
    data = json.loads(payload) if payload else {}
    return status, data.get("__type", "").rsplit("#", 1)[-1], data.get("message", data.get("Message"))


def test_export_refusals_have_the_services_types_and_texts(server, ddb, table_name):
    make_bucket(server)
    e2e_util.create_table(ddb, table_name)
    arn = ARN + table_name
    V = "ValidationException"
    cases = [
        ({"S3Bucket": "exports"}, V, "1 validation error detected: Value null at 'tableArn' "
                                     "failed to satisfy constraint: Member must not be null"),
        ({"TableArn": arn, "S3Bucket": ""}, V, "1 validation error detected: Value '' at "
         "'s3Bucket' failed to satisfy constraint: Member must satisfy regular expression "
         "pattern: ^[a-z0-9A-Z]+[\\.\\-\\w]*[a-z0-9A-Z]+$"),
        ({"TableArn": arn, "S3Bucket": "exports", "ExportFormat": "CSV"}, V,
         "1 validation error detected: Value 'CSV' at 'exportFormat' failed to satisfy "
         "constraint: Member must satisfy enum value set: [DYNAMODB_JSON, ION]"),
        ({"TableArn": arn, "S3Bucket": "exports", "S3SseAlgorithm": "aws:kms"}, V,
         "1 validation error detected: Value 'aws:kms' at 's3SseAlgorithm' failed to satisfy "
         "constraint: Member must satisfy enum value set: [AES256, KMS]"),
        ({"TableArn": arn, "S3Bucket": "exports", "S3BucketOwner": "not-an-account"}, V,
         "1 validation error detected: Value 'not-an-account' at 's3BucketOwner' failed to "
         "satisfy constraint: Member must satisfy regular expression pattern: [0-9]{12}"),
        ({"TableArn": table_name, "S3Bucket": "exports"}, V,
         "One or more parameter values were invalid: tableArn is not a valid ARN"),
        ({"TableArn": arn + "/index/x", "S3Bucket": "exports"}, V,
         "Invalid Request: Table ARN is invalid."),
        ({"TableArn": arn.replace("000000000000", "123456789012"), "S3Bucket": "exports"},
         "AccessDeniedException", "Access is denied"),
        ({"TableArn": arn, "S3Bucket": "exports", "IncrementalExportSpecification": {"ExportFromTime": 1}},
         V, "Invalid Request: Export Type expected to be Incremental Export when incremental "
            "export specification is provided"),
        ({"TableArn": arn, "S3Bucket": "exports", "ExportType": "FULL_EXPORT",
          "IncrementalExportSpecification": {"ExportFromTime": 1}}, V,
         "Invalid Request: When Export Type is Full Export , Incremental Export Specification "
         "should not be provided"),
        ({"TableArn": arn, "S3Bucket": "exports", "ExportType": "INCREMENTAL_EXPORT"}, V,
         "Invalid Request: Incremental Export Specification expected when export type is set as "
         "Incremental Export"),
        ({"TableArn": arn, "S3Bucket": "exports", "ExportType": "INCREMENTAL_EXPORT",
          "IncrementalExportSpecification": {"ExportViewType": "NEW_IMAGE"}}, V,
         "Invalid Request: ExportFromTime must be provided in IncrementalExportSpecification"),
        ({"TableArn": arn, "S3Bucket": "exports", "S3SseKmsKeyId": "k"}, V,
         "Invalid Request: KMS Key Id is not supported for this encryption type"),
        ({"TableArn": ARN + "missing_" + table_name[:100], "S3Bucket": "exports"},
         "TableNotFoundException", f"Table not found: {ARN}missing_{table_name[:100]}"),
        ({"TableArn": arn, "S3Bucket": "exports"}, "PointInTimeRecoveryUnavailableException",
         f"Point in time recovery is not enabled for table '{table_name}'"),
    ]
    for body, code, message in cases:
        assert raw(server, "ExportTableToPointInTime", body) == (400, code, message), body
    enable_pitr(ddb, table_name)
    now = time.time()
    T = "InvalidExportTimeException"
    assert_error(lambda: ddb.export_table_to_point_in_time(
        TableArn=arn, S3Bucket="exports", ExportTime=now + 3600), T, "Export Time is invalid")
    assert_error(lambda: ddb.export_table_to_point_in_time(
        TableArn=arn, S3Bucket="exports", ExportTime=now - 3600), T, "Export Time is invalid")
    inc = lambda f, t: raw(server, "ExportTableToPointInTime", {
        "TableArn": arn, "S3Bucket": "exports", "ExportType": "INCREMENTAL_EXPORT",
        "IncrementalExportSpecification": {"ExportFromTime": f, "ExportToTime": t}})
    iso = lambda s: time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(s))
    assert inc(int(now) - 7200, int(now) - 60) == (
        400, T, "Incremental export period from time cannot be less than the table creation "
        f"time : {iso(int(now) - 7200)}")
    assert inc(int(now) + 1, int(now) + 3600) == (
        400, T, "Incremental export period to time cannot be greater than the current time : "
        f"{iso(int(now) + 3600)}")
    time.sleep(1.1)
    assert inc(int(now) + 1, int(now) + 1) == (
        400, T, "Difference between export period from time and export period to time is less "
        "than 15 minutes")

    # ClientToken: the same request is the same export; anything else under it is a conflict.
    token = "tok-" + table_name
    first = ddb.export_table_to_point_in_time(TableArn=arn, S3Bucket="exports", ClientToken=token)
    again = ddb.export_table_to_point_in_time(TableArn=arn, S3Bucket="exports", ClientToken=token)
    assert first["ExportDescription"]["ExportArn"] == again["ExportDescription"]["ExportArn"]
    for change in ({"S3Prefix": "p"}, {"ExportFormat": "ION"}, {"S3SseAlgorithm": "AES256"},
                   {"S3BucketOwner": "000000000000"}):
        assert_error(lambda: ddb.export_table_to_point_in_time(
            TableArn=arn, S3Bucket="exports", ClientToken=token, **change),
            "ExportConflictException",
            "Export conflict: Duplicate request detected with conflicting parameters")
    done = wait_export(ddb, first["ExportDescription"]["ExportArn"])
    assert ddb.export_table_to_point_in_time(TableArn=arn, S3Bucket="exports", ClientToken=token)[
        "ExportDescription"]["ExportArn"] == done["ExportArn"]
    # Without a token, two requests are two exports.
    a = ddb.export_table_to_point_in_time(TableArn=arn, S3Bucket="exports")["ExportDescription"]
    b = ddb.export_table_to_point_in_time(TableArn=arn, S3Bucket="exports")["ExportDescription"]
    assert a["ExportArn"] != b["ExportArn"] and a["ClientToken"] != b["ClientToken"]


def test_describe_export_refusals(server, ddb):
    good = ARN + "T_x/export/01791506414432-3f2e5aa4"
    assert_error(lambda: ddb.describe_export(ExportArn=good), "ExportNotFoundException",
                 f"Export not found: Export not found: {good}")
    assert_error(lambda: ddb.describe_export(ExportArn=ARN + "nonexistent_table_xyz"),
                 "ValidationException", "Invalid Export ARN")
    assert_error(lambda: ddb.describe_export(
        ExportArn="qwerty:aws:dynamodb:us-east-1:000000000000:table/nonexistent_table_xyz"),
        "ValidationException", "Invalid Export ARN")
    for bad in ("arn:qwerty:dynamodb:us-east-1:000000000000:table/nonexistent_table_xyz",
                "arn:aws:qwerty:us-east-1:000000000000:table/nonexistent_table_xyz",
                "arn:aws:dynamodb:qwerty:000000000000:table/nonexistent_table_xyz",
                "arn:aws:dynamodb:us-east-1:qwerty:table/nonexistent_table_xyz"):
        assert_error(lambda: ddb.describe_export(ExportArn=bad), "AccessDeniedException",
                     "Access is denied")
    assert_error(lambda: ddb.describe_export(ExportArn=good.replace("us-east-1", "us-west-2")),
                 "ExportNotFoundException", "Export not found: Invalid export arn")
    assert raw(server, "DescribeExport", {"ExportArn": "x" * 10}) == (
        400, "ValidationException", "1 validation error detected: Value 'xxxxxxxxxx' at "
        "'exportArn' failed to satisfy constraint: Member must have length greater than or "
        "equal to 37")
    token = "0" * 120
    assert_error(lambda: ddb.list_exports(NextToken=token), "ValidationException",
                 f"Invalid Request: Provided nextToken is invalid: {token}")


def test_missing_bucket_fails_the_export_later(ddb, table_name):
    e2e_util.create_table(ddb, table_name)
    enable_pitr(ddb, table_name)
    d = ddb.export_table_to_point_in_time(TableArn=ARN + table_name,
                                          S3Bucket="no-such-bucket-here")["ExportDescription"]
    final = wait_export(ddb, d["ExportArn"])
    assert final["ExportStatus"] == "FAILED"
    assert final["FailureCode"] == "S3NoSuchBucket"
    assert "bucket does not exist" in final["FailureMessage"]
    assert "ItemCount" not in final and "ExportManifest" not in final
    owner = ddb.export_table_to_point_in_time(TableArn=ARN + table_name, S3Bucket="exports",
                                              S3BucketOwner="123456789012")["ExportDescription"]
    assert wait_export(ddb, owner["ExportArn"])["FailureCode"] == "S3AccessDenied"


def test_list_exports_pages_newest_first_and_filters_by_live_table(server, ddb, table_name):
    make_bucket(server)
    e2e_util.create_table(ddb, table_name)
    enable_pitr(ddb, table_name)
    arns = []
    for _ in range(5):
        arns.append(ddb.export_table_to_point_in_time(
            TableArn=ARN + table_name, S3Bucket="exports")["ExportDescription"]["ExportArn"])
        time.sleep(0.002)
    for a in arns:
        wait_export(ddb, a)
    seen, kwargs = [], {"TableArn": ARN + table_name, "MaxResults": 2}
    while True:
        page = api(server.port, "ListExports", kwargs)
        assert len(page["ExportSummaries"]) <= 2
        for s in page["ExportSummaries"]:
            assert s == {"ExportArn": s["ExportArn"], "ExportStatus": "COMPLETED",
                         "ExportType": "FULL_EXPORT"}
            seen.append(s["ExportArn"])
        if "NextToken" not in page:
            break
        kwargs["NextToken"] = page["NextToken"]
    assert seen == sorted(arns, key=lambda a: a.rsplit("/", 1)[1], reverse=True)
    assert_error(lambda: ddb.list_exports(MaxResults=26), "ValidationException",
                 "1 validation error detected: Value '26' at 'maxResults' failed to satisfy "
                 "constraint: Member must have value less than or equal to 25")
    ddb.delete_table(TableName=table_name)
    assert api(server.port, "ListExports", {"TableArn": ARN + table_name})["ExportSummaries"] == []
    assert ddb.describe_export(ExportArn=arns[0])["ExportDescription"]["ExportStatus"] == "COMPLETED"


# --------------------------------------------------------------------------------------------
# Crash
# --------------------------------------------------------------------------------------------


def fill(endpoint, table, count, size):
    def worker(lo, hi):
        client = make_client(endpoint)
        for start in range(lo, hi, 25):
            reqs = [{"PutRequest": {"Item": {"pk": {"S": f"k{i:07d}"}, "v": {"S": "x" * size}}}}
                    for i in range(start, min(start + 25, hi))]
            client.batch_write_item(RequestItems={table: reqs})
    step = count // 4
    threads = [threading.Thread(target=worker, args=(i * step, (i + 1) * step)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def test_kill_during_a_big_export_leaves_no_complete_manifest_and_a_failed_record(start_server, tmp_path):
    srv = start_server()
    ddb = make_client(srv.endpoint)
    bucket_dir = make_bucket(srv, "crash")
    e2e_util.create_table(ddb, "big")
    fill(srv.endpoint, "big", 40000, 2000)
    enable_pitr(ddb, "big")
    d = ddb.export_table_to_point_in_time(TableArn=ARN + "big", S3Bucket="crash")["ExportDescription"]
    srv.kill()
    arn = d["ExportArn"]
    folder = export_folder(bucket_dir, "", arn)
    assert not (folder / "manifest-summary.json").exists(), "the export finished before the kill"
    check_data_dir(srv.data_dir)
    srv2 = start_server(srv.data_dir)
    ddb2 = make_client(srv2.endpoint)
    # Marked FAILED at the start on RocksDB; on PostgreSQL (the record in the database) once the
    # killed process's lease has lapsed, by the recovery pass (src/backup/job_records.h).
    desc = wait_until(lambda: (lambda r: r if r["ExportStatus"] != "IN_PROGRESS" else None)(
        ddb2.describe_export(ExportArn=arn)["ExportDescription"]), 30, "the killed export marked")
    assert desc["ExportStatus"] == "FAILED"
    assert desc["FailureCode"] == "InternalServerError"
    assert not (folder / "manifest-summary.json").exists()
    # A new export of the same table completes.
    again = ddb2.export_table_to_point_in_time(TableArn=ARN + "big", S3Bucket="crash")
    final = wait_export(ddb2, again["ExportDescription"]["ExportArn"], timeout=300)
    assert final["ItemCount"] == 40000
    # Over 64 MiB of lines: more than one data file, each counted and checksummed.
    assert len(check_layout(bucket_dir, "", final)) == 40000
    assert len(list((export_folder(bucket_dir, "", final["ExportArn"]) / "data").iterdir())) >= 2
    srv2.stop()
    check_data_dir(srv.data_dir)


def test_policies_govern_exports_by_their_source_table(start_server, tmp_path):
    import boto3
    from e2e_util import REGION, client_config
    (tmp_path / "credentials").write_text("ADMIN adminsecret\nEXPORTER exportersecret\n")
    (tmp_path / "policies.json").write_text(json.dumps({
        "ADMIN": [{"Effect": "Allow", "Action": "dynamodb:*", "Resource": "*"}],
        "EXPORTER": [{"Effect": "Allow", "Action": ["dynamodb:ExportTableToPointInTime",
                                                    "dynamodb:DescribeExport"],
                      "Resource": ARN + "Public*"}]}))
    srv = start_server(tmp_path / "data", ["--credentials", str(tmp_path / "credentials"),
                                           "--policies", str(tmp_path / "policies.json")])
    mk = lambda key, secret: boto3.session.Session().client(  # noqa: E731
        "dynamodb", endpoint_url=srv.endpoint, region_name=REGION, aws_access_key_id=key,
        aws_secret_access_key=secret, config=client_config())
    admin, exporter = mk("ADMIN", "adminsecret"), mk("EXPORTER", "exportersecret")
    make_bucket(srv, "pol")
    for name in ("PublicData", "Secrets"):
        e2e_util.create_table(admin, name)
        enable_pitr(admin, name)
    e = ddb_error(exporter.export_table_to_point_in_time, TableArn=ARN + "Secrets", S3Bucket="pol")
    assert (e.code, e.message) == (
        "AccessDeniedException",
        "User: arn:aws:iam::000000000000:user/EXPORTER is not authorized to perform: "
        "dynamodb:ExportTableToPointInTime on resource: " + ARN + "Secrets because no "
        "identity-based policy allows the dynamodb:ExportTableToPointInTime action")
    d = exporter.export_table_to_point_in_time(TableArn=ARN + "PublicData", S3Bucket="pol")
    assert wait_export(exporter, d["ExportDescription"]["ExportArn"])["ExportStatus"] == "COMPLETED"


def test_simultaneous_replays_of_one_client_token_are_one_export(server, ddb, table_name):
    make_bucket(server)
    e2e_util.create_table(ddb, table_name)
    enable_pitr(ddb, table_name)
    arns, token = [], "same-" + table_name

    def call():
        arns.append(make_client(server.endpoint).export_table_to_point_in_time(
            TableArn=ARN + table_name, S3Bucket="exports", ClientToken=token)[
            "ExportDescription"]["ExportArn"])
    threads = [threading.Thread(target=call) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(arns) == 4 and len(set(arns)) == 1
    mine = [s for s in api(server.port, "ListExports", {"TableArn": ARN + table_name})[
        "ExportSummaries"]]
    assert [s["ExportArn"] for s in mine] == arns[:1]
