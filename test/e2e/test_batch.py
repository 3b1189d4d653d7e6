"""BatchGetItem and BatchWriteItem.

Exact messages: conformance tier3/error-messages/batchGetItem and batchWriteItem (authoritative).
"""
from __future__ import annotations

import re

import pytest

from dataplane_util import N, S, batch_put, drop_table, get, make_table
from e2e_util import assert_error, ddb_error, unique_name

V = "ValidationException"
DUPLICATES = "Provided list of item keys contains duplicates"


@pytest.fixture(scope="module")
def tables(ddb):
    h = make_table(ddb, unique_name("bh"))
    c = make_table(ddb, unique_name("bc"), range_key=("sk", "S"))
    batch_put(ddb, h, [{"pk": S(f"g-{i}"), "idx": N(i), "a": S("alpha"), "b": S("beta"),
                        "m": {"M": {"x": N(i), "y": S("why")}}} for i in range(110)])
    yield {"h": h, "c": c}
    drop_table(ddb, h)
    drop_table(ddb, c)


def keys(n, start=0):
    return [{"pk": S(f"g-{i}")} for i in range(start, start + n)]


# ---- BatchGetItem --------------------------------------------------------------------------------

def test_batch_get_100_keys(ddb, tables):
    out = ddb.batch_get_item(RequestItems={tables["h"]: {"Keys": keys(100),
                                                         "ConsistentRead": True}})
    got = out["Responses"][tables["h"]]
    assert sorted(int(it["idx"]["N"]) for it in got) == list(range(100))
    assert not out.get("UnprocessedKeys")


def test_batch_get_101_keys_is_rejected(ddb, tables):
    assert_error(ddb.batch_get_item, V, "1 validation error detected: Value at "
                 f"'RequestItems.{tables['h']}.member.Keys' failed to satisfy constraint: Member "
                 "must have length less than or equal to 100",
                 RequestItems={tables["h"]: {"Keys": keys(101)}})


def test_batch_get_missing_keys_are_simply_absent(ddb, tables):
    out = ddb.batch_get_item(RequestItems={
        tables["h"]: {"Keys": [{"pk": S("g-1")}, {"pk": S("nope-1")}, {"pk": S("g-2")}]},
        tables["c"]: {"Keys": [{"pk": S("none"), "sk": S("none")}]}})
    assert sorted(it["pk"]["S"] for it in out["Responses"][tables["h"]]) == ["g-1", "g-2"]
    assert out["Responses"][tables["c"]] == []
    assert not out.get("UnprocessedKeys")


def test_batch_get_projection_does_not_add_keys(ddb, tables):
    out = ddb.batch_get_item(RequestItems={tables["h"]: {
        "Keys": keys(3), "ProjectionExpression": "a, #m.x",
        "ExpressionAttributeNames": {"#m": "m"}}})
    got = sorted(out["Responses"][tables["h"]], key=lambda it: it["m"]["M"]["x"]["N"])
    assert got == [{"a": S("alpha"), "m": {"M": {"x": N(i)}}} for i in range(3)]


def test_batch_get_from_two_tables(ddb, tables):
    ddb.put_item(TableName=tables["c"], Item={"pk": S("bg"), "sk": S("1"), "v": S("c")})
    out = ddb.batch_get_item(RequestItems={
        tables["h"]: {"Keys": [{"pk": S("g-5")}], "ProjectionExpression": "idx"},
        tables["c"]: {"Keys": [{"pk": S("bg"), "sk": S("1")}], "ConsistentRead": True}})
    assert out["Responses"][tables["h"]] == [{"idx": N(5)}]
    assert out["Responses"][tables["c"]] == [{"pk": S("bg"), "sk": S("1"), "v": S("c")}]


def test_batch_get_duplicate_keys(ddb, tables):
    assert_error(ddb.batch_get_item, V, DUPLICATES,
                 RequestItems={tables["h"]: {"Keys": [{"pk": S("same")}, {"pk": S("same")}]}})


def test_batch_get_empty_request_items(ddb):
    assert_error(ddb.batch_get_item, V, "The requestItems parameter is required for BatchGetItem",
                 RequestItems={})


def test_batch_get_missing_table_and_bad_key(ddb, tables):
    assert_error(ddb.batch_get_item, "ResourceNotFoundException", "Requested resource not found",
                 RequestItems={unique_name("missing"): {"Keys": [{"pk": S("x")}]}})
    assert_error(ddb.batch_get_item, V, "The provided key element does not match the schema",
                 RequestItems={tables["c"]: {"Keys": [{"pk": S("x")}]}})


# ---- BatchWriteItem ------------------------------------------------------------------------------

def test_batch_write_25_puts_then_deletes(ddb, tables):
    t = tables["c"]
    items = [{"pk": S("bw"), "sk": S(f"{i:02d}"), "v": N(i)} for i in range(25)]
    out = ddb.batch_write_item(RequestItems={t: [{"PutRequest": {"Item": it}} for it in items]})
    assert not out.get("UnprocessedItems")
    got = ddb.query(TableName=t, KeyConditionExpression="pk = :p",
                    ExpressionAttributeValues={":p": S("bw")})["Items"]
    assert got == items
    out = ddb.batch_write_item(RequestItems={t: [
        {"DeleteRequest": {"Key": {"pk": it["pk"], "sk": it["sk"]}}} for it in items]})
    assert not out.get("UnprocessedItems")
    assert ddb.query(TableName=t, KeyConditionExpression="pk = :p",
                     ExpressionAttributeValues={":p": S("bw")})["Count"] == 0


