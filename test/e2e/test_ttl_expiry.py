"""Item expiry by attribute (rules D2-D4, D8, D10, D11, D19 of shared/spec/semantics.md).

What is checked, against the session server and real time (time.time()):
  * D2: only a top-level Number attribute named exactly as configured counts; a String, Binary,
    set, list, map, BOOL or NULL value, another attribute, or no attribute never expires.
  * D3: expired when now > value, in epoch seconds; fractions (1700000000.5) and exponents
    (170000000e1) count.
  * D4: a value more than five years in the past (1171734022, 0, -1) never expires; a value in
    milliseconds lies far in the future and never expires in practice.
  * D8 (ours): the server deletes an expired item within about a second (sweep every 200 ms by
    default); the tests poll for up to WAIT seconds, never sleep a fixed long time.
  * Items written before TTL was enabled are covered; with TTL disabled nothing expires.
  * D10: an item whose TTL is moved into the future, removed or made a non-Number before it
    expires is not deleted; one whose TTL is moved into the past is.
  * A Number key attribute (partition or sort key) can be the TTL attribute.
  * DescribeTable's ItemCount (exact and live in ttlstore) drops with the deletions.
  * D11: GET /metrics counts the deletions per table (ttlstore_ttl_deleted_items_total), the
    sweeper passes (ttlstore_ttl_sweeper_passes_total) and exposes the expiry lag.
  * The seed's SessionData example: ExpirationTime 1571827560 (2019) is more than five years in
    the past as of 2026-11, so that item never expires; with ExpirationTime = now+2 it goes.

"Never expires" is checked after the items that must go are gone and the sweeper has made at
least two further passes (read from the passes metric), so a missing deletion is not mistaken
for a slow one.

Not tested on purpose: D9 (an expired item stays visible in reads until the sweeper deletes it)
— the window is a race with a 200 ms sweeper, so no test can hit it reliably.
Not yet testable: D6 (secondary indexes are not maintained yet) and D7 (no streams yet).
"""
from __future__ import annotations

import http.client
import re
import time
from typing import Optional

import pytest

from dataplane_util import N, S, all_items, batch_put, get
from e2e_util import create_table, make_client, wait_until

WAIT = 5.0            # longest wait for an expired item to be deleted
YEAR = 365 * 24 * 3600
FIVE_YEARS = 5 * YEAR

DELETED = "ttlstore_ttl_deleted_items_total"
PASSES = "ttlstore_ttl_sweeper_passes_total"
LAG = "ttlstore_ttl_expiry_lag_seconds"
DELETION_LAG = "ttlstore_ttl_deletion_lag_seconds"


# --------------------------------------------------------------------------------------------
# Helpers: polling and /metrics
# --------------------------------------------------------------------------------------------


def metrics_text(port: int) -> str:
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        c.request("GET", "/metrics")
        r = c.getresponse()
        body = r.read().decode()
        assert r.status == 200, (r.status, body[:500])
        return body
    finally:
        c.close()


SAMPLE_RE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$")
LABEL_RE = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def samples(text: str, name: str) -> list[tuple[dict, float]]:
    out = []
    for line in text.splitlines():
        m = SAMPLE_RE.match(line.strip())
        if m and m.group(1) == name:
            out.append((dict(LABEL_RE.findall(m.group(2) or "")), float(m.group(3))))
    return out


def metric(port: int, name: str, **labels) -> Optional[float]:
    """Sum of the samples of `name` whose labels include `labels`; None if there is none."""
    found = [v for lab, v in samples(metrics_text(port), name)
             if all(lab.get(k) == v2 for k, v2 in labels.items())]
    return sum(found) if found else None


def deleted_count(port: int, table: str) -> float:
    """Items the sweeper deleted from `table` (a counter may be absent before its first +1)."""
    return metric(port, DELETED, table=table) or 0.0


def wait_sweeps(port: int, passes: int = 2) -> None:
    """Wait until the sweeper has made `passes` more passes (or 1 s if it exports no such metric;
    test_metrics fails on that separately)."""
    start = metric(port, PASSES)
    if start is None:
        time.sleep(1.0)
        return
    wait_until(lambda: (metric(port, PASSES) or 0) >= start + passes, 3.0,
               f"{passes} more sweeper passes ({PASSES} stayed at {start})")


# --------------------------------------------------------------------------------------------
# Helpers: tables and items
# --------------------------------------------------------------------------------------------


