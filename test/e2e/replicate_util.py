"""Helpers for the `ttlstore replicate` end-to-end tests: the replicator as a child process,
whole-table scans for comparing both sides, and the checkpoint and status files."""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
from pathlib import Path
from typing import Optional

from e2e_util import ACCESS_KEY, SECRET_KEY, TTLSTORE_BIN, normalize_sets


class Replicator:
    """One `ttlstore replicate` child; its stderr goes to a log file."""

    def __init__(self, tmp: Path, source: str, target: str, table: str, *extra: str,
                 checkpoint: Optional[Path] = None, name: str = "repl",
                 env: Optional[dict] = None):
        self.tmp = Path(tmp)
        self.checkpoint = Path(checkpoint or self.tmp / f"{name}.checkpoint")
        self.status_file = self.tmp / f"{name}.status"
        self.args = [TTLSTORE_BIN, "replicate", "--from", source, "--to", target, "--table", table,
                     "--checkpoint", str(self.checkpoint), "--status-file", str(self.status_file),
                     *extra]
        self.name = name
        self.extra_env = dict(env or {})
        self.runs = 0
        self.proc: Optional[subprocess.Popen] = None
        self.log_path: Optional[Path] = None

    def start(self) -> "Replicator":
        self.runs += 1
        self.log_path = self.tmp / f"{self.name}-{self.runs}.log"
        env = dict(os.environ, AWS_ACCESS_KEY_ID=ACCESS_KEY, AWS_SECRET_ACCESS_KEY=SECRET_KEY,
                   **self.extra_env)
        self._log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(self.args, stdout=self._log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, env=env)
        return self

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path else ""

    def kill9(self) -> None:
        self.proc.kill()
        self.proc.wait(timeout=10)
        self._log.close()

    def stop(self, timeout: float = 30) -> int:
        """SIGTERM: a clean stop; returns the exit code."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
                raise AssertionError(f"replicate did not stop within {timeout}s:\n{self.log()}")
        self._log.close()
        return self.proc.returncode

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def read_checkpoint(self) -> Optional[dict]:
        try:
            return json.loads(self.checkpoint.read_text())
        except (OSError, ValueError):
            return None

    def metric(self, name: str) -> Optional[float]:
        try:
            text = self.status_file.read_text()
        except OSError:
            return None
        m = re.search(r"^" + re.escape(name) + r"\{[^}]*\} (\S+)$", text, re.M)
        return float(m.group(1)) if m else None

    def wait_for(self, predicate, timeout: float, what: str) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate():
                return
            if not self.alive():
                raise AssertionError(f"replicate exited ({self.proc.returncode}) while waiting "
                                     f"for {what}:\n{self.log()}")
            time.sleep(0.01)
        raise AssertionError(f"timed out waiting for {what}:\n{self.log()}")


def run_replicate(*args: str, timeout: float = 60, env: Optional[dict] = None
                  ) -> subprocess.CompletedProcess:
    env = dict(os.environ, AWS_ACCESS_KEY_ID=ACCESS_KEY, AWS_SECRET_ACCESS_KEY=SECRET_KEY,
               **(env or {}))
    return subprocess.run([TTLSTORE_BIN, "replicate", *args], capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL, env=env)


def scan_all(client, table: str) -> dict:
    """Every item of `table`, by its key (JSON of the key attributes), sets normalised."""
    desc = client.describe_table(TableName=table)["Table"]
    key_names = [k["AttributeName"] for k in desc["KeySchema"]]
    items = {}
    kwargs = {"TableName": table, "ConsistentRead": True}
    while True:
        page = client.scan(**kwargs)
        for item in page["Items"]:
            key = json.dumps({k: item[k] for k in key_names}, sort_keys=True)
            items[key] = normalize_sets(item)
        if "LastEvaluatedKey" not in page:
            return items
        kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def wait_equal(src_client, src_table: str, dst_client, dst_table: str, timeout: float,
               settle=lambda: True) -> dict:
    """Polls until both tables hold exactly the same items (and `settle()` holds); returns them."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        a = scan_all(src_client, src_table)
        b = scan_all(dst_client, dst_table)
        if a == b and settle():
            return a
        last = (a, b)
        time.sleep(0.5)
    a, b = last
    only_a = sorted(set(a) - set(b))[:5]
    only_b = sorted(set(b) - set(a))[:5]
    differ = [k for k in set(a) & set(b) if a[k] != b[k]][:5]
    raise AssertionError(f"tables differ after {timeout}s: {len(a)} vs {len(b)} items; only in "
                         f"source {only_a}; only in target {only_b}; different "
                         f"{[(k, a[k], b[k]) for k in differ]}")
