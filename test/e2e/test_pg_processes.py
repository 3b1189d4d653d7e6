"""Several ttlstore processes on one PostgreSQL database (issue 34): conditional increments of
a few hot counters, sent by each client to the three processes in turn, add up exactly, through
UpdateItem and through TransactWriteItems; and the leases of background work
(docs/background-jobs.md, "Leases"): one process holds each unit, a kill -9 of the holder hands
its units to another within the lease time, a clean stop at once.

Each increment adds one with a condition on the value the client last read; a client whose
condition failed (or whose transaction was cancelled by it) reads again and retries. With the
read-modify-write serialized only inside each process, two clients going to different processes
could both pass their condition on the same old value and both add: the final value would exceed
the acknowledged increments. The storage's read-modify-write (docs/storage.md,
"Read-modify-write") locks the keys in the database.

The catalog: a table created, changed or dropped through one process is seen by the others (a
name not found is looked up in the database at once; other changes within --catalog-refresh-ms).

Runs on its own throwaway PostgreSQL 15 (scripts/pg-server.sh), like test_pg_backend.py.
"""
from __future__ import annotations

import re
import threading
import time
import uuid

import pytest
from botocore.exceptions import ClientError

from dataplane_util import all_items
from e2e_util import (ServerProcess, create_table, ddb_error, make_client, metric, metrics_text,
                      run_clients, unique_name, wait_until)
from pg_util import check_storage, private_pg, schema_conninfo, serve_on

PROCESSES = 3
CLIENTS = 6
INCREMENTS_PER_CLIENT = 20
HOT_COUNTERS = 2


@pytest.fixture(scope="module")
def pg():
    yield from private_pg()



def _increment(ddb, table: str, key: dict, condition: str, values: dict, transact: bool) -> None:
    update = {"TableName": table, "Key": key, "UpdateExpression": "ADD n :one",
              "ConditionExpression": condition,
              "ExpressionAttributeValues": {":one": {"N": "1"}, **values}}
    if transact:
        ddb.transact_write_items(TransactItems=[{"Update": update}])
    else:
        ddb.update_item(**update)


def _failed_condition(e: ClientError) -> bool:
    code = e.response["Error"]["Code"]
    if code == "ConditionalCheckFailedException":
        return True
    return (code == "TransactionCanceledException" and
            [r["Code"] for r in e.response["CancellationReasons"]] == ["ConditionalCheckFailed"])


@pytest.mark.parametrize("transact", [False, True], ids=["UpdateItem", "TransactWriteItems"])
def test_conditional_increments_through_three_processes_add_up(pg, tmp_path, transact):
    conninfo = pg["TTLSTORE_TEST_PG"]
    servers = [serve_on(tmp_path, conninfo, "p0")]
    try:
        name = unique_name("hot")
        ddb0 = make_client(servers[0].endpoint)
        create_table(ddb0, name)
        # Started after the table exists: a process reads the catalog at start (issue 34).
        servers += [serve_on(tmp_path, conninfo, f"p{i}") for i in range(1, PROCESSES)]
        endpoints = [s.endpoint for s in servers]
        acknowledged = [[0] * HOT_COUNTERS for _ in range(CLIENTS)]
        conflicts = [0] * CLIENTS

        def client(c: int) -> None:
            clients = [make_client(e) for e in endpoints]
            turn = c
            while sum(acknowledged[c]) < INCREMENTS_PER_CLIENT:
                ddb = clients[turn % PROCESSES]
                counter = turn % HOT_COUNTERS
                turn += 1
                key = {"pk": {"S": f"counter{counter}"}}
                got = ddb.get_item(TableName=name, Key=key, ConsistentRead=True).get("Item")
                if got is None:
                    condition, values = "attribute_not_exists(n)", {}
                else:
                    condition, values = "n = :old", {":old": got["n"]}
                try:
                    _increment(ddb, name, key, condition, values, transact)
                except ClientError as e:
                    if not _failed_condition(e):
                        raise
                    conflicts[c] += 1
                    continue
                acknowledged[c][counter] += 1

        run_clients(CLIENTS, client)
        for counter in range(HOT_COUNTERS):
            total = sum(a[counter] for a in acknowledged)
            for endpoint in endpoints:
                item = make_client(endpoint).get_item(
                    TableName=name, Key={"pk": {"S": f"counter{counter}"}},
                    ConsistentRead=True)["Item"]
                assert item["n"] == {"N": str(total)}, (counter, endpoint)
        # The clients did race (a condition failed at least once): the test exercised the lock.
        print(f"acknowledged={CLIENTS * INCREMENTS_PER_CLIENT} "
              f"condition_failures={sum(conflicts)}")
        assert sum(conflicts) > 0
    finally:
        for srv in servers:
            srv.stop()


