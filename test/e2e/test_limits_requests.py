"""Request-level limits at their boundaries: HTTP body and header sizes, expression placeholders
and substitution sizes, table/index/attribute names, index counts and projected attributes.

Only what other modules do not already cover (docs/limits.md lists those). Messages are the
reference's (docs/limits.md gives the source of each); a refused CreateTable must leave no
table behind, a refused write must leave nothing written.
"""
from __future__ import annotations

import json
import socket
import time

import pytest

from dataplane_util import S, drop_table, get, make_table
from e2e_util import AMZ_JSON, assert_error, ddb_error, raw_call, unique_name

V = "ValidationException"
INVALID = "One or more parameter values were invalid: "
TARGET = "DynamoDB_20120810."
MIB = 1024 * 1024


@pytest.fixture(scope="module")
def h(ddb):
    name = make_table(ddb, unique_name("limreq"))
    ddb.put_item(TableName=name, Item={"pk": S("a"), "d": S("x")})
    yield name
    drop_table(ddb, name)


def assert_no_table(ddb, name):
    names = [n for page in ddb.get_paginator("list_tables").paginate() for n in page["TableNames"]]
    assert name not in names


# ---- HTTP: 16 MB body, 64 KB of headers ---------------------------------------------------------

def read_head(s: socket.socket, deadline: float) -> bytes:
    """Everything up to the end of the response head, or what came before the peer closed."""
    data = b""
    while b"\r\n\r\n" not in data and time.monotonic() < deadline:
        try:
            chunk = s.recv(65536)
        except ConnectionResetError:
            break
        if not chunk:
            break
        data += chunk
    return data


def test_body_of_exactly_16_mib_is_not_refused_for_size(server):
    body = json.dumps({"TableName": "no_such_table_16m", "Padding": ""}).encode()
    body = body[:-2] + b"x" * (16 * MIB - len(body)) + b'"}'
    assert len(body) == 16 * MIB
    status, _, payload = raw_call(server.port, TARGET + "DescribeTable", body)
    assert status == 400, payload[:200]
    assert json.loads(payload)["__type"].endswith("#ResourceNotFoundException")


def request_head(header_block_bytes: int, body: bytes) -> bytes:
    """A complete DescribeTable request head of exactly `header_block_bytes` bytes (request line
    through the blank line), padded with one X-Padding header."""
    base = ("POST / HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Content-Type: {AMZ_JSON}\r\nX-Amz-Target: {TARGET}DescribeTable\r\n"
            f"Content-Length: {len(body)}\r\n")
    pad = header_block_bytes - len(base) - len("X-Padding: \r\n\r\n")
    head = (base + "X-Padding: " + "p" * pad + "\r\n\r\n").encode()
    assert len(head) == header_block_bytes
    return head


def test_header_block_of_64_kib_reaches_the_api_and_more_is_431(server):
    body = json.dumps({"TableName": "no_such_table_hdr"}).encode()
    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as s:
        s.sendall(request_head(64 * 1024, body) + body)
        head = read_head(s, time.monotonic() + 5)
    assert head.startswith(b"HTTP/1.1 400 "), head[:200]
    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as s:
        s.sendall(request_head(65 * 1024, body) + body)
        head = read_head(s, time.monotonic() + 5)
    assert head.startswith(b"HTTP/1.1 431 "), head[:200]
    assert raw_call(server.port, TARGET + "ListTables", "{}")[0] == 200


@pytest.mark.parametrize("shape", ["one-long-unterminated-line", "many-short-headers"])
def test_oversized_headers_get_a_prompt_431_not_a_hang(server, shape):
    # Headers that never end (no blank line) or come as thousands of small fields: the server
    # must answer as soon as the cap is passed, not wait for an idle timeout.
    if shape == "one-long-unterminated-line":
        head = b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: " + b"p" * (70 * 1024)
    else:
        head = b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\n" + b"".join(
            b"X-Header-%05d: %s\r\n" % (i, b"v" * 20) for i in range(2500))
    start = time.monotonic()
    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as s:
        s.sendall(head)
        got = read_head(s, start + 3)
    assert got.startswith(b"HTTP/1.1 431 "), got[:200]
    assert time.monotonic() - start < 3
    assert raw_call(server.port, TARGET + "ListTables", "{}")[0] == 200


# ---- expression placeholders: 255 bytes each; substitution size --------------------------------

def test_expression_attribute_name_placeholder_of_255_bytes_passes_and_256_fails(ddb, h):
    ok, bad = "#" + "n" * 254, "#" + "n" * 255
    assert ddb.get_item(TableName=h, Key={"pk": S("a")}, ProjectionExpression=ok,
                        ExpressionAttributeNames={ok: "d"})["Item"] == {"d": S("x")}
    assert_error(ddb.get_item, V, "ExpressionAttributeNames contains invalid key: The expression "
                 "attribute map contains a key that is too long; size of key: 256", TableName=h,
                 Key={"pk": S("a")}, ProjectionExpression=bad, ExpressionAttributeNames={bad: "d"})


