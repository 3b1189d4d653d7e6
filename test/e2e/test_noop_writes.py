"""Writes that change nothing, and ReturnValues on key-only items, as the service answers them.

Sources (docs/compatibility.md, "Fidelity"): Alternator's test_item.py
(`test_update_item_non_existent`, `test_empty_update`) and test_returnvalues.py
(`test_update_item_returnvalues_all_new`, `..._updated_new`, `..._updated_old`), which run
against DynamoDB: an update that only removes attributes of a missing item creates nothing and
returns no Attributes, while an update with no actions at all creates the key-only item.
"""
from __future__ import annotations

import pytest

from dataplane_util import N, S, get, make_table
from e2e_util import create_table, unique_name
from test_streams import read_all

MODES = ["NONE", "ALL_OLD", "UPDATED_OLD", "ALL_NEW", "UPDATED_NEW"]


@pytest.fixture
def stream_tbl(ddb, streams, table_name):
    desc = create_table(ddb, table_name, StreamSpecification={
        "StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"})
    return table_name, desc["LatestStreamArn"]


def item_count(ddb, name) -> int:
    return ddb.describe_table(TableName=name)["Table"]["ItemCount"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("update", [
    dict(UpdateExpression="REMOVE a, b"),
    dict(UpdateExpression="DELETE s :s", ExpressionAttributeValues={":s": {"SS": ["x"]}}),
    dict(UpdateExpression="REMOVE a DELETE s :s", ExpressionAttributeValues={":s": {"NS": ["1"]}}),
    dict(AttributeUpdates={"a": {"Action": "DELETE"}}),
    dict(AttributeUpdates={"s": {"Action": "DELETE", "Value": {"SS": ["x"]}}}),
])
def test_removal_from_a_missing_item_creates_nothing(ddb, streams, stream_tbl, mode, update):
    name, arn = stream_tbl
    key = {"pk": S("ghost")}
    out = ddb.update_item(TableName=name, Key=key, ReturnValues=mode, **update)
    assert "Attributes" not in out
    assert get(ddb, name, key) is None
    assert item_count(ddb, name) == 0
    assert read_all(streams, arn) == []


def test_removal_from_a_missing_item_with_a_true_condition_creates_nothing(ddb, stream_tbl):
    name, _ = stream_tbl
    key = {"pk": S("ghost")}
    out = ddb.update_item(TableName=name, Key=key, UpdateExpression="REMOVE a",
                          ConditionExpression="attribute_not_exists(pk)", ReturnValues="ALL_NEW")
    assert "Attributes" not in out
    assert get(ddb, name, key) is None


def test_transact_update_that_only_removes_creates_nothing(ddb, streams, stream_tbl):
    name, arn = stream_tbl
    ddb.transact_write_items(TransactItems=[
        {"Update": {"TableName": name, "Key": {"pk": S("ghost")}, "UpdateExpression": "REMOVE a"}},
        {"Put": {"TableName": name, "Item": {"pk": S("real")}}},
    ])
    assert get(ddb, name, {"pk": S("ghost")}) is None
    assert item_count(ddb, name) == 1
    assert [r["eventName"] for r in read_all(streams, arn)] == ["INSERT"]


@pytest.mark.parametrize("mode,expected", [
    ("NONE", None), ("ALL_OLD", None), ("UPDATED_OLD", None), ("UPDATED_NEW", None),
    ("ALL_NEW", "key"),
])
@pytest.mark.parametrize("update", [dict(AttributeUpdates={}), dict()])
def test_update_without_actions_creates_the_key_only_item(ddb, streams, stream_tbl, mode,
                                                          expected, update):
    name, arn = stream_tbl
    key = {"pk": S("bare")}
    out = ddb.update_item(TableName=name, Key=key, ReturnValues=mode, **update)
    assert out.get("Attributes") == (key if expected else None)
    assert get(ddb, name, key) == key
    assert item_count(ddb, name) == 1
    assert [r["eventName"] for r in read_all(streams, arn)] == ["INSERT"]


@pytest.mark.parametrize("mode,expected", [
    ("NONE", None), ("ALL_OLD", "key"), ("UPDATED_OLD", None), ("ALL_NEW", "key"),
    ("UPDATED_NEW", None),
])
def test_no_op_update_of_a_key_only_item(ddb, streams, stream_tbl, mode, expected):
    name, arn = stream_tbl
    key = {"pk": S("bare")}
    ddb.put_item(TableName=name, Item=key)
    out = ddb.update_item(TableName=name, Key=key, UpdateExpression="REMOVE a", ReturnValues=mode)
    assert out.get("Attributes") == (key if expected else None)
    assert get(ddb, name, key) == key
    # The item did not change: no MODIFY record (developer guide, "Change data capture for
    # DynamoDB Streams": a write that changes no data writes no stream record).
    assert [r["eventName"] for r in read_all(streams, arn)] == ["INSERT"]


def test_put_and_delete_all_old_of_a_key_only_item_return_the_key(ddb):
    name = make_table(ddb, unique_name("keyonly"), range_key=("sk", "N"))
    key = {"pk": S("k"), "sk": N(1)}
    ddb.put_item(TableName=name, Item=key)
    assert ddb.put_item(TableName=name, Item=key, ReturnValues="ALL_OLD")["Attributes"] == key
    assert ddb.delete_item(TableName=name, Key=key, ReturnValues="ALL_OLD")["Attributes"] == key
    assert "Attributes" not in ddb.delete_item(TableName=name, Key=key, ReturnValues="ALL_OLD")
    ddb.delete_table(TableName=name)
