"""Global secondary indexes with multi-attribute keys (DynamoDB, November 2025): up to four
partition-key and four sort-key attributes per GSI, each of its own type.

Creation (CreateTable, UpdateTable) and every refusal with its text; writes (sparse: only items
with every key attribute are indexed; a key attribute of the wrong type is refused); the backfill
of an index added to a filled table; Query in every allowed shape (all partition attributes by
equality, sort attributes left to right, a range condition only on the last one given) and every
refused shape; the order of results (sort attributes left to right, each in its type's order) in
both directions, with paging; Scan; legacy KeyConditions; TTL expiry; DescribeTable; and, on a
server of its own, backup/restore, a restart and `ttlstore check`. The rules and where each comes
from: docs/compatibility.md, "Multi-attribute GSI keys".
"""
from __future__ import annotations

import time
from decimal import Decimal

import pytest

from dataplane_util import N, S, all_items, batch_put
from e2e_util import assert_error, check_data_dir, ddb_error, make_client, wait_until

INVALID = "One or more parameter values were invalid: "
NOT_SUPPORTED = "Query key condition not supported"
MISSED = "Query condition missed key schema element: "


def B(v: bytes) -> dict:
    return {"B": v}


def ks(*pairs) -> list[dict]:
    return [{"AttributeName": a, "KeyType": t} for a, t in pairs]


def defs(*pairs) -> list[dict]:
    return [{"AttributeName": a, "AttributeType": t} for a, t in pairs]


def wait_active(client, table: str) -> dict:
    return wait_until(lambda: (lambda d: d if all(g["IndexStatus"] == "ACTIVE" for g in
                                                  d.get("GlobalSecondaryIndexes", [])) else None)(
        client.describe_table(TableName=table)["Table"]), 30, f"{table}'s indexes to be ACTIVE")


# The index every query test reads: partition key (h1 S, h2 N), sort key (r1 S, r2 N, r3 B).
MULTI_KEY = ks(("h1", "HASH"), ("h2", "HASH"), ("r1", "RANGE"), ("r2", "RANGE"), ("r3", "RANGE"))
MULTI_DEFS = defs(("pk", "S"), ("h1", "S"), ("h2", "N"), ("r1", "S"), ("r2", "N"), ("r3", "B"))
R1 = ["a", "ab", "b"]
R2 = [Decimal("-1"), Decimal("2.5"), Decimal("9"), Decimal("10")]
R3 = [b"\x00\x01", b"\x01", b"\xff"]


def create_multi_table(client, name: str) -> None:
    client.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST", AttributeDefinitions=MULTI_DEFS,
        KeySchema=ks(("pk", "HASH")),
        GlobalSecondaryIndexes=[
            {"IndexName": "multi", "KeySchema": MULTI_KEY, "Projection": {"ProjectionType": "ALL"}},
            {"IndexName": "two_hash", "KeySchema": ks(("h1", "HASH"), ("h2", "HASH")),
             "Projection": {"ProjectionType": "KEYS_ONLY"}}])


def model_items() -> list[dict]:
    """Partition (A, 1) holds every (r1, r2, r3) combination once, in a shuffled pk order;
    neighbours (A, 2) and (B, 1) must never show up in its queries."""
    items = []
    n = 0
    for r1 in R1:
        for r2 in R2:
            for r3 in R3:
                items.append({"pk": S(f"p{(n * 7) % 36:02}"), "h1": S("A"), "h2": N(1),
                              "r1": S(r1), "r2": N(r2), "r3": B(r3), "v": N(n)})
                n += 1
    items.append({"pk": S("other-h2"), "h1": S("A"), "h2": N(2), "r1": S("a"), "r2": N(1),
                  "r3": B(b"\x01")})
    items.append({"pk": S("other-h1"), "h1": S("B"), "h2": N(1), "r1": S("a"), "r2": N(1),
                  "r3": B(b"\x01")})
    return items


def sort_key(item: dict):
    return (item["r1"]["S"].encode(), Decimal(item["r2"]["N"]), bytes(item["r3"]["B"]))


