"""ImportTable, DescribeImport and ListImports through boto3 (issue 22), from a local folder that
stands for S3: bucket B is <data dir>/s3/B. What the service does was measured against AWS by
ScyllaDB's conformance test (test/alternator/test_import.py); the rules and their sources are in
docs/compatibility.md, "Import from S3".
"""
from __future__ import annotations

import base64
import ctypes
import gzip
import json
import time
from decimal import Decimal
from pathlib import Path

import pytest
from boto3.dynamodb.types import Binary, TypeDeserializer, TypeSerializer

from e2e_util import (ServerProcess, check_data_dir, ddb_error, make_client, raw_call, unique_name,
                      wait_until)

SCHEMA = {
    "KeySchema": [{"AttributeName": "p", "KeyType": "HASH"},
                  {"AttributeName": "c", "KeyType": "RANGE"}],
    "AttributeDefinitions": [{"AttributeName": "p", "AttributeType": "S"},
                             {"AttributeName": "c", "AttributeType": "N"}],
}

ITEMS = [
    {"p": "minimal", "c": Decimal(1)},
    {"p": "strings", "c": Decimal(2), "unicode": "zażółć 日本語 🦑",
     "escapes": 'quote" backslash\\ newline\n tab\t', "empty": "", "long": "x" * 1000},
    {"p": "numbers", "c": Decimal(3), "zero": Decimal(0), "neg": Decimal("-17.5"),
     "digits38": Decimal("1" * 38), "small": Decimal("1E-130"), "frac": Decimal("0.000001")},
    {"p": "binary", "c": Decimal(4), "bytes": Binary(b"\x00\x01\xfe\xff"), "empty": Binary(b"")},
    {"p": "scalars", "c": Decimal(5), "yes": True, "no": False, "nothing": None},
    {"p": "sets", "c": Decimal(6), "ss": {"a", "b"}, "ns": {Decimal(1), Decimal("3.5")},
     "bs": {Binary(b"\x00"), Binary(b"\x01")}},
    {"p": "documents", "c": Decimal(7), "list": ["s", Decimal(1), True, None, Binary(b"b"), [], {}],
     "map": {"a": Decimal(1), "b": {"c": "d"}}},
    {"p": "big", "c": Decimal(8), "blob": "y" * 380000},
]

INITIAL_MEMBERS = ["ImportArn", "ImportStatus", "TableArn", "TableId", "ClientToken",
                   "S3BucketSource", "InputFormat", "InputCompressionType",
                   "TableCreationParameters", "StartTime", "ProcessedItemCount",
                   "ImportedItemCount", "ErrorCount", "CloudWatchLogGroupArn"]
ABSENT_INITIAL = ["EndTime", "FailureCode", "FailureMessage", "ProcessedSizeBytes"]


def _encode(av):
    [(tag, value)] = av.items()
    if tag == "B":
        return {"B": base64.b64encode(bytes(value)).decode()}
    if tag == "BS":
        return {"BS": [base64.b64encode(bytes(b)).decode() for b in value]}
    if tag == "L":
        return {"L": [_encode(v) for v in value]}
    if tag == "M":
        return {"M": {k: _encode(v) for k, v in value.items()}}
    return av


def json_lines(items) -> list[str]:
    ser = TypeSerializer()
    return [json.dumps({"Item": {k: _encode(ser.serialize(v)) for k, v in item.items()}})
            for item in items]


def zstd_compress(data: bytes) -> bytes:
    lib = ctypes.CDLL("libzstd.so.1")
    lib.ZSTD_compressBound.restype = ctypes.c_size_t
    lib.ZSTD_compress.restype = ctypes.c_size_t
    lib.ZSTD_isError.restype = ctypes.c_uint
    bound = lib.ZSTD_compressBound(ctypes.c_size_t(len(data)))
    out = ctypes.create_string_buffer(bound)
    n = lib.ZSTD_compress(out, ctypes.c_size_t(bound), data, ctypes.c_size_t(len(data)), 3)
    assert not lib.ZSTD_isError(ctypes.c_size_t(n))
    return out.raw[:n]