LEASE_SECONDS = 1.5
UNITS = ("pitr/trim", "restores/recover", "streams/trim", "tablestore/indexes", "tablestore/purge",
         "tokens/trim")


def _leases(srv: ServerProcess) -> tuple[dict, int]:
    """The units /metrics says this process holds (unit -> 0/1), and its takeovers."""
    text = metrics_text(srv)
    held = {m.group(1): int(m.group(2))
            for m in re.finditer(r'^ttlstore_lease_held\{unit="([^"]+)"\} (\d+)$', text, re.M)
            if m.group(1) in UNITS}  # the TTL sweeper's shards are shared out, not held whole
    takeovers = re.search(r"^ttlstore_lease_takeovers_total (\d+)$", text, re.M)
    return held, int(takeovers.group(1))


def _wait_for_holder(srv: ServerProcess, timeout: float) -> float:
    """Seconds until `srv` holds every unit (fails past `timeout`)."""
    start = time.monotonic()
    wait_until(lambda: all(_leases(srv)[0].get(u) == 1 for u in UNITS), timeout,
               f"{srv.endpoint} to hold every unit")
    return time.monotonic() - start


def test_one_process_holds_each_lease_and_the_other_takes_over(pg, tmp_path):
    conninfo = pg["TTLSTORE_TEST_PG"]

    def serve(name):
        return serve_on(tmp_path, conninfo, name, "--lease-seconds", str(LEASE_SECONDS))

    first = serve("la")
    second = serve("lb")
    third = None
    try:
        # The first took both units as it started; the second's attempts find them live.
        _wait_for_holder(first, 10)
        for _ in range(3):
            time.sleep(LEASE_SECONDS / 2)
            assert _leases(first)[0] == {u: 1 for u in UNITS}
            assert _leases(second) == ({u: 0 for u in UNITS}, 0)
        # kill -9 of the holder: the other takes both over once the lease runs out (lease time
        # and a third at most, plus a renewal round; the bound asserted is generous).
        first.kill()
        took = _wait_for_holder(second, 10 * LEASE_SECONDS)
        assert _leases(second)[1] >= len(UNITS)  # and the TTL sweeper shards the first held
        print(f"taken over {took:.2f} s after the kill (lease {LEASE_SECONDS} s)")
        # A new process holds nothing while the second renews; a clean stop of the second
        # releases both, and the new one takes them at its next round, not a takeover.
        third = serve("lc")
        time.sleep(LEASE_SECONDS)
        assert _leases(third) == ({u: 0 for u in UNITS}, 0)
        second.stop()
        handed = _wait_for_holder(third, 10 * LEASE_SECONDS)
        assert _leases(third)[1] == 0
        print(f"handed over {handed:.2f} s after the stop")
    finally:
        for srv in (third, second, first):
            if srv is not None and srv.alive():
                srv.stop()