@pytest.fixture(scope="module")
def multi(ddb):
    name = "gsi_multi_attribute_keys"
    create_multi_table(ddb, name)
    batch_put(ddb, name, model_items())
    # Sparse: each lacks a key attribute of `multi` (the last one also of `two_hash`).
    batch_put(ddb, name, [
        {"pk": S("no-r3"), "h1": S("A"), "h2": N(1), "r1": S("a"), "r2": N(1)},
        {"pk": S("no-r1"), "h1": S("A"), "h2": N(1), "r2": N(1), "r3": B(b"\x01")},
        {"pk": S("no-h2"), "h1": S("A"), "r1": S("a"), "r2": N(1), "r3": B(b"\x01")}])
    yield name
    ddb.delete_table(TableName=name)


def partition_a() -> list[dict]:
    return sorted([i for i in model_items() if i["h1"] == S("A") and i["h2"] == N(1)],
                  key=sort_key)


def query(ddb, table, cond: str, values: dict, **kw) -> list[dict]:
    return all_items(ddb.query, TableName=table, IndexName="multi", KeyConditionExpression=cond,
                     ExpressionAttributeValues=values, **kw)


def pks(items) -> list[str]:
    return [i["pk"]["S"] for i in items]


HASH_A = "h1 = :h1 AND h2 = :h2"
VALS_A = {":h1": S("A"), ":h2": N(1)}


# ------------------------------------------------------------------------------------------
# Creation and DescribeTable
# ------------------------------------------------------------------------------------------

def test_describe_table_shows_the_key_schema_as_given(ddb, multi):
    desc = ddb.describe_table(TableName=multi)["Table"]
    gsis = {g["IndexName"]: g for g in desc["GlobalSecondaryIndexes"]}
    assert gsis["multi"]["KeySchema"] == MULTI_KEY
    assert gsis["two_hash"]["KeySchema"] == ks(("h1", "HASH"), ("h2", "HASH"))
    assert gsis["multi"]["ItemCount"] == len(model_items())
    assert gsis["two_hash"]["ItemCount"] == len(model_items()) + 2  # no-r3 and no-r1 too
    assert {d["AttributeName"] for d in desc["AttributeDefinitions"]} == \
        {"pk", "h1", "h2", "r1", "r2", "r3"}


def test_four_hash_and_four_range_attributes_are_the_most(ddb, table_name):
    hashes = [(f"h{i}", "HASH") for i in range(4)]
    ranges = [(f"r{i}", "RANGE") for i in range(4)]
    ddb.create_table(
        TableName=table_name, BillingMode="PAY_PER_REQUEST", KeySchema=ks(("pk", "HASH")),
        AttributeDefinitions=defs(("pk", "S"), *[(a, "S") for a, _ in hashes + ranges]),
        GlobalSecondaryIndexes=[{"IndexName": "gsi", "KeySchema": ks(*hashes, *ranges),
                                 "Projection": {"ProjectionType": "ALL"}}])
    desc = ddb.describe_table(TableName=table_name)["Table"]
    assert desc["GlobalSecondaryIndexes"][0]["KeySchema"] == ks(*hashes, *ranges)
    item = {"pk": S("x"), **{a: S(a) for a, _ in hashes + ranges}}
    ddb.put_item(TableName=table_name, Item=item)
    got = ddb.query(TableName=table_name, IndexName="gsi",
                    KeyConditionExpression=" AND ".join(f"{a} = :{a}" for a, _ in hashes + ranges),
                    ExpressionAttributeValues={f":{a}": S(a) for a, _ in hashes + ranges})
    assert got["Items"] == [item]


def create_refused(ddb, name, gsi_keys, attrs, lsi_keys=None, table_keys=(("pk", "HASH"),)):
    kw = dict(TableName=name, BillingMode="PAY_PER_REQUEST", KeySchema=ks(*table_keys),
              AttributeDefinitions=defs(*attrs))
    if gsi_keys is not None:
        kw["GlobalSecondaryIndexes"] = [{"IndexName": "gsi", "KeySchema": ks(*gsi_keys),
                                         "Projection": {"ProjectionType": "ALL"}}]
    if lsi_keys is not None:
        kw["LocalSecondaryIndexes"] = [{"IndexName": "lsi", "KeySchema": ks(*lsi_keys),
                                        "Projection": {"ProjectionType": "ALL"}}]
    return ddb_error(ddb.create_table, **kw)


