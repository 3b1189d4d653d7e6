"""UpdateItem: SET / REMOVE / ADD / DELETE, functions, nested paths, ReturnValues, key checks.

Behaviour and messages follow real DynamoDB (conformance suite tier1/updateItem and
tier3/error-messages/updateItem, dynalite's updateItem tests).
"""
from __future__ import annotations

import pytest

from dataplane_util import N, S, drop_table, get, make_table
from e2e_util import assert_error, normalize_sets, unique_name

V = "ValidationException"


@pytest.fixture(scope="module")
def tbl(ddb):
    name = make_table(ddb, unique_name("upd"))
    yield name
    drop_table(ddb, name)


@pytest.fixture(scope="module")
def ctbl(ddb):
    name = make_table(ddb, unique_name("updc"), range_key=("sk", "N"))
    yield name
    drop_table(ddb, name)


_keys = iter(range(1_000_000))


def put(ddb, tbl, **attrs) -> dict:
    """Put a fresh item with the given attributes; return its key."""
    key = {"pk": S(f"u{next(_keys)}")}
    ddb.put_item(TableName=tbl, Item={**key, **attrs})
    return key


def upd(ddb, tbl, key, expr, values=None, names=None, **kw) -> dict:
    args = dict(TableName=tbl, Key=key, UpdateExpression=expr, **kw)
    if values:
        args["ExpressionAttributeValues"] = values
    if names:
        args["ExpressionAttributeNames"] = names
    return ddb.update_item(**args)


# ---- creating items ------------------------------------------------------------------------------

def test_update_creates_missing_item_and_all_new_returns_it(ddb, tbl):
    key = {"pk": S("created-by-update")}
    out = upd(ddb, tbl, key, "SET #d = :v", {":v": S("x")}, {"#d": "data"}, ReturnValues="ALL_NEW")
    assert out["Attributes"] == {**key, "data": S("x")}
    assert get(ddb, tbl, key) == {**key, "data": S("x")}


def test_update_of_missing_item_with_all_old_returns_no_attributes(ddb, tbl):
    out = upd(ddb, tbl, {"pk": S("fresh-all-old")}, "SET a = :v", {":v": N(1)},
              ReturnValues="ALL_OLD")
    assert "Attributes" not in out


def test_update_of_missing_item_ignores_remove_and_delete_and_applies_add_and_set(ddb, tbl):
    key = {"pk": S("all-clauses-new")}
    out = upd(ddb, tbl, key, "REMOVE b DELETE c :c ADD d :d, e :e SET f = :f",
              {":c": {"SS": ["a", "b"]}, ":d": N(5), ":e": {"SS": ["a", "b"]},
               ":f": {"L": [S("a"), N(1)]}}, ReturnValues="UPDATED_NEW")
    expected = {"d": N(5), "e": {"SS": ["a", "b"]}, "f": {"L": [S("a"), N(1)]}}
    assert normalize_sets(out["Attributes"]) == expected
    assert normalize_sets(get(ddb, tbl, key)) == {**key, **expected}


# ---- SET -----------------------------------------------------------------------------------------

def test_set_replaces_and_adds_attributes_and_keeps_others(ddb, tbl):
    key = put(ddb, tbl, a=S("old"), keep=S("k"))
    upd(ddb, tbl, key, "SET a = :a, b = :b", {":a": S("new"), ":b": {"M": {"x": N(1)}}})
    assert get(ddb, tbl, key) == {**key, "a": S("new"), "keep": S("k"), "b": {"M": {"x": N(1)}}}


def test_set_arithmetic_plus_and_minus(ddb, tbl):
    key = put(ddb, tbl, c=N(10), d=N("1.5"))
    upd(ddb, tbl, key, "SET c = c + :i, d = d - :j, e = :i + :j", {":i": N(5), ":j": N("0.25")})
    item = get(ddb, tbl, key)
    assert (item["c"], item["d"], item["e"]) == (N(15), N("1.25"), N("5.25"))


def test_set_reads_the_item_as_it_was_before_the_update(ddb, tbl):
    key = put(ddb, tbl, a=N(1), b=N(2))
    upd(ddb, tbl, key, "SET a = b, b = a")
    item = get(ddb, tbl, key)
    assert (item["a"], item["b"]) == (N(2), N(1))


