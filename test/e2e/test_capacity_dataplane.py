"""ReturnConsumedCapacity on the multi-item operations, with the service's arithmetic:
Query/Scan charge the total size read rounded up to 4 KB (halved unless ConsistentRead), batch and
transactional operations charge each item separately (transactions twice).
"""
from __future__ import annotations

import pytest

from dataplane_util import N, S, batch_put, drop_table, make_table
from e2e_util import unique_name

PAD = "x" * 1000  # items of ~1 KB: five of them are ~5 KB, i.e. two 4 KB read units


@pytest.fixture(scope="module")
def tbl(ddb):
    name = make_table(ddb, unique_name("cap"), range_key=("sk", "N"))
    batch_put(ddb, name, [{"pk": S("a"), "sk": N(i), "d": S(PAD)} for i in range(5)])
    yield name
    drop_table(ddb, name)


@pytest.fixture(scope="module")
def wtbl(ddb):
    """A second table for the write tests, so that the read table keeps exactly its five items."""
    name = make_table(ddb, unique_name("capw"), range_key=("sk", "N"))
    batch_put(ddb, name, [{"pk": S("a"), "sk": N(i), "d": S(PAD)} for i in range(5)])
    yield name
    drop_table(ddb, name)


def units(out) -> float:
    return out["ConsumedCapacity"]["CapacityUnits"]


@pytest.mark.parametrize("consistent,expected", [(False, 1.0), (True, 2.0)])
def test_query_and_scan_charge_the_total_read_size(ddb, tbl, consistent, expected):
    q = dict(TableName=tbl, KeyConditionExpression="pk = :p",
             ExpressionAttributeValues={":p": S("a")}, ConsistentRead=consistent,
             ReturnConsumedCapacity="TOTAL")
    out = ddb.query(**q)
    assert out["ConsumedCapacity"] == {"TableName": tbl, "CapacityUnits": expected}
    assert units(ddb.query(**q, Select="COUNT")) == expected
    assert units(ddb.query(**q, FilterExpression="attribute_exists(nothing)")) == expected
    out = ddb.scan(TableName=tbl, ConsistentRead=consistent, ReturnConsumedCapacity="TOTAL")
    assert out["ConsumedCapacity"] == {"TableName": tbl, "CapacityUnits": expected}


def test_query_indexes_mode_and_none(ddb, tbl):
    q = dict(TableName=tbl, KeyConditionExpression="pk = :p",
             ExpressionAttributeValues={":p": S("a")})
    out = ddb.query(**q, ReturnConsumedCapacity="INDEXES")
    assert out["ConsumedCapacity"] == {"TableName": tbl, "CapacityUnits": 1.0,
                                       "Table": {"CapacityUnits": 1.0}}
    assert "ConsumedCapacity" not in ddb.query(**q, ReturnConsumedCapacity="NONE")
    assert "ConsumedCapacity" not in ddb.query(**q)


def test_update_item_charges_the_larger_of_old_and_new(ddb, wtbl):
    tbl = wtbl
    key = {"pk": S("u"), "sk": N(1)}
    out = ddb.update_item(TableName=tbl, Key=key, UpdateExpression="SET d = :d",
                          ExpressionAttributeValues={":d": S("y" * 1600)},
                          ReturnConsumedCapacity="TOTAL")
    assert out["ConsumedCapacity"] == {"TableName": tbl, "CapacityUnits": 2.0}
    out = ddb.update_item(TableName=tbl, Key=key, UpdateExpression="REMOVE d",
                          ReturnConsumedCapacity="TOTAL")
    assert units(out) == 2.0
    out = ddb.update_item(TableName=tbl, Key=key, UpdateExpression="SET e = :e",
                          ExpressionAttributeValues={":e": S("z")}, ReturnConsumedCapacity="TOTAL")
    assert units(out) == 1.0