@pytest.mark.parametrize("gsi_keys,message", [
    ([(f"a{i}", "HASH") for i in range(5)],
     "Invalid KeySchema: A global secondary index key can have at most 4 HASH key elements"),
    ([("a0", "HASH")] + [(f"a{i}", "RANGE") for i in range(1, 6)],
     "Invalid KeySchema: A global secondary index key can have at most 4 RANGE key elements"),
    ([("a0", "RANGE"), ("a1", "HASH")],
     "Invalid KeySchema: The first KeySchemaElement is not a HASH key type"),
    ([("a0", "HASH"), ("a1", "RANGE"), ("a2", "HASH")],
     "Invalid KeySchema: The third KeySchemaElement is not a RANGE key type"),
    ([("a0", "HASH"), ("a1", "RANGE"), ("a2", "RANGE"), ("a3", "HASH")],
     "Invalid KeySchema: The fourth KeySchemaElement is not a RANGE key type"),
    ([("a0", "HASH"), ("a0", "HASH")], INVALID + "Duplicate AttributeName in KeySchema: a0"),
    ([("a0", "HASH"), ("a1", "HASH"), ("a0", "RANGE")],
     INVALID + "Duplicate AttributeName in KeySchema: a0"),
    # Two elements, HASH then RANGE, of one name: the single-attribute text stays.
    ([("a0", "HASH"), ("a0", "RANGE")],
     "Both the Hash Key and the Range Key element in the KeySchema have the same name"),
])
def test_create_table_refuses_bad_multi_attribute_key_schemas(ddb, table_name, gsi_keys,
                                                               message):
    attrs = [("pk", "S")] + [(f"a{i}", "S") for i in range(6)]
    used = {a for a, _ in gsi_keys} | {"pk"}
    e = create_refused(ddb, table_name, gsi_keys, [a for a in attrs if a[0] in used])
    assert (e.code, e.message) == ("ValidationException", message)


def test_create_table_refuses_more_than_eight_elements_and_undefined_attributes(ddb, table_name):
    keys = [(f"a{i}", "HASH") for i in range(4)] + [(f"a{i}", "RANGE") for i in range(4, 9)]
    e = create_refused(ddb, table_name, keys, [("pk", "S")] + [(a, "S") for a, _ in keys])
    assert e.code == "ValidationException"
    assert e.message.startswith("1 validation error detected: Value '[KeySchemaElement("
                                "attributeName=a0, keyType=HASH), ")
    assert e.message.endswith("' at 'globalSecondaryIndexes.1.member.keySchema' failed to "
                              "satisfy constraint: Member must have length less than or equal "
                              "to 8")
    e = create_refused(ddb, table_name, [("a0", "HASH"), ("a1", "HASH"), ("a2", "RANGE")],
                       [("pk", "S"), ("a0", "S"), ("a2", "S")])
    assert (e.code, e.message) == (
        "ValidationException", INVALID + "Some index key attributes are not defined in "
        "AttributeDefinitions. Keys: [a1], AttributeDefinitions: [a0, a2, pk]")


def test_table_keys_and_local_indexes_stay_single_attribute(ddb, table_name):
    e = create_refused(ddb, table_name, None, [("pk", "S"), ("sk", "S"), ("a", "S")],
                       lsi_keys=[("pk", "HASH"), ("sk", "RANGE"), ("a", "RANGE")],
                       table_keys=(("pk", "HASH"), ("sk", "RANGE")))
    assert e.code == "ValidationException"
    assert e.message.endswith("' at 'localSecondaryIndexes.1.member.keySchema' failed to "
                              "satisfy constraint: Member must have length less than or equal "
                              "to 2")
    e = create_refused(ddb, table_name, None, [("pk", "S"), ("a", "S")],
                       table_keys=(("pk", "HASH"), ("a", "HASH")))
    assert (e.code, e.message) == (
        "ValidationException",
        "Invalid KeySchema: The second KeySchemaElement is not a RANGE key type")


