"""The legacy (pre-expression) parameters, as old clients send them through boto3's low-level
client: Expected + ConditionalOperator, AttributeUpdates, AttributesToGet, KeyConditions,
QueryFilter, ScanFilter. Conformance tier3/legacy-api; messages from tier3/error-messages and
dynalite.
"""
from __future__ import annotations

import pytest

from dataplane_util import N, S, all_items, batch_put, ccf, drop_table, get, make_table
from e2e_util import assert_error, normalize_sets, unique_name

V = "ValidationException"
BOTH = "Can not use both expression and non-expression parameters in the same request: "


@pytest.fixture(scope="module")
def tables(ddb):
    h = make_table(ddb, unique_name("lgh"))
    c = make_table(ddb, unique_name("lgc"), range_key=("sk", "S"))
    batch_put(ddb, c, [
        {"pk": S("lq"), "sk": S(sk), "val": N(v), "tag": S(tag)}
        for sk, v, tag in [("alpha", 1, "hello-world"), ("beta", 2, "hello-there"),
                           ("gamma", 3, "goodbye"), ("delta", 4, "hello-again"),
                           ("epsilon", 5, "world")]])
    batch_put(ddb, h, [{"pk": S(f"sf-{i}"), "val": N(i * 10), "nm": S(nm), "ss": {"SS": ss}}
                       for i, nm, ss in [(1, "alpha-one", ["a"]), (2, "beta-two", ["a", "b"]),
                                         (3, "alpha-three", ["b"]), (4, "gamma-four", ["c"])]])
    ddb.put_item(TableName=h, Item={"pk": S("sf-5"), "nm": S("no-val")})
    yield {"h": h, "c": c}
    drop_table(ddb, h)
    drop_table(ddb, c)


_ids = iter(range(1_000_000))


def fresh(ddb, table, **attrs) -> dict:
    key = {"pk": S(f"lg{next(_ids)}")}
    if attrs:
        ddb.put_item(TableName=table, Item={**key, **attrs})
    return key


def cmp(op, *values):
    return {"ComparisonOperator": op, "AttributeValueList": list(values)}


# ---- Expected ------------------------------------------------------------------------------------

def test_expected_exists_false_is_put_if_absent(ddb, tables):
    h = tables["h"]
    key = fresh(ddb, h)
    ddb.put_item(TableName=h, Item={**key, "v": S("one")}, Expected={"pk": {"Exists": False}})
    ccf(ddb.put_item, TableName=h, Item={**key, "v": S("two")}, Expected={"pk": {"Exists": False}})
    assert get(ddb, h, key)["v"] == S("one")


@pytest.mark.parametrize("expected,ok", [
    ({"st": {"Value": S("active")}}, True),
    ({"st": {"Value": S("active"), "Exists": True}}, True),
    ({"st": {"Value": S("other")}}, False),
    ({"st": cmp("EQ", S("active"))}, True),
    ({"st": cmp("NE", S("active"))}, False),
    ({"n": cmp("GT", N(4))}, True),
    ({"n": cmp("LE", N(4))}, False),
    ({"n": cmp("BETWEEN", N(1), N(5))}, True),
    ({"n": cmp("IN", N(1), N(2))}, False),
    ({"st": cmp("BEGINS_WITH", S("act"))}, True),
    ({"st": cmp("CONTAINS", S("tiv"))}, True),
    ({"ss": cmp("CONTAINS", S("b"))}, True),
    ({"ss": cmp("NOT_CONTAINS", S("b"))}, False),
    ({"nope": cmp("NULL")}, True),
    ({"st": cmp("NOT_NULL")}, True),
    ({"st": cmp("NULL")}, False),
])
def test_expected_comparison_operators(ddb, tables, expected, ok):
    h = tables["h"]
    item = {"st": S("active"), "n": N(5), "ss": {"SS": ["a", "b"]}}
    key = fresh(ddb, h, **item)
    new = {**key, **item, "changed": {"BOOL": True}}
    if ok:
        ddb.put_item(TableName=h, Item=new, Expected=expected)
        assert "changed" in get(ddb, h, key)
    else:
        ccf(ddb.put_item, TableName=h, Item=new, Expected=expected)
        assert "changed" not in get(ddb, h, key)


