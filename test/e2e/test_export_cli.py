"""`ttlstore export` and `ttlstore import` (issue 22): on a data dir (export from a read-only
view while a server runs, import with it stopped) and through --endpoint with signed calls; exit
codes, progress output and refusals. README.md, "ttlstore export and ttlstore import".
"""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import e2e_util
from e2e_util import TTLSTORE_BIN, check_data_dir, make_client
from test_export import ARN, ITEMS, by_key, low_level, make_bucket
from test_pitr import enable_pitr, scan_all


# --------------------------------------------------------------------------------------------


def cli(*args, timeout=300):
    return subprocess.run([TTLSTORE_BIN, *args], capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)


def test_cli_export_on_the_data_dir_and_import_with_the_server_stopped(start_server):
    srv = start_server()
    ddb = make_client(srv.endpoint)
    make_bucket(srv, "cli")
    e2e_util.create_table(ddb, "src", range_key=("sk", "N"))
    for item in ITEMS:
        ddb.put_item(TableName="src", Item=low_level(item))
    data = str(srv.data_dir)
    # While the server runs: a read-only view.
    p = cli("export", "--data-dir", data, "-t", "src", "--bucket", "cli", "--prefix", "off")
    assert p.returncode == 0, p.stderr
    assert "export [" in p.stderr and f"export {len(ITEMS)} items in" in p.stderr
    arn, manifest = p.stdout.split()
    assert arn.startswith(ARN + "src/export/")
    summary = json.loads(Path(manifest).read_bytes())
    assert summary["itemCount"] == len(ITEMS)
    data_prefix = summary["manifestFilesS3Key"].rsplit("/", 1)[0] + "/data/"
    # The server holds the data dir: an import on it is refused, and nothing is written.
    p = cli("import", "--data-dir", data, "-t", "copy", "--bucket", "cli", "--prefix", data_prefix,
            "--compression", "GZIP", "--hash-key", "pk:S", "--range-key", "sk:N")
    assert p.returncode == 1 and "Stop it first" in p.stderr, p.stderr
    # --export-time needs PITR.
    p = cli("export", "--data-dir", data, "-t", "src", "--bucket", "cli", "--export-time", "1")
    assert p.returncode == 1 and "Point in time recovery is not enabled" in p.stderr
    p = cli("export", "--data-dir", data, "-t", "nope", "--bucket", "cli")
    assert p.returncode == 1 and "Table not found: nope" in p.stderr
    p = cli("export", "--data-dir", data, "-t", "src", "--bucket", "cli", "--format", "CSV")
    assert p.returncode == 2 and "CSV not in" in p.stderr  # a usage error
    expected = by_key(scan_all(ddb, "src"))
    srv.stop()
    p = cli("import", "--data-dir", data, "-t", "copy", "--bucket", "cli", "--prefix", data_prefix,
            "--compression", "GZIP", "--hash-key", "pk:S", "--range-key", "sk:N")
    assert p.returncode == 0, p.stderr
    assert f"import {len(ITEMS)} items in" in p.stderr
    check_data_dir(data)
    srv2 = start_server(data)
    ddb2 = make_client(srv2.endpoint)
    assert by_key(scan_all(ddb2, "copy")) == expected
    assert ddb2.describe_import(ImportArn=p.stdout.strip())["ImportTableDescription"][
        "ImportStatus"] == "COMPLETED"


def test_cli_export_and_import_through_the_endpoint(server, ddb, table_name):
    make_bucket(server, "online")
    e2e_util.create_table(ddb, table_name, range_key=("sk", "N"))
    for item in ITEMS:
        ddb.put_item(TableName=table_name, Item=low_level(item))
    p = cli("export", "--endpoint", server.endpoint, "-t", table_name, "--bucket", "online")
    assert p.returncode == 1
    assert f"PointInTimeRecoveryUnavailableException: Point in time recovery is not enabled " \
           f"for table '{table_name}'" in p.stderr
    enable_pitr(ddb, table_name)
    p = cli("export", "--endpoint", server.endpoint, "-t", table_name, "--bucket", "online",
            "--format", "ION")
    assert p.returncode == 0, p.stderr
    arn, manifest_key = p.stdout.split()
    assert ddb.describe_export(ExportArn=arn)["ExportDescription"]["ExportFormat"] == "ION"
    p = cli("import", "--endpoint", server.endpoint, "-t", table_name + "_cp", "--bucket",
            "online", "--prefix", manifest_key.rsplit("/", 1)[0] + "/data/", "--format", "ION",
            "--compression", "GZIP", "--hash-key", "pk:S", "--range-key", "sk:N")
    assert p.returncode == 0, p.stderr
    assert by_key(scan_all(ddb, table_name + "_cp")) == by_key(scan_all(ddb, table_name))
    p = cli("export", "--endpoint", server.endpoint, "-t", table_name, "--bucket", "missing-bkt")
    assert p.returncode == 1 and "S3NoSuchBucket" in p.stderr
    p = cli("export", "--endpoint", "http://127.0.0.1:1", "-t", table_name, "--bucket", "x")
    assert p.returncode == 1 and "ConnectionError" in p.stderr


def test_cli_signs_its_calls_for_a_server_that_checks_signatures(start_server, tmp_path):
    creds = tmp_path / "credentials"
    creds.write_text("AKIDEXPORT s3cr3t/with+chars\n")
    srv = start_server(extra_args=["--credentials", str(creds)])
    make_bucket(srv, "signed")
    client = e2e_util.make_client(srv.endpoint)
    client._request_signer._credentials.access_key = "AKIDEXPORT"
    client._request_signer._credentials.secret_key = "s3cr3t/with+chars"
    e2e_util.create_table(client, "sig")
    enable_pitr(client, "sig")
    ok = cli("export", "--endpoint", srv.endpoint, "-t", "sig", "--bucket", "signed",
             "--access-key-id", "AKIDEXPORT", "--secret-access-key", "s3cr3t/with+chars")
    assert ok.returncode == 0, ok.stderr
    bad = cli("export", "--endpoint", srv.endpoint, "-t", "sig", "--bucket", "signed",
              "--access-key-id", "AKIDEXPORT", "--secret-access-key", "wrong")
    assert bad.returncode == 1 and "InvalidSignatureException" in bad.stderr, bad.stderr
