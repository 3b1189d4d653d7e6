"""Point-in-time recovery: DescribeContinuousBackups, UpdateContinuousBackups and
RestoreTableToPointInTime through boto3 and the AWS CLI.

A restore to second T must give exactly the table as it was at T: the model below replays the
writes the test made, and the restore points are chosen inside quiet gaps of the writers (every
write acknowledged before the gap is in, every write sent after it is not), while other writes
and TTL deletions go on during the restores themselves. Sources of every shape and message are in
docs/compatibility.md ("Point-in-time recovery")."""

from __future__ import annotations

import datetime
import json
import random
import re
import subprocess
import threading
import time

import pytest
from botocore.exceptions import BotoCoreError, ClientError

import e2e_util
from e2e_util import TTLSTORE_BIN, assert_error, make_client, normalize_sets

ACCOUNT_ARN = "arn:aws:dynamodb:us-east-1:000000000000:table/"


# --------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------


def create_source(ddb, name, ttl=True):
    ddb.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                              {"AttributeName": "sk", "AttributeType": "N"},
                              {"AttributeName": "g", "AttributeType": "S"},
                              {"AttributeName": "l", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                   {"AttributeName": "sk", "KeyType": "RANGE"}],
        GlobalSecondaryIndexes=[{"IndexName": "by_g",
                                 "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                                 "Projection": {"ProjectionType": "ALL"}}],
        LocalSecondaryIndexes=[{"IndexName": "by_l",
                                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                                              {"AttributeName": "l", "KeyType": "RANGE"}],
                                "Projection": {"ProjectionType": "KEYS_ONLY"}}])
    if ttl:
        ddb.update_time_to_live(TableName=name, TimeToLiveSpecification={
            "Enabled": True, "AttributeName": "exp"})


def enable_pitr(ddb, name):
    return ddb.update_continuous_backups(
        TableName=name, PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True})


def raw(ddb, op, body):
    """The operation without an SDK: Debian's botocore (1.29) and AWS CLI (2.9) predate
    RecoveryPeriodInDays, so requests and answers that carry it go raw. (status, JSON)."""
    port = int(ddb.meta.endpoint_url.rsplit(":", 1)[1])
    status, _, body = e2e_util.raw_call(port, "DynamoDB_20120810." + op, body)
    return status, json.loads(body)


def pitr_desc(ddb, name):
    status, body = raw(ddb, "DescribeContinuousBackups", {"TableName": name})
    assert status == 200, body
    return body["ContinuousBackupsDescription"]["PointInTimeRecoveryDescription"]


def set_pitr(ddb, name, enabled=True, days=None):
    spec = {"PointInTimeRecoveryEnabled": enabled}
    if days is not None:
        spec["RecoveryPeriodInDays"] = days
    return raw(ddb, "UpdateContinuousBackups",
               {"TableName": name, "PointInTimeRecoverySpecification": spec})


def scan_all(ddb, name, **kw):
    items, start = [], None
    while True:
        args = dict(TableName=name, ConsistentRead=True, **kw)
        if start:
            args["ExclusiveStartKey"] = start
        page = ddb.scan(**args)
        items += page["Items"]
        start = page.get("LastEvaluatedKey")
        if not start:
            return items


def as_map(items):
    return {(i["pk"]["S"], i["sk"]["N"]): normalize_sets(i) for i in items}


def wait_active(ddb, name, timeout=60):
    deadline = time.monotonic() + timeout
    while True:
        t = ddb.describe_table(TableName=name)["Table"]
        if t["TableStatus"] == "ACTIVE":
            return t
        assert time.monotonic() < deadline, f"{name} not ACTIVE within {timeout}s"
        time.sleep(0.05)


def iso(seconds: float) -> str:
    return datetime.datetime.fromtimestamp(int(seconds), datetime.timezone.utc).strftime(
        "%Y-%m-%dT%H:%M:%SZ")