def test_expression_attribute_value_placeholder_of_255_bytes_passes_and_256_fails(ddb, h):
    ok, bad = ":" + "v" * 254, ":" + "v" * 255
    ddb.update_item(TableName=h, Key={"pk": S("ph")}, UpdateExpression=f"SET d = {ok}",
                    ExpressionAttributeValues={ok: S("1")})
    assert_error(ddb.update_item, V, "ExpressionAttributeValues contains invalid key: The "
                 "expression attribute map contains a key that is too long;", TableName=h,
                 Key={"pk": S("ph")}, UpdateExpression=f"SET d = {bad}",
                 ExpressionAttributeValues={bad: S("2")})
    assert get(ddb, h, {"pk": S("ph")})["d"] == S("1")


def test_expression_attribute_name_value_over_64_kb_is_refused_in_every_expression(ddb, h):
    msg = ("ExpressionAttributeNames contains invalid value: Attribute name is too large, must be "
           "less than 65536 bytes for key #n")
    big = {"#n": "n" * 65536}
    assert_error(ddb.update_item, V, msg, TableName=h, Key={"pk": S("ean")},
                 UpdateExpression="SET #n = :v", ExpressionAttributeNames=big,
                 ExpressionAttributeValues={":v": S("x")})
    assert_error(ddb.put_item, V, msg, TableName=h, Item={"pk": S("ean")},
                 ConditionExpression="attribute_not_exists(#n)", ExpressionAttributeNames=big)
    assert_error(ddb.scan, V, msg, TableName=h, FilterExpression="attribute_exists(#n)",
                 ExpressionAttributeNames=big)
    assert get(ddb, h, {"pk": S("ean")}) is None


def test_substitution_values_beyond_2_mb_are_refused(ddb, h):
    # The documented cap is 2 MB for all of ExpressionAttributeNames + ExpressionAttributeValues;
    # the message is DynamoDB Local's.
    ddb.scan(TableName=h, FilterExpression="d = :a", ExpressionAttributeValues={":a": S("x" * 10**6)})
    assert_error(ddb.scan, V, "ExpressionAttributeValues exceeds max size", TableName=h,
                 FilterExpression="d IN (:a, :b, :c)",
                 ExpressionAttributeValues={f":{c}": S(c * MIB) for c in "abc"})


# ---- table, index and attribute names -----------------------------------------------------------

def create(ddb, name, attrs=(("pk", "S"),), key=(("pk", "HASH"),), **extra):
    return ddb.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": a, "AttributeType": t} for a, t in attrs],
        KeySchema=[{"AttributeName": a, "KeyType": k} for a, k in key], **extra)


def constraint(value: str, where: str, rule: str, n: int = 1) -> str:
    s = "s" if n > 1 else ""
    return (f"{n} validation error{s} detected: Value '{value}' at '{where}' failed to satisfy "
            f"constraint: {rule}")


LE255 = "Member must have length less than or equal to 255"


def test_table_name_of_255_characters_passes_and_256_fails(ddb):
    ok = unique_name("t").ljust(255, "x")
    create(ddb, ok)
    try:
        assert ddb.describe_table(TableName=ok)["Table"]["TableName"] == ok
        ddb.put_item(TableName=ok, Item={"pk": S("a")})
    finally:
        drop_table(ddb, ok)
    bad = ok + "y"
    assert_error(create, V, constraint(bad, "tableName", LE255), ddb=ddb, name=bad)
    assert_no_table(ddb, bad)


def gsi(name, projection=None, key="g"):
    return {"IndexName": name, "KeySchema": [{"AttributeName": key, "KeyType": "HASH"}],
            "Projection": projection or {"ProjectionType": "ALL"}}


GSI_ATTRS = (("pk", "S"), ("g", "S"))


@pytest.mark.parametrize("index_name,rule", [
    ("i" * 256, LE255),
    ("ii", "Member must have length greater than or equal to 3"),
    ("ii$", "Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"),
], ids=["256", "2", "bad-char"])
def test_index_name_limits(ddb, table_name, index_name, rule):
    assert_error(create, V, constraint(index_name, "globalSecondaryIndexes.1.member.indexName",
                                       rule),
                 ddb=ddb, name=table_name, attrs=GSI_ATTRS, GlobalSecondaryIndexes=[gsi(index_name)])
    assert_no_table(ddb, table_name)


def test_index_name_of_255_characters_passes(ddb, table_name):
    create(ddb, table_name, GSI_ATTRS, GlobalSecondaryIndexes=[gsi("i" * 255)])
    try:
        desc = ddb.describe_table(TableName=table_name)["Table"]
        assert [g["IndexName"] for g in desc["GlobalSecondaryIndexes"]] == ["i" * 255]
    finally:
        drop_table(ddb, table_name)


