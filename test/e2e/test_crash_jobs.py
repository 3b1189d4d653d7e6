"""kill -9 in the middle of every background job, then restart: nothing is lost or left half done.

For each job (docs/background-jobs.md) a test builds a table, starts the job, SIGKILLs the server
at a seeded random moment (before, during or after the job: over many seeds, all three), and
then:
  * runs `ttlstore check` on the killed data dir: every invariant holds at any moment (an index
    entry points to its item, stats equal entries, every item up to a pending TTL backfill's
    cursor has its expiry entry, stream records have their stream...);
  * restarts the server on it, repeats the request if the crash came before it took effect (what
    a client does when its call failed), waits for the job to finish, and checks the job's own
    outcome: every expired item deleted, every index complete, the dropped table's stream still
    readable, the restored table whole;
  * stops the server and runs `ttlstore check` again.

Each test prints one line saying where the kill fell (`state=before|during|after`), read from the
data dir, so a soak run shows that the kills did land inside the jobs:

  TTLSTORE_CRASH_SEEDS=40 TTLSTORE_BIN=build/ttlstore python3 -m pytest \
      test/e2e/test_crash_jobs.py -q -s -p no:cacheprovider | grep crash-job

TTLSTORE_CRASH_SEED moves the first seed, TTLSTORE_CRASH_SEEDS runs that many seeds per job (CI:
2), TTLSTORE_CRASH_ITEMS sets the table size (CI: 6000).
"""
from __future__ import annotations

import os
import random
import re
import threading
import time
from typing import Callable

import pytest
from botocore.exceptions import BotoCoreError, ClientError

from e2e_util import check_data_dir, make_client, make_streams_client, table_settled, wait_until

SEED = int(os.environ.get("TTLSTORE_CRASH_SEED", 20261125))
SEEDS = [SEED + i for i in range(int(os.environ.get("TTLSTORE_CRASH_SEEDS", 2)))]
ITEMS = int(os.environ.get("TTLSTORE_CRASH_ITEMS", 6000))
# Kill windows are sized for 6000 items on the release build (a TTL backfill of them takes about
# 40 ms, a GSI backfill 70 ms, a restore 25 ms) and grow with the table.
SCALE = ITEMS / 6000
TABLE = "jobs"


# --------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------


def check(data_dir) -> dict:
    """`ttlstore check`; fails the test unless whole. Returns the summary's counts."""
    summary = check_data_dir(data_dir).strip().splitlines()[-1]
    counts = {}
    for name, pattern in [("items", r"(\d+) items \("), ("awaiting", r"(\d+) awaiting"),
                          ("index_entries", r"(\d+) index entries"),
                          ("removing", r"(\d+) of indexes being removed"),
                          ("records", r"(\d+) stream records"),
                          ("expiry", r"(\d+) expiry entries")]:
        m = re.search(pattern, summary)
        assert m, f"no {name} in {summary!r}"
        counts[name] = int(m.group(1))
    return counts


def report(job: str, seed: int, kill_ms: float, state: str) -> None:
    print(f"\ncrash-job {job} seed={seed} kill_after_ms={kill_ms:.0f} state={state}")


def in_background(fn: Callable[[], object]) -> threading.Thread:
    """Runs a request the kill may cut short; the server's death is not an error."""
    def run():
        try:
            fn()
        except (BotoCoreError, ClientError):
            pass
    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t


def kill_at_random(srv, rng: random.Random, window_s: float, started: float) -> float:
    """SIGKILLs `srv` at a uniform moment in [0, window_s) after `started` (monotonic)."""
    delay = rng.uniform(0, window_s)
    time.sleep(max(0.0, started + delay - time.monotonic()))
    srv.kill()
    return delay * 1000


def fill(client, items: list[dict], threads: int = 4) -> None:
    """BatchWriteItem in parallel (batches are atomic here: nothing unprocessed)."""
    chunks = [items[i:i + 25] for i in range(0, len(items), 25)]

    def work(part):
        for chunk in part:
            client.batch_write_item(RequestItems={TABLE: [{"PutRequest": {"Item": it}}
                                                          for it in chunk]})
    parts = [chunks[i::threads] for i in range(threads)]
    ts = [threading.Thread(target=work, args=(p,)) for p in parts]
    for t in ts:
        t.start()
    for t in ts:
        t.join()