def test_catalog_changes_reach_every_process(pg, tmp_path):
    conninfo = pg["TTLSTORE_TEST_PG"]
    # Both start before the table exists.
    a = serve_on(tmp_path, conninfo, "ca", "--catalog-refresh-ms", "200")
    b = serve_on(tmp_path, conninfo, "cb", "--catalog-refresh-ms", "200")
    try:
        ddb_a, ddb_b = make_client(a.endpoint), make_client(b.endpoint)
        name = unique_name("cat")
        create_table(ddb_a, name)
        # At once through the other: a name not found is looked up in the database.
        ddb_b.put_item(TableName=name, Item={"pk": {"S": "k1"}, "g": {"S": "x"}})
        assert ddb_a.get_item(TableName=name, Key={"pk": {"S": "k1"}},
                              ConsistentRead=True)["Item"]["g"] == {"S": "x"}
        assert name in ddb_b.list_tables()["TableNames"]
        # A change through one is seen by the other within the refresh interval.
        ddb_b.update_time_to_live(TableName=name, TimeToLiveSpecification={
            "Enabled": True, "AttributeName": "expires"})
        wait_until(lambda: ddb_a.describe_time_to_live(TableName=name)["TimeToLiveDescription"][
            "TimeToLiveStatus"] == "ENABLED", 10, "TTL enabled seen by the other process")
        ddb_a.update_table(TableName=name, AttributeDefinitions=[
            {"AttributeName": "g", "AttributeType": "S"}], GlobalSecondaryIndexUpdates=[{"Create": {
            "IndexName": "by_g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "ALL"}}}])
        wait_until(lambda: [ix["IndexStatus"] for ix in ddb_b.describe_table(TableName=name)[
            "Table"].get("GlobalSecondaryIndexes", [])] == ["ACTIVE"], 10,
            "the index ACTIVE, seen by the other process")
        # A write through the process that did not build the index keeps it.
        ddb_b.put_item(TableName=name, Item={"pk": {"S": "k2"}, "g": {"S": "y"}})
        got = ddb_a.query(TableName=name, IndexName="by_g", KeyConditionExpression="g = :g",
                          ExpressionAttributeValues={":g": {"S": "y"}})["Items"]
        assert [i["pk"]["S"] for i in got] == ["k2"]
        # Dropped through one: the other stops serving it.
        ddb_a.delete_table(TableName=name)

        def gone() -> bool:
            try:
                ddb_b.describe_table(TableName=name)
                return False
            except ClientError as e:
                return e.response["Error"]["Code"] == "ResourceNotFoundException"
        wait_until(gone, 10, "the table gone from the other process")
        # Created again under the same name with another key: the other serves the new one.
        create_table(ddb_b, name, hash_key=("id", "N"))

        def key_of_a() -> str:
            try:
                table = ddb_a.describe_table(TableName=name)["Table"]
            except ClientError:  # not seen yet
                return ""
            return table["KeySchema"][0]["AttributeName"]
        wait_until(lambda: key_of_a() == "id", 10, "the new table seen by the other process")
        ddb_a.put_item(TableName=name, Item={"id": {"N": "1"}})
        assert ddb_b.get_item(TableName=name, Key={"id": {"N": "1"}},
                              ConsistentRead=True)["Item"] == {"id": {"N": "1"}}
        assert metric(a, "ttlstore_catalog_refreshed_total") > 0
    finally:
        b.stop()
        a.stop()


def test_control_plane_races_through_two_processes(pg, tmp_path):
    """Control-plane changes of one table through two processes at once: CreateTable of one
    name gives one table; tags added through both are all kept; a TTL enable through one is
    seen by the other's check at once, before its catalog refresh (once a minute here)."""
    conninfo = pg["TTLSTORE_TEST_PG"]
    a = serve_on(tmp_path, conninfo, "ra", "--catalog-refresh-ms", "60000")
    b = serve_on(tmp_path, conninfo, "rb", "--catalog-refresh-ms", "60000")
    try:
        clients = [make_client(a.endpoint), make_client(b.endpoint)]
        name = unique_name("race")
        outcomes: list[str] = []

        def create(c: int) -> None:
            try:
                create_table(clients[c], name)
                outcomes.append("created")
            except ClientError as e:
                outcomes.append(e.response["Error"]["Code"])
        run_clients(2, create)
        assert sorted(outcomes) == ["ResourceInUseException", "created"]
        arn = clients[0].describe_table(TableName=name)["Table"]["TableArn"]
        tags_each = 12

        def tag(c: int) -> None:
            for i in range(tags_each):
                clients[c].tag_resource(ResourceArn=arn, Tags=[{"Key": f"p{c}-{i}", "Value": "v"}])
        run_clients(2, tag)
        # What is stored, read by a process started now (a and b show the other's last tags
        # after their next refresh).
        fresh = serve_on(tmp_path, conninfo, "rc")
        try:
            tags = make_client(fresh.endpoint).list_tags_of_resource(ResourceArn=arn)["Tags"]
        finally:
            fresh.stop()
        assert len({t["Key"] for t in tags}) == 2 * tags_each
        clients[0].update_time_to_live(TableName=name, TimeToLiveSpecification={
            "Enabled": True, "AttributeName": "expires"})
        e = ddb_error(clients[1].update_time_to_live, TableName=name,
                      TimeToLiveSpecification={"Enabled": True, "AttributeName": "other"})
        assert (e.code, e.message) == ("ValidationException", "TimeToLive is already enabled")
        # The refused change brought b's copy up to date.
        assert clients[1].describe_time_to_live(TableName=name)["TimeToLiveDescription"] == {
            "TimeToLiveStatus": "ENABLED", "AttributeName": "expires"}
    finally:
        b.stop()
        a.stop()


def test_a_gsi_built_while_another_process_writes_has_every_entry(pg, tmp_path):
    """A GSI added through one process while clients write through another, whose catalog
    refresh is slow (2 s): the backfill begins only once the other process has seen the new
    index and no request of it still holds the table as it was (the catalog epoch,
    src/ops/catalog_epoch.cc), so every item written before, during and after the build is in
    the index. Keys are random, so writes land behind the backfill's cursor too."""
    conninfo = pg["TTLSTORE_TEST_PG"]
    a = serve_on(tmp_path, conninfo, "ga", "--catalog-refresh-ms", "2000")
    b = serve_on(tmp_path, conninfo, "gb", "--catalog-refresh-ms", "2000")
    try:
        ddb_a, ddb_b = make_client(a.endpoint), make_client(b.endpoint)
        name = unique_name("gsi")
        create_table(ddb_a, name)
        ddb_b.describe_table(TableName=name)  # b knows the table (a miss reads the database)
        stop = threading.Event()
        written: list[str] = []
        lock = threading.Lock()

        def writer(c: int) -> None:
            client = make_client(b.endpoint)
            while not stop.is_set():
                key = uuid.uuid4().hex
                client.put_item(TableName=name, Item={"pk": {"S": key}, "g": {"S": key[:2]}})
                with lock:
                    written.append(key)

        threads = [threading.Thread(target=writer, args=(c,), daemon=True) for c in range(4)]
        for t in threads:
            t.start()
        wait_until(lambda: len(written) >= 200, 30, "writes before the index")
        ddb_a.update_table(TableName=name, AttributeDefinitions=[
            {"AttributeName": "g", "AttributeType": "S"}], GlobalSecondaryIndexUpdates=[{"Create": {
                "IndexName": "by_g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "KEYS_ONLY"}}}])
        wait_until(lambda: [ix["IndexStatus"] for ix in ddb_a.describe_table(TableName=name)[
            "Table"].get("GlobalSecondaryIndexes", [])] == ["ACTIVE"], 60, "the index ACTIVE")
        time.sleep(0.5)
        stop.set()
        for t in threads:
            t.join(timeout=30)
        indexed = {i["pk"]["S"] for i in all_items(ddb_a.scan, TableName=name, IndexName="by_g")}
        missing = set(written) - indexed
        print(f"written={len(written)} indexed={len(indexed)} missing={len(missing)}")
        assert not missing, f"{len(missing)} items without their index entry"
        assert indexed == set(written)
    finally:
        b.stop()
        a.stop()


def test_a_table_deleted_while_another_process_writes_leaves_no_item(pg, tmp_path):
    """DeleteTable through one process while clients write the table through another, whose
    catalog refresh is slow (2 s): the drop waits until the other process has seen the table
    marked deleting and no request of it holds the table (docs/background-jobs.md, "DeleteTable
    on a shared store"), so no write lands after the drop: `ttlstore check` finds no item
    without a table. The writers then get ResourceNotFoundException; a second DeleteTable, through
    the writers' process, too."""
    conninfo = schema_conninfo(pg, f"drop_{uuid.uuid4().hex[:8]}")
    a = serve_on(tmp_path, conninfo, "da", "--catalog-refresh-ms", "2000")
    b = serve_on(tmp_path, conninfo, "db", "--catalog-refresh-ms", "2000")
    try:
        ddb_a, ddb_b = make_client(a.endpoint), make_client(b.endpoint)
        name = unique_name("drop")
        create_table(ddb_a, name)
        ddb_b.describe_table(TableName=name)  # b knows the table (a miss reads the database)
        written: list[int] = []
        refused: list[str] = []

        def writer(c: int) -> None:
            client = make_client(b.endpoint)
            n = 0
            while True:
                try:
                    client.put_item(TableName=name, Item={"pk": {"S": f"{c}-{n}"}})
                except ClientError as e:
                    refused.append(e.response["Error"]["Code"])
                    return
                written.append(c)
                n += 1

        threads = [threading.Thread(target=writer, args=(c,), daemon=True) for c in range(4)]
        for t in threads:
            t.start()
        wait_until(lambda: len(written) >= 200, 30, "writes before the delete")
        started = time.monotonic()
        ddb_a.delete_table(TableName=name)
        took = time.monotonic() - started
        for t in threads:
            t.join(timeout=30)
        assert refused == ["ResourceNotFoundException"] * 4
        e = ddb_error(ddb_b.delete_table, TableName=name)
        assert e.code == "ResourceNotFoundException"
        report = check_storage(tmp_path / "data-check", conninfo)
        print(f"written={len(written)} delete_took={took:.2f}s check: {report.strip()}")
    finally:
        b.stop()
        a.stop()


def test_client_request_token_holds_across_processes(pg, tmp_path):
    conninfo = pg["TTLSTORE_TEST_PG"]
    a = serve_on(tmp_path, conninfo, "ta")
    b = serve_on(tmp_path, conninfo, "tb")
    try:
        ddb_a, ddb_b = make_client(a.endpoint), make_client(b.endpoint)
        name = unique_name("tok")
        create_table(ddb_a, name)

        def add(by: int) -> list:
            return [{"Update": {"TableName": name, "Key": {"pk": {"S": "c"}},
                                "UpdateExpression": "ADD n :by",
                                "ExpressionAttributeValues": {":by": {"N": str(by)}}}}]

        def value() -> str:
            return ddb_a.get_item(TableName=name, Key={"pk": {"S": "c"}},
                                  ConsistentRead=True)["Item"]["n"]["N"]

        token = "t-" + unique_name("x")
        ddb_a.transact_write_items(ClientRequestToken=token, TransactItems=add(1))
        # The repeat through the other process applies nothing; another request is refused.
        ddb_b.transact_write_items(ClientRequestToken=token, TransactItems=add(1))
        assert value() == "1"
        with pytest.raises(ClientError) as e:
            ddb_b.transact_write_items(ClientRequestToken=token, TransactItems=add(2))
        assert e.value.response["Error"]["Code"] == "IdempotentParameterMismatchException"
        # PartiQL's ExecuteTransaction alike.
        stmt = [{"Statement": f'UPDATE "{name}" SET n = n + ? WHERE pk = ?',
                 "Parameters": [{"N": "10"}, {"S": "c"}]}]
        first = ddb_b.execute_transaction(ClientRequestToken=token + "p", TransactStatements=stmt)
        again = ddb_a.execute_transaction(ClientRequestToken=token + "p", TransactStatements=stmt)
        assert again["Responses"] == first["Responses"]
        assert value() == "11"
        # One new token sent at once by many clients through both processes: applied once.
        racing = token + "r"
        errors: list = []

        def send(i: int) -> None:
            ddb = make_client((a, b)[i % 2].endpoint)
            for _ in range(20):
                try:
                    ddb.transact_write_items(ClientRequestToken=racing, TransactItems=add(100))
                    return
                except ClientError as err:
                    code = err.response["Error"]["Code"]
                    if code not in ("TransactionInProgressException",
                                    "TransactionConflictException"):
                        errors.append(err)
                        return
                    time.sleep(0.05)
            errors.append(AssertionError("never answered"))

        threads = [threading.Thread(target=send, args=(i,)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
        assert errors == []
        assert value() == "111"
    finally:
        b.stop()
        a.stop()