def test_expected_conditional_operator_and_or(ddb, tables):
    h = tables["h"]
    key = fresh(ddb, h, st=S("active"), role=S("user"))
    both = {"st": cmp("EQ", S("active")), "role": cmp("EQ", S("admin"))}
    ccf(ddb.put_item, TableName=h, Item={**key, "v": N(1)}, Expected=both,
        ConditionalOperator="AND")
    ccf(ddb.put_item, TableName=h, Item={**key, "v": N(1)}, Expected=both)  # AND is the default
    ddb.put_item(TableName=h, Item={**key, "st": S("x"), "role": S("user")}, Expected=both,
                 ConditionalOperator="OR")
    assert get(ddb, h, key)["st"] == S("x")


def test_expected_on_update_and_delete(ddb, tables):
    h = tables["h"]
    key = fresh(ddb, h, v=S("to-delete"))
    ccf(ddb.update_item, TableName=h, Key=key, AttributeUpdates={"v": {"Value": S("x")}},
        Expected={"v": {"Exists": False}})
    ccf(ddb.delete_item, TableName=h, Key=key, Expected={"v": {"Value": S("other")}})
    ddb.delete_item(TableName=h, Key=key, Expected={"v": {"Exists": True, "Value": S("to-delete")}})
    assert get(ddb, h, key) is None


def test_expected_errors(ddb, tables):
    h = tables["h"]
    assert_error(ddb.put_item, V, BOTH + "Non-expression parameters: {Expected} Expression "
                 "parameters: {ConditionExpression}", TableName=h, Item={"pk": S("e")},
                 Expected={"pk": {"Exists": False}}, ConditionExpression="attribute_not_exists(pk)")
    assert_error(ddb.put_item, V, "1 validation error detected: "
                 "One or more parameter values were invalid: Value cannot be used "
                 "when Exists is false for Attribute: a", TableName=h, Item={"pk": S("e")},
                 Expected={"a": {"Exists": False, "Value": S("x")}})


# ---- AttributeUpdates ----------------------------------------------------------------------------

def test_attribute_updates_actions(ddb, tables):
    h = tables["h"]
    key = fresh(ddb, h, name_=S("old"), count_=N(1), extra=S("x"), tags={"SS": ["a", "b", "c"]},
                more={"SS": ["a"]})
    out = ddb.update_item(TableName=h, Key=key, ReturnValues="UPDATED_NEW", AttributeUpdates={
        "name_": {"Action": "PUT", "Value": S("new")},
        "count_": {"Action": "ADD", "Value": N(9)},
        "extra": {"Action": "DELETE"},
        "tags": {"Action": "DELETE", "Value": {"SS": ["b"]}},
        "more": {"Action": "ADD", "Value": {"SS": ["z"]}},
        "created": {"Value": N(42)},  # Action defaults to PUT
    })
    assert normalize_sets(out["Attributes"]) == {
        "name_": S("new"), "count_": N(10), "tags": {"SS": ["a", "c"]},
        "more": {"SS": ["a", "z"]}, "created": N(42)}
    assert normalize_sets(get(ddb, h, key)) == {
        **key, "name_": S("new"), "count_": N(10), "tags": {"SS": ["a", "c"]},
        "more": {"SS": ["a", "z"]}, "created": N(42)}


def test_attribute_updates_create_item_and_return_values(ddb, tables):
    h = tables["h"]
    key = fresh(ddb, h)
    out = ddb.update_item(TableName=h, Key=key, ReturnValues="ALL_NEW",
                          AttributeUpdates={"n": {"Action": "ADD", "Value": N(5)},
                                            "gone": {"Action": "DELETE"}})
    assert out["Attributes"] == {**key, "n": N(5)}
    out = ddb.update_item(TableName=h, Key=key, ReturnValues="UPDATED_OLD",
                          AttributeUpdates={"n": {"Action": "PUT", "Value": N(6)}})
    assert out["Attributes"] == {"n": N(5)}