def keys_present(client, table: str = TABLE) -> set[str]:
    keys, start = set(), None
    while True:
        args = dict(TableName=table, ConsistentRead=True, ProjectionExpression="pk")
        if start:
            args["ExclusiveStartKey"] = start
        page = client.scan(**args)
        keys.update(it["pk"]["S"] for it in page["Items"])
        start = page.get("LastEvaluatedKey")
        if not start:
            return keys


def values_by_key(client, attr: str, table: str = TABLE) -> dict[str, int]:
    """pk -> the Number attribute `attr` of every item (a consistent scan)."""
    out: dict[str, int] = {}
    for page in client.get_paginator("scan").paginate(TableName=table, ConsistentRead=True):
        out.update({it["pk"]["S"]: int(it[attr]["N"]) for it in page["Items"]})
    return out


def index_count(client, index: str, table: str = TABLE) -> int:
    total, start = 0, None
    while True:
        args = dict(TableName=table, IndexName=index, Select="COUNT")
        if start:
            args["ExclusiveStartKey"] = start
        page = client.scan(**args)
        total += page["Count"]
        start = page.get("LastEvaluatedKey")
        if not start:
            return total


def create_table(client, gsi: bool = False, stream: bool = False, ttl_tag: bool = False):
    args = dict(TableName=TABLE, BillingMode="PAY_PER_REQUEST",
                AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                      {"AttributeName": "g", "AttributeType": "S"}],
                KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
    if gsi:
        args["GlobalSecondaryIndexes"] = [GSI]
    else:
        args["AttributeDefinitions"] = args["AttributeDefinitions"][:1]
    if stream:
        args["StreamSpecification"] = {"StreamEnabled": True,
                                       "StreamViewType": "NEW_AND_OLD_IMAGES"}
    if ttl_tag:
        args["Tags"] = [{"Key": "ttlstore:ttl-attribute", "Value": "exp"}]
    client.create_table(**args)