def test_batch_operations_charge_per_item(ddb, wtbl):
    tbl = wtbl
    keys = [{"pk": S("a"), "sk": N(i)} for i in range(4)]
    out = ddb.batch_get_item(RequestItems={tbl: {"Keys": keys}}, ReturnConsumedCapacity="TOTAL")
    assert out["ConsumedCapacity"] == [{"TableName": tbl, "CapacityUnits": 2.0}]
    out = ddb.batch_write_item(RequestItems={tbl: [
        {"PutRequest": {"Item": {"pk": S("bw"), "sk": N(i), "d": S("w" * 1500)}}} for i in range(3)]
        + [{"DeleteRequest": {"Key": {"pk": S("none"), "sk": N(9)}}}]},
        ReturnConsumedCapacity="TOTAL")
    assert out["ConsumedCapacity"] == [{"TableName": tbl, "CapacityUnits": 7.0}]


def test_transactions_charge_twice_per_item(ddb, wtbl):
    tbl = wtbl
    out = ddb.transact_write_items(TransactItems=[
        {"Put": {"TableName": tbl, "Item": {"pk": S("tx"), "sk": N(1), "d": S("t" * 1500)}}},
        {"Put": {"TableName": tbl, "Item": {"pk": S("tx"), "sk": N(2)}}}],
        ReturnConsumedCapacity="TOTAL")
    assert out["ConsumedCapacity"] == [{"TableName": tbl, "CapacityUnits": 6.0}]
    out = ddb.transact_get_items(TransactItems=[
        {"Get": {"TableName": tbl, "Key": {"pk": S("a"), "sk": N(0)}}},
        {"Get": {"TableName": tbl, "Key": {"pk": S("tx"), "sk": N(2)}}}],
        ReturnConsumedCapacity="TOTAL")
    assert out["ConsumedCapacity"] == [{"TableName": tbl, "CapacityUnits": 4.0}]


# ---- Writes charge every index they write (developer guide: secondary index write costs) ------

@pytest.fixture
def itbl(ddb):
    """pk/sk with an LSI on l (ALL) and a GSI on g (KEYS_ONLY)."""
    name = unique_name("capix")
    key = lambda *ks: [{"AttributeName": k, "KeyType": t} for k, t in ks]  # noqa: E731
    ddb.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": a, "AttributeType": "S"} for a in
                              ("pk", "sk", "l", "g")],
        KeySchema=key(("pk", "HASH"), ("sk", "RANGE")),
        LocalSecondaryIndexes=[{"IndexName": "by_l", "KeySchema": key(("pk", "HASH"), ("l", "RANGE")),
                                "Projection": {"ProjectionType": "ALL"}}],
        GlobalSecondaryIndexes=[{"IndexName": "by_g", "KeySchema": key(("g", "HASH")),
                                 "Projection": {"ProjectionType": "KEYS_ONLY"}}])
    yield name
    drop_table(ddb, name)


def capacity(out):
    c = out["ConsumedCapacity"]
    return (c["CapacityUnits"], c["Table"]["CapacityUnits"],
            {k: v["CapacityUnits"] for k, v in c.get("LocalSecondaryIndexes", {}).items()},
            {k: v["CapacityUnits"] for k, v in c.get("GlobalSecondaryIndexes", {}).items()})


def test_writes_charge_each_index_they_write(ddb, itbl):
    k = {"pk": S("a"), "sk": S("1")}
    put = lambda item, **kw: ddb.put_item(TableName=itbl, Item=item,  # noqa: E731
                                          ReturnConsumedCapacity="INDEXES", **kw)
    # A new item in both indexes: one entry each.
    assert capacity(put({**k, "l": S("x"), "g": S("G")})) == (3.0, 1.0, {"by_l": 1.0},
                                                              {"by_g": 1.0})
    # The same item again: no index entry changes.
    assert capacity(put({**k, "l": S("x"), "g": S("G")})) == (1.0, 1.0, {}, {})
    # A non-key attribute: the ALL index rewrites its entry, the KEYS_ONLY one is untouched.
    assert capacity(put({**k, "l": S("x"), "g": S("G"), "v": S("v")})) == (
        2.0, 1.0, {"by_l": 1.0}, {})
    # A changed index key: the old entry's delete and the new one's put.
    out = ddb.update_item(TableName=itbl, Key=k, UpdateExpression="SET g = :g",
                          ExpressionAttributeValues={":g": S("H")}, ReturnConsumedCapacity="INDEXES")
    assert capacity(out) == (4.0, 1.0, {"by_l": 1.0}, {"by_g": 2.0})
    # The index key removed: the item leaves the GSI (one delete).
    out = ddb.update_item(TableName=itbl, Key=k, UpdateExpression="REMOVE g",
                          ReturnConsumedCapacity="INDEXES")
    assert capacity(out) == (3.0, 1.0, {"by_l": 1.0}, {"by_g": 1.0})
    # An entry is charged by its own size: a 3 KB item in the ALL index is 3 units.
    big = {**k, "l": S("x"), "d": S("d" * 3000)}
    assert capacity(put(big)) == (6.0, 3.0, {"by_l": 3.0}, {})
    # TOTAL counts the indexes in CapacityUnits and names no index.
    out = ddb.delete_item(TableName=itbl, Key=k, ReturnConsumedCapacity="TOTAL")
    assert out["ConsumedCapacity"] == {"TableName": itbl, "CapacityUnits": 6.0}
    # An item in no index costs the table only.
    assert capacity(put({"pk": S("b"), "sk": S("1")})) == (1.0, 1.0, {}, {})


