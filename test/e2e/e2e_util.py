"""Shared helpers for the ttlstore end-to-end tests.

Everything here talks to a real `ttlstore serve` process over 127.0.0.1: starting and stopping
servers, building boto3 clients, running the aws CLI, raw HTTP calls and error capture.
"""
from __future__ import annotations

import http.client
import itertools
import json
import os
import re
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError

REPO = Path(__file__).resolve().parents[2]
TTLSTORE_BIN = os.environ.get("TTLSTORE_BIN", str(REPO / "build" / "ttlstore"))

REGION = "us-east-1"
ACCESS_KEY = "AKIDEXAMPLE"
SECRET_KEY = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"

STARTUP_TIMEOUT = 10.0
LISTENING_RE = re.compile(r"event=listening address=https?://127\.0\.0\.1:(\d+)")

_name_counter = itertools.count()


def unique_name(prefix: str = "t") -> str:
    """A table name no other test uses (valid: [a-zA-Z0-9_.-], 3..255 chars)."""
    return f"{prefix}_{os.getpid()}_{next(_name_counter)}"


# --------------------------------------------------------------------------------------------
# Server processes
# --------------------------------------------------------------------------------------------


# TTLSTORE_E2E_PG (a libpq key=value connection string; scripts/test.sh sets it for the suites it
# runs on PostgreSQL): every server runs on the PostgreSQL backend, its data in a schema named
# after its data dir, so a restart on the same data dir finds its data as with RocksDB.
E2E_PG = os.environ.get("TTLSTORE_E2E_PG", "")


def pg_schema_of(data_dir: Path) -> str:
    import hashlib
    return "e2e_" + hashlib.sha1(str(Path(data_dir).resolve()).encode()).hexdigest()[:16]


def pg_storage_args(data_dir: Path) -> list:
    if not E2E_PG:
        return []
    schema = pg_schema_of(data_dir)
    subprocess.run(["psql", E2E_PG, "-q", "-v", "ON_ERROR_STOP=1", "-c",
                    f"CREATE SCHEMA IF NOT EXISTS {schema}"],
                   check=True, capture_output=True, stdin=subprocess.DEVNULL)
    return ["--storage", f"{E2E_PG} options='-csearch_path={schema}'"]


class ServerProcess:
    """One `ttlstore serve` child process on 127.0.0.1 with a port picked by the kernel."""

    def __init__(self, data_dir: Path, log_path: Path, extra_args: Optional[list] = None):
        self.data_dir = Path(data_dir)
        self.log_path = Path(log_path)
        self.extra_args = list(extra_args or [])
        self.proc: Optional[subprocess.Popen] = None
        self.port: Optional[int] = None

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = STARTUP_TIMEOUT) -> "ServerProcess":
        args = [TTLSTORE_BIN, "serve", "--host", "127.0.0.1", "--port", "0",
                "--data-dir", str(self.data_dir),
                # a test that names its own --storage keeps it
                *([] if "--storage" in self.extra_args else pg_storage_args(self.data_dir)),
                # On a database a restarted server waits for a killed one's leases to run out
                # (docs/background-jobs.md, "Leases"): short ones, so the tests' trimmers
                # resume within about a second, as on RocksDB (which takes them at once).
                *(["--lease-seconds", "1"] if E2E_PG and "--lease-seconds" not in self.extra_args
                  else []),
                *self.extra_args]
        self._log = open(self.log_path, "ab")
        start_offset = self._log.tell()
        self.proc = subprocess.Popen(args, stdout=self._log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            text = self._read_log(start_offset)
            m = LISTENING_RE.search(text)
            if m:
                self.port = int(m.group(1))
                return self
            if self.proc.poll() is not None:
                raise RuntimeError(f"ttlstore exited with {self.proc.returncode} before "
                                   f"listening; log:\n{text}")
            time.sleep(0.02)
        self.kill()
        raise RuntimeError(f"ttlstore did not log event=listening within {timeout}s; log:\n"
                           f"{self._read_log(start_offset)}")

    def _read_log(self, offset: int = 0) -> str:
        with open(self.log_path, "rb") as f:
            f.seek(offset)
            return f.read().decode("utf-8", "replace")

    def log_text(self) -> str:
        return self._read_log(0)

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 10.0) -> Optional[int]:
        """Send `sig` and wait for the exit code; SIGKILL if it does not exit within timeout."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
                self._close_log()
                raise AssertionError(f"ttlstore (pid {self.proc.pid}) did not exit within "
                                     f"{timeout}s of signal {sig}")
        self._close_log()
        return self.proc.returncode

    def kill(self) -> None:
        """SIGKILL (a crash, as far as the data dir is concerned)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)
        self._close_log()

    def _close_log(self) -> None:
        log = getattr(self, "_log", None)
        if log is not None and not log.closed:
            log.close()