def test_attribute_updates_errors(ddb, tables):
    h = tables["h"]
    key = fresh(ddb, h)
    assert_error(ddb.update_item, V, "One or more parameter values were invalid: Cannot update "
                 "attribute pk. This attribute is part of the key", TableName=h, Key=key,
                 AttributeUpdates={"pk": {"Action": "PUT", "Value": S("other")}})
    assert_error(ddb.update_item, V, BOTH + "Non-expression parameters: {AttributeUpdates} "
                 "Expression parameters: {UpdateExpression}", TableName=h, Key=key,
                 UpdateExpression="SET attr1 = :v", ExpressionAttributeValues={":v": S("val")},
                 AttributeUpdates={"attr1": {"Value": S("val"), "Action": "PUT"}})


# ---- AttributesToGet -----------------------------------------------------------------------------

def test_attributes_to_get_everywhere(ddb, tables):
    h, c = tables["h"], tables["c"]
    got = ddb.get_item(TableName=h, Key={"pk": S("sf-2")}, AttributesToGet=["nm", "nope"])
    assert got["Item"] == {"nm": S("beta-two")}
    out = ddb.query(TableName=c, KeyConditions={"pk": cmp("EQ", S("lq"))},
                    AttributesToGet=["sk", "val"], Limit=2)
    assert out["Items"] == [{"sk": S("alpha"), "val": N(1)}, {"sk": S("beta"), "val": N(2)}]
    items = [it for it in all_items(ddb.scan, TableName=h, AttributesToGet=["pk", "val"])
             if it["pk"]["S"].startswith("sf-")]
    assert all(set(it) <= {"pk", "val"} for it in items) and len(items) == 5
    assert {"pk": S("sf-5")} in items and {"pk": S("sf-3"), "val": N(30)} in items
    out = ddb.batch_get_item(RequestItems={h: {"Keys": [{"pk": S("sf-1")}],
                                               "AttributesToGet": ["val"]}})
    assert out["Responses"][h] == [{"val": N(10)}]
    assert_error(ddb.get_item, V, BOTH + "Non-expression parameters: {AttributesToGet} Expression "
                 "parameters: {ProjectionExpression}", TableName=h, Key={"pk": S("sf-1")},
                 AttributesToGet=["val"], ProjectionExpression="val")


# ---- KeyConditions and QueryFilter ---------------------------------------------------------------

@pytest.mark.parametrize("cond,expected", [
    (None, ["alpha", "beta", "delta", "epsilon", "gamma"]),
    (cmp("EQ", S("beta")), ["beta"]),
    (cmp("BEGINS_WITH", S("al")), ["alpha"]),
    (cmp("BETWEEN", S("beta"), S("epsilon")), ["beta", "delta", "epsilon"]),
    (cmp("GT", S("delta")), ["epsilon", "gamma"]),
    (cmp("GE", S("delta")), ["delta", "epsilon", "gamma"]),
    (cmp("LT", S("beta")), ["alpha"]),
    (cmp("LE", S("beta")), ["alpha", "beta"]),
])
def test_key_conditions(ddb, tables, cond, expected):
    kc = {"pk": cmp("EQ", S("lq")), **({"sk": cond} if cond else {})}
    out = ddb.query(TableName=tables["c"], KeyConditions=kc)
    assert [it["sk"]["S"] for it in out["Items"]] == expected
    out = ddb.query(TableName=tables["c"], KeyConditions=kc, ScanIndexForward=False)
    assert [it["sk"]["S"] for it in out["Items"]] == expected[::-1]


@pytest.mark.parametrize("qf,op,expected", [
    ({"val": cmp("EQ", N(3))}, None, ["gamma"]),
    ({"tag": cmp("CONTAINS", S("hello"))}, None, ["alpha", "beta", "delta"]),
    ({"tag": cmp("BEGINS_WITH", S("hello")), "val": cmp("GT", N(1))}, "AND", ["beta", "delta"]),
    ({"tag": cmp("EQ", S("world")), "val": cmp("LT", N(2))}, "OR", ["alpha", "epsilon"]),
    ({"tag": cmp("NOT_CONTAINS", S("o"))}, None, []),
])
def test_query_filter(ddb, tables, qf, op, expected):
    kw = {"ConditionalOperator": op} if op else {}
    out = ddb.query(TableName=tables["c"], KeyConditions={"pk": cmp("EQ", S("lq"))}, QueryFilter=qf,
                    **kw)
    assert sorted(it["sk"]["S"] for it in out["Items"]) == expected
    assert (out["Count"], out["ScannedCount"]) == (len(expected), 5)


