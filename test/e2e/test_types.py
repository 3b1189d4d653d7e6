"""Every AttributeValue type round-trips exactly through PutItem/GetItem; numbers normalise."""
from __future__ import annotations

import pytest

from e2e_util import create_table, normalize_sets


@pytest.fixture(scope="module")
def table(ddb):
    from e2e_util import unique_name

    name = unique_name("types")
    create_table(ddb, name)
    return name


def roundtrip(ddb, table, key, value, name="v"):
    item = {"pk": {"S": key}, name: value}
    ddb.put_item(TableName=table, Item=item)
    got = ddb.get_item(TableName=table, Key={"pk": {"S": key}}, ConsistentRead=True)
    return got["Item"][name]


@pytest.mark.parametrize("text", [
    "hello",
    "",
    " leading and trailing spaces ",
    "ünïcödé — ☃ 漢字 한국어 العربية",
    "emoji 🧪🚀 and astral 𝄞",
    "e\u0301 combining",
    "line\nbreak\ttab \"quote\" \\ backslash",
    "nul\x00inside",
    "x" * 10_000,
])
def test_string_round_trips_exactly(ddb, table, text):
    assert roundtrip(ddb, table, "s", {"S": text}) == {"S": text}


@pytest.mark.parametrize("data", [b"", b"\x00", b"\x00\x00\x00", b"\x00\x01\x02\xfe\xff",
                                  bytes(range(256)), b"\xff" * 1000])
def test_binary_round_trips_exactly_including_zero_bytes(ddb, table, data):
    assert roundtrip(ddb, table, "b", {"B": data}) == {"B": data}


@pytest.mark.parametrize("flag", [True, False])
def test_bool_round_trips(ddb, table, flag):
    assert roundtrip(ddb, table, "bool", {"BOOL": flag}) == {"BOOL": flag}


def test_null_round_trips(ddb, table):
    assert roundtrip(ddb, table, "null", {"NULL": True}) == {"NULL": True}


@pytest.mark.parametrize("given,stored", [
    ("0", "0"),
    ("1.0", "1"),
    ("01", "1"),
    ("00042", "42"),
    ("1e2", "100"),
    ("1E2", "100"),
    ("1.5E2", "150"),
    ("-0", "0"),
    ("-0.0", "0"),
    ("0.10", "0.1"),
    ("3.1400", "3.14"),
    ("+1", "1"),
    (".5", "0.5"),
    ("-.5", "-0.5"),
    ("5.", "5"),
    ("10E-1", "1"),
    ("12.5e-3", "0.0125"),
    ("1E-7", "0.0000001"),
    ("123.456", "123.456"),
    ("-17", "-17"),
    ("1000000000000000000000", "1000000000000000000000"),
    ("12345678901234567890123456789012345678", "12345678901234567890123456789012345678"),
    ("-12345678901234567890123456789012345678", "-12345678901234567890123456789012345678"),
    ("0.00000000000000000000000000000000000001", "0.00000000000000000000000000000000000001"),
    ("1234567890123456789012345678901234567800000",
     "1234567890123456789012345678901234567800000"),
    ("1E-130", "0." + "0" * 129 + "1"),
    ("-1E-130", "-0." + "0" * 129 + "1"),
    ("9.9999999999999999999999999999999999999E+125", "9" * 38 + "0" * 88),
    ("-9.9999999999999999999999999999999999999E+125", "-" + "9" * 38 + "0" * 88),
])
def test_number_is_stored_in_canonical_form(ddb, table, given, stored):
    assert roundtrip(ddb, table, "n", {"N": given}) == {"N": stored}


def test_number_keys_are_compared_by_value(ddb, table_name):
    create_table(ddb, table_name, hash_key=("id", "N"))
    ddb.put_item(TableName=table_name, Item={"id": {"N": "1.0"}, "v": {"S": "one"}})
    for spelling in ("1", "1e0", "01", "1.000", "10E-1"):
        got = ddb.get_item(TableName=table_name, Key={"id": {"N": spelling}})
        assert got["Item"] == {"id": {"N": "1"}, "v": {"S": "one"}}


def test_string_set_round_trips_as_a_set(ddb, table):
    members = ["c", "a", "b", "", "ünï", "🧪"]
    got = roundtrip(ddb, table, "ss", {"SS": members})
    assert sorted(got["SS"]) == sorted(members)


