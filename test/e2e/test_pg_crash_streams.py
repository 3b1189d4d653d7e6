"""kill -9 of PostgreSQL itself during the stream and PITR background jobs: shard rollover, the
stream trimmer and the PITR trimmer (docs/background-jobs.md).

test_pg_crash.py does this for the one-shot and batch jobs; this module, with the same private
cluster (pg_util.private_pg), the same crash (scripts/pg-server.sh crash, then resume) and the
same rules, covers the three looping jobs of streams and point-in-time recovery. The ttlstore
process is NOT restarted after the crash: it must reconnect by itself, answer writes during the
outage with the retryable error, and carry on; the trimmer test starts a second server by design
(the records its first one wrote are dated a day back before it starts).

Writers put new keys w<t>-<i> one after another with `attribute_not_exists(pk)`, and repeat a
put whose answer was the retryable error (or lost) until it is answered: the conditional check
failing on a repeat says the earlier attempt was applied. So every key a writer got to is
acknowledged, and has exactly one INSERT record if the server applies nothing twice.

  * Shard rollover (`--stream-shard-rollover-seconds 1`): the database dies while writers race
    rollovers, and writes go on across at least one more: every item has exactly one record, in
    one shard; numbers rise shard after shard and per writer; the lineage is unbroken and every
    closed shard has its EndingSequenceNumber.
  * Stream trimmer (`--stream-trim-interval-seconds 1`): a first server's records, dated a day
    back in the database while no server runs, expire a few seconds into a second server's run;
    the database dies while its passes drop them under new writes: every old record goes, every
    new one stays (exactly once), numbers never go back, old items are kept.
  * PITR trimmer (`--pitr-window-hours 0.0005`, a 1.8 s window, a pass a second): the database
    dies under updates of a PITR table: the change log (`ttlstore_pitr`, read in the database)
    keeps its window while writes go on and is empty a few seconds after the last one; every
    acknowledged update is in the table.

Then the server is stopped and `ttlstore check --storage` must find every invariant intact.
TTLSTORE_CRASH_SEED / TTLSTORE_CRASH_SEEDS as in test_pg_crash.py (CI: 1 seed per test here).
"""
from __future__ import annotations

import random
import threading
import time

import pytest
from botocore.exceptions import BotoCoreError, ClientError

from e2e_util import make_client, make_streams_client
from pg_util import psql
from test_crash_jobs import values_by_key, wait_until
from test_crash_shards import (FLAGS, TABLE, WRITERS, all_shards, check_writer_order,
                               read_everything, scan_keys, shard_no)
from test_pg_crash import RECOVER_S, SEEDS, crash_database, finish, retrying
from test_pg_crash import pg, serve  # noqa: F401  (fixtures)
from test_pitr import enable_pitr, pitr_desc

DAY_MS = 86_400_000


# --------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------


def answered(fn):
    """retrying(fn), also through a lost answer (a connection error): for idempotent requests."""
    deadline = time.monotonic() + RECOVER_S
    while True:
        try:
            return retrying(fn, max(0.0, deadline - time.monotonic()))
        except BotoCoreError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def put_new(client, key: str, i: int) -> int:
    """Puts the new item `key` until it is answered (through the outage, up to RECOVER_S);
    returns how many attempts failed. A conditional check failing on a repeat means an earlier
    attempt was applied and only its answer was lost; on the first attempt it is a bug."""
    deadline = time.monotonic() + RECOVER_S
    failed = 0
    while True:
        try:
            client.put_item(TableName=TABLE, Item={"pk": {"S": key}, "v": {"N": str(i)}},
                            ConditionExpression="attribute_not_exists(pk)")
            return failed
        except ClientError as e:
            if failed and e.response["Error"]["Code"] == "ConditionalCheckFailedException":
                return failed
            if e.response["ResponseMetadata"]["HTTPStatusCode"] < 500 or \
                    time.monotonic() > deadline:
                raise
        except BotoCoreError:
            if time.monotonic() > deadline:
                raise
        failed += 1
        time.sleep(0.05)