def enable_ttl(client, table: str, attribute: str = "ttl") -> None:
    client.update_time_to_live(TableName=table, TimeToLiveSpecification={
        "Enabled": True, "AttributeName": attribute})


def disable_ttl(client, table: str, attribute: str = "ttl") -> None:
    client.update_time_to_live(TableName=table, TimeToLiveSpecification={
        "Enabled": False, "AttributeName": attribute})


def item(pk: str, **attrs) -> dict:
    return {"pk": S(pk), **attrs}


def contents(client, table: str) -> dict[str, dict]:
    """Every item of a table with a string partition key `pk`, by that key."""
    return {it["pk"]["S"]: it for it in all_items(client.scan, TableName=table,
                                                   ConsistentRead=True)}


def wait_gone(client, table: str, gone: set[str], timeout: float = WAIT) -> dict[str, dict]:
    """Wait until none of the keys `gone` is in the table; return the table's contents then."""
    last: dict = {}

    def check():
        last["c"] = contents(client, table)
        return not (gone & set(last["c"]))

    try:
        wait_until(check, timeout, "expired items deleted")
    except AssertionError:
        left = sorted(gone & set(last["c"]))
        raise AssertionError(f"{len(left)} expired item(s) not deleted within {timeout}s: "
                             f"{[last['c'][k] for k in left][:10]}") from None
    return last["c"]


@pytest.fixture
def table(ddb, table_name):
    create_table(ddb, table_name)
    yield table_name
    try:
        ddb.delete_table(TableName=table_name)
    except Exception:  # noqa: BLE001 - cleanup only
        pass


def assert_only(client, table: str, expected: dict[str, dict]) -> None:
    """The table holds exactly these items, by key and by content."""
    now = contents(client, table)
    missing = sorted(set(expected) - set(now))
    extra = sorted(set(now) - set(expected))
    assert not missing and not extra, (
        f"\nlost (must never expire): {[expected[k] for k in missing]}"
        f"\nnot deleted (expired):    {[now[k] for k in extra]}")
    for k, v in expected.items():
        assert now[k] == v, f"item {k} changed:\nexpected {v}\nactual   {now[k]}"


# --------------------------------------------------------------------------------------------
# Which values expire (D2-D4)
# --------------------------------------------------------------------------------------------


def test_which_ttl_values_expire(server, ddb, table):
    enable_ttl(ddb, table)
    now = int(time.time())
    expiring = {
        "past_minute": item("past_minute", ttl=N(now - 60)),
        "fraction": item("fraction", ttl=N("1700000000.5")),
        "exponent": item("exponent", ttl=N("170000000e1")),
        "exponent_upper": item("exponent_upper", ttl=N("1.7E9")),
        "fraction_second_ago": item("fraction_second_ago", ttl=N(f"{time.time() - 1:.3f}")),
        "four_point_nine_years": item("four_point_nine_years", ttl=N(int(now - 4.9 * YEAR))),
        "with_payload": item("with_payload", ttl=N(now - 5), data=S("x" * 1000),
                             m={"M": {"l": {"L": [N(1), {"BOOL": True}]}}}),
    }
    keeping = {
        "future_hour": item("future_hour", ttl=N(now + 3600)),
        "absent": item("absent", other=N(now - 60)),
        "string_past": item("string_past", ttl=S("1700000000")),
        "string_minute_ago": item("string_minute_ago", ttl=S(str(now - 60))),
        "binary": item("binary", ttl={"B": b"1700000000"}),
        "number_set": item("number_set", ttl={"NS": [str(now - 60)]}),
        "list": item("list", ttl={"L": [N(now - 60)]}),
        "map": item("map", ttl={"M": {"ttl": N(now - 60)}}),
        "bool": item("bool", ttl={"BOOL": True}),
        "null": item("null", ttl={"NULL": True}),
        "upper_case_name": item("upper_case_name", TTL=N(now - 60)),
        "too_old_2007": item("too_old_2007", ttl=N(1171734022)),
        "five_point_one_years": item("five_point_one_years", ttl=N(int(now - 5.1 * YEAR))),
        "zero": item("zero", ttl=N(0)),
        "negative": item("negative", ttl=N(-1)),
        "milliseconds": item("milliseconds", ttl=N(int(time.time() * 1000))),
        # 9.99E+125 written out (the server answers numbers in plain notation).
        "huge": item("huge", ttl=N("999" + "0" * 123)),
    }
    for it in [*expiring.values(), *keeping.values()]:
        ddb.put_item(TableName=table, Item=it)
    wait_gone(ddb, table, set(expiring))
    wait_sweeps(server.port)
    assert_only(ddb, table, keeping)


