"""Failover of the database under load (issue 34): a PostgreSQL primary with a synchronous standby
made by pg_basebackup (scripts/pg-server.sh standby), two ttlstore processes on a multi-host
connection string with target_session_attrs=read-write, clients writing through both. The primary
is killed (kill -9 of its postmaster) and the standby promoted a seeded moment later; the ttlstore
processes carry on by themselves, on the new primary, without a restart.

What must hold afterwards:
- every acknowledged write is there: the standby had each commit's WAL before the primary
  acknowledged it (synchronous_standby_names = '*', synchronous_commit on);
- no write is applied twice: each writer puts a new item, then adds 1 to it on condition that
  it is still 1 (a retry of an update whose answer was lost sees its own effect and fails its
  condition: applied once), and hot counters incremented without a condition end between the
  acknowledged increments and those plus the ones answered with an error (an error never hides
  a double apply: the clients do not retry an increment);
- requests caught in the switch are answered with a retryable error (HTTP 5xx), never a success
  that was not committed, and writes go on through both processes once the standby is promoted;
- `ttlstore check` is clean on the new primary.

The seed sets when the primary dies and how long the promotion takes to come (TTLSTORE_FAILOVER
_SEEDS: how many seeds run).
"""
from __future__ import annotations

import os
import random
import threading
import time

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError

from dataplane_util import all_items
from e2e_util import ACCESS_KEY, REGION, SECRET_KEY, create_table, make_client, unique_name, \
    wait_until
from pg_util import check_storage, pg_ctl, pg_script, private_pg, serve_on

PROCESSES = 2
WRITERS = 6
HOT_COUNTERS = 2
SEED = int(os.environ.get("TTLSTORE_FAILOVER_SEED", 20261128))
SEEDS = [SEED + i for i in range(int(os.environ.get("TTLSTORE_FAILOVER_SEEDS", 2)))]


@pytest.fixture
def pg():
    # A fresh primary per test: each test kills its primary and promotes its standby.
    yield from private_pg()


def _no_retry_client(endpoint: str):
    """A client that never retries: each error reaches the test (boto3 would otherwise repeat
    an increment whose first answer was lost, a double apply of the client's own making)."""
    return boto3.session.Session().client(
        "dynamodb", endpoint_url=endpoint, region_name=REGION, aws_access_key_id=ACCESS_KEY,
        aws_secret_access_key=SECRET_KEY,
        config=Config(retries={"total_max_attempts": 1}, connect_timeout=5, read_timeout=30))