def scan_all(client, table):
    items, kwargs = [], {"TableName": table}
    while True:
        r = client.scan(**kwargs)
        items += r["Items"]
        if "LastEvaluatedKey" not in r:
            return items
        kwargs["ExclusiveStartKey"] = r["LastEvaluatedKey"]


def _norm(v):
    if isinstance(v, set):
        return ("set", sorted(bytes(x) if isinstance(x, Binary) else x for x in v))
    if isinstance(v, Binary):
        return bytes(v)
    if isinstance(v, dict):
        return {k: _norm(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_norm(x) for x in v]
    return v


def plain(items):
    """Wire items (as a scan returns them) as comparable Python values, sorted by key."""
    de = TypeDeserializer()
    out = [_norm({k: de.deserialize(v) for k, v in it.items()}) for it in items]
    return sorted(out, key=lambda i: (i["p"], i["c"]))


def expected(items):
    return sorted((_norm(it) for it in items), key=lambda i: (i["p"], i["c"]))


class Bucket:
    """A folder standing for an S3 bucket under the server's --export-dir."""

    def __init__(self, root: Path):
        self.name = unique_name("bkt").lower().replace("_", "-")
        self.path = root / self.name
        self.path.mkdir(parents=True)

    def put(self, key: str, body: bytes):
        f = self.path / key
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_bytes(body)


@pytest.fixture
def bucket(server):
    return Bucket(server.data_dir / "s3")


def start_import(ddb, bucket, prefix, table, fmt="DYNAMODB_JSON", compression="NONE",
                 schema=SCHEMA, **extra):
    kwargs = dict(S3BucketSource={"S3Bucket": bucket.name, "S3KeyPrefix": prefix},
                  InputFormat=fmt, InputCompressionType=compression,
                  TableCreationParameters={"TableName": table, "BillingMode": "PAY_PER_REQUEST",
                                           **schema}, **extra)
    if compression is None:
        del kwargs["InputCompressionType"]
    return ddb.import_table(**kwargs)["ImportTableDescription"]


def wait_import(ddb, arn, timeout=60):
    deadline = time.time() + timeout
    while True:
        d = ddb.describe_import(ImportArn=arn)["ImportTableDescription"]
        if d["ImportStatus"] != "IN_PROGRESS":
            return d
        assert time.time() < deadline, f"import {arn} still running"
        time.sleep(0.05)


def test_dynamodb_json_plain_and_gzip_import_every_type(ddb, bucket, table_name):
    lines = json_lines(ITEMS)
    body = ("\n".join(lines) + "\n").encode()
    bucket.put("plain/00000.json", body)
    bucket.put("plain/empty.json", b"")  # a zero-length object adds nothing
    bucket.put("gz/00000.json.gz", gzip.compress(body))
    for prefix, compression, table in [("plain/", None, table_name + "_p"),
                                       ("gz/", "GZIP", table_name + "_g")]:
        initial = start_import(ddb, bucket, prefix, table, compression=compression)
        for member in INITIAL_MEMBERS:
            assert member in initial, member
        for member in ABSENT_INITIAL:
            assert member not in initial, member
        assert initial["ImportStatus"] == "IN_PROGRESS"
        assert initial["InputCompressionType"] == (compression or "NONE")
        assert (initial["ProcessedItemCount"], initial["ImportedItemCount"],
                initial["ErrorCount"]) == (0, 0, 0)
        table_arn, sep, import_id = initial["ImportArn"].rpartition("/import/")
        assert sep and table_arn == initial["TableArn"] and import_id
        final = wait_import(ddb, initial["ImportArn"])
        assert final["ImportStatus"] == "COMPLETED", final
        assert "FailureCode" not in final
        assert final["EndTime"] >= final["StartTime"]
        assert final["ProcessedItemCount"] == final["ImportedItemCount"] == len(ITEMS)
        assert final["ErrorCount"] == 0
        assert final["ProcessedSizeBytes"] == len(body)  # uncompressed bytes, either way
        for member in ["ImportArn", "TableArn", "TableId", "ClientToken", "S3BucketSource",
                       "InputFormat", "InputCompressionType", "TableCreationParameters",
                       "StartTime"]:
            assert final[member] == initial[member], member
        assert plain(scan_all(ddb, table)) == expected(ITEMS)
        t = ddb.describe_table(TableName=table)["Table"]
        assert t["TableStatus"] == "ACTIVE"
        assert t["TableId"] == initial["TableId"]
        assert "RestoreSummary" not in t


def test_ion_zstd_import_with_index(ddb, bucket, table_name):
    lines = [
        '$ion_1_0 {Item:{p:"a",c:1.,g:"x",n:6d2,s:$dynamodb_SS::["u","v"],b:{{AAE=}},'
        'm:{k:[1.,null,true]},ns:$dynamodb_NS::[1.5,2.]}}',
        '$ion_1_0 {Item:{p:"b",c:2.,g:"x"}}',
        '$ion_1_0 {Item:{p:"c",c:3.}}',
    ]
    bucket.put("ion/part-0.ion.zst", zstd_compress(("\n".join(lines) + "\n").encode()))
    schema = {
        "KeySchema": SCHEMA["KeySchema"],
        "AttributeDefinitions": SCHEMA["AttributeDefinitions"] + [
            {"AttributeName": "g", "AttributeType": "S"}],
        "GlobalSecondaryIndexes": [{
            "IndexName": "byg", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "ALL"}}],
    }
    d = start_import(ddb, bucket, "ion/", table_name, fmt="ION", compression="ZSTD", schema=schema)
    final = wait_import(ddb, d["ImportArn"])
    assert final["ImportStatus"] == "COMPLETED", final
    assert final["ImportedItemCount"] == 3
    item = ddb.get_item(TableName=table_name, Key={"p": {"S": "a"}, "c": {"N": "1"}})["Item"]
    assert item["n"] == {"N": "600"}
    assert sorted(item["s"]["SS"]) == ["u", "v"]
    assert item["b"] == {"B": b"\x00\x01"}
    assert item["m"] == {"M": {"k": {"L": [{"N": "1"}, {"NULL": True}, {"BOOL": True}]}}}
    assert sorted(item["ns"]["NS"]) == ["1.5", "2"]
    # The index was built by the import's writes.
    q = ddb.query(TableName=table_name, IndexName="byg", KeyConditionExpression="g = :g",
                  ExpressionAttributeValues={":g": {"S": "x"}})
    assert sorted(i["p"]["S"] for i in q["Items"]) == ["a", "b"]