# --------------------------------------------------------------------------------------------
# Clients
# --------------------------------------------------------------------------------------------


def client_config() -> Config:
    return Config(retries={"max_attempts": 1, "mode": "standard"}, connect_timeout=5,
                  read_timeout=30, parameter_validation=False)


def make_client(endpoint: str):
    return boto3.session.Session().client(
        "dynamodb", endpoint_url=endpoint, region_name=REGION, aws_access_key_id=ACCESS_KEY,
        aws_secret_access_key=SECRET_KEY, config=client_config())


def make_streams_client(endpoint: str):
    """boto3's DynamoDB Streams client, unchanged: it signs as "dynamodb" and sends the
    DynamoDBStreams_20120810 target to the same endpoint."""
    return boto3.session.Session().client(
        "dynamodbstreams", endpoint_url=endpoint, region_name=REGION, aws_access_key_id=ACCESS_KEY,
        aws_secret_access_key=SECRET_KEY, config=client_config())


def make_resource(endpoint: str):
    return boto3.session.Session().resource(
        "dynamodb", endpoint_url=endpoint, region_name=REGION, aws_access_key_id=ACCESS_KEY,
        aws_secret_access_key=SECRET_KEY, config=client_config())


@dataclass
class DdbError:
    code: str
    message: str
    status: int
    response: dict


def ddb_error(fn: Callable[..., Any], *args, **kwargs) -> DdbError:
    """Call a boto3 operation that must fail; return its error code, message and HTTP status."""
    try:
        result = fn(*args, **kwargs)
    except ClientError as e:
        err = e.response.get("Error", {})
        return DdbError(err.get("Code", ""), err.get("Message", ""),
                        e.response.get("ResponseMetadata", {}).get("HTTPStatusCode", 0),
                        e.response)
    raise AssertionError(f"expected an error, got success: {result!r}")


def assert_error(fn: Callable[..., Any], code: str, message: str, status: int = 400, **kwargs):
    """Assert the call fails with exactly this error code, message and HTTP status."""
    e = ddb_error(fn, **kwargs)
    assert (e.code, e.message) == (code, message), (
        f"\nexpected: {code}: {message!r}\nactual:   {e.code}: {e.message!r}")
    assert e.status == status
    return e


def create_table(client, name: str, hash_key=("pk", "S"), range_key=None,
                 billing: str = "PAY_PER_REQUEST", throughput=(5, 5), **extra) -> dict:
    attrs = [{"AttributeName": hash_key[0], "AttributeType": hash_key[1]}]
    schema = [{"AttributeName": hash_key[0], "KeyType": "HASH"}]
    if range_key:
        attrs.append({"AttributeName": range_key[0], "AttributeType": range_key[1]})
        schema.append({"AttributeName": range_key[0], "KeyType": "RANGE"})
    kwargs = dict(TableName=name, AttributeDefinitions=attrs, KeySchema=schema, **extra)
    if billing == "PAY_PER_REQUEST":
        kwargs["BillingMode"] = "PAY_PER_REQUEST"
    else:
        kwargs["ProvisionedThroughput"] = {"ReadCapacityUnits": throughput[0],
                                           "WriteCapacityUnits": throughput[1]}
    return client.create_table(**kwargs)["TableDescription"]