def test_batch_write_26_requests_is_rejected(ddb, tables):
    t = tables["h"]
    e = ddb_error(ddb.batch_write_item, RequestItems={
        t: [{"PutRequest": {"Item": {"pk": S(f"bw26-{i}")}}} for i in range(26)]})
    assert e.code == V
    pattern = (r"^1 validation error detected: Value '\{" + re.escape(t) + r"=\[.+\]\}' at "
               r"'requestItems' failed to satisfy constraint: Map value must satisfy constraint: "
               r"\[Member must have length less than or equal to 25, Member must have length "
               r"greater than or equal to 1\]$")
    assert re.match(pattern, e.message, re.S), e.message
    assert get(ddb, t, {"pk": S("bw26-0")}) is None


def test_batch_write_mixed_and_multi_table(ddb, tables):
    h, c = tables["h"], tables["c"]
    ddb.put_item(TableName=h, Item={"pk": S("mix-del"), "v": S("x")})
    ddb.batch_write_item(RequestItems={
        h: [{"PutRequest": {"Item": {"pk": S("mix-put"), "v": S("new")}}},
            {"DeleteRequest": {"Key": {"pk": S("mix-del")}}},
            {"DeleteRequest": {"Key": {"pk": S("never-existed")}}}],
        c: [{"PutRequest": {"Item": {"pk": S("mix"), "sk": S("a")}}},
            {"PutRequest": {"Item": {"pk": S("mix"), "sk": S("b")}}}]})
    assert get(ddb, h, {"pk": S("mix-put")}) == {"pk": S("mix-put"), "v": S("new")}
    assert get(ddb, h, {"pk": S("mix-del")}) is None
    assert get(ddb, c, {"pk": S("mix"), "sk": S("b")}) == {"pk": S("mix"), "sk": S("b")}


def test_batch_write_put_replaces_whole_item(ddb, tables):
    h = tables["h"]
    ddb.put_item(TableName=h, Item={"pk": S("replace"), "old": S("gone")})
    ddb.batch_write_item(RequestItems={h: [
        {"PutRequest": {"Item": {"pk": S("replace"), "n": N(1)}}}]})
    assert get(ddb, h, {"pk": S("replace")}) == {"pk": S("replace"), "n": N(1)}


@pytest.mark.parametrize("requests", [
    [{"PutRequest": {"Item": {"pk": S("dup"), "v": S("1")}}},
     {"PutRequest": {"Item": {"pk": S("dup"), "v": S("2")}}}],
    [{"PutRequest": {"Item": {"pk": S("dup")}}}, {"DeleteRequest": {"Key": {"pk": S("dup")}}}],
    [{"DeleteRequest": {"Key": {"pk": S("dup")}}}, {"DeleteRequest": {"Key": {"pk": S("dup")}}}],
], ids=["put-put", "put-delete", "delete-delete"])
def test_batch_write_duplicate_keys_are_rejected(ddb, tables, requests):
    h = tables["h"]
    assert_error(ddb.batch_write_item, V, DUPLICATES,
                 RequestItems={h: requests + [{"PutRequest": {"Item": {"pk": S("dup-other")}}}]})
    assert get(ddb, h, {"pk": S("dup")}) is None
    assert get(ddb, h, {"pk": S("dup-other")}) is None


def test_batch_write_same_hash_different_range_is_not_a_duplicate(ddb, tables):
    c = tables["c"]
    ddb.batch_write_item(RequestItems={c: [
        {"PutRequest": {"Item": {"pk": S("nd"), "sk": S("1")}}},
        {"PutRequest": {"Item": {"pk": S("nd"), "sk": S("2")}}}]})
    assert get(ddb, c, {"pk": S("nd"), "sk": S("2")}) is not None


def test_batch_write_invalid_item_writes_nothing(ddb, tables):
    h = tables["h"]
    # A batch's put answers a missing or mistyped key as its delete does (a conformance suite's
    # capture against the service), not with PutItem's "Missing the key pk in the item".
    assert_error(ddb.batch_write_item, V, "The provided key element does not match the schema",
                 RequestItems={h: [
                     {"PutRequest": {"Item": {"pk": S("valid-first")}}},
                     {"PutRequest": {"Item": {"other": S("no key")}}}]})
    assert get(ddb, h, {"pk": S("valid-first")}) is None


def test_batch_write_large_items(ddb, tables):
    h = tables["h"]
    out = ddb.batch_write_item(RequestItems={h: [
        {"PutRequest": {"Item": {"pk": S(f"large-{i}"), "payload": S("x" * 20_000)}}}
        for i in range(25)]})
    assert not out.get("UnprocessedItems")
    assert len(get(ddb, h, {"pk": S("large-24")})["payload"]["S"]) == 20_000


def test_batch_write_empty_request_items(ddb):
    assert_error(ddb.batch_write_item, V, "The requestItems parameter is required for "
                 "BatchWriteItem", RequestItems={})


def test_batch_write_missing_table(ddb):
    assert_error(ddb.batch_write_item, "ResourceNotFoundException", "Requested resource not found",
                 RequestItems={unique_name("missing"): [{"PutRequest": {"Item": {"pk": S("x")}}}]})


def test_batch_get_duplicate_keys_are_refused_before_the_table_is_looked_up(ddb):
    # A request-structure error comes before table existence (ExtendDB's
    # tests/test_validation_precedence.py, captured from the service): duplicates on a table that
    # does not exist are a ValidationException, not ResourceNotFoundException.
    absent = unique_name("absent")
    key = {"pk": {"S": "k"}}
    assert_error(ddb.batch_get_item, "ValidationException", DUPLICATES,
                 RequestItems={absent: {"Keys": [key, key]}})
    assert_error(ddb.batch_get_item, "ValidationException", DUPLICATES,
                 RequestItems={absent: {"Keys": [{"pk": {"N": "1"}}, {"pk": {"N": "1.0"}}]}})
