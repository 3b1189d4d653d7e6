"""kill -9 while writers race shard rollovers (`--stream-shard-rollover-seconds 1`), several times
on one data dir, then restart: no stream record lost, none in two shards, sequence numbers still
rising shard after shard, the lineage unbroken, and `ttlstore check` whole on the killed data dir
and at the end (docs/background-jobs.md, "Shard rollover").

Each writer thread puts new keys w<t>-<i> one after another, so every key has exactly one INSERT
record; a put the kill cut short may or may not have happened, but its item and its record go
in one batch: both or neither. TTLSTORE_CRASH_SEED moves the first seed, TTLSTORE_CRASH_SEEDS
runs that many seeds (CI: 2).
"""
from __future__ import annotations

import os
import random
import threading
import time

import pytest
from botocore.exceptions import BotoCoreError, ClientError

from e2e_util import check_data_dir, create_table, make_client, make_streams_client

SEED = int(os.environ.get("TTLSTORE_CRASH_SEED", 20261125))
SEEDS = [SEED + i for i in range(int(os.environ.get("TTLSTORE_CRASH_SEEDS", 2)))]
TABLE = "shards"
ROUNDS = 3
WRITERS = 3
FLAGS = ["--stream-shard-rollover-seconds", "1"]


def check(data_dir) -> None:
    check_data_dir(data_dir)


def shard_no(shard_id: str) -> int:
    return int(shard_id.rsplit("-", 1)[1], 16)


def all_shards(streams, arn) -> list[dict]:
    shards, start = [], None
    while True:
        args = dict(StreamArn=arn, Limit=2)
        if start:
            args["ExclusiveStartShardId"] = start
        desc = streams.describe_stream(**args)["StreamDescription"]
        shards += desc["Shards"]
        start = desc.get("LastEvaluatedShardId")
        if not start:
            return shards


def read_everything(streams, arn) -> list[tuple[int, str, int]]:
    """(shard no, key, sequence number) of every record, shard by shard."""
    out = []
    for shard in all_shards(streams, arn):
        it = streams.get_shard_iterator(StreamArn=arn, ShardId=shard["ShardId"],
                                        ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
        while it:
            page = streams.get_records(ShardIterator=it, Limit=1000)
            out += [(shard_no(shard["ShardId"]), r["dynamodb"]["Keys"]["pk"]["S"],
                     int(r["dynamodb"]["SequenceNumber"])) for r in page["Records"]]
            if not page["Records"]:
                break
            it = page.get("NextShardIterator")
    return out


def scan_keys(ddb) -> set[str]:
    keys, start = set(), None
    while True:
        args = dict(TableName=TABLE, ProjectionExpression="pk")
        if start:
            args["ExclusiveStartKey"] = start
        page = ddb.scan(**args)
        keys |= {it["pk"]["S"] for it in page["Items"]}
        start = page.get("LastEvaluatedKey")
        if not start:
            return keys


def check_writer_order(records) -> None:
    """Per writer, puts came one after another: their sequence numbers rise in that order."""
    by_writer: dict[str, list[tuple[int, int]]] = {}
    for _, key, seq in records:
        writer, i = key.rsplit("-", 1)
        by_writer.setdefault(writer, []).append((int(i), seq))
    for writer, pairs in by_writer.items():
        assert [s for _, s in sorted(pairs)] == sorted(s for _, s in pairs), writer


def write_until_killed(ddb, round_no: int, acked: dict[str, int]) -> list[threading.Thread]:
    def work(t):
        i = 0
        while True:
            key = f"w{round_no}.{t}-{i}"
            try:
                ddb.put_item(TableName=TABLE, Item={"pk": {"S": key}, "v": {"N": str(i)}})
            except (BotoCoreError, ClientError):
                return  # the server is gone
            acked[key] = i
            i += 1
    threads = [threading.Thread(target=work, args=(t,), daemon=True) for t in range(WRITERS)]
    for th in threads:
        th.start()
    return threads


@pytest.mark.parametrize("seed", SEEDS)
def test_kill_during_rollovers_loses_and_duplicates_nothing(start_server, tmp_path, seed):
    rng = random.Random(seed)
    data = tmp_path / "data"
    srv = start_server(data, FLAGS)
    ddb = make_client(srv.endpoint)
    arn = create_table(ddb, TABLE, StreamSpecification={
        "StreamEnabled": True, "StreamViewType": "KEYS_ONLY"})["LatestStreamArn"]
    acked: dict[str, int] = {}
    kills = []
    for round_no in range(ROUNDS):
        threads = write_until_killed(ddb, round_no, acked)
        delay = rng.uniform(0.2, 2.5)  # spans at least one rollover in most rounds
        time.sleep(delay)
        srv.kill()
        kills.append(f"{delay:.2f}s")
        for th in threads:
            th.join(timeout=30)
        check(data)  # whole at the moment of the kill
        srv = start_server(data, FLAGS)
        ddb = make_client(srv.endpoint)
    # A last stretch of writes after the final restart crosses one more rollover.
    threads = write_until_killed(ddb, ROUNDS, acked)
    time.sleep(1.3)
    streams = make_streams_client(srv.endpoint)
    srv.stop()
    for th in threads:
        th.join(timeout=30)
    srv = start_server(data, FLAGS)
    ddb, streams = make_client(srv.endpoint), make_streams_client(srv.endpoint)

    items = scan_keys(ddb)
    records = read_everything(streams, arn)
    keys = [k for _, k, _ in records]
    seqs = [s for _, _, s in records]
    assert len(set(keys)) == len(keys), "a record in two shards (or twice in one)"
    assert set(keys) == items, "an item without its record or a record without its item"
    assert set(acked) <= items, "an acknowledged write was lost"
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs), "numbers do not rise by shard"
    check_writer_order(records)
    shards = all_shards(streams, arn)
    numbers = [shard_no(s["ShardId"]) for s in shards]
    assert numbers == sorted(set(numbers)) and len(numbers) >= 2, numbers
    for s in shards[1:]:
        assert shard_no(s["ParentShardId"]) == shard_no(s["ShardId"]) - 1
    assert all("EndingSequenceNumber" in s["SequenceNumberRange"] for s in shards[:-1])
    srv.stop()
    check(data)
    print(f"\ncrash-shards seed={seed} kills={','.join(kills)} shards={numbers} "
          f"records={len(records)} acked={len(acked)}")