class Writers:
    """WRITERS threads putting new keys <prefix><t>-<i> one after another until stop():
    acked[key] = monotonic time of its answer; errors holds what a writer died of."""

    def __init__(self, endpoint: str, prefix: str = "w"):
        self.acked: dict[str, float] = {}
        self.errors: list[str] = []
        self.retries = 0
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._threads = [threading.Thread(target=self._work, args=(endpoint, f"{prefix}{t}"),
                                          daemon=True) for t in range(WRITERS)]
        for th in self._threads:
            th.start()

    def _work(self, endpoint: str, name: str) -> None:
        client = make_client(endpoint)
        i = 0
        try:
            while not self._stop.is_set():
                key = f"{name}-{i}"
                failed = put_new(client, key, i)
                with self._lock:
                    self.acked[key] = time.monotonic()
                    self.retries += failed
                i += 1
        except Exception as e:  # noqa: BLE001 (reported by stop())
            self.errors.append(f"{name}: {e!r}")

    def acked_after(self, t: float) -> int:
        with self._lock:
            return sum(1 for at in self.acked.values() if at > t)

    def stop(self) -> dict[str, float]:
        self._stop.set()
        for th in self._threads:
            th.join(timeout=RECOVER_S + 10)
        assert not any(th.is_alive() for th in self._threads), "a writer hangs"
        assert not self.errors, f"a writer failed: {self.errors}"
        return self.acked


def settled_stream(streams, arn: str, ok, timeout: float = 30):
    """read_everything and all_shards until ok(records, shards) (a sequence number whose write
    died with the database holds readers back until it is resolved, up to 10 s), or timeout;
    returns the last (records, shards) read either way, for the caller's assertions."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            records, shards = read_everything(streams, arn), all_shards(streams, arn)
            if ok(records, shards) or time.monotonic() > deadline:
                return records, shards
        except ClientError:  # a shard trimmed between DescribeStream and its read
            if time.monotonic() > deadline:
                raise
        time.sleep(0.3)


def check_acknowledged(records, items: set[str], acked) -> tuple[list[str], list[int]]:
    """Every acknowledged put is an item, every item was acknowledged, and no key has two
    records. Returns the records' keys and sequence numbers."""
    keys = [k for _, k, _ in records]
    seqs = [s for _, _, s in records]
    lost = sorted(set(acked) - items)
    assert not lost, f"{len(lost)} acknowledged writes lost, e.g. {lost[:5]}"
    assert items == set(acked), "an item no writer was answered for"
    assert len(set(keys)) == len(keys), "a record twice (or in two shards)"
    return keys, seqs


def stream_table(client) -> str:
    return client.create_table(
        TableName=TABLE, BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"},
    )["TableDescription"]["LatestStreamArn"]


# --------------------------------------------------------------------------------------------
# Shard rollover
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
def test_shard_rollover(pg, serve, tmp_path, seed):
    """Writers race one-second rollovers while the database dies; writes go on across at least
    one more rollover after it is back: nothing lost, nothing twice, lineage and numbers whole."""
    rng = random.Random(seed)
    srv, conninfo = serve("rollover", *FLAGS)
    client, streams = make_client(srv.endpoint), make_streams_client(srv.endpoint)
    arn = stream_table(client)
    writers = Writers(srv.endpoint)
    # Kill in [0.3, 2.5) s: spans at least one rollover.
    kill_ms = 300 + crash_database(pg, rng, 2.2, time.monotonic() + 0.3)
    back = time.monotonic()
    wait_until(lambda: writers.acked_after(back), RECOVER_S, "a write after the database is back")
    resumed = time.monotonic()
    time.sleep(2.5)  # more than two periods: at least one more rollover
    acked = writers.stop()

    items = retrying(lambda: scan_keys(client))
    records, shards = settled_stream(streams, arn, lambda r, s: (
        {k for _, k, _ in r} == items
        and all("EndingSequenceNumber" in x["SequenceNumberRange"] for x in s[:-1])))
    keys, seqs = check_acknowledged(records, items, acked)
    assert set(keys) == items, \
        f"items without their record: {sorted(items - set(keys))[:5]}, records without " \
        f"their item: {sorted(set(keys) - items)[:5]}"
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs), "numbers do not rise by shard"
    check_writer_order(records)
    numbers = [shard_no(s["ShardId"]) for s in shards]
    assert len(numbers) >= 3 and numbers == sorted(set(numbers)), numbers
    for prev, s in zip(shards, shards[1:]):
        assert s.get("ParentShardId") == prev["ShardId"], f"lineage broken at {s}"
    unended = [s["ShardId"] for s in shards[:-1] if "EndingSequenceNumber" not in
               s["SequenceNumberRange"]]
    assert not unended, f"closed shards without EndingSequenceNumber: {unended}"
    shard_of = {k: no for no, k, _ in records}
    after = [shard_of[k] for k, at in acked.items() if at > resumed]
    assert after and max(after) > min(after), "no rollover after the database came back"
    finish(srv, tmp_path / "data", conninfo)
    print(f"\npg-crash-streams rollover seed={seed} kill_after_ms={kill_ms:.0f} "
          f"shards={numbers} records={len(records)} retried_puts={writers.retries}")


