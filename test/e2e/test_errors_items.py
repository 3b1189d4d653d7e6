"""PutItem / GetItem / DeleteItem validation errors: exact code, message and HTTP status.

Expected strings follow /work/ref/foundation-reference.md (real DynamoDB; the conformance suite's
exact strings win). Where the server differs, these tests are meant to fail until it is fixed.
"""
from __future__ import annotations

import pytest

from e2e_util import assert_error, create_table, ddb_error, unique_name

V = "ValidationException"
INVALID = "One or more parameter values were invalid: "


@pytest.fixture(scope="module")
def tables(ddb):
    names = {k: unique_name(f"err_{k}") for k in ("h", "c", "n", "b")}
    create_table(ddb, names["h"], hash_key=("pk", "S"))
    create_table(ddb, names["c"], hash_key=("pk", "S"), range_key=("sk", "S"))
    create_table(ddb, names["n"], hash_key=("pk", "N"))
    create_table(ddb, names["b"], hash_key=("pk", "B"))
    return names


def put(ddb, table, **attrs):
    """PutItem on the hash-S table with pk 'x' plus the given attributes."""
    return lambda: ddb.put_item(TableName=table, Item={"pk": {"S": "x"}, **attrs})


# ---- missing tables and table names ------------------------------------------------------------

@pytest.mark.parametrize("op", ["get_item", "put_item", "delete_item"])
def test_item_operation_on_missing_table_is_resource_not_found(ddb, op):
    arg = {"Item": {"pk": {"S": "a"}}} if op == "put_item" else {"Key": {"pk": {"S": "a"}}}
    assert_error(getattr(ddb, op), "ResourceNotFoundException", "Requested resource not found",
                 TableName=unique_name("missing"), **arg)


@pytest.mark.parametrize("op", ["get_item", "put_item", "delete_item"])
def test_item_operation_with_two_char_table_name_is_resource_not_found(ddb, op):
    arg = {"Item": {"pk": {"S": "a"}}} if op == "put_item" else {"Key": {"pk": {"S": "a"}}}
    assert_error(getattr(ddb, op), "ResourceNotFoundException", "Requested resource not found",
                 TableName="ab", **arg)


def test_put_item_without_table_name(ddb):
    assert_error(ddb.put_item, V, "1 validation error detected: Value null at 'tableName' failed "
                 "to satisfy constraint: Member must not be null", Item={"pk": {"S": "a"}})


@pytest.mark.parametrize("name,constraint", [
    ("", "Member must have length greater than or equal to 1"),
    ("a" * 256, "Member must have length less than or equal to 255"),
    ("bad table!@#", "Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"),
])
def test_put_item_table_name_constraints(ddb, name, constraint):
    assert_error(ddb.put_item, V, f"1 validation error detected: Value '{name}' at 'tableName' "
                 f"failed to satisfy constraint: {constraint}",
                 TableName=name, Item={"pk": {"S": "a"}})


def test_bad_table_name_is_reported_with_other_constraint_errors(ddb):
    # The suite pins only that the tableName error is reported (some regions report it alone,
    # older ones aggregate it with the returnValues error).
    e = ddb_error(ddb.put_item, TableName="", Item={}, ReturnValues="INVALID")
    assert (e.code, e.status) == (V, 400)
    assert "Value '' at 'tableName' failed to satisfy constraint: Member must have length " \
        "greater than or equal to 1" in e.message, e.message


# ---- keys -----------------------------------------------------------------------------------

def test_put_item_missing_hash_key(ddb, tables):
    assert_error(ddb.put_item, V, INVALID + "Missing the key pk in the item",
                 TableName=tables["h"], Item={"notTheKey": {"S": "x"}})
    assert_error(ddb.put_item, V, INVALID + "Missing the key pk in the item",
                 TableName=tables["h"], Item={})


def test_put_item_missing_range_key(ddb, tables):
    assert_error(ddb.put_item, V, INVALID + "Missing the key sk in the item",
                 TableName=tables["c"], Item={"pk": {"S": "x"}})


@pytest.mark.parametrize("value,actual", [({"N": "1"}, "N"), ({"B": b"x"}, "B"),
                                          ({"SS": ["a"]}, "SS"), ({"BOOL": True}, "BOOL"),
                                          ({"NULL": True}, "NULL"), ({"M": {}}, "M"),
                                          ({"L": []}, "L")])
def test_put_item_key_type_mismatch(ddb, tables, value, actual):
    assert_error(ddb.put_item, V, INVALID + f"Type mismatch for key pk expected: S actual: {actual}",
                 TableName=tables["h"], Item={"pk": value})


