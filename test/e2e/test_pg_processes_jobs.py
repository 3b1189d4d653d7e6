"""One-shot background work through several ttlstore processes on one PostgreSQL database
(issue 34): a GSI backfill, a GSI drop and a TTL backfill are each a lease unit
(`index/<table>/<index>/build` or `/drop`, src/index/index_builder.h; `ttl/backfill/<table>`,
src/ttl/backfill.h); every process finds the pending ones in its catalog, so a kill -9 of the
process running one hands it to another within the lease time, which finishes it: the index
ACTIVE and complete (or gone with every entry), every item with its expiry entry, `ttlstore
check` clean.

The kill lands at a seeded moment after the first process took the unit; if the job was done by
then (its last commit landed), the other process has nothing to take over: the test says which
happened and checks the result either way.

Runs on its own throwaway PostgreSQL 15 (scripts/pg-server.sh), like test_pg_processes.py.
"""
from __future__ import annotations

import os
import random
import re
import threading
import time

import pytest

from e2e_util import make_client, table_settled, wait_until
from pg_util import check_storage, private_pg, schema_conninfo, serve_on
from test_crash_jobs import (GSI, TABLE, create_table, fill, in_background, index_count,
                             index_status, item, keys_present)

LEASE_SECONDS = 1.5
ITEMS = int(os.environ.get("TTLSTORE_CRASH_ITEMS", 6000))
SEED = int(os.environ.get("TTLSTORE_CRASH_SEED", 20261128))
SEEDS = [SEED + i for i in range(int(os.environ.get("TTLSTORE_CRASH_SEEDS", 2)))]


@pytest.fixture(scope="module")
def pg():
    yield from private_pg()


def _kill_when_holding(srv, unit_re: str, rng: random.Random,
                      done_re: str = r"event=index_(backfill|drop)_done") -> str:
    """Waits until `srv` holds a unit matching `unit_re`, then kill -9 after 0-50 ms; returns
    what the log says the job had reached."""
    wait_until(lambda: re.search(r"event=lease_held unit=" + unit_re, srv.log_text()), 30,
               "the first process took the job", interval=0.01)
    time.sleep(rng.uniform(0, 0.05))
    srv.kill()
    done = re.search(done_re, srv.log_text())
    return "finished before the kill" if done else "killed mid-job"


def _taken_over(second, unit_re: str, done_re: str) -> bool:
    """Whether `second` took the unit over (then waits until it logs the job done). The first
    process's log cannot tell whether its last commit landed before the kill: a job it finished
    leaves `second` nothing to take, and the final state (asserted by the caller) decides."""
    deadline = time.monotonic() + 2 * LEASE_SECONDS + 5
    pattern = r"event=lease_held unit=" + unit_re + r" generation=\d+ took_over=true"
    while not re.search(pattern, second.log_text()):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    wait_until(lambda: re.search(done_re, second.log_text()), 60, "the taken-over job done")
    return True


def _two_processes(pg, tmp_path, schema: str):
    """Two servers on a new schema of `pg`: (conninfo, first, second)."""
    conninfo = schema_conninfo(pg, schema)
    return (conninfo,) + tuple(serve_on(tmp_path, conninfo, name, "--lease-seconds",
                                        str(LEASE_SECONDS)) for name in ("a", "b"))


@pytest.mark.parametrize("seed", SEEDS)
def test_a_gsi_backfill_left_by_a_killed_process_is_finished_by_another(pg, tmp_path, seed):
    rng = random.Random(seed)
    conninfo, first, second = _two_processes(pg, tmp_path, f"jobs_build_{seed}")
    try:
        c1, c2 = make_client(first.endpoint), make_client(second.endpoint)
        create_table(c1)
        fill(c1, [item(i, None, g=i % 3 != 0) for i in range(ITEMS)])
        c1.update_table(TableName=TABLE,
                        AttributeDefinitions=[{"AttributeName": "g", "AttributeType": "S"}],
                        GlobalSecondaryIndexUpdates=[{"Create": GSI}])
        state = _kill_when_holding(first, r"index/\d+/\d+/build", rng)
        killed = time.monotonic()
        wait_until(lambda: index_status(c2) == "ACTIVE", 60, "the other process finished it")
        took = time.monotonic() - killed
        with_g = c2.scan(TableName=TABLE, Select="COUNT", ConsistentRead=True,
                         FilterExpression="attribute_exists(g)")["Count"]
        assert with_g == ITEMS - len(range(0, ITEMS, 3))
        assert index_count(c2, "by_g") == with_g
        if state == "killed mid-job" and _taken_over(second, r"index/\d+/\d+/build",
                                                     r"event=index_backfill_done"):
            state += ", taken over"
        print(f"seed={seed} {state}; ACTIVE {took:.1f} s after the kill")
    finally:
        first.stop()
        second.stop()
    out = check_storage(tmp_path / "data-b", conninfo)
    assert f"{with_g} index entries" in out


