"""kill -9 during a DynamoDB vector index backfill (issue 32), then restart: the index completes.

UpdateTable's VectorIndexUpdates Create on a populated table starts the same resumable backfill a
GSI's does (docs/background-jobs.md, "Index backfill"). The test SIGKILLs the server at a seeded
random moment of it (before, during or after), runs `ttlstore check` on the killed data dir (each
vector index entry is its item's, stats equal entries), restarts, repeats the request if the
kill came first, waits for ACTIVE, checks SearchVectors against a brute force over the items and
the index's ItemCount, then stops the server and runs `ttlstore check` again.

The pinned botocore has no vector index shapes, so the vector requests are raw (unsigned: the
server runs without --credentials on loopback).
"""
from __future__ import annotations

import json
import math
import os
import random
import re
import threading
import time

import pytest

from e2e_util import check_data_dir, make_client, raw_call

SEED = int(os.environ.get("TTLSTORE_CRASH_SEED", 20261127))
SEEDS = [SEED + i for i in range(int(os.environ.get("TTLSTORE_CRASH_SEEDS", 2)))]
ITEMS = int(os.environ.get("TTLSTORE_CRASH_ITEMS", 4000))
DIM = 8
TABLE = "vecjobs"
TARGET = "DynamoDB_20120810."
INDEX = {"IndexName": "by_emb", "VectorAttribute": {"AttributeName": "emb"}, "Dimensions": DIM,
         "DistanceFunction": "EUCLIDEAN", "Projection": {"ProjectionType": "KEYS_ONLY"}}


def call(port: int, op: str, body: dict) -> tuple[int, dict]:
    status, _, payload = raw_call(port, TARGET + op, body)
    return status, json.loads(payload or b"{}")


def check(data_dir) -> str:
    """`ttlstore check` of the data (the server's database on PostgreSQL): its summary line."""
    return check_data_dir(data_dir).strip().splitlines()[-1]


def vector_index(port: int) -> dict | None:
    status, body = call(port, "DescribeTable", {"TableName": TABLE})
    assert status == 200, body
    for ix in body["Table"].get("VectorIndexes", []):
        if ix["IndexName"] == "by_emb":
            return ix
    return None


def vec(rng: random.Random) -> list[float]:
    # float32-exact values (multiples of 1/1024), so the server's ranking and ours agree exactly.
    return [rng.randrange(-1024, 1025) / 1024 for _ in range(DIM)]


def as_list(v: list[float]) -> dict:
    return {"L": [{"N": repr(x)} for x in v]}


def port_of(srv) -> int:
    return int(re.search(r":(\d+)$", srv.endpoint).group(1))


@pytest.mark.parametrize("seed", SEEDS)
def test_vector_backfill_killed(start_server, tmp_path, seed):
    rng = random.Random(seed)
    data = tmp_path / "data"
    srv = start_server(data)
    client = make_client(srv.endpoint)
    client.create_table(TableName=TABLE, BillingMode="PAY_PER_REQUEST",
                        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
    vectors = {}
    items = []
    for i in range(ITEMS):
        pk = f"k{i:06d}"
        if i % 10 == 0:  # a tenth without a vector: not in the index
            items.append({"pk": {"S": pk}})
            continue
        vectors[pk] = vec(rng)
        items.append({"pk": {"S": pk}, "emb": as_list(vectors[pk])})
    for j in range(0, len(items), 25):
        client.batch_write_item(RequestItems={TABLE: [{"PutRequest": {"Item": it}}
                                                      for it in items[j:j + 25]]})
    port = port_of(srv)
    started = time.monotonic()

    def create():
        try:
            call(port, "UpdateTable", {"TableName": TABLE, "VectorIndexUpdates": [{"Create": INDEX}]})
        except OSError:
            pass  # the kill cut it short
    t = threading.Thread(target=create, daemon=True)
    t.start()
    delay = rng.uniform(0, 0.15 * ITEMS / 4000)
    time.sleep(max(0.0, started + delay - time.monotonic()))
    srv.kill()
    t.join(timeout=30)
    check(data)

    srv = start_server(data)
    port = port_of(srv)
    before = vector_index(port)
    if before is None:
        status, body = call(port, "UpdateTable",
                            {"TableName": TABLE, "VectorIndexUpdates": [{"Create": INDEX}]})
        assert status == 200, body
    deadline = time.monotonic() + 60
    while (ix := vector_index(port))["IndexStatus"] != "ACTIVE":
        assert time.monotonic() < deadline, "the vector index did not become ACTIVE"
        time.sleep(0.05)
    assert ix["Backfilling"] is False
    assert ix["ItemCount"] == len(vectors)
    state = ("before" if before is None else
             "during" if before["IndexStatus"] == "CREATING" else "after")
    print(f"\ncrash-job vector-backfill seed={seed} kill_after_ms={delay * 1000:.0f} state={state}")

    for _ in range(3):
        q = vec(rng)
        status, body = call(port, "SearchVectors", {
            "TableName": TABLE, "IndexName": "by_emb", "TopK": 10,
            "SearchVector": as_list(q)["L"]})
        assert status == 200, body
        want = sorted(vectors, key=lambda pk: (sum((a - b) ** 2 for a, b in zip(q, vectors[pk])), pk))
        got = [r["Item"]["pk"]["S"] for r in body["SearchResults"]]
        assert got == want[:10]
        best = math.sqrt(sum((a - b) ** 2 for a, b in zip(q, vectors[want[0]])))
        assert abs(body["SearchResults"][0]["Score"] - best) < 1e-6
    assert srv.stop() == 0
    summary = check(data)
    m = re.search(r"(\d+) index entries", summary)
    assert m and int(m.group(1)) == len(vectors), summary