def test_put_item_range_key_type_mismatch(ddb, tables):
    assert_error(ddb.put_item, V, INVALID + "Type mismatch for key sk expected: S actual: N",
                 TableName=tables["c"], Item={"pk": {"S": "a"}, "sk": {"N": "1"}})


@pytest.mark.parametrize("key", [
    {"pk": {"S": "a"}},                                   # range key missing
    {"pk": {"S": "a"}, "sk": {"S": "b"}, "x": {"S": "c"}},  # extra attribute
    {"pk": {"S": "a"}, "sk": {"N": "1"}},                 # wrong type
    {"pk": {"S": "a"}, "other": {"S": "b"}},              # wrong name
    {},
])
@pytest.mark.parametrize("op", ["get_item", "delete_item"])
def test_key_not_matching_schema(ddb, tables, op, key):
    assert_error(getattr(ddb, op), V, "The provided key element does not match the schema",
                 TableName=tables["c"], Key=key)


@pytest.mark.parametrize("op", ["put_item", "get_item", "delete_item"])
@pytest.mark.parametrize("table,key,kind,attr", [
    ("h", {"pk": {"S": ""}}, "string", "pk"),
    ("c", {"pk": {"S": "a"}, "sk": {"S": ""}}, "string", "sk"),
    ("b", {"pk": {"B": b""}}, "binary", "pk"),
])
def test_empty_key_value_is_rejected(ddb, tables, op, table, key, kind, attr):
    arg = {"Item": key} if op == "put_item" else {"Key": key}
    assert_error(getattr(ddb, op), V, "One or more parameter values are not valid. The "
                 f"AttributeValue for a key attribute cannot contain an empty {kind} value. "
                 f"Key: {attr}", TableName=tables[table], **arg)


HASH_TOO_BIG = INVALID + "Size of hashkey has exceeded the maximum size limit of2048 bytes"
RANGE_TOO_BIG = (INVALID +
                 "Aggregated size of all range keys has exceeded the size limit of 1024 bytes")


def test_hash_key_of_2048_bytes_is_accepted_and_2049_rejected(ddb, tables):
    ddb.put_item(TableName=tables["h"], Item={"pk": {"S": "k" * 2048}})
    assert ddb.get_item(TableName=tables["h"], Key={"pk": {"S": "k" * 2048}})["Item"]
    for op, arg in (("put_item", "Item"), ("get_item", "Key"), ("delete_item", "Key")):
        assert_error(getattr(ddb, op), V, HASH_TOO_BIG, TableName=tables["h"],
                     **{arg: {"pk": {"S": "k" * 2049}}})
    # UTF-8 bytes count, not characters: 1025 x "é" is 2050 bytes.
    assert_error(ddb.put_item, V, HASH_TOO_BIG, TableName=tables["h"],
                 Item={"pk": {"S": "é" * 1025}})
    ddb.put_item(TableName=tables["b"], Item={"pk": {"B": b"\x00" * 2048}})
    assert_error(ddb.put_item, V, HASH_TOO_BIG, TableName=tables["b"],
                 Item={"pk": {"B": b"\x00" * 2049}})


def test_range_key_of_1024_bytes_is_accepted_and_1025_rejected(ddb, tables):
    ddb.put_item(TableName=tables["c"], Item={"pk": {"S": "a"}, "sk": {"S": "k" * 1024}})
    for op, arg in (("put_item", "Item"), ("get_item", "Key"), ("delete_item", "Key")):
        assert_error(getattr(ddb, op), V, RANGE_TOO_BIG, TableName=tables["c"],
                     **{arg: {"pk": {"S": "a"}, "sk": {"S": "k" * 1025}}})


# ---- attribute values -------------------------------------------------------------------------

@pytest.mark.parametrize("value,message", [
    ({"SS": []}, INVALID + "An string set  may not be empty"),
    ({"NS": []}, INVALID + "An number set  may not be empty"),
    ({"BS": []}, INVALID + "Binary sets should not be empty"),
    ({"M": {"inner": {"SS": []}}}, INVALID + "An string set  may not be empty"),
    ({"L": [{"NS": []}]}, INVALID + "An number set  may not be empty"),
    ({"SS": ["a", "a"]}, INVALID + "Input collection [a, a] contains duplicates."),
    ({"SS": ["b", "a", "b"]}, INVALID + "Input collection [b, a, b] contains duplicates."),
    ({"M": {"x": {"SS": ["a", "a"]}}}, INVALID + "Input collection [a, a] contains duplicates."),
    ({"NS": ["1", "1"]}, "Input collection contains duplicates"),
    ({"NS": ["1", "1.0"]}, "Input collection contains duplicates"),
    ({"NS": ["100", "1e2"]}, "Input collection contains duplicates"),
    ({"BS": [b"b", b"b"]}, INVALID + "Input collection [Yg==, Yg==]of type BS contains duplicates."),
    ({"NULL": False}, INVALID + "Null attribute value types must have the value of true"),
    ({"S": "a", "N": "1"}, "Supplied AttributeValue has more than one datatypes set, must "
                           "contain exactly one of the supported datatypes"),
    ({}, "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"),
    ({"M": {"x": {}}}, "Supplied AttributeValue is empty, must contain exactly one of the "
                       "supported datatypes"),
])
def test_invalid_attribute_value(ddb, tables, value, message):
    assert_error(put(ddb, tables["h"], v=value), V, message)