GSI = {"IndexName": "by_g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
       "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["n"]}}


def item(i: int, exp: int | None, g: bool = True) -> dict:
    it = {"pk": {"S": f"k{i:06d}"}, "n": {"N": str(i)}, "pad": {"S": "x" * 40}}
    if exp is not None:
        it["exp"] = {"N": str(exp)}
    if g:
        it["g"] = {"S": f"g{i % 50}"}
    return it


def index_status(client, name: str = "by_g") -> str | None:
    t = client.describe_table(TableName=TABLE)["Table"]
    for ix in t.get("GlobalSecondaryIndexes", []):
        if ix["IndexName"] == name:
            return ix["IndexStatus"]
    return None


def stream_records(streams, stream_arn: str, expect: int | None = None,
                   timeout: float = 30) -> list[dict]:
    """Every record of the stream, shard by shard. Without `expect`: up to each shard's first
    empty page. With it: keeps following every shard's iterator through empty pages (as a
    consumer of the service must: a page may be empty while later records exist, e.g. while a
    sequence number whose write failed is still unresolved) until `expect` records were read or
    `timeout` seconds passed."""
    deadline = time.monotonic() + timeout
    iterators: dict[str, str | None] = {}
    out: list[dict] = []
    while True:
        shards = streams.describe_stream(StreamArn=stream_arn)["StreamDescription"]["Shards"]
        for shard in shards:
            if shard["ShardId"] not in iterators:
                iterators[shard["ShardId"]] = streams.get_shard_iterator(
                    StreamArn=stream_arn, ShardId=shard["ShardId"],
                    ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
        progressed = False
        for shard_id, it in iterators.items():
            while it:
                page = streams.get_records(ShardIterator=it, Limit=1000)
                out += page["Records"]
                it = page.get("NextShardIterator")
                if not page["Records"]:
                    break
                progressed = True
            iterators[shard_id] = it
        if expect is None or len(out) >= expect or time.monotonic() > deadline:
            return out
        if not progressed:
            time.sleep(0.2)


# --------------------------------------------------------------------------------------------
# The jobs
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
def test_ttl_backfill_on_enable(start_server, tmp_path, seed):
    """UpdateTimeToLive on a populated table, killed at any moment (and killed again while the
    resumed backfill runs): TTL ends up enabled and every expired item is deleted."""
    rng = random.Random(seed)
    data = tmp_path / "data"
    srv = start_server(data)
    client = make_client(srv.endpoint)
    create_table(client)
    now = int(time.time())
    expired = {i for i in range(ITEMS) if i % 3 == 0}
    fill(client, [item(i, now - 3600 if i in expired else (now + 86400 if i % 3 == 1 else None))
                  for i in range(ITEMS)])
    states = []
    started = time.monotonic()
    in_background(lambda: client.update_time_to_live(
        TableName=TABLE, TimeToLiveSpecification={"Enabled": True, "AttributeName": "exp"}))
    kill_ms = kill_at_random(srv, rng, 0.06 * SCALE, started)
    for round_no in range(2):
        c = check(data)
        states.append("during" if c["awaiting"] else "after")
        srv = start_server(data)
        client = make_client(srv.endpoint)
        if round_no == 0:
            desc = client.describe_time_to_live(TableName=TABLE)["TimeToLiveDescription"]
            if desc["TimeToLiveStatus"] == "DISABLED":
                states[-1] = "before"  # the enable never committed: the client enables again
                in_background(lambda: client.update_time_to_live(
                    TableName=TABLE,
                    TimeToLiveSpecification={"Enabled": True, "AttributeName": "exp"}))
            # Kill again while the resumed (or repeated) backfill and the wave run.
            kill_at_random(srv, rng, 0.05 * SCALE, time.monotonic())
    if client.describe_time_to_live(TableName=TABLE)["TimeToLiveDescription"][
            "TimeToLiveStatus"] == "DISABLED":
        client.update_time_to_live(  # the repeated enable was cut short too
            TableName=TABLE, TimeToLiveSpecification={"Enabled": True, "AttributeName": "exp"})
    assert client.describe_time_to_live(TableName=TABLE)["TimeToLiveDescription"] == {
        "TimeToLiveStatus": "ENABLED", "AttributeName": "exp"}
    want = {f"k{i:06d}" for i in range(ITEMS) if i not in expired}
    wait_until(lambda: keys_present(client) == want, 60,
               "every expired item deleted and every other item kept")
    assert srv.stop() == 0
    final = check(data)
    assert final["awaiting"] == 0 and final["items"] == len(want)
    report("ttl-backfill", seed, kill_ms, "/".join(states))


@pytest.mark.parametrize("seed", SEEDS)
def test_sweeper_during_an_expiry_wave(start_server, tmp_path, seed):
    """A wave of expiring items on a table with a GSI and a stream, killed mid-wave: each item
    is deleted exactly once, with its index entry and one service REMOVE record."""
    rng = random.Random(seed)
    data = tmp_path / "data"
    # Requests keep the server busy during the wave, so the sweeper keeps to its share of a core
    # (10%) and the wave lasts about a second instead of 30 ms: long enough to kill it midway.
    args = ["--ttl-sweep-busy-percent", "10"]
    srv = start_server(data, args)
    client = make_client(srv.endpoint)
    create_table(client, gsi=True, stream=True, ttl_tag=True)
    n = min(ITEMS, 6000)
    due = int(time.time()) + 3
    expiring = {i for i in range(n) if i % 4 != 0}
    fill(client, [item(i, due if i in expiring else due + 86400) for i in range(n)])
    stop = threading.Event()

    def reader():
        r = make_client(srv.endpoint)
        while not stop.is_set():
            try:
                r.get_item(TableName=TABLE, Key={"pk": {"S": "k000000"}})
            except (BotoCoreError, ClientError):
                return
    rt = threading.Thread(target=reader, daemon=True)
    rt.start()
    # Due means now > due: the wave begins within a sweep interval (200 ms) after that (at once
    # if loading took longer, as it may under a sanitizer build).
    wave_start = time.monotonic() + max(0.0, due + 0.001 - time.time())
    kill_ms = kill_at_random(srv, rng, 1.5, wave_start)
    stop.set()
    rt.join(timeout=30)
    c = check(data)
    state = ("before" if c["items"] == n else
             "after" if c["items"] == n - len(expiring) else "during")
    srv = start_server(data, args)
    client = make_client(srv.endpoint)
    want = {f"k{i:06d}" for i in range(n) if i not in expiring}
    wait_until(lambda: keys_present(client) == want, 60, "the wave finished after the restart")
    assert index_count(client, "by_g") == len(want)
    arn = client.describe_table(TableName=TABLE)["Table"]["LatestStreamArn"]
    records = stream_records(make_streams_client(srv.endpoint), arn, expect=n + len(expiring))
    inserts = [r for r in records if r["eventName"] == "INSERT"]
    removes = [r for r in records if r["eventName"] == "REMOVE"]
    assert len(inserts) == n
    removed = [r["dynamodb"]["Keys"]["pk"]["S"] for r in removes]
    assert sorted(removed) == sorted(f"k{i:06d}" for i in expiring), \
        "every expired item has exactly one REMOVE record"
    assert all(r.get("userIdentity", {}).get("PrincipalId") == "dynamodb.amazonaws.com"
               for r in removes)
    assert srv.stop() == 0
    check(data)
    report("sweeper", seed, kill_ms, state)


@pytest.mark.parametrize("seed", SEEDS)
def test_gsi_backfill(start_server, tmp_path, seed):
    """UpdateTable Create on a populated table while a writer moves items between index keys,
    killed at any moment: after the restart the index becomes ACTIVE and complete."""
    rng = random.Random(seed)
    data = tmp_path / "data"
    srv = start_server(data)
    client = make_client(srv.endpoint)
    create_table(client)
    fill(client, [item(i, None, g=i % 3 != 0) for i in range(ITEMS)])
    stop = threading.Event()

    def writer():
        w = make_client(srv.endpoint)
        r = random.Random(seed + 1)
        while not stop.is_set():
            i = r.randrange(ITEMS)
            try:
                w.put_item(TableName=TABLE, Item=item(i, None, g=r.random() < 0.7))
            except (BotoCoreError, ClientError):
                return
    wt = threading.Thread(target=writer, daemon=True)
    wt.start()
    started = time.monotonic()
    in_background(lambda: client.update_table(
        TableName=TABLE, AttributeDefinitions=[{"AttributeName": "g", "AttributeType": "S"}],
        GlobalSecondaryIndexUpdates=[{"Create": GSI}]))
    kill_ms = kill_at_random(srv, rng, 0.1 * SCALE, started)
    stop.set()
    wt.join(timeout=30)
    check(data)
    srv = start_server(data)
    client = make_client(srv.endpoint)
    status = index_status(client)
    if status is None:
        client.update_table(
            TableName=TABLE, AttributeDefinitions=[{"AttributeName": "g", "AttributeType": "S"}],
            GlobalSecondaryIndexUpdates=[{"Create": GSI}])
    wait_until(lambda: index_status(client) == "ACTIVE", 60, "the index became ACTIVE")
    # Killed while CREATING: the restarted server resumed the backfill and logged its end.
    state = ("before" if status is None else
             "during" if "event=index_backfill_done" in srv.log_text() else "after")
    with_g = client.scan(TableName=TABLE, Select="COUNT", ConsistentRead=True,
                         FilterExpression="attribute_exists(g)")["Count"]
    assert index_count(client, "by_g") == with_g
    assert srv.stop() == 0
    c = check(data)
    assert c["index_entries"] == with_g
    report("gsi-backfill", seed, kill_ms, state)


@pytest.mark.parametrize("seed", SEEDS)
def test_gsi_drop(start_server, tmp_path, seed):
    """UpdateTable Delete of a populated GSI, killed at any moment: after the restart the index is
    gone and so is every one of its entries and its stats."""
    rng = random.Random(seed)
    data = tmp_path / "data"
    srv = start_server(data)
    client = make_client(srv.endpoint)
    create_table(client, gsi=True)
    fill(client, [item(i, None) for i in range(ITEMS)])
    # The removal itself is one range delete (a millisecond); the index builder runs its jobs
    # one at a time, so a backfill on another table ahead of it holds the drop between its
    # durable steps (index gone from the descriptor, entries still there) long enough to kill.
    make_client(srv.endpoint).create_table(
        TableName="slow", BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
    for i in range(0, ITEMS, 25):
        client.batch_write_item(RequestItems={"slow": [
            {"PutRequest": {"Item": item(j, None)}} for j in range(i, min(ITEMS, i + 25))]})
    client.update_table(TableName="slow",
                        AttributeDefinitions=[{"AttributeName": "g", "AttributeType": "S"}],
                        GlobalSecondaryIndexUpdates=[{"Create": GSI}])
    started = time.monotonic()
    in_background(lambda: client.update_table(
        TableName=TABLE, GlobalSecondaryIndexUpdates=[{"Delete": {"IndexName": "by_g"}}]))
    kill_ms = kill_at_random(srv, rng, 0.1 * SCALE, started)
    c = check(data)
    srv = start_server(data)
    client = make_client(srv.endpoint)
    if index_status(client) is not None:
        state = "before"
        client.update_table(TableName=TABLE,
                            GlobalSecondaryIndexUpdates=[{"Delete": {"IndexName": "by_g"}}])
    else:
        state = "during" if c["removing"] else "after"
    if state != "after":
        wait_until(lambda: "event=index_drop_done" in srv.log_text(), 60,
                   "the entries were removed")
    wait_until(lambda: client.describe_table(TableName="slow")["Table"][
        "GlobalSecondaryIndexes"][0]["IndexStatus"] == "ACTIVE", 60, "slow's index ACTIVE")
    assert srv.stop() == 0
    c = check(data)
    assert c["index_entries"] == ITEMS and c["removing"] == 0  # slow's index only
    report("gsi-drop", seed, kill_ms, state)


@pytest.mark.parametrize("seed", SEEDS)
def test_delete_table_keeps_its_stream(start_server, tmp_path, seed):
    """DeleteTable of a table with a stream, killed at any moment: either the table is still
    there, or it is gone and its stream still readable (DISABLED) with every record."""
    rng = random.Random(seed)
    data = tmp_path / "data"
    srv = start_server(data)
    client = make_client(srv.endpoint)
    create_table(client, stream=True)
    n = min(ITEMS, 2000)
    fill(client, [item(i, None, g=False) for i in range(n)])
    arn = client.describe_table(TableName=TABLE)["Table"]["LatestStreamArn"]
    started = time.monotonic()
    in_background(lambda: client.delete_table(TableName=TABLE))
    kill_ms = kill_at_random(srv, rng, 0.01, started)
    c = check(data)
    srv = start_server(data)
    client = make_client(srv.endpoint)
    if TABLE in client.list_tables()["TableNames"]:
        state = "before"
        client.delete_table(TableName=TABLE)
    else:
        state = "after"
    streams = make_streams_client(srv.endpoint)
    listed = streams.list_streams(TableName=TABLE)["Streams"]
    assert [s["StreamArn"] for s in listed] == [arn]
    desc = streams.describe_stream(StreamArn=arn)["StreamDescription"]
    assert desc["StreamStatus"] == "DISABLED"
    records = stream_records(streams, arn)
    assert len(records) == n and all(r["eventName"] == "INSERT" for r in records)
    assert srv.stop() == 0
    c = check(data)
    assert c["records"] == n and c["items"] == 0
    report("delete-table", seed, kill_ms, state)


@pytest.mark.parametrize("seed", SEEDS)
def test_restore(start_server, tmp_path, seed):
    """RestoreTableFromBackup of a table with a GSI and TTL, killed at any moment: the restored
    table is whole (items, index, expiry entries) or absent, and a new restore then works."""
    rng = random.Random(seed)
    data = tmp_path / "data"
    srv = start_server(data)
    client = make_client(srv.endpoint)
    create_table(client, gsi=True, ttl_tag=True)
    now = int(time.time())
    fill(client, [item(i, now + 86400 + i) for i in range(ITEMS)])
    backup = client.create_backup(TableName=TABLE, BackupName="jobs-backup")["BackupDetails"]["BackupArn"]
    started = time.monotonic()
    in_background(lambda: client.restore_table_from_backup(TargetTableName="restored",
                                                           BackupArn=backup))
    kill_ms = kill_at_random(srv, rng, 0.04 * SCALE, started)
    check(data)
    srv = start_server(data)
    client = make_client(srv.endpoint)
    # An interrupted restore is dropped at the start on RocksDB; on PostgreSQL once the killed
    # process's restore lease has lapsed, by the recovery pass (src/backup/restore_lease.h).
    settled = wait_until(lambda: table_settled(client, "restored"), 30,
                         "the interrupted restore dropped or finished")
    if "event=restore_abandoned table=restored" in srv.log_text():
        state = "during"
    elif settled == "active":
        state = "after"
    else:
        state = "before"
    if state != "after":
        client.restore_table_from_backup(TargetTableName="restored", BackupArn=backup)
    wait_until(lambda: client.describe_table(TableName="restored")["Table"]["TableStatus"]
               == "ACTIVE", 60, "the restore finished")
    assert len(keys_present(client, "restored")) == ITEMS
    assert index_count(client, "by_g", "restored") == ITEMS
    assert client.describe_time_to_live(TableName="restored")["TimeToLiveDescription"][
        "TimeToLiveStatus"] == "ENABLED"
    assert srv.stop() == 0
    c = check(data)
    assert c["items"] == 2 * ITEMS and c["expiry"] >= 2 * ITEMS
    report("restore", seed, kill_ms, state)