def test_csv_import_header_line_and_header_list(ddb, bucket, table_name):
    bucket.put("csv1/a.csv", b'p,c,note,empty\r\nk1,10,"a, b",\nk2,2.50,"say ""hi""",x\n')
    d = start_import(ddb, bucket, "csv1/", table_name, fmt="CSV")
    final = wait_import(ddb, d["ImportArn"])
    assert final["ImportStatus"] == "COMPLETED", final
    items = {i["p"]["S"]: i for i in scan_all(ddb, table_name)}
    assert items["k1"] == {"p": {"S": "k1"}, "c": {"N": "10"}, "note": {"S": "a, b"}}
    assert items["k2"] == {"p": {"S": "k2"}, "c": {"N": "2.5"}, "note": {"S": 'say "hi"'},
                           "empty": {"S": "x"}}
    # An explicit header: the first line is data; another delimiter.
    bucket.put("csv2/a.csv", b"k3|7|17\n")
    d = start_import(ddb, bucket, "csv2/", table_name + "_2", fmt="CSV",
                     InputFormatOptions={"Csv": {"Delimiter": "|",
                                                 "HeaderList": ["p", "c", "num"]}})
    assert d["InputFormatOptions"] == {"Csv": {"Delimiter": "|", "HeaderList": ["p", "c", "num"]}}
    final = wait_import(ddb, d["ImportArn"])
    assert final["ImportStatus"] == "COMPLETED", final
    assert scan_all(ddb, table_name + "_2") == [
        {"p": {"S": "k3"}, "c": {"N": "7"}, "num": {"S": "17"}}]  # not a key: a string


