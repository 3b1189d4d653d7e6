"""One-shot background work through several ttlstore processes on one PostgreSQL database
(issue 34): a GSI backfill and a GSI drop are each a lease unit (`index/<table>/<index>/build`
or `/drop`, src/index/index_builder.h); every process finds the pending ones in its catalog, so a
kill -9 of the process running one hands it to another within the lease time, which finishes
it: the index ACTIVE and complete (or gone with every entry), `ttlstore check` clean.

The kill lands at a seeded moment after the first process took the unit; if the job was done by
then (a fast machine), the test says so and still checks the result.

Runs on its own throwaway PostgreSQL 15 (scripts/pg-server.sh), like test_pg_processes.py.
"""
from __future__ import annotations

import os
import random
import re
import time

import pytest

from e2e_util import make_client, wait_until
from pg_util import check_storage, private_pg, schema_conninfo, serve_on
from test_crash_jobs import GSI, TABLE, create_table, fill, index_count, index_status, item

LEASE_SECONDS = 1.5
ITEMS = int(os.environ.get("TTLSTORE_CRASH_ITEMS", 6000))
SEED = int(os.environ.get("TTLSTORE_CRASH_SEED", 20261128))
SEEDS = [SEED + i for i in range(int(os.environ.get("TTLSTORE_CRASH_SEEDS", 2)))]


@pytest.fixture(scope="module")
def pg():
    yield from private_pg()


def _kill_when_holding(srv, unit_re: str, rng: random.Random) -> str:
    """Waits until `srv` holds a unit matching `unit_re`, then kill -9 after 0-100 ms; returns
    what the log says the job had reached."""
    wait_until(lambda: re.search(r"event=lease_held unit=" + unit_re, srv.log_text()), 30,
               "the first process took the job")
    time.sleep(rng.uniform(0, 0.1))
    srv.kill()
    done = re.search(r"event=index_(backfill|drop)_done", srv.log_text())
    return "finished before the kill" if done else "killed mid-job"


def _two_processes(pg, tmp_path, schema: str):
    """Two servers on a new schema of `pg`: (conninfo, first, second)."""
    conninfo = schema_conninfo(pg, schema)
    return (conninfo,) + tuple(serve_on(tmp_path, conninfo, name, "--lease-seconds",
                                        str(LEASE_SECONDS)) for name in ("a", "b"))


@pytest.mark.parametrize("seed", SEEDS)
def test_a_gsi_backfill_left_by_a_killed_process_is_finished_by_another(pg, tmp_path, seed):
    rng = random.Random(seed)
    conninfo, first, second = _two_processes(pg, tmp_path, f"jobs_build_{seed}")
    try:
        c1, c2 = make_client(first.endpoint), make_client(second.endpoint)
        create_table(c1)
        fill(c1, [item(i, None, g=i % 3 != 0) for i in range(ITEMS)])
        c1.update_table(TableName=TABLE,
                        AttributeDefinitions=[{"AttributeName": "g", "AttributeType": "S"}],
                        GlobalSecondaryIndexUpdates=[{"Create": GSI}])
        state = _kill_when_holding(first, r"index/\d+/\d+/build", rng)
        killed = time.monotonic()
        wait_until(lambda: index_status(c2) == "ACTIVE", 60, "the other process finished it")
        took = time.monotonic() - killed
        with_g = c2.scan(TableName=TABLE, Select="COUNT", ConsistentRead=True,
                         FilterExpression="attribute_exists(g)")["Count"]
        assert with_g == ITEMS - len(range(0, ITEMS, 3))
        assert index_count(c2, "by_g") == with_g
        if state == "killed mid-job":
            assert re.search(r"event=lease_held unit=index/\d+/\d+/build generation=\d+ "
                             r"took_over=true", second.log_text())
        print(f"seed={seed} {state}; ACTIVE {took:.1f} s after the kill")
    finally:
        first.stop()
        second.stop()
    out = check_storage(tmp_path / "data-b", conninfo)
    assert f"{with_g} index entries" in out


@pytest.mark.parametrize("seed", SEEDS)
def test_a_gsi_drop_left_by_a_killed_process_is_finished_by_another(pg, tmp_path, seed):
    rng = random.Random(seed)
    conninfo, first, second = _two_processes(pg, tmp_path, f"jobs_drop_{seed}")
    try:
        c1, c2 = make_client(first.endpoint), make_client(second.endpoint)
        create_table(c1, gsi=True)
        fill(c1, [item(i, None) for i in range(ITEMS)])
        c1.update_table(TableName=TABLE, GlobalSecondaryIndexUpdates=[{"Delete": {
            "IndexName": "by_g"}}])
        state = _kill_when_holding(first, r"index/\d+/\d+/drop", rng)
        # Gone from the table at once (in the other process within its catalog refresh).
        wait_until(lambda: index_status(c2) is None, 10, "the index gone from the table")
        if state == "killed mid-job":
            wait_until(lambda: "event=index_drop_done" in second.log_text(), 60,
                       "the other process finished the drop")
            assert re.search(r"event=lease_held unit=index/\d+/\d+/drop generation=\d+ "
                             r"took_over=true", second.log_text())
        print(f"seed={seed} {state}")
    finally:
        first.stop()
        second.stop()
    # Every entry removed: the check finds none, and the table whole.
    out = check_storage(tmp_path / "data-b", conninfo)
    assert "0 index entries" in out
