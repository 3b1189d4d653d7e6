"""Hostile connections (issue 7): a slow-loris request that never completes is closed after
--request-timeout-seconds, an idle keep-alive connection after --idle-timeout-seconds, and
connections beyond --max-connections are closed on accept while the server keeps serving."""
import socket
import time

import pytest

from e2e_util import ServerProcess, make_client


@pytest.fixture(scope="module")
def srv(tmp_path_factory):
    root = tmp_path_factory.mktemp("limits")
    s = ServerProcess(root / "data", root / "server.log",
                      ["--request-timeout-seconds", "2", "--idle-timeout-seconds", "3",
                       "--max-connections", "8"]).start()
    yield s
    assert s.stop() == 0


def closed_within(sock, seconds):
    """Waits until the peer closes `sock`; returns the seconds it took, or None."""
    sock.settimeout(seconds)
    start = time.monotonic()
    try:
        while True:
            data = sock.recv(4096)
            if not data:
                return time.monotonic() - start
    except socket.timeout:
        return None
    except ConnectionResetError:
        return time.monotonic() - start


def test_slow_loris_request_is_closed(srv):
    s = socket.create_connection(("127.0.0.1", srv.port))
    s.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nX-Amz-Target: DynamoDB_20120810.ListTables\r\n")
    took = closed_within(s, 10)
    s.close()
    assert took is not None, "a request that never completes must be closed"
    assert took < 6
    assert "event=request_timeout" in srv.log_text()


def test_idle_connection_is_closed(srv):
    s = socket.create_connection(("127.0.0.1", srv.port))
    took = closed_within(s, 12)
    s.close()
    assert took is not None and 2 <= took < 8


def test_connection_flood_is_bounded(srv):
    held = [socket.create_connection(("127.0.0.1", srv.port)) for _ in range(8)]
    time.sleep(0.3)
    extra = socket.create_connection(("127.0.0.1", srv.port))
    assert closed_within(extra, 5) is not None, "the 9th connection must be refused"
    extra.close()
    for s in held:
        s.close()
    time.sleep(0.5)
    # Once they are gone the server serves again.
    assert "TableNames" in make_client(srv.endpoint).list_tables()
