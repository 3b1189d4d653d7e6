"""Item TTL across restarts: the setting persists, and an expiry wave cut short by SIGTERM or
SIGKILL finishes after the restart without losing anything that has not expired.

Each test runs its own servers (start_server fixture) on one data dir under tmp_path, and uses
real time. Waits are bounded polls.
"""
from __future__ import annotations

import http.client
import random
import re
import signal
import time

import pytest

from dataplane_util import N, S, all_items, batch_put
from e2e_util import assert_error, check_data_dir, create_table, make_client, wait_until

DELETED = "ttlstore_ttl_deleted_items_total"
# The sweeper deletes ~150k items/s (3000 items: a ~20 ms wave, over before a SIGTERM lands), so
# the wave is 10000 items (~70 ms) for the stop to fall inside it.
EXPIRING = 10000
KEEPING = 500
SEED = 20261122


# --------------------------------------------------------------------------------------------
# Helpers (the same small ones as test_ttl_expiry.py; each test file stands alone)
# --------------------------------------------------------------------------------------------


def deleted_count(port: int, table: str) -> float:
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        c.request("GET", "/metrics")
        text = c.getresponse().read().decode()
    finally:
        c.close()
    total = 0.0
    for line in text.splitlines():
        if line.startswith(DELETED + "{") and re.search(r'\btable="' + re.escape(table) + '"',
                                                         line):
            total += float(line.rsplit(None, 1)[-1])
    return total


def enable_ttl(client, table: str, attribute: str = "ttl") -> None:
    client.update_time_to_live(TableName=table, TimeToLiveSpecification={
        "Enabled": True, "AttributeName": attribute})


def disable_ttl(client, table: str, attribute: str = "ttl") -> None:
    client.update_time_to_live(TableName=table, TimeToLiveSpecification={
        "Enabled": False, "AttributeName": attribute})


def describe_ttl(client, table: str) -> dict:
    return client.describe_time_to_live(TableName=table)["TimeToLiveDescription"]


def contents(client, table: str) -> dict[str, dict]:
    return {it["pk"]["S"]: it for it in all_items(client.scan, TableName=table,
                                                   ConsistentRead=True)}


def keepers(now: int, count: int) -> dict[str, dict]:
    """Items that never expire: no attribute, a String, a future Number, a value more than five
    years old, a value in milliseconds."""
    out = {}
    for i in range(count):
        kind = i % 5
        pk = f"keep{i:05d}"
        it = {"pk": S(pk), "v": S(f"keeper {i}")}
        if kind == 1:
            it["ttl"] = S(str(now - 60))
        elif kind == 2:
            it["ttl"] = N(now + 3600 + i)
        elif kind == 3:
            it["ttl"] = N(1171734022)
        elif kind == 4:
            it["ttl"] = N(now * 1000)
        out[pk] = it
    return out


def assert_converges(client, table: str, keep: dict[str, dict], expired: set[str],
                     timeout: float) -> None:
    """Poll until the table holds exactly `keep`; a lost keeper fails at once."""
    state: dict = {}

    def check():
        now = contents(client, table)
        lost = sorted(set(keep) - set(now))
        assert not lost, f"{len(lost)} unexpired item(s) lost, e.g. {lost[:10]}"
        state["left"] = sorted(expired & set(now))
        state["extra"] = sorted(set(now) - set(keep) - expired)
        return not state["left"] and not state["extra"]

    try:
        wait_until(check, timeout, "", interval=0.1)
    except AssertionError as e:
        if "lost" in str(e):
            raise
        raise AssertionError(f"{len(state['left'])} expired item(s) still present {timeout}s "
                             f"after the restart, e.g. {state['left'][:10]}; unknown items: "
                             f"{state['extra'][:10]}") from None
    now = contents(client, table)
    for k, v in keep.items():
        assert now[k] == v, f"keeper {k} changed:\nexpected {v}\nactual   {now[k]}"

    def count():
        return client.describe_table(TableName=table)["Table"]["ItemCount"]

    wait_until(lambda: count() == len(keep), 2.0,
               f"ItemCount == {len(keep)} (is {count()})")


# --------------------------------------------------------------------------------------------
# The setting persists
# --------------------------------------------------------------------------------------------