INVALID_LINES = {
    "no Item member": '{"NotAnItem": {"p": {"S": "x"}, "c": {"N": "1"}}}',
    "missing partition key": '{"Item": {"c": {"N": "1"}}}',
    "missing sort key": '{"Item": {"p": {"S": "x"}}}',
    "sort key of the wrong type": '{"Item": {"p": {"S": "x"}, "c": {"S": "1"}}}',
    "not JSON at all": '{"Item": ',
    "empty attribute name": '{"Item": {"p": {"S": "x"}, "c": {"N": "1"}, "": {"S": "v"}}}',
}
VALID = [{"p": "good", "c": Decimal(1), "v": "kept"}, {"p": "good", "c": Decimal(2)}]


def test_invalid_items_fail_the_import_and_keep_the_table(ddb, bucket, table_name, server):
    bucket.put("bad/00000-good.json", ("\n".join(json_lines(VALID)) + "\n\n   \n").encode())
    for i, line in enumerate(INVALID_LINES.values(), start=1):
        bucket.put(f"bad/{i:05}-bad.json", (line + "\n").encode())
    # The first bad line abandons the rest of its object: one error, the next line unread.
    bucket.put("bad/00100-two.json",
               (INVALID_LINES["not JSON at all"] + "\n" + json_lines(
                   [{"p": "never", "c": Decimal(9)}])[0] + "\n").encode())
    d = start_import(ddb, bucket, "bad/", table_name)
    final = wait_import(ddb, d["ImportArn"])
    assert final["ImportStatus"] == "FAILED"
    assert final["FailureCode"] == "ItemValidationError"
    assert final["FailureMessage"] == (
        "Some of the items failed validation checks and were not imported. Please check "
        "CloudWatch error logs for more details.")
    errors = len(INVALID_LINES) + 1
    assert (final["ProcessedItemCount"], final["ImportedItemCount"], final["ErrorCount"]) == (
        len(VALID) + errors, len(VALID), errors)
    assert plain(scan_all(ddb, table_name)) == expected(VALID)
    assert ddb.describe_table(TableName=table_name)["Table"]["TableStatus"] == "ACTIVE"
    # Each error is logged, CloudWatch-style, naming the object and the line.
    log = server.log_text()
    assert log.count(f"event=import_item_error import={d['ImportArn']}") == errors
    assert 'object="bad/00002-bad.json" line=1 errorMessage="One or more parameter values were ' \
           'invalid: Missing the key p in the item"' in log


def test_missing_bucket_fails_and_leaves_no_table(ddb, table_name):
    d = ddb.import_table(
        S3BucketSource={"S3Bucket": "no-such-bucket-" + table_name.lower().replace("_", "-")},
        InputFormat="DYNAMODB_JSON",
        TableCreationParameters={"TableName": table_name, "BillingMode": "PAY_PER_REQUEST",
                                 **SCHEMA})["ImportTableDescription"]
    final = wait_import(ddb, d["ImportArn"])
    assert final["ImportStatus"] == "FAILED"
    assert final["FailureCode"] == "S3NoSuchBucket"
    assert final["FailureMessage"]
    assert (final["ProcessedItemCount"], final["ImportedItemCount"], final["ErrorCount"]) == (0, 0, 0)
    assert "ProcessedSizeBytes" not in final
    assert ddb_error(ddb.describe_table, TableName=table_name).code == "ResourceNotFoundException"


def test_empty_prefix_completes_with_an_empty_table(ddb, bucket, table_name):
    d = start_import(ddb, bucket, "nothing-here/", table_name)
    final = wait_import(ddb, d["ImportArn"])
    assert final["ImportStatus"] == "COMPLETED"
    assert (final["ProcessedItemCount"], final["ImportedItemCount"], final["ErrorCount"]) == (0, 0, 0)
    assert ddb.describe_table(TableName=table_name)["Table"]["TableStatus"] == "ACTIVE"
    assert scan_all(ddb, table_name) == []


