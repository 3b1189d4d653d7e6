"""The PostgreSQL backend (`serve --storage`, docs/storage.md) end to end: data kept in the
database across restarts, TTL deletions, the start-up refusals (unreachable database: exit 2;
a schema from a newer binary: refused naming both versions), an outage during serving answered
with the retryable error (and GET /health with 503) and recovered from without a restart, and
`ttlstore check --storage`.

Each test module gets its own throwaway PostgreSQL 15 (scripts/pg-server.sh: Debian's
postgresql-15, a temporary cluster on 127.0.0.1), so the outage test can stop and start it.
"""
from __future__ import annotations

import http.client
import json
import socket
import subprocess
import time

import pytest
from botocore.exceptions import ClientError

from e2e_util import ServerProcess, TTLSTORE_BIN, make_client, unique_name
from pg_util import pg_ctl, private_pg, psql, schema_conninfo


@pytest.fixture(scope="module")
def pg():
    yield from private_pg()


def _serve(tmp_path, conninfo: str, name: str, *extra) -> ServerProcess:
    return ServerProcess(tmp_path / f"data-{name}", tmp_path / f"{name}.log",
                         ["--storage", conninfo, *extra]).start()


def _table(ddb, name: str, ttl: bool = False):
    ddb.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
    if ttl:
        ddb.update_time_to_live(TableName=name, TimeToLiveSpecification={
            "Enabled": True, "AttributeName": "expires"})


def test_items_survive_a_restart_and_live_in_the_database(pg, tmp_path):
    conninfo = schema_conninfo(pg, "restart")
    srv = _serve(tmp_path, conninfo, "a")
    ddb = make_client(srv.endpoint)
    name = unique_name("pg")
    _table(ddb, name)
    for i in range(300):
        ddb.put_item(TableName=name, Item={"pk": {"S": f"k{i:03d}"}, "n": {"N": str(i)}})
    ddb.update_item(TableName=name, Key={"pk": {"S": "k007"}},
                    UpdateExpression="ADD n :one", ExpressionAttributeValues={":one": {"N": "1"}})
    assert srv.stop() == 0
    assert "storage=postgresql" in srv.log_text()
    # The data is in PostgreSQL, not in the data dir: a new server on a new data dir sees it.
    rows = int(psql(pg["TTLSTORE_TEST_PG"], "SELECT count(*) FROM restart.ttlstore_items"))
    assert rows == 300
    srv2 = _serve(tmp_path, conninfo, "b")
    ddb2 = make_client(srv2.endpoint)
    assert ddb2.get_item(TableName=name, Key={"pk": {"S": "k007"}})["Item"]["n"] == {"N": "8"}
    items, kwargs = [], {"TableName": name, "Limit": 70}
    while True:
        page = ddb2.scan(**kwargs)
        items += page["Items"]
        if "LastEvaluatedKey" not in page:
            break
        kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]
    assert sorted(i["pk"]["S"] for i in items) == [f"k{i:03d}" for i in range(300)]
    assert ddb2.describe_table(TableName=name)["Table"]["ItemCount"] == 300
    srv2.stop()
    check = subprocess.run([TTLSTORE_BIN, "check", "--data-dir", str(tmp_path / "data-b"),
                            "--storage", conninfo], capture_output=True, text=True, timeout=120)
    assert check.returncode == 0, check.stdout + check.stderr


def test_expired_items_are_deleted_within_seconds(pg, tmp_path):
    srv = _serve(tmp_path, schema_conninfo(pg, "ttl"), "ttl")
    ddb = make_client(srv.endpoint)
    name = unique_name("pgttl")
    _table(ddb, name, ttl=True)
    past = int(time.time()) - 10
    for i in range(50):
        ddb.put_item(TableName=name, Item={"pk": {"S": f"e{i}"}, "expires": {"N": str(past)}})
    ddb.put_item(TableName=name, Item={"pk": {"S": "stays"},
                                       "expires": {"N": str(int(time.time()) + 3600)}})
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        left = ddb.scan(TableName=name, ConsistentRead=True)["Items"]
        if len(left) == 1:
            break
        time.sleep(0.2)
    assert [i["pk"]["S"] for i in left] == ["stays"]
    srv.stop()


def test_an_unreachable_database_fails_start_up_with_exit_code_2(tmp_path):
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    secret = "s3cret-never-logged"
    proc = subprocess.run(
        [TTLSTORE_BIN, "serve", "--port", "0", "--data-dir", str(tmp_path / "d"), "--storage",
         f"postgresql://ttlstore:{secret}@127.0.0.1:{port}/ttlstore?connect_timeout=3"],
        capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    out = proc.stdout + proc.stderr
    assert "event=startup_failed" in out and "cannot reach the database" in out
    assert str(port) in out
    assert secret not in out


def test_a_schema_from_a_newer_binary_is_refused_naming_both_versions(pg, tmp_path):
    conninfo = schema_conninfo(pg, "future")
    srv = _serve(tmp_path, conninfo, "f")
    srv.stop()
    psql(pg["TTLSTORE_TEST_PG"], "INSERT INTO future.ttlstore_schema (version, readable_by, "
          "description) VALUES (99, 99, 'from the future')")
    proc = subprocess.run([TTLSTORE_BIN, "serve", "--port", "0", "--data-dir",
                           str(tmp_path / "d"), "--storage", conninfo],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert "schema version 99" in proc.stdout + proc.stderr
    # A migration a newer binary added that older ones can still read does not stop them.
    psql(pg["TTLSTORE_TEST_PG"], "UPDATE future.ttlstore_schema SET readable_by = 1 "
          "WHERE version = 99")
    srv = _serve(tmp_path, conninfo, "f2")
    srv.stop()


def _health(port: int) -> tuple[int, dict]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", "/health")
        r = conn.getresponse()
        return r.status, json.loads(r.read())
    finally:
        conn.close()


def test_an_outage_gets_the_retryable_error_and_serving_resumes_by_itself(pg, tmp_path):
    srv = _serve(tmp_path, schema_conninfo(pg, "outage"), "o")
    ddb = make_client(srv.endpoint)
    name = unique_name("pgout")
    _table(ddb, name)
    ddb.put_item(TableName=name, Item={"pk": {"S": "before"}})
    assert _health(srv.port) == (200, {"status": "ok", "storage": "reachable"})
    pg_ctl("halt", pg)
    try:
        # A load balancer's health check takes the process out of rotation.
        status, body = _health(srv.port)
        assert (status, body["status"], body["storage"]) == (503, "unavailable", "unreachable")
        assert body["message"]
        for op in (lambda: ddb.put_item(TableName=name, Item={"pk": {"S": "during"}}),
                   lambda: ddb.get_item(TableName=name, Key={"pk": {"S": "before"}})):
            with pytest.raises(ClientError) as e:
                op()
            assert e.value.response["ResponseMetadata"]["HTTPStatusCode"] == 500
            assert e.value.response["Error"]["Code"] == "InternalServerError"
    finally:
        pg_ctl("resume", pg)
    assert srv.alive()
    deadline = time.monotonic() + 20
    while True:
        try:
            ddb.put_item(TableName=name, Item={"pk": {"S": "after"}})
            break
        except ClientError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)
    got = sorted(i["pk"]["S"] for i in ddb.scan(TableName=name)["Items"])
    assert got == ["after", "before"]  # the write refused during the outage is not there
    assert _health(srv.port)[0] == 200
    srv.stop()