@pytest.mark.parametrize("seed", SEEDS)
def test_acknowledged_writes_survive_promoting_a_synchronous_standby(pg, tmp_path, seed):
    rng = random.Random(seed)
    standby_port = pg_script("standby", pg["TTLSTORE_PG_DIR"]).split("'")[1]
    primary_port = pg["TTLSTORE_TEST_PG"].split("port=")[1].split()[0]
    conninfo = (f"host=127.0.0.1,127.0.0.1 port={primary_port},{standby_port} user=ttlstore "
                f"dbname=ttlstore target_session_attrs=read-write")
    servers = [serve_on(tmp_path, conninfo, f"f{seed}-{i}") for i in range(PROCESSES)]
    try:
        endpoints = [s.endpoint for s in servers]
        name = unique_name("failover")
        create_table(make_client(endpoints[0]), name)
        wait_until(lambda: all(make_client(e).describe_table(TableName=name) for e in endpoints),
                   10, "the table seen by both processes")
        lock = threading.Lock()
        acked: set[str] = set()  # items put and updated once, acknowledged
        counters = {"acked": [0] * HOT_COUNTERS, "errors": [0] * HOT_COUNTERS}
        errors: list[str] = []
        refused: list[str] = []
        after_promotion = [0]
        promoted = threading.Event()
        stop = threading.Event()

        def note_error(e: Exception) -> None:
            if isinstance(e, ClientError):
                status = e.response["ResponseMetadata"]["HTTPStatusCode"]
                with lock:
                    errors.append(e.response["Error"]["Code"])
                    if status < 500:
                        refused.append(str(e))  # not retryable: asserted empty below
            else:
                with lock:
                    errors.append(type(e).__name__)

        def writer(w: int) -> None:
            clients = [_no_retry_client(e) for e in endpoints]
            n = 0
            while not stop.is_set():
                c = clients[(w + n) % PROCESSES]
                key = f"w{w}-{n:05d}"
                n += 1
                counter = f"hot{n % HOT_COUNTERS}"
                done_put = False
                try:
                    c.update_item(TableName=name, Key={"pk": {"S": counter}},
                                  UpdateExpression="ADD n :one",
                                  ExpressionAttributeValues={":one": {"N": "1"}})
                    with lock:
                        counters["acked"][n % HOT_COUNTERS] += 1
                except (ClientError, BotoCoreError) as e:
                    note_error(e)
                    with lock:
                        counters["errors"][n % HOT_COUNTERS] += 1
                # The put may be repeated (it writes the same item); the update is repeated
                # only through its condition.
                for attempt in range(200):
                    if stop.is_set():
                        return
                    try:
                        if not done_put:
                            c.put_item(TableName=name,
                                       Item={"pk": {"S": key}, "n": {"N": "1"}})
                        done_put = True
                        c.update_item(TableName=name, Key={"pk": {"S": key}},
                                      UpdateExpression="ADD n :one", ConditionExpression="n = :one",
                                      ExpressionAttributeValues={":one": {"N": "1"}})
                        break
                    except ClientError as e:
                        if e.response["Error"]["Code"] == "ConditionalCheckFailedException":
                            break  # an earlier attempt was applied, its answer lost
                        note_error(e)
                    except BotoCoreError as e:
                        note_error(e)
                    c = clients[(w + n + attempt + 1) % PROCESSES]
                    time.sleep(0.05)
                else:
                    continue
                with lock:
                    acked.add(key)
                    if promoted.is_set():
                        after_promotion[0] += 1

        threads = [threading.Thread(target=writer, args=(w,), daemon=True)
                   for w in range(WRITERS)]
        for t in threads:
            t.start()
        wait_until(lambda: len(acked) >= 2 * WRITERS, 30, "writes before the crash")
        time.sleep(rng.uniform(0, 1.0))
        before = len(acked)
        pg_ctl("crash", pg)  # the primary dies
        down = rng.uniform(0.1, 1.0)
        time.sleep(down)
        promote_start = time.monotonic()
        pg_script("promote", pg["TTLSTORE_PG_DIR"])
        promoted.set()
        wait_until(lambda: after_promotion[0] >= 2 * WRITERS, 60,
                   "writes through both processes after the promotion")
        resumed = time.monotonic() - promote_start
        time.sleep(0.5)
        stop.set()
        for t in threads:
            t.join(timeout=60)
        assert not any(t.is_alive() for t in threads)
        assert refused == [], f"answers that are not retryable during the switch: {refused[:3]}"

        found = {i["pk"]["S"]: int(i["n"]["N"])
                 for i in all_items(make_client(endpoints[1]).scan, TableName=name,
                                    ConsistentRead=True)}
        lost = sorted(k for k in acked if k not in found)
        assert not lost, f"{len(lost)} acknowledged writes lost, e.g. {lost[:5]}"
        twice = sorted(k for k, v in found.items() if k.startswith("w") and v > 2)
        assert not twice, f"updates applied twice: {twice[:5]}"
        assert all(found[k] == 2 for k in acked)
        for i in range(HOT_COUNTERS):
            value = found.get(f"hot{i}", 0)
            assert counters["acked"][i] <= value <= counters["acked"][i] + counters["errors"][i], \
                (i, value, counters)
        print(f"seed={seed} acknowledged={len(acked)} ({before} before the crash) "
              f"primary down {down:.2f} s before the promotion; writes through both processes "
              f"{resumed:.2f} s after it; errors={len(errors)} ({sorted(set(errors))}); "
              f"hot counters acked={counters['acked']} errors={counters['errors']}")
        assert before > 0
    finally:
        for s in servers:
            if s.alive():
                s.stop()
    check_storage(tmp_path / f"data-f{seed}-0", conninfo)
