"""ConditionExpression on PutItem / UpdateItem / DeleteItem and
ReturnValuesOnConditionCheckFailure.

Failed conditions are `ConditionalCheckFailedException: The conditional request failed` (conformance
tier3/error-messages/conditionalCheck); with ReturnValuesOnConditionCheckFailure=ALL_OLD the error
also carries the old item (`e.response['Item']` in boto3).
"""
from __future__ import annotations

import re

import pytest

from dataplane_util import B, N, S, ccf, drop_table, get, make_table, modern_ddb  # noqa: F401
from e2e_util import assert_error, normalize_sets, unique_name


@pytest.fixture(scope="module")
def tbl(ddb):
    name = make_table(ddb, unique_name("cond"))
    yield name
    drop_table(ddb, name)


_ids = iter(range(1_000_000))


def fresh_key() -> dict:
    return {"pk": S(f"c{next(_ids)}")}


# ---- put-if-absent and version checks ------------------------------------------------------------

def test_put_if_absent(ddb, tbl):
    key = fresh_key()
    ddb.put_item(TableName=tbl, Item={**key, "v": S("first")},
                 ConditionExpression="attribute_not_exists(pk)")
    e = ccf(ddb.put_item, TableName=tbl, Item={**key, "v": S("second")},
            ConditionExpression="attribute_not_exists(pk)")
    assert "Item" not in e.response
    assert get(ddb, tbl, key) == {**key, "v": S("first")}


def test_version_checked_update(ddb, tbl):
    key = fresh_key()
    ddb.put_item(TableName=tbl, Item={**key, "ver": N(1), "body": S("a")})

    def bump(expected, body):
        return ddb.update_item(
            TableName=tbl, Key=key, UpdateExpression="SET ver = ver + :one, body = :b",
            ConditionExpression="ver = :expected",
            ExpressionAttributeValues={":one": N(1), ":b": S(body), ":expected": N(expected)},
            ReturnValues="ALL_NEW")

    assert bump(1, "b")["Attributes"] == {**key, "ver": N(2), "body": S("b")}
    ccf(bump, expected=1, body="stale")
    assert bump(2, "c")["Attributes"]["ver"] == N(3)
    assert get(ddb, tbl, key) == {**key, "ver": N(3), "body": S("c")}


def test_version_checked_put_with_attribute_not_exists_or_match(ddb, tbl):
    key = fresh_key()
    cond = "attribute_not_exists(ver) OR ver = :old"
    ddb.put_item(TableName=tbl, Item={**key, "ver": N(1)}, ConditionExpression=cond,
                 ExpressionAttributeValues={":old": N(0)})
    ccf(ddb.put_item, TableName=tbl, Item={**key, "ver": N(2)}, ConditionExpression=cond,
        ExpressionAttributeValues={":old": N(0)})
    ddb.put_item(TableName=tbl, Item={**key, "ver": N(2)}, ConditionExpression=cond,
                 ExpressionAttributeValues={":old": N(1)})
    assert get(ddb, tbl, key)["ver"] == N(2)


def test_conditional_delete(ddb, tbl):
    key = fresh_key()
    ddb.put_item(TableName=tbl, Item={**key, "phase": S("open")})
    ccf(ddb.delete_item, TableName=tbl, Key=key, ConditionExpression="phase = :s",
        ExpressionAttributeValues={":s": S("closed")})
    assert get(ddb, tbl, key) is not None
    out = ddb.delete_item(TableName=tbl, Key=key, ConditionExpression="phase = :s",
                          ExpressionAttributeValues={":s": S("open")}, ReturnValues="ALL_OLD")
    assert out["Attributes"] == {**key, "phase": S("open")}
    assert get(ddb, tbl, key) is None
    # On a missing item attribute_exists fails and attribute_not_exists holds.
    ccf(ddb.delete_item, TableName=tbl, Key=key, ConditionExpression="attribute_exists(pk)")
    ddb.delete_item(TableName=tbl, Key=key, ConditionExpression="attribute_not_exists(pk)")


