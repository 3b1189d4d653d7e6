"""kill -9 under concurrent write load: every acknowledged write survives, nothing else appears.

Each round starts a server on the same data dir, runs 4 writer threads (PutItem of distinct keys,
and DeleteItem of some of their own acknowledged keys), SIGKILLs the server at a seeded random
moment, restarts it and checks:
  * every acknowledged put whose key was never the target of a delete is present, exact value;
  * every acknowledged delete is absent;
  * keys whose last operation was not acknowledged may be either way;
  * ItemCount equals the number of items actually present (counted by GetItem over every key).
"""
from __future__ import annotations

import os
import random
import threading
import time

import pytest
from botocore.exceptions import BotoCoreError, ClientError

from e2e_util import check_data_dir, create_table, make_client

TABLE = "crash_items"
THREADS = 4
LOAD_SECONDS = 3.0
# TTLSTORE_CRASH_SEED runs other kill moments and write mixes (soak runs in a loop).
SEED = int(os.environ.get("TTLSTORE_CRASH_SEED", 20261122))


class KeyLog:
    """What each writer knows about its keys: value if the put was acknowledged, etc."""

    def __init__(self):
        self.lock = threading.Lock()
        self.acked_put = {}       # key -> item, acknowledged put and no delete attempted since
        self.acked_delete = set()  # keys whose delete was acknowledged (after an acked put)
        self.uncertain = set()    # last operation on the key was not acknowledged
        self.attempted = set()    # every key any request ever named
        self.errors = []          # service errors (the server answered, but not with success)


def item_for(key: str, rng: random.Random) -> dict:
    # Numbers are written as the service returns them (no "2e-05" forms), so an item read back
    # equals the item written.
    size = rng.choice([1, 10, 100, 1000, 5000])
    return {"pk": {"S": key}, "payload": {"S": f"{key}:" + "v" * size},
            "n": {"N": str(rng.randint(-10**12, 10**12))},
            "b": {"B": rng.randbytes(rng.randint(0, 64))},
            "m": {"M": {"l": {"L": [{"N": str(rng.randrange(10**9)) + ".25"},
                                          {"BOOL": rng.random() < 0.5}]}}}}


def writer(endpoint: str, prefix: str, seed: int, log: KeyLog, stop: threading.Event):
    rng = random.Random(seed)
    client = make_client(endpoint)
    mine = []
    i = 0
    deadline = time.monotonic() + LOAD_SECONDS + 2
    while not stop.is_set() and time.monotonic() < deadline:
        if mine and rng.random() < 0.25:
            key = mine.pop(rng.randrange(len(mine)))
            with log.lock:
                log.acked_put.pop(key, None)
                log.uncertain.add(key)
            try:
                client.delete_item(TableName=TABLE, Key={"pk": {"S": key}})
            except ClientError as e:
                log.errors.append(f"DeleteItem {key}: {e}")
                return
            except BotoCoreError:
                return  # the server is gone; this delete stays uncertain
            with log.lock:
                log.uncertain.discard(key)
                log.acked_delete.add(key)
            continue
        key = f"{prefix}-{i:06d}"
        i += 1
        item = item_for(key, rng)
        with log.lock:
            log.attempted.add(key)
            log.uncertain.add(key)
        try:
            client.put_item(TableName=TABLE, Item=item)
        except ClientError as e:
            log.errors.append(f"PutItem {key}: {e}")
            return
        except BotoCoreError:
            return  # the server is gone; this put stays uncertain
        with log.lock:
            log.uncertain.discard(key)
            log.acked_put[key] = item
        mine.append(key)


def run_round(srv, round_no: int, rng: random.Random, log: KeyLog) -> int:
    stop = threading.Event()
    before = len(log.acked_put) + len(log.acked_delete)
    threads = [threading.Thread(target=writer, daemon=True,
                                args=(srv.endpoint, f"r{round_no}t{t}", rng.randrange(2**32),
                                      log, stop))
               for t in range(THREADS)]
    for t in threads:
        t.start()
    time.sleep(rng.uniform(0.5, LOAD_SECONDS - 0.5))
    srv.kill()  # SIGKILL mid-load
    stop.set()
    for t in threads:
        t.join(timeout=30)
        assert not t.is_alive(), "writer thread hung after the server was killed"
    return len(log.acked_put) + len(log.acked_delete) - before


def verify(client, log: KeyLog):
    present = 0
    missing, wrong, resurrected = [], [], []
    for key in sorted(log.attempted):
        got = client.get_item(TableName=TABLE, Key={"pk": {"S": key}},
                              ConsistentRead=True).get("Item")
        present += got is not None
        if key in log.uncertain:
            continue
        if key in log.acked_delete:
            if got is not None:
                resurrected.append(key)
        elif key in log.acked_put:
            if got is None:
                missing.append(key)
            elif got != log.acked_put[key]:
                wrong.append(key)
    assert not missing, f"{len(missing)} acknowledged puts lost, e.g. {missing[:5]}"
    assert not wrong, f"{len(wrong)} items with a different value, e.g. {wrong[:5]}"
    assert not resurrected, f"{len(resurrected)} acknowledged deletes undone: {resurrected[:5]}"
    return present


@pytest.mark.parametrize("sync", [False, True], ids=["default", "sync"])
def test_acknowledged_writes_survive_kill_9_under_concurrent_load(start_server, tmp_path, sync):
    rng = random.Random(SEED + sync)
    data = tmp_path / "crash"
    extra = ["--sync"] if sync else []
    srv = start_server(data, extra)
    create_table(make_client(srv.endpoint), TABLE)
    log = KeyLog()
    rounds = 2 if sync else 3
    for round_no in range(rounds):
        if round_no:
            srv = start_server(data, extra)
        acked = run_round(srv, round_no, rng, log)
        assert not log.errors, log.errors[:5]
        assert not srv.alive()
        assert acked > 0, "no write was acknowledged before the kill"
        print(f"round {round_no}: {acked} writes acknowledged, {len(log.attempted)} keys so far")
        srv = start_server(data, extra)
        client = make_client(srv.endpoint)
        present = verify(client, log)
        assert present >= len(log.acked_put) > 0
        count = client.describe_table(TableName=TABLE)["Table"]["ItemCount"]
        assert count == present, f"ItemCount {count} but {present} items present"
        assert srv.stop() == 0
        check_data_dir(data)  # stats, keys and every index agree with the items
    assert len(log.acked_delete) > 0
