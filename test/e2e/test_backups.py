"""On-demand backups (D17): CreateBackup, DescribeBackup, ListBackups, DeleteBackup and
RestoreTableFromBackup through boto3 and the AWS CLI, and `ttlstore backup` / `ttlstore restore`
from the command line. A restore must reproduce the table exactly: items, key schema, indexes and
TTL settings, with the expiry index rebuilt so restored items still expire."""

from __future__ import annotations

import json
import re
import subprocess
import time

import pytest

import e2e_util
from e2e_util import TTLSTORE_BIN, assert_error, make_client, normalize_sets

ARN_RE = re.compile(r"^arn:aws:dynamodb:us-east-1:000000000000:table/([^/]+)/backup/\d{14}-[0-9a-f]{8}$")


def _create_source(ddb, name):
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
    ddb.update_time_to_live(TableName=name, TimeToLiveSpecification={
        "Enabled": True, "AttributeName": "exp"})


def _fill(ddb, name, n, exp=None):
    for i in range(n):
        item = {"pk": {"S": f"p{i % 7}"}, "sk": {"N": str(i)}, "g": {"S": f"g{i % 3}"},
                "l": {"S": f"l{i:04d}"}, "b": {"B": bytes([i % 256, 0, 255])},
                "m": {"M": {"n": {"L": [{"N": "1.5"}, {"SS": ["x", "y"]}, {"NULL": True}]}}},
                "exp": {"N": str(exp if exp is not None else int(time.time()) + 86400)}}
        ddb.put_item(TableName=name, Item=item)


def _scan_all(ddb, name, **kw):
    items, start = [], None
    while True:
        args = dict(TableName=name, ConsistentRead=True, **kw)
        if start:
            args["ExclusiveStartKey"] = start
        page = ddb.scan(**args)
        items += page["Items"]
        start = page.get("LastEvaluatedKey")
        if not start:
            break
    key = lambda it: (it["pk"]["S"], float(it["sk"]["N"]))  # noqa: E731
    return [normalize_sets(i) for i in sorted(items, key=key)]


