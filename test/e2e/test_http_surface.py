"""The DynamoDB service's HTTP surface (issue 18): its headers on every response, the health
line, 404s for other paths and methods, CORS, compressed request bodies, DescribeEndpoints and
unknown operations. Spoken in raw HTTP, plus boto3 where an SDK is what a user has."""
from __future__ import annotations

import email.utils
import gzip
import http.client
import json
import re
import time
import zlib

import boto3
import pytest
from botocore.config import Config

from e2e_util import AMZ_JSON, create_table, raw_call

TARGET = "DynamoDB_20120810."
EXPOSE = "x-amzn-RequestId,x-amzn-ErrorType,x-amzn-ErrorMessage,Date"
CORS_HEADERS = ["access-control-allow-origin", "access-control-allow-credentials",
                "access-control-expose-headers", "access-control-max-age",
                "access-control-allow-methods", "access-control-allow-headers"]


def request(port, method, path="/", body=b"", headers=None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        r = conn.getresponse()
        payload = r.read()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, payload
    finally:
        conn.close()


def assert_service_headers(headers, body, crc=True):
    assert headers["server"] == "Server"
    sent = email.utils.parsedate_to_datetime(headers["date"]).timestamp()
    assert abs(sent - time.time()) < 5
    assert re.fullmatch(r"[0-9A-Z]{52}", headers["x-amzn-requestid"])
    if crc:
        assert int(headers["x-amz-crc32"]) == zlib.crc32(body)
    else:
        assert "x-amz-crc32" not in headers
    assert headers["content-length"] == str(len(body))


# --- Headers -------------------------------------------------------------------------------

def test_success_and_error_carry_the_service_headers(server):
    status, headers, body = raw_call(server.port, TARGET + "ListTables", {})
    assert status == 200
    assert_service_headers(headers, body)
    assert headers["connection"] == "keep-alive"
    status, headers, body = raw_call(server.port, TARGET + "DescribeTable", {"TableName": "nope"})
    assert status == 400
    assert_service_headers(headers, body)


def test_no_header_the_service_does_not_send(server):
    _, headers, _ = raw_call(server.port, TARGET + "ListTables", {})
    assert set(headers) == {"server", "date", "content-type", "content-length", "connection",
                            "x-amzn-requestid", "x-amz-crc32"}


def test_boto3_sees_date_and_request_id(ddb):
    meta = ddb.list_tables()["ResponseMetadata"]
    assert re.fullmatch(r"[0-9A-Z]{52}", meta["RequestId"])
    assert "date" in meta["HTTPHeaders"] and meta["HTTPHeaders"]["server"] == "Server"


# --- Health line and 404s ------------------------------------------------------------------

def test_get_root_is_the_health_line_naming_the_host_reached(server):
    status, headers, body = request(server.port, "GET", "/")
    assert status == 200
    assert body == f"healthy: 127.0.0.1:{server.port} ".encode()
    assert_service_headers(headers, body)
    status, _, body = request(server.port, "GET", "/", headers={"Host": "dynamodb.local"})
    assert (status, body) == (200, b"healthy: dynamodb.local ")


@pytest.mark.parametrize("method,path", [("GET", "/abc"), ("GET", "/-"), ("GET", "/index.htm"),
                                         ("PUT", "/"), ("DELETE", "/"), ("OPTIONS", "/"),
                                         ("PATCH", "/")])
def test_other_paths_and_methods_are_the_404(server, method, path):
    status, headers, body = request(server.port, method, path)
    assert (status, body) == (404, b"<UnknownOperationException/>\n")
    assert headers["x-amz-crc32"] == "3552371480"
    assert_service_headers(headers, body)


def test_a_body_of_another_type_or_none_is_the_404(server):
    for headers in ({}, {"Content-Type": "text/plain"}):
        status, _, body = request(server.port, "POST", "/", b"hi", headers)
        assert (status, body) == (404, b"<UnknownOperationException/>\n")


def test_our_health_and_metrics_stay(server):
    status, _, body = request(server.port, "GET", "/health")
    assert (status, json.loads(body)) == (200, {"status": "ok", "storage": "reachable"})
    status, _, body = request(server.port, "GET", "/metrics")
    assert status == 200 and b"ttlstore_requests_total" in body


# --- CORS ----------------------------------------------------------------------------------

def test_no_origin_no_cors_headers(server):
    for method in ("OPTIONS", "GET", "POST"):
        _, headers, _ = request(server.port, method, "/")
        for h in CORS_HEADERS:
            assert h not in headers, (method, h)


def test_origin_gets_allow_origin_and_expose_headers(server):
    for method in ("GET", "POST"):
        _, headers, _ = request(server.port, method, "/",
                                headers={"Origin": "http://example.com/",
                                         "Access-Control-Request-Method": "dog",
                                         "Access-Control-Request-Headers": "cat, meerkat"})
        assert headers["access-control-allow-origin"] == "*"
        assert headers["access-control-expose-headers"] == EXPOSE
        for h in ("access-control-max-age", "access-control-allow-methods",
                  "access-control-allow-headers"):
            assert h not in headers, (method, h)
    status, headers, body = raw_call(server.port, TARGET + "ListTables", {},
                                     {"Origin": "http://example.com"})
    assert status == 200 and headers["access-control-allow-origin"] == "*"


def test_preflight_echoes_what_the_sdk_asks(server):
    asked = ("content-type,x-amz-target,content-length,host,x-amz-user-agent,user-agent,"
             "Authorization,amz-sdk-invocation-id,amz-sdk-request,x-amz-security-token")
    status, headers, body = request(server.port, "OPTIONS", "/",
                                    headers={"Origin": "https://foo.example",
                                             "Access-Control-Request-Method": "POST",
                                             "Access-Control-Request-Headers": asked})
    assert (status, body) == (200, b"")
    assert headers["access-control-allow-origin"] == "*"
    assert headers["access-control-allow-headers"] == asked
    assert headers["access-control-allow-methods"] == "POST"
    assert headers["access-control-expose-headers"] == EXPOSE
    assert headers["access-control-max-age"] == "172800"
    assert "content-type" not in headers
    assert_service_headers(headers, body, crc=False)


# --- Compressed request bodies -------------------------------------------------------------

def put_raw(port, table, key, data, encoding):
    return raw_call(port, TARGET + "PutItem", data, {"Content-Encoding": encoding})


def item_body(table, key, extra=""):
    return ('{"TableName": "%s", "Item": {"pk": {"S": "%s"}%s}}' % (table, key, extra)).encode()


def get(ddb, table, key):
    return ddb.get_item(TableName=table, Key={"pk": {"S": key}}, ConsistentRead=True).get("Item")


def test_gzip_and_deflate_bodies_are_served(server, ddb, table_name):
    create_table(ddb, table_name)
    status, _, body = put_raw(server.port, table_name, "g", gzip.compress(item_body(table_name, "g")),
                              "gzip")
    assert (status, body) == (200, b"{}")
    assert get(ddb, table_name, "g") == {"pk": {"S": "g"}}
    data = item_body(table_name, "two")
    status, _, _ = put_raw(server.port, table_name, "two",
                           gzip.compress(data[:10]) + gzip.compress(data[10:]), "gzip")
    assert status == 200 and get(ddb, table_name, "two")
    status, _, _ = put_raw(server.port, table_name, "d", zlib.compress(item_body(table_name, "d")),
                           "deflate")
    assert status == 200 and get(ddb, table_name, "d")


@pytest.mark.parametrize("case", ["garbage", "not-gzip", "truncated", "empty", "junk-after"])
def test_undecodable_bodies_are_500_and_write_nothing(server, ddb, table_name, case):
    create_table(ddb, table_name)
    data = item_body(table_name, "x")
    encoding, payload = {
        "garbage": ("garbage", data),
        "not-gzip": ("gzip", data),
        "truncated": ("gzip", gzip.compress(data)[:-1]),
        "empty": ("gzip", b""),
        "junk-after": ("gzip", gzip.compress(data) + b"junk"),
    }[case]
    status, headers, body = put_raw(server.port, table_name, "x", payload, encoding)
    assert status == 500
    assert json.loads(body)["__type"] == "com.amazonaws.dynamodb.v20120810#InternalServerError"
    assert_service_headers(headers, body)
    assert get(ddb, table_name, "x") is None


def test_size_limit_applies_after_decompression(server, ddb, table_name):
    create_table(ddb, table_name)
    padded = item_body(table_name, "big")
    padded = padded[:-1] + b" " * (17 << 20) + padded[-1:]
    payload = gzip.compress(padded)
    assert len(payload) < 1 << 20
    status, _, body = put_raw(server.port, table_name, "big", payload, "gzip")
    assert status == 413
    assert json.loads(body)["__type"].endswith("#RequestEntityTooLarge")
    assert get(ddb, table_name, "big") is None
    # A gzip bomb: 1 GiB of zeros in ~1 MB is refused without being expanded.
    bomb = gzip.compress(b"\0" * (64 << 20), compresslevel=9) * 16
    status, _, _ = put_raw(server.port, table_name, "bomb", bomb, "gzip")
    assert status == 413
    status, _, _ = raw_call(server.port, TARGET + "ListTables", {})
    assert status == 200


def test_boto3_with_request_compression(endpoint, ddb, table_name):
    """What newer SDKs do when request compression is on: gzip the body before signing it and say
    so in Content-Encoding (Debian's botocore predates the option, so a hook does the same)."""
    create_table(ddb, table_name)
    client = boto3.client("dynamodb", endpoint_url=endpoint, region_name="us-east-1",
                          aws_access_key_id="k", aws_secret_access_key="s",
                          config=Config(retries={"max_attempts": 1}))
    sent = []

    def compress(request, **_):
        body = request.body if isinstance(request.body, bytes) else request.body.encode()
        request.data = gzip.compress(body)
        request.headers["Content-Encoding"] = "gzip"
        sent.append(len(request.data))

    client.meta.events.register("before-sign.dynamodb", compress)
    client.put_item(TableName=table_name, Item={"pk": {"S": "z"}, "v": {"S": "x" * 20000}})
    got = client.get_item(TableName=table_name, Key={"pk": {"S": "z"}})["Item"]["v"]["S"]
    assert got == "x" * 20000
    assert sent and sent[0] < 1000  # the 20 KB item really went compressed


# --- DescribeEndpoints and unknown operations ----------------------------------------------

def test_describe_endpoints_names_this_server(server, endpoint, ddb):
    endpoints = ddb.describe_endpoints()["Endpoints"]
    assert endpoints == [{"Address": f"127.0.0.1:{server.port}", "CachePeriodInMinutes": 1440}]
    # The address works as an endpoint, as a client doing discovery would use it.
    again = boto3.client("dynamodb", endpoint_url="http://" + endpoints[0]["Address"],
                         region_name="us-east-1", aws_access_key_id="k",
                         aws_secret_access_key="s")
    assert again.describe_endpoints()["Endpoints"] == endpoints
    status, _, body = raw_call(server.port, TARGET + "DescribeEndpoints", {},
                               {"Host": "bad\"host"})
    assert status == 200
    assert json.loads(body)["Endpoints"][0]["Address"] == f"127.0.0.1:{server.port}"


def test_unknown_operation_is_counted_and_logged_under_its_name(server):
    status, _, body = raw_call(server.port, TARGET + "DescribeContributorInsights",
                               {"TableName": "t"})
    assert status == 400
    assert json.loads(body) == {"__type": "com.amazon.coral.service#UnknownOperationException"}
    _, _, metrics = request(server.port, "GET", "/metrics")
    assert re.search(rb'ttlstore_requests_total\{operation="DescribeContributorInsights",'
                     rb'outcome="UnknownOperationException"\} [1-9]', metrics)
    assert "event=unknown_operation target=\"DynamoDB_20120810.DescribeContributorInsights\"" in \
        server.log_text()


@pytest.mark.parametrize("depth", [33, 1000, 100_000, 1_000_000])
def test_deep_documents_inside_gzip_get_the_same_answers(server, ddb, table_name, depth):
    """A compressed body reaches the same bounded parser as a plain one: a document nested past
    the service's 32 levels is its nesting error, past the parser's depth the bare
    SerializationException, and the server lives on."""
    create_table(ddb, table_name)
    doc = '{"M":{"a":' * depth + '{"S":"x"}' + "}}" * depth
    body = ('{"TableName":"%s","Item":{"pk":{"S":"k"},"d":%s}}' % (table_name, doc)).encode()
    status, _, answer = put_raw(server.port, table_name, "k", gzip.compress(body), "gzip")
    assert status == 400
    kind = json.loads(answer)["__type"].rsplit("#", 1)[1]
    assert kind == ("ValidationException" if 2 * depth + 8 <= 1000 else "SerializationException")
    assert get(ddb, table_name, "k") is None
