"""The HTTP envelope, spoken without an SDK: targets, bodies, headers, keep-alive, health, metrics."""
from __future__ import annotations

import http.client
import json
import re
import socket
import zlib

import pytest

from e2e_util import AMZ_JSON, create_table, raw_call

TARGET = "DynamoDB_20120810."


def error_type(body: bytes) -> str:
    return json.loads(body)["__type"].rsplit("#", 1)[-1]


def test_success_response_has_amz_json_content_type_and_valid_crc32(server):
    status, headers, body = raw_call(server.port, TARGET + "ListTables", {})
    assert status == 200
    assert headers["content-type"] == AMZ_JSON
    assert int(headers["x-amz-crc32"]) == zlib.crc32(body)
    assert headers.get("x-amzn-requestid")
    assert "TableNames" in json.loads(body)


def test_error_response_has_amz_json_content_type_and_valid_crc32(server):
    status, headers, body = raw_call(server.port, TARGET + "DescribeTable",
                                     {"TableName": "no_such_table_http"})
    assert status == 400
    assert headers["content-type"] == AMZ_JSON
    assert int(headers["x-amz-crc32"]) == zlib.crc32(body)
    assert error_type(body) == "ResourceNotFoundException"


def test_request_ids_differ_between_requests(server):
    ids = {raw_call(server.port, TARGET + "ListTables", {})[1]["x-amzn-requestid"]
           for _ in range(3)}
    assert len(ids) == 3
    assert all(re.fullmatch(r"[0-9A-Z]{52}", i) for i in ids), ids


@pytest.mark.parametrize("target", [TARGET + "NoSuchOperation", TARGET + "listTables",
                                    TARGET + "ListTable", "Foo_20120810.ListTables", "whatever",
                                    None])
def test_unknown_operation_is_400_bare_unknown_operation_exception(server, target):
    status, headers, body = raw_call(server.port, target, {})
    assert status == 400
    assert headers["content-type"] == AMZ_JSON
    assert json.loads(body) == {"__type": "com.amazon.coral.service#UnknownOperationException"}


@pytest.mark.parametrize("body", ["{bad json", "{\"TableName\": ", "hi", ""])
def test_unparsable_json_is_400_bare_serialization_exception(server, body):
    status, headers, payload = raw_call(server.port, TARGET + "ListTables", body)
    assert status == 400
    assert headers["content-type"] == AMZ_JSON
    assert json.loads(payload) == {"__type": "com.amazon.coral.service#SerializationException"}


@pytest.mark.parametrize("value,message", [
    (123, "NUMBER_VALUE cannot be converted to String"),
    (True, "TRUE_VALUE cannot be converted to String"),
    (34.56, "DECIMAL_VALUE cannot be converted to String"),
    ({}, "Start of structure or map found where not expected"),
])
def test_wrong_json_type_for_a_field_is_serialization_exception(server, value, message):
    status, _, payload = raw_call(server.port, TARGET + "DescribeTable", {"TableName": value})
    assert status == 400
    assert json.loads(payload) == {"__type": "com.amazon.coral.service#SerializationException",
                                   "Message": message}


