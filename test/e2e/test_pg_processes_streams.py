"""A DynamoDB stream written through three ttlstore processes on one PostgreSQL database
(issue 34): every change appears once, in commit order per key, numbered upwards within its
shard, and every process reads the same records.

With each process numbering records from a counter of its own, two processes would hand out
the same numbers (one record overwriting another) and a reader could pass a number that a slower
writer of another process commits later. Each stream's head is a database record that every
write to the stream locks at its commit (src/streams/stream_head.h, docs/storage.md).

The check: clients spread over the three processes add one to a few hot counters (UpdateItem
ADD, no condition: the storage's read-modify-write serializes them) and put and delete keys of
their own. For each hot counter the stream must hold exactly the values 1, 2, ..., total, in
that order, each record's old image the one before; for each key of a client, its writes in the
client's order. Then `ttlstore check` finds the store whole.

Runs on its own throwaway PostgreSQL 15 (scripts/pg-server.sh), like test_pg_processes.py.
"""
from __future__ import annotations

import threading

import pytest

from e2e_util import create_table, make_client, make_streams_client, run_clients, unique_name
from pg_util import check_storage, private_pg, serve_on

PROCESSES = 3
CLIENTS = 6
WRITES_PER_CLIENT = 40
HOT_COUNTERS = 2


@pytest.fixture(scope="module")
def pg():
    yield from private_pg()



def _read_stream(endpoint: str, arn: str) -> list[dict]:
    """Every record of the stream, shard by shard in shard order, through one process."""
    streams = make_streams_client(endpoint)
    shards = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]
    records = []
    for shard in shards:
        it = streams.get_shard_iterator(StreamArn=arn, ShardId=shard["ShardId"],
                                        ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
        numbers = []
        while it:
            page = streams.get_records(ShardIterator=it, Limit=1000)
            numbers += [int(r["dynamodb"]["SequenceNumber"]) for r in page["Records"]]
            records += page["Records"]
            it = page.get("NextShardIterator")
            if not page["Records"]:
                break  # the open shard: at its end for now
        assert numbers == sorted(set(numbers)), "numbers rise within a shard, none twice"
    return records


def test_a_stream_written_through_three_processes_has_every_change_once_in_order(pg, tmp_path):
    conninfo = pg["TTLSTORE_TEST_PG"]
    servers = [serve_on(tmp_path, conninfo, "p0")]
    try:
        name = unique_name("strm")
        ddb0 = make_client(servers[0].endpoint)
        desc = create_table(ddb0, name, StreamSpecification={
            "StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"})
        arn = desc["LatestStreamArn"]
        servers += [serve_on(tmp_path, conninfo, f"p{i}") for i in range(1, PROCESSES)]
        endpoints = [s.endpoint for s in servers]
        increments = [0] * HOT_COUNTERS
        own_writes: dict[str, list[str]] = {}  # key -> the client's writes in order
        lock = threading.Lock()

        def client(c: int) -> None:
            clients = [make_client(e) for e in endpoints]
            for i in range(WRITES_PER_CLIENT):
                ddb = clients[(c + i) % PROCESSES]
                if i % 2 == 0:
                    counter = (c + i // 2) % HOT_COUNTERS
                    ddb.update_item(TableName=name, Key={"pk": {"S": f"hot{counter}"}},
                                    UpdateExpression="ADD n :one",
                                    ExpressionAttributeValues={":one": {"N": "1"}})
                    with lock:
                        increments[counter] += 1
                    continue
                key = f"c{c}-{i % 3}"
                if i % 5 == 0:
                    ddb.delete_item(TableName=name, Key={"pk": {"S": key}})
                    write = "delete"
                else:
                    ddb.put_item(TableName=name, Item={"pk": {"S": key}, "v": {"N": str(i)}})
                    write = f"put {i}"
                with lock:
                    own_writes.setdefault(key, []).append(write)

        run_clients(CLIENTS, client)

        seen = [_read_stream(e, arn) for e in endpoints]
        records = seen[0]
        for other in seen[1:]:
            assert [r["dynamodb"]["SequenceNumber"] for r in other] == \
                [r["dynamodb"]["SequenceNumber"] for r in records]
        by_key: dict[str, list[dict]] = {}
        for r in records:
            by_key.setdefault(r["dynamodb"]["Keys"]["pk"]["S"], []).append(r)
        for counter in range(HOT_COUNTERS):
            changes = by_key.pop(f"hot{counter}", [])
            new = [int(r["dynamodb"]["NewImage"]["n"]["N"]) for r in changes]
            assert new == list(range(1, increments[counter] + 1)), counter
            old = [int(r["dynamodb"].get("OldImage", {}).get("n", {}).get("N", 0))
                   for r in changes]
            assert old == list(range(0, increments[counter])), counter
        for key, writes in own_writes.items():
            # A delete of a missing item, or a put of the same value, writes no record.
            expected, present = [], None
            for w in writes:
                if w == "delete":
                    if present is not None:
                        expected.append("delete")
                    present = None
                else:
                    if present != w:
                        expected.append(w)
                    present = w
            got = ["delete" if r["eventName"] == "REMOVE"
                   else f"put {r['dynamodb']['NewImage']['v']['N']}" for r in by_key.pop(key, [])]
            assert got == expected, key
        assert by_key == {}
        print(f"records={len(records)} hot_increments={increments}")
    finally:
        for srv in servers:
            srv.stop()
    # The stream's head numbers above its last record (and everything else holds).
    check_storage(tmp_path / "data-p0", conninfo)