def test_key_conditions_errors(ddb, tables):
    c = tables["c"]
    assert_error(ddb.query, V, BOTH + "Non-expression parameters: {KeyConditions} Expression "
                 "parameters: {KeyConditionExpression}", TableName=c,
                 KeyConditions={"pk": cmp("EQ", S("lq"))}, KeyConditionExpression="pk = :pk",
                 ExpressionAttributeValues={":pk": S("lq")})
    assert_error(ddb.query, V, "Query condition missed key schema element: pk", TableName=c,
                 KeyConditions={"sk": cmp("EQ", S("alpha"))})


def test_key_conditions_go_with_filter_and_projection_expressions(ddb, tables):
    """Without a KeyConditionExpression, the service takes KeyConditions beside FilterExpression
    and ProjectionExpression (dynalite's query tests, written against it)."""
    out = ddb.query(TableName=tables["c"], KeyConditions={"pk": cmp("EQ", S("lq"))},
                    FilterExpression="#v > :two", ProjectionExpression="sk, #v",
                    ExpressionAttributeNames={"#v": "val"}, ExpressionAttributeValues={":two": N(2)})
    assert sorted((i["sk"]["S"], i["val"]["N"]) for i in out["Items"]) == [
        ("delta", "4"), ("epsilon", "5"), ("gamma", "3")]
    assert all(set(i) == {"sk", "val"} for i in out["Items"])


def test_mixing_names_every_parameter_in_the_service_order(ddb, tables):
    assert_error(ddb.query, V, BOTH + "Non-expression parameters: {AttributesToGet, QueryFilter, "
                 "ConditionalOperator, KeyConditions} Expression parameters: {ProjectionExpression, "
                 "FilterExpression, KeyConditionExpression}", TableName=tables["c"],
                 AttributesToGet=["a"], QueryFilter={"a": cmp("NULL")}, ConditionalOperator="OR",
                 KeyConditions={"pk": cmp("EQ", S("lq"))}, ProjectionExpression="a",
                 FilterExpression="attribute_exists(b)", KeyConditionExpression="pk = :p",
                 ExpressionAttributeValues={":p": S("lq")})
    assert_error(ddb.query, V, BOTH + "Non-expression parameters: {AttributesToGet, QueryFilter, "
                 "ConditionalOperator} Expression parameters: {ProjectionExpression, "
                 "FilterExpression}", TableName=tables["c"], AttributesToGet=["a"],
                 QueryFilter={"a": cmp("NULL")}, ConditionalOperator="OR",
                 KeyConditions={"pk": cmp("EQ", S("lq"))}, ProjectionExpression="a",
                 FilterExpression="attribute_exists(b)")
    assert_error(ddb.scan, V, BOTH + "Non-expression parameters: {AttributesToGet, ScanFilter, "
                 "ConditionalOperator} Expression parameters: {ProjectionExpression, "
                 "FilterExpression}", TableName=tables["h"], AttributesToGet=["a"],
                 ScanFilter={"a": cmp("NULL")}, ConditionalOperator="OR", ProjectionExpression="a",
                 FilterExpression="attribute_exists(b)")


# ---- ScanFilter ----------------------------------------------------------------------------------

@pytest.mark.parametrize("sf,op,expected", [
    ({"val": cmp("EQ", N(20))}, None, [2]),
    ({"val": cmp("GT", N(20))}, None, [3, 4]),
    ({"nm": cmp("BEGINS_WITH", S("alpha"))}, None, [1, 3]),
    ({"nm": cmp("CONTAINS", S("two"))}, None, [2]),
    ({"ss": cmp("CONTAINS", S("a"))}, None, [1, 2]),
    ({"ss": cmp("NOT_CONTAINS", S("a"))}, None, [3, 4, 5]),  # a missing attribute counts
    ({"val": cmp("IN", N(10), N(40), N(99))}, None, [1, 4]),
    ({"val": cmp("BETWEEN", N(15), N(30))}, None, [2, 3]),
    ({"val": cmp("NULL")}, None, [5]),
    ({"val": cmp("NOT_NULL")}, None, [1, 2, 3, 4]),
    ({"nm": cmp("NE", S("beta-two"))}, None, [1, 3, 4, 5]),
    ({"nm": cmp("BEGINS_WITH", S("alpha")), "val": cmp("GT", N(20))}, "AND", [3]),
    ({"nm": cmp("BEGINS_WITH", S("alpha")), "val": cmp("GT", N(20))}, "OR", [1, 3, 4]),
])
def test_scan_filter(ddb, tables, sf, op, expected):
    kw = {"ConditionalOperator": op} if op else {}
    items = all_items(ddb.scan, TableName=tables["h"], ScanFilter=sf, Limit=2, **kw)
    assert sorted(int(it["pk"]["S"][3:]) for it in items if it["pk"]["S"].startswith("sf-")) == \
        expected


