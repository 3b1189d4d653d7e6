"""Query: every sort-key operator on S, N and B sort keys, both directions, Select, filters,
Limit and ExclusiveStartKey/LastEvaluatedKey, and the common validation errors.

Exact messages: conformance tier3/error-messages/query (authoritative), then dynalite's query tests.
"""
from __future__ import annotations

import pytest

from dataplane_util import B, N, S, all_items, batch_put, drop_table, make_table, pages
from e2e_util import assert_error, ddb_error, unique_name

V = "ValidationException"
PK = "q"
S_KEYS = ["a", "ab", "abc", "b", "ba", "c"]
N_KEYS = ["-10", "-1.5", "0", "1", "2", "10", "100"]
B_KEYS = [b"\x01", b"\x01\x02", b"\x02", b"\x7f", b"\xff", b"\xff\x00"]


@pytest.fixture(scope="module")
def tables(ddb):
    names = {t: make_table(ddb, unique_name(f"q{t}"), range_key=("sk", t)) for t in "SNB"}
    names["H"] = make_table(ddb, unique_name("qH"))
    sk_values = {"S": [S(v) for v in S_KEYS], "N": [N(v) for v in N_KEYS],
                 "B": [B(v) for v in B_KEYS]}
    for t, values in sk_values.items():
        items = [{"pk": S(PK), "sk": v, "i": N(i), "odd": {"BOOL": i % 2 == 1},
                  "data": S(f"d{i}"), "extra": S("x")} for i, v in enumerate(values)]
        items.append({"pk": S("other"), "sk": values[0], "i": N(99)})
        batch_put(ddb, names[t], items)
    ddb.put_item(TableName=names["H"], Item={"pk": S(PK), "v": N(1)})
    yield names
    for n in names.values():
        drop_table(ddb, n)


def sks(items, t):
    return [it["sk"][t] for it in items]


def q(ddb, table, cond="pk = :pk", values=None, **kw):
    return ddb.query(TableName=table, KeyConditionExpression=cond,
                     ExpressionAttributeValues={":pk": S(PK), **(values or {})}, **kw)


SORT_CASES = [
    ("S", "sk = :v", {":v": S("ab")}, ["ab"]),
    ("S", "sk < :v", {":v": S("b")}, ["a", "ab", "abc"]),
    ("S", "sk <= :v", {":v": S("b")}, ["a", "ab", "abc", "b"]),
    ("S", "sk > :v", {":v": S("b")}, ["ba", "c"]),
    ("S", "sk >= :v", {":v": S("b")}, ["b", "ba", "c"]),
    ("S", "sk BETWEEN :lo AND :hi", {":lo": S("ab"), ":hi": S("b")}, ["ab", "abc", "b"]),
    ("S", "begins_with(sk, :v)", {":v": S("ab")}, ["ab", "abc"]),
    ("S", "sk > :v", {":v": S("zzz")}, []),
    ("N", "sk = :v", {":v": N("10")}, ["10"]),
    ("N", "sk < :v", {":v": N("0")}, ["-10", "-1.5"]),
    ("N", "sk <= :v", {":v": N("1")}, ["-10", "-1.5", "0", "1"]),
    ("N", "sk > :v", {":v": N("2")}, ["10", "100"]),
    ("N", "sk >= :v", {":v": N("2.0")}, ["2", "10", "100"]),
    ("N", "sk BETWEEN :lo AND :hi", {":lo": N("-1.5"), ":hi": N("2")}, ["-1.5", "0", "1", "2"]),
    ("B", "sk = :v", {":v": B(b"\x02")}, [b"\x02"]),
    ("B", "sk < :v", {":v": B(b"\x02")}, [b"\x01", b"\x01\x02"]),
    ("B", "sk <= :v", {":v": B(b"\x02")}, [b"\x01", b"\x01\x02", b"\x02"]),
    ("B", "sk > :v", {":v": B(b"\x7f")}, [b"\xff", b"\xff\x00"]),
    ("B", "sk >= :v", {":v": B(b"\x7f")}, [b"\x7f", b"\xff", b"\xff\x00"]),
    ("B", "sk BETWEEN :lo AND :hi", {":lo": B(b"\x01\x02"), ":hi": B(b"\xff")},
     [b"\x01\x02", b"\x02", b"\x7f", b"\xff"]),
    ("B", "begins_with(sk, :v)", {":v": B(b"\xff")}, [b"\xff", b"\xff\x00"]),
    ("B", "begins_with(sk, :v)", {":v": B(b"\x01")}, [b"\x01", b"\x01\x02"]),
]