def normalize_sets(value):
    """Sort set members so that two items compare equal whatever order a server returns sets in."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if k in ("SS", "NS", "BS") and isinstance(v, list):
                out[k] = sorted(v)
            else:
                out[k] = normalize_sets(v)
        return out
    if isinstance(value, list):
        return [normalize_sets(v) for v in value]
    return value


# --------------------------------------------------------------------------------------------
# Raw HTTP
# --------------------------------------------------------------------------------------------

AMZ_JSON = "application/x-amz-json-1.0"


def raw_call(port: int, target: Optional[str], body, extra_headers: Optional[dict] = None,
             conn: Optional[http.client.HTTPConnection] = None):
    """POST a DynamoDB request without any SDK. Returns (status, headers, body bytes)."""
    if isinstance(body, (dict, list)):
        data = json.dumps(body).encode()
    elif isinstance(body, str):
        data = body.encode()
    else:
        data = body
    headers = {"Content-Type": AMZ_JSON}
    if target is not None:
        headers["X-Amz-Target"] = target
    headers.update(extra_headers or {})
    own = conn is None
    c = conn or http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        c.request("POST", "/", body=data, headers=headers)
        r = c.getresponse()
        payload = r.read()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, payload
    finally:
        if own:
            c.close()


# --------------------------------------------------------------------------------------------
# aws CLI
# --------------------------------------------------------------------------------------------


def cli_env(home: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env.update({
        "AWS_ACCESS_KEY_ID": ACCESS_KEY,
        "AWS_SECRET_ACCESS_KEY": SECRET_KEY,
        "AWS_DEFAULT_REGION": REGION,
        "AWS_REGION": REGION,
        "AWS_PAGER": "",
        "AWS_DEFAULT_OUTPUT": "json",
        "AWS_MAX_ATTEMPTS": "1",
        "AWS_RETRY_MODE": "standard",
        "AWS_EC2_METADATA_DISABLED": "true",
        "AWS_CONFIG_FILE": str(home / "aws-config"),
        "AWS_SHARED_CREDENTIALS_FILE": str(home / "aws-credentials"),
        "HOME": str(home),
    })
    return env


def check_data_dir(data_dir) -> str:
    """Runs `ttlstore check` on a stopped server's data dir; fails the test unless it is whole."""
    proc = subprocess.run([TTLSTORE_BIN, "check", "--data-dir", str(data_dir),
                           *pg_storage_args(data_dir)],
                          capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, f"ttlstore check failed:\n{proc.stdout}{proc.stderr}"
    assert proc.stdout.startswith("ok:"), proc.stdout
    return proc.stdout


def wait_until(pred: Callable[[], object], timeout: float, what: str, interval: float = 0.05):
    """Poll pred() until it returns something truthy (returned); fail with `what` after
    `timeout` s."""
    deadline = time.monotonic() + timeout
    while True:
        value = pred()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"not within {timeout}s: {what}")
        time.sleep(interval)


def metrics_text(srv: "ServerProcess") -> str:
    """GET /metrics of `srv`."""
    conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=10)
    try:
        conn.request("GET", "/metrics")
        return conn.getresponse().read().decode()
    finally:
        conn.close()


def metric(srv: "ServerProcess", name: str) -> float:
    """The sum of the samples of /metrics' `name` (0 when there is none)."""
    pattern = re.compile(r"^" + re.escape(name) + r"(?:\{[^}]*\})?\s+(\S+)\s*$", re.M)
    return sum(float(v) for v in pattern.findall(metrics_text(srv)))


def run_clients(count: int, client: Callable[[int], None], timeout: float = 300) -> None:
    """Runs client(0) ... client(count - 1) on threads at once and fails the test if one raised
    (a thread's exception is otherwise lost) or is still running after `timeout` seconds."""
    errors: list = []

    def run(c: int) -> None:
        try:
            client(c)
        except Exception as e:  # noqa: BLE001  reported below
            errors.append(e)

    threads = [threading.Thread(target=run, args=(c,)) for c in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=timeout)
    assert not any(t.is_alive() for t in threads)
    assert errors == []


def table_settled(client, name: str) -> Optional[str]:
    """For wait_until on a table being filled: "dropped" once it is gone, "active" once ACTIVE,
    None while it is still being created."""
    try:
        status = client.describe_table(TableName=name)["Table"]["TableStatus"]
    except client.exceptions.ResourceNotFoundException:
        return "dropped"
    return "active" if status == "ACTIVE" else None
