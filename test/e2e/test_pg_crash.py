"""kill -9 of PostgreSQL itself in the middle of ttlstore's background jobs (issue 33).

test_crash_jobs.py kills ttlstore during every background job (and runs on this backend too,
test/pg_e2e_suites.txt). Here the database is the one that dies: the postmaster gets SIGKILL at a
seeded random moment of the job (scripts/pg-server.sh crash), stays down a moment, and comes back
through its own crash recovery. The ttlstore process is NOT restarted: it must reconnect by
itself, answer requests during the outage with the retryable error, finish (or resume) the job,
lose no acknowledged write and apply nothing twice. Then it is stopped and `ttlstore check
--storage` must find every invariant intact.

The cluster is private to this module (pg_util.private_pg) and keeps synchronous_commit on, so a
database crash loses no commit it acknowledged; each test uses its own schema.

TTLSTORE_CRASH_SEED / TTLSTORE_CRASH_SEEDS as in test_crash_jobs.py (CI: 1 seed per job here).
"""
from __future__ import annotations

import gzip
import json
import os
import random
import threading
import time

import pytest
from botocore.exceptions import BotoCoreError, ClientError

from e2e_util import ServerProcess, make_client, make_streams_client
from pg_util import check_storage, pg_ctl, private_pg, schema_conninfo
from test_crash_jobs import (GSI, TABLE, create_table, fill, in_background, index_count,
                             index_status, item, keys_present, stream_records, values_by_key,
                             wait_until)
from test_pitr import enable_pitr

SEED = int(os.environ.get("TTLSTORE_CRASH_SEED", 20261127))
SEEDS = [SEED + i for i in range(int(os.environ.get("TTLSTORE_CRASH_SEEDS", 1)))]
ITEMS = 3000
RECOVER_S = 60  # how long the server may take to carry on after the database is back


@pytest.fixture(scope="module")
def pg():
    yield from private_pg()


@pytest.fixture
def serve(pg, tmp_path):
    """serve(name, *flags) -> (server on a new schema `name`, its connection string); a server
    a failed test leaves running is stopped (by its PID) at the end."""
    started: list[ServerProcess] = []

    def _serve(name: str, *extra) -> tuple[ServerProcess, str]:
        conninfo = schema_conninfo(pg, name)
        srv = ServerProcess(tmp_path / "data", tmp_path / f"{name}.log",
                            ["--storage", conninfo, *extra])
        started.append(srv)
        return srv.start(), conninfo
    yield _serve
    for srv in started:
        if srv.alive():
            try:
                srv.stop(timeout=5)
            except AssertionError:
                pass  # stop() has SIGKILLed it already


def crash_database(pg, rng: random.Random, window_s: float, started: float) -> float:
    """kill -9 of the postmaster at a uniform moment in [0, window_s) after `started`, down for
    up to half a second, then started again (crash recovery). Returns the kill's delay in ms."""
    delay = rng.uniform(0, window_s)
    time.sleep(max(0.0, started + delay - time.monotonic()))
    pg_ctl("crash", pg)
    time.sleep(rng.uniform(0, 0.5))
    pg_ctl("resume", pg)
    return delay * 1000