@pytest.mark.parametrize("cond,values", [
    ("attribute_exists(pk)", None),
    ("sc > :min", {":min": N(0)}),
    ("attribute_exists(pk) AND st = :v", {":v": S("active")}),
])
def test_failed_condition_on_missing_item_leaves_no_ghost(ddb, tbl, cond, values):
    key = fresh_key()
    kw = {"ExpressionAttributeValues": {**(values or {}), ":one": N(1)}}
    ccf(ddb.update_item, TableName=tbl, Key=key, UpdateExpression="ADD hits :one",
        ConditionExpression=cond, **kw)
    assert get(ddb, tbl, key) is None


def test_update_with_attribute_not_exists_upserts(ddb, tbl):
    key = fresh_key()
    out = ddb.update_item(TableName=tbl, Key=key, UpdateExpression="SET st = :v, sc = :n",
                          ConditionExpression="attribute_not_exists(pk)",
                          ExpressionAttributeValues={":v": S("fresh"), ":n": N(42)},
                          ReturnValues="ALL_NEW")
    assert out["Attributes"] == {**key, "st": S("fresh"), "sc": N(42)}


# ---- ReturnValuesOnConditionCheckFailure ---------------------------------------------------------

def test_return_values_on_condition_check_failure_all_old(modern_ddb, tbl):
    ddb = modern_ddb
    key = fresh_key()
    old = {**key, "st": S("locked"), "n": N(1), "m": {"M": {"x": {"L": [S("y")]}}}}
    ddb.put_item(TableName=tbl, Item=old)
    calls = [
        (ddb.put_item, dict(Item={**key, "st": S("new")},
                            ConditionExpression="attribute_not_exists(pk)")),
        (ddb.update_item, dict(Key=key, UpdateExpression="SET st = :v",
                               ConditionExpression="st = :want",
                               ExpressionAttributeValues={":v": S("x"), ":want": S("open")})),
        (ddb.delete_item, dict(Key=key, ConditionExpression="n > :n",
                               ExpressionAttributeValues={":n": N(5)})),
    ]
    for fn, kw in calls:
        e = ccf(fn, TableName=tbl, ReturnValuesOnConditionCheckFailure="ALL_OLD", **kw)
        assert e.response.get("Item") == old, fn
        e = ccf(fn, TableName=tbl, ReturnValuesOnConditionCheckFailure="NONE", **kw)
        assert "Item" not in e.response, fn
        e = ccf(fn, TableName=tbl, **kw)
        assert "Item" not in e.response, fn
    assert get(ddb, tbl, key) == old


def test_return_values_on_condition_check_failure_for_missing_item_has_no_item(modern_ddb, tbl):
    e = ccf(modern_ddb.update_item, TableName=tbl, Key=fresh_key(),
            UpdateExpression="SET a = :v", ConditionExpression="attribute_exists(pk)",
            ExpressionAttributeValues={":v": N(1)}, ReturnValuesOnConditionCheckFailure="ALL_OLD")
    assert "Item" not in e.response


def test_return_values_on_condition_check_failure_invalid_value(modern_ddb, tbl):
    assert_error(modern_ddb.put_item, "ValidationException",
                 "1 validation error detected: Value 'X' at 'returnValuesOnConditionCheckFailure' "
                 "failed to satisfy constraint: Member must satisfy enum value set: "
                 "[ALL_OLD, NONE]",
                 TableName=tbl, Item=fresh_key(), ConditionExpression="attribute_exists(pk)",
                 ReturnValuesOnConditionCheckFailure="X")


# ---- the condition language ----------------------------------------------------------------------