# --------------------------------------------------------------------------------------------
# Stream trimmer
# --------------------------------------------------------------------------------------------

OLD_ITEMS = 2000
DUE_FROM_S = 2.0  # the aged records come due from this long after they are aged...
DUE_OVER_S = 3.0  # ...over this long, oldest first


def varint(n: int) -> bytes:
    out = bytearray()
    while n >= 0x80:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    return bytes(out + bytes([n]))


def age_records(conninfo: str, due_from_ms: int, due_over_ms: int) -> int:
    """Dates the stream records in the schema (no server running) as if written a day before
    they come due, the oldest at `due_from_ms`, the rest over `due_over_ms`, in number order: a
    record's value is format . event . flags . view type . created ms (varint) . ...
    (docs/formats.md, key space `streams`, keys `01`...), and it expires a day after its created
    ms. (Rewritten rather than written under `--clock-start-ms`: the records must come due at
    chosen moments of the second run, spread over `due_over_ms`.) Returns how many."""
    rows = [line.split("|") for line in psql(
        conninfo, "SELECT encode(k, 'hex'), encode(v, 'hex') FROM ttlstore_streams "
                  "WHERE k >= '\\x01'::bytea AND k < '\\x02'::bytea ORDER BY k").split()]
    values = []
    for i, (k, v) in enumerate(rows):
        v = bytes.fromhex(v)
        end = 4
        while v[end] & 0x80:
            end += 1
        created = due_from_ms - DAY_MS + i * due_over_ms // len(rows)
        values.append(f"('{k}', '{(v[:4] + varint(created) + v[end + 1:]).hex()}')")
    for at in range(0, len(values), 500):  # one statement per 500 rows: argv limits
        psql(conninfo, "UPDATE ttlstore_streams s SET v = decode(x.v, 'hex') FROM (VALUES "
                       + ", ".join(values[at:at + 500])
                       + ") AS x(k, v) WHERE s.k = decode(x.k, 'hex')")
    # A stream's head (keys `05`...: next number 8 BE . open shard 4 BE . its first record's
    # created ms 8 BE) dates its open shard by that first record: dated back with it.
    first_ms = (due_from_ms - DAY_MS).to_bytes(8, "big").hex()
    psql(conninfo, "UPDATE ttlstore_streams SET v = substring(v from 1 for 12) || "
                   f"decode('{first_ms}', 'hex') WHERE k >= '\\x05'::bytea AND "
                   "k < '\\x06'::bytea AND length(v) = 20")
    return len(rows)