def test_update_table_refuses_bad_multi_attribute_key_schemas(ddb, table_name):
    ddb.create_table(TableName=table_name, BillingMode="PAY_PER_REQUEST",
                     KeySchema=ks(("pk", "HASH")), AttributeDefinitions=defs(("pk", "S")))

    def create(keys):
        return dict(TableName=table_name,
                    AttributeDefinitions=defs(*[(a, "S") for a, _ in keys]),
                    GlobalSecondaryIndexUpdates=[{"Create": {
                        "IndexName": "gsi", "KeySchema": ks(*keys),
                        "Projection": {"ProjectionType": "ALL"}}}])

    assert_error(ddb.update_table, "ValidationException",
                 "Invalid KeySchema: A global secondary index key can have at most 4 HASH key "
                 "elements", **create([(f"a{i}", "HASH") for i in range(5)]))
    assert_error(ddb.update_table, "ValidationException",
                 "Invalid KeySchema: The third KeySchemaElement is not a RANGE key type",
                 **create([("a", "HASH"), ("b", "RANGE"), ("c", "HASH")]))
    assert_error(ddb.update_table, "ValidationException",
                 INVALID + "Duplicate AttributeName in KeySchema: a",
                 **create([("a", "HASH"), ("b", "HASH"), ("a", "RANGE")]))
    e = ddb_error(ddb.update_table, **create(
        [(f"a{i}", "HASH") for i in range(4)] + [(f"b{i}", "RANGE") for i in range(5)]))
    assert e.code == "ValidationException"
    assert e.message.endswith("' at 'globalSecondaryIndexUpdates.1.member.create.keySchema' "
                              "failed to satisfy constraint: Member must have length less than "
                              "or equal to 8")


# ------------------------------------------------------------------------------------------
# Writes
# ------------------------------------------------------------------------------------------

def test_a_key_attribute_of_the_wrong_type_is_refused_on_every_write(ddb, multi):
    base = {"pk": S("typed"), "h1": S("A"), "h2": N(1), "r1": S("a"), "r2": N(1)}
    for attr, bad, expected, actual in [("h2", S("1"), "N", "S"), ("r2", S("x"), "N", "S"),
                                        ("r3", S("x"), "B", "S"), ("r1", N(1), "S", "N")]:
        message = (INVALID + f"Type mismatch for Index Key {attr} Expected: {expected} "
                   f"Actual: {actual} IndexName: multi")
        assert_error(ddb.put_item, "ValidationException", message, TableName=multi,
                     Item={**base, attr: bad})
        assert_error(ddb.update_item, "ValidationException", message, TableName=multi,
                     Key={"pk": S("typed")}, UpdateExpression="SET #a = :v",
                     ExpressionAttributeNames={"#a": attr}, ExpressionAttributeValues={":v": bad})
    assert_error(ddb.put_item, "ValidationException",
                 "One or more parameter values are not valid. A value specified for a secondary "
                 "index key is not supported. The AttributeValue for a key attribute cannot "
                 "contain an empty string value. IndexName: multi, IndexKey: r1",
                 TableName=multi, Item={**base, "r1": S("")})


def test_key_size_limits_count_the_attributes_together(ddb, table_name):
    ddb.create_table(
        TableName=table_name, BillingMode="PAY_PER_REQUEST", KeySchema=ks(("pk", "HASH")),
        AttributeDefinitions=defs(("pk", "S"), ("h1", "S"), ("h2", "S"), ("r1", "S"),
                                  ("r2", "S")),
        GlobalSecondaryIndexes=[{"IndexName": "gsi", "KeySchema": ks(
            ("h1", "HASH"), ("h2", "HASH"), ("r1", "RANGE"), ("r2", "RANGE")),
            "Projection": {"ProjectionType": "KEYS_ONLY"}}])
    ok = {"pk": S("ok"), "h1": S("h" * 1024), "h2": S("h" * 1024), "r1": S("r" * 512),
          "r2": S("r" * 512)}
    ddb.put_item(TableName=table_name, Item=ok)
    assert_error(ddb.put_item, "ValidationException",
                 INVALID + "Size of hashkey has exceeded the maximum size limit of2048 bytes",
                 TableName=table_name, Item={**ok, "h2": S("h" * 1025)})
    assert_error(ddb.put_item, "ValidationException",
                 INVALID + "Aggregated size of all range keys has exceeded the size limit of "
                 "1024 bytes", TableName=table_name, Item={**ok, "r2": S("r" * 513)})


