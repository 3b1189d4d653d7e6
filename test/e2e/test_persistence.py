"""Data survives a clean restart; SIGTERM/SIGINT stop the server promptly with exit code 0."""
from __future__ import annotations

import http.client
import json
import signal
import time

import pytest

from e2e_util import E2E_PG, create_table, make_client, normalize_sets

ALL_TYPES_ITEM = {
    "pk": {"S": "all-types"},
    "s": {"S": "ünïcödé 🧪"}, "es": {"S": ""},
    "n": {"N": "-123.456"}, "big": {"N": "9" * 38}, "tiny": {"N": "1E-130"},
    "b": {"B": b"\x00\x01\x00\xff"}, "eb": {"B": b""},
    "t": {"BOOL": True}, "f": {"BOOL": False}, "nul": {"NULL": True},
    "ss": {"SS": ["x", "y", ""]}, "ns": {"NS": ["1", "-2.5", "1E+10"]},
    "bs": {"BS": [b"\x00", b"\x01\x02"]},
    "l": {"L": [{"S": "a"}, {"N": "1"}, {"L": []}, {"M": {"k": {"NULL": True}}}]},
    "m": {"M": {"inner": {"M": {"deep": {"SS": ["q"]}}}, "em": {"M": {}}}},
}
STORED_ALL_TYPES = {**ALL_TYPES_ITEM, "tiny": {"N": "0." + "0" * 129 + "1"},
                    "ns": {"NS": ["1", "-2.5", "10000000000"]}}


def describe(client, name):
    t = client.describe_table(TableName=name)["Table"]
    return {k: t[k] for k in ("TableName", "KeySchema", "AttributeDefinitions", "TableArn",
                              "TableId", "CreationDateTime", "ItemCount", "TableSizeBytes",
                              "ProvisionedThroughput") if k in t} | \
        {"BillingMode": t.get("BillingModeSummary", {}).get("BillingMode")}


def test_tables_items_and_tags_survive_a_clean_restart(start_server, tmp_path):
    data = tmp_path / "persist"
    srv = start_server(data)
    c = make_client(srv.endpoint)
    create_table(c, "hash_s")
    create_table(c, "comp_nb", hash_key=("h", "N"), range_key=("r", "B"), billing="PROVISIONED",
                 throughput=(3, 4))
    arn = create_table(c, "tagged", Tags=[{"Key": "env", "Value": "test"}])["TableArn"]
    c.tag_resource(ResourceArn=arn, Tags=[{"Key": "team", "Value": "db"}])
    create_table(c, "dropped")
    c.delete_table(TableName="dropped")

    c.put_item(TableName="hash_s", Item=ALL_TYPES_ITEM)
    for i in range(50):
        c.put_item(TableName="hash_s", Item={"pk": {"S": f"k{i:03d}"}, "v": {"N": str(i)}})
    for i in range(0, 50, 5):
        c.delete_item(TableName="hash_s", Key={"pk": {"S": f"k{i:03d}"}})
    comp_key = {"h": {"N": "42"}, "r": {"B": b"\x00\xff"}}
    c.put_item(TableName="comp_nb", Item={**comp_key, "v": {"S": "composite"}})

    before = {n: describe(c, n) for n in ("hash_s", "comp_nb", "tagged")}
    listed = c.list_tables()["TableNames"]
    assert before["hash_s"]["ItemCount"] == 41

    assert srv.stop(signal.SIGTERM, timeout=10) == 0
    srv2 = start_server(data)
    c2 = make_client(srv2.endpoint)

    assert c2.list_tables()["TableNames"] == listed == ["comp_nb", "hash_s", "tagged"]
    for name, desc in before.items():
        assert describe(c2, name) == desc
    got = c2.get_item(TableName="hash_s", Key={"pk": {"S": "all-types"}})["Item"]
    assert normalize_sets(got) == normalize_sets(STORED_ALL_TYPES)
    for i in range(50):
        item = c2.get_item(TableName="hash_s", Key={"pk": {"S": f"k{i:03d}"}}).get("Item")
        assert item == (None if i % 5 == 0 else {"pk": {"S": f"k{i:03d}"}, "v": {"N": str(i)}})
    assert c2.get_item(TableName="comp_nb", Key=comp_key)["Item"] == \
        {**comp_key, "v": {"S": "composite"}}
    tags = c2.list_tags_of_resource(ResourceArn=arn)["Tags"]
    assert sorted(tags, key=lambda t: t["Key"]) == [{"Key": "env", "Value": "test"},
                                                    {"Key": "team", "Value": "db"}]
    # The restarted server keeps working normally.
    c2.put_item(TableName="hash_s", Item={"pk": {"S": "after"}})
    assert describe(c2, "hash_s")["ItemCount"] == 42
    assert srv2.stop(signal.SIGTERM) == 0