def test_ttl_settings_survive_a_restart(start_server, tmp_path):
    data = tmp_path / "ttl-settings"
    srv = start_server(data)
    c = make_client(srv.endpoint)
    for t in ("enabled", "toggled", "never", "repointed", "dropped"):
        create_table(c, t)
    enable_ttl(c, "enabled", "ttl")
    enable_ttl(c, "toggled", "exp")
    disable_ttl(c, "toggled", "exp")
    enable_ttl(c, "repointed", "a")
    disable_ttl(c, "repointed", "a")
    enable_ttl(c, "repointed", "b")
    enable_ttl(c, "dropped", "ttl")
    c.delete_table(TableName="dropped")
    create_table(c, "dropped")
    assert srv.stop(signal.SIGTERM) == 0

    srv = start_server(data)
    c = make_client(srv.endpoint)
    assert describe_ttl(c, "enabled") == {"TimeToLiveStatus": "ENABLED", "AttributeName": "ttl"}
    assert describe_ttl(c, "toggled") == {"TimeToLiveStatus": "DISABLED"}
    assert describe_ttl(c, "never") == {"TimeToLiveStatus": "DISABLED"}
    assert describe_ttl(c, "repointed") == {"TimeToLiveStatus": "ENABLED", "AttributeName": "b"}
    assert describe_ttl(c, "dropped") == {"TimeToLiveStatus": "DISABLED"}
    # The restored state drives the state checks ...
    assert_error(c.update_time_to_live, "ValidationException", "TimeToLive is already enabled",
                 TableName="enabled",
                 TimeToLiveSpecification={"Enabled": True, "AttributeName": "ttl"})
    # ... and expiry: an expired item written after the restart is deleted; on the disabled
    # tables it is not.
    past = N(int(time.time()) - 60)
    for t in ("enabled", "toggled", "never"):
        c.put_item(TableName=t, Item={"pk": S("x"), "ttl": past, "exp": past})
    wait_until(lambda: "Item" not in c.get_item(TableName="enabled", Key={"pk": S("x")},
                                                ConsistentRead=True),
               5.0, "expired item deleted after the restart")
    assert deleted_count(srv.port, "enabled") == 1
    for t in ("toggled", "never"):
        assert "Item" in c.get_item(TableName=t, Key={"pk": S("x")}, ConsistentRead=True)
    assert deleted_count(srv.port, "toggled") == deleted_count(srv.port, "never") == 0


def test_ttl_setting_survives_a_crash(start_server, tmp_path):
    data = tmp_path / "ttl-crash"
    srv = start_server(data)
    c = make_client(srv.endpoint)
    create_table(c, "crashy")
    enable_ttl(c, "crashy", "expires")
    srv.kill()
    srv = start_server(data)
    c = make_client(srv.endpoint)
    assert describe_ttl(c, "crashy") == {"TimeToLiveStatus": "ENABLED",
                                         "AttributeName": "expires"}


# --------------------------------------------------------------------------------------------
# Items that expire while the server is down
# --------------------------------------------------------------------------------------------


def test_items_that_expired_while_the_server_was_down_go_after_the_restart(start_server,
                                                                           tmp_path):
    data = tmp_path / "down"
    srv = start_server(data)
    c = make_client(srv.endpoint)
    create_table(c, "down")
    enable_ttl(c, "down")
    now = int(time.time())
    due = now + 1
    expiring = {f"exp{i:04d}": {"pk": S(f"exp{i:04d}"), "ttl": N(due)} for i in range(200)}
    keep = keepers(now, 50)
    batch_put(c, "down", [*expiring.values(), *keep.values()])
    assert srv.stop(signal.SIGTERM) == 0
    # Nothing was due yet when the server stopped (unless writing took over a second).
    wait_until(lambda: time.time() > due + 0.5, 3.0, "the items' time to pass")
    srv = start_server(data)
    assert_converges(make_client(srv.endpoint), "down", keep, set(expiring), timeout=5.0)


# --------------------------------------------------------------------------------------------
# A restart in the middle of an expiry wave
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("how", ["sigterm", "sigkill"])
def test_restart_in_the_middle_of_an_expiry_wave(start_server, tmp_path, how):
    data = tmp_path / f"wave-{how}"
    srv = start_server(data)
    c = make_client(srv.endpoint)
    create_table(c, "wave")
    enable_ttl(c, "wave")
    now = int(time.time())
    due = now + 3  # 2-3 s away; writing takes ~0.6 s
    expiring = {f"exp{i:05d}": {"pk": S(f"exp{i:05d}"), "ttl": N(due), "v": S("x" * 100)}
                for i in range(EXPIRING)}
    keep = keepers(now, KEEPING)
    items = [*expiring.values(), *keep.values()]
    random.Random(SEED).shuffle(items)
    batch_put(c, "wave", items)
    if time.time() < due - 0.1:  # (on a very slow machine the wave overlaps the writes)
        assert c.describe_table(TableName="wave")["Table"]["ItemCount"] == EXPIRING + KEEPING

    # Stop right after the wave has begun: as soon as the first TTL deletion is counted.
    wait_until(lambda: deleted_count(srv.port, "wave") > 0, (due - time.time()) + 5.0,
               "the expiry wave to start", interval=0.01)
    if how == "sigterm":
        assert srv.stop(signal.SIGTERM) == 0
    else:
        srv.kill()
    stopped_at = time.time()

    srv = start_server(data)
    c = make_client(srv.endpoint)
    assert describe_ttl(c, "wave") == {"TimeToLiveStatus": "ENABLED", "AttributeName": "ttl"}
    # The wave finishes within ~10 s of the restart; no keeper is ever missing.
    assert_converges(c, "wave", keep, set(expiring), timeout=10.0)
    # The restarted server counts only its own deletions: at most the whole wave.
    assert 0 <= deleted_count(srv.port, "wave") <= EXPIRING
    print(f"{how}: stopped {stopped_at - due:.2f}s after due; restarted server deleted "
          f"{deleted_count(srv.port, 'wave'):.0f} of {EXPIRING}")
    assert srv.stop() == 0
    # Every keeper still has its expiry-index entry; the stats match the items.
    report = check_data_dir(data)
    assert f"{KEEPING} items" in report, report