def test_items_enter_and_leave_the_index_with_their_last_key_attribute(ddb, multi):
    key = {"pk": S("moving")}
    ddb.put_item(TableName=multi, Item={**key, "h1": S("M"), "h2": N(5), "r1": S("a"),
                                        "r2": N(1)})
    cond, vals = "h1 = :h1 AND h2 = :h2", {":h1": S("M"), ":h2": N(5)}
    assert query(ddb, multi, cond, vals) == []
    ddb.update_item(TableName=multi, Key=key, UpdateExpression="SET r3 = :b",
                    ExpressionAttributeValues={":b": B(b"\x07")})
    assert pks(query(ddb, multi, cond, vals)) == ["moving"]
    # Changing one sort attribute moves the entry.
    ddb.update_item(TableName=multi, Key=key, UpdateExpression="SET r2 = :n",
                    ExpressionAttributeValues={":n": N(2)})
    got = query(ddb, multi, cond + " AND r1 = :r1 AND r2 = :r2",
                {**vals, ":r1": S("a"), ":r2": N(2)})
    assert pks(got) == ["moving"] and query(ddb, multi, cond + " AND r1 = :r1 AND r2 = :r2",
                                            {**vals, ":r1": S("a"), ":r2": N(1)}) == []
    ddb.update_item(TableName=multi, Key=key, UpdateExpression="REMOVE h2")
    assert query(ddb, multi, cond, vals) == []
    ddb.delete_item(TableName=multi, Key=key)


# ------------------------------------------------------------------------------------------
# Query: allowed shapes, order, paging
# ------------------------------------------------------------------------------------------

def test_query_on_the_partition_key_returns_the_partition_in_sort_attribute_order(ddb, multi):
    expected = partition_a()
    assert query(ddb, multi, HASH_A, VALS_A) == expected
    assert query(ddb, multi, HASH_A, VALS_A, ScanIndexForward=False) == expected[::-1]


def test_query_on_a_hash_only_multi_attribute_index(ddb, multi):
    got = all_items(ddb.query, TableName=multi, IndexName="two_hash",
                    KeyConditionExpression=HASH_A, ExpressionAttributeValues=VALS_A)
    assert sorted(pks(got)) == sorted(pks(partition_a()) + ["no-r3", "no-r1"])
    assert set(got[0]) <= {"pk", "h1", "h2"}


OPS = {
    "=": lambda v, a: v == a[0], "<": lambda v, a: v < a[0], "<=": lambda v, a: v <= a[0],
    ">": lambda v, a: v > a[0], ">=": lambda v, a: v >= a[0],
    "BETWEEN": lambda v, a: a[0] <= v <= a[1],
    "begins_with": lambda v, a: v[:len(a[0])] == a[0],
}


def condition_text(attr: str, op: str, names: list[str]) -> str:
    if op == "BETWEEN":
        return f"{attr} BETWEEN {names[0]} AND {names[1]}"
    if op == "begins_with":
        return f"begins_with({attr}, {names[0]})"
    return f"{attr} {op} {names[0]}"


