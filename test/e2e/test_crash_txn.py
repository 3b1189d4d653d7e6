"""kill -9 while transactions, conditional updates and TTL expiry run together.

A table with a GSI and TTL enabled. Each round starts a server on the same data dir, runs writer
threads doing
  * TransactWriteItems of two items that carry the same transaction id (never expiring),
  * conditional counter updates (SET n = n + 1 only if n still holds the value last seen),
  * puts of items whose TTL is already past or a second away, so the sweeper deletes while the
    load runs,
SIGKILLs the server at a seeded random moment, restarts it and checks:
  * an acknowledged transaction is whole; an unacknowledged one is whole or absent, never half;
  * each counter equals its last acknowledged value, or that plus one when the last update was
    not acknowledged (a conditional update is applied once or not at all);
  * after a clean stop, `ttlstore check` finds the expiry index, the GSI entries and the stats in
    step with the items.
"""
from __future__ import annotations

import os
import random
import threading
import time

from botocore.exceptions import BotoCoreError, ClientError

from e2e_util import check_data_dir, make_client

TABLE = "crash_txn"
THREADS = 3
LOAD_SECONDS = 3.0
# TTLSTORE_CRASH_SEED runs other kill moments and operation mixes (soak runs in a loop).
SEED = int(os.environ.get("TTLSTORE_CRASH_SEED", 7_2026_11))


class Log:
    def __init__(self):
        self.lock = threading.Lock()
        self.txns = {}        # txn id -> True (acknowledged) / False (outcome unknown)
        self.counters = {}    # counter key -> (last acknowledged value, last update unacknowledged)
        self.errors = []


def _txn(client, log, prefix, i):
    tid = f"{prefix}-x{i}"
    with log.lock:
        log.txns[tid] = False
    items = [{"Put": {"TableName": TABLE, "Item": {
        "pk": {"S": f"{tid}-{side}"}, "txn": {"S": tid}, "g": {"S": f"g{i % 5}"},
        "pad": {"S": "t" * 200}}}} for side in ("a", "b")]
    client.transact_write_items(TransactItems=items)
    with log.lock:
        log.txns[tid] = True


def _bump(client, log, key):
    with log.lock:
        value, _ = log.counters.get(key, (0, False))
        log.counters[key] = (value, True)
    if value == 0:
        cond, names, values = "attribute_not_exists(n)", {"#n": "n"}, {":one": {"N": "1"}}
        update = "SET #n = :one, g = :g"
        values[":g"] = {"S": "ctr"}
    else:
        cond, names = "#n = :prev", {"#n": "n"}
        values = {":prev": {"N": str(value)}, ":one": {"N": "1"}}
        update = "SET #n = #n + :one"
    client.update_item(TableName=TABLE, Key={"pk": {"S": key}}, UpdateExpression=update,
                       ConditionExpression=cond, ExpressionAttributeNames=names,
                       ExpressionAttributeValues=values)
    with log.lock:
        log.counters[key] = (value + 1, False)


def _expiring(client, rng, prefix, i):
    exp = int(time.time()) + rng.choice([-5, -1, 1])
    client.put_item(TableName=TABLE, Item={"pk": {"S": f"{prefix}-e{i}"}, "g": {"S": "exp"},
                                           "exp": {"N": str(exp)}, "pad": {"S": "e" * 300}})


def writer(endpoint, prefix, seed, log, stop):
    rng = random.Random(seed)
    client = make_client(endpoint)
    counter = f"{prefix}-ctr"
    i = 0
    deadline = time.monotonic() + LOAD_SECONDS + 2
    while not stop.is_set() and time.monotonic() < deadline:
        i += 1
        r = rng.random()
        try:
            if r < 0.4:
                _txn(client, log, prefix, i)
            elif r < 0.8:
                _bump(client, log, counter)
            else:
                _expiring(client, rng, prefix, i)
        except ClientError as e:
            log.errors.append(str(e))
            return
        except BotoCoreError:
            return  # the server is gone: the last operation stays unacknowledged


def verify(client, log):
    half, lost = [], []
    for tid, acked in log.txns.items():
        got = [client.get_item(TableName=TABLE, Key={"pk": {"S": f"{tid}-{side}"}},
                               ConsistentRead=True).get("Item") for side in ("a", "b")]
        present = [g is not None and g["txn"]["S"] == tid for g in got]
        if present[0] != present[1]:
            half.append(tid)
        elif acked and not present[0]:
            lost.append(tid)
    assert not half, f"{len(half)} transactions half-applied, e.g. {half[:3]}"
    assert not lost, f"{len(lost)} acknowledged transactions lost, e.g. {lost[:3]}"
    for key, (value, pending) in log.counters.items():
        item = client.get_item(TableName=TABLE, Key={"pk": {"S": key}},
                               ConsistentRead=True).get("Item")
        n = int(item["n"]["N"]) if item else 0
        allowed = {value, value + 1} if pending else {value}
        assert n in allowed, f"counter {key} is {n}, expected one of {sorted(allowed)}"
        if pending:
            log.counters[key] = (n, False)  # the next round continues from what is there


def test_transactions_conditions_and_ttl_survive_kill_9(start_server, tmp_path):
    rng = random.Random(SEED)
    data = tmp_path / "crash"
    srv = start_server(data)
    client = make_client(srv.endpoint)
    client.create_table(
        TableName=TABLE, BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                              {"AttributeName": "g", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        GlobalSecondaryIndexes=[{"IndexName": "by_g",
                                 "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                                 "Projection": {"ProjectionType": "ALL"}}])
    client.update_time_to_live(TableName=TABLE, TimeToLiveSpecification={
        "Enabled": True, "AttributeName": "exp"})
    log = Log()
    for round_no in range(3):
        if round_no:
            srv = start_server(data)
        stop = threading.Event()
        threads = [threading.Thread(target=writer, daemon=True,
                                    args=(srv.endpoint, f"r{round_no}w{t}", rng.randrange(2**32),
                                          log, stop)) for t in range(THREADS)]
        for t in threads:
            t.start()
        time.sleep(rng.uniform(0.7, LOAD_SECONDS - 0.3))
        srv.kill()
        stop.set()
        for t in threads:
            t.join(timeout=30)
            assert not t.is_alive(), "writer hung after the server was killed"
        assert not log.errors, log.errors[:3]
        srv = start_server(data)
        verify(make_client(srv.endpoint), log)
        assert srv.stop() == 0
        check_data_dir(data)
    assert sum(log.txns.values()) > 0 and any(v for v, _ in log.counters.values())
