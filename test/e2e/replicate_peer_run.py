"""Run inside a loopback-only network namespace by test_replicate.py (`unshare -n`): a ttlstore
as the source, DynamoDB Local (the jar, on the machine's Java) as the target, and `ttlstore
replicate` between them; the copy and then streamed puts, updates, deletes and TTL expiries,
until both tables are equal. Prints "equal: N items" and exits 0, or fails with the reason.

Usage: replicate_peer_run.py DYNAMODB_LOCAL_JAR WORK_DIR"""
from __future__ import annotations

import os
import random
import socket
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from e2e_util import ServerProcess, make_client  # noqa: E402
from replicate_util import Replicator, wait_equal  # noqa: E402
from test_replicate import Writer, make_source, no_expired_left, preload  # noqa: E402


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main() -> int:
    jar, work = Path(sys.argv[1]), Path(sys.argv[2])
    port = free_port()
    local_log = open(work / "ddblocal.log", "wb")
    local = subprocess.Popen(
        ["java", "-Xmx512m", f"-Djava.library.path={jar.parent / 'DynamoDBLocal_lib'}", "-jar",
         str(jar), "-inMemory", "-sharedDb", "-port", str(port)],
        cwd=jar.parent, stdout=local_log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    src = ServerProcess(work / "src", work / "src.log", ["--stream-shard-rollover-seconds", "3"])
    rep = None
    try:
        src.start()
        target = f"http://127.0.0.1:{port}"
        d = make_client(target)
        deadline = time.monotonic() + 60
        while True:
            try:
                d.list_tables()
                break
            except Exception:  # noqa: BLE001 - not up yet
                if time.monotonic() > deadline or local.poll() is not None:
                    print((work / "ddblocal.log").read_text(errors="replace"))
                    raise
                time.sleep(0.2)
        s = make_client(src.endpoint)
        table = "replicated"
        make_source(s, table)
        preload(s, table, 2000, random.Random(5))
        writer = Writer(src.endpoint, table, 2500, 11)
        writer.start()
        rep = Replicator(work, src.endpoint, target, table, "--segments", "2",
                         "--scan-page-size", "100")
        rep.start()
        rep.wait_for(lambda: (rep.read_checkpoint() or {}).get("copy_done"), 120, "the copy")
        time.sleep(3)
        writer.halt.set()
        writer.join(10)
        if writer.error:
            raise writer.error
        time.sleep(4)
        items = wait_equal(s, table, d, table, timeout=120,
                           settle=lambda: no_expired_left(s, table))
        desc = d.describe_table(TableName=table)["Table"]
        assert [g["IndexName"] for g in desc["GlobalSecondaryIndexes"]] == ["byG"], desc
        assert d.describe_time_to_live(TableName=table)["TimeToLiveDescription"][
            "AttributeName"] == "exp"
        code = rep.stop()
        assert code == 0, rep.log()
        print(f"equal: {len(items)} items after {writer.ops} concurrent writes")
        return 0
    finally:
        if rep is not None and rep.alive():
            rep.kill9()
        if src.alive():
            src.stop()
        local.terminate()
        try:
            local.wait(timeout=20)
        except subprocess.TimeoutExpired:
            local.kill()
            local.wait()
        local_log.close()


if __name__ == "__main__":
    sys.exit(main())