@pytest.mark.parametrize("forward", [True, False], ids=["asc", "desc"])
@pytest.mark.parametrize("t,cond,values,expected", SORT_CASES,
                         ids=[f"{c[0]}:{c[1]}" for c in SORT_CASES])
def test_sort_key_operators(ddb, tables, t, cond, values, expected, forward):
    out = q(ddb, tables[t], f"pk = :pk AND {cond}", values, ScanIndexForward=forward)
    want = expected if forward else expected[::-1]
    assert sks(out["Items"], t) == want
    assert out["Count"] == out["ScannedCount"] == len(want)
    assert "LastEvaluatedKey" not in out


@pytest.mark.parametrize("t,keys", [("S", S_KEYS), ("N", N_KEYS), ("B", B_KEYS)])
def test_whole_partition_in_sort_key_order_both_ways(ddb, tables, t, keys):
    assert sks(q(ddb, tables[t])["Items"], t) == keys
    assert sks(q(ddb, tables[t], ScanIndexForward=False)["Items"], t) == keys[::-1]


def test_names_placeholders_and_parentheses_in_key_condition(ddb, tables):
    out = q(ddb, tables["S"], "(#p = :pk) AND (#s BETWEEN :lo AND :hi)",
            {":lo": S("b"), ":hi": S("c")}, ExpressionAttributeNames={"#p": "pk", "#s": "sk"})
    assert sks(out["Items"], "S") == ["b", "ba", "c"]


def test_query_of_missing_partition_and_hash_only_table(ddb, tables):
    out = ddb.query(TableName=tables["S"], KeyConditionExpression="pk = :p",
                    ExpressionAttributeValues={":p": S("nobody")})
    assert (out["Items"], out["Count"], out["ScannedCount"]) == ([], 0, 0)
    assert q(ddb, tables["H"])["Items"] == [{"pk": S(PK), "v": N(1)}]


# ---- Select, projection, filters -----------------------------------------------------------------

def test_select_count(ddb, tables):
    out = q(ddb, tables["S"], Select="COUNT")
    assert "Items" not in out
    assert (out["Count"], out["ScannedCount"]) == (6, 6)
    out = q(ddb, tables["S"], Select="COUNT", FilterExpression="odd = :t",
            values={":t": {"BOOL": True}})
    assert "Items" not in out
    assert (out["Count"], out["ScannedCount"]) == (3, 6)


def test_select_specific_attributes_and_projection(ddb, tables):
    out = q(ddb, tables["S"], Select="SPECIFIC_ATTRIBUTES", ProjectionExpression="sk, #d",
            ExpressionAttributeNames={"#d": "data"})
    assert out["Items"][:2] == [{"sk": S("a"), "data": S("d0")}, {"sk": S("ab"), "data": S("d1")}]
    out = q(ddb, tables["S"], ProjectionExpression="i")
    assert out["Items"][0] == {"i": N(0)}
    out = q(ddb, tables["S"], Select="ALL_ATTRIBUTES")
    assert out["Items"][0] == {"pk": S(PK), "sk": S("a"), "i": N(0), "odd": {"BOOL": False},
                               "data": S("d0"), "extra": S("x")}


def test_select_specific_attributes_without_projection_is_rejected(ddb, tables):
    message = ("Must specify the AttributesToGet or ProjectionExpression when choosing to get "
               "SPECIFIC_ATTRIBUTES")
    e = ddb_error(q, ddb=ddb, table=tables["S"], Select="SPECIFIC_ATTRIBUTES")
    assert (e.code, e.message) == (V, "1 validation error detected: " + message)
    e = ddb_error(ddb.scan, TableName=tables["S"], Select="SPECIFIC_ATTRIBUTES")
    assert (e.code, e.message) == (V, message)