def test_scan_filter_with_filter_expression_is_rejected(ddb, tables):
    assert_error(ddb.scan, V, BOTH + "Non-expression parameters: {ScanFilter} Expression "
                 "parameters: {FilterExpression}", TableName=tables["h"],
                 ScanFilter={"val": cmp("EQ", N(10))}, FilterExpression="val = :v",
                 ExpressionAttributeValues={":v": N(10)})


# ---- Legacy condition checks, as the service words them (dynalite's tests, written against it) ----

INV = "One or more parameter values were invalid: "
ENV = "1 validation error detected: "


def test_expected_shape_errors(ddb, tables):
    h = tables["h"]
    for spec, message in [
        # The envelope on the refusals a conformance suite captured in it (2026); the others bare.
        ({}, ENV + INV + "Value must be provided when Exists is null for Attribute: a"),
        ({"Exists": True}, ENV + INV + "Value must be provided when Exists is true for Attribute: a"),
        ({"ComparisonOperator": "EQ", "Exists": True, "Value": S("x")},
         INV + "Exists and ComparisonOperator cannot be used together for Attribute: a"),
        ({"ComparisonOperator": "EQ"},
         ENV + INV + "Value or AttributeValueList must be used with ComparisonOperator: EQ for "
         "Attribute: a"),
        ({"AttributeValueList": [S("x")]},
         INV + "AttributeValueList can only be used with a ComparisonOperator for Attribute: a"),
        ({"ComparisonOperator": "EQ", "Value": S("x"), "AttributeValueList": [S("x")]},
         ENV + INV + "Value and AttributeValueList cannot be used together for Attribute: a"),
        ({"ComparisonOperator": "IN", "AttributeValueList": [S("x"), N(1)]},
         INV + "AttributeValues inside AttributeValueList must be of same type"),
    ]:
        assert_error(ddb.put_item, V, message, TableName=h, Item={"pk": S("e")},
                     Expected={"a": spec})
    assert get(ddb, h, {"pk": S("e")}) is None


def test_expected_with_comparison_operator_and_value(ddb, tables):
    h = tables["h"]
    key = fresh(ddb, h, v=N(5))
    ddb.put_item(TableName=h, Item={**key, "v": N(6)},
                 Expected={"v": {"ComparisonOperator": "EQ", "Value": N(5)}})
    ccf(ddb.put_item, TableName=h, Item={**key, "v": N(7)},
        Expected={"v": {"ComparisonOperator": "GT", "Value": N(100)}})


@pytest.mark.parametrize("op,values,bad", [
    ("LT", [{"BOOL": True}], "BOOL"), ("GE", [{"NULL": True}], "NULL"),
    ("GT", [{"SS": ["a"]}], "SS"), ("IN", [{"M": {}}], "M"), ("LE", [{"L": []}], "L"),
    ("CONTAINS", [{"SS": ["a"]}], "SS"), ("NOT_CONTAINS", [{"L": []}], "L"),
    ("BETWEEN", [{"BOOL": True}, {"BOOL": True}], "BOOL"),
    ("BEGINS_WITH", [N(1)], "N"), ("BEGINS_WITH", [{"NS": ["1"]}], "NS"),
])
def test_filter_operator_value_types(ddb, tables, op, values, bad):
    message = INV + f"ComparisonOperator {op} is not valid for {bad} AttributeValue type"
    cond = {"a": {"ComparisonOperator": op, "AttributeValueList": values}}
    assert_error(ddb.scan, V, message, TableName=tables["h"], ScanFilter=cond)
    assert_error(ddb.query, V, message, TableName=tables["c"], QueryFilter=cond,
                 KeyConditions={"pk": {"ComparisonOperator": "EQ",
                                       "AttributeValueList": [S("lq")]}})