def retrying(fn, timeout: float = RECOVER_S):
    """Calls fn until it stops failing with the retryable outage answer (what an SDK does)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return fn()
        except ClientError as e:
            if e.response["ResponseMetadata"]["HTTPStatusCode"] < 500 or \
                    time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def finish(srv: ServerProcess, data_dir, conninfo: str) -> str:
    assert srv.alive(), "ttlstore died with its database:\n" + srv.log_text()[-3000:]
    assert srv.stop() == 0
    return check_storage(data_dir, conninfo)


@pytest.mark.parametrize("seed", SEEDS)
def test_acknowledged_writes_survive_a_database_crash_under_load(pg, serve, tmp_path, seed):
    """Four writers put and conditionally update items while the database dies: every write
    acknowledged before, during or after the crash is there afterwards, exactly once."""
    rng = random.Random(seed)
    srv, conninfo = serve("acked")
    client = make_client(srv.endpoint)
    create_table(client, stream=True)
    acked: dict[str, int] = {}
    lock = threading.Lock()
    stop = threading.Event()

    def writer(w: int):
        c = make_client(srv.endpoint)
        n = 0
        while not stop.is_set():
            key = f"w{w}-{n:05d}"
            try:
                c.put_item(TableName=TABLE, Item={"pk": {"S": key}, "n": {"N": "1"}})
                c.update_item(TableName=TABLE, Key={"pk": {"S": key}},
                              UpdateExpression="ADD n :one",
                              ConditionExpression="n = :one",
                              ExpressionAttributeValues={":one": {"N": "1"}})
            except ClientError as e:
                if e.response["Error"]["Code"] == "ConditionalCheckFailedException":
                    # The update was applied but its answer lost to the outage, then retried
                    # by the SDK: the condition saw its own effect. Applied once: n is 2.
                    with lock:
                        acked[key] = 2
                n += 1
                continue
            except BotoCoreError:
                n += 1
                continue
            with lock:
                acked[key] = 2
            n += 1

    threads = [threading.Thread(target=writer, args=(w,), daemon=True) for w in range(4)]
    for t in threads:
        t.start()
    time.sleep(0.3)
    crash_database(pg, rng, 1.0, time.monotonic())
    # Writes go on after the database is back, through the same server.
    wait_until(lambda: retrying(lambda: client.put_item(
        TableName=TABLE, Item={"pk": {"S": "after"}, "n": {"N": "2"}})) is not None,
        RECOVER_S, "a write after the crash")
    time.sleep(1.0)
    stop.set()
    for t in threads:
        t.join(timeout=30)
    items = values_by_key(client, "n")
    lost = [k for k in acked if k not in items]
    assert not lost, f"{len(lost)} acknowledged writes lost, e.g. {lost[:5]}"
    twice = [k for k, n in items.items() if n > 2]
    assert not twice, f"updates applied twice: {twice[:5]}"
    assert all(items[k] == 2 for k in acked)
    assert len(acked) >= 20  # the writers did run around the crash
    finish(srv, tmp_path / "data", conninfo)


@pytest.mark.parametrize("seed", SEEDS)
def test_sweeper_during_an_expiry_wave(pg, serve, tmp_path, seed):
    """The database dies mid-wave (a table with a GSI and a stream): each expired item is deleted
    exactly once, with its index entry and one service REMOVE record, by the same server."""
    rng = random.Random(seed)
    srv, conninfo = serve("wave", "--ttl-sweep-busy-percent", "10")
    client = make_client(srv.endpoint)
    create_table(client, gsi=True, stream=True, ttl_tag=True)
    due = int(time.time()) + 4
    expiring = {i for i in range(ITEMS) if i % 4 != 0}
    fill(client, [item(i, due if i in expiring else due + 86400) for i in range(ITEMS)])
    wave_start = time.monotonic() + max(0.0, due + 0.001 - time.time())
    crash_database(pg, rng, 1.0, wave_start)
    want = {f"k{i:06d}" for i in range(ITEMS) if i not in expiring}
    wait_until(lambda: retrying(lambda: keys_present(client)) == want, RECOVER_S,
               "the wave finished after the database came back")
    assert index_count(client, "by_g") == len(want)
    arn = client.describe_table(TableName=TABLE)["Table"]["LatestStreamArn"]
    records = stream_records(make_streams_client(srv.endpoint), arn,
                             expect=ITEMS + len(expiring))
    removed = sorted(r["dynamodb"]["Keys"]["pk"]["S"] for r in records
                     if r["eventName"] == "REMOVE")
    assert removed == sorted(f"k{i:06d}" for i in expiring), \
        "every expired item has exactly one REMOVE record"
    assert sum(1 for r in records if r["eventName"] == "INSERT") == ITEMS
    finish(srv, tmp_path / "data", conninfo)


@pytest.mark.parametrize("seed", SEEDS)
def test_ttl_backfill_on_enable(pg, serve, tmp_path, seed):
    """UpdateTimeToLive on a populated table, the database dying during its backfill: TTL ends
    up enabled and every expired item deleted, every other kept."""
    rng = random.Random(seed)
    srv, conninfo = serve("ttlfill")
    client = make_client(srv.endpoint)
    create_table(client)
    now = int(time.time())
    expired = {i for i in range(ITEMS) if i % 3 == 0}
    fill(client, [item(i, now - 3600 if i in expired else (now + 86400 if i % 3 == 1 else None))
                  for i in range(ITEMS)])
    started = time.monotonic()
    in_background(lambda: client.update_time_to_live(
        TableName=TABLE, TimeToLiveSpecification={"Enabled": True, "AttributeName": "exp"}))
    crash_database(pg, rng, 0.5, started)
    desc = retrying(lambda: client.describe_time_to_live(TableName=TABLE))
    if desc["TimeToLiveDescription"]["TimeToLiveStatus"] == "DISABLED":
        retrying(lambda: client.update_time_to_live(  # the enable failed: the client repeats it
            TableName=TABLE, TimeToLiveSpecification={"Enabled": True, "AttributeName": "exp"}))
    want = {f"k{i:06d}" for i in range(ITEMS) if i not in expired}
    wait_until(lambda: retrying(lambda: keys_present(client)) == want, RECOVER_S,
               "every expired item deleted and every other item kept")
    out = finish(srv, tmp_path / "data", conninfo)
    assert " 0 awaiting" in out or "0 awaiting" in out.splitlines()[-1]


@pytest.mark.parametrize("seed", SEEDS)
def test_gsi_backfill(pg, serve, tmp_path, seed):
    """UpdateTable Create of a GSI on a populated table while a writer moves items between index
    keys; the database dies during the backfill: the index becomes ACTIVE and complete."""
    rng = random.Random(seed)
    srv, conninfo = serve("gsifill")
    client = make_client(srv.endpoint)
    create_table(client)
    fill(client, [item(i, None, g=i % 3 != 0) for i in range(ITEMS)])
    stop = threading.Event()

    def writer():
        w = make_client(srv.endpoint)
        r = random.Random(seed + 1)
        while not stop.is_set():
            try:
                w.put_item(TableName=TABLE, Item=item(r.randrange(ITEMS), None,
                                                      g=r.random() < 0.7))
            except (BotoCoreError, ClientError):
                time.sleep(0.05)
    wt = threading.Thread(target=writer, daemon=True)
    wt.start()
    started = time.monotonic()
    in_background(lambda: client.update_table(
        TableName=TABLE, AttributeDefinitions=[{"AttributeName": "g", "AttributeType": "S"}],
        GlobalSecondaryIndexUpdates=[{"Create": GSI}]))
    crash_database(pg, rng, 1.0, started)
    time.sleep(0.5)
    stop.set()
    wt.join(timeout=30)
    if retrying(lambda: index_status(client)) is None:
        retrying(lambda: client.update_table(
            TableName=TABLE, AttributeDefinitions=[{"AttributeName": "g", "AttributeType": "S"}],
            GlobalSecondaryIndexUpdates=[{"Create": GSI}]))
    wait_until(lambda: retrying(lambda: index_status(client)) == "ACTIVE", RECOVER_S,
               "the index became ACTIVE")
    with_g = client.scan(TableName=TABLE, Select="COUNT", ConsistentRead=True,
                         FilterExpression="attribute_exists(g)")["Count"]
    assert index_count(client, "by_g") == with_g
    out = finish(srv, tmp_path / "data", conninfo)
    assert f"{with_g} index entries" in out


@pytest.mark.parametrize("seed", SEEDS)
def test_gsi_drop(pg, serve, tmp_path, seed):
    """UpdateTable Delete of a populated GSI, the database dying meanwhile: the index and every
    one of its entries end up gone."""
    rng = random.Random(seed)
    srv, conninfo = serve("gsidrop")
    client = make_client(srv.endpoint)
    create_table(client, gsi=True)
    fill(client, [item(i, None) for i in range(ITEMS)])
    started = time.monotonic()
    in_background(lambda: client.update_table(
        TableName=TABLE, GlobalSecondaryIndexUpdates=[{"Delete": {"IndexName": "by_g"}}]))
    crash_database(pg, rng, 0.3, started)
    if retrying(lambda: index_status(client)) is not None:
        try:
            retrying(lambda: client.update_table(
                TableName=TABLE, GlobalSecondaryIndexUpdates=[{"Delete": {"IndexName": "by_g"}}]))
        except ClientError as e:  # already DELETING: the first request took effect after all
            assert e.response["Error"]["Code"] in ("ResourceInUseException",
                                                   "ValidationException"), e
    wait_until(lambda: retrying(lambda: index_status(client)) is None, RECOVER_S,
               "the index is gone")
    wait_until(lambda: "event=index_drop_done" in srv.log_text(), RECOVER_S,
               "the index's entries were removed")
    out = finish(srv, tmp_path / "data", conninfo)
    assert " 0 index entries" in out


# --------------------------------------------------------------------------------------------
# One-shot jobs on their own thread (restores, imports, exports): the database dies while one
# runs, and the job starts over by itself once it is back (common/transient.h), with no request
# repeated by the client. Each test prints whether the job had to start over (`retried`).
# --------------------------------------------------------------------------------------------

ALL_KEYS = {f"k{i:06d}" for i in range(ITEMS)}


def job_report(job: str, seed: int, kill_ms: float, srv: ServerProcess, event: str) -> None:
    retried = f"event={event}" in srv.log_text()
    print(f"\npg-outage-job {job} seed={seed} kill_after_ms={kill_ms:.0f} retried={retried}")


def wait_active(client, table: str) -> None:
    wait_until(lambda: retrying(lambda: client.describe_table(TableName=table))["Table"][
        "TableStatus"] == "ACTIVE", RECOVER_S, f"{table} became ACTIVE")


@pytest.mark.parametrize("seed", SEEDS)
def test_restore_from_backup(pg, serve, tmp_path, seed):
    """RestoreTableFromBackup of a table with a GSI, the database dying during the restore: the
    restored table ends ACTIVE with every item and index entry (never dropped, never half)."""
    rng = random.Random(seed)
    srv, conninfo = serve("restorejob")
    client = make_client(srv.endpoint)
    create_table(client, gsi=True)
    fill(client, [item(i, None) for i in range(ITEMS)])
    backup = client.create_backup(TableName=TABLE, BackupName="before-restore")["BackupDetails"]["BackupArn"]
    started = time.monotonic()
    client.restore_table_from_backup(TargetTableName="restored", BackupArn=backup)
    kill_ms = crash_database(pg, rng, 0.4, started)
    wait_active(client, "restored")
    assert retrying(lambda: keys_present(client, "restored")) == ALL_KEYS
    assert retrying(lambda: index_count(client, "by_g", "restored")) == ITEMS
    assert "event=restore_failed" not in srv.log_text()
    job_report("restore", seed, kill_ms, srv, "restore_retry")
    out = finish(srv, tmp_path / "data", conninfo)
    assert f"{2 * ITEMS} items" in out


def filled_pitr_table(serve, name: str):
    """A server on schema `name` with TABLE holding ITEMS items and PITR on: (srv, conninfo,
    client)."""
    srv, conninfo = serve(name)
    client = make_client(srv.endpoint)
    create_table(client)
    fill(client, [item(i, None) for i in range(ITEMS)])
    enable_pitr(client, TABLE)
    return srv, conninfo, client


@pytest.mark.parametrize("seed", SEEDS)
def test_point_in_time_restore(pg, serve, tmp_path, seed):
    """RestoreTableToPointInTime, the database dying during the restore: the target ends ACTIVE
    with the source's items as they were at the point (later writes not in it)."""
    rng = random.Random(seed)
    srv, conninfo, client = filled_pitr_table(serve, "pitrjob")
    time.sleep(1.5)
    point = time.time()
    time.sleep(1.5)
    client.delete_item(TableName=TABLE, Key={"pk": {"S": "k000000"}})  # after the point
    started = time.monotonic()
    client.restore_table_to_point_in_time(SourceTableName=TABLE, TargetTableName="pitr",
                                          RestoreDateTime=point)
    kill_ms = crash_database(pg, rng, 0.4, started)
    wait_active(client, "pitr")
    assert retrying(lambda: keys_present(client, "pitr")) == ALL_KEYS
    assert "event=pitr_restore_failed" not in srv.log_text()
    job_report("pitr-restore", seed, kill_ms, srv, "pitr_restore_retry")
    finish(srv, tmp_path / "data", conninfo)


