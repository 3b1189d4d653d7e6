"""No request can crash the server: bodies nested 33, 1,000, 100,000 and 1,000,000 levels deep in
every place a client can put a document, sent as raw HTTP (boto3 cannot even serialize most of
them) and, where it can, through boto3; SigV4 headers of absurd shapes; the HTTP layer's own
limits. Each answer is the service's error, nothing is written, and the server lives on.

The JSON limit and its answers are in docs/limits.md ("Documents and numbers", "HTTP").
"""
from __future__ import annotations

import http.client
import json
import socket
import time

import pytest

from e2e_util import ACCESS_KEY, SECRET_KEY, assert_error, create_table, raw_call

DEPTHS = [33, 1000, 100_000, 1_000_000]
NESTING = ("Nesting Levels have exceeded supported limits: Attributes in the item have nested "
           "levels beyond supported limit")
MAX_JSON_DEPTH = 1000  # api/json_parse.h


def deep_map(depth: int) -> str:
    return '{"M":{"a":' * depth + '{"S":"x"}' + "}}" * depth


def deep_list(depth: int) -> str:
    return '{"L":[' * depth + '{"S":"x"}' + "]}" * depth


def bodies(table: str, value: str) -> dict[str, str]:
    """Every request form that carries a document, with `value` as that document."""
    key = '{"pk":{"S":"k"}}'
    return {
        "PutItem": f'{{"TableName":"{table}","Item":{{"pk":{{"S":"k"}},"d":{value}}}}}',
        "UpdateItem": (f'{{"TableName":"{table}","Key":{key},"UpdateExpression":"SET d = :v",'
                       f'"ExpressionAttributeValues":{{":v":{value}}}}}'),
        "UpdateItemLegacy": (f'{{"TableName":"{table}","Key":{key},'
                             f'"AttributeUpdates":{{"d":{{"Action":"PUT","Value":{value}}}}}}}'),
        "DeleteItem": (f'{{"TableName":"{table}","Key":{key},"ConditionExpression":"d = :v",'
                       f'"ExpressionAttributeValues":{{":v":{value}}}}}'),
        "Query": (f'{{"TableName":"{table}","KeyConditionExpression":"pk = :k",'
                  f'"FilterExpression":"d = :v","ExpressionAttributeValues":'
                  f'{{":k":{{"S":"k"}},":v":{value}}}}}'),
        "BatchWriteItem": (f'{{"RequestItems":{{"{table}":[{{"PutRequest":{{"Item":'
                           f'{{"pk":{{"S":"k"}},"d":{value}}}}}}}]}}}}'),
        "TransactWriteItems": (f'{{"TransactItems":[{{"Put":{{"TableName":"{table}","Item":'
                               f'{{"pk":{{"S":"k"}},"d":{value}}}}}}}]}}'),
        "ExecuteStatement": (f'{{"Statement":"INSERT INTO \\"{table}\\" VALUE '
                             f'{{\'pk\': \'k\', \'d\': ?}}","Parameters":[{value}]}}'),
    }


def call(port: int, op: str, body: str):
    target = "DynamoDB_20120810." + ("UpdateItem" if op == "UpdateItemLegacy" else op)
    status, _, payload = raw_call(port, target, body)
    return status, json.loads(payload) if payload else {}


def assert_alive_and_empty(ddb, port: int, table: str):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", "/health")
    assert conn.getresponse().status == 200
    conn.close()
    assert ddb.scan(TableName=table)["Count"] == 0


@pytest.mark.parametrize("depth", DEPTHS)
@pytest.mark.parametrize("shape", ["map", "list"])
def test_deep_documents_in_every_request_form_get_the_service_error(server, ddb, table_name,
                                                                     depth, shape):
    create_table(ddb, table_name)
    value = deep_map(depth) if shape == "map" else deep_list(depth)
    for op, body in bodies(table_name, value).items():
        status, answer = call(server.port, op, body)
        assert status == 400, (op, answer)
        if 2 * depth + 8 > MAX_JSON_DEPTH:
            # Deeper than the JSON parser reads: the bare SerializationException the service
            # gives any body it cannot read.
            assert answer == {"__type": "com.amazon.coral.service#SerializationException"}, op
        else:
            assert answer["__type"].endswith("#ValidationException"), (op, answer)
            if op != "ExecuteStatement":
                assert answer["message"] == NESTING, (op, answer)
    assert_alive_and_empty(ddb, server.port, table_name)