def test_number_set_members_are_normalised(ddb, table):
    got = roundtrip(ddb, table, "ns", {"NS": ["1.0", "01.50", "1e2", "-0.10", "3"]})
    assert sorted(got["NS"], key=float) == ["-0.1", "1", "1.5", "3", "100"]


def test_binary_set_round_trips_as_a_set(ddb, table):
    members = [b"\x00", b"\x01\x02", b"\xff\x00\xff", b""]
    got = roundtrip(ddb, table, "bs", {"BS": members})
    assert sorted(got["BS"]) == sorted(members)


def test_map_and_list_round_trip_with_every_type_inside(ddb, table):
    value = {"M": {
        "s": {"S": "x"}, "n": {"N": "-1.5"}, "b": {"B": b"\x00z"}, "t": {"BOOL": True},
        "f": {"BOOL": False}, "nul": {"NULL": True}, "empty_s": {"S": ""},
        "ss": {"SS": ["p", "q"]}, "ns": {"NS": ["7", "8"]}, "bs": {"BS": [b"\x01", b"\x02"]},
        "em": {"M": {}}, "el": {"L": []},
        "l": {"L": [{"S": "a"}, {"N": "1"}, {"L": [{"NULL": True}, {"M": {"k": {"S": "v"}}}]},
                    {"S": "a"}]},
        "name with spaces & symbols.#:[]": {"S": "ok"},
        "ünï": {"S": "ok"},
    }}
    got = roundtrip(ddb, table, "m", value)
    assert normalize_sets(got) == normalize_sets(value)


def test_list_preserves_order_and_duplicates(ddb, table):
    value = {"L": [{"N": "3"}, {"N": "1"}, {"N": "3"}, {"S": "3"}, {"BOOL": False}]}
    assert roundtrip(ddb, table, "l", value) == value


def nest(containers: int, kind: str):
    v = {"S": "leaf"}
    for i in range(containers):
        v = {"M": {f"k{i}": v}} if kind == "M" else {"L": [v]}
    return v


@pytest.mark.parametrize("kind", ["M", "L", "mixed"])
def test_deeply_nested_documents_within_the_limit_round_trip(ddb, table, kind):
    # 31 containers under the top-level attribute: 32 levels of attributes in all.
    if kind == "mixed":
        v = {"S": "leaf"}
        for i in range(31):
            v = {"M": {"k": v}} if i % 2 else {"L": [v, {"N": str(i)}]}
    else:
        v = nest(31, kind)
    assert roundtrip(ddb, table, f"deep-{kind}", v) == v


def test_item_with_every_type_at_top_level_round_trips(ddb, table):
    item = {
        "pk": {"S": "all"}, "s": {"S": "hello"}, "n": {"N": "123.456"}, "b": {"B": b"\x01\x02"},
        "t": {"BOOL": True}, "f": {"BOOL": False}, "nul": {"NULL": True},
        "ss": {"SS": ["c", "a", "b"]}, "ns": {"NS": ["3", "1", "2", "10"]},
        "bs": {"BS": [b"\x02", b"\x01"]},
        "l": {"L": [{"S": "i"}, {"N": "9"}, {"BOOL": True}, {"NULL": True}]},
        "m": {"M": {"a": {"N": "7"}, "z": {"S": "v"}}},
        "el": {"L": []}, "em": {"M": {}}, "es": {"S": ""}, "eb": {"B": b""},
    }
    ddb.put_item(TableName=table, Item=item)
    got = ddb.get_item(TableName=table, Key={"pk": {"S": "all"}})["Item"]
    assert normalize_sets(got) == normalize_sets(item)


def test_large_item_just_under_400kb_round_trips(ddb, table):
    big = "x" * 390_000
    assert roundtrip(ddb, table, "big", {"S": big}) == {"S": big}


def test_attribute_names_are_case_sensitive(ddb, table):
    item = {"pk": {"S": "case"}, "a": {"S": "lower"}, "A": {"S": "upper"}}
    ddb.put_item(TableName=table, Item=item)
    assert ddb.get_item(TableName=table, Key={"pk": {"S": "case"}})["Item"] == item
