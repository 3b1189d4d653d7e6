"""Control plane: CreateTable, DescribeTable, ListTables, DeleteTable, tags, waiters."""
from __future__ import annotations

import re
import time
import uuid

import pytest

from e2e_util import assert_error, create_table

ARN_PREFIX_RE = r"^arn:aws:dynamodb:us-east-1:\d{12}:table/"
UUID_RE = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


def assert_recent(dt, slack=300):
    assert abs(dt.timestamp() - time.time()) < slack, dt


def test_create_on_demand_hash_only_table_describes_fully(ddb, table_name):
    created = create_table(ddb, table_name, hash_key=("pk", "S"))
    assert created["TableName"] == table_name
    t = ddb.describe_table(TableName=table_name)["Table"]
    assert t["TableName"] == table_name
    assert t["TableStatus"] == "ACTIVE"
    assert t["KeySchema"] == [{"AttributeName": "pk", "KeyType": "HASH"}]
    assert t["AttributeDefinitions"] == [{"AttributeName": "pk", "AttributeType": "S"}]
    assert re.match(ARN_PREFIX_RE + re.escape(table_name) + "$", t["TableArn"]), t["TableArn"]
    assert UUID_RE.match(t["TableId"]), t["TableId"]
    assert_recent(t["CreationDateTime"])
    assert t["ItemCount"] == 0
    assert t["TableSizeBytes"] == 0
    assert t["ProvisionedThroughput"] == {"NumberOfDecreasesToday": 0, "ReadCapacityUnits": 0,
                                          "WriteCapacityUnits": 0}
    assert t["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST"
    assert_recent(t["BillingModeSummary"]["LastUpdateToPayPerRequestDateTime"])
    # CreateTable's description is the same table: same ARN, id and creation time.
    for field in ("TableArn", "TableId", "CreationDateTime", "KeySchema", "AttributeDefinitions"):
        assert created[field] == t[field]


def test_create_provisioned_hash_range_table_reports_throughput(ddb, table_name):
    created = create_table(ddb, table_name, hash_key=("pk", "S"), range_key=("sk", "N"),
                           billing="PROVISIONED", throughput=(5, 7))
    assert created["ProvisionedThroughput"]["ReadCapacityUnits"] == 5
    t = ddb.describe_table(TableName=table_name)["Table"]
    assert t["TableStatus"] == "ACTIVE"
    assert t["KeySchema"] == [{"AttributeName": "pk", "KeyType": "HASH"},
                              {"AttributeName": "sk", "KeyType": "RANGE"}]
    assert t["AttributeDefinitions"] == [{"AttributeName": "pk", "AttributeType": "S"},
                                         {"AttributeName": "sk", "AttributeType": "N"}]
    pt = t["ProvisionedThroughput"]
    assert (pt["ReadCapacityUnits"], pt["WriteCapacityUnits"], pt["NumberOfDecreasesToday"]) == \
        (5, 7, 0)
    assert t.get("BillingModeSummary", {"BillingMode": "PROVISIONED"})["BillingMode"] == \
        "PROVISIONED"


def test_create_with_explicit_provisioned_billing_mode(ddb, table_name):
    ddb.create_table(TableName=table_name, BillingMode="PROVISIONED",
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "B"}],
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                     ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 2})
    t = ddb.describe_table(TableName=table_name)["Table"]
    assert t["ProvisionedThroughput"]["ReadCapacityUnits"] == 1
    assert t["ProvisionedThroughput"]["WriteCapacityUnits"] == 2
    assert t["AttributeDefinitions"] == [{"AttributeName": "pk", "AttributeType": "B"}]


@pytest.mark.parametrize("hash_type,range_type", [("S", None), ("N", None), ("B", None),
                                                  ("S", "S"), ("N", "B"), ("B", "N")])