def test_filter_value_list_checks(ddb, tables):
    assert_error(ddb.scan, V, INV + "AttributeValues inside AttributeValueList must be of same type",
                 TableName=tables["h"], ScanFilter={"a": {"ComparisonOperator": "IN",
                                                          "AttributeValueList": [S("b"), N(1)]}})
    assert_error(ddb.scan, V, "The BETWEEN condition was provided a range where the lower bound is "
                 "greater than the upper bound", TableName=tables["h"],
                 ScanFilter={"val": {"ComparisonOperator": "BETWEEN",
                                     "AttributeValueList": [N(10), N(2)]}})
    # CONTAINS of a scalar on a set attribute still works.
    got = all_items(ddb.scan, TableName=tables["h"],
                    ScanFilter={"ss": {"ComparisonOperator": "CONTAINS",
                                       "AttributeValueList": [S("b")]}})
    assert sorted(i["pk"]["S"] for i in got if i["pk"]["S"].startswith("sf-")) == ["sf-2", "sf-3"]


def test_key_conditions_checks(ddb, tables):
    c = tables["c"]
    eq = {"ComparisonOperator": "EQ", "AttributeValueList": [S("lq")]}
    assert_error(ddb.query, V, "Conditions can be of length 1 or 2 only", TableName=c,
                 KeyConditions={})
    for op in ["NULL", "NOT_NULL", "NE", "CONTAINS", "NOT_CONTAINS", "IN"]:
        spec = {"ComparisonOperator": op}
        if op not in ("NULL", "NOT_NULL"):
            spec["AttributeValueList"] = [S("lq")]
        assert_error(ddb.query, V, "Attempted conditional constraint is not an indexable operation",
                     TableName=c, KeyConditions={"pk": spec})
        if op != "NE":
            assert_error(ddb.query, V,
                         "Attempted conditional constraint is not an indexable operation",
                         TableName=c, KeyConditions={"pk": eq, "sk": spec})
    assert_error(ddb.query, V, "The BETWEEN condition was provided a range where the lower bound "
                 "is greater than the upper bound", TableName=c,
                 KeyConditions={"pk": eq, "sk": {"ComparisonOperator": "BETWEEN",
                                                 "AttributeValueList": [S("b"), S("a")]}})
    got = all_items(ddb.query, TableName=c, KeyConditions={
        "pk": eq, "sk": {"ComparisonOperator": "BETWEEN", "AttributeValueList": [S("b"), S("e")]}})
    assert sorted(i["sk"]["S"] for i in got) == ["beta", "delta"]


WITHOUT = "ConditionalOperator cannot be used without Filter or Expected"
TWO_OR_MORE = ("ConditionalOperator can only be used when Filter or Expected has two or more "
               "elements")


@pytest.mark.parametrize("call,kwargs,message", [
    ("scan", {}, WITHOUT),
    ("scan", {"ScanFilter": {}}, WITHOUT),
    ("scan", {"ScanFilter": {"val": cmp("EQ", N(1))}}, TWO_OR_MORE),
    ("scan", {"AttributesToGet": ["val"]}, WITHOUT),
    ("query", {"KeyConditions": {"pk": cmp("EQ", S("lq"))}}, WITHOUT),
    ("query", {}, WITHOUT),  # before the missing key condition
    ("query", {"KeyConditions": {"pk": cmp("EQ", S("lq"))}, "QueryFilter": {"val": cmp("NULL")}},
     TWO_OR_MORE),
    ("put", {"Item": {"pk": S("co"), "sk": S("1")}}, WITHOUT),
    ("put", {"Item": {"pk": S("co"), "sk": S("1")}, "Expected": {}}, WITHOUT),
    ("put", {"Item": {"pk": S("co"), "sk": S("1")}, "Expected": {"val": cmp("NULL")}},
     TWO_OR_MORE),
    ("delete", {"Key": {"pk": S("co"), "sk": S("1")}}, WITHOUT),
    ("update", {"Key": {"pk": S("co"), "sk": S("1")},
                "AttributeUpdates": {"a": {"Value": S("v"), "Action": "PUT"}}}, WITHOUT),
    ("update", {"Key": {"pk": S("co"), "sk": S("1")}}, WITHOUT),
])
def test_conditional_operator_needs_two_or_more_conditions(ddb, tables, call, kwargs, message):
    # ExtendDB's tests/test_conditional_operator.py (run against the service) and ScyllaDB's
    # Alternator test_expected.py: ConditionalOperator only with an Expected, QueryFilter or
    # ScanFilter of two or more conditions; nothing is written.
    fn = {"scan": ddb.scan, "query": ddb.query, "put": ddb.put_item, "delete": ddb.delete_item,
          "update": ddb.update_item}[call]
    for op in ("AND", "OR"):
        assert_error(fn, V, message, TableName=tables["c"], ConditionalOperator=op, **kwargs)
    assert "Item" not in ddb.get_item(TableName=tables["c"], Key={"pk": S("co"), "sk": S("1")})


