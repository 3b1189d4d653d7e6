"""A full disk and a read-only data dir, for real: the server runs in a mount namespace of its
own with its data dir on a small tmpfs, which the test fills (and empties) and remounts read-only
from inside that namespace (nsenter). Expected: a clear InternalServerError to the client and in
the log, reads unaffected, nothing half-written, writes back on their own once space returns,
and a data dir that `ttlstore check` finds whole."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest

import e2e_util
from e2e_util import LISTENING_RE, TTLSTORE_BIN, make_client

FULL = ("Internal server error: the data directory is full (no space left on device); writes "
        "resume once space is freed")


def _can_make_mount_namespaces() -> bool:
    try:
        return subprocess.run(["unshare", "-m", "true"], capture_output=True,
                              timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


pytestmark = pytest.mark.skipif(not _can_make_mount_namespaces(),
                                reason="needs mount namespaces (unshare -m), i.e. root")


class Namespace:
    """A mount namespace holding a tmpfs at `mnt`, kept alive by a sleeper process; the server
    and every command run inside it through nsenter."""

    def __init__(self, tmp_path: Path, size_mb: int):
        self.mnt = tmp_path / "mnt"
        self.mnt.mkdir()
        self.data_dir = self.mnt / "data"
        self.tmp_path = tmp_path
        self.holder = subprocess.Popen(
            ["unshare", "-m", "--propagation", "private", "sh", "-c",
             f'mount -t tmpfs -o size={size_mb}m ttlstore-test "{self.mnt}" && exec sleep 3600'],
            stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.run("mountpoint", "-q", str(self.mnt), check=False).returncode == 0:
                return
            time.sleep(0.05)
        raise AssertionError("the tmpfs did not appear")

    def run(self, *cmd, check=True, timeout=60):
        return subprocess.run(["nsenter", "-t", str(self.holder.pid), "-m", *cmd], check=check,
                              capture_output=True, text=True, timeout=timeout)

    def start_server(self, name: str):
        log = open(self.tmp_path / f"{name}.log", "wb")
        proc = subprocess.Popen(
            ["nsenter", "-t", str(self.holder.pid), "-m", TTLSTORE_BIN, "serve", "--host",
             "127.0.0.1", "--port", "0", "--data-dir", str(self.data_dir)],
            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        path = self.tmp_path / f"{name}.log"
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            m = LISTENING_RE.search(path.read_text(errors="replace"))
            if m:
                return proc, int(m.group(1)), path
            if proc.poll() is not None:
                return proc, None, path
            time.sleep(0.02)
        proc.kill()
        raise AssertionError("server did not start: " + path.read_text(errors="replace"))

    def close(self):
        self.holder.kill()
        self.holder.wait(timeout=10)


@pytest.fixture
def ns(tmp_path):
    n = Namespace(tmp_path, size_mb=160)
    yield n
    n.close()


def _stop(proc):
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=15)


def test_disk_full_refuses_writes_clearly_and_recovers(ns):
    proc, port, log = ns.start_server("full")
    try:
        ddb = make_client(f"http://127.0.0.1:{port}")
        e2e_util.create_table(ddb, "tbl")
        ddb.put_item(TableName="tbl", Item={"pk": {"S": "before"}, "v": {"S": "kept"}})
        # Fill the file system to the last byte.
        ns.run("sh", "-c", f'cat /dev/zero > "{ns.mnt}/filler"', check=False, timeout=120)
        big = "x" * 390_000
        failed_key = None
        acked = []
        for i in range(600):
            key = f"k{i}"
            try:
                ddb.put_item(TableName="tbl", Item={"pk": {"S": key}, "v": {"S": big}})
                acked.append(key)
            except Exception as e:  # noqa: BLE001 - checked just below
                err = e2e_util.DdbError(e.response["Error"]["Code"], e.response["Error"]["Message"],
                                        e.response["ResponseMetadata"]["HTTPStatusCode"], e.response)
                assert (err.code, err.message, err.status) == ("InternalServerError", FULL, 500)
                failed_key = key
                break
        assert failed_key is not None, "the disk never filled"
        assert "event=write_refused_storage" in log.read_text()
        # Reads go on; the refused write left nothing behind.
        got = ddb.get_item(TableName="tbl", Key={"pk": {"S": "before"}}, ConsistentRead=True)
        assert got["Item"]["v"]["S"] == "kept"
        assert "Item" not in ddb.get_item(TableName="tbl", Key={"pk": {"S": failed_key}},
                                          ConsistentRead=True)
        # Still full: still refused, the same way.
        err = e2e_util.ddb_error(ddb.put_item, TableName="tbl",
                                 Item={"pk": {"S": "again"}, "v": {"S": big}})
        assert (err.code, err.message) == ("InternalServerError", FULL)
        # Space returns: writes resume on their own (RocksDB's own recovery, or the store's
        # resume, tried at most once a second).
        ns.run("rm", "-f", str(ns.mnt / "filler"))
        deadline = time.monotonic() + 20
        while True:
            try:
                ddb.put_item(TableName="tbl", Item={"pk": {"S": "after"}, "v": {"S": "ok"}})
                break
            except Exception:  # noqa: BLE001
                assert time.monotonic() < deadline, "writes did not resume once space was freed"
                time.sleep(0.3)
        for key in acked[-3:]:
            assert ddb.get_item(TableName="tbl", Key={"pk": {"S": key}},
                                ConsistentRead=True)["Item"]["v"]["S"] == big
    finally:
        _stop(proc)
    check = ns.run(TTLSTORE_BIN, "check", "--data-dir", str(ns.data_dir), check=False)
    assert check.returncode == 0, check.stdout + check.stderr
    # Every acknowledged write survived the episode and a restart.
    proc, port, _ = ns.start_server("after")
    try:
        ddb = make_client(f"http://127.0.0.1:{port}")
        keys, start = set(), None
        while True:
            page = ddb.scan(TableName="tbl", ConsistentRead=True, ProjectionExpression="pk",
                            **({"ExclusiveStartKey": start} if start else {}))
            keys |= {i["pk"]["S"] for i in page["Items"]}
            start = page.get("LastEvaluatedKey")
            if not start:
                break
        assert keys == {"before", "after", *acked}
    finally:
        _stop(proc)


def test_read_only_data_dir_is_refused_at_start_with_a_clear_message(ns):
    proc, port, _ = ns.start_server("first")
    ddb = make_client(f"http://127.0.0.1:{port}")
    e2e_util.create_table(ddb, "tbl")
    ddb.put_item(TableName="tbl", Item={"pk": {"S": "a"}})
    _stop(proc)
    ns.run("mount", "-o", "remount,ro", str(ns.mnt))
    proc, port, log = ns.start_server("readonly")
    proc.wait(timeout=15)
    assert port is None and proc.returncode != 0
    text = log.read_text()
    assert "event=startup_failed" in text
    assert re.search(r"[Rr]ead-only file system", text), text
    ns.run("mount", "-o", "remount,rw", str(ns.mnt))
    proc, port, _ = ns.start_server("writable")
    try:
        ddb = make_client(f"http://127.0.0.1:{port}")
        assert ddb.get_item(TableName="tbl", Key={"pk": {"S": "a"}})["Item"] == {"pk": {"S": "a"}}
    finally:
        _stop(proc)
