"""Edge cases across the data plane: invalid document paths in updates, item-size and number limits
reached through UpdateItem, exact decimal arithmetic, and key encodings that must not collide
(prefix partitions, NUL characters, extreme numbers, high bytes) in Query and Scan.

Messages from dynalite's updateItem/batchGetItem tests (real DynamoDB).
"""
from __future__ import annotations

from decimal import Decimal

import pytest

from dataplane_util import B, N, S, all_items, batch_put, drop_table, get, make_table
from e2e_util import assert_error, unique_name

V = "ValidationException"
INVALID_PATH = "The document path provided in the update expression is invalid for update"


@pytest.fixture(scope="module")
def tbl(ddb):
    name = make_table(ddb, unique_name("edge"))
    yield name
    drop_table(ddb, name)


def update(ddb, table, key, expr, values=None, **kw):
    args = dict(TableName=table, Key=key, UpdateExpression=expr, **kw)
    if values:
        args["ExpressionAttributeValues"] = values
    return ddb.update_item(**args)


# ---- UpdateItem: odd shapes ----------------------------------------------------------------------

def test_update_without_any_action_creates_the_bare_item(ddb, tbl):
    key = {"pk": S("bare")}
    assert "Attributes" not in ddb.update_item(TableName=tbl, Key=key)
    assert get(ddb, tbl, key) == key


ITEM = {"b": S("text"), "c": {"M": {"1": S("a")}}, "d": {"L": [S("a"), S("b")]}}


@pytest.mark.parametrize("expr", [
    "SET b.a = :a", "SET b[1] = :a", "SET y.a = :a", "SET y[1] = :a", "SET c[1] = :a",
    "SET d.x = :a", "REMOVE b.a", "REMOVE b[1]", "REMOVE y.a", "REMOVE y[1]", "REMOVE c[1]",
    "REMOVE d.x", "ADD b.a :n", "ADD y.a :n", "DELETE c[1] :s",
])
def test_invalid_document_paths(ddb, tbl, expr):
    key = {"pk": S("paths")}
    ddb.put_item(TableName=tbl, Item={**key, **ITEM})
    values = {k: v for k, v in {":a": S("v"), ":n": N(1), ":s": {"SS": ["a"]}}.items()
              if k in expr}
    assert_error(update, V, INVALID_PATH, ddb=ddb, table=tbl, key=key, expr=expr, values=values)
    assert get(ddb, tbl, key) == {**key, **ITEM}


@pytest.mark.parametrize("expr", ["SET b.a = :a", "SET b[0] = :a"])
def test_nested_set_on_a_missing_item_is_invalid(ddb, tbl, expr):
    key = {"pk": S("no-such-item " + expr)}
    assert_error(update, V, INVALID_PATH, ddb=ddb, table=tbl, key=key, expr=expr,
                 values={":a": S("v")})
    assert get(ddb, tbl, key) is None


def test_reading_a_missing_attribute_in_set_is_an_error(ddb, tbl):
    for expr in ("SET c = b", "SET e = list_append(b, c)"):
        assert_error(update, V, "The provided expression refers to an attribute that does not "
                     "exist in the item", ddb=ddb, table=tbl, key={"pk": S("nothing-here")},
                     expr=expr)
    assert get(ddb, tbl, {"pk": S("nothing-here")}) is None


def test_update_growing_an_item_past_400kb_is_rejected(ddb, tbl):
    key = {"pk": S("grow")}
    big = "x" * 250_000
    update(ddb, tbl, key, "SET a = :v", {":v": S(big)})
    assert_error(update, V, "Item size to update has exceeded the maximum allowed size",
                 ddb=ddb, table=tbl, key=key, expr="SET b = :v", values={":v": S(big)})
    assert set(get(ddb, tbl, key)) == {"pk", "a"}


# ---- numbers -------------------------------------------------------------------------------------

@pytest.mark.parametrize("start,delta,result", [
    ("0.1", "0.2", "0.3"),
    ("1.50", "1", "2.5"),
    ("-5", "5", "0"),
    ("12345678901234567890123456789012345678", "1", "12345678901234567890123456789012345679"),
    ("1E+100", "1E+100", "20000000000000000000000000000000000000000000000000000000000000000000000"
                         "000000000000000000000000000000"),
    ("1E-130", "-1E-130", "0"),
], ids=["tenths", "normalized", "zero", "38-digits", "big", "tiny"])
def test_exact_decimal_arithmetic(ddb, tbl, start, delta, result):
    key = {"pk": S(f"num-{start}")}
    ddb.put_item(TableName=tbl, Item={**key, "n": N(start), "m": N(start)})
    update(ddb, tbl, key, "SET n = n + :d ADD m :d", {":d": N(delta)})
    item = get(ddb, tbl, key)
    assert item["n"] == item["m"] == N(result)
    update(ddb, tbl, key, "SET n = n - :d", {":d": N(delta)})
    assert Decimal(get(ddb, tbl, key)["n"]["N"]) == Decimal(start)