def test_restart_with_sync_flag_keeps_data(start_server, tmp_path):
    data = tmp_path / "persist-sync"
    srv = start_server(data, ["--sync"])
    c = make_client(srv.endpoint)
    create_table(c, "synced")
    c.put_item(TableName="synced", Item={"pk": {"S": "a"}, "v": {"S": "durable"}})
    assert srv.stop() == 0
    srv2 = start_server(data)
    c2 = make_client(srv2.endpoint)
    assert c2.get_item(TableName="synced", Key={"pk": {"S": "a"}})["Item"]["v"] == \
        {"S": "durable"}


def test_two_restarts_in_a_row_keep_everything(start_server, tmp_path):
    data = tmp_path / "persist-twice"
    srv = start_server(data)
    c = make_client(srv.endpoint)
    create_table(c, "twice")
    c.put_item(TableName="twice", Item={"pk": {"S": "one"}})
    assert srv.stop() == 0
    srv = start_server(data)
    c = make_client(srv.endpoint)
    c.put_item(TableName="twice", Item={"pk": {"S": "two"}})
    assert srv.stop() == 0
    srv = start_server(data)
    c = make_client(srv.endpoint)
    assert [bool(c.get_item(TableName="twice", Key={"pk": {"S": k}}).get("Item"))
            for k in ("one", "two")] == [True, True]
    assert c.describe_table(TableName="twice")["Table"]["ItemCount"] == 2


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_signal_with_idle_keep_alive_connection_exits_promptly_with_0(start_server, tmp_path,
                                                                      sig):
    srv = start_server(tmp_path / "shutdown")
    conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=10)
    try:
        conn.request("POST", "/", body=json.dumps({}),
                     headers={"Content-Type": "application/x-amz-json-1.0",
                              "X-Amz-Target": "DynamoDB_20120810.ListTables"})
        resp = conn.getresponse()
        resp.read()
        assert resp.status == 200 and not resp.will_close  # the connection stays open, idle
        started = time.monotonic()
        code = srv.stop(sig, timeout=5)
        elapsed = time.monotonic() - started
    finally:
        conn.close()
    assert code == 0
    assert elapsed < 5
    assert "event=stopped" in srv.log_text()


def test_sigterm_with_a_connection_that_never_sent_a_request(start_server, tmp_path):
    import socket

    srv = start_server(tmp_path / "shutdown-raw")
    with socket.create_connection(("127.0.0.1", srv.port), timeout=5):
        time.sleep(0.1)
        started = time.monotonic()
        code = srv.stop(signal.SIGTERM, timeout=5)
        assert code == 0
        assert time.monotonic() - started < 5


def test_sigterm_with_half_sent_request_exits_promptly(start_server, tmp_path):
    import socket

    srv = start_server(tmp_path / "shutdown-partial")
    with socket.create_connection(("127.0.0.1", srv.port), timeout=5) as s:
        s.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"Table")
        time.sleep(0.1)
        started = time.monotonic()
        code = srv.stop(signal.SIGTERM, timeout=5)
        assert code == 0
        assert time.monotonic() - started < 5


# RocksDB's LOCK file keeps a second process off a data dir. A PostgreSQL database has no such
# lock, and one process per database is all issue 33 supports (docs/storage.md).
@pytest.mark.skipif(bool(E2E_PG), reason="the data dir lock is RocksDB's (docs/storage.md)")
def test_second_server_on_a_locked_data_dir_fails_to_start(start_server, tmp_path):
    data = tmp_path / "locked"
    start_server(data)
    with pytest.raises(RuntimeError, match="exited with 1"):
        start_server(data)