def test_create_table_with_each_key_type_and_use_it(ddb, table_name, hash_type, range_type):
    values = {"S": {"S": "key"}, "N": {"N": "42"}, "B": {"B": b"\x00key\xff"}}
    create_table(ddb, table_name, hash_key=("h", hash_type),
                 range_key=("r", range_type) if range_type else None)
    key = {"h": values[hash_type]}
    if range_type:
        key["r"] = values[range_type]
    ddb.put_item(TableName=table_name, Item={**key, "v": {"S": "x"}})
    assert ddb.get_item(TableName=table_name, Key=key)["Item"] == {**key, "v": {"S": "x"}}
    expected_defs = [{"AttributeName": "h", "AttributeType": hash_type}]
    if range_type:
        expected_defs.append({"AttributeName": "r", "AttributeType": range_type})
    assert ddb.describe_table(TableName=table_name)["Table"]["AttributeDefinitions"] == \
        expected_defs


def test_item_count_and_size_follow_puts_overwrites_and_deletes(ddb, table_name):
    create_table(ddb, table_name)

    def counts():
        t = ddb.describe_table(TableName=table_name)["Table"]
        return t["ItemCount"], t["TableSizeBytes"]

    # Item size = attribute name bytes + value bytes: "pk"+"a" = 3, "pk"+"b"+"v"+"xyz" = 7.
    ddb.put_item(TableName=table_name, Item={"pk": {"S": "a"}})
    assert counts() == (1, 3)
    ddb.put_item(TableName=table_name, Item={"pk": {"S": "b"}, "v": {"S": "xyz"}})
    assert counts() == (2, 10)
    ddb.put_item(TableName=table_name, Item={"pk": {"S": "b"}, "v": {"S": "x"}})  # overwrite
    assert counts() == (2, 8)
    ddb.delete_item(TableName=table_name, Key={"pk": {"S": "a"}})
    assert counts() == (1, 5)
    ddb.delete_item(TableName=table_name, Key={"pk": {"S": "missing"}})
    assert counts() == (1, 5)
    ddb.delete_item(TableName=table_name, Key={"pk": {"S": "b"}})
    assert counts() == (0, 0)


def test_list_tables_is_sorted_and_contains_new_tables(ddb):
    prefix = f"ListAll_{uuid.uuid4().hex[:8]}_"
    names = [prefix + s for s in ("c", "a", "b")]
    for n in names:
        create_table(ddb, n)
    listed = ddb.list_tables()["TableNames"]
    assert listed == sorted(listed)
    assert set(names) <= set(listed)


def all_table_names(ddb):
    """Every table, in pages of the default 100 (the session server may hold more by now)."""
    names, start = [], None
    while True:
        page = ddb.list_tables(**({"ExclusiveStartTableName": start} if start else {}))
        names += page["TableNames"]
        start = page.get("LastEvaluatedTableName")
        if not start:
            return names


def test_list_tables_pages_with_limit_and_exclusive_start(ddb):
    prefix = f"ListPage_{uuid.uuid4().hex[:8]}_"
    names = [f"{prefix}{i:02d}" for i in range(5)]
    for n in names:
        create_table(ddb, n)

    page = ddb.list_tables(ExclusiveStartTableName=names[0], Limit=2)
    assert page["TableNames"] == names[1:3]
    assert page["LastEvaluatedTableName"] == names[2]
    page = ddb.list_tables(ExclusiveStartTableName=page["LastEvaluatedTableName"], Limit=2)
    assert page["TableNames"] == names[3:5]
    # A name that is not a table still works as a starting point.
    page = ddb.list_tables(ExclusiveStartTableName=prefix, Limit=1)
    assert page["TableNames"] == names[:1]
    assert page["LastEvaluatedTableName"] == names[0]

    # Walking every page with Limit=2 gives exactly the listing in pages of the default 100.
    full = all_table_names(ddb)
    walked, start = [], None
    for _ in range(1000):
        kwargs = {"Limit": 2}
        if start:
            kwargs["ExclusiveStartTableName"] = start
        page = ddb.list_tables(**kwargs)
        assert len(page["TableNames"]) <= 2
        walked += page["TableNames"]
        start = page.get("LastEvaluatedTableName")
        if not start:
            break
    assert walked == full