def test_two_types_in_a_key_value(ddb, tables):
    assert_error(ddb.get_item, V, "Supplied AttributeValue has more than one datatypes set, "
                 "must contain exactly one of the supported datatypes",
                 TableName=tables["h"], Key={"pk": {"S": "a", "N": "1"}})


# ---- numbers --------------------------------------------------------------------------------

NOT_NUMERIC = "The parameter cannot be converted to a numeric value"
OVERFLOW = "Number overflow. Attempting to store a number with magnitude larger than supported range"
UNDERFLOW = ("Number underflow. Attempting to store a number with magnitude smaller than "
             "supported range")
TOO_PRECISE = "Attempting to store more than 38 significant digits in a Number"


@pytest.mark.parametrize("number,message", [
    ("123456789012345678901234567890123456789", TOO_PRECISE),
    ("-1.23456789012345678901234567890123456789", TOO_PRECISE),
    ("1E+126", OVERFLOW), ("-1E+126", OVERFLOW),
    ("9.9999999999999999999999999999999999999E+126", OVERFLOW),
    ("1E-131", UNDERFLOW), ("-1E-131", UNDERFLOW),
    ("abc", NOT_NUMERIC + ": abc"), ("0x10", NOT_NUMERIC + ": 0x10"),
    ("NaN", NOT_NUMERIC + ": NaN"), ("Infinity", NOT_NUMERIC + ": Infinity"),
    ("1..2", NOT_NUMERIC + ": 1..2"), ("--1", NOT_NUMERIC + ": --1"),
    ("1e", NOT_NUMERIC + ": 1e"), ("e5", NOT_NUMERIC + ": e5"), ("1e+", NOT_NUMERIC + ": 1e+"),
    ("1,000", NOT_NUMERIC + ": 1,000"), (" 1", NOT_NUMERIC + ":  1"),
    ("1 ", NOT_NUMERIC + ": 1 "), ("١", NOT_NUMERIC + ": ١"),
    ("", NOT_NUMERIC + ": "),
    ("1e9223372036854775808", NOT_NUMERIC + ": 1e9223372036854775808"),
    ("0e126", OVERFLOW), ("0e-131", UNDERFLOW), ("1e2147483648", OVERFLOW),
    ("1e2147483647", UNDERFLOW), ("1e-99999999999", UNDERFLOW),
])
def test_invalid_number(ddb, tables, number, message):
    assert_error(put(ddb, tables["h"], v={"N": number}), V, message)


def test_39_digit_number_with_trailing_zero_is_38_significant_digits(ddb, tables):
    n = "123456789012345678901234567890123456780"
    ddb.put_item(TableName=tables["h"], Item={"pk": {"S": "n39"}, "v": {"N": n}})
    got = ddb.get_item(TableName=tables["h"], Key={"pk": {"S": "n39"}})["Item"]
    assert got["v"] == {"N": n}


@pytest.mark.parametrize("where", ["ns", "map", "list", "key"])
def test_number_checks_apply_inside_sets_documents_and_keys(ddb, tables, where):
    if where == "key":
        assert_error(ddb.get_item, V, NOT_NUMERIC + ": abc", TableName=tables["n"],
                     Key={"pk": {"N": "abc"}})
        return
    value = {"ns": {"NS": ["1", "1E+126"]}, "map": {"M": {"x": {"N": "1E+126"}}},
             "list": {"L": [{"N": "1E+126"}]}}[where]
    assert_error(put(ddb, tables["h"], v=value), V, OVERFLOW)


# ---- size and nesting -----------------------------------------------------------------------

ITEM_TOO_BIG = "Item size has exceeded the maximum allowed size"