def test_20_global_indexes_pass_and_21_fail(ddb, table_name):
    assert_error(create, V, INVALID + "GlobalSecondaryIndex count exceeds the per-table limit of 20",
                 ddb=ddb, name=table_name, attrs=GSI_ATTRS,
                 GlobalSecondaryIndexes=[gsi(f"gsi{i:02d}") for i in range(21)])
    assert_no_table(ddb, table_name)
    create(ddb, table_name, GSI_ATTRS, GlobalSecondaryIndexes=[gsi(f"gsi{i:02d}") for i in range(20)])
    try:
        assert len(ddb.describe_table(TableName=table_name)["Table"]["GlobalSecondaryIndexes"]) == 20
    finally:
        drop_table(ddb, table_name)


def test_5_local_indexes_pass_and_6_fail(ddb, table_name):
    attrs = (("pk", "S"), ("sk", "S"), ("l", "S"))
    key = (("pk", "HASH"), ("sk", "RANGE"))
    lsis = [{"IndexName": f"lsi{i}", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                                                   {"AttributeName": "l", "KeyType": "RANGE"}],
             "Projection": {"ProjectionType": "KEYS_ONLY"}} for i in range(6)]
    assert_error(create, V, INVALID + "Number of LocalSecondaryIndexes exceeds per-table limit of 5",
                 ddb=ddb, name=table_name, attrs=attrs, key=key, LocalSecondaryIndexes=lsis)
    assert_no_table(ddb, table_name)
    create(ddb, table_name, attrs, key, LocalSecondaryIndexes=lsis[:5])
    try:
        assert len(ddb.describe_table(TableName=table_name)["Table"]["LocalSecondaryIndexes"]) == 5
    finally:
        drop_table(ddb, table_name)


def include(names):
    return {"ProjectionType": "INCLUDE", "NonKeyAttributes": names}


def test_100_projected_attributes_pass_and_101_fail(ddb, table_name):
    # 100 summed over all indexes (the same name in two indexes counts twice).
    five = [gsi(f"gsi{i}", include([f"a{j}" for j in range(20)])) for i in range(5)]
    e = ddb_error(create, ddb=ddb, name=table_name, attrs=GSI_ATTRS,
                  GlobalSecondaryIndexes=five + [gsi("gsi5", include(["extra"]))])
    assert e.code == V and "Number of projected attributes in all indexes exceeds limit of 100" \
        in e.message, (e.code, e.message)
    assert_no_table(ddb, table_name)
    create(ddb, table_name, GSI_ATTRS, GlobalSecondaryIndexes=five)
    drop_table(ddb, table_name)


def test_projected_attribute_name_of_256_characters_fails(ddb, table_name):
    create(ddb, table_name, GSI_ATTRS, GlobalSecondaryIndexes=[gsi("gsi", include(["n" * 255]))])
    drop_table(ddb, table_name)
    e = ddb_error(create, ddb=ddb, name=table_name, attrs=GSI_ATTRS,
                  GlobalSecondaryIndexes=[gsi("gsi", include(["n" * 256]))])
    assert e.code == V and "nonKeyAttributes" in e.message and "255" in e.message, e.message
    assert_no_table(ddb, table_name)


def test_key_attribute_name_of_255_characters_passes_and_256_fails(ddb, table_name):
    bad = "k" * 256
    assert_error(create, V, "2 validation errors detected: " + "; ".join(
        f"Value '{bad}' at '{where}.1.member.attributeName' failed to satisfy constraint: {LE255}"
        for where in ("keySchema", "attributeDefinitions")),
        ddb=ddb, name=table_name, attrs=((bad, "S"),), key=((bad, "HASH"),))
    assert_no_table(ddb, table_name)
    ok = "k" * 255
    create(ddb, table_name, ((ok, "S"),), ((ok, "HASH"),))
    try:
        ddb.put_item(TableName=table_name, Item={ok: S("v")})
        assert ddb.get_item(TableName=table_name, Key={ok: S("v")})["Item"] == {ok: S("v")}
    finally:
        drop_table(ddb, table_name)


def test_attribute_name_of_64_kb_fails_and_empty_name_fails(ddb, h):
    # 65535 bytes is the longest name, at the top level and as a map key. DynamoDB Local words
    # the empty name as here and fails the long one with an internal error; the long name's
    # message is the one the service gives for the same limit in ExpressionAttributeNames.
    ddb.put_item(TableName=h, Item={"pk": S("an-ok"), "n" * 65535: S("x")})
    assert "n" * 65535 in get(ddb, h, {"pk": S("an-ok")})
    too_long = "Attribute name is too large, must be less than 65536 bytes"
    for item, message in (({"n" * 65536: S("x")}, too_long), ({"": S("x")}, "Empty attribute name"),
                          ({"m": {"M": {"n" * 65536: S("x")}}}, too_long),
                          ({"m": {"M": {"": S("x")}}}, "Empty attribute name")):
        assert_error(ddb.put_item, V, message, TableName=h, Item={"pk": S("an-bad"), **item})
    assert get(ddb, h, {"pk": S("an-bad")}) is None