@pytest.mark.parametrize("seed", SEEDS)
def test_stream_trimmer(pg, serve, start_server, tmp_path, seed):
    """A first server writes OLD_ITEMS records, then they are dated a day back so that they come
    due a few seconds into a second server's run on the same schema (a trim pass a second),
    under new writes; the database dies while its passes drop them: every old record goes,
    every new one stays, exactly once, and numbers never go back."""
    rng = random.Random(seed)
    first, conninfo = serve("trim")
    client = make_client(first.endpoint)
    arn = stream_table(client)
    for b in range(0, OLD_ITEMS, 25):
        client.batch_write_item(RequestItems={TABLE: [
            {"PutRequest": {"Item": {"pk": {"S": f"old-{i}"}}}} for i in range(b, b + 25)]})
    old = read_everything(make_streams_client(first.endpoint), arn)
    old_keys = {k for _, k, _ in old}
    assert len(old) == OLD_ITEMS and len(old_keys) == OLD_ITEMS
    old_max = max(s for _, _, s in old)
    assert first.stop() == 0
    aged = time.monotonic()
    assert age_records(conninfo, int((time.time() + DUE_FROM_S) * 1000),
                       int(DUE_OVER_S * 1000)) == OLD_ITEMS
    srv = start_server(tmp_path / "data", ["--storage", conninfo,
                                           "--stream-trim-interval-seconds", "1"])
    started = time.monotonic()
    due_in = aged + DUE_FROM_S - started
    client, streams = make_client(srv.endpoint), make_streams_client(srv.endpoint)
    writers = Writers(srv.endpoint)
    kill_ms = 1500 + crash_database(pg, rng, 4.0, started + 1.5)
    back = time.monotonic()
    wait_until(lambda: writers.acked_after(back), RECOVER_S, "a write after the database is back")

    def old_left() -> set[str]:
        try:
            return old_keys & {k for _, k, _ in read_everything(streams, arn)}
        except ClientError:  # the outage, or a shard trimmed between DescribeStream and its read
            return old_keys
    wait_until(lambda: not old_left(), RECOVER_S, "every expired record trimmed", interval=0.3)
    acked = writers.stop()
    items = retrying(lambda: scan_keys(client))
    assert old_keys <= items, "the trimmer touched items"
    new_items = items - old_keys
    records, shards = settled_stream(streams, arn, lambda r, s: {k for _, k, _ in r} == new_items)
    keys, seqs = check_acknowledged(records, new_items, acked)
    left = old_keys & set(keys)
    assert not left, f"{len(left)} expired records left, e.g. {sorted(left)[:5]}"
    assert set(keys) == new_items, \
        f"new items without their record (trimmed too early?): " \
        f"{sorted(new_items - set(keys))[:5]}"
    assert min(seqs) > old_max, "sequence numbers went back"
    assert shard_no(shards[0]["ShardId"]) > 0, "the emptied shard is still listed"
    assert seqs == sorted(seqs)
    check_writer_order(records)
    trimmed = [int(line.split("records=")[1].split()[0]) for line in
               srv.log_text().splitlines() if "event=stream_trim " in line]
    # A pass logs what it committed; one that lost its commit to the crash reports a failure.
    assert 0 < sum(trimmed) <= OLD_ITEMS, f"committed trims {trimmed} of {OLD_ITEMS} records"
    failed = srv.log_text().count("event=stream_trim_failed")
    finish(srv, tmp_path / "data", conninfo)
    print(f"\npg-crash-streams trimmer seed={seed} kill_after_ms={kill_ms:.0f} "
          f"due_from_ms={due_in * 1000:.0f} passes={trimmed} failed_passes={failed} "
          f"new_records={len(records)} retried_puts={writers.retries}")


# --------------------------------------------------------------------------------------------
# PITR trimmer
# --------------------------------------------------------------------------------------------

WINDOW_S = 1.8  # --pitr-window-hours 0.0005; a pass every second (the floor of window / 10)
PITR_KEYS = 10  # per writer


def pitr_log(conninfo: str) -> tuple[int, float | None]:
    """(records in the change log, the oldest one's time in s) read in the database: a record's
    key is table id (4 bytes) . time_ms (8 bytes, big-endian) . ... (storage/pitr_log.h)."""
    out = psql(conninfo, "SELECT count(*), coalesce((SELECT encode(substring(k from 5 for 8), "
                         "'hex') FROM ttlstore_pitr ORDER BY k LIMIT 1), '') "
                         "FROM ttlstore_pitr").strip()
    count, oldest = out.split("|")
    return int(count), int(oldest, 16) / 1000 if oldest else None


