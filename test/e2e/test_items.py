"""PutItem / GetItem / DeleteItem behaviour, starting with the SessionData seed example."""
from __future__ import annotations

import pytest

from e2e_util import create_table

SESSION_KEY = {"UserName": {"S": "user1"}, "SessionId": {"S": "74686572652773"}}
SESSION_ITEM = {
    **SESSION_KEY,
    "CreationTime": {"N": "1571820360"},
    "ExpirationTime": {"N": "1571827560"},
    "SessionInfo": {"M": {
        "Device": {"S": "phone"},
        "IpAddress": {"S": "192.0.2.10"},
        "Locations": {"L": [{"S": "home"}, {"S": "office"}, {"S": "airport"}]},
        "Preferences": {"M": {"Theme": {"S": "dark"}, "FontSize": {"N": "14"}}},
    }},
}


@pytest.fixture
def session_table(ddb, table_name):
    """The seed example table: SessionData-like, UserName (S) HASH + SessionId (S) RANGE."""
    name = "SessionData_" + table_name
    create_table(ddb, name, hash_key=("UserName", "S"), range_key=("SessionId", "S"))
    return name


@pytest.fixture
def hash_table(ddb, table_name):
    create_table(ddb, table_name)
    return table_name


def test_seed_session_item_round_trips(ddb, session_table):
    assert ddb.put_item(TableName=session_table, Item=SESSION_ITEM).get("Attributes") is None
    got = ddb.get_item(TableName=session_table, Key=SESSION_KEY)
    assert got["Item"] == SESSION_ITEM
    got = ddb.get_item(TableName=session_table, Key=SESSION_KEY, ConsistentRead=True)
    assert got["Item"] == SESSION_ITEM


def test_seed_table_named_exactly_session_data_works(ddb):
    # The literal name from the example (the session server's data dir is fresh).
    create_table(ddb, "SessionData", hash_key=("UserName", "S"), range_key=("SessionId", "S"))
    try:
        ddb.put_item(TableName="SessionData", Item=SESSION_ITEM)
        assert ddb.get_item(TableName="SessionData", Key=SESSION_KEY)["Item"] == SESSION_ITEM
    finally:
        ddb.delete_table(TableName="SessionData")


def test_seed_projection_of_top_level_and_nested_paths(ddb, session_table):
    ddb.put_item(TableName=session_table, Item=SESSION_ITEM)
    got = ddb.get_item(
        TableName=session_table, Key=SESSION_KEY,
        ProjectionExpression="CreationTime, #si.Device, #si.Locations[1], #si.Preferences.Theme",
        ExpressionAttributeNames={"#si": "SessionInfo"})
    assert got["Item"] == {
        "CreationTime": {"N": "1571820360"},
        "SessionInfo": {"M": {
            "Device": {"S": "phone"},
            "Locations": {"L": [{"S": "office"}]},
            "Preferences": {"M": {"Theme": {"S": "dark"}}},
        }},
    }


def test_projection_of_several_list_indexes_keeps_their_order(ddb, session_table):
    ddb.put_item(TableName=session_table, Item=SESSION_ITEM)
    got = ddb.get_item(TableName=session_table, Key=SESSION_KEY,
                       ProjectionExpression="SessionInfo.Locations[2], SessionInfo.Locations[0]")
    assert got["Item"] == {"SessionInfo": {"M": {"Locations": {"L": [
        {"S": "home"}, {"S": "airport"}]}}}}


def test_projection_of_missing_paths_returns_empty_item(ddb, session_table):
    ddb.put_item(TableName=session_table, Item=SESSION_ITEM)
    got = ddb.get_item(TableName=session_table, Key=SESSION_KEY,
                       ProjectionExpression="Nope, SessionInfo.Locations[9], SessionInfo.Nope")
    assert got["Item"] == {}


def test_projection_with_key_attributes_and_names(ddb, session_table):
    ddb.put_item(TableName=session_table, Item=SESSION_ITEM)
    got = ddb.get_item(TableName=session_table, Key=SESSION_KEY,
                       ProjectionExpression="#u, SessionId, ExpirationTime",
                       ExpressionAttributeNames={"#u": "UserName"})
    assert got["Item"] == {"UserName": {"S": "user1"}, "SessionId": {"S": "74686572652773"},
                           "ExpirationTime": {"N": "1571827560"}}