ITEM = {
    "n": N(1), "c": N(5), "s": S("hello world"), "ss": {"SS": ["red", "blue"]},
    "ns": {"NS": ["1", "2"]}, "l": {"L": [S("x"), N(2), {"M": {"deep": S("d")}}]},
    "m": {"M": {"inr": S("in"), "k2": N(2)}}, "bin": B(b"\x01\x02\x03"), "flag": {"BOOL": True},
    "nul": {"NULL": True},
}
VALS = {":n0": N(0), ":n1": N(1), ":n2": N(2), ":n3": N(3), ":s1": S("1"), ":hello": S("hello"),
        ":wor": S("wor"), ":red": S("red"), ":x": S("x"), ":in": S("in"), ":d": S("d"),
        ":tN": S("N"), ":tS": S("S"), ":tNULL": S("NULL"), ":tM": S("M"), ":t": {"BOOL": True},
        ":b12": B(b"\x01\x02"), ":b3": B(b"\x01\x02\x03"), ":len": N(11),
        ":map": {"M": {"inr": S("in"), "k2": N(2)}},
        ":nsel": N(2), ":ns": {"NS": ["2", "1"]}}

CONDITIONS = [
    ("n = :n1", True), ("n <> :n1", False), ("n < :n2", True), ("n <= :n0", False),
    ("n > :n0", True), ("n >= :n2", False), ("n < c", True), ("c BETWEEN :n2 AND :n3", False),
    ("n BETWEEN :n0 AND :n1", True), ("n IN (:n0, :n1, :n2)", True), ("n IN (:n2, :n3)", False),
    ("n = :s1", False), ("s < :n3", False),
    ("begins_with(s, :hello)", True), ("begins_with(s, :wor)", False),
    ("contains(s, :wor)", True), ("contains(ss, :red)", True), ("contains(ss, :x)", False),
    ("contains(l, :x)", True), ("contains(ns, :nsel)", True),
    ("size(s) = :len", True), ("size(l) = :n3", True), ("size(m) = :n2", True),
    ("size(bin) = :n3", True), ("size(ss) > :n2", False),
    ("attribute_type(n, :tN)", True), ("attribute_type(n, :tS)", False),
    ("attribute_type(nul, :tNULL)", True), ("attribute_type(m, :tM)", True),
    ("attribute_exists(m.inr)", True), ("attribute_not_exists(m.nope)", True),
    ("attribute_exists(l[1])", True), ("attribute_exists(l[5])", False),
    ("attribute_exists(nope)", False), ("nope = :n1", False),
    ("m.inr = :in", True), ("l[2].deep = :d", True), ("l[0] = :x", True), ("m = :map", True),
    ("ns = :ns", True), ("bin = :b3", True), ("begins_with(bin, :b12)", True), ("flag = :t", True),
    ("NOT n = :n1", False), ("NOT (n = :n0)", True), ("n = :n0 OR n = :n1", True),
    ("n = :n1 OR n = :n0 AND s = :x", True), ("(n = :n0 OR n = :n1) AND s <> :x", True),
    ("NOT n = :n0 AND n = :n0", False), ("(n = :n1) AND (NOT (s = :x))", True),
    ("(n = :n0 OR (n = :n1))", True),
]


@pytest.mark.parametrize("cond,expected", CONDITIONS, ids=[c for c, _ in CONDITIONS])
def test_condition_language(ddb, tbl, cond, expected):
    key = {"pk": S("condition-language")}
    ddb.put_item(TableName=tbl, Item={**key, **ITEM})
    used = {k: VALS[k] for k in re.findall(r":\w+", cond)}
    kw = {"ExpressionAttributeValues": used} if used else {}
    if expected:
        ddb.put_item(TableName=tbl, Item={**key, **ITEM}, ConditionExpression=cond, **kw)
    else:
        ccf(ddb.put_item, TableName=tbl, Item={**key, **ITEM}, ConditionExpression=cond, **kw)
    assert normalize_sets(get(ddb, tbl, key)) == normalize_sets({**key, **ITEM})