@pytest.mark.parametrize("prefix,attr,op,operands", [
    ((), "r1", op, ops) for op, ops in
    [("=", ["ab"]), ("<", ["ab"]), ("<=", ["ab"]), (">", ["a"]), (">=", ["ab"]),
     ("BETWEEN", ["a", "ab"]), ("begins_with", ["a"])]
] + [
    (("ab",), "r2", op, ops) for op, ops in
    [("=", [Decimal("9")]), ("<", [Decimal("9")]), ("<=", [Decimal("9")]),
     (">", [Decimal("2.5")]), (">=", [Decimal("9")]), ("BETWEEN", [Decimal("0"), Decimal("9")])]
] + [
    (("b", Decimal("10")), "r3", op, ops) for op, ops in
    [("=", [b"\x01"]), ("<", [b"\x01"]), (">", [b"\x01"]), ("BETWEEN", [b"\x00", b"\x01"]),
     ("begins_with", [b"\x00"])]
])
def test_query_every_sort_condition_shape(ddb, multi, prefix, attr, op, operands):
    sort_attrs = ["r1", "r2", "r3"]
    cond = [HASH_A] + [f"{sort_attrs[i]} = :e{i}" for i in range(len(prefix))]
    vals = dict(VALS_A)
    wrap = {"r1": S, "r2": N, "r3": B}
    for i, v in enumerate(prefix):
        vals[f":e{i}"] = wrap[sort_attrs[i]](v)
    names = [f":o{i}" for i in range(len(operands))]
    for n, v in zip(names, operands):
        vals[n] = wrap[attr](v)
    cond.append(condition_text(attr, op, names))
    plain = lambda item, a: (item[a]["S"].encode() if a == "r1" else
                             Decimal(item[a]["N"]) if a == "r2" else bytes(item[a]["B"]))
    raw_operands = [v.encode() if isinstance(v, str) else v for v in operands]
    expected = [i for i in partition_a()
                if all(plain(i, sort_attrs[k]) == (v.encode() if isinstance(v, str) else v)
                       for k, v in enumerate(prefix))
                and OPS[op](plain(i, attr), raw_operands)]
    assert expected, "the case must select something"
    text = " AND ".join(cond)
    assert query(ddb, multi, text, vals) == expected
    assert query(ddb, multi, text, vals, ScanIndexForward=False) == expected[::-1]
    # The conditions in another order mean the same.
    assert query(ddb, multi, " AND ".join(cond[::-1]), vals) == expected


def test_paging_in_both_directions_with_the_whole_index_key(ddb, multi):
    expected = partition_a()
    for forward in (True, False):
        for limit in (1, 5, 7):
            got, start, first_key = [], None, None
            while True:
                kw = dict(TableName=multi, IndexName="multi", KeyConditionExpression=HASH_A,
                          ExpressionAttributeValues=VALS_A, Limit=limit,
                          ScanIndexForward=forward)
                if start:
                    kw["ExclusiveStartKey"] = start
                page = ddb.query(**kw)
                got += page["Items"]
                start = page.get("LastEvaluatedKey")
                if start and first_key is None:
                    first_key = start
                if not start:
                    break
            assert got == (expected if forward else expected[::-1]), (forward, limit)
            assert set(first_key) == {"pk", "h1", "h2", "r1", "r2", "r3"}
    # A start key from another sort prefix is outside the query's boundaries.
    start = {k: v for k, v in expected[0].items() if k != "v"}
    assert_error(ddb.query, "ValidationException",
                 "The provided starting key is outside query boundaries based on provided "
                 "conditions", TableName=multi, IndexName="multi",
                 KeyConditionExpression=HASH_A + " AND r1 = :r1",
                 ExpressionAttributeValues={**VALS_A, ":r1": S("b")}, ExclusiveStartKey=start)
    # One without a key attribute of the index is no start key.
    del start["r2"]
    assert_error(ddb.query, "ValidationException", "The provided starting key is invalid",
                 TableName=multi, IndexName="multi", KeyConditionExpression=HASH_A,
                 ExpressionAttributeValues=VALS_A, ExclusiveStartKey=start)


def test_scan_of_the_index_holds_exactly_the_complete_items(ddb, multi):
    got = all_items(ddb.scan, TableName=multi, IndexName="multi", Limit=4)
    assert sorted(pks(got)) == sorted(pks(model_items()))
    seg = [all_items(ddb.scan, TableName=multi, IndexName="multi", Segment=s, TotalSegments=3)
           for s in range(3)]
    assert sorted(pks(seg[0] + seg[1] + seg[2])) == sorted(pks(model_items()))