def test_set_copy_from_missing_attribute_is_an_error(ddb, tbl):
    key = put(ddb, tbl, a=N(1))
    assert_error(upd, V, "The provided expression refers to an attribute that does not exist in "
                 "the item", ddb=ddb, tbl=tbl, key=key, expr="SET a = absentattr + :one",
                 values={":one": N(1)})


def test_set_arithmetic_on_a_string_is_an_error(ddb, tbl):
    key = put(ddb, tbl, s=S("text"))
    assert_error(upd, V, "An operand in the update expression has an incorrect data type",
                 ddb=ddb, tbl=tbl, key=key, expr="SET s = s + :one", values={":one": N(1)})
    assert get(ddb, tbl, key)["s"] == S("text")


def test_if_not_exists_keeps_existing_and_fills_missing(ddb, tbl):
    key = put(ddb, tbl, existing=S("keep-me"), src=S("copied"))
    upd(ddb, tbl, key, "SET existing = if_not_exists(existing, :d), "
        "fresh = if_not_exists(fresh, :d), bkp = if_not_exists(bkp, src)", {":d": S("default")})
    item = get(ddb, tbl, key)
    assert (item["existing"], item["fresh"], item["bkp"]) == (
        S("keep-me"), S("default"), S("copied"))


def test_if_not_exists_counter_idiom(ddb, tbl):
    key = {"pk": S("ine-counter")}
    for _ in range(3):
        upd(ddb, tbl, key, "SET hits = if_not_exists(hits, :zero) + :one",
            {":zero": N(0), ":one": N(1)})
    assert get(ddb, tbl, key)["hits"] == N(3)


def test_list_append_at_end_at_front_and_on_missing_list(ddb, tbl):
    key = put(ddb, tbl, l=({"L": [S("b"), S("c")]}))
    upd(ddb, tbl, key, "SET l = list_append(l, :tail)", {":tail": {"L": [S("d")]}})
    upd(ddb, tbl, key, "SET l = list_append(:head, l)", {":head": {"L": [S("a")]}})
    upd(ddb, tbl, key, "SET m = list_append(if_not_exists(m, :empty), :x)",
        {":empty": {"L": []}, ":x": {"L": [N(1), N(2)]}})
    item = get(ddb, tbl, key)
    assert item["l"] == {"L": [S("a"), S("b"), S("c"), S("d")]}
    assert item["m"] == {"L": [N(1), N(2)]}


def test_list_append_on_a_non_list_is_an_error(ddb, tbl):
    key = put(ddb, tbl, s=S("text"))
    assert_error(upd, V, "An operand in the update expression has an incorrect data type",
                 ddb=ddb, tbl=tbl, key=key, expr="SET s = list_append(s, :l)",
                 values={":l": {"L": [N(1)]}})


# ---- nested paths and list indexes ---------------------------------------------------------------

def test_set_nested_map_path_and_nested_arithmetic(ddb, tbl):
    key = put(ddb, tbl, a={"M": {"b": {"M": {"c": S("old"), "n": N(10)}}, "k": S("keep")}})
    upd(ddb, tbl, key, "SET a.b.c = :v, #a.#b.n = #a.#b.n + :i, a.b.#new = :v",
        {":v": S("new"), ":i": N(5)}, {"#a": "a", "#b": "b", "#new": "added"})
    assert get(ddb, tbl, key)["a"] == {"M": {
        "b": {"M": {"c": S("new"), "n": N(15), "added": S("new")}}, "k": S("keep")}}


def test_set_below_a_missing_map_is_rejected(ddb, tbl):
    key = put(ddb, tbl, top=S("v"))
    assert_error(upd, V, "The document path provided in the update expression is invalid for "
                 "update", ddb=ddb, tbl=tbl, key=key, expr="SET absent.nested.deep = :v",
                 values={":v": S("x")})
    assert get(ddb, tbl, key) == {**key, "top": S("v")}


def test_set_list_element_replaces_and_past_the_end_appends(ddb, tbl):
    key = put(ddb, tbl, l={"L": [S("a"), S("b"), S("c")]}, e={"L": []})
    upd(ddb, tbl, key, "SET l[1] = :x, l[10] = :y, e[0] = :y", {":x": S("B"), ":y": S("z")})
    item = get(ddb, tbl, key)
    assert item["l"] == {"L": [S("a"), S("B"), S("c"), S("z")]}
    assert item["e"] == {"L": [S("z")]}


