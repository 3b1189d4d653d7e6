"""The TLS listener (--tls-cert/--tls-key): boto3 and the AWS CLI over https with a certificate
they verify, SigV4 on top, refusals of bad key material at start-up, and hostile handshakes
(plain HTTP, a stalled handshake) that must neither crash the server nor hold a connection."""

from __future__ import annotations

import http.client
import socket
import ssl
import subprocess
import time

import boto3
import pytest
from botocore.exceptions import SSLError

import e2e_util
from e2e_util import REGION, ServerProcess, TTLSTORE_BIN, client_config, create_table


def _openssl(*args, cwd):
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True, timeout=60)


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    """A self-signed P-256 certificate for 127.0.0.1 (its own CA bundle), and a second key that
    does not match it."""
    d = tmp_path_factory.mktemp("tls")
    _openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
             "-nodes", "-keyout", "key.pem", "-out", "cert.pem", "-days", "2",
             "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", cwd=d)
    _openssl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:prime256v1",
             "-out", "other-key.pem", cwd=d)
    return d


@pytest.fixture
def tls_server(start_server, certs):
    return start_server(extra_args=["--tls-cert", str(certs / "cert.pem"),
                                    "--tls-key", str(certs / "key.pem"),
                                    "--request-timeout-seconds", "1"])


def _https_client(port, certs, key="AKIDEXAMPLE", secret="secret", verify=None):
    return boto3.session.Session().client(
        "dynamodb", endpoint_url=f"https://127.0.0.1:{port}", region_name=REGION,
        aws_access_key_id=key, aws_secret_access_key=secret, config=client_config(),
        verify=str(certs / "cert.pem") if verify is None else verify)


def test_boto3_over_https(tls_server, certs, table_name):
    assert "event=listening address=https://127.0.0.1:" in tls_server.log_text()
    ddb = _https_client(tls_server.port, certs)
    create_table(ddb, table_name)
    ddb.put_item(TableName=table_name, Item={"pk": {"S": "a"}, "v": {"S": "x" * 5000}})
    got = ddb.get_item(TableName=table_name, Key={"pk": {"S": "a"}}, ConsistentRead=True)
    assert got["Item"]["v"]["S"] == "x" * 5000
    assert table_name in ddb.list_tables()["TableNames"]


def test_client_that_does_not_trust_the_certificate_fails(tls_server, certs):
    # The default CA store does not hold our self-signed certificate: verification must fail,
    # which shows the channel really is TLS with this certificate.
    ddb = _https_client(tls_server.port, certs, verify=True)
    with pytest.raises(SSLError):
        ddb.list_tables()


def test_sigv4_and_tls_together(start_server, certs, tmp_path, table_name):
    creds = tmp_path / "credentials"
    creds.write_text("AKIDTLS tlssecret\n")
    srv = start_server(extra_args=["--tls-cert", str(certs / "cert.pem"),
                                   "--tls-key", str(certs / "key.pem"),
                                   "--credentials", str(creds)])
    ok = _https_client(srv.port, certs, key="AKIDTLS", secret="tlssecret")
    create_table(ok, table_name)
    bad = _https_client(srv.port, certs, key="AKIDTLS", secret="wrong")
    err = e2e_util.ddb_error(bad.describe_table, TableName=table_name)
    assert err.code == "InvalidSignatureException"


def test_aws_cli_over_https(tls_server, certs, tmp_path, table_name):
    home = tmp_path / "aws-home"
    home.mkdir()
    env = e2e_util.cli_env(home)
    base = ["/usr/bin/aws", "--endpoint-url", f"https://127.0.0.1:{tls_server.port}",
            "--ca-bundle", str(certs / "cert.pem"), "--output", "json", "dynamodb"]
    subprocess.run([*base, "create-table", "--table-name", table_name,
                    "--attribute-definitions", "AttributeName=pk,AttributeType=S",
                    "--key-schema", "AttributeName=pk,KeyType=HASH",
                    "--billing-mode", "PAY_PER_REQUEST"],
                   env=env, check=True, capture_output=True, timeout=60)
    out = subprocess.run([*base, "describe-table", "--table-name", table_name], env=env,
                         check=True, capture_output=True, text=True, timeout=60)
    assert f'"TableName": "{table_name}"' in out.stdout


def test_plain_http_to_the_tls_port_is_closed_and_the_server_lives_on(tls_server, certs):
    conn = http.client.HTTPConnection("127.0.0.1", tls_server.port, timeout=5)
    with pytest.raises((ConnectionError, http.client.HTTPException, OSError)):
        conn.request("GET", "/health")
        conn.getresponse().read()
    conn.close()
    ctx = ssl.create_default_context(cafile=str(certs / "cert.pem"))
    conn = http.client.HTTPSConnection("127.0.0.1", tls_server.port, timeout=5, context=ctx)
    conn.request("GET", "/health")
    assert conn.getresponse().read() == b'{"status":"ok","storage":"reachable"}'
    conn.close()
    assert tls_server.alive()


def test_stalled_handshake_is_closed_after_the_request_timeout(tls_server):
    # A client that connects and never sends its ClientHello holds nothing for long: the
    # handshake is under the request timeout (1 s here), not the 300 s idle timeout.
    s = socket.create_connection(("127.0.0.1", tls_server.port), timeout=10)
    start = time.monotonic()
    assert s.recv(1) == b""  # closed by the server
    assert time.monotonic() - start < 5
    s.close()


def test_old_protocol_versions_are_refused(tls_server, certs):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.load_verify_locations(cafile=str(certs / "cert.pem"))
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    ctx.maximum_version = ssl.TLSVersion.TLSv1_2
    with socket.create_connection(("127.0.0.1", tls_server.port), timeout=5) as raw:
        with ctx.wrap_socket(raw, server_hostname="127.0.0.1") as tls:
            assert tls.version() == "TLSv1.2"
    try:
        ctx.minimum_version = ssl.TLSVersion.TLSv1_1
        ctx.maximum_version = ssl.TLSVersion.TLSv1_1
    except ValueError:
        pytest.skip("this Python's OpenSSL cannot offer TLS 1.1 at all")
    with socket.create_connection(("127.0.0.1", tls_server.port), timeout=5) as raw:
        with pytest.raises(ssl.SSLError):
            ctx.wrap_socket(raw, server_hostname="127.0.0.1")


def _start_fails(args, tmp_path):
    proc = subprocess.run([TTLSTORE_BIN, "serve", "--port", "0", "--data-dir",
                           str(tmp_path / "data"), *args],
                          capture_output=True, text=True, timeout=30)
    return proc.returncode, proc.stdout + proc.stderr


def test_mismatched_key_is_refused_at_start(certs, tmp_path):
    rc, out = _start_fails(["--tls-cert", str(certs / "cert.pem"),
                            "--tls-key", str(certs / "other-key.pem")], tmp_path)
    assert rc != 0
    assert "does not match the certificate" in out


def test_cert_without_key_is_refused_at_start(certs, tmp_path):
    rc, out = _start_fails(["--tls-cert", str(certs / "cert.pem")], tmp_path)
    assert rc != 0
    assert "TLS needs both --tls-cert and --tls-key" in out


def test_unreadable_certificate_is_refused_at_start(certs, tmp_path):
    bogus = tmp_path / "bogus.pem"
    bogus.write_text("not a certificate\n")
    rc, out = _start_fails(["--tls-cert", str(bogus), "--tls-key", str(certs / "key.pem")],
                           tmp_path)
    assert rc != 0
    assert "cannot load the TLS certificate" in out
