"""Fixtures for the ttlstore end-to-end suite.

* `server`: one real `ttlstore serve` for the whole session (fresh temp data dir, --port 0).
* `endpoint`, `ddb`, `ddb_resource`, `streams`: its URL and boto3 clients (dummy credentials, no
  retries; `streams` is the `dynamodbstreams` client).
* `table_name`: a name unique to the test.
* `start_server`: start extra servers on a given data dir (restart / crash tests); every server
  it started is stopped (by its own Popen object) when the test ends.
* `aws_cli`: run `aws dynamodb ...` against the session server; returns the CompletedProcess.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, os.path.dirname(__file__))

import e2e_util  # noqa: E402
from e2e_util import (ServerProcess, TTLSTORE_BIN, make_client, make_resource,  # noqa: E402
                      make_streams_client, unique_name)


def pytest_sessionstart(session):
    if not os.access(TTLSTORE_BIN, os.X_OK):
        raise pytest.UsageError(
            f"ttlstore binary not found at {TTLSTORE_BIN}; build it "
            f"(cd build && ninja -j2 ttlstore) or set TTLSTORE_BIN")


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    root = tmp_path_factory.mktemp("session-server")
    srv = ServerProcess(root / "data", root / "ttlstore.log").start()
    yield srv
    code = srv.stop()
    if code != 0:
        sys.stderr.write(f"\nsession ttlstore exited with {code}; log at {srv.log_path}\n")


@pytest.fixture(scope="session")
def endpoint(request) -> str:
    # TTLSTORE_E2E_ENDPOINT points the data-plane tests at another server (e.g. DynamoDB Local) to
    # check what a reference answers; tests that start their own servers still start ttlstore.
    external = os.environ.get("TTLSTORE_E2E_ENDPOINT")
    if external:
        return external
    return request.getfixturevalue("server").endpoint


@pytest.fixture(scope="session")
def ddb(endpoint):
    return make_client(endpoint)


@pytest.fixture(scope="session")
def streams(endpoint):
    """boto3's `dynamodbstreams` client on the session server."""
    return make_streams_client(endpoint)


@pytest.fixture(scope="session")
def ddb_resource(endpoint):
    return make_resource(endpoint)


@pytest.fixture
def table_name(request) -> str:
    base = "".join(c if c.isalnum() else "_" for c in request.node.name)[:60]
    return unique_name(base)


@pytest.fixture
def start_server(tmp_path):
    """start_server(data_dir=None, extra_args=()) -> ServerProcess (already listening)."""
    started: list[ServerProcess] = []

    def _start(data_dir=None, extra_args=()) -> ServerProcess:
        data_dir = Path(data_dir) if data_dir is not None else tmp_path / "data"
        srv = ServerProcess(data_dir, tmp_path / f"ttlstore-{len(started)}.log", list(extra_args))
        started.append(srv)
        return srv.start()

    yield _start
    for srv in started:
        if srv.alive():
            try:
                srv.stop(timeout=5)
            except AssertionError:
                pass  # stop() has SIGKILLed it already


# Debian's awscli (installed by scripts/install-deps.sh); a pyenv or pip `aws` earlier on PATH
# would be a different major version. TTLSTORE_AWS_CLI overrides.
AWS_CLI = os.environ.get("TTLSTORE_AWS_CLI", "/usr/bin/aws")


@pytest.fixture
def aws_cli(endpoint, tmp_path):
    """aws_cli('create-table', '--table-name', 'x', ...) runs `aws dynamodb ...`."""
    home = tmp_path / "aws-home"
    home.mkdir(exist_ok=True)
    env = e2e_util.cli_env(home)

    def _run(*args, check=True, timeout=60) -> subprocess.CompletedProcess:
        cmd = [AWS_CLI, "--endpoint-url", endpoint, "--output", "json", "dynamodb", *args]
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL)
        if check and proc.returncode != 0:
            raise AssertionError(f"{' '.join(cmd)} exited {proc.returncode}\n"
                                 f"stdout: {proc.stdout}\nstderr: {proc.stderr}")
        return proc

    return _run
