"""A private PostgreSQL 15 for the tests that stop, crash or restart the database itself.

scripts/pg-server.sh starts a throwaway cluster (Debian's postgresql-15) in a temporary folder on
127.0.0.1; these helpers wrap it: `private_pg()` for a module-scoped fixture, `pg_ctl(verb, pg)`
for halt / resume / crash, `schema_conninfo(pg, name)` for a fresh schema per server, and
`check_storage(...)` to run `ttlstore check --storage` on it.
"""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from e2e_util import TTLSTORE_BIN, ServerProcess

ROOT = Path(__file__).resolve().parents[2]
PG_SCRIPT = ROOT / "scripts" / "pg-server.sh"


def pg_script(*args: str) -> str:
    return subprocess.run(["bash", str(PG_SCRIPT), *args], check=True, capture_output=True,
                          text=True, stdin=subprocess.DEVNULL).stdout


def private_pg():
    """Generator for a module-scoped fixture: yields {TTLSTORE_TEST_PG, TTLSTORE_PG_DIR, ...}."""
    if not Path("/usr/lib/postgresql/15/bin/initdb").exists():
        pytest.fail("postgresql-15 is not installed: run scripts/install-deps.sh")
    env = {}
    for line in pg_script("start").splitlines():
        key, _, value = line.removeprefix("export ").partition("=")
        env[key] = value.strip("'")
    try:
        yield env
    finally:
        pg_script("stop", env["TTLSTORE_PG_DIR"])


def pg_ctl(verb: str, pg: dict) -> None:
    """halt (clean stop), resume (start again), crash (kill -9 of the postmaster)."""
    pg_script(verb, pg["TTLSTORE_PG_DIR"])


def psql(conninfo: str, sql: str) -> str:
    return subprocess.run(["psql", conninfo, "-qAt", "-v", "ON_ERROR_STOP=1", "-c", sql],
                          check=True, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL).stdout


def schema_conninfo(pg: dict, name: str) -> str:
    """A connection string whose search_path is a new, empty schema `name`."""
    base = pg["TTLSTORE_TEST_PG"]
    psql(base, f"DROP SCHEMA IF EXISTS {name} CASCADE; CREATE SCHEMA {name}")
    return f"{base} options='-csearch_path={name}'"


def check_storage(data_dir, conninfo: str) -> str:
    """`ttlstore check --storage`; fails the test unless every invariant holds."""
    proc = subprocess.run([TTLSTORE_BIN, "check", "--data-dir", str(data_dir),
                           "--storage", conninfo],
                          capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0 and proc.stdout.startswith("ok:"), \
        f"ttlstore check failed:\n{proc.stdout}{proc.stderr}"
    return proc.stdout


def serve_on(tmp_path, conninfo: str, name: str, *extra: str) -> ServerProcess:
    """A started `ttlstore serve` named `name` (data dir and log under tmp_path) on the database
    `conninfo`: one of several processes sharing it."""
    return ServerProcess(tmp_path / f"data-{name}", tmp_path / f"{name}.log",
                         ["--storage", conninfo, *extra]).start()