def test_attributes_to_get_returns_only_named_top_level_attributes(ddb, session_table):
    ddb.put_item(TableName=session_table, Item=SESSION_ITEM)
    got = ddb.get_item(TableName=session_table, Key=SESSION_KEY,
                       AttributesToGet=["ExpirationTime", "SessionInfo", "Missing"])
    assert got["Item"] == {"ExpirationTime": SESSION_ITEM["ExpirationTime"],
                           "SessionInfo": SESSION_ITEM["SessionInfo"]}


def test_seed_delete_with_all_old_returns_the_whole_item(ddb, session_table):
    ddb.put_item(TableName=session_table, Item=SESSION_ITEM)
    out = ddb.delete_item(TableName=session_table, Key=SESSION_KEY, ReturnValues="ALL_OLD")
    assert out["Attributes"] == SESSION_ITEM
    assert "Item" not in ddb.get_item(TableName=session_table, Key=SESSION_KEY,
                                      ConsistentRead=True)
    again = ddb.delete_item(TableName=session_table, Key=SESSION_KEY, ReturnValues="ALL_OLD")
    assert "Attributes" not in again


def test_delete_with_return_values_none_returns_no_attributes(ddb, session_table):
    ddb.put_item(TableName=session_table, Item=SESSION_ITEM)
    out = ddb.delete_item(TableName=session_table, Key=SESSION_KEY, ReturnValues="NONE")
    assert "Attributes" not in out
    assert "Item" not in ddb.get_item(TableName=session_table, Key=SESSION_KEY)


def test_get_of_missing_item_has_no_item_field(ddb, session_table):
    got = ddb.get_item(TableName=session_table,
                       Key={"UserName": {"S": "nobody"}, "SessionId": {"S": "x"}})
    assert "Item" not in got


def test_put_replaces_the_whole_item(ddb, hash_table):
    ddb.put_item(TableName=hash_table, Item={"pk": {"S": "k"}, "a": {"S": "1"}, "b": {"N": "2"}})
    ddb.put_item(TableName=hash_table, Item={"pk": {"S": "k"}, "c": {"BOOL": True}})
    got = ddb.get_item(TableName=hash_table, Key={"pk": {"S": "k"}})
    assert got["Item"] == {"pk": {"S": "k"}, "c": {"BOOL": True}}


def test_put_with_return_values_all_old_returns_the_replaced_item(ddb, hash_table):
    first = {"pk": {"S": "k"}, "v": {"S": "old"}}
    out = ddb.put_item(TableName=hash_table, Item=first, ReturnValues="ALL_OLD")
    assert "Attributes" not in out
    out = ddb.put_item(TableName=hash_table, Item={"pk": {"S": "k"}, "v": {"S": "new"}},
                       ReturnValues="ALL_OLD")
    assert out["Attributes"] == first


def test_items_with_same_hash_and_different_range_keys_are_distinct(ddb, session_table):
    for sid in ("a", "b", "c"):
        ddb.put_item(TableName=session_table, Item={"UserName": {"S": "u"},
                                                    "SessionId": {"S": sid},
                                                    "n": {"S": sid * 2}})
    ddb.delete_item(TableName=session_table, Key={"UserName": {"S": "u"}, "SessionId": {"S": "b"}})
    for sid, present in (("a", True), ("b", False), ("c", True)):
        got = ddb.get_item(TableName=session_table,
                           Key={"UserName": {"S": "u"}, "SessionId": {"S": sid}})
        assert ("Item" in got) == present
        if present:
            assert got["Item"]["n"] == {"S": sid * 2}


def test_delete_item_return_consumed_capacity_total(ddb, hash_table):
    ddb.put_item(TableName=hash_table, Item={"pk": {"S": "k"}})
    out = ddb.delete_item(TableName=hash_table, Key={"pk": {"S": "k"}},
                          ReturnConsumedCapacity="TOTAL")
    assert out["ConsumedCapacity"] == {"TableName": hash_table, "CapacityUnits": 1.0}


def test_delete_item_without_return_consumed_capacity_has_none(ddb, hash_table):
    ddb.put_item(TableName=hash_table, Item={"pk": {"S": "k"}})
    out = ddb.delete_item(TableName=hash_table, Key={"pk": {"S": "k"}})
    assert "ConsumedCapacity" not in out
    out = ddb.delete_item(TableName=hash_table, Key={"pk": {"S": "k"}},
                          ReturnConsumedCapacity="NONE")
    assert "ConsumedCapacity" not in out