def test_client_token_replays_and_conflicts(ddb, bucket, table_name):
    # Big enough to still be running when the replays arrive.
    lines = [json.dumps({"Item": {"p": {"S": f"k{i}"}, "c": {"N": str(i)}}})
             for i in range(150000)]
    bucket.put("many/0.json", ("\n".join(lines) + "\n").encode())
    token = "tok-" + table_name
    first = start_import(ddb, bucket, "many/", table_name, ClientToken=token)
    again = start_import(ddb, bucket, "other/", table_name, fmt="CSV", ClientToken=token)
    assert again["ImportArn"] == first["ImportArn"]
    assert again["S3BucketSource"] == first["S3BucketSource"]  # the original, unchanged
    e = ddb_error(start_import, ddb, bucket, "many/", table_name + "_other", ClientToken=token)
    assert (e.code, e.message) == ("ImportConflictException",
                                   "Duplicate request detected with conflicting parameters")
    running = ddb.describe_table(TableName=table_name)["Table"]
    listed = [s for s in ddb.list_imports(TableArn=first["TableArn"])["ImportSummaryList"]]
    final = wait_import(ddb, first["ImportArn"], timeout=300)
    assert running["TableStatus"] == "CREATING", "the import ended before the replays"
    assert [s["ImportArn"] for s in listed] == [first["ImportArn"]]  # listed while running
    assert final["ImportStatus"] == "COMPLETED"
    assert final["ImportedItemCount"] == 150000
    # Once it has ended its table exists, which is checked before the token.
    e = ddb_error(start_import, ddb, bucket, "many/", table_name, ClientToken=token)
    assert (e.code, e.message) == ("ResourceInUseException", f"Table already exists: {table_name}")


@pytest.mark.parametrize("change,needle", [
    ({"InputFormat": "NOT_A_FORMAT"}, "inputFormat"),
    ({"InputCompressionType": "BZIP2"}, "inputCompressionType"),
    ({"S3BucketSource": {"S3Bucket": "x" * 256}}, "s3Bucket"),
    ({"S3BucketSource": {"S3Bucket": "-nope!"}}, "s3Bucket"),
    ({"S3BucketSource": {"S3Bucket": "b..up"}}, "s3Bucket"),
    ({"S3BucketSource": {"S3Bucket": "bkt", "S3KeyPrefix": "p" * 1025}}, "s3KeyPrefix"),
    ({"TableCreationParameters": {"TableName": "not a table name!", "BillingMode":
                                  "PAY_PER_REQUEST", **SCHEMA}}, "tableName"),
    ({"InputFormatOptions": {"Csv": {"Delimiter": ","}}}, "InputFormatOptions"),
    ({"InputFormat": "CSV", "InputFormatOptions": {"Csv": {"Delimiter": "x"}}},
     "inputFormatOptions.csv.delimiter"),
    ({"ClientToken": "has$dollar"}, "clientToken"),
])
def test_import_table_validation(ddb, table_name, change, needle):
    kwargs = dict(S3BucketSource={"S3Bucket": "bkt"}, InputFormat="DYNAMODB_JSON",
                  TableCreationParameters={"TableName": table_name,
                                           "BillingMode": "PAY_PER_REQUEST", **SCHEMA})
    kwargs.update(change)
    e = ddb_error(ddb.import_table, **kwargs)
    assert e.code == "ValidationException" and needle in e.message, e.message
    assert ddb_error(ddb.describe_table, TableName=table_name).code == "ResourceNotFoundException"


def test_client_token_is_required_on_the_wire(server, table_name):
    body = {"S3BucketSource": {"S3Bucket": "bkt"}, "InputFormat": "DYNAMODB_JSON",
            "TableCreationParameters": {"TableName": table_name,
                                        "BillingMode": "PAY_PER_REQUEST", **SCHEMA}}
    status, _, payload = raw_call(server.port, "DynamoDB_20120810.ImportTable", body)
    assert status == 400
    err = json.loads(payload)
    assert err["__type"].endswith("ValidationException")
    assert err["message"] == ("1 validation error detected: Value null at 'clientToken' failed "
                              "to satisfy constraint: Member must not be null")