def test_legacy_key_conditions_work_on_a_multi_attribute_index(ddb, multi):
    got = all_items(ddb.query, TableName=multi, IndexName="multi", KeyConditions={
        "h1": {"ComparisonOperator": "EQ", "AttributeValueList": [S("A")]},
        "h2": {"ComparisonOperator": "EQ", "AttributeValueList": [N(1)]},
        "r1": {"ComparisonOperator": "EQ", "AttributeValueList": [S("a")]},
        "r2": {"ComparisonOperator": "GT", "AttributeValueList": [N(2.5)]}})
    assert got == [i for i in partition_a()
                   if i["r1"] == S("a") and Decimal(i["r2"]["N"]) > Decimal("2.5")]
    assert_error(ddb.query, "ValidationException", MISSED + "r1", TableName=multi,
                 IndexName="multi", KeyConditions={
                     "h1": {"ComparisonOperator": "EQ", "AttributeValueList": [S("A")]},
                     "h2": {"ComparisonOperator": "EQ", "AttributeValueList": [N(1)]},
                     "r2": {"ComparisonOperator": "GT", "AttributeValueList": [N(2.5)]}})


# ------------------------------------------------------------------------------------------
# Query: refused shapes
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("cond,extra,message", [
    ("h1 = :h1", {}, MISSED + "h2"),
    ("h2 = :h2", {}, MISSED + "h1"),
    ("h1 = :h1 AND h2 > :h2", {}, NOT_SUPPORTED),
    ("h1 = :h1 AND h2 BETWEEN :h2 AND :h2", {}, NOT_SUPPORTED),
    (HASH_A + " AND r2 = :n", {":n": N(1)}, MISSED + "r1"),
    (HASH_A + " AND r3 = :b", {":b": B(b"\x01")}, MISSED + "r1"),
    (HASH_A + " AND r1 = :s AND r3 = :b", {":s": S("a"), ":b": B(b"\x01")}, MISSED + "r2"),
    (HASH_A + " AND r1 > :s AND r2 = :n", {":s": S("a"), ":n": N(1)}, NOT_SUPPORTED),
    (HASH_A + " AND begins_with(r1, :s) AND r2 = :n", {":s": S("a"), ":n": N(1)},
     NOT_SUPPORTED),
    (HASH_A + " AND r1 = :s AND r2 BETWEEN :n AND :n AND r3 = :b",
     {":s": S("a"), ":n": N(1), ":b": B(b"\x01")}, NOT_SUPPORTED),
    (HASH_A + " AND v = :n", {":n": N(1)}, MISSED + "r1"),
    (HASH_A + " AND r1 = :s AND r2 = :n AND r3 = :b AND v = :n",
     {":s": S("a"), ":n": N(1), ":b": B(b"\x01")}, NOT_SUPPORTED),
    (HASH_A + " AND r2 = :s", {":s": S("1")},
     MISSED + "r1"),
    (HASH_A + " AND r1 = :s AND r2 = :s", {":s": S("1")},
     INVALID + "Condition parameter type does not match schema type"),
    ("h1 = :h1 AND h2 = :h1", {}, INVALID + "Condition parameter type does not match schema type"),
    (HASH_A + " AND r1 = :s", {":s": S("")},
     "One or more parameter values are not valid. The AttributeValue for a key attribute cannot "
     "contain an empty string value. Key: r1"),
])
def test_query_refuses_shapes_the_service_refuses(ddb, multi, cond, extra, message):
    vals = {k: v for k, v in VALS_A.items() if k in cond}
    vals.update(extra)
    assert_error(ddb.query, "ValidationException", message, TableName=multi, IndexName="multi",
                 KeyConditionExpression=cond, ExpressionAttributeValues=vals)


def test_a_filter_may_not_name_any_key_attribute_of_the_index(ddb, multi):
    for attr in ("h2", "r1", "r3"):
        assert_error(ddb.query, "ValidationException",
                     "Filter Expression can only contain non-primary key attributes: Primary "
                     f"key attribute: {attr}", TableName=multi, IndexName="multi",
                     KeyConditionExpression=HASH_A, FilterExpression="attribute_exists(#a)",
                     ExpressionAttributeNames={"#a": attr}, ExpressionAttributeValues=VALS_A)
    got = query(ddb, multi, HASH_A, {**VALS_A, ":v": N(3)}, FilterExpression="v < :v")
    assert got == [i for i in partition_a() if int(i["v"]["N"]) < 3]


# ------------------------------------------------------------------------------------------
# Backfill, TTL
# ------------------------------------------------------------------------------------------