def test_list_tables_omits_last_evaluated_name_when_exactly_limit_names_remain(ddb):
    # "zzzzzzzz_" sorts after every other name this suite creates.
    prefix = f"zzzzzzzz_{uuid.uuid4().hex[:8]}_"
    names = [prefix + "0", prefix + "1"]
    for n in names:
        create_table(ddb, n)
    page = ddb.list_tables(ExclusiveStartTableName=prefix, Limit=2)
    assert page["TableNames"] == names
    assert "LastEvaluatedTableName" not in page
    page = ddb.list_tables(ExclusiveStartTableName=names[0], Limit=1)
    assert page["TableNames"] == names[1:]
    assert "LastEvaluatedTableName" not in page
    page = ddb.list_tables(ExclusiveStartTableName=prefix, Limit=1)
    assert page == {**page, "TableNames": names[:1], "LastEvaluatedTableName": names[0]}
    for n in names:
        ddb.delete_table(TableName=n)


def test_list_tables_after_the_last_table_is_empty(ddb):
    full = all_table_names(ddb)
    page = ddb.list_tables(ExclusiveStartTableName=full[-1] if full else "zzz")
    assert page["TableNames"] == []
    assert "LastEvaluatedTableName" not in page


def test_list_tables_paginator(ddb):
    prefix = f"ListPgr_{uuid.uuid4().hex[:8]}_"
    for i in range(3):
        create_table(ddb, f"{prefix}{i}")
    paginator = ddb.get_paginator("list_tables")
    names = [n for page in paginator.paginate(PaginationConfig={"PageSize": 1}) for n in
             page["TableNames"]]
    assert names == all_table_names(ddb)