def test_item_expires_after_its_time_not_before(server, ddb, table):
    enable_ttl(ddb, table)
    due = int(time.time()) + 2
    ddb.put_item(TableName=table, Item=item("soon", ttl=N(due)))
    ddb.put_item(TableName=table, Item=item("later", ttl=N(due + 3600)))
    seen_present_at = None
    deadline = time.monotonic() + (due - time.time()) + WAIT
    while time.monotonic() < deadline:
        got = get(ddb, table, {"pk": S("soon")})
        read_done = time.time()
        if got is None:
            # Deleted before this read finished; that must be after its time (now > due).
            assert read_done > due, f"deleted before its time: seen gone at {read_done}, due {due}"
            break
        seen_present_at = read_done
        time.sleep(0.05)
    else:
        raise AssertionError(f"item due at {due} not deleted by {time.time():.3f} "
                             f"(last seen {seen_present_at})")
    assert seen_present_at is not None and seen_present_at < due + WAIT
    assert get(ddb, table, {"pk": S("later")}) == item("later", ttl=N(due + 3600))


def test_item_expires_through_every_write_path(server, ddb, table):
    """PutItem, UpdateItem, BatchWriteItem, TransactWriteItems and PutItem of a full item all
    index the TTL attribute."""
    enable_ttl(ddb, table)
    past = N(int(time.time()) - 10)
    ddb.put_item(TableName=table, Item=item("put", ttl=past))
    ddb.update_item(TableName=table, Key={"pk": S("update_new")}, UpdateExpression="SET #t = :t",
                    ExpressionAttributeNames={"#t": "ttl"}, ExpressionAttributeValues={":t": past})
    batch_put(ddb, table, [item(f"batch{i}", ttl=past) for i in range(30)])
    ddb.transact_write_items(TransactItems=[
        {"Put": {"TableName": table, "Item": item("tx_put", ttl=past)}},
        {"Update": {"TableName": table, "Key": {"pk": S("tx_update")},
                    "UpdateExpression": "SET #t = :t", "ExpressionAttributeNames": {"#t": "ttl"},
                    "ExpressionAttributeValues": {":t": past}}},
    ])
    ddb.put_item(TableName=table, Item=item("keep"))
    wait_gone(ddb, table, {"put", "update_new", "tx_put", "tx_update",
                           *(f"batch{i}" for i in range(30))})
    assert_only(ddb, table, {"keep": item("keep")})


def test_items_written_before_ttl_was_enabled_expire(server, ddb, table):
    now = int(time.time())
    old = {f"old{i}": item(f"old{i}", ttl=N(now - 100 - i)) for i in range(20)}
    keep = {"future": item("future", ttl=N(now + 3600)), "none": item("none"),
            "string": item("string", ttl=S(str(now - 100)))}
    batch_put(ddb, table, [*old.values(), *keep.values()])
    # TTL disabled: nothing expires.
    wait_sweeps(server.port)
    assert_only(ddb, table, {**old, **keep})
    enable_ttl(ddb, table)
    wait_gone(ddb, table, set(old))
    wait_sweeps(server.port)
    assert_only(ddb, table, keep)


def test_disabling_stops_expiry_and_reenabling_resumes_it(server, ddb, table):
    enable_ttl(ddb, table)
    due = int(time.time()) + 1
    it = item("a", ttl=N(due))
    ddb.put_item(TableName=table, Item=it)
    disable_ttl(ddb, table)
    wait_until(lambda: time.time() > due + 0.3, 3.0, "the item's time to pass")
    wait_sweeps(server.port)
    assert_only(ddb, table, {"a": it})
    enable_ttl(ddb, table)
    wait_gone(ddb, table, {"a"})


