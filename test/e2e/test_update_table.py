"""UpdateTable: billing mode, throughput, deletion protection, table class, and
GlobalSecondaryIndexUpdates (a GSI added to a populated table is backfilled in the background
while the table stays writable; a deleted GSI's entries go away), with the errors the
reference gives.
"""
from __future__ import annotations

import json
import threading
import time
from urllib.parse import urlparse

from dataplane_util import N, S, all_items, batch_put
from e2e_util import assert_error, create_table, make_client, raw_call

INVALID = "One or more parameter values were invalid: "


def wait_active(client, table: str, timeout: float = 30.0) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        desc = client.describe_table(TableName=table)["Table"]
        gsis = desc.get("GlobalSecondaryIndexes", [])
        if desc["TableStatus"] == "ACTIVE" and all(g["IndexStatus"] == "ACTIVE" for g in gsis):
            return desc
        assert time.monotonic() < deadline, f"{table} still not ACTIVE: {desc}"
        time.sleep(0.05)


def raw_update(client, body: dict) -> tuple[int, dict]:
    """UpdateTable without the SDK (Debian's botocore predates DeletionProtectionEnabled)."""
    port = urlparse(client.meta.endpoint_url).port
    status, _, payload = raw_call(port, "DynamoDB_20120810.UpdateTable", body)
    return status, json.loads(payload)


def add_gsi(client, table: str, name: str = "by_g", attr=("g", "S"), projection="ALL"):
    return client.update_table(
        TableName=table,
        AttributeDefinitions=[{"AttributeName": attr[0], "AttributeType": attr[1]}],
        GlobalSecondaryIndexUpdates=[{"Create": {
            "IndexName": name, "KeySchema": [{"AttributeName": attr[0], "KeyType": "HASH"}],
            "Projection": {"ProjectionType": projection}}}])["TableDescription"]


def index_items(client, table: str, index: str) -> dict[str, dict]:
    return {i["pk"]["S"]: i for i in all_items(client.scan, TableName=table, IndexName=index)}


def test_gsi_added_to_populated_table_is_backfilled_while_writes_go_on(ddb, table_name):
    create_table(ddb, table_name)
    batch_put(ddb, table_name, [{"pk": S(f"p{i:05}"), "g": S(f"G{i % 5}"), "v": N(i)}
                                for i in range(6000)] +
              [{"pk": S(f"nog{i}"), "v": N(i)} for i in range(50)])
    stop = threading.Event()
    writes: list[int] = []
    errors: list[BaseException] = []

    def writer():
        try:
            c = make_client(ddb.meta.endpoint_url)
            i = 0
            while not stop.is_set():
                c.put_item(TableName=table_name,
                           Item={"pk": S(f"w{i:04}"), "g": S("W"), "v": N(i)})
                c.update_item(TableName=table_name, Key={"pk": S(f"p{i:05}")},
                              UpdateExpression="SET g = :g",
                              ExpressionAttributeValues={":g": S("U")})
                c.delete_item(TableName=table_name, Key={"pk": S(f"p{5999 - i:05}")})
                i += 1
                writes.append(i)
        except BaseException as e:  # reported by the test, not lost in the thread
            errors.append(e)

    def wait_for_writes(n: int) -> None:
        # Progress is awaited, not timed: a slow machine (the sanitizer build on CI) may take a
        # quarter of a second just to make the writer's boto3 client.
        deadline = time.monotonic() + 30
        while len(writes) < n and not errors and time.monotonic() < deadline:
            time.sleep(0.01)

    t = threading.Thread(target=writer)
    t.start()
    try:
        wait_for_writes(1)
        before = len(writes)
        desc = add_gsi(ddb, table_name)
        gsi = desc["GlobalSecondaryIndexes"][0]
        assert gsi["IndexStatus"] in ("CREATING", "ACTIVE")
        if gsi["IndexStatus"] == "CREATING":
            assert gsi["Backfilling"] is True and desc["TableStatus"] == "UPDATING"
        wait_for_writes(before + 20)
    finally:
        stop.set()
        t.join(30)
    assert not errors, errors
    assert len(writes) >= before + 20, f"the writer made {len(writes) - before} writes after UpdateTable"
    desc = wait_active(ddb, table_name)
    table = {i["pk"]["S"]: i for i in all_items(ddb.scan, TableName=table_name)}
    expected = {pk: item for pk, item in table.items() if "g" in item}
    got = index_items(ddb, table_name, "by_g")
    assert got == expected
    assert desc["GlobalSecondaryIndexes"][0]["ItemCount"] == len(expected)
    q = all_items(ddb.query, TableName=table_name, IndexName="by_g",
                  KeyConditionExpression="g = :g", ExpressionAttributeValues={":g": S("U")})
    assert len(q) == sum(1 for i in expected.values() if i["g"] == S("U")) > 0