def test_backfill_indexes_only_complete_well_typed_items(ddb, table_name):
    ddb.create_table(TableName=table_name, BillingMode="PAY_PER_REQUEST",
                     KeySchema=ks(("pk", "HASH")), AttributeDefinitions=defs(("pk", "S")))
    batch_put(ddb, table_name, [
        {"pk": S(f"p{i}"), "a": S("T"), "b": N(i % 3), "c": S(f"c{9 - i}")} for i in range(10)
    ] + [{"pk": S("no-c"), "a": S("T"), "b": N(0)},
         {"pk": S("b-string"), "a": S("T"), "b": S("0"), "c": S("c")}])
    ddb.update_table(TableName=table_name,
                     AttributeDefinitions=defs(("a", "S"), ("b", "N"), ("c", "S")),
                     GlobalSecondaryIndexUpdates=[{"Create": {
                         "IndexName": "abc", "KeySchema": ks(("a", "HASH"), ("b", "HASH"),
                                                             ("c", "RANGE")),
                         "Projection": {"ProjectionType": "KEYS_ONLY"}}}])
    desc = wait_active(ddb, table_name)
    assert desc["GlobalSecondaryIndexes"][0]["KeySchema"] == ks(("a", "HASH"), ("b", "HASH"),
                                                                ("c", "RANGE"))
    assert desc["GlobalSecondaryIndexes"][0]["ItemCount"] == 10
    got = all_items(ddb.query, TableName=table_name, IndexName="abc",
                    KeyConditionExpression="a = :a AND b = :b",
                    ExpressionAttributeValues={":a": S("T"), ":b": N(0)})
    assert pks(got) == ["p9", "p6", "p3", "p0"]  # by c: c0, c3, c6, c9


def test_ttl_expiry_removes_the_index_entries(ddb, table_name):
    create_multi_table(ddb, table_name)
    ddb.update_time_to_live(TableName=table_name,
                            TimeToLiveSpecification={"Enabled": True, "AttributeName": "ttl"})
    now = int(time.time())
    key = {"h1": S("T"), "h2": N(1), "r1": S("a"), "r2": N(1), "r3": B(b"\x01")}
    ddb.put_item(TableName=table_name, Item={"pk": S("gone"), **key, "ttl": N(now - 1)})
    ddb.put_item(TableName=table_name, Item={"pk": S("kept"), **key, "ttl": N(now + 3600)})
    vals = {":h1": S("T"), ":h2": N(1)}
    wait_until(lambda: "Item" not in ddb.get_item(TableName=table_name, Key={"pk": S("gone")}),
               5, "the expired item to be deleted")
    assert pks(query(ddb, table_name, HASH_A, vals)) == ["kept"]
    desc = ddb.describe_table(TableName=table_name)["Table"]
    assert {g["ItemCount"] for g in desc["GlobalSecondaryIndexes"]} == {1}


# ------------------------------------------------------------------------------------------
# Backup and restore, restart, `ttlstore check` (a server of its own)
# ------------------------------------------------------------------------------------------

def test_backup_restore_restart_and_check_keep_the_index(start_server, tmp_path):
    data = tmp_path / "data"
    srv = start_server(data)
    c = make_client(srv.endpoint)
    create_multi_table(c, "multi_src")
    batch_put(c, "multi_src", model_items())
    arn = c.create_backup(TableName="multi_src", BackupName="bak")["BackupDetails"]["BackupArn"]
    c.restore_table_from_backup(TargetTableName="multi_dst", BackupArn=arn)
    wait_until(lambda: c.describe_table(TableName="multi_dst")["Table"]["TableStatus"] ==
               "ACTIVE", 30, "the restore")
    srv.stop()
    check_data_dir(data)
    srv = start_server(data)
    c = make_client(srv.endpoint)
    for table in ("multi_src", "multi_dst"):
        desc = c.describe_table(TableName=table)["Table"]
        gsis = {g["IndexName"]: g for g in desc["GlobalSecondaryIndexes"]}
        assert gsis["multi"]["KeySchema"] == MULTI_KEY
        assert query(c, table, HASH_A, VALS_A) == partition_a()
    c.delete_item(TableName="multi_dst", Key={"pk": partition_a()[0]["pk"]})
    assert query(c, "multi_dst", HASH_A, VALS_A) == partition_a()[1:]
    srv.stop()
    check_data_dir(data)
