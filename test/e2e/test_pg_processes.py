"""Two ttlstore processes on one PostgreSQL database (issue 34's first step): conditional
increments of one hot counter, sent to either process in turn, add up exactly. Each increment is
UpdateItem `ADD n :one` with a condition on the value the client last read; a client whose
condition failed reads again and retries. With the read-modify-write serialized only inside each
process, two clients going to different processes could both pass their condition on the same
old value and both add: the final value would exceed the acknowledged increments. The storage's
read-modify-write (docs/storage.md, "Read-modify-write") locks the key in the database.

Runs on its own throwaway PostgreSQL 15 (scripts/pg-server.sh), like test_pg_backend.py.
"""
from __future__ import annotations

import subprocess
import threading
from pathlib import Path

import pytest
from botocore.exceptions import ClientError

from e2e_util import ServerProcess, make_client, unique_name

ROOT = Path(__file__).resolve().parents[2]
PG_SCRIPT = ROOT / "scripts" / "pg-server.sh"

CLIENTS = 6
INCREMENTS_PER_CLIENT = 25


def _pg(*args: str) -> str:
    return subprocess.run(["bash", str(PG_SCRIPT), *args], check=True, capture_output=True,
                          text=True, stdin=subprocess.DEVNULL).stdout


@pytest.fixture(scope="module")
def pg():
    if not Path("/usr/lib/postgresql/15/bin/initdb").exists():
        pytest.fail("postgresql-15 is not installed: run scripts/install-deps.sh")
    env = {}
    for line in _pg("start").splitlines():
        key, _, value = line.removeprefix("export ").partition("=")
        env[key] = value.strip("'")
    yield env
    _pg("stop", env["TTLSTORE_PG_DIR"])


def _serve(tmp_path, conninfo: str, name: str) -> ServerProcess:
    return ServerProcess(tmp_path / f"data-{name}", tmp_path / f"{name}.log",
                         ["--storage", conninfo]).start()


def test_conditional_increments_through_two_processes_add_up(pg, tmp_path):
    conninfo = pg["TTLSTORE_TEST_PG"]
    first = _serve(tmp_path, conninfo, "a")
    second = None
    try:
        name = unique_name("hot")
        ddb_a = make_client(first.endpoint)
        ddb_a.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                           AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                           KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
        # Started after the table exists: a process reads the catalog at start (issue 34).
        second = _serve(tmp_path, conninfo, "b")
        endpoints = [first.endpoint, second.endpoint]
        acknowledged = [0] * CLIENTS
        conflicts = [0] * CLIENTS
        errors: list = []

        def client(c: int) -> None:
            clients = [make_client(e) for e in endpoints]
            turn = c
            try:
                while acknowledged[c] < INCREMENTS_PER_CLIENT:
                    ddb = clients[turn % 2]
                    turn += 1
                    got = ddb.get_item(TableName=name, Key={"pk": {"S": "counter"}},
                                       ConsistentRead=True).get("Item")
                    if got is None:
                        condition, values = "attribute_not_exists(n)", {}
                    else:
                        condition = "n = :old"
                        values = {":old": got["n"]}
                    try:
                        ddb.update_item(TableName=name, Key={"pk": {"S": "counter"}},
                                        UpdateExpression="ADD n :one",
                                        ConditionExpression=condition,
                                        ExpressionAttributeValues={":one": {"N": "1"}, **values})
                    except ClientError as e:
                        if e.response["Error"]["Code"] != "ConditionalCheckFailedException":
                            raise
                        conflicts[c] += 1
                        continue
                    acknowledged[c] += 1
            except Exception as e:  # reported below: a thread's exception is otherwise lost
                errors.append(e)

        threads = [threading.Thread(target=client, args=(c,)) for c in range(CLIENTS)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=300)
        assert not any(t.is_alive() for t in threads)
        assert errors == []
        total = sum(acknowledged)
        assert total == CLIENTS * INCREMENTS_PER_CLIENT
        for ddb in (ddb_a, make_client(second.endpoint)):
            item = ddb.get_item(TableName=name, Key={"pk": {"S": "counter"}},
                                ConsistentRead=True)["Item"]
            assert item["n"] == {"N": str(total)}
        # The clients did race (a condition failed at least once): the test exercised the lock.
        print(f"acknowledged={total} condition_failures={sum(conflicts)}")
        assert sum(conflicts) > 0
    finally:
        if second is not None:
            second.stop()
        first.stop()