def test_arithmetic_overflow_is_rejected(ddb, tbl):
    key = {"pk": S("overflow")}
    top = "9E+125"  # 9E+125 + 9E+125 = 1.8E+126: too large, and only 2 significant digits
    ddb.put_item(TableName=tbl, Item={**key, "n": N(top)})
    for expr in ("SET n = n + :d", "ADD n :d"):
        assert_error(update, V, "Number overflow. Attempting to store a number with magnitude "
                     "larger than supported range", ddb=ddb, table=tbl, key=key, expr=expr,
                     values={":d": N(top)})
    assert Decimal(get(ddb, tbl, key)["n"]["N"]) == Decimal(top)


# ---- key encodings -------------------------------------------------------------------------------

def test_partitions_that_are_prefixes_of_each_other_stay_apart(ddb):
    name = make_table(ddb, unique_name("prefix"), range_key=("sk", "S"))
    try:
        pks = ["p", "p\x00", "p\x00\x00", "pp", "p\x01x", "\x00", "q", "\u00e9", "\U0001F600"]
        items = [{"pk": S(pk), "sk": S(sk), "v": S(f"{pk}|{sk}")}
                 for pk in pks for sk in ("\x00", "a", "a\x00", "ab", "\xff", "\uffff")]
        batch_put(ddb, name, items)
        for pk in pks:
            out = ddb.query(TableName=name, KeyConditionExpression="pk = :p",
                            ExpressionAttributeValues={":p": S(pk)})
            got = [it["sk"]["S"] for it in out["Items"]]
            assert all(it["pk"]["S"] == pk for it in out["Items"]), repr(pk)
            # S sort keys order by UTF-8 bytes.
            assert got == sorted(got, key=lambda s: s.encode("utf-8")), repr(pk)
            assert len(got) == 6, repr(pk)
        assert len(all_items(ddb.scan, TableName=name, Limit=7)) == len(items)
    finally:
        drop_table(ddb, name)


def test_extreme_number_sort_keys_order_numerically(ddb):
    name = make_table(ddb, unique_name("numsk"), range_key=("sk", "N"))
    try:
        values = ["-9.9999999999999999999999999999999999999E+125", "-1E+10", "-100", "-99.5",
                  "-1", "-1E-130", "0", "1E-130", "0.001", "1",
                  "1.0000000000000000000000000000000000001", "99.5", "100", "1E+10",
                  "9.9999999999999999999999999999999999999E+125"]
        shuffled = values[1::2] + values[0::2]
        batch_put(ddb, name, [{"pk": S("n"), "sk": N(v)} for v in shuffled])
        out = ddb.query(TableName=name, KeyConditionExpression="pk = :p",
                        ExpressionAttributeValues={":p": S("n")})
        assert [Decimal(it["sk"]["N"]) for it in out["Items"]] == [Decimal(v) for v in values]
        # 1e2 and 100.0 are the same key as 100.
        ddb.put_item(TableName=name, Item={"pk": S("n"), "sk": N("1e2"), "tag": S("same")})
        got = ddb.query(TableName=name, KeyConditionExpression="pk = :p AND sk = :v",
                        ExpressionAttributeValues={":p": S("n"), ":v": N("100.0")})["Items"]
        assert got == [{"pk": S("n"), "sk": N("100"), "tag": S("same")}]
    finally:
        drop_table(ddb, name)


def test_binary_partition_and_sort_keys(ddb):
    name = make_table(ddb, unique_name("binkeys"), hash_key=("pk", "B"), range_key=("sk", "B"))
    try:
        pks = [b"\x00", b"\x00\x00", b"\x00\x01", b"\xff", b"\xff\xff", b"a"]
        sks = [b"\x00", b"\x00\xff", b"\x01", b"\x7f", b"\x80", b"\xff"]
        batch_put(ddb, name, [{"pk": B(p), "sk": B(s)} for p in pks for s in sks])
        for p in pks:
            out = ddb.query(TableName=name, KeyConditionExpression="pk = :p",
                            ExpressionAttributeValues={":p": B(p)}, ScanIndexForward=False)
            assert [it["sk"]["B"] for it in out["Items"]] == sks[::-1]
            assert all(it["pk"]["B"] == p for it in out["Items"])
        out = ddb.query(TableName=name, KeyConditionExpression="pk = :p AND sk BETWEEN :a AND :b",
                        ExpressionAttributeValues={":p": B(b"\x00"), ":a": B(b"\x00\x01"),
                                                   ":b": B(b"\x80")})
        assert [it["sk"]["B"] for it in out["Items"]] == [b"\x00\xff", b"\x01", b"\x7f", b"\x80"]
    finally:
        drop_table(ddb, name)