def test_backfill_skips_items_whose_index_key_the_index_cannot_take(ddb, table_name):
    """Items written before the index existed whose index key is of another type or too long
    (an "index key violation", developer guide) are left out of it; the index still becomes
    ACTIVE and `ttlstore check`'s invariants hold (its count equals its entries)."""
    create_table(ddb, table_name)
    batch_put(ddb, table_name, [{"pk": S("ok"), "g": S("G")},
                                {"pk": S("long"), "g": S("g" * 2049)},
                                {"pk": S("edge"), "g": S("g" * 2048)},
                                {"pk": S("number"), "g": N(1)}])
    add_gsi(ddb, table_name)
    desc = wait_active(ddb, table_name)
    assert set(index_items(ddb, table_name, "by_g")) == {"ok", "edge"}
    assert desc["GlobalSecondaryIndexes"][0]["ItemCount"] == 2


def test_delete_gsi_removes_it_and_its_entries(ddb, table_name):
    create_table(ddb, table_name)
    batch_put(ddb, table_name, [{"pk": S(f"p{i}"), "g": S("G")} for i in range(30)])
    add_gsi(ddb, table_name, projection="KEYS_ONLY")
    wait_active(ddb, table_name)
    assert len(index_items(ddb, table_name, "by_g")) == 30
    ddb.update_table(TableName=table_name,
                     GlobalSecondaryIndexUpdates=[{"Delete": {"IndexName": "by_g"}}])
    desc = wait_active(ddb, table_name)
    assert "GlobalSecondaryIndexes" not in desc
    assert [d["AttributeName"] for d in desc["AttributeDefinitions"]] == ["pk"]
    assert_error(ddb.scan, "ValidationException",
                 "The table does not have the specified index: by_g",
                 TableName=table_name, IndexName="by_g")
    # A new index of the same name starts from the items, not from the old entries.
    ddb.delete_item(TableName=table_name, Key={"pk": S("p0")})
    add_gsi(ddb, table_name)
    wait_active(ddb, table_name)
    assert len(index_items(ddb, table_name, "by_g")) == 29


def test_index_being_built_survives_a_restart(start_server, tmp_path):
    data = tmp_path / "data"
    srv = start_server(data)
    c = make_client(srv.endpoint)
    create_table(c, "rebuilt")
    batch_put(c, "rebuilt", [{"pk": S(f"p{i:05}"), "g": S("G")} for i in range(20000)])
    add_gsi(c, "rebuilt")
    srv.stop()  # likely mid-backfill; either way the index must come out complete
    srv = start_server(data)
    c = make_client(srv.endpoint)
    desc = wait_active(c, "rebuilt", timeout=60)
    assert desc["GlobalSecondaryIndexes"][0]["ItemCount"] == 20000
    assert len(index_items(c, "rebuilt", "by_g")) == 20000


