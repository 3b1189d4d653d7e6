"""The aws CLI (`aws dynamodb ...`) against ttlstore, and ttlstore's own command line."""
from __future__ import annotations

import json
import os
import subprocess

import pytest

from e2e_util import TTLSTORE_BIN, create_table, make_client

SERVE_FLAGS = ["--host", "--port", "--data-dir", "--sync", "--threads", "--block-cache-mb",
               "--log-level", "--ttl-sweep-interval-ms", "--ttl-sweep-budget-ms",
               "--ttl-sweep-busy-percent"]


def out(proc) -> dict:
    return json.loads(proc.stdout) if proc.stdout.strip() else {}


def test_aws_cli_table_and_item_lifecycle(aws_cli, table_name):
    created = out(aws_cli(
        "create-table", "--table-name", table_name,
        "--attribute-definitions", "AttributeName=UserName,AttributeType=S",
        "AttributeName=SessionId,AttributeType=S",
        "--key-schema", "AttributeName=UserName,KeyType=HASH",
        "AttributeName=SessionId,KeyType=RANGE",
        "--billing-mode", "PAY_PER_REQUEST"))
    assert created["TableDescription"]["TableName"] == table_name
    assert created["TableDescription"]["KeySchema"] == [
        {"AttributeName": "UserName", "KeyType": "HASH"},
        {"AttributeName": "SessionId", "KeyType": "RANGE"}]

    aws_cli("wait", "table-exists", "--table-name", table_name)
    described = out(aws_cli("describe-table", "--table-name", table_name))["Table"]
    assert described["TableStatus"] == "ACTIVE"
    assert described["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST"
    assert described["ItemCount"] == 0

    assert table_name in out(aws_cli("list-tables"))["TableNames"]

    key = {"UserName": {"S": "user1"}, "SessionId": {"S": "74686572652773"}}
    item = {**key, "CreationTime": {"N": "1571820360"}, "ExpirationTime": {"N": "1571827560"},
            "SessionInfo": {"M": {"Device": {"S": "phone"},
                                  "Locations": {"L": [{"S": "home"}, {"S": "office"}]}}},
            "Tags": {"SS": ["a", "b"]}}
    put = aws_cli("put-item", "--table-name", table_name, "--item", json.dumps(item))
    assert out(put) == {}

    got = out(aws_cli("get-item", "--table-name", table_name, "--key", json.dumps(key)))
    got["Item"]["Tags"]["SS"].sort()
    assert got == {"Item": item}

    projected = out(aws_cli("get-item", "--table-name", table_name, "--key", json.dumps(key),
                            "--projection-expression", "SessionInfo.Locations[1], CreationTime",
                            "--consistent-read"))
    assert projected == {"Item": {"CreationTime": {"N": "1571820360"},
                                  "SessionInfo": {"M": {"Locations": {"L": [{"S": "office"}]}}}}}

    described = out(aws_cli("describe-table", "--table-name", table_name))["Table"]
    assert described["ItemCount"] == 1

    deleted = out(aws_cli("delete-item", "--table-name", table_name, "--key", json.dumps(key),
                          "--return-values", "ALL_OLD"))
    deleted["Attributes"]["Tags"]["SS"].sort()
    assert deleted == {"Attributes": item}
    assert out(aws_cli("get-item", "--table-name", table_name, "--key", json.dumps(key))) == {}

    gone = out(aws_cli("delete-table", "--table-name", table_name))
    assert gone["TableDescription"]["TableName"] == table_name
    assert gone["TableDescription"]["TableStatus"] == "DELETING"
    assert table_name not in out(aws_cli("list-tables"))["TableNames"]


def test_aws_cli_reports_service_errors(aws_cli, table_name):
    proc = aws_cli("describe-table", "--table-name", table_name, check=False)
    assert proc.returncode != 0
    assert "ResourceNotFoundException" in proc.stderr
    assert f"Requested resource not found: Table: {table_name} not found" in proc.stderr


def test_aws_cli_list_tables_pages(aws_cli, table_name):
    names = [f"{table_name}_{i}" for i in range(3)]
    for n in names:
        aws_cli("create-table", "--table-name", n,
                "--attribute-definitions", "AttributeName=pk,AttributeType=N",
                "--key-schema", "AttributeName=pk,KeyType=HASH",
                "--provisioned-throughput", "ReadCapacityUnits=1,WriteCapacityUnits=1")
    # The CLI follows LastEvaluatedTableName itself when given a small page size.
    listed = out(aws_cli("list-tables", "--page-size", "1"))["TableNames"]
    assert set(names) <= set(listed)
    assert listed == sorted(listed)
    page = out(aws_cli("list-tables", "--max-items", "1", "--starting-token", names[0]))
    assert page["TableNames"] == [names[1]]


# ---- ttlstore's own command line --------------------------------------------------------------

def run_ttlstore(*args):
    return subprocess.run([TTLSTORE_BIN, *args], capture_output=True, text=True, timeout=20,
                          stdin=subprocess.DEVNULL)


def test_ttlstore_help_exits_0_and_names_the_serve_command():
    proc = run_ttlstore("--help")
    assert proc.returncode == 0, proc.stderr
    assert "serve" in proc.stdout


def test_ttlstore_serve_help_exits_0_and_mentions_every_flag():
    proc = run_ttlstore("serve", "--help")
    assert proc.returncode == 0, proc.stderr
    for flag in SERVE_FLAGS:
        assert flag in proc.stdout, f"{flag} missing from serve --help"


@pytest.mark.parametrize("args", [["serve", "--bogus"], ["--bogus"], ["serve", "--port", "x"],
                                  ["serve", "--ttl-sweep-busy-percent", "0"],
                                  ["serve", "--ttl-sweep-busy-percent", "101"]])
def test_ttlstore_rejects_bad_arguments_with_exit_code_2(args):
    proc = run_ttlstore(*args)
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    message = proc.stderr.strip()
    assert message, "no error message on stderr"
    if args == ["serve", "--bogus"]:
        assert "--bogus" in message


def test_ttlstore_serve_honours_tuning_flags(start_server, tmp_path):
    srv = start_server(tmp_path / "flags", ["--threads", "1", "--block-cache-mb", "8",
                                            "--log-level", "debug", "--sync"])
    client = make_client(srv.endpoint)
    create_table(client, "flags")
    client.put_item(TableName="flags", Item={"pk": {"S": "a"}})
    assert client.get_item(TableName="flags", Key={"pk": {"S": "a"}})["Item"] == {"pk": {"S": "a"}}
    assert "sync=true threads=1" in srv.log_text()
    assert srv.stop() == 0


def test_ttlstore_serve_with_sync_serves_on_more_threads_so_writes_share_fsyncs(start_server,
                                                                              tmp_path):
    # A thread waits in its write's fsync; RocksDB groups the writers waiting together under one
    # fsync, so --sync alone serves on 32 threads (BENCHMARKS.md has the figures).
    srv = start_server(tmp_path / "sync", ["--sync"])
    client = make_client(srv.endpoint)
    create_table(client, "grouped")
    client.put_item(TableName="grouped", Item={"pk": {"S": "a"}})
    assert "sync=true threads=32" in srv.log_text()
    assert srv.stop() == 0
    plain = start_server(tmp_path / "plain", [])
    assert f"sync=false threads={os.cpu_count()}" in plain.log_text()
    assert plain.stop() == 0


def test_ttlstore_serve_fails_cleanly_on_an_unusable_data_dir(tmp_path):
    blocker = tmp_path / "file-not-dir"
    blocker.write_text("x")
    proc = subprocess.run([TTLSTORE_BIN, "serve", "--port", "0", "--data-dir",
                           str(blocker / "sub")], capture_output=True, text=True, timeout=20,
                          stdin=subprocess.DEVNULL)
    assert proc.returncode == 1
    assert "startup_failed" in proc.stdout + proc.stderr