def test_error_types_carry_the_service_namespaces(server, ddb, table_name):
    create_table(ddb, table_name)
    cases = [
        ("DescribeTable", {"TableName": "missing_ns_table"},
         "com.amazonaws.dynamodb.v20120810#ResourceNotFoundException"),
        ("CreateTable", {"TableName": table_name, "BillingMode": "PAY_PER_REQUEST",
                         "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
                         "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]},
         "com.amazonaws.dynamodb.v20120810#ResourceInUseException"),
        ("PutItem", {"TableName": table_name, "Item": {"pk": {"N": "1"}}},
         "com.amazon.coral.validate#ValidationException"),
    ]
    for op, body, expected in cases:
        status, headers, payload = raw_call(server.port, TARGET + op, body)
        doc = json.loads(payload)
        assert (status, doc["__type"]) == (400, expected)
        assert isinstance(doc.get("message"), str) and doc["message"], doc
        assert int(headers["x-amz-crc32"]) == zlib.crc32(payload)


def test_application_json_content_type_is_accepted_and_echoed(server):
    status, headers, body = raw_call(server.port, TARGET + "ListTables", {},
                                     extra_headers={"Content-Type": "application/json"})
    assert status == 200
    assert headers["content-type"] == "application/json"
    assert "TableNames" in json.loads(body)


def test_unsupported_content_type_is_404(server):
    status, _, body = raw_call(server.port, TARGET + "ListTables", {},
                               extra_headers={"Content-Type": "application/x-amz-json-1.1"})
    assert (status, body) == (404, b"<UnknownOperationException/>\n")


def test_body_over_16_mib_is_413(server):
    # Announce a 16 MiB + 1 body and send none of it: the server must refuse from the headers.
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as s:
        s.sendall((
            "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Content-Type: {AMZ_JSON}\r\nX-Amz-Target: {TARGET}PutItem\r\n"
            f"Content-Length: {16 * 1024 * 1024 + 1}\r\n\r\n").encode())
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    status_line = data.split(b"\r\n", 1)[0]
    assert status_line.startswith(b"HTTP/1.1 413"), data[:200]


@pytest.mark.parametrize("header_bytes,status", [(60_000, b"400"), (70_000, b"431")])
def test_headers_over_64_kib_are_431_and_the_server_goes_on(server, header_bytes, status):
    # Just under the cap the request reaches the API (and fails there: no such table); over it
    # the server answers 431 and closes, instead of dropping the connection silently.
    body = json.dumps({"TableName": "no_such_table_hdr"}).encode()
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as s:
        s.sendall((
            "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Content-Type: {AMZ_JSON}\r\nX-Amz-Target: {TARGET}DescribeTable\r\n"
            f"X-Padding: {'p' * header_bytes}\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode() + body)
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    assert data.split(b"\r\n", 1)[0].startswith(b"HTTP/1.1 " + status), data[:200]
    assert raw_call(server.port, TARGET + "ListTables", "{}")[0] == 200


def test_body_of_almost_16_mib_is_not_rejected_for_size(server):
    # A big but allowed body reaches the API layer (and fails there, on its content).
    body = json.dumps({"TableName": "no_such_table_big", "Padding": "x" * (15 * 1024 * 1024)})
    status, _, payload = raw_call(server.port, TARGET + "DescribeTable", body)
    assert status == 400
    assert error_type(payload) != "RequestEntityTooLarge"


def test_keep_alive_serves_several_requests_on_one_connection(server, ddb, table_name):
    create_table(ddb, table_name)
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        conn.connect()
        sock = conn.sock
        calls = [("PutItem", {"TableName": table_name, "Item": {"pk": {"S": "k"}}}),
                 ("GetItem", {"TableName": table_name, "Key": {"pk": {"S": "k"}}}),
                 ("DescribeTable", {"TableName": "missing_keepalive"}),
                 ("ListTables", {}),
                 ("DeleteItem", {"TableName": table_name, "Key": {"pk": {"S": "k"}}})]
        statuses = []
        for op, body in calls:
            status, headers, _ = raw_call(server.port, TARGET + op, body, conn=conn)
            statuses.append(status)
            assert headers.get("connection", "").lower() != "close"
            assert conn.sock is sock, "server closed the keep-alive connection"
        assert statuses == [200, 200, 400, 200, 200]
    finally:
        conn.close()


def test_health_endpoint_returns_200(server):
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        conn.request("GET", "/health")
        r = conn.getresponse()
        body = r.read()
        assert r.status == 200
        assert b"ok" in body.lower()
    finally:
        conn.close()


def read_metrics(port) -> str:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", "/metrics")
        r = conn.getresponse()
        text = r.read().decode()
        assert r.status == 200
        assert r.getheader("Content-Type", "").startswith("text/plain")
        return text
    finally:
        conn.close()


SAMPLE_RE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)\{([^}]*)\}\s+(\S+)$')


def samples(text: str, metric: str):
    out = []
    for line in text.splitlines():
        m = SAMPLE_RE.match(line)
        if m and m.group(1) == metric:
            labels = dict(re.findall(r'(\w+)="([^"]*)"', m.group(2)))
            out.append((labels, float(m.group(3))))
    return out


def total(text, metric, **want):
    return sum(v for labels, v in samples(text, metric)
               if all(labels.get(k) == val for k, val in want.items()))


def test_metrics_count_requests_by_operation_and_outcome(server, ddb, table_name):
    create_table(ddb, table_name)
    before = read_metrics(server.port)
    for _ in range(3):
        ddb.get_item(TableName=table_name, Key={"pk": {"S": "x"}})
    with pytest.raises(Exception):
        ddb.describe_table(TableName="missing_metrics_table")
    ddb.describe_table(TableName=table_name)
    after = read_metrics(server.port)

    assert "# TYPE ttlstore_requests_total counter" in after
    got = samples(after, "ttlstore_requests_total")
    assert got and all({"operation", "outcome"} <= set(labels) for labels, _ in got)
    assert total(after, "ttlstore_requests_total", operation="GetItem") - \
        total(before, "ttlstore_requests_total", operation="GetItem") == 3
    outcomes = {labels["outcome"] for labels, _ in got if labels["operation"] == "DescribeTable"}
    assert len(outcomes) >= 2, "a failed and a successful call should differ in outcome"


def test_metrics_expose_a_latency_histogram_per_operation(server, ddb):
    ddb.list_tables()
    text = read_metrics(server.port)
    hists = re.findall(r"^# TYPE (ttlstore_\w+) histogram$", text, re.M)
    name = "ttlstore_request_duration_seconds"
    assert name in hists, f"no {name} histogram in /metrics: {hists}"
    buckets = samples(text, name + "_bucket")
    assert any(l.get("operation") == "ListTables" and l.get("le") == "+Inf" for l, _ in buckets)
    count = total(text, name + "_count", operation="ListTables")
    inf = total(text, name + "_bucket", operation="ListTables", le="+Inf")
    assert count >= 1 and count == inf
    assert samples(text, name + "_sum")
    # Buckets are cumulative.
    les = [(float(l["le"]), v) for l, v in buckets
           if l.get("operation") == "ListTables" and l["le"] != "+Inf"]
    values = [v for _, v in sorted(les)]
    assert values == sorted(values)