def wait_ended(describe, status_member: str, what: str) -> dict:
    """describe() (retried through the outage) until its status is no longer IN_PROGRESS."""
    return wait_until(lambda: (lambda d: d if d[status_member] != "IN_PROGRESS" else None)(
        retrying(describe)), RECOVER_S, what)


def listed_keys(folder) -> set[str]:
    """The keys in the data files an export's manifest lists (and checks that the data folder
    holds those files only)."""
    keys, listed = set(), set()
    bucket_dir = folder.parents[1]
    for line in (folder / "manifest-files.json").read_text().splitlines():
        entry = json.loads(line)
        path = bucket_dir / entry["dataFileS3Key"]
        listed.add(path.name)
        for row in gzip.decompress(path.read_bytes()).decode().splitlines():
            keys.add(json.loads(row)["Item"]["pk"]["S"])
    assert listed == {p.name for p in (folder / "data").iterdir()}
    return keys


@pytest.mark.parametrize("seed", SEEDS)
def test_export_then_import(pg, serve, tmp_path, seed):
    """ExportTableToPointInTime, the database dying during it, then ImportTable of its files,
    the database dying again: the export COMPLETES with every item in the files its manifest
    lists (and no others), the import COMPLETES with every item in its table."""
    rng = random.Random(seed)
    srv, conninfo, client = filled_pitr_table(serve, "exportjob")
    bucket = tmp_path / "data" / "s3" / "bkt"
    bucket.mkdir(parents=True)
    # The request waits a second (until every write dated before the export time committed),
    # then opens its views and starts the export's thread: the kill lands in [0.9, 1.3) s.
    started = time.monotonic() + 0.9
    killed: list[float] = []
    crash = threading.Thread(target=lambda: killed.append(crash_database(pg, rng, 0.4, started)))
    crash.start()
    arn = retrying(lambda: client.export_table_to_point_in_time(  # a token: retries are one export
        TableArn=f"arn:aws:dynamodb:us-east-1:000000000000:table/{TABLE}", S3Bucket="bkt",
        ClientToken=f"export-{seed}"))["ExportDescription"]["ExportArn"]
    crash.join()
    kill_ms = killed[0] + 900
    desc = wait_ended(lambda: client.describe_export(ExportArn=arn)["ExportDescription"],
                      "ExportStatus", "the export ended")
    assert desc["ExportStatus"] == "COMPLETED", desc
    assert desc["ItemCount"] == ITEMS
    folder = bucket / "AWSDynamoDB" / arn.rsplit("/", 1)[1]
    assert listed_keys(folder) == ALL_KEYS
    job_report("export", seed, kill_ms, srv, "export_retry")

    started = time.monotonic()
    imp = retrying(lambda: client.import_table(
        S3BucketSource={"S3Bucket": "bkt", "S3KeyPrefix": f"AWSDynamoDB/{arn.rsplit('/', 1)[1]}/data/"},
        InputFormat="DYNAMODB_JSON", InputCompressionType="GZIP",
        TableCreationParameters={
            "TableName": "imported", "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}))["ImportTableDescription"]
    kill_ms = crash_database(pg, rng, 0.4, started)
    final = wait_ended(lambda: client.describe_import(ImportArn=imp["ImportArn"])[
        "ImportTableDescription"], "ImportStatus", "the import ended")
    assert final["ImportStatus"] == "COMPLETED", final
    assert final["ImportedItemCount"] == ITEMS and final["ErrorCount"] == 0
    wait_active(client, "imported")
    assert retrying(lambda: keys_present(client, "imported")) == ALL_KEYS
    job_report("import", seed, kill_ms, srv, "import_retry")
    out = finish(srv, tmp_path / "data", conninfo)
    assert f"{2 * ITEMS} items" in out