def test_a_select_that_contradicts_the_projection_names_the_parameter_given(ddb, tables):
    # "Cannot specify the <AttributesToGet | ProjectionExpression> when choosing to get ...":
    # the parameter the request used (ScyllaDB's Alternator test_query_select, run against the
    # service; docs/compatibility.md).
    cond = {"pk": {"AttributeValueList": [S(PK)], "ComparisonOperator": "EQ"}}
    for select, what in (("ALL_ATTRIBUTES", "ALL_ATTRIBUTES"), ("COUNT", "only the Count")):
        for given, extra in (("ProjectionExpression", {"ProjectionExpression": "i"}),
                             ("AttributesToGet", {"AttributesToGet": ["i"]})):
            # Query wraps it in the envelope, Scan does not (ExtendDB's
            # tests/test_wording_parity_validation.py, verified against the service).
            e = ddb_error(ddb.query, TableName=tables["S"], KeyConditions=cond, Select=select,
                          **extra)
            assert (e.code, e.message) == (V, f"1 validation error detected: Cannot specify the "
                                              f"{given} when choosing to get {what}")
            e = ddb_error(ddb.scan, TableName=tables["S"], Select=select, **extra)
            assert (e.code, e.message) == (V, f"Cannot specify the {given} when choosing to get "
                                              f"{what}")


def test_filter_count_versus_scanned_count(ddb, tables):
    out = q(ddb, tables["N"], FilterExpression="odd = :t AND i > :one",
            values={":t": {"BOOL": True}, ":one": N(1)})
    assert sks(out["Items"], "N") == ["1", "10"]  # i = 3 and i = 5
    assert (out["Count"], out["ScannedCount"]) == (2, 7)


def test_limit_counts_evaluated_items_before_the_filter(ddb, tables):
    out = q(ddb, tables["S"], Limit=2, FilterExpression="odd = :t", values={":t": {"BOOL": True}})
    assert (out["Count"], out["ScannedCount"]) == (1, 2)
    assert sks(out["Items"], "S") == ["ab"]
    assert out["LastEvaluatedKey"] == {"pk": S(PK), "sk": S("ab")}
    # The last evaluated item was filtered out: LastEvaluatedKey is still its key.
    out = q(ddb, tables["S"], Limit=3, FilterExpression="odd = :t", values={":t": {"BOOL": True}})
    assert sks(out["Items"], "S") == ["ab"]
    assert out["LastEvaluatedKey"] == {"pk": S(PK), "sk": S("abc")}
    out = q(ddb, tables["S"], Limit=3, FilterExpression="odd = :t", values={":t": {"BOOL": True}},
            ExclusiveStartKey=out["LastEvaluatedKey"])
    assert sks(out["Items"], "S") == ["b", "c"]


# ---- paging --------------------------------------------------------------------------------------

@pytest.mark.parametrize("forward", [True, False], ids=["asc", "desc"])
@pytest.mark.parametrize("t,keys", [("S", S_KEYS), ("N", N_KEYS), ("B", B_KEYS)])
def test_paging_with_limit_sees_every_item_once(ddb, tables, t, keys, forward):
    ps = pages(q, ddb=ddb, table=tables[t], Limit=2, ScanIndexForward=forward)
    seen = [it["sk"][t] for p in ps for it in p["Items"]]
    assert seen == (keys if forward else keys[::-1])
    for p in ps:
        assert len(p["Items"]) <= 2
        if "LastEvaluatedKey" in p:
            last = p["Items"][-1]
            assert p["LastEvaluatedKey"] == {"pk": last["pk"], "sk": last["sk"]}
    assert "LastEvaluatedKey" in ps[0]


def test_exclusive_start_key_need_not_exist(ddb, tables):
    out = q(ddb, tables["S"], ExclusiveStartKey={"pk": S(PK), "sk": S("abb")})
    assert sks(out["Items"], "S") == ["abc", "b", "ba", "c"]
    out = q(ddb, tables["S"], ExclusiveStartKey={"pk": S(PK), "sk": S("abb")},
            ScanIndexForward=False)
    assert sks(out["Items"], "S") == ["ab", "a"]
    out = q(ddb, tables["S"], "pk = :pk AND sk < :v", {":v": S("b")},
            ExclusiveStartKey={"pk": S(PK), "sk": S("a")})
    assert sks(out["Items"], "S") == ["ab", "abc"]


def test_paging_with_a_filter_and_count(ddb, tables):
    items = all_items(q, ddb=ddb, table=tables["N"], Limit=3, FilterExpression="odd = :f",
                      values={":f": {"BOOL": False}})
    assert sks(items, "N") == ["-10", "0", "2", "100"]
    ps = pages(q, ddb=ddb, table=tables["N"], Limit=3, Select="COUNT")
    assert sum(p["Count"] for p in ps) == 7


# ---- errors --------------------------------------------------------------------------------------