@pytest.mark.parametrize("seed", SEEDS)
def test_pitr_trimmer(pg, serve, tmp_path, seed):
    """Writers update the items of a PITR table while the database dies: once it is back the
    change log again holds the window and no more while the writes go on, it is empty a few
    seconds after the last write, and every acknowledged update is in the table."""
    rng = random.Random(seed)
    srv, conninfo = serve("pitrtrim", "--pitr-window-hours", "0.0005")
    assert psql(conninfo, "SHOW search_path").strip() == "pitrtrim"
    client = make_client(srv.endpoint)
    client.create_table(TableName=TABLE, BillingMode="PAY_PER_REQUEST",
                        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
    enable_pitr(client, TABLE)
    final: dict[str, int] = {}
    last_ack = [0.0]
    errors: list[str] = []
    stop = threading.Event()

    def writer(t: int):
        c = make_client(srv.endpoint)
        n = 0
        try:
            while not stop.is_set():
                n += 1
                key = f"p{t}-{n % PITR_KEYS}"
                # SET of a value is idempotent: repeating it after a lost answer is harmless.
                answered(lambda: _update(c, key, n))
                final[key] = n
                last_ack[0] = time.time()
        except Exception as e:  # noqa: BLE001
            errors.append(f"writer {t}: {e!r}")

    threads = [threading.Thread(target=writer, args=(t,), daemon=True) for t in range(WRITERS)]
    for th in threads:
        th.start()
    kill_ms = 500 + crash_database(pg, rng, 2.0, time.monotonic() + 0.5)
    back = time.time()
    wait_until(lambda: last_ack[0] > back, RECOVER_S, "a write after the database is back")
    resumed = time.time()
    ages = []
    # From WINDOW_S after the writes resumed, the window holds none of the outage's gap.
    for at in (3.0, 3.75, 4.5):
        time.sleep(max(0.0, resumed + at - time.time()))
        before = time.time()
        count, oldest = pitr_log(conninfo)
        ages.append((before - oldest, time.time() - oldest) if oldest else None)
    time.sleep(max(0.0, resumed + 5 - time.time()))
    stop.set()
    for th in threads:
        th.join(timeout=RECOVER_S + 10)
    assert not errors, errors
    count, _ = pitr_log(conninfo)
    since_last = time.time() - last_ack[0]
    for age in ages:
        assert age is not None, "the change log is empty while writes go on"
        assert age[0] <= WINDOW_S + 1.0 + 1.7, \
            f"records {age[0]:.2f} s old: the trimmer did not keep the log to its window"
        assert age[1] >= WINDOW_S - 0.8, f"only {age[1]:.2f} s of history: trimmed too much"
    if since_last < WINDOW_S - 0.3:  # the last writes are still inside the window
        assert count > 0, "the change log lost the window's records"
    wait_until(lambda: pitr_log(conninfo)[0] == 0, 15,
               "the change log emptied after the last write")
    emptied_after = time.time() - last_ack[0]
    assert pitr_desc(client, TABLE)["PointInTimeRecoveryStatus"] == "ENABLED"
    items = values_by_key(client, "v", TABLE)
    assert items == final, "the table does not hold every acknowledged update"
    finish(srv, tmp_path / "data", conninfo)
    print(f"\npg-crash-streams pitr seed={seed} kill_after_ms={kill_ms:.0f} "
          f"oldest_ages_s={[round(a[0], 2) for a in ages]} "
          f"emptied_after_last_write_s={emptied_after:.1f} keys={len(final)}")


def _update(client, key: str, n: int):
    return client.update_item(TableName=TABLE, Key={"pk": {"S": key}},
                              UpdateExpression="SET v = :n",
                              ExpressionAttributeValues={":n": {"N": str(n)}})