class Writer:
    """Writes random puts, updates and deletes to a table from several threads and keeps the
    model: the last acknowledged state of every key. `gap()` stops every writer, waits until all
    are idle, then returns a restore point (a whole second) inside a quiet time, with the model
    as it was then."""

    def __init__(self, endpoint, name, keys=60, threads=3, seed=1):
        self.name = name
        self.clients = [make_client(endpoint) for _ in range(threads)]
        self.keys = keys
        self.rng = random.Random(seed)
        self.model: dict = {}
        self.lock = threading.Lock()
        self.key_locks = [threading.Lock() for _ in range(keys)]
        # Writes start only while `running`, counted in `active`, both under `gate`: a gap clears
        # `running`, then waits for `active` to fall to 0.
        self.gate = threading.Condition()
        self.running = False
        self.active = 0
        self.stop = False
        self.threads = [threading.Thread(target=self._run, args=(i,), daemon=True)
                        for i in range(threads)]
        self.errors: list = []
        self.writes = 0

    def start(self):
        self.running = True
        for t in self.threads:
            t.start()
        return self

    def _item(self, k: int, n: int, rng: random.Random):
        now = time.time()
        # Mostly far-future TTLs; some already expired (the sweeper deletes them within a
        # second), some expiring within a few seconds (TTL deletions during the run).
        r = rng.random()
        exp = int(now) + 3600 if r < 0.7 else (int(now) - 5 if r < 0.85 else int(now) + 2)
        return {"pk": {"S": f"p{k % 5}"}, "sk": {"N": str(k)}, "g": {"S": f"g{k % 3}"},
                "l": {"S": f"l{n:06d}"}, "v": {"N": str(n)}, "exp": {"N": str(exp)},
                "ss": {"SS": [f"a{n}", "b"]}}

    def _run(self, i: int):
        client = self.clients[i]
        rng = random.Random(self.rng.random())
        while not self.stop:
            with self.gate:
                if not self.running:
                    self.gate.wait(0.05)
                    continue
                self.active += 1
            try:
                self._write_one(client, rng)
            finally:
                with self.gate:
                    self.active -= 1
                    self.gate.notify_all()

    def _write_one(self, client, rng):
        k = rng.randrange(self.keys)
        with self.key_locks[k]:
            with self.lock:
                self.writes += 1
                n = self.writes
            key = {"pk": {"S": f"p{k % 5}"}, "sk": {"N": str(k)}}
            op = rng.random()
            try:
                if op < 0.6:
                    item = self._item(k, n, rng)
                    client.put_item(TableName=self.name, Item=item)
                    new = item
                elif op < 0.8:
                    r = client.update_item(TableName=self.name, Key=key,
                                           UpdateExpression="SET v = :v, g = :g",
                                           ExpressionAttributeValues={
                                               ":v": {"N": str(n)}, ":g": {"S": "gu"}},
                                           ReturnValues="ALL_NEW")
                    new = r["Attributes"]
                else:
                    client.delete_item(TableName=self.name, Key=key)
                    new = None
            except (BotoCoreError, ClientError) as e:  # the crash test kills the server
                self.errors.append(e)
                return
            with self.lock:
                if new is None:
                    self.model.pop(k, None)
                else:
                    self.model[k] = new

    def gap(self):
        """A restore point (epoch seconds, float) and the model at it."""
        with self.gate:
            self.running = False
            while self.active:
                self.gate.wait(1)
        # A whole second (boto3 sends RestoreDateTime in whole seconds), at least 0.1 s after
        # the last write was acknowledged and 0.15 s before the next one is sent.
        point = float(int(time.time() + 0.1) + 1)
        with self.lock:
            snapshot = {k: dict(v) for k, v in self.model.items()}
        time.sleep(max(0.0, point + 0.15 - time.time()))
        with self.gate:
            self.running = True
            self.gate.notify_all()
        return point, snapshot

    def finish(self):
        with self.gate:
            self.stop = True
            self.gate.notify_all()
        for t in self.threads:
            t.join(30)


def expected_at(snapshot: dict, point: float) -> dict:
    """The model at `point` as a restore gives it: items whose TTL had expired by then are out."""
    out = {}
    for item in snapshot.values():
        if "exp" in item and int(item["exp"]["N"]) * 1000 < point * 1000:
            continue
        out[(item["pk"]["S"], item["sk"]["N"])] = normalize_sets(item)
    return out


# --------------------------------------------------------------------------------------------
# DescribeContinuousBackups / UpdateContinuousBackups
# --------------------------------------------------------------------------------------------


def test_describe_on_a_new_table_says_pitr_disabled(ddb, table_name):
    e2e_util.create_table(ddb, table_name)
    r = ddb.describe_continuous_backups(TableName=table_name)
    assert r["ContinuousBackupsDescription"] == {
        "ContinuousBackupsStatus": "ENABLED",
        "PointInTimeRecoveryDescription": {"PointInTimeRecoveryStatus": "DISABLED"}}
    # The newer API takes the table's ARN too.
    r = ddb.describe_continuous_backups(TableName=ACCOUNT_ARN + table_name)
    assert r["ContinuousBackupsDescription"]["ContinuousBackupsStatus"] == "ENABLED"