@pytest.mark.parametrize("depth", DEPTHS)
def test_deep_junk_in_any_member_is_a_serialization_error(server, ddb, table_name, depth):
    create_table(ddb, table_name)
    junk = "[" * depth + "]" * depth
    for op, body in [("PutItem", f'{{"TableName":{junk}}}'),
                     ("Query", f'{{"TableName":"{table_name}","Limit":{junk}}}'),
                     ("CreateTable", f'{{"AttributeDefinitions":{junk}}}'),
                     ("PutItem", '{"a":' * depth),
                     ("BatchGetItem", "[" * depth)]:
        status, answer = call(server.port, op, body)
        assert status == 400, (op, answer)
        if depth > MAX_JSON_DEPTH:
            assert answer == {"__type": "com.amazon.coral.service#SerializationException"}, op
    assert_alive_and_empty(ddb, server.port, table_name)


def test_boto3_deep_documents_get_the_nesting_error(ddb, table_name):
    """What an SDK user sees: boto3 serializes documents of tens of levels without complaint."""
    create_table(ddb, table_name)
    for depth in (33, 100):
        doc = {"S": "x"}
        for _ in range(depth):
            doc = {"M": {"a": doc}}
        assert_error(lambda: ddb.put_item(TableName=table_name,
                                          Item={"pk": {"S": "k"}, "d": doc}),
                     "ValidationException", NESTING)
        assert_error(lambda: ddb.update_item(TableName=table_name, Key={"pk": {"S": "k"}},
                                             UpdateExpression="SET d = :v",
                                             ExpressionAttributeValues={":v": doc}),
                     "ValidationException", NESTING)
    assert ddb.scan(TableName=table_name)["Count"] == 0


def test_a_document_of_32_levels_is_stored_whole(ddb, table_name):
    create_table(ddb, table_name)
    doc = {"S": "x"}
    for _ in range(31):
        doc = {"L": [doc]}
    ddb.put_item(TableName=table_name, Item={"pk": {"S": "k"}, "d": doc})
    assert ddb.get_item(TableName=table_name, Key={"pk": {"S": "k"}})["Item"]["d"] == doc


def test_many_tiny_chunks_and_a_lying_content_length(server):
    """The HTTP layer: 100,000 one-byte chunks of a body are read like one body; a
    Content-Length far past the 16 MiB limit is refused from the headers alone."""
    body = b'{"TableName":"nope_nope"}'
    chunks = b"".join(b"1\r\n" + body[i:i + 1] + b"\r\n" for i in range(len(body)))
    padding = b"1\r\n \r\n" * 100_000
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as s:
        s.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-amz-json-1.0\r\n"
                  b"X-Amz-Target: DynamoDB_20120810.DescribeTable\r\n"
                  b"Transfer-Encoding: chunked\r\n\r\n" + padding + chunks + b"0\r\n\r\n")
        reply = b""
        while b"\r\n\r\n" not in reply or b"ResourceNotFoundException" not in reply:
            data = s.recv(65536)
            if not data:
                break
            reply += data
    assert reply.startswith(b"HTTP/1.1 400"), reply[:200]
    assert b"ResourceNotFoundException" in reply
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as s:
        s.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-amz-json-1.0\r\n"
                  b"X-Amz-Target: DynamoDB_20120810.ListTables\r\n"
                  b"Content-Length: 99999999999999999\r\n\r\n{}")
        reply = s.recv(65536)
    assert reply.startswith(b"HTTP/1.1 413"), reply[:200]


@pytest.fixture
def signed_server(start_server, tmp_path):
    creds = tmp_path / "credentials"
    creds.write_text(f"{ACCESS_KEY} {SECRET_KEY}\n")
    return start_server(extra_args=["--credentials", str(creds)])