def test_batch_and_transaction_writes_charge_each_index(ddb, itbl):
    a, b = {"pk": S("ba"), "sk": S("1")}, {"pk": S("bb"), "sk": S("1")}
    out = ddb.batch_write_item(RequestItems={itbl: [
        {"PutRequest": {"Item": {**a, "l": S("x"), "g": S("G")}}},
        {"PutRequest": {"Item": {**b, "g": S("G")}}}]}, ReturnConsumedCapacity="INDEXES")
    [c] = out["ConsumedCapacity"]
    assert (c["TableName"], c["CapacityUnits"], c["Table"]["CapacityUnits"]) == (itbl, 5.0, 2.0)
    assert c["LocalSecondaryIndexes"] == {"by_l": {"CapacityUnits": 1.0}}
    assert c["GlobalSecondaryIndexes"] == {"by_g": {"CapacityUnits": 2.0}}
    out = ddb.batch_write_item(RequestItems={itbl: [{"DeleteRequest": {"Key": b}}]},
                               ReturnConsumedCapacity="TOTAL")
    assert out["ConsumedCapacity"] == [{"TableName": itbl, "CapacityUnits": 2.0}]
    # A transaction charges its items twice and each index entry once.
    out = ddb.transact_write_items(TransactItems=[
        {"Update": {"TableName": itbl, "Key": a, "UpdateExpression": "SET g = :g",
                    "ExpressionAttributeValues": {":g": S("H")}}},
        {"ConditionCheck": {"TableName": itbl, "Key": b,
                            "ConditionExpression": "attribute_not_exists(pk)"}}],
        ReturnConsumedCapacity="INDEXES")
    [c] = out["ConsumedCapacity"]
    assert c["Table"]["CapacityUnits"] == 4.0
    assert c["LocalSecondaryIndexes"] == {"by_l": {"CapacityUnits": 1.0}}
    assert c["GlobalSecondaryIndexes"] == {"by_g": {"CapacityUnits": 2.0}}
    assert c["CapacityUnits"] == 7.0


def test_partiql_writes_charge_each_index(ddb, itbl):
    out = ddb.execute_statement(
        Statement=f"INSERT INTO \"{itbl}\" VALUE {{'pk': 'pq', 'sk': '1', 'l': 'x', 'g': 'G'}}",
        ReturnConsumedCapacity="INDEXES")
    assert capacity(out) == (3.0, 1.0, {"by_l": 1.0}, {"by_g": 1.0})
    out = ddb.batch_execute_statement(Statements=[
        {"Statement": f"UPDATE \"{itbl}\" SET g = 'H' WHERE pk = 'pq' AND sk = '1'"}],
        ReturnConsumedCapacity="INDEXES")
    [c] = out["ConsumedCapacity"]
    assert (c["CapacityUnits"], c["GlobalSecondaryIndexes"]) == (4.0, {"by_g": {"CapacityUnits": 2.0}})
    out = ddb.execute_transaction(TransactStatements=[
        {"Statement": f"DELETE FROM \"{itbl}\" WHERE pk = 'pq' AND sk = '1'"}],
        ReturnConsumedCapacity="TOTAL")
    assert out["ConsumedCapacity"] == [{"TableName": itbl, "CapacityUnits": 4.0}]