@pytest.mark.parametrize("seed", SEEDS)
def test_a_gsi_drop_left_by_a_killed_process_is_finished_by_another(pg, tmp_path, seed):
    rng = random.Random(seed)
    conninfo, first, second = _two_processes(pg, tmp_path, f"jobs_drop_{seed}")
    try:
        c1, c2 = make_client(first.endpoint), make_client(second.endpoint)
        create_table(c1, gsi=True)
        fill(c1, [item(i, None) for i in range(ITEMS)])
        c1.update_table(TableName=TABLE, GlobalSecondaryIndexUpdates=[{"Delete": {
            "IndexName": "by_g"}}])
        state = _kill_when_holding(first, r"index/\d+/\d+/drop", rng)
        # Gone from the table at once (in the other process within its catalog refresh).
        wait_until(lambda: index_status(c2) is None, 10, "the index gone from the table")
        if state == "killed mid-job" and _taken_over(second, r"index/\d+/\d+/drop",
                                                     r"event=index_drop_done"):
            state += ", taken over"
        print(f"seed={seed} {state}")
    finally:
        first.stop()
        second.stop()
    # Every entry removed: the check finds none, and the table whole.
    out = check_storage(tmp_path / "data-b", conninfo)
    assert "0 index entries" in out


@pytest.mark.parametrize("seed", SEEDS)
def test_a_ttl_backfill_left_by_a_killed_process_is_finished_by_another(pg, tmp_path, seed):
    rng = random.Random(seed)
    conninfo, first, second = _two_processes(pg, tmp_path, f"jobs_ttl_{seed}")
    try:
        c1, c2 = make_client(first.endpoint), make_client(second.endpoint)
        create_table(c1)
        later = int(time.time()) + 86400
        fill(c1, [item(i, later if i % 2 == 0 else None) for i in range(ITEMS)])
        in_background(lambda: c1.update_time_to_live(
            TableName=TABLE, TimeToLiveSpecification={"Enabled": True, "AttributeName": "exp"}))
        state = _kill_when_holding(first, r"ttl/backfill/\d+", rng, r"event=ttl_backfill_done")
        if state == "killed mid-job" and _taken_over(second, r"ttl/backfill/\d+",
                                                     r"event=ttl_backfill_done"):
            state += ", taken over"
        # (Seen by the other process within its catalog refresh.)
        wait_until(lambda: c2.describe_time_to_live(TableName=TABLE)["TimeToLiveDescription"] ==
                   {"TimeToLiveStatus": "ENABLED", "AttributeName": "exp"}, 10, "TTL enabled")
        print(f"seed={seed} {state}")
    finally:
        first.stop()
        second.stop()
    # Every item with an expiry time has its entry, none is left awaiting the backfill.
    out = check_storage(tmp_path / "data-b", conninfo)
    assert "(0 awaiting a TTL backfill)" in out and f"{ITEMS // 2} expiry entries" in out, out


def test_a_restore_under_way_is_left_alone_by_a_process_that_starts(pg, tmp_path):
    """A process starting while another restores a table from a backup sees the table marked
    in progress; the restore's lease (`restore/<table>`, src/backup/restore_lease.h) tells it
    the restore runs elsewhere, so it does not drop the table as one a stop interrupted. A
    restore whose process was killed is dropped once its lease lapses, by the recovery pass of a
    live process, as a restart would."""
    conninfo = schema_conninfo(pg, "jobs_restore")
    first = serve_on(tmp_path, conninfo, "a", "--lease-seconds", str(LEASE_SECONDS))
    others = []
    try:
        c1 = make_client(first.endpoint)
        create_table(c1, gsi=True)
        n = 3 * ITEMS
        fill(c1, [item(i, None) for i in range(n)])
        backup = c1.create_backup(TableName=TABLE, BackupName="jobs-backup")["BackupDetails"]["BackupArn"]
        c1.restore_table_from_backup(TargetTableName="restored", BackupArn=backup)
        others.append(serve_on(tmp_path, conninfo, "b", "--lease-seconds", str(LEASE_SECONDS)))
        second = others[0]
        elsewhere = "event=restore_running_elsewhere table=restored" in second.log_text()
        assert "event=restore_abandoned table=restored" not in second.log_text()
        c2 = make_client(second.endpoint)
        wait_until(lambda: c2.describe_table(TableName="restored")["Table"]["TableStatus"] ==
                   "ACTIVE", 60, "the restore finished")
        assert len(keys_present(c2, "restored")) == n
        assert index_count(c2, "by_g", "restored") == n
        print(f"the second process started {'during' if elsewhere else 'after'} the restore")

        # Killed mid-restore: once its lease lapses, the recovery pass of a live process (the
        # second one, or a process started later) drops the partial table.
        c1.restore_table_from_backup(TargetTableName="restored2", BackupArn=backup)
        first.kill()
        others.append(serve_on(tmp_path, conninfo, "c", "--lease-seconds", str(LEASE_SECONDS)))
        third = others[1]
        c3 = make_client(third.endpoint)
        state = wait_until(lambda: table_settled(c3, "restored2"), 30,
                           "the killed restore dropped (or finished)")
        if state == "dropped":
            assert any("event=restore_abandoned table=restored2" in srv.log_text()
                       for srv in others)
        else:
            assert len(keys_present(c3, "restored2")) == n
        print(f"killed restore: {state}")
    finally:
        first.stop()
        for srv in others:
            srv.stop()