def test_billing_throughput_protection_and_class(ddb, table_name):
    create_table(ddb, table_name, billing="PROVISIONED", throughput=(5, 5))
    desc = ddb.update_table(TableName=table_name, ProvisionedThroughput={
        "ReadCapacityUnits": 20, "WriteCapacityUnits": 15})["TableDescription"]
    assert (desc["ProvisionedThroughput"]["ReadCapacityUnits"],
            desc["ProvisionedThroughput"]["WriteCapacityUnits"]) == (20, 15)
    assert_error(ddb.update_table, "ValidationException",
                 "The requested throughput value equals the current value", TableName=table_name,
                 ProvisionedThroughput={"ReadCapacityUnits": 20, "WriteCapacityUnits": 15})
    assert_error(ddb.update_table, "ValidationException",
                 INVALID + "Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when "
                 "BillingMode is PAY_PER_REQUEST", TableName=table_name,
                 BillingMode="PAY_PER_REQUEST",
                 ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 1})
    status, body = raw_update(ddb, {"TableName": table_name, "BillingMode": "PAY_PER_REQUEST",
                                    "DeletionProtectionEnabled": True,
                                    "TableClass": "STANDARD_INFREQUENT_ACCESS"})
    assert status == 200, body
    desc = body["TableDescription"]
    assert desc["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST"
    assert desc["ProvisionedThroughput"]["ReadCapacityUnits"] == 0
    assert desc["DeletionProtectionEnabled"] is True
    assert_error(ddb.delete_table, "ValidationException",
                 "Resource cannot be deleted as it is currently protected against deletion. "
                 "Disable deletion protection first.", TableName=table_name)
    status, body = raw_update(ddb, {"TableName": table_name, "DeletionProtectionEnabled": False})
    assert status == 200 and body["TableDescription"]["DeletionProtectionEnabled"] is False
    assert_error(ddb.update_table, "ValidationException", "Nothing to update",
                 TableName=table_name)
    assert_error(ddb.update_table, "ResourceNotFoundException",
                 "Requested resource not found: Table: nope_nope not found",
                 TableName="nope_nope", BillingMode="PAY_PER_REQUEST")


def test_gsi_update_errors(ddb, table_name):
    create_table(ddb, table_name)
    add_gsi(ddb, table_name)
    wait_active(ddb, table_name)
    create = lambda name, attr: {"Create": {
        "IndexName": name, "KeySchema": [{"AttributeName": attr, "KeyType": "HASH"}],
        "Projection": {"ProjectionType": "ALL"}}}
    defs = [{"AttributeName": "h", "AttributeType": "S"}]
    assert_error(ddb.update_table, "ValidationException",
                 "Attempting to create an index which already exists", TableName=table_name,
                 AttributeDefinitions=defs, GlobalSecondaryIndexUpdates=[create("by_g", "h")])
    assert_error(ddb.update_table, "ValidationException",
                 "Attribute zz is not defined in AttributeDefinitions", TableName=table_name,
                 AttributeDefinitions=defs, GlobalSecondaryIndexUpdates=[create("by_z", "zz")])
    assert_error(ddb.update_table, "ResourceNotFoundException",
                 "Requested resource not found: Index: nope not found", TableName=table_name,
                 GlobalSecondaryIndexUpdates=[{"Delete": {"IndexName": "nope"}}])
    assert_error(ddb.update_table, "LimitExceededException",
                 "Subscriber limit exceeded: Only 1 online index can be created or deleted "
                 "simultaneously per table", TableName=table_name, AttributeDefinitions=defs,
                 GlobalSecondaryIndexUpdates=[create("by_h", "h"),
                                              {"Delete": {"IndexName": "by_g"}}])
    assert_error(ddb.update_table, "ValidationException",
                 INVALID + "ProvisionedThroughput should not be specified for index: by_g when "
                 "BillingMode is PAY_PER_REQUEST", TableName=table_name,
                 GlobalSecondaryIndexUpdates=[{"Update": {"IndexName": "by_g",
                                                          "ProvisionedThroughput": {
                                                              "ReadCapacityUnits": 1,
                                                              "WriteCapacityUnits": 1}}}])


def test_a_new_index_may_not_redefine_an_attribute_type(ddb, table_name):
    """The service's text, as Alternator's test_gsi_key_type_conflict_on_update quotes it."""
    ddb.create_table(
        TableName=table_name, BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "p", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "p", "AttributeType": "S"},
                              {"AttributeName": "xyz", "AttributeType": "S"}],
        GlobalSecondaryIndexes=[{"IndexName": "index1",
                                 "KeySchema": [{"AttributeName": "xyz", "KeyType": "HASH"}],
                                 "Projection": {"ProjectionType": "ALL"}}])
    try:
        assert_error(ddb.update_table, "ValidationException",
                     "One or more parameter values were invalid: Attributes cannot be redefined. "
                     "Please check that your attribute has the same type as previously defined. "
                     "Existing schema: Schema:[SchemaElement: key{xyz:S:HASH}] New schema: "
                     "Schema:[SchemaElement: key{xyz:N:HASH}]",
                     TableName=table_name,
                     AttributeDefinitions=[{"AttributeName": "xyz", "AttributeType": "N"}],
                     GlobalSecondaryIndexUpdates=[{"Create": {
                         "IndexName": "index2",
                         "KeySchema": [{"AttributeName": "xyz", "KeyType": "HASH"}],
                         "Projection": {"ProjectionType": "ALL"}}}])
    finally:
        ddb.delete_table(TableName=table_name)