def test_delete_table_returns_description_then_table_is_gone(ddb, table_name):
    create_table(ddb, table_name)
    ddb.put_item(TableName=table_name, Item={"pk": {"S": "a"}})
    described = ddb.describe_table(TableName=table_name)["Table"]
    desc = ddb.delete_table(TableName=table_name)["TableDescription"]
    assert desc["TableName"] == table_name
    assert desc["TableStatus"] == "DELETING"
    # The service's answer (Alternator test_table.py::test_delete_table_description, run
    # against DynamoDB): id, ARN, billing, throughput, count and size; no schema.
    assert desc["TableId"] == described["TableId"]
    assert re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
                        desc["TableId"])
    assert desc["TableArn"] == described["TableArn"]
    assert desc["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST"
    assert desc["BillingModeSummary"]["LastUpdateToPayPerRequestDateTime"] is not None
    assert desc["ProvisionedThroughput"] == {"NumberOfDecreasesToday": 0,
                                             "ReadCapacityUnits": 0, "WriteCapacityUnits": 0}
    assert (desc["ItemCount"], desc["TableSizeBytes"]) == (1, described["TableSizeBytes"])
    for absent in ("CreationDateTime", "KeySchema", "AttributeDefinitions"):
        assert absent not in desc
    assert table_name not in ddb.list_tables()["TableNames"]
    assert_error(ddb.describe_table, "ResourceNotFoundException",
                 f"Requested resource not found: Table: {table_name} not found",
                 TableName=table_name)
    assert_error(ddb.get_item, "ResourceNotFoundException", "Requested resource not found",
                 TableName=table_name, Key={"pk": {"S": "a"}})
    assert_error(ddb.delete_table, "ResourceNotFoundException",
                 f"Requested resource not found: Table: {table_name} not found",
                 TableName=table_name)


def test_delete_table_answer_leaves_out_indexes(ddb, table_name):
    # Alternator test_table.py::test_delete_table_description_with_si (run against DynamoDB):
    # DescribeTable lists the indexes, DeleteTable's answer does not.
    ddb.create_table(
        TableName=table_name, BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": n, "AttributeType": "S"} for n in ("p", "c", "x")],
        KeySchema=[{"AttributeName": "p", "KeyType": "HASH"},
                   {"AttributeName": "c", "KeyType": "RANGE"}],
        GlobalSecondaryIndexes=[{"IndexName": "hello",
                                 "KeySchema": [{"AttributeName": "x", "KeyType": "HASH"}],
                                 "Projection": {"ProjectionType": "ALL"}}],
        LocalSecondaryIndexes=[{"IndexName": "hithere",
                                "KeySchema": [{"AttributeName": "p", "KeyType": "HASH"},
                                              {"AttributeName": "x", "KeyType": "RANGE"}],
                                "Projection": {"ProjectionType": "ALL"}}])
    described = ddb.describe_table(TableName=table_name)["Table"]
    deleted = ddb.delete_table(TableName=table_name)["TableDescription"]
    for field in ("KeySchema", "AttributeDefinitions", "GlobalSecondaryIndexes",
                  "LocalSecondaryIndexes"):
        assert field in described
        assert field not in deleted


def test_deleted_table_name_can_be_reused_and_starts_empty(ddb, table_name):
    create_table(ddb, table_name)
    ddb.put_item(TableName=table_name, Item={"pk": {"S": "a"}})
    ddb.delete_table(TableName=table_name)
    create_table(ddb, table_name, hash_key=("other", "N"))
    t = ddb.describe_table(TableName=table_name)["Table"]
    assert t["ItemCount"] == 0
    assert t["KeySchema"] == [{"AttributeName": "other", "KeyType": "HASH"}]
    assert "Item" not in ddb.get_item(TableName=table_name, Key={"other": {"N": "1"}})


def test_create_existing_table_is_resource_in_use(ddb, table_name):
    create_table(ddb, table_name)
    assert_error(lambda **kw: create_table(ddb, table_name, hash_key=("x", "N")),
                 "ResourceInUseException", f"Table already exists: {table_name}")


def test_waiters_table_exists_and_not_exists(ddb, table_name):
    create_table(ddb, table_name)
    ddb.get_waiter("table_exists").wait(TableName=table_name,
                                        WaiterConfig={"Delay": 1, "MaxAttempts": 5})
    ddb.delete_table(TableName=table_name)
    ddb.get_waiter("table_not_exists").wait(TableName=table_name,
                                            WaiterConfig={"Delay": 1, "MaxAttempts": 5})


def test_tag_list_untag_resource(ddb, table_name):
    arn = create_table(ddb, table_name)["TableArn"]
    assert ddb.list_tags_of_resource(ResourceArn=arn).get("Tags", []) == []
    ddb.tag_resource(ResourceArn=arn, Tags=[{"Key": "env", "Value": "test"},
                                            {"Key": "team", "Value": "storage"}])
    ddb.tag_resource(ResourceArn=arn, Tags=[{"Key": "env", "Value": "prod"},
                                            {"Key": "empty", "Value": ""}])
    tags = ddb.list_tags_of_resource(ResourceArn=arn)["Tags"]
    assert sorted(tags, key=lambda t: t["Key"]) == [
        {"Key": "empty", "Value": ""}, {"Key": "env", "Value": "prod"},
        {"Key": "team", "Value": "storage"}]
    ddb.untag_resource(ResourceArn=arn, TagKeys=["team", "not-there"])
    tags = ddb.list_tags_of_resource(ResourceArn=arn)["Tags"]
    assert sorted(tags, key=lambda t: t["Key"]) == [{"Key": "empty", "Value": ""},
                                                    {"Key": "env", "Value": "prod"}]


def test_tags_given_at_create_table_are_listed(ddb, table_name):
    arn = create_table(ddb, table_name, Tags=[{"Key": "k", "Value": "v"}])["TableArn"]
    assert ddb.list_tags_of_resource(ResourceArn=arn)["Tags"] == [{"Key": "k", "Value": "v"}]