def test_exports_and_imports_are_seen_through_every_process(pg, tmp_path):
    """An export and an import started through one process are described and listed through the
    other (their records are in the database: src/backup/job_records.h), the processes sharing
    --export-dir as they would share S3. An export whose process is killed mid-run is marked
    FAILED through the other once its lease (`export/<id>`) lapses, by the recovery pass, and its
    files never claim to be whole; one that finished before the kill stays COMPLETED."""
    conninfo = schema_conninfo(pg, "jobs_exports")
    s3 = tmp_path / "s3"
    (s3 / "exports").mkdir(parents=True)
    first, second = (serve_on(tmp_path, conninfo, name, "--lease-seconds", str(LEASE_SECONDS),
                              "--export-dir", str(s3)) for name in ("a", "b"))
    try:
        c1, c2 = make_client(first.endpoint), make_client(second.endpoint)
        create_table(c1)
        c1.update_continuous_backups(TableName=TABLE, PointInTimeRecoverySpecification={
            "PointInTimeRecoveryEnabled": True})
        fill(c1, [item(i, None) for i in range(ITEMS)])
        arn = c1.describe_table(TableName=TABLE)["Table"]["TableArn"]
        export = c1.export_table_to_point_in_time(TableArn=arn, S3Bucket="exports")[
            "ExportDescription"]["ExportArn"]
        described = wait_until(lambda: (lambda d: d if d["ExportStatus"] != "IN_PROGRESS" else None)(
            c2.describe_export(ExportArn=export)["ExportDescription"]), 60, "the export done")
        assert described["ExportStatus"] == "COMPLETED" and described["ItemCount"] == ITEMS
        assert [e["ExportArn"] for e in c2.list_exports()["ExportSummaries"]] == [export]
        # One ClientToken sent through both processes at the same moment: one export, both
        # answered with it (the token's check and the new record are one read-modify-write).
        for round_ in range(3):
            token = f"race-{round_}-{time.monotonic_ns()}"
            barrier = threading.Barrier(2)
            arns: list[str] = []

            def replay(client) -> None:
                barrier.wait()
                arns.append(client.export_table_to_point_in_time(
                    TableArn=arn, S3Bucket="exports", ClientToken=token)["ExportDescription"][
                        "ExportArn"])
            threads = [threading.Thread(target=replay, args=(c,)) for c in (c1, c2)]
            for t in threads:
                t.start()
            for t in threads:
                t.join(timeout=60)
            assert len(arns) == 2 and arns[0] == arns[1], arns
        assert len(c2.list_exports()["ExportSummaries"]) == 4
        for e in c2.list_exports()["ExportSummaries"]:
            wait_until(lambda: c2.describe_export(ExportArn=e["ExportArn"])["ExportDescription"][
                "ExportStatus"] != "IN_PROGRESS", 60, "the raced exports done")

        imported = c1.import_table(
            S3BucketSource={"S3Bucket": "exports", "S3KeyPrefix": described["ExportManifest"]
                            .rsplit("/", 1)[0] + "/data/"},
            InputFormat="DYNAMODB_JSON", InputCompressionType="GZIP",
            TableCreationParameters={"TableName": "imported", "BillingMode": "PAY_PER_REQUEST",
                                     "AttributeDefinitions": [{"AttributeName": "pk",
                                                               "AttributeType": "S"}],
                                     "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]},
        )["ImportTableDescription"]["ImportArn"]
        done = wait_until(lambda: (lambda d: d if d["ImportStatus"] != "IN_PROGRESS" else None)(
            c2.describe_import(ImportArn=imported)["ImportTableDescription"]), 60,
            "the import done")
        assert done["ImportStatus"] == "COMPLETED" and done["ImportedItemCount"] == ITEMS
        assert [i["ImportArn"] for i in c2.list_imports()["ImportSummaryList"]] == [imported]
        # One ClientToken sent through both processes at the same moment: one import, both
        # answered with it (the token's lease orders them: src/backup/table_import.cc).
        source = {"S3Bucket": "exports",
                  "S3KeyPrefix": described["ExportManifest"].rsplit("/", 1)[0] + "/data/"}
        for round_ in range(3):
            token = f"import-race-{round_}-{time.monotonic_ns()}"
            barrier = threading.Barrier(2)
            raced: list[str] = []

            def replay_import(client, name=f"raced_{round_}") -> None:
                barrier.wait()
                raced.append(client.import_table(
                    S3BucketSource=source, InputFormat="DYNAMODB_JSON",
                    InputCompressionType="GZIP", ClientToken=token,
                    TableCreationParameters={
                        "TableName": name, "BillingMode": "PAY_PER_REQUEST",
                        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
                        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]},
                )["ImportTableDescription"]["ImportArn"])
            threads = [threading.Thread(target=replay_import, args=(c,)) for c in (c1, c2)]
            for t in threads:
                t.start()
            for t in threads:
                t.join(timeout=60)
            assert len(raced) == 2 and raced[0] == raced[1], raced
            wait_until(lambda: c2.describe_import(ImportArn=raced[0])["ImportTableDescription"][
                "ImportStatus"] != "IN_PROGRESS", 60, "the raced import done")
        assert len(c1.list_imports()["ImportSummaryList"]) == 4

        # Killed mid-export: the other process's recovery pass marks it FAILED.
        again = c1.export_table_to_point_in_time(TableArn=arn, S3Bucket="exports")[
            "ExportDescription"]
        first.kill()
        killed = time.monotonic()
        final = wait_until(lambda: (lambda d: d if d["ExportStatus"] != "IN_PROGRESS" else None)(
            c2.describe_export(ExportArn=again["ExportArn"])["ExportDescription"]),
            4 * LEASE_SECONDS + 10, "the killed export marked")
        folder = s3 / "exports" / "AWSDynamoDB" / again["ExportArn"].rsplit("/", 1)[1]
        if final["ExportStatus"] == "FAILED":
            assert final["FailureCode"] == "InternalServerError"
            assert not (folder / "manifest-summary.json").exists()
            assert "event=export_abandoned" in second.log_text()
        else:
            assert final["ExportStatus"] == "COMPLETED"
            assert (folder / "manifest-summary.json").exists()
        print(f"killed export: {final['ExportStatus']} through the other process "
              f"{time.monotonic() - killed:.1f} s after the kill")
    finally:
        first.stop()
        second.stop()