def test_several_elements_past_the_end_are_appended_in_element_number_order(ddb, tbl):
    # "If you add multiple elements in a single SET operation, the elements are sorted in order
    # by element number" (developer guide; ScyllaDB's Alternator
    # test_nested_attribute_update_array_out_of_bounds, run against the service).
    key = {"pk": S("append-order")}
    ddb.put_item(TableName=tbl, Item={**key, "a": {"L": [S("one"), S("two")]}})
    ddb.update_item(TableName=tbl, Key=key,
                    UpdateExpression="SET a[84] = :a1, a[37] = :a2, a[17] = :a3, a[1] = :b",
                    ExpressionAttributeValues={":a1": S("a1"), ":a2": S("a2"), ":a3": S("a3"),
                                               ":b": S("B")})
    assert get(ddb, tbl, key)["a"] == {"L": [S("one"), S("B"), S("a3"), S("a2"), S("a1")]}


def test_set_inside_a_list_element_map(ddb, tbl):
    key = put(ddb, tbl, l={"L": [{"M": {"n": N(1)}}, {"M": {"n": N(2)}}]})
    upd(ddb, tbl, key, "SET l[1].n = l[1].n + :one, l[0].tag = :t", {":one": N(1), ":t": S("t")})
    assert get(ddb, tbl, key)["l"] == {"L": [{"M": {"n": N(1), "tag": S("t")}}, {"M": {"n": N(3)}}]}


# ---- REMOVE --------------------------------------------------------------------------------------

def test_remove_top_level_nested_and_missing_attributes(ddb, tbl):
    key = put(ddb, tbl, gone=S("x"), keep=S("y"), m={"M": {"a": N(1), "b": N(2)}})
    upd(ddb, tbl, key, "REMOVE gone, m.a, ghost, m.ghost")
    assert get(ddb, tbl, key) == {**key, "keep": S("y"), "m": {"M": {"b": N(2)}}}


def test_remove_list_elements_uses_original_indexes_and_shifts(ddb, tbl):
    key = put(ddb, tbl, l={"L": [S("a"), S("b"), S("c"), S("d")]}, one={"L": [S("x"), S("y")]})
    upd(ddb, tbl, key, "REMOVE l[0], l[2], one[1], one[7]")
    item = get(ddb, tbl, key)
    assert item["l"] == {"L": [S("b"), S("d")]}
    assert item["one"] == {"L": [S("x")]}


# ---- ADD and DELETE ------------------------------------------------------------------------------

def test_add_numbers(ddb, tbl):
    key = put(ddb, tbl, c=N(10))
    upd(ddb, tbl, key, "ADD c :i, fresh :j", {":i": N(-3), ":j": N("2.5")})
    item = get(ddb, tbl, key)
    assert (item["c"], item["fresh"]) == (N(7), N("2.5"))


def test_add_to_sets_is_a_union(ddb, tbl):
    key = put(ddb, tbl, ss={"SS": ["a", "b"]}, ns={"NS": ["1", "2"]})
    upd(ddb, tbl, key, "ADD ss :s, ns :n, bs :b",
        {":s": {"SS": ["b", "c"]}, ":n": {"NS": ["2", "3"]}, ":b": {"BS": [b"\x01"]}})
    item = normalize_sets(get(ddb, tbl, key))
    assert item["ss"] == {"SS": ["a", "b", "c"]}
    assert item["ns"] == {"NS": ["1", "2", "3"]}
    assert item["bs"] == {"BS": [b"\x01"]}


def test_add_of_wrong_type_is_an_error(ddb, tbl):
    key = put(ddb, tbl, ss={"SS": ["a"]}, s=S("text"))
    for expr, val in (("ADD ss :v", N(1)), ("ADD s :v", N(1)), ("ADD ss :v", {"NS": ["1"]})):
        assert_error(upd, V, "An operand in the update expression has an incorrect data type",
                     ddb=ddb, tbl=tbl, key=key, expr=expr, values={":v": val})