def test_describe_and_list_imports(ddb, bucket, table_name):
    bucket.put("two/0.json", (json_lines(VALID)[0] + "\n").encode())
    a = start_import(ddb, bucket, "two/", table_name + "_a")
    b = start_import(ddb, bucket, "two/", table_name + "_b")
    wait_import(ddb, a["ImportArn"])
    wait_import(ddb, b["ImportArn"])
    summaries, token = [], None
    while True:
        r = ddb.list_imports(PageSize=1, **({"NextToken": token} if token else {}))
        assert len(r["ImportSummaryList"]) <= 1
        summaries += r["ImportSummaryList"]
        token = r.get("NextToken")
        if not token:
            break
    arns = [s["ImportArn"] for s in summaries]
    assert len(arns) == len(set(arns))
    assert {a["ImportArn"], b["ImportArn"]} <= set(arns)
    mine = next(s for s in summaries if s["ImportArn"] == a["ImportArn"])
    assert set(mine) == {"ImportArn", "ImportStatus", "TableArn", "S3BucketSource", "InputFormat",
                         "StartTime", "EndTime", "CloudWatchLogGroupArn"}
    only_a = ddb.list_imports(TableArn=a["TableArn"])["ImportSummaryList"]
    assert [s["ImportArn"] for s in only_a] == [a["ImportArn"]]
    for size in (0, 26):
        assert ddb_error(ddb.list_imports, PageSize=size).code == "ValidationException"
    assert ddb_error(ddb.list_imports, NextToken="0" * 112).code == "ValidationException"
    missing = a["TableArn"] + "/import/01658528578619-c4d4e311"
    assert ddb_error(ddb.describe_import, ImportArn=missing).code == "ImportNotFoundException"
    bad = a["TableArn"].rpartition("/")[0] + "/x/import/01658528578619-c4d4e311"
    e = ddb_error(ddb.describe_import, ImportArn=bad)
    assert (e.code, e.message) == ("ValidationException", f"Invalid Import ARN: {bad}")


def test_kill_during_import_drops_the_table_and_fails_the_record(start_server, tmp_path):
    srv = start_server(tmp_path / "data")
    ddb = make_client(srv.endpoint)
    bucket = Bucket(srv.data_dir / "s3")
    lines = [json.dumps({"Item": {"p": {"S": f"k{i}"}, "c": {"N": str(i)}, "v": {"S": "x" * 50}}})
             for i in range(200000)]
    bucket.put("big/0.json", ("\n".join(lines) + "\n").encode())
    d = start_import(ddb, bucket, "big/", "killed")
    time.sleep(0.3)
    srv.kill()
    check_data_dir(srv.data_dir)
    srv2 = start_server(srv.data_dir)
    ddb2 = make_client(srv2.endpoint)
    # Marked FAILED at the start on RocksDB; on PostgreSQL (the record in the database) once the
    # killed process's lease has lapsed, by the recovery pass (src/backup/job_records.h).
    final = wait_until(lambda: (lambda r: r if r["ImportStatus"] != "IN_PROGRESS" else None)(
        ddb2.describe_import(ImportArn=d["ImportArn"])["ImportTableDescription"]), 30,
        "the killed import marked")
    assert final["ImportStatus"] in ("FAILED", "COMPLETED")
    if final["ImportStatus"] == "FAILED":  # cut short: no half-imported table survives
        assert final["FailureCode"] == "InternalServerError"
        # Dropped at the start on RocksDB; on PostgreSQL once the killed process's lease has
        # lapsed, by the recovery pass (src/backup/restore_lease.h).
        wait_until(lambda: "killed" not in ddb2.list_tables()["TableNames"], 30,
                   "the half-imported table dropped")
        assert ddb_error(ddb2.describe_table, TableName="killed").code == \
            "ResourceNotFoundException"
    srv2.stop()
    check_data_dir(srv.data_dir)