KEY_CONDITION_ERRORS = [
    ("sk = :v", {":v": S("a")}, "Query condition missed key schema element: pk"),
    ("extra = :v", {":v": S("a")}, "Query condition missed key schema element: pk"),
    ("", {":v": S("a")}, "Invalid KeyConditionExpression: The expression can not be empty;"),
    ("pk = :v OR sk = :v", {":v": S("a")}, "Invalid operator used in KeyConditionExpression: OR"),
    ("pk = :v AND sk > :v AND sk < :v", {":v": S("a")},
     "Invalid KeyConditionExpression: KeyConditionExpressions must only contain one condition "
     "per key"),
    ("pk = :v AND sk > :v AND extra = :v", {":v": S("a")},
     "The number of query conditions (3) exceeds the number of key attributes defined in the "
     "schema (2)"),
    ("pk = :v AND sk BETWEEN :hi AND :lo", {":v": S("q"), ":lo": S("a"), ":hi": S("b")},
     "Invalid KeyConditionExpression: The BETWEEN operator requires upper bound to be greater "
     "than or equal to lower bound; lower bound operand: AttributeValue: {S:b}, upper bound "
     "operand: AttributeValue: {S:a}"),
    ("pk = :v", {":v": N(1)}, "One or more parameter values were invalid: Condition parameter "
     "type does not match schema type"),
]


@pytest.mark.parametrize("cond,values,msg", KEY_CONDITION_ERRORS,
                         ids=[f"{i}" for i in range(len(KEY_CONDITION_ERRORS))])
def test_key_condition_errors(ddb, tables, cond, values, msg):
    assert_error(ddb.query, V, msg, TableName=tables["S"], KeyConditionExpression=cond,
                 ExpressionAttributeValues=values)


def test_begins_with_on_a_number_sort_key_is_rejected(ddb, tables):
    assert_error(ddb.query, V, "Invalid KeyConditionExpression: Incorrect operand type for "
                 "operator or function; operator or function: begins_with, operand type: N",
                 TableName=tables["N"], KeyConditionExpression="pk = :p AND begins_with(sk, :v)",
                 ExpressionAttributeValues={":p": S(PK), ":v": N(1)})


def test_query_key_condition_not_supported_on_hash_key(ddb, tables):
    assert_error(ddb.query, V, "Query key condition not supported", TableName=tables["H"],
                 KeyConditionExpression="pk > :v", ExpressionAttributeValues={":v": S("a")})


PARAMETER_ERRORS = [
    (dict(ExpressionAttributeNames={"#unused": "a"}),
     "Value provided in ExpressionAttributeNames unused in expressions: keys: {#unused}"),
    (dict(Select="INVALID_VALUE"), "1 validation error detected: Value 'INVALID_VALUE' at 'select' "
     "failed to satisfy constraint: Member must satisfy enum value set: "
     "[SPECIFIC_ATTRIBUTES, COUNT, ALL_ATTRIBUTES, ALL_PROJECTED_ATTRIBUTES]"),
    (dict(Limit=0), "1 validation error detected: Value at 'Limit' failed to satisfy constraint: "
     "Member must have value greater than or equal to 1"),
    (dict(FilterExpression="#missing = :v"), "Invalid FilterExpression: An expression attribute "
     "name used in the document path is not defined; attribute name: #missing"),
]


@pytest.mark.parametrize("kw,msg", PARAMETER_ERRORS, ids=["unused-name", "select", "limit",
                                                          "undefined-name"])
def test_query_parameter_errors(ddb, tables, kw, msg):
    assert_error(ddb.query, V, msg, TableName=tables["S"], KeyConditionExpression="pk = :v",
                 ExpressionAttributeValues={":v": S("x")}, **kw)


def test_query_of_missing_table(ddb):
    assert_error(ddb.query, "ResourceNotFoundException", "Requested resource not found",
                 TableName=unique_name("nope"), KeyConditionExpression="pk = :v",
                 ExpressionAttributeValues={":v": S("x")})


def test_exclusive_start_key_not_matching_the_schema(ddb, tables):
    assert_error(q, V, "The provided starting key is invalid: The provided key element does not "
                 "match the schema", ddb=ddb, table=tables["S"],
                 ExclusiveStartKey={"pk": S(PK)})


def test_filter_on_key_attribute_is_rejected(ddb, tables):
    e = ddb_error(q, ddb=ddb, table=tables["S"], FilterExpression="sk = :v",
                  values={":v": S("a")})
    assert (e.code, e.message) == (V, "Filter Expression can only contain non-primary key "
                                   "attributes: Primary key attribute: sk")