def test_hostile_authorization_headers_are_answered_at_once(signed_server):
    """20,000 signed headers, or one 30 KB header signed 1,000 times: refused in well under a
    second each, with the service's error, and the server lives on."""
    date = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    scope = f"{ACCESS_KEY}/{date[:8]}/us-east-1/dynamodb/aws4_request"
    many = {f"x-h{i}": "v" for i in range(2000)}
    cases = [
        (many, ";".join(["host", "x-amz-date"] + list(many))),
        ({"x-big": "v" * 30000}, ";".join(["host", "x-amz-date"] + ["x-big"] * 1000)),
    ]
    for extra, signed in cases:
        headers = {"X-Amz-Date": date, **extra,
                   "Authorization": f"AWS4-HMAC-SHA256 Credential={scope}, "
                                    f"SignedHeaders={signed}, Signature={'0' * 64}"}
        started = time.monotonic()
        status, _, payload = raw_call(signed_server.port, "DynamoDB_20120810.ListTables", "{}",
                                      extra_headers=headers)
        assert time.monotonic() - started < 5
        assert status == 400, payload
        assert json.loads(payload)["__type"].endswith("#InvalidSignatureException"), payload
    for n in (1000, 30000):
        headers = {"X-Amz-Date": date, "Authorization": "AWS4-HMAC-SHA256 " + "," * n}
        status, _, payload = raw_call(signed_server.port, "DynamoDB_20120810.ListTables", "{}",
                                      extra_headers=headers)
        assert status == 400
        assert json.loads(payload)["__type"].endswith("#IncompleteSignatureException"), payload
    assert signed_server.alive()


@pytest.mark.parametrize("where", ["chunk-extension", "trailer", "many-trailers"])
@pytest.mark.parametrize("size", [70_000, 1_000_000])
def test_oversized_chunk_lines_are_431_and_the_server_lives_on(server, where, size):
    """Beast reads a chunk's header line and the trailer without the header limit: a trailer field
    over 64 KB used to make it throw out of the read and abort the server, and an endless chunk
    extension grew the read buffer without bound. Both now get the 431 of oversized headers."""
    head = (b"POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-amz-json-1.0\r\n"
            b"X-Amz-Target: DynamoDB_20120810.ListTables\r\nTransfer-Encoding: chunked\r\n\r\n")
    if where == "chunk-extension":
        body = b"2;" + b"e" * size + b"\r\n{}\r\n0\r\n\r\n"
    elif where == "trailer":
        body = b"2\r\n{}\r\n0\r\nX-T: " + b"t" * size + b"\r\n\r\n"
    else:
        body = b"2\r\n{}\r\n0\r\n" + b"X-T: t\r\n" * (size // 8) + b"\r\n"
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as s:
        try:
            s.sendall(head + body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server answered and closed before reading it all
        reply = s.recv(65536)
    assert reply.startswith(b"HTTP/1.1 431"), reply[:200]
    assert server.alive()
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    conn.request("GET", "/health")
    assert conn.getresponse().status == 200


def test_made_up_operation_names_do_not_grow_the_metrics(start_server):
    """A Tablestore action is the URL path: 2,000 made-up actions must not make 2,000 metric
    series (memory that grows with what clients send)."""
    srv = start_server()
    conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=10)
    for i in range(2000):
        conn.request("POST", f"/MadeUpAction{i}", body=b"x")
        r = conn.getresponse()
        r.read()
        assert r.status >= 400
    conn.request("GET", "/metrics")
    text = conn.getresponse().read().decode()
    series = {line.split("{")[1].split(",")[0] for line in text.splitlines()
              if line.startswith("ttlstore_requests_total{")}
    assert len(series) <= 257, len(series)
    assert 'operation="tablestore.unknown"' in text


def test_made_up_dynamodb_operations_do_not_grow_the_metrics(start_server):
    """Unknown DynamoDB operations are counted under their own names (so an operator sees which
    call a client is missing), but at most 256 names in all: the rest count as "other"."""
    srv = start_server()
    conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=10)
    for i in range(600):
        conn.request("POST", "/", body=b"{}", headers={
            "Content-Type": "application/x-amz-json-1.0",
            "X-Amz-Target": f"DynamoDB_20120810.MadeUp{i}"})
        r = conn.getresponse()
        r.read()
        assert r.status == 400
    conn.request("GET", "/metrics")
    text = conn.getresponse().read().decode()
    series = {line.split("{")[1].split(",")[0] for line in text.splitlines()
              if line.startswith("ttlstore_requests_total{")}
    assert len(series) <= 257, len(series)
    assert 'operation="other"' in text and 'operation="MadeUp0"' in text
