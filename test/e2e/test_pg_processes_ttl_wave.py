"""A TTL wave deleted by three ttlstore processes on one PostgreSQL database together (issue 34),
one of them killed (kill -9) in the middle of it.

The sweeper's work is split into shards by item key (src/ttl/sweep_shards.h), each a lease unit
(`ttl/sweep/<k>`) that the live processes share out evenly (LeaseKeeper::Share): every process
deletes the items of its shards, and once a killed process's leases lapse the others take its
shards over and finish its part. Every item must be deleted exactly once: the table and its GSI
end empty, the stream holds one INSERT and exactly one REMOVE per item, each REMOVE the TTL
service's (userIdentity Service / dynamodb.amazonaws.com), and `ttlstore check` is clean.

Items are loaded through all three processes with one due time a few seconds after the load is
expected to end (a wave: everything due at once). The victim and the point of the kill (a share
of the wave) come from the seed; TTLSTORE_WAVE_ITEMS sets the wave's size (100k in CI),
TTLSTORE_WAVE_SEEDS how many seeds run.

Runs on its own throwaway PostgreSQL 15 (scripts/pg-server.sh), like test_pg_processes.py.
"""
from __future__ import annotations

import os
import random
import re
import time

import pytest

from dataplane_util import pages
from e2e_util import make_client, metric, metrics_text, run_clients, unique_name, \
    wait_until
from pg_util import check_storage, private_pg, schema_conninfo, serve_on
from test_pg_processes_streams import _read_stream

PROCESSES = 3
LEASE_SECONDS = 1.5
WAVE = int(os.environ.get("TTLSTORE_WAVE_ITEMS", 100_000))
SEED = int(os.environ.get("TTLSTORE_WAVE_SEED", 20261128))
SEEDS = [SEED + i for i in range(int(os.environ.get("TTLSTORE_WAVE_SEEDS", 1)))]
LOADERS = 6
SERVICE = {"Type": "Service", "PrincipalId": "dynamodb.amazonaws.com"}


@pytest.fixture(scope="module")
def pg():
    yield from private_pg()


def _held_shards(srv) -> set[str]:
    text = metrics_text(srv)
    return {m.group(1) for m in re.finditer(
        r'^ttlstore_lease_held\{unit="(ttl/sweep/\d+)"\} 1$', text, re.M)}


def _count(ddb, name: str, index: str | None = None) -> int:
    kwargs = {"TableName": name, "Select": "COUNT"}
    if index:
        kwargs["IndexName"] = index
    else:
        kwargs["ConsistentRead"] = True
    return sum(page["Count"] for page in pages(ddb.scan, **kwargs))