def test_enable_change_period_and_disable(ddb, table_name):
    e2e_util.create_table(ddb, table_name)
    before = time.time()
    r = enable_pitr(ddb, table_name)
    after = time.time()
    d = r["ContinuousBackupsDescription"]
    assert d["ContinuousBackupsStatus"] == "ENABLED"
    assert d["PointInTimeRecoveryDescription"]["PointInTimeRecoveryStatus"] == "ENABLED"
    p = pitr_desc(ddb, table_name)
    assert set(p) == {"PointInTimeRecoveryStatus", "RecoveryPeriodInDays",
                      "EarliestRestorableDateTime", "LatestRestorableDateTime"}
    assert p["PointInTimeRecoveryStatus"] == "ENABLED"
    assert p["RecoveryPeriodInDays"] == 35
    earliest = p["EarliestRestorableDateTime"]
    assert isinstance(earliest, float)
    assert before - 0.01 <= earliest <= after + 0.01
    assert p["LatestRestorableDateTime"] >= earliest
    time.sleep(0.3)
    # Describe: the window grows with the clock; the start stays. (boto3 parses the dates.)
    p2 = ddb.describe_continuous_backups(TableName=table_name)[
        "ContinuousBackupsDescription"]["PointInTimeRecoveryDescription"]
    assert p2["EarliestRestorableDateTime"].timestamp() == pytest.approx(earliest, abs=0.002)
    assert p2["LatestRestorableDateTime"].timestamp() > earliest + 0.25
    # Enabling again with another period changes only the period.
    status, body = set_pitr(ddb, table_name, days=7)
    assert status == 200, body
    p3 = body["ContinuousBackupsDescription"]["PointInTimeRecoveryDescription"]
    assert p3["RecoveryPeriodInDays"] == 7
    assert p3["EarliestRestorableDateTime"] == pytest.approx(earliest, abs=0.002)
    assert pitr_desc(ddb, table_name)["RecoveryPeriodInDays"] == 7
    # Disable, twice: both answer DISABLED.
    for _ in range(2):
        r = ddb.update_continuous_backups(
            TableName=table_name,
            PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": False})
        assert r["ContinuousBackupsDescription"] == {
            "ContinuousBackupsStatus": "ENABLED",
            "PointInTimeRecoveryDescription": {"PointInTimeRecoveryStatus": "DISABLED"}}
    # Re-enabling starts a new window.
    status, body = set_pitr(ddb, table_name, days=1)
    assert status == 200, body
    p4 = body["ContinuousBackupsDescription"]["PointInTimeRecoveryDescription"]
    assert p4["EarliestRestorableDateTime"] > earliest + 0.25
    assert p4["RecoveryPeriodInDays"] == 1


def test_aws_cli_describe_update_and_restore(aws_cli, ddb, table_name):
    e2e_util.create_table(ddb, table_name)
    ddb.put_item(TableName=table_name, Item={"pk": {"S": "a"}, "v": {"N": "1"}})
    out = aws_cli("update-continuous-backups", "--table-name", table_name,
                  "--point-in-time-recovery-specification", "PointInTimeRecoveryEnabled=true")
    d = json.loads(out.stdout)["ContinuousBackupsDescription"]
    assert d["PointInTimeRecoveryDescription"]["PointInTimeRecoveryStatus"] == "ENABLED"
    ddb.put_item(TableName=table_name, Item={"pk": {"S": "b"}, "v": {"N": "2"}})
    out = aws_cli("describe-continuous-backups", "--table-name", table_name)
    p = json.loads(out.stdout)["ContinuousBackupsDescription"]["PointInTimeRecoveryDescription"]
    assert {"EarliestRestorableDateTime", "LatestRestorableDateTime"} <= set(p)
    out = aws_cli("restore-table-to-point-in-time", "--source-table-name", table_name,
                  "--target-table-name", table_name + "_cli", "--use-latest-restorable-time")
    desc = json.loads(out.stdout)["TableDescription"]
    assert desc["TableName"] == table_name + "_cli"
    assert desc["RestoreSummary"]["SourceTableArn"] == ACCOUNT_ARN + table_name
    assert "SourceBackupArn" not in desc["RestoreSummary"]
    wait_active(ddb, table_name + "_cli")
    got = {i["pk"]["S"] for i in scan_all(ddb, table_name + "_cli")}
    assert got == {"a", "b"}
    # An error through the CLI: its type and message as the service's.
    out = aws_cli("restore-table-to-point-in-time", "--source-table-name", table_name + "_cli",
                  "--target-table-name", table_name + "_x", "--use-latest-restorable-time",
                  check=False)
    assert out.returncode != 0
    assert "PointInTimeRecoveryUnavailableException" in out.stderr
    assert f"Point in time recovery is not enabled for table '{table_name}_cli'" in out.stderr


def test_update_and_describe_errors(ddb, table_name):
    missing = table_name + "_missing"
    assert_error(lambda: ddb.describe_continuous_backups(TableName=missing),
                 "TableNotFoundException", f"Table not found: {missing}")
    assert_error(lambda: enable_pitr(ddb, missing),
                 "TableNotFoundException", f"Table not found: {missing}")
    e2e_util.create_table(ddb, table_name)
    for days, msg in [(0, "Member must have value greater than or equal to 1"),
                      (36, "Member must have value less than or equal to 35")]:
        status, body = set_pitr(ddb, table_name, days=days)
        assert status == 400
        assert body["__type"].endswith("#ValidationException"), body
        assert body.get("message", body.get("Message")) == (
            f"1 validation error detected: Value '{days}' at "
            "'pointInTimeRecoverySpecification.recoveryPeriodInDays' failed to "
            f"satisfy constraint: {msg}"), body
    status, body = set_pitr(ddb, table_name, enabled=False, days=5)
    assert status == 400
    assert body["__type"].endswith("#ValidationException")
    assert body.get("message", body.get("Message")) == ("Invalid Request: Cannot specify RecoveryPeriodInDays when "
                               "disabling point-in-time recovery.")
    status, _, body = e2e_util.raw_call(
        _port(ddb), "DynamoDB_20120810.UpdateContinuousBackups", {"TableName": table_name})
    assert status == 400
    assert b"Value null at 'pointInTimeRecoverySpecification' failed to satisfy constraint: " \
           b"Member must not be null" in body
    status, _, body = e2e_util.raw_call(
        _port(ddb), "DynamoDB_20120810.UpdateContinuousBackups",
        {"TableName": table_name, "PointInTimeRecoverySpecification": {}})
    assert status == 400
    assert b"Value null at 'pointInTimeRecoverySpecification.pointInTimeRecoveryEnabled' " \
           b"failed to satisfy constraint: Member must not be null" in body
    # Nothing was changed by the refused calls.
    assert ddb.describe_continuous_backups(TableName=table_name)[
        "ContinuousBackupsDescription"]["PointInTimeRecoveryDescription"] == {
        "PointInTimeRecoveryStatus": "DISABLED"}


def _port(ddb) -> int:
    return int(ddb.meta.endpoint_url.rsplit(":", 1)[1])


def test_restore_errors(ddb, table_name):
    src, target = table_name, table_name + "_r"
    e2e_util.create_table(ddb, src)
    e2e_util.create_table(ddb, target)
    # PITR off: even with the target taken, the answer is about PITR (the service's order).
    assert_error(lambda: ddb.restore_table_to_point_in_time(
        SourceTableName=src, TargetTableName=target, UseLatestRestorableTime=True),
        "PointInTimeRecoveryUnavailableException",
        f"Point in time recovery is not enabled for table '{src}'")
    missing = src + "_missing"
    assert_error(lambda: ddb.restore_table_to_point_in_time(
        SourceTableName=missing, TargetTableName=target, UseLatestRestorableTime=True),
        "TableNotFoundException", f"Table not found: {missing}")
    assert_error(lambda: ddb.restore_table_to_point_in_time(
        SourceTableName=src, TargetTableName=target + "x"),
        "ValidationException",
        "Invalid Request: Either one of RestoreDateTime or UseLatestRestorableTime must be "
        "specified, but not both")
    assert_error(lambda: ddb.restore_table_to_point_in_time(
        SourceTableName=src, TargetTableName=target + "x", UseLatestRestorableTime=True,
        RestoreDateTime=datetime.datetime.now(datetime.timezone.utc)),
        "ValidationException",
        "Invalid Request: Both RestoreDateTime and UseLatestRestorableTime cannot be set for "
        "point-in-time restore request. Please specify either RestoreDateTime time or "
        "UseLatestRestorableTime")
    assert_error(lambda: ddb.restore_table_to_point_in_time(
        SourceTableName=src, SourceTableArn=ACCOUNT_ARN + src, TargetTableName=target + "x",
        UseLatestRestorableTime=True),
        "ValidationException",
        "Invalid Request: Must provide exactly one of: sourceTableArn, sourceTableName")
    enable_pitr(ddb, src)
    assert_error(lambda: ddb.restore_table_to_point_in_time(
        SourceTableName=src, TargetTableName=target, UseLatestRestorableTime=True),
        "TableAlreadyExistsException", f"Table already exists: {target}")
    assert_error(lambda: ddb.restore_table_to_point_in_time(
        SourceTableName=src, TargetTableName=src, UseLatestRestorableTime=True),
        "TableAlreadyExistsException", f"Table already exists: {src}")
    p = ddb.describe_continuous_backups(TableName=src)[
        "ContinuousBackupsDescription"]["PointInTimeRecoveryDescription"]
    earliest = p["EarliestRestorableDateTime"].timestamp()
    early = earliest - 3600
    e = e2e_util.ddb_error(lambda: ddb.restore_table_to_point_in_time(
        SourceTableName=src, TargetTableName=target, RestoreDateTime=early))
    # The time is checked before the target (the service's order).
    assert e.code == "InvalidRestoreTimeException"
    assert re.fullmatch(
        rf"RestoreDateTime '{re.escape(iso(early))}' must be within EarliestRestorableDateTime "
        rf"'{re.escape(iso(earliest))}' and LatestRestorableDateTime '\d{{4}}-\d\d-\d\dT"
        r"\d\d:\d\d:\d\dZ'", e.message), e.message
    late = time.time() + 3600
    e = e2e_util.ddb_error(lambda: ddb.restore_table_to_point_in_time(
        SourceTableName=src, TargetTableName=target + "x", RestoreDateTime=late))
    assert e.code == "InvalidRestoreTimeException"
    assert e.message.startswith(f"RestoreDateTime '{iso(late)}' must be within ")
    assert_error(lambda: ddb.restore_table_to_point_in_time(
        SourceTableName=src, TargetTableName=target + "x", UseLatestRestorableTime=True,
        GlobalSecondaryIndexOverride=[{"IndexName": "nope", "KeySchema": [
            {"AttributeName": "pk", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "ALL"}}]),
        "ValidationException",
        "One or more parameter values were invalid: The index nope does not exist in the backup")
    names = ddb.list_tables()["TableNames"]
    assert target + "x" not in names


# --------------------------------------------------------------------------------------------
# Restores
# --------------------------------------------------------------------------------------------


def test_restores_at_several_seconds_equal_the_model(server, ddb, table_name):
    create_source(ddb, table_name)
    # Items from before PITR: the log does not have them, the restore must (from the table).
    for k in range(0, 60, 3):
        ddb.put_item(TableName=table_name, Item={
            "pk": {"S": f"p{k % 5}"}, "sk": {"N": str(k)}, "g": {"S": "g0"},
            "l": {"S": "l000000"}, "v": {"N": "0"}, "exp": {"N": str(int(time.time()) + 3600)}})
    enable_pitr(ddb, table_name)
    writer = Writer(server.endpoint, table_name, seed=7)
    with writer.lock:
        for item in scan_all(ddb, table_name):
            writer.model[int(item["sk"]["N"])] = item
    writer.start()
    points = []
    try:
        for _ in range(4):
            time.sleep(1.2)
            points.append(writer.gap())
        time.sleep(0.5)
        # Restore while the writers go on (and the sweeper deletes what expires).
        for i, (point, snapshot) in enumerate(points):
            ddb.restore_table_to_point_in_time(
                SourceTableName=table_name, TargetTableName=f"{table_name}_at{i}",
                RestoreDateTime=point)
    finally:
        writer.finish()
    assert not writer.errors, writer.errors[:3]
    assert writer.writes > 100
    for i, (point, snapshot) in enumerate(points):
        name = f"{table_name}_at{i}"
        t = wait_active(ddb, name)
        assert t["RestoreSummary"]["RestoreInProgress"] is False
        assert t["RestoreSummary"]["RestoreDateTime"].timestamp() == pytest.approx(point,
                                                                                    abs=0.002)
        want = expected_at(snapshot, point)
        got = as_map(scan_all(ddb, name))
        # Items restored expired-at-T are left out; items expiring after T but before now are
        # deleted by the restored table's TTL (it keeps the setting) within about a second.
        now = time.time()
        soon = {k for k, v in want.items() if "exp" in v and int(v["exp"]["N"]) < now + 2}
        assert {k: v for k, v in got.items() if k not in soon} == \
               {k: v for k, v in want.items() if k not in soon}, f"restore {i} at {point}"
        # The indexes are rebuilt and queryable.
        for g in ("g0", "g1", "g2", "gu"):
            q = ddb.query(TableName=name, IndexName="by_g",
                          KeyConditionExpression="g = :g",
                          ExpressionAttributeValues={":g": {"S": g}})["Items"]
            assert {(x["pk"]["S"], x["sk"]["N"]) for x in q} - soon == \
                   {k for k, v in want.items() if v["g"]["S"] == g} - soon
        for p in range(5):
            q = ddb.query(TableName=name, IndexName="by_l",
                          KeyConditionExpression="pk = :p",
                          ExpressionAttributeValues={":p": {"S": f"p{p}"}})["Items"]
            assert {(x["pk"]["S"], x["sk"]["N"]) for x in q} - soon == \
                   {k for k, v in want.items() if k[0] == f"p{p}" and "l" in v} - soon
        ttl = ddb.describe_time_to_live(TableName=name)["TimeToLiveDescription"]
        assert ttl == {"TimeToLiveStatus": "ENABLED", "AttributeName": "exp"}
        assert ddb.describe_continuous_backups(TableName=name)[
            "ContinuousBackupsDescription"]["PointInTimeRecoveryDescription"] == {
            "PointInTimeRecoveryStatus": "DISABLED"}


def test_restore_with_overrides_and_by_arn(ddb, table_name):
    create_source(ddb, table_name, ttl=False)
    enable_pitr(ddb, table_name)
    for k in range(20):
        ddb.put_item(TableName=table_name, Item={
            "pk": {"S": f"p{k % 2}"}, "sk": {"N": str(k)}, "g": {"S": f"g{k % 3}"},
            "l": {"S": f"l{k}"}})
    target = table_name + "_o"
    r = ddb.restore_table_to_point_in_time(
        SourceTableArn=ACCOUNT_ARN + table_name, TargetTableName=target,
        UseLatestRestorableTime=True, BillingModeOverride="PROVISIONED",
        ProvisionedThroughputOverride={"ReadCapacityUnits": 7, "WriteCapacityUnits": 3},
        GlobalSecondaryIndexOverride=[], LocalSecondaryIndexOverride=[{
            "IndexName": "by_l", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                                               {"AttributeName": "l", "KeyType": "RANGE"}],
            "Projection": {"ProjectionType": "KEYS_ONLY"}}],
        SSESpecificationOverride={"Enabled": True, "SSEType": "KMS"})
    desc = r["TableDescription"]
    assert desc["TableStatus"] == "CREATING"
    assert desc["RestoreSummary"]["SourceTableArn"] == ACCOUNT_ARN + table_name
    t = wait_active(ddb, target)
    assert t.get("BillingModeSummary", {}).get("BillingMode", "PROVISIONED") == "PROVISIONED"
    assert t["ProvisionedThroughput"]["ReadCapacityUnits"] == 7
    assert t["ProvisionedThroughput"]["WriteCapacityUnits"] == 3
    assert "GlobalSecondaryIndexes" not in t
    assert [ix["IndexName"] for ix in t["LocalSecondaryIndexes"]] == ["by_l"]
    assert len(scan_all(ddb, target)) == 20
    q = ddb.query(TableName=target, IndexName="by_l", KeyConditionExpression="pk = :p",
                  ExpressionAttributeValues={":p": {"S": "p0"}})["Items"]
    assert len(q) == 10
    # TTL off on the source: off on the restored table.
    assert ddb.describe_time_to_live(TableName=target)["TimeToLiveDescription"] == {
        "TimeToLiveStatus": "DISABLED"}


def test_the_window_is_kept_to_the_server_flag(start_server, tmp_path):
    # 0.002 h = 7.2 s of history; the trimmer runs every second.
    srv = start_server(tmp_path / "data", ["--pitr-window-hours", "0.002"])
    client = make_client(srv.endpoint)
    e2e_util.create_table(client, "win")
    enable_pitr(client, "win")
    for i in range(50):
        client.put_item(TableName="win", Item={"pk": {"S": f"k{i % 5}"}, "v": {"N": str(i)}})
    time.sleep(9)
    p = client.describe_continuous_backups(TableName="win")[
        "ContinuousBackupsDescription"]["PointInTimeRecoveryDescription"]
    now = time.time()
    assert p["EarliestRestorableDateTime"].timestamp() == pytest.approx(now - 7.2, abs=0.5)
    e = e2e_util.ddb_error(lambda: client.restore_table_to_point_in_time(
        SourceTableName="win", TargetTableName="win2", RestoreDateTime=now - 8.5))
    assert e.code == "InvalidRestoreTimeException"
    # Within the window: the state from after every write.
    client.restore_table_to_point_in_time(SourceTableName="win", TargetTableName="win3",
                                          RestoreDateTime=now - 6)
    wait_active(client, "win3")
    assert {(i["pk"]["S"], i["v"]["N"]) for i in scan_all(client, "win3")} == \
           {(f"k{i}", str(45 + i)) for i in range(5)}
    assert srv.stop() == 0
    out = e2e_util.check_data_dir(tmp_path / "data")
    # The 50 records were older than the window: the trimmer dropped them all.
    assert " 0 PITR change-log records" in out, out


# --------------------------------------------------------------------------------------------
# Crash: kill -9 during a restore and during writes
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_kill_during_restore_and_writes(start_server, tmp_path, seed):
    rng = random.Random(seed)
    data = tmp_path / "data"
    srv = start_server(data)
    client = make_client(srv.endpoint)
    create_source(client, "src")
    enable_pitr(client, "src")
    writer = Writer(srv.endpoint, "src", keys=400, threads=3, seed=seed)
    # A few thousand items, so that the restore takes long enough to be killed inside.
    items = [{"pk": {"S": f"p{k % 5}"}, "sk": {"N": str(k)}, "g": {"S": f"g{k % 3}"},
              "l": {"S": f"l{k:06d}"}, "v": {"N": "0"},
              "exp": {"N": str(int(time.time()) + 3600)}} for k in range(400, 4400)]
    for i in range(0, len(items), 25):
        client.batch_write_item(RequestItems={"src": [
            {"PutRequest": {"Item": it}} for it in items[i:i + 25]]})
    writer.start()
    time.sleep(1.0)
    point, snapshot = writer.gap()
    time.sleep(1.2)
    started = time.monotonic()

    def restore():
        try:
            client.restore_table_to_point_in_time(SourceTableName="src", TargetTableName="dst",
                                                  RestoreDateTime=point)
        except (BotoCoreError, ClientError):
            pass
    t = threading.Thread(target=restore, daemon=True)
    t.start()
    delay = rng.uniform(0.0, 0.4)
    time.sleep(max(0.0, started + delay - time.monotonic()))
    srv.kill()
    writer.finish()
    t.join(10)
    # Whatever the moment, every invariant holds in the killed data dir. After the restart the
    # restore is resumed (started again from the source at the same point) or was done.
    e2e_util.check_data_dir(data)
    srv = start_server(data)
    client = make_client(srv.endpoint)
    log = srv.log_text()
    if "event=pitr_restore_resumed table=dst" in log:
        state = "during"  # the start dropped the partial target and restores it again
    elif "dst" in client.list_tables()["TableNames"]:
        state = "after"
    else:
        state = "before"
    assert "event=restore_abandoned table=dst" not in log
    print(f"\ncrash-job pitr-restore seed={seed} kill_after_ms={delay * 1000:.0f} state={state}")
    if state == "before":
        client.restore_table_to_point_in_time(SourceTableName="src", TargetTableName="dst",
                                              RestoreDateTime=point)
    wait_active(client, "dst", timeout=120)
    want = expected_at(snapshot, point)
    want.update({(it["pk"]["S"], it["sk"]["N"]): normalize_sets(it) for it in items})
    got = as_map(scan_all(client, "dst"))
    now = time.time()
    soon = {k for k, v in want.items() if "exp" in v and int(v["exp"]["N"]) < now + 2}
    assert {k: v for k, v in got.items() if k not in soon} == \
           {k: v for k, v in want.items() if k not in soon}
    assert srv.stop() == 0
    e2e_util.check_data_dir(data)