def test_only_the_configured_attribute_counts_after_repointing(server, ddb, table):
    """D13/D19: after disable + enable on another attribute, the old attribute no longer
    counts and the new one does, for items written before the change too."""
    now = int(time.time())
    enable_ttl(ddb, table, "ttl")
    disable_ttl(ddb, table, "ttl")
    old_name = item("old_name", ttl=N(now - 60))
    ddb.put_item(TableName=table, Item=old_name)
    ddb.put_item(TableName=table, Item=item("new_name", expires_at=N(now - 60)))
    enable_ttl(ddb, table, "expires_at")
    wait_gone(ddb, table, {"new_name"})
    ddb.put_item(TableName=table, Item=item("new_name_after", expires_at=N(now - 30)))
    wait_gone(ddb, table, {"new_name_after"})
    wait_sweeps(server.port)
    assert_only(ddb, table, {"old_name": old_name})


# --------------------------------------------------------------------------------------------
# D10: updates before expiry
# --------------------------------------------------------------------------------------------


def test_updates_before_expiry_decide_the_items_fate(server, ddb, table):
    enable_ttl(ddb, table)
    now = int(time.time())
    due = N(now + 2)
    future = N(now + 3600)
    names = ["control", "extended", "removed", "to_string", "overwritten", "overwritten_future",
             "added_to", "tx_extended", "user_deleted", "shortened", "added"]
    for n in names:
        ttl = future if n == "shortened" else due
        ddb.put_item(TableName=table, Item=item(n, ttl=ttl, v=S(n)) if n != "added"
                     else item(n, v=S(n)))

    def upd(pk, expr, values=None):
        # TTL is a reserved word in expressions: the attribute is always #t.
        kw = {"TableName": table, "Key": {"pk": S(pk)}, "UpdateExpression": expr,
              "ExpressionAttributeNames": {"#t": "ttl"}}
        if values:
            kw["ExpressionAttributeValues"] = values
        ddb.update_item(**kw)

    upd("extended", "SET #t = :t", {":t": future})
    upd("removed", "REMOVE #t")
    upd("to_string", "SET #t = :s", {":s": S(str(now + 2))})
    ddb.put_item(TableName=table, Item=item("overwritten", v=S("overwritten")))
    ddb.put_item(TableName=table, Item=item("overwritten_future", ttl=future,
                                            v=S("overwritten_future")))
    upd("added_to", "ADD #t :d", {":d": N(3600)})
    ddb.transact_write_items(TransactItems=[{"Update": {
        "TableName": table, "Key": {"pk": S("tx_extended")}, "UpdateExpression": "SET #t = :t",
        "ExpressionAttributeNames": {"#t": "ttl"}, "ExpressionAttributeValues": {":t": future}}}])
    ddb.delete_item(TableName=table, Key={"pk": S("user_deleted")})
    upd("shortened", "SET #t = :t", {":t": N(now - 10)})
    upd("added", "SET #t = :t", {":t": N(now - 10)})

    expected = {
        "extended": item("extended", ttl=future, v=S("extended")),
        "removed": item("removed", v=S("removed")),
        "to_string": item("to_string", ttl=S(str(now + 2)), v=S("to_string")),
        "overwritten": item("overwritten", v=S("overwritten")),
        "overwritten_future": item("overwritten_future", ttl=future, v=S("overwritten_future")),
        "added_to": item("added_to", ttl=N(now + 2 + 3600), v=S("added_to")),
        "tx_extended": item("tx_extended", ttl=future, v=S("tx_extended")),
    }
    wait_gone(ddb, table, {"control", "shortened", "added"}, timeout=(now + 2 - time.time()) + WAIT)
    wait_sweeps(server.port)
    assert_only(ddb, table, expected)
    # User delete + 3 TTL deletions: only the TTL deletions are counted.
    assert deleted_count(server.port, table) == 3


# --------------------------------------------------------------------------------------------
# Key attributes as the TTL attribute
# --------------------------------------------------------------------------------------------


def test_number_sort_key_as_ttl_attribute(server, ddb, table_name):
    create_table(ddb, table_name, hash_key=("pk", "S"), range_key=("exp", "N"))
    try:
        enable_ttl(ddb, table_name, "exp")
        now = int(time.time())
        keep = [{"pk": S("a"), "exp": N(now + 3600)}, {"pk": S("a"), "exp": N(1171734022)},
                {"pk": S("b"), "exp": N(now + 7200), "v": S("x")}]
        gone = [{"pk": S("a"), "exp": N(now - 60)}, {"pk": S("a"), "exp": N("1700000000.5")},
                {"pk": S("b"), "exp": N(now - 1), "v": S("y")}]
        batch_put(ddb, table_name, keep + gone)

        def keys():
            return sorted((it["pk"]["S"], it["exp"]["N"])
                          for it in all_items(ddb.scan, TableName=table_name, ConsistentRead=True))

        want = sorted((it["pk"]["S"], it["exp"]["N"]) for it in keep)
        wait_until(lambda: keys() == want, WAIT, f"only {want} left (have {keys()})")
        wait_sweeps(server.port)
        assert keys() == want
        assert deleted_count(server.port, table_name) == 3
    finally:
        ddb.delete_table(TableName=table_name)