@pytest.mark.parametrize("op,values", [
    ("CONTAINS", [{"L": [N(1)]}]),
    ("NOT_CONTAINS", [{"L": [N(1)]}]),
    ("IN", [{"L": [N(1)]}, {"L": [N(2)]}]),
])
def test_expected_refuses_operand_types_the_operator_does_not_take(ddb, tables, op, values):
    # As in filters (ScyllaDB's Alternator test_expected.py, run against the service).
    kind = "L"
    assert_error(ddb.put_item, V, f"One or more parameter values were invalid: ComparisonOperator "
                 f"{op} is not valid for {kind} AttributeValue type", TableName=tables["c"],
                 Item={"pk": S("et"), "sk": S("1")},
                 Expected={"a": {"ComparisonOperator": op, "AttributeValueList": values}})


@pytest.mark.parametrize("stored,action,value", [
    ({"NS": ["1", "2"]}, "ADD", {"SS": ["a"]}),
    ({"SS": ["dog"]}, "ADD", N(2)),
    ({"SS": ["dog"]}, "ADD", {"L": [S("cat")]}),
    ({"L": [S("dog")]}, "ADD", {"SS": ["cat"]}),
    (N(2), "ADD", {"SS": ["dog"]}),
    ({"NS": ["1"]}, "DELETE", {"SS": ["hi"]}),
    (S("x"), "DELETE", {"NS": ["1"]}),
])
def test_attribute_updates_type_mismatch_wording(ddb, tables, stored, action, value):
    # AttributeUpdates words a type that does not fit as the service does ("Type mismatch for
    # attribute to update": the UpdateItem reference's list; dynalite's and ScyllaDB's
    # Alternator tests, written against the service); UpdateExpression keeps its own text.
    key = {"pk": S("tm"), "sk": S(action)}
    ddb.put_item(TableName=tables["c"], Item={**key, "a": stored})
    assert_error(ddb.update_item, V, "Type mismatch for attribute to update",
                 TableName=tables["c"], Key=key,
                 AttributeUpdates={"a": {"Action": action, "Value": value}})
    assert ddb.get_item(TableName=tables["c"], Key=key)["Item"]["a"] == stored


def test_expected_not_contains_of_a_missing_attribute_is_false(ddb, tables):
    # ScyllaDB's Alternator test_update_expected_1_not_contains (run against the service): in
    # Expected, NOT_CONTAINS of an attribute the item lacks fails, as CONTAINS does.
    h = tables["h"]
    key = fresh(ddb, h, st=S("active"))
    ccf(ddb.put_item, TableName=h, Item={**key, "v": N(1)},
        Expected={"missing": cmp("NOT_CONTAINS", S("x"))})
    ccf(ddb.put_item, TableName=h, Item={**key, "v": N(1)},
        Expected={"missing": cmp("NOT_CONTAINS", S("x")), "st": cmp("EQ", S("other"))},
        ConditionalOperator="OR")
    ddb.put_item(TableName=h, Item={**key, "st": S("active"), "v": N(2)},
                 Expected={"missing": cmp("NOT_CONTAINS", S("x")), "st": cmp("EQ", S("active"))},
                 ConditionalOperator="OR")
    assert get(ddb, h, key)["v"] == N(2)
    ddb.put_item(TableName=h, Item={**key, "st": S("abc"), "v": N(3)},
                 Expected={"st": cmp("NOT_CONTAINS", S("x"))})
    assert get(ddb, h, key)["v"] == N(3)