def test_policies_govern_import_table_by_its_target_table(start_server, tmp_path):
    import boto3
    from e2e_util import REGION, client_config
    (tmp_path / "credentials").write_text("LOADER loadersecret\n")
    (tmp_path / "policies.json").write_text(json.dumps({"LOADER": [
        {"Effect": "Allow", "Action": ["dynamodb:ImportTable", "dynamodb:DescribeImport"],
         "Resource": "arn:aws:dynamodb:us-east-1:000000000000:table/Staging*"}]}))
    srv = start_server(tmp_path / "data", ["--credentials", str(tmp_path / "credentials"),
                                           "--policies", str(tmp_path / "policies.json")])
    ddb = boto3.session.Session().client(
        "dynamodb", endpoint_url=srv.endpoint, region_name=REGION, aws_access_key_id="LOADER",
        aws_secret_access_key="loadersecret", config=client_config())
    bucket = Bucket(srv.data_dir / "s3")
    bucket.put("x/0.json", (json_lines(VALID)[0] + "\n").encode())
    e = ddb_error(start_import, ddb, bucket, "x/", "Production")
    assert e.code == "AccessDeniedException"
    assert e.message == (
        "User: arn:aws:iam::000000000000:user/LOADER is not authorized to perform: "
        "dynamodb:ImportTable on resource: arn:aws:dynamodb:us-east-1:000000000000:table/"
        "Production because no identity-based policy allows the dynamodb:ImportTable action")
    d = start_import(ddb, bucket, "x/", "StagingOrders")
    assert wait_import(ddb, d["ImportArn"])["ImportStatus"] == "COMPLETED"


def test_import_creates_the_vector_indexes_it_is_given(server, bucket, table_name):
    """TableCreationParameters.VectorIndexes (the SDK's ImportTable model has it): the imported
    table has the vector index, every imported item with a vector is in it, and SearchVectors
    ranks them (sent raw: the pinned boto3 has no vector shapes). docs/vector-indexes.md."""
    target = "DynamoDB_20120810."
    import random
    rng = random.Random(20261128)
    # float32-exact values (multiples of 1/1024), so the server's ranking and ours agree.
    vectors = {f"v{i}": [rng.randrange(-1024, 1025) / 1024 for _ in range(3)] for i in range(40)}
    lines = [json.dumps({"Item": {"p": {"S": k}, "c": {"N": "0"},
                                  "emb": {"L": [{"N": repr(x)} for x in v]}}})
             for k, v in vectors.items()]
    lines.append(json.dumps({"Item": {"p": {"S": "novec"}, "c": {"N": "0"}}}))
    bucket.put("vec/00000.json", ("\n".join(lines) + "\n").encode())
    status, _, body = raw_call(server.port, target + "ImportTable", {
        "ClientToken": "vector-import-" + table_name,
        "S3BucketSource": {"S3Bucket": bucket.name, "S3KeyPrefix": "vec"},
        "InputFormat": "DYNAMODB_JSON", "InputCompressionType": "NONE",
        "TableCreationParameters": {
            "TableName": table_name, "BillingMode": "PAY_PER_REQUEST", **SCHEMA,
            "VectorIndexes": [{"IndexName": "by_emb", "VectorAttribute": {"AttributeName": "emb"},
                               "Dimensions": 3, "DistanceFunction": "EUCLIDEAN",
                               "Projection": {"ProjectionType": "KEYS_ONLY"}}]}})
    assert status == 200, body
    arn = json.loads(body)["ImportTableDescription"]["ImportArn"]
    ddb = make_client(server.endpoint)
    d = wait_import(ddb, arn)
    assert d["ImportStatus"] == "COMPLETED", d
    assert d["ImportedItemCount"] == len(vectors) + 1
    status, _, body = raw_call(server.port, target + "DescribeTable", {"TableName": table_name})
    assert status == 200, body
    (ix,) = json.loads(body)["Table"]["VectorIndexes"]
    assert (ix["IndexName"], ix["IndexStatus"], ix["Dimensions"]) == ("by_emb", "ACTIVE", 3)
    query = [0.25, -0.5, 0.125]
    status, _, body = raw_call(server.port, target + "SearchVectors", {
        "TableName": table_name, "IndexName": "by_emb", "TopK": 5,
        "SearchVector": [{"N": repr(x)} for x in query]})
    assert status == 200, body
    got = [r["Item"]["p"]["S"] for r in json.loads(body)["SearchResults"]]
    want = sorted(vectors, key=lambda k: (sum((a - b) ** 2 for a, b in zip(vectors[k], query)), k))
    assert got == want[:5], (got, want[:5])