def test_item_of_exactly_400kb_is_accepted_and_one_byte_more_rejected(ddb, tables):
    # size = len("pk") + len("sz") + len("d") + len(value); 409600 is the limit.
    ddb.put_item(TableName=tables["h"], Item={"pk": {"S": "sz"}, "d": {"S": "x" * 409595}})
    assert_error(ddb.put_item, V, ITEM_TOO_BIG, TableName=tables["h"],
                 Item={"pk": {"S": "sz"}, "d": {"S": "x" * 409596}})


@pytest.mark.parametrize("shape", ["string", "binary", "names", "nested", "set", "list"])
def test_item_over_400kb_is_rejected(ddb, tables, shape):
    attrs = {
        "string": lambda: {"big": {"S": "x" * 410_000}},
        "binary": lambda: {"big": {"B": b"\x00" * 410_000}},
        "names": lambda: {f"attr{'a' * 200}{i:03d}": {"S": "x" * 3900} for i in range(105)},
        "nested": lambda: {"n": {"M": {"l1": {"M": {"p": {"S": "x" * 410_000}}}}}},
        "set": lambda: {"s": {"SS": ["x" * 4200 + str(i) for i in range(100)]}},
        "list": lambda: {"l": {"L": [{"S": "x" * 4200 + str(i)} for i in range(100)]}},
    }[shape]()
    assert_error(put(ddb, tables["h"], **attrs), V, ITEM_TOO_BIG)


def test_item_size_is_checked_before_table_existence(ddb):
    assert_error(ddb.put_item, V, ITEM_TOO_BIG, TableName=unique_name("missing"),
                 Item={"pk": {"S": "a"}, "big": {"S": "x" * 410_000}})


NESTING = ("Nesting Levels have exceeded supported limits: Attributes in the item have nested "
           "levels beyond supported limit")


@pytest.mark.parametrize("kind", ["M", "L"])
@pytest.mark.parametrize("containers", [32, 33])
def test_nesting_beyond_32_levels_is_rejected(ddb, tables, kind, containers):
    v = {"S": "leaf"}
    for _ in range(containers):
        v = {"M": {"a": v}} if kind == "M" else {"L": [v]}
    assert_error(put(ddb, tables["h"], v=v), V, NESTING)


# ---- ReturnValues and other enums -----------------------------------------------------------

RV_ENUM = "[ALL_NEW, UPDATED_OLD, ALL_OLD, NONE, UPDATED_NEW]"


@pytest.mark.parametrize("op", ["put_item", "delete_item"])
def test_invalid_return_values_enum(ddb, tables, op):
    arg = {"Item": {"pk": {"S": "a"}}} if op == "put_item" else {"Key": {"pk": {"S": "a"}}}
    assert_error(getattr(ddb, op), V, "1 validation error detected: Value 'INVALID' at "
                 f"'returnValues' failed to satisfy constraint: Member must satisfy enum value "
                 f"set: {RV_ENUM}", TableName=tables["h"], ReturnValues="INVALID", **arg)


@pytest.mark.parametrize("rv", ["ALL_NEW", "UPDATED_OLD", "UPDATED_NEW"])
def test_put_item_return_values_other_than_all_old_or_none(ddb, tables, rv):
    assert_error(ddb.put_item, V, "1 validation error detected: ReturnValues can only be ALL_OLD or NONE",
                 TableName=tables["h"], Item={"pk": {"S": "a"}}, ReturnValues=rv)


def test_invalid_return_consumed_capacity_enum(ddb, tables):
    assert_error(ddb.get_item, V, "1 validation error detected: Value 'INVALID' at "
                 "'returnConsumedCapacity' failed to satisfy constraint: Member must satisfy "
                 "enum value set: [INDEXES, TOTAL, NONE]", TableName=tables["h"],
                 Key={"pk": {"S": "a"}}, ReturnConsumedCapacity="INVALID")


def test_enum_errors_are_reported_before_table_existence_and_aggregated(ddb):
    e = ddb_error(ddb.put_item, TableName=unique_name("missing"), Item={"pk": {"S": "a"}},
                  ReturnValues="INVALID", ReturnConsumedCapacity="INVALID",
                  ReturnItemCollectionMetrics="INVALID")
    assert (e.code, e.status) == (V, 400)
    assert e.message.startswith("3 validation errors detected: "), e.message
    for part in (
        "Value 'INVALID' at 'returnConsumedCapacity' failed to satisfy constraint: Member must "
        "satisfy enum value set: [INDEXES, TOTAL, NONE]",
        f"Value 'INVALID' at 'returnValues' failed to satisfy constraint: Member must satisfy "
        f"enum value set: {RV_ENUM}",
        "Value 'INVALID' at 'returnItemCollectionMetrics' failed to satisfy constraint: Member "
        "must satisfy enum value set: [SIZE, NONE]",
    ):
        assert part in e.message, e.message