def test_backups_are_seen_through_every_process(pg, tmp_path):
    """Two processes sharing --backup-dir (as they would share a network file system): a backup
    made through one is described, listed and restored through the other, cannot be deleted
    through the first while that restore runs (BackupInUseException), and once deleted through
    the other it is gone for the first too (a backup is its file: src/backup/backups.h)."""
    conninfo = schema_conninfo(pg, "jobs_backups")
    shared = tmp_path / "backups"
    first, second = (serve_on(tmp_path, conninfo, name, "--lease-seconds", str(LEASE_SECONDS),
                              "--backup-dir", str(shared)) for name in ("a", "b"))
    try:
        c1, c2 = make_client(first.endpoint), make_client(second.endpoint)
        create_table(c1)
        n = 3 * ITEMS  # a restore of some seconds: the delete below comes while it runs
        fill(c1, [item(i, None) for i in range(n)])
        arn = c1.create_backup(TableName=TABLE, BackupName="shared")["BackupDetails"]["BackupArn"]
        assert c2.describe_backup(BackupArn=arn)["BackupDescription"]["BackupDetails"][
            "BackupStatus"] == "AVAILABLE"
        assert [b["BackupArn"] for b in c2.list_backups()["BackupSummaries"]] == [arn]
        c2.restore_table_from_backup(TargetTableName="from_backup", BackupArn=arn)
        # In use by the other process's restore (its lease `backup-read/<id>/<table>`).
        with pytest.raises(c1.exceptions.BackupInUseException):
            c1.delete_backup(BackupArn=arn)
        wait_until(lambda: table_settled(c1, "from_backup") == "active", 60, "the restore done")
        assert len(keys_present(c1, "from_backup")) == n
        c2.delete_backup(BackupArn=arn)
        with pytest.raises(c1.exceptions.BackupNotFoundException):
            c1.describe_backup(BackupArn=arn)
        assert c1.list_backups()["BackupSummaries"] == []
    finally:
        first.stop()
        second.stop()