@pytest.mark.parametrize("seed", SEEDS)
def test_a_ttl_wave_is_deleted_by_three_processes_together_each_item_once(pg, tmp_path, seed):
    rng = random.Random(seed)
    conninfo = schema_conninfo(pg, f"wave{seed}")
    servers = [serve_on(tmp_path, conninfo, f"w{i}", "--lease-seconds", str(LEASE_SECONDS))
               for i in range(PROCESSES)]
    try:
        endpoints = [s.endpoint for s in servers]
        ddb = make_client(endpoints[0])
        name = unique_name("wave")
        desc = ddb.create_table(
            TableName=name, BillingMode="PAY_PER_REQUEST",
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                  {"AttributeName": "g", "AttributeType": "S"}],
            GlobalSecondaryIndexes=[{"IndexName": "by_g",
                                     "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                                     "Projection": {"ProjectionType": "KEYS_ONLY"}}],
            StreamSpecification={"StreamEnabled": True,
                                 "StreamViewType": "KEYS_ONLY"})["TableDescription"]
        ddb.update_time_to_live(TableName=name, TimeToLiveSpecification={
            "Enabled": True, "AttributeName": "exp"})
        for e in endpoints:
            c = make_client(e)
            wait_until(lambda: c.describe_time_to_live(TableName=name)[
                "TimeToLiveDescription"]["TimeToLiveStatus"] == "ENABLED", 10, "TTL seen by all")
        # The shards are spread: every process holds some, none holds one twice.
        wait_until(lambda: all(len(_held_shards(s)) >= 4 for s in servers), 15,
                   "the sweeper's shards spread over the processes")
        held = [_held_shards(s) for s in servers]
        assert sum(len(h) for h in held) == 16 and len(set().union(*held)) == 16, held

        # The load, through every process; all items due at one second after it.
        start = time.time()
        due = int(start) + max(15, WAVE // 4000)
        per_loader = WAVE // LOADERS

        def loader(n: int) -> None:
            clients = [make_client(e) for e in endpoints]
            first = n * per_loader
            last = WAVE if n == LOADERS - 1 else first + per_loader
            for b, lo in enumerate(range(first, last, 25)):
                requests = [{"PutRequest": {"Item": {
                    "pk": {"S": f"w{i:07d}"}, "g": {"S": f"g{i % 97}"},
                    "exp": {"N": str(due)}}}} for i in range(lo, min(lo + 25, last))]
                pending = {name: requests}
                while pending:
                    pending = clients[(n + b) % PROCESSES].batch_write_item(
                        RequestItems=pending)["UnprocessedItems"]

        run_clients(LOADERS, loader, timeout=600)
        loaded = time.time() - start
        print(f"seed={seed} loaded {WAVE} items in {loaded:.1f} s "
              f"({'before' if time.time() < due else 'after'} they fell due)")

        # Kill one process a seeded share into the wave.
        victim = rng.randrange(PROCESSES)
        share = rng.uniform(0.05, 0.4)
        wait_until(lambda: metric(servers[victim], "ttlstore_ttl_deleted_items_total") >=
                   share * WAVE / PROCESSES, 300, "the victim deleting its part", interval=0.02)
        victim_shards = _held_shards(servers[victim])
        victim_deleted = metric(servers[victim], "ttlstore_ttl_deleted_items_total")
        servers[victim].kill()
        killed_at = time.monotonic()
        survivors = [s for i, s in enumerate(servers) if i != victim]

        # Its shards pass to the others once its leases lapse.
        def taken() -> bool:
            return victim_shards <= set().union(*(_held_shards(s) for s in survivors))
        wait_until(taken, 4 * LEASE_SECONDS + 5, "the killed process's shards taken over")
        takeover = time.monotonic() - killed_at
        assert sum(metric(s, "ttlstore_lease_takeovers_total") for s in survivors) >= \
            len(victim_shards)

        wait_until(lambda: _count(ddb, name) == 0, 600, "every expired item deleted",
                   interval=1)
        emptied = time.time() - due
        assert _count(ddb, name, "by_g") == 0
        deleted = [metric(s, "ttlstore_ttl_deleted_items_total") for s in survivors]
        print(f"victim=w{victim} killed after deleting {victim_deleted:.0f} "
              f"(holding {len(victim_shards)} shards); taken over in {takeover:.2f} s "
              f"(lease {LEASE_SECONDS} s); survivors deleted {deleted}; table empty "
              f"{emptied:.1f} s after the due time")
        assert all(d > 0 for d in deleted)

        # The stream: each item once in, once out, and out by the TTL service.
        records = _read_stream(survivors[0].endpoint, desc["LatestStreamArn"])
        events: dict[str, list[str]] = {}
        for r in records:
            events.setdefault(r["dynamodb"]["Keys"]["pk"]["S"], []).append(r["eventName"])
            if r["eventName"] == "REMOVE":
                assert r.get("userIdentity") == SERVICE, r
        assert len(events) == WAVE
        wrong = {k: v for k, v in events.items() if v != ["INSERT", "REMOVE"]}
        assert wrong == {}, list(wrong.items())[:5]
    finally:
        for s in servers:
            if s.alive():
                s.stop()
    check_storage(tmp_path / "data-w0", conninfo)