def test_resource_table_api_with_decimal_numbers(ddb_resource, table_name):
    from decimal import Decimal

    table = ddb_resource.create_table(
        TableName=table_name, BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "N"}],
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}])
    table.wait_until_exists(WaiterConfig={"Delay": 1, "MaxAttempts": 10})
    item = {"id": Decimal("7"), "price": Decimal("19.99"), "qty": Decimal("3"),
            "tags": {"a", "b"}, "scores": {Decimal("1.5"), Decimal("-2")},
            "blob": b"\x00\x01\xff", "ok": True, "none": None,
            "nested": {"list": [Decimal("1"), "two", {"three": Decimal("3.0")}]}}
    table.put_item(Item=item)
    got = table.get_item(Key={"id": Decimal("7")}, ConsistentRead=True)["Item"]
    assert got["price"] == Decimal("19.99")
    assert got["qty"] == Decimal("3")
    assert got["tags"] == {"a", "b"}
    assert got["scores"] == {Decimal("1.5"), Decimal("-2")}
    assert got["blob"].value == b"\x00\x01\xff"
    assert got["ok"] is True and got["none"] is None
    assert got["nested"] == {"list": [Decimal("1"), "two", {"three": Decimal("3")}]}
    old = table.delete_item(Key={"id": Decimal("7")}, ReturnValues="ALL_OLD")["Attributes"]
    assert old["price"] == Decimal("19.99")
    assert "Item" not in table.get_item(Key={"id": Decimal("7")})


def test_consumed_capacity_units_follow_item_size(ddb, hash_table):
    def units(out):
        return out["ConsumedCapacity"]

    t = hash_table
    # Writes: ceil(KB), at least 1; an overwrite costs max(old, new).
    assert units(ddb.put_item(TableName=t, Item={"pk": {"S": "big"}, "d": {"S": "x" * 1600}},
                              ReturnConsumedCapacity="TOTAL")) == \
        {"TableName": t, "CapacityUnits": 2.0}
    assert units(ddb.put_item(TableName=t, Item={"pk": {"S": "big"}, "d": {"S": "x" * 5000}},
                              ReturnConsumedCapacity="TOTAL"))["CapacityUnits"] == 5.0
    assert units(ddb.put_item(TableName=t, Item={"pk": {"S": "big"}},
                              ReturnConsumedCapacity="TOTAL"))["CapacityUnits"] == 5.0
    ddb.put_item(TableName=t, Item={"pk": {"S": "big2"}, "d": {"S": "x" * 5000}})
    assert units(ddb.delete_item(TableName=t, Key={"pk": {"S": "big2"}},
                                 ReturnConsumedCapacity="TOTAL"))["CapacityUnits"] == 5.0
    assert units(ddb.delete_item(TableName=t, Key={"pk": {"S": "gone"}},
                                 ReturnConsumedCapacity="TOTAL"))["CapacityUnits"] == 1.0
    # Reads: ceil(bytes / 4 KB), halved unless ConsistentRead; a missing item still costs.
    ddb.put_item(TableName=t, Item={"pk": {"S": "r"}, "d": {"S": "x" * 5000}})
    for consistent, expected in ((False, 1.0), (True, 2.0)):
        out = ddb.get_item(TableName=t, Key={"pk": {"S": "r"}}, ConsistentRead=consistent,
                           ReturnConsumedCapacity="TOTAL")
        assert units(out) == {"TableName": t, "CapacityUnits": expected}
    for consistent, expected in ((False, 0.5), (True, 1.0)):
        out = ddb.get_item(TableName=t, Key={"pk": {"S": "none"}}, ConsistentRead=consistent,
                           ReturnConsumedCapacity="TOTAL")
        assert "Item" not in out and units(out)["CapacityUnits"] == expected


def test_consumed_capacity_indexes_reports_the_table_part(ddb, hash_table):
    out = ddb.put_item(TableName=hash_table, Item={"pk": {"S": "i"}},
                       ReturnConsumedCapacity="INDEXES")
    assert out["ConsumedCapacity"] == {"TableName": hash_table, "CapacityUnits": 1.0,
                                       "Table": {"CapacityUnits": 1.0}}
    out = ddb.get_item(TableName=hash_table, Key={"pk": {"S": "i"}},
                       ReturnConsumedCapacity="INDEXES")
    assert out["ConsumedCapacity"] == {"TableName": hash_table, "CapacityUnits": 0.5,
                                       "Table": {"CapacityUnits": 0.5}}
    out = ddb.put_item(TableName=hash_table, Item={"pk": {"S": "i"}},
                       ReturnConsumedCapacity="NONE")
    assert "ConsumedCapacity" not in out