def test_delete_from_sets(ddb, tbl):
    key = put(ddb, tbl, ss={"SS": ["a", "b", "c"]}, ns={"NS": ["1", "2"]}, all={"SS": ["x"]})
    upd(ddb, tbl, key, "DELETE ss :s, ns :n, #all :x, ghost :x",
        {":s": {"SS": ["b", "zz"]}, ":n": {"NS": ["2"]}, ":x": {"SS": ["x"]}}, {"#all": "all"})
    item = normalize_sets(get(ddb, tbl, key))
    assert item == {**key, "ss": {"SS": ["a", "c"]}, "ns": {"NS": ["1"]}}


# ---- ReturnValues --------------------------------------------------------------------------------

@pytest.mark.parametrize("mode,expected", [
    ("NONE", None),
    ("ALL_OLD", {"a": N(1), "b": S("keep"), "gone": S("g")}),
    ("ALL_NEW", {"a": N(2), "b": S("keep"), "c": S("new")}),
    ("UPDATED_OLD", {"a": N(1), "gone": S("g")}),
    ("UPDATED_NEW", {"a": N(2), "c": S("new")}),
])
def test_return_values_modes(ddb, tbl, mode, expected):
    key = put(ddb, tbl, a=N(1), b=S("keep"), gone=S("g"))
    out = upd(ddb, tbl, key, "SET a = a + :one, c = :c REMOVE gone",
              {":one": N(1), ":c": S("new")}, ReturnValues=mode)
    if expected is None:
        assert "Attributes" not in out
    elif mode.startswith("ALL"):
        assert out["Attributes"] == {**key, **expected}
    else:
        assert out["Attributes"] == expected


def test_updated_new_and_old_of_nested_map_paths_return_only_those_paths(ddb, tbl):
    key = put(ddb, tbl, m={"M": {"x": N(1), "y": N(2), "z": {"M": {"a": N(1), "b": N(2)}}}})
    out = upd(ddb, tbl, key, "SET m.x = :v, m.z.a = :v", {":v": N(9)}, ReturnValues="UPDATED_OLD")
    assert out["Attributes"] == {"m": {"M": {"x": N(1), "z": {"M": {"a": N(1)}}}}}
    out = upd(ddb, tbl, key, "SET m.x = :v REMOVE m.y", {":v": N(10)}, ReturnValues="UPDATED_NEW")
    assert out["Attributes"] == {"m": {"M": {"x": N(10)}}}
    out = upd(ddb, tbl, key, "REMOVE m.z.b", ReturnValues="UPDATED_NEW")
    assert "Attributes" not in out


def test_return_values_on_update_of_missing_item(ddb, tbl):
    out = upd(ddb, tbl, {"pk": S("rv-missing-old")}, "SET a = :v", {":v": N(1)},
              ReturnValues="UPDATED_OLD")
    assert "Attributes" not in out
    out = upd(ddb, tbl, {"pk": S("rv-missing-new")}, "SET a = :v", {":v": N(1)},
              ReturnValues="UPDATED_NEW")
    assert out["Attributes"] == {"a": N(1)}


# ---- key attributes ------------------------------------------------------------------------------

@pytest.mark.parametrize("expr,values", [
    ("SET pk = :v", {":v": S("new")}),
    ("REMOVE pk", None),
    ("SET a = :v REMOVE pk", {":v": S("x")}),
    ("ADD pk :v", {":v": {"SS": ["x"]}}),
])
def test_updating_the_hash_key_is_rejected(ddb, tbl, expr, values):
    key = put(ddb, tbl, a=S("orig"))
    assert_error(upd, V, "One or more parameter values were invalid: Cannot update attribute pk. "
                 "This attribute is part of the key", ddb=ddb, tbl=tbl, key=key, expr=expr,
                 values=values)
    assert get(ddb, tbl, key) == {**key, "a": S("orig")}


def test_updating_the_range_key_is_rejected(ddb, ctbl):
    key = {"pk": S("p"), "sk": N(1)}
    assert_error(upd, V, "One or more parameter values were invalid: Cannot update attribute sk. "
                 "This attribute is part of the key", ddb=ddb, tbl=ctbl, key=key,
                 expr="SET sk = :v", values={":v": N(2)})
    assert get(ddb, ctbl, key) is None


def test_composite_key_update_creates_item_with_both_keys(ddb, ctbl):
    key = {"pk": S("p"), "sk": N(7)}
    out = upd(ddb, ctbl, key, "ADD n :one", {":one": N(1)}, ReturnValues="ALL_NEW")
    assert out["Attributes"] == {**key, "n": N(1)}