def test_number_partition_key_as_ttl_attribute(server, ddb, table_name):
    create_table(ddb, table_name, hash_key=("exp", "N"))
    try:
        enable_ttl(ddb, table_name, "exp")
        now = int(time.time())
        keep = [now + 3600, 1171734022, int(time.time() * 1000)]
        gone = [now - 60, now - 3600, 1700000000]
        batch_put(ddb, table_name, [{"exp": N(v), "v": S(str(v))} for v in keep + gone])

        def keys():
            return sorted(int(it["exp"]["N"])
                          for it in all_items(ddb.scan, TableName=table_name, ConsistentRead=True))

        wait_until(lambda: keys() == sorted(keep), WAIT, f"only {sorted(keep)} left")
        wait_sweeps(server.port)
        assert keys() == sorted(keep)
        assert ddb.describe_table(TableName=table_name)["Table"]["ItemCount"] == 3
    finally:
        ddb.delete_table(TableName=table_name)


def test_string_key_named_like_the_ttl_attribute_never_expires(server, ddb, table_name):
    create_table(ddb, table_name, hash_key=("ttl", "S"))
    try:
        enable_ttl(ddb, table_name, "ttl")
        now = int(time.time())
        items = [{"ttl": S(str(now - 60))}, {"ttl": S("1700000000")}]
        batch_put(ddb, table_name, items)
        wait_sweeps(server.port)
        got = all_items(ddb.scan, TableName=table_name, ConsistentRead=True)
        assert sorted(it["ttl"]["S"] for it in got) == sorted(it["ttl"]["S"] for it in items)
    finally:
        ddb.delete_table(TableName=table_name)


# --------------------------------------------------------------------------------------------
# ItemCount and metrics
# --------------------------------------------------------------------------------------------


def test_item_count_and_size_drop_after_expiry(server, ddb, table):
    now = int(time.time())
    gone = [item(f"g{i}", ttl=N(now - 60), data=S("y" * 200)) for i in range(6)]
    keep = [item(f"k{i}", ttl=N(now + 3600), data=S("y" * 200)) for i in range(4)]
    batch_put(ddb, table, gone + keep)
    before = ddb.describe_table(TableName=table)["Table"]
    assert before["ItemCount"] == 10
    enable_ttl(ddb, table)
    wait_gone(ddb, table, {it["pk"]["S"] for it in gone})

    def count():
        return ddb.describe_table(TableName=table)["Table"]["ItemCount"]

    wait_until(lambda: count() == 4, 2.0, f"ItemCount 4 after 6 of 10 expired (is {count()})")
    after = ddb.describe_table(TableName=table)["Table"]
    assert after["TableSizeBytes"] < before["TableSizeBytes"]