def test_batch_get_more_than_100_keys_over_two_tables(ddb, tbl):
    other = make_table(ddb, unique_name("edge2"))
    try:
        assert_error(ddb.batch_get_item, V, "Too many items requested for the BatchGetItem call",
                     RequestItems={tbl: {"Keys": [{"pk": S(str(i))} for i in range(100)]},
                                   other: {"Keys": [{"pk": S("100")}]}})
        out = ddb.batch_get_item(RequestItems={
            tbl: {"Keys": [{"pk": S(str(i))} for i in range(50)]},
            other: {"Keys": [{"pk": S(str(i))} for i in range(50)]}})
        assert out["Responses"] == {tbl: [], other: []}
    finally:
        drop_table(ddb, other)


# ---- table bookkeeping under data-plane writes ---------------------------------------------------

def test_item_count_follows_every_kind_of_write(ddb):
    name = make_table(ddb, unique_name("count"))
    try:
        def count():
            described = ddb.describe_table(TableName=name)["Table"]["ItemCount"]
            assert described == ddb.scan(TableName=name, Select="COUNT")["Count"]
            return described

        update(ddb, name, {"pk": S("u1")}, "SET a = :v", {":v": N(1)})        # creates
        update(ddb, name, {"pk": S("u1")}, "SET a = :v", {":v": N(2)})        # overwrites
        batch_put(ddb, name, [{"pk": S(f"b{i}")} for i in range(10)])
        batch_put(ddb, name, [{"pk": S(f"b{i}"), "x": N(i)} for i in range(5)])  # overwrites
        ddb.batch_write_item(RequestItems={name: [
            {"DeleteRequest": {"Key": {"pk": S("b0")}}},
            {"DeleteRequest": {"Key": {"pk": S("never")}}}]})
        ddb.transact_write_items(TransactItems=[
            {"Put": {"TableName": name, "Item": {"pk": S("t1")}}},
            {"Put": {"TableName": name, "Item": {"pk": S("b1")}}},
            {"Delete": {"TableName": name, "Key": {"pk": S("b2")}}},
            {"Delete": {"TableName": name, "Key": {"pk": S("nobody")}}},
            {"Update": {"TableName": name, "Key": {"pk": S("t2")}, "UpdateExpression": "SET a = :v",
                        "ExpressionAttributeValues": {":v": N(1)}}}])
        try:
            ddb.transact_write_items(TransactItems=[
                {"Put": {"TableName": name, "Item": {"pk": S("t3")}}},
                {"ConditionCheck": {"TableName": name, "Key": {"pk": S("t1")},
                                    "ConditionExpression": "attribute_not_exists(pk)"}}])
        except ddb.exceptions.TransactionCanceledException:
            pass
        ddb.delete_item(TableName=name, Key={"pk": S("b3")})
        ddb.delete_item(TableName=name, Key={"pk": S("b3")})
        # u1, b1..b9 minus b2 and b3 (7), t1, t2
        assert count() == 1 + 7 + 2
    finally:
        drop_table(ddb, name)


def test_recreated_table_starts_empty(ddb):
    name = unique_name("recreate")
    make_table(ddb, name, range_key=("sk", "N"))
    batch_put(ddb, name, [{"pk": S("p"), "sk": N(i)} for i in range(30)])
    ddb.delete_table(TableName=name)
    make_table(ddb, name, range_key=("sk", "N"))
    try:
        out = ddb.query(TableName=name, KeyConditionExpression="pk = :p",
                        ExpressionAttributeValues={":p": S("p")})
        assert (out["Items"], out["Count"]) == ([], 0)
        assert ddb.scan(TableName=name)["Items"] == []
        assert ddb.batch_get_item(RequestItems={name: {"Keys": [{"pk": S("p"), "sk": N(1)}]}})[
            "Responses"][name] == []
        assert ddb.describe_table(TableName=name)["Table"]["ItemCount"] == 0
    finally:
        drop_table(ddb, name)


def test_update_item_key_and_table_checks(ddb, tbl):
    for key in ({"pk": S("a"), "extra": S("b")}, {"other": S("a")}, {"pk": N(1)}, {}):
        assert_error(ddb.update_item, V, "The provided key element does not match the schema",
                     TableName=tbl, Key=key, UpdateExpression="SET a = :v",
                     ExpressionAttributeValues={":v": N(1)})
    assert_error(ddb.update_item, "ResourceNotFoundException", "Requested resource not found",
                 TableName=unique_name("missing"), Key={"pk": S("a")},
                 UpdateExpression="SET a = :v", ExpressionAttributeValues={":v": N(1)})
