"""kill -9 of ttlstore while the stream trimmer and the PITR trimmer run, then restart
(docs/background-jobs.md, "Stream trimming", "PITR trimmer"): what test_crash_jobs.py does for
the one-shot jobs, for the two loops that keep nothing between passes. Runs on either backend
(test/pg_e2e_suites.txt lists it for PostgreSQL); test_pg_crash_streams.py kills the database
under the same loops instead.

  * Stream trimmer: a first server, its clock a day minus a few seconds behind
    (`--clock-start-ms`), writes records that therefore come due a few seconds into a second
    server's run (`--stream-trim-interval-seconds 1`, the machine's clock), written in three
    groups so that they come due in steps; that server is killed at a random moment before,
    during or after its passes drop them. `ttlstore check` on the killed
    data; then a third server: every old record goes, every old item stays, and a new write's
    sequence number is above every trimmed one.
  * PITR trimmer (`--pitr-window-hours 0.0005`: a 1.8 s window, a pass a second): the server is
    killed under updates of a PITR table; after the restart the change log empties a few
    seconds after the last write and every acknowledged update is in the table.

TTLSTORE_CRASH_SEED / TTLSTORE_CRASH_SEEDS as in test_crash_jobs.py.
"""
from __future__ import annotations

import random
import re
import threading
import time

import pytest
from botocore.exceptions import BotoCoreError, ClientError

from e2e_util import check_data_dir, make_client, make_streams_client
from test_crash_jobs import (SEEDS, TABLE, check, create_table, fill, item, keys_present,
                             kill_at_random, report, stream_records, values_by_key, wait_until)

DAY_MS = 86_400_000
OLD_ITEMS = 1500
# The first server's records come due this long after it started (room for a slow, sanitized
# build to write them first).
DUE_AFTER_S = 12


def pitr_records(data_dir) -> int:
    """The change-log records `ttlstore check` counts on a stopped server's data."""
    m = re.search(r"(\d+) PITR change-log records", check_data_dir(data_dir))
    assert m, "no PITR count in ttlstore check's summary"
    return int(m.group(1))


@pytest.mark.parametrize("seed", SEEDS)
def test_stream_trimmer_killed(start_server, tmp_path, seed):
    rng = random.Random(seed)
    data = tmp_path / "data"
    first_started = time.time()
    srv = start_server(data, ["--clock-start-ms",
                              str(int(first_started * 1000) - DAY_MS + DUE_AFTER_S * 1000)])
    client = make_client(srv.endpoint)
    create_table(client, stream=True)
    arn = client.describe_table(TableName=TABLE)["Table"]["LatestStreamArn"]
    # In three groups 1.2 s apart: they come due over ~2.5 s, so the passes (a second apart)
    # drop them in steps and a kill can land between two (state=during).
    for g in range(3):
        if g:
            time.sleep(1.2)
        fill(client, [item(i, None, g=False) for i in range(g * OLD_ITEMS // 3,
                                                           (g + 1) * OLD_ITEMS // 3)])
    old = stream_records(make_streams_client(srv.endpoint), arn, expect=OLD_ITEMS)
    assert len(old) == OLD_ITEMS
    old_max = max(int(r["dynamodb"]["SequenceNumber"]) for r in old)
    assert srv.stop() == 0
    written = time.time() - first_started
    assert written < DUE_AFTER_S - 1, f"the first server took {written:.1f} s: records due already"

    srv = start_server(data, ["--stream-trim-interval-seconds", "1"])
    started = time.monotonic()
    due_in = first_started + DUE_AFTER_S - time.time()
    kill_ms = kill_at_random(srv, rng, due_in + written + 2.0, started)
    counts = check(data)  # whole at the moment of the kill
    if counts["records"] == OLD_ITEMS:
        state = "before"
    elif counts["records"] == 0:
        state = "after"
    else:
        state = "during"

    srv = start_server(data, ["--stream-trim-interval-seconds", "1"])
    client, streams = make_client(srv.endpoint), make_streams_client(srv.endpoint)

    def old_left() -> int:
        try:
            return len(stream_records(streams, arn))
        except (ClientError, BotoCoreError):
            return OLD_ITEMS
    wait_until(lambda: old_left() == 0, 30, "every expired record trimmed", interval=0.3)
    assert len(keys_present(client)) == OLD_ITEMS, "the trimmer touched items"
    client.put_item(TableName=TABLE, Item=item(OLD_ITEMS, None, g=False))
    new = stream_records(streams, arn, expect=1)
    assert [r["dynamodb"]["Keys"]["pk"]["S"] for r in new] == [f"k{OLD_ITEMS:06d}"]
    assert int(new[0]["dynamodb"]["SequenceNumber"]) > old_max, "sequence numbers went back"
    assert srv.stop() == 0
    counts = check(data)
    assert counts["records"] == 1 and counts["items"] == OLD_ITEMS + 1
    report("stream-trimmer", seed, kill_ms, state)


@pytest.mark.parametrize("seed", SEEDS)
def test_pitr_trimmer_killed(start_server, tmp_path, seed):
    rng = random.Random(seed)
    data = tmp_path / "data"
    flags = ["--pitr-window-hours", "0.0005"]
    srv = start_server(data, flags)
    client = make_client(srv.endpoint)
    create_table(client)
    client.update_continuous_backups(
        TableName=TABLE, PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True})
    acked: dict[str, int] = {}
    stop = threading.Event()

    def writer(t: int):
        c = make_client(srv.endpoint)
        n = 0
        while not stop.is_set():
            n += 1
            key = f"p{t}-{n % 10}"
            try:
                c.update_item(TableName=TABLE, Key={"pk": {"S": key}},
                              UpdateExpression="SET v = :n",
                              ExpressionAttributeValues={":n": {"N": str(n)}})
            except (ClientError, BotoCoreError):
                return  # the kill: this update may or may not have landed
            acked[key] = n

    threads = [threading.Thread(target=writer, args=(t,), daemon=True) for t in range(3)]
    for th in threads:
        th.start()
    kill_ms = kill_at_random(srv, rng, 3.0, time.monotonic() + 0.5) + 500
    stop.set()
    for th in threads:
        th.join(timeout=30)
    check(data)
    killed_with = pitr_records(data)
    assert killed_with > 0, "no change-log records when killed under writes"

    srv = start_server(data, flags)
    client = make_client(srv.endpoint)
    items = values_by_key(client, "v")
    for key, n in acked.items():
        # The write after the last acknowledged one may have landed before the kill.
        assert items.get(key, 0) >= n, f"acknowledged update of {key} to {n} lost"
    # Nothing is written now: a window (1.8 s) and a pass (1 s) later the log holds nothing.
    time.sleep(1.8 + 1.5)
    assert srv.stop() == 0
    left = pitr_records(data)
    assert left == 0, f"{left} change-log records outlived the window"
    report("pitr-trimmer", seed, kill_ms, f"killed_with_{killed_with}_records")