def test_metrics(server, ddb, table, table_name):
    port = server.port
    text = metrics_text(port)
    assert f"# TYPE {DELETED} counter" in text
    assert samples(text, PASSES), f"{PASSES} missing from /metrics"
    assert samples(text, LAG), f"{LAG} missing from /metrics"
    for name in ("ttlstore_ttl_sweeper_cpu_seconds_total", "ttlstore_storage_running_compactions",
                 "ttlstore_storage_pending_compaction_bytes",
                 "ttlstore_storage_conflict_retries_total",
                 "ttlstore_storage_shared_transactions_total"):
        assert [v for _, v in samples(text, name)] and all(
            v >= 0 for _, v in samples(text, name)), f"{name} missing from /metrics"

    # The sweeper runs by itself: its pass counter moves.
    p0 = metric(port, PASSES)
    wait_until(lambda: metric(port, PASSES) > p0, 2.0, f"{PASSES} to increase from {p0}")

    def late(within_seconds: str) -> float:
        """Deleted items, and those of them deleted more than `within_seconds` after expiry."""
        buckets = {lab["le"]: v for lab, v in samples(metrics_text(port), DELETION_LAG + "_bucket")}
        return buckets["+Inf"], buckets["+Inf"] - buckets[within_seconds]

    total0, late0 = late("10")
    other = table_name + "_other"
    create_table(ddb, other)
    try:
        for t in (table, other):
            enable_ttl(ddb, t)
        now = int(time.time())
        batch_put(ddb, table, [item(f"e{i}", ttl=N(now - 30)) for i in range(7)] +
                  [item(f"k{i}", ttl=N(now + 3600)) for i in range(3)])
        batch_put(ddb, other, [item(f"e{i}", ttl=N(now - 30)) for i in range(2)])
        ddb.put_item(TableName=table, Item=item("user_deleted", ttl=N(now + 3600)))
        ddb.delete_item(TableName=table, Key={"pk": S("user_deleted")})
        wait_gone(ddb, table, {f"e{i}" for i in range(7)})
        wait_gone(ddb, other, {"e0", "e1"})
        wait_until(lambda: deleted_count(port, table) == 7, 2.0,
                   f"{DELETED}{{table={table!r}}} == 7 (is {deleted_count(port, table)})")
        wait_sweeps(port)
        # Counted once each, per table; the user's DeleteItem is not a TTL deletion.
        assert deleted_count(port, table) == 7
        assert deleted_count(port, other) == 2
        # The deletion-lag histogram saw the nine, each deleted about 30 s after its expiry.
        total1, late1 = late("10")
        assert total1 - total0 >= 9 and late1 - late0 >= 9, (total0, late0, total1, late1)
    finally:
        ddb.delete_table(TableName=other)
    lag = [v for _, v in samples(metrics_text(port), LAG)]
    assert lag and all(v >= 0 for v in lag), lag


# --------------------------------------------------------------------------------------------
# The seed's worked example
# --------------------------------------------------------------------------------------------

SESSION_KEY = {"UserName": S("user1"), "SessionId": S("74686572652773")}
SESSION_ITEM = {
    **SESSION_KEY,
    "CreationTime": N(1571820360),
    "ExpirationTime": N(1571827560),
    "SessionInfo": {"M": {"Device": S("phone"), "IpAddress": S("192.0.2.10"),
                          "Preferences": {"M": {"Theme": S("dark")}}}},
}


def test_seed_session_data_example(start_server):
    """A table named exactly SessionData (on its own server, so the name is free)."""
    srv = start_server()
    c = make_client(srv.endpoint)
    create_table(c, "SessionData", hash_key=("UserName", "S"), range_key=("SessionId", "S"))
    enable_ttl(c, "SessionData", "ExpirationTime")
    assert c.describe_time_to_live(TableName="SessionData")["TimeToLiveDescription"] == {
        "TimeToLiveStatus": "ENABLED", "AttributeName": "ExpirationTime"}
    now = int(time.time())
    c.put_item(TableName="SessionData", Item=SESSION_ITEM)
    # A second session of the same user, two hours long like the example, ending in 2 s.
    second_key = {"UserName": S("user1"), "SessionId": S("7365636f6e64")}
    c.put_item(TableName="SessionData", Item={**second_key, "CreationTime": N(now - 7200 + 2),
                                              "ExpirationTime": N(now + 2)})

    def has(key):
        return get(c, "SessionData", key) is not None

    assert has(second_key)
    wait_until(lambda: not has(second_key), (now + 2 - time.time()) + WAIT,
               "session ending at now+2 deleted")
    wait_sweeps(srv.port)
    # 1571827560 is 2019-10-23: more than five years before 2026-11, so never expires (D4).
    assert get(c, "SessionData", SESSION_KEY) == SESSION_ITEM
    assert deleted_count(srv.port, "SessionData") == 1

    # The same item with ExpirationTime = now+2 goes.
    due = int(time.time()) + 2
    c.update_item(TableName="SessionData", Key=SESSION_KEY,
                  UpdateExpression="SET ExpirationTime = :e",
                  ExpressionAttributeValues={":e": N(due)})
    assert has(SESSION_KEY)
    wait_until(lambda: not has(SESSION_KEY), (due - time.time()) + WAIT,
               "example item with ExpirationTime = now+2 deleted")
    assert time.time() > due
    assert c.scan(TableName="SessionData", ConsistentRead=True)["Items"] == []
    assert c.describe_table(TableName="SessionData")["Table"]["ItemCount"] == 0
    assert deleted_count(srv.port, "SessionData") == 2