def _wait_active(ddb, name, timeout=30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        t = ddb.describe_table(TableName=name)["Table"]
        if t["TableStatus"] == "ACTIVE":
            return t
        time.sleep(0.05)
    raise AssertionError(f"{name} not ACTIVE within {timeout}s")


def test_restore_reproduces_the_table_as_it_was(ddb, table_name):
    _create_source(ddb, table_name)
    _fill(ddb, table_name, 120)
    before = _scan_all(ddb, table_name)
    details = ddb.create_backup(TableName=table_name, BackupName="nightly")["BackupDetails"]
    assert ARN_RE.match(details["BackupArn"]).group(1) == table_name
    assert details["BackupName"] == "nightly"
    assert details["BackupStatus"] == "AVAILABLE"
    assert details["BackupType"] == "USER"
    assert details["BackupSizeBytes"] > 0
    # Changes after the backup are not in it.
    ddb.delete_item(TableName=table_name, Key={"pk": {"S": "p0"}, "sk": {"N": "0"}})
    _fill(ddb, table_name, 3, exp=1)

    target = table_name + "_restored"
    desc = ddb.restore_table_from_backup(TargetTableName=target,
                                         BackupArn=details["BackupArn"])["TableDescription"]
    assert desc["TableName"] == target
    assert desc["RestoreSummary"]["SourceBackupArn"] == details["BackupArn"]
    assert desc["RestoreSummary"]["SourceTableArn"].endswith(":table/" + table_name)
    t = _wait_active(ddb, target)
    assert t["RestoreSummary"]["RestoreInProgress"] is False
    assert t["ItemCount"] == 120
    assert t["KeySchema"] == [{"AttributeName": "pk", "KeyType": "HASH"},
                              {"AttributeName": "sk", "KeyType": "RANGE"}]
    assert [g["IndexName"] for g in t["GlobalSecondaryIndexes"]] == ["by_g"]
    assert [i["IndexName"] for i in t["LocalSecondaryIndexes"]] == ["by_l"]
    assert _scan_all(ddb, target) == before
    # The indexes were rebuilt: the same queries give the same answers.
    for index, cond, values in [
            ("by_g", "g = :v", {":v": {"S": "g1"}}),
            ("by_l", "pk = :v AND l < :l", {":v": {"S": "p3"}, ":l": {"S": "l0050"}})]:
        q = ddb.query(TableName=target, IndexName=index, KeyConditionExpression=cond,
                      ExpressionAttributeValues=values)
        assert q["Count"] > 0
        expected = [i for i in before if (index == "by_g" and i["g"]["S"] == "g1") or
                    (index == "by_l" and i["pk"]["S"] == "p3" and i["l"]["S"] < "l0050")]
        assert q["Count"] == len(expected)
    # TTL settings come with the table.
    ttl = ddb.describe_time_to_live(TableName=target)["TimeToLiveDescription"]
    assert ttl == {"TimeToLiveStatus": "ENABLED", "AttributeName": "exp"}


def test_restored_items_still_expire(ddb, table_name):
    _create_source(ddb, table_name)
    soon = int(time.time()) + 2
    _fill(ddb, table_name, 5, exp=soon)
    arn = ddb.create_backup(TableName=table_name, BackupName="b-exp")["BackupDetails"]["BackupArn"]
    target = table_name + "_r"
    ddb.restore_table_from_backup(TargetTableName=target, BackupArn=arn)
    _wait_active(ddb, target)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if ddb.scan(TableName=target, ConsistentRead=True)["Count"] == 0:
            break
        time.sleep(0.2)
    assert ddb.scan(TableName=target, ConsistentRead=True)["Count"] == 0


def test_describe_list_and_delete(ddb, table_name):
    e2e_util.create_table(ddb, table_name)
    ddb.put_item(TableName=table_name, Item={"pk": {"S": "a"}})
    ddb.update_time_to_live(TableName=table_name, TimeToLiveSpecification={
        "Enabled": True, "AttributeName": "ttl"})
    arns = [ddb.create_backup(TableName=table_name, BackupName=f"bk{i}")["BackupDetails"]["BackupArn"]
            for i in range(3)]
    d = ddb.describe_backup(BackupArn=arns[0])["BackupDescription"]
    assert d["BackupDetails"]["BackupArn"] == arns[0]
    assert d["SourceTableDetails"]["TableName"] == table_name
    assert d["SourceTableDetails"]["ItemCount"] == 1
    assert d["SourceTableDetails"]["KeySchema"] == [{"AttributeName": "pk", "KeyType": "HASH"}]
    assert d["SourceTableDetails"]["BillingMode"] == "PAY_PER_REQUEST"
    assert d["SourceTableFeatureDetails"]["TimeToLiveDescription"] == {
        "TimeToLiveStatus": "ENABLED", "AttributeName": "ttl"}

    listed = ddb.list_backups(TableName=table_name)["BackupSummaries"]
    assert [b["BackupArn"] for b in listed] == arns
    assert all(b["TableName"] == table_name and b["BackupStatus"] == "AVAILABLE" for b in listed)
    page = ddb.list_backups(TableName=table_name, Limit=2)
    assert [b["BackupArn"] for b in page["BackupSummaries"]] == arns[:2]
    assert page["LastEvaluatedBackupArn"] == arns[1]
    rest = ddb.list_backups(TableName=table_name, Limit=2,
                            ExclusiveStartBackupArn=page["LastEvaluatedBackupArn"])
    assert [b["BackupArn"] for b in rest["BackupSummaries"]] == arns[2:]
    assert ddb.list_backups(TableName=table_name, BackupType="SYSTEM")["BackupSummaries"] == []

    gone = ddb.delete_backup(BackupArn=arns[0])["BackupDescription"]
    assert gone["BackupDetails"]["BackupStatus"] == "DELETED"
    assert_error(ddb.describe_backup, "BackupNotFoundException", f"Backup not found: {arns[0]}",
                 BackupArn=arns[0])
    assert_error(ddb.restore_table_from_backup, "BackupNotFoundException",
                 f"Backup not found: {arns[0]}", TargetTableName=table_name + "_x",
                 BackupArn=arns[0])
    assert [b["BackupArn"] for b in
            ddb.list_backups(TableName=table_name)["BackupSummaries"]] == arns[1:]


def test_errors(ddb, table_name):
    assert_error(ddb.create_backup, "TableNotFoundException", f"Table not found: {table_name}",
                 TableName=table_name, BackupName="bk1")
    e2e_util.create_table(ddb, table_name)
    arn = ddb.create_backup(TableName=table_name, BackupName="bk1")["BackupDetails"]["BackupArn"]
    assert_error(ddb.restore_table_from_backup, "TableAlreadyExistsException",
                 f"Table already exists: {table_name}", TargetTableName=table_name, BackupArn=arn)
    err = e2e_util.ddb_error(ddb.create_backup, TableName=table_name, BackupName="b!")
    assert err.code == "ValidationException"
    assert "backupName" in err.message
    err = e2e_util.ddb_error(ddb.restore_table_from_backup, TargetTableName=table_name + "_y",
                             BackupArn=arn, GlobalSecondaryIndexOverride=[
                                 {"IndexName": "nope", "KeySchema": [
                                     {"AttributeName": "pk", "KeyType": "HASH"}],
                                  "Projection": {"ProjectionType": "ALL"}}])
    assert err.code == "ValidationException"
    assert "nope" in err.message
    assert table_name + "_y" not in ddb.list_tables()["TableNames"]


def test_backup_outlives_its_table_and_a_restart(start_server, tmp_path):
    srv = start_server()
    ddb = make_client(srv.endpoint)
    e2e_util.create_table(ddb, "source")
    for i in range(10):
        ddb.put_item(TableName="source", Item={"pk": {"S": str(i)}, "v": {"N": str(i)}})
    arn = ddb.create_backup(TableName="source", BackupName="keep")["BackupDetails"]["BackupArn"]
    ddb.delete_table(TableName="source")
    srv.stop()
    srv = start_server(data_dir=srv.data_dir)
    ddb = make_client(srv.endpoint)
    assert [b["BackupArn"] for b in ddb.list_backups()["BackupSummaries"]] == [arn]
    ddb.restore_table_from_backup(TargetTableName="source", BackupArn=arn)
    _wait_active(ddb, "source")
    assert ddb.scan(TableName="source")["Count"] == 10
    assert ddb.describe_table(TableName="source")["Table"]["RestoreSummary"]["SourceBackupArn"] == arn


def test_aws_cli(aws_cli, ddb, table_name):
    e2e_util.create_table(ddb, table_name)
    ddb.put_item(TableName=table_name, Item={"pk": {"S": "a"}})
    created = json.loads(aws_cli("create-backup", "--table-name", table_name,
                                 "--backup-name", "cli-backup").stdout)
    arn = created["BackupDetails"]["BackupArn"]
    listed = json.loads(aws_cli("list-backups", "--table-name", table_name).stdout)
    assert [b["BackupArn"] for b in listed["BackupSummaries"]] == [arn]
    aws_cli("restore-table-from-backup", "--target-table-name", table_name + "_cli",
            "--backup-arn", arn)
    _wait_active(ddb, table_name + "_cli")
    assert ddb.get_item(TableName=table_name + "_cli", Key={"pk": {"S": "a"}})["Item"] == {
        "pk": {"S": "a"}}


def _ttlstore(*args, timeout=120):
    return subprocess.run([TTLSTORE_BIN, *args], capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)


def test_command_line_backup_while_serving_and_offline_restore(start_server, tmp_path):
    srv = start_server()
    ddb = make_client(srv.endpoint)
    _create_source(ddb, "cli_src")
    _fill(ddb, "cli_src", 60)
    before = _scan_all(ddb, "cli_src")
    # A read-only view: works while the server holds the data dir.
    out = _ttlstore("backup", "--data-dir", str(srv.data_dir), "-t", "cli_src", "--name", "cli")
    assert out.returncode == 0, out.stderr
    assert "100%" in out.stderr and "60/60 items" in out.stderr
    path, arn = out.stdout.split()
    assert ARN_RE.match(arn)
    # Written where the server keeps its backups: the API lists it at once.
    assert arn in [b["BackupArn"] for b in ddb.list_backups()["BackupSummaries"]]
    # Restoring writes: refused while the server runs, with what to do instead.
    busy = _ttlstore("restore", "--data-dir", str(srv.data_dir), "--from", path, "-t", "cli_dst")
    assert busy.returncode != 0
    assert "Stop it first" in busy.stderr
    srv.stop()
    done = _ttlstore("restore", "--data-dir", str(srv.data_dir), "--from", path, "-t", "cli_dst")
    assert done.returncode == 0, done.stderr
    assert "100%" in done.stderr
    again = _ttlstore("restore", "--data-dir", str(srv.data_dir), "--from", path, "-t", "cli_dst")
    assert again.returncode != 0 and "Table already exists: cli_dst" in again.stderr
    check = _ttlstore("check", "--data-dir", str(srv.data_dir))
    assert check.returncode == 0, check.stdout + check.stderr
    srv = start_server(data_dir=srv.data_dir)
    ddb = make_client(srv.endpoint)
    assert _scan_all(ddb, "cli_dst") == before
    assert ddb.describe_time_to_live(TableName="cli_dst")["TimeToLiveDescription"] == {
        "TimeToLiveStatus": "ENABLED", "AttributeName": "exp"}
    assert ddb.query(TableName="cli_dst", IndexName="by_g", KeyConditionExpression="g = :g",
                     ExpressionAttributeValues={":g": {"S": "g2"}})["Count"] == 20


def test_damaged_backup_file_restores_nothing(start_server, tmp_path):
    srv = start_server()
    ddb = make_client(srv.endpoint)
    e2e_util.create_table(ddb, "dmg")
    for i in range(50):
        ddb.put_item(TableName="dmg", Item={"pk": {"S": str(i)}, "pad": {"S": "x" * 200}})
    out = _ttlstore("backup", "--data-dir", str(srv.data_dir), "-t", "dmg",
                    "-o", str(tmp_path / "dmg.ttlbak"))
    assert out.returncode == 0, out.stderr
    srv.stop()
    data = (tmp_path / "dmg.ttlbak").read_bytes()
    (tmp_path / "cut.ttlbak").write_bytes(data[: len(data) // 2])
    flipped = bytearray(data)
    flipped[len(data) // 2] ^= 0xFF
    (tmp_path / "flipped.ttlbak").write_bytes(bytes(flipped))
    for name in ("cut", "flipped"):
        r = _ttlstore("restore", "--data-dir", str(srv.data_dir), "--from",
                      str(tmp_path / f"{name}.ttlbak"), "-t", f"dmg_{name}")
        assert r.returncode != 0
        assert "damaged or incomplete" in r.stderr
    srv = start_server(data_dir=srv.data_dir)
    tables = make_client(srv.endpoint).list_tables()["TableNames"]
    assert tables == ["dmg"]


def test_restore_interrupted_by_a_crash_is_whole_or_absent(start_server, tmp_path):
    srv = start_server()
    ddb = make_client(srv.endpoint)
    e2e_util.create_table(ddb, "big")
    n = 3000
    for start in range(0, n, 25):
        ddb.batch_write_item(RequestItems={"big": [
            {"PutRequest": {"Item": {"pk": {"S": f"k{i}"}, "pad": {"S": "y" * 300}}}}
            for i in range(start, min(n, start + 25))]})
    arn = ddb.create_backup(TableName="big", BackupName="big")["BackupDetails"]["BackupArn"]
    ddb.restore_table_from_backup(TargetTableName="big_r", BackupArn=arn)
    srv.kill()
    srv = start_server(data_dir=srv.data_dir)
    ddb = make_client(srv.endpoint)

    # Dropped at the start on RocksDB; on PostgreSQL once the killed process's restore lease
    # has lapsed (src/backup/restore_lease.h), by the recovery pass, within a lease period or two.
    if e2e_util.wait_until(lambda: e2e_util.table_settled(ddb, "big_r"), 30,
                           "the interrupted restore dropped or finished") == "active":
        t = _wait_active(ddb, "big_r")
        assert t["ItemCount"] == n
        assert ddb.scan(TableName="big_r", Select="COUNT")["Count"] == n
    else:
        assert "event=restore_abandoned table=big_r" in srv.log_text()
    srv.stop()
    check = _ttlstore("check", "--data-dir", str(srv.data_dir))
    assert check.returncode == 0, check.stdout + check.stderr
