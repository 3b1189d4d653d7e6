"""Item-level limits at their exact boundaries, on every write path that the single-item tests
(test_errors_items.py) do not already cover: item size through BatchWriteItem, UpdateItem and
TransactWriteItems; key sizes, empty keys and key types through UpdateItem, the batch operations,
transactions and Query; document nesting reached through UpdateItem; numbers in keys, in
ExpressionAttributeValues and produced by update arithmetic; batch totals across tables.

Every refusal is checked for its exact error type and message and for leaving nothing written.
Expected messages are real DynamoDB's (docs/limits.md gives the source of each); where ttlstore
answers otherwise the test is meant to fail until the server is fixed.
"""
from __future__ import annotations

from decimal import Decimal

import pytest

from dataplane_util import B, N, S, cancel_reasons, drop_table, get, make_table
from e2e_util import assert_error, ddb_error, unique_name

V = "ValidationException"
CANCELLED = "TransactionCanceledException"
INVALID = "One or more parameter values were invalid: "
ITEM_TOO_BIG = "Item size has exceeded the maximum allowed size"
UPDATE_TOO_BIG = "Item size to update has exceeded the maximum allowed size"
HASH_TOO_BIG = INVALID + "Size of hashkey has exceeded the maximum size limit of2048 bytes"
RANGE_TOO_BIG = INVALID + "Aggregated size of all range keys has exceeded the size limit of 1024 bytes"
NESTING = ("Nesting Levels have exceeded supported limits: Attributes in the item have nested "
           "levels beyond supported limit")
TOO_PRECISE = "Attempting to store more than 38 significant digits in a Number"
OVERFLOW = "Number overflow. Attempting to store a number with magnitude larger than supported range"
UNDERFLOW = ("Number underflow. Attempting to store a number with magnitude smaller than "
             "supported range")
DUPLICATES = "Provided list of item keys contains duplicates"
MAX_N = "9.9999999999999999999999999999999999999E+125"
DIGITS_38 = "12345678901234567890123456789012345678"


def empty_key(kind: str, attr: str) -> str:
    return ("One or more parameter values are not valid. The AttributeValue for a key attribute "
            f"cannot contain an empty {kind} value. Key: {attr}")


def tx_cancelled(codes: list[str]) -> str:
    return ("Transaction cancelled, please refer cancellation reasons for specific reasons ["
            + ", ".join(codes) + "]")


@pytest.fixture(scope="module")
def t(ddb):
    names = {
        "h": make_table(ddb, unique_name("lim_h")),
        "c": make_table(ddb, unique_name("lim_c"), range_key=("sk", "S")),
        "n": make_table(ddb, unique_name("lim_n"), hash_key=("pk", "N")),
        "cn": make_table(ddb, unique_name("lim_cn"), range_key=("sk", "N")),
        "b": make_table(ddb, unique_name("lim_b"), hash_key=("pk", "B"), range_key=("sk", "B")),
    }
    yield names
    for name in names.values():
        drop_table(ddb, name)


def sized(pk: str, total: int) -> dict:
    """An item {pk, d} of exactly `total` bytes (name + value bytes, the service's measure)."""
    return {"pk": S(pk), "d": S("x" * (total - len("pk") - len(pk) - len("d")))}


def nest(containers: int, leaf=None) -> dict:
    v = leaf or S("leaf")
    for _ in range(containers):
        v = {"M": {"a": v}}
    return v


# ---- item size: 400 KB = 409600 bytes -----------------------------------------------------------

def test_batch_write_item_of_409600_bytes_passes_and_409601_fails_writing_nothing(ddb, t):
    h = t["h"]
    ddb.batch_write_item(RequestItems={h: [{"PutRequest": {"Item": sized("bw-ok", 409600)}}]})
    assert get(ddb, h, {"pk": S("bw-ok")}) == sized("bw-ok", 409600)
    assert_error(ddb.batch_write_item, V, ITEM_TOO_BIG, RequestItems={h: [
        {"PutRequest": {"Item": {"pk": S("bw-small")}}},
        {"PutRequest": {"Item": sized("bw-big", 409601)}}]})
    assert get(ddb, h, {"pk": S("bw-small")}) is None
    assert get(ddb, h, {"pk": S("bw-big")}) is None


def test_update_item_to_409600_bytes_passes_and_409601_fails(ddb, t):
    h = t["h"]
    ddb.put_item(TableName=h, Item={"pk": S("up-ok")})
    ddb.update_item(TableName=h, Key={"pk": S("up-ok")}, UpdateExpression="SET d = :v",
                    ExpressionAttributeValues={":v": sized("up-ok", 409600)["d"]})
    assert get(ddb, h, {"pk": S("up-ok")}) == sized("up-ok", 409600)
    # Adding the 1-byte name "e" with an empty value makes it 409601.
    assert_error(ddb.update_item, V, UPDATE_TOO_BIG, TableName=h, Key={"pk": S("up-ok")},
                 UpdateExpression="SET e = :v", ExpressionAttributeValues={":v": S("")})
    assert get(ddb, h, {"pk": S("up-ok")}) == sized("up-ok", 409600)


def test_transact_put_of_409601_bytes_is_a_validation_error_not_a_cancellation(ddb, t):
    # A put's size is known from the request: the service refuses the whole request up front.
    h = t["h"]
    ddb.transact_write_items(TransactItems=[{"Put": {"TableName": h,
                                                     "Item": sized("tw-ok", 409600)}}])
    assert get(ddb, h, {"pk": S("tw-ok")}) == sized("tw-ok", 409600)
    assert_error(ddb.transact_write_items, V, ITEM_TOO_BIG, TransactItems=[
        {"Put": {"TableName": h, "Item": {"pk": S("tw-small")}}},
        {"Put": {"TableName": h, "Item": sized("tw-big", 409601)}}])
    assert get(ddb, h, {"pk": S("tw-small")}) is None
    assert get(ddb, h, {"pk": S("tw-big")}) is None


def test_transact_update_growing_an_item_past_400kb_cancels_the_transaction(ddb, t):
    # An update's size depends on the stored item: it comes back as a cancellation reason.
    h = t["h"]
    ddb.put_item(TableName=h, Item={"pk": S("tw-grow"), "a": S("x" * 250_000)})
    e = ddb_error(ddb.transact_write_items, TransactItems=[
        {"Put": {"TableName": h, "Item": {"pk": S("tw-grow-other")}}},
        {"Update": {"TableName": h, "Key": {"pk": S("tw-grow")}, "UpdateExpression": "SET b = :v",
                    "ExpressionAttributeValues": {":v": S("x" * 250_000)}}}])
    assert (e.code, e.message) == (CANCELLED, tx_cancelled(["None", "ValidationError"]))
    assert cancel_reasons(e) == [{"Code": "None"},
                                 {"Code": "ValidationError", "Message": UPDATE_TOO_BIG}]
    assert get(ddb, h, {"pk": S("tw-grow-other")}) is None
    assert set(get(ddb, h, {"pk": S("tw-grow")})) == {"pk", "a"}


def test_transaction_of_more_than_4mb_is_refused_whole(ddb, t):
    h = t["h"]
    ddb.transact_write_items(TransactItems=[
        {"Put": {"TableName": h, "Item": {"pk": S(f"tx4-ok-{i}"), "d": S("x" * 350_000)}}}
        for i in range(10)])
    e = ddb_error(ddb.transact_write_items, TransactItems=[
        {"Put": {"TableName": h, "Item": {"pk": S(f"tx4-big-{i}"), "d": S("x" * 350_000)}}}
        for i in range(12)])
    # Alternator's test_transact_write_items_put_5MB matches "size cannot exceed" against the
    # service; the rest of the wording is DynamoDB Local's (docs/limits.md).
    assert e.code == V, (e.code, e.message)
    assert e.message.startswith("Transaction payload size cannot exceed 4MB. Payload Size: "), e.message
    assert get(ddb, h, {"pk": S("tx4-big-0")}) is None


# ---- key sizes: partition 2048 bytes, sort 1024 bytes, on every path ----------------------------

def test_key_sizes_are_checked_in_batch_operations(ddb, t):
    h, c = t["h"], t["c"]
    ok_hash, big_hash = S("k" * 2048), S("k" * 2049)
    ddb.batch_write_item(RequestItems={h: [{"PutRequest": {"Item": {"pk": ok_hash}}}]})
    assert len(ddb.batch_get_item(RequestItems={h: {"Keys": [{"pk": ok_hash}]}})
               ["Responses"][h]) == 1
    for req in ({"PutRequest": {"Item": {"pk": big_hash}}},
                {"DeleteRequest": {"Key": {"pk": big_hash}}}):
        assert_error(ddb.batch_write_item, V, HASH_TOO_BIG,
                     RequestItems={h: [{"PutRequest": {"Item": {"pk": S("bk-other")}}}, req]})
    assert_error(ddb.batch_get_item, V, HASH_TOO_BIG, RequestItems={h: {"Keys": [{"pk": big_hash}]}})
    ddb.batch_write_item(RequestItems={c: [
        {"PutRequest": {"Item": {"pk": S("bk"), "sk": S("s" * 1024)}}}]})
    assert_error(ddb.batch_write_item, V, RANGE_TOO_BIG, RequestItems={c: [
        {"PutRequest": {"Item": {"pk": S("bk"), "sk": S("s" * 1025)}}}]})
    assert_error(ddb.batch_get_item, V, RANGE_TOO_BIG, RequestItems={c: {"Keys": [
        {"pk": S("bk"), "sk": S("s" * 1025)}]}})
    assert get(ddb, h, {"pk": S("bk-other")}) is None


def test_key_sizes_are_checked_in_update_item(ddb, t):
    h, c = t["h"], t["c"]
    upd = dict(UpdateExpression="SET a = :v", ExpressionAttributeValues={":v": S("x")})
    ddb.update_item(TableName=h, Key={"pk": S("u" * 2048)}, **upd)
    assert_error(ddb.update_item, V, HASH_TOO_BIG, TableName=h, Key={"pk": S("u" * 2049)}, **upd)
    ddb.update_item(TableName=c, Key={"pk": S("u"), "sk": S("s" * 1024)}, **upd)
    assert_error(ddb.update_item, V, RANGE_TOO_BIG, TableName=c,
                 Key={"pk": S("u"), "sk": S("s" * 1025)}, **upd)


def test_binary_sort_key_of_1024_bytes_passes_and_1025_fails(ddb, t):
    b = t["b"]
    ddb.put_item(TableName=b, Item={"pk": B(b"p"), "sk": B(b"\x01" * 1024)})
    assert_error(ddb.put_item, V, RANGE_TOO_BIG, TableName=b,
                 Item={"pk": B(b"p"), "sk": B(b"\x01" * 1025)})
    assert_error(ddb.get_item, V, HASH_TOO_BIG, TableName=b,
                 Key={"pk": B(b"\x02" * 2049), "sk": B(b"s")})


def test_key_size_in_a_transaction_cancels_it(ddb, t):
    h = t["h"]
    e = ddb_error(ddb.transact_write_items, TransactItems=[
        {"Put": {"TableName": h, "Item": {"pk": S("txk-other")}}},
        {"Put": {"TableName": h, "Item": {"pk": S("k" * 2049)}}}])
    assert (e.code, e.message) == (CANCELLED, tx_cancelled(["None", "ValidationError"]))
    assert cancel_reasons(e)[1] == {"Code": "ValidationError", "Message": HASH_TOO_BIG}
    assert get(ddb, h, {"pk": S("txk-other")}) is None


def test_query_sort_key_condition_longer_than_1024_bytes_is_refused(ddb, t):
    c = t["c"]
    for cond in ("sk = :s", "sk > :s", "begins_with(sk, :s)"):
        ddb.query(TableName=c, KeyConditionExpression=f"pk = :p AND {cond}",
                  ExpressionAttributeValues={":p": S("q"), ":s": S("s" * 1024)})
        assert_error(ddb.query, V, RANGE_TOO_BIG, TableName=c,
                     KeyConditionExpression=f"pk = :p AND {cond}",
                     ExpressionAttributeValues={":p": S("q"), ":s": S("s" * 1025)})


# ---- empty key values and key type mismatches on the remaining paths ----------------------------

def test_empty_key_values_in_update_and_batch_operations(ddb, t):
    h = t["h"]
    msg = empty_key("string", "pk")
    assert_error(ddb.update_item, V, msg, TableName=h, Key={"pk": S("")},
                 UpdateExpression="SET a = :v", ExpressionAttributeValues={":v": S("x")})
    for req in ({"PutRequest": {"Item": {"pk": S("")}}}, {"DeleteRequest": {"Key": {"pk": S("")}}}):
        assert_error(ddb.batch_write_item, V, msg,
                     RequestItems={h: [{"PutRequest": {"Item": {"pk": S("ek-other")}}}, req]})
    assert_error(ddb.batch_get_item, V, msg, RequestItems={h: {"Keys": [{"pk": S("")}]}})
    assert get(ddb, h, {"pk": S("ek-other")}) is None


def test_empty_key_value_in_a_transaction_is_a_validation_error(ddb, t):
    # Unlike other per-action problems, an empty key value fails the request itself.
    h, b = t["h"], t["b"]
    assert_error(ddb.transact_write_items, V, empty_key("string", "pk"), TransactItems=[
        {"Put": {"TableName": h, "Item": {"pk": S("etx-other")}}},
        {"Put": {"TableName": h, "Item": {"pk": S("")}}}])
    assert_error(ddb.transact_write_items, V, empty_key("binary", "sk"), TransactItems=[
        {"Put": {"TableName": b, "Item": {"pk": B(b"p"), "sk": B(b"")}}}])
    assert get(ddb, h, {"pk": S("etx-other")}) is None


@pytest.mark.parametrize("cond,values,attr", [
    ("pk = :p", {":p": S("")}, "pk"),
    ("pk = :p AND sk = :s", {":p": S("q"), ":s": S("")}, "sk"),
], ids=["hash", "range"])
def test_query_with_an_empty_key_value_is_refused(ddb, t, cond, values, attr):
    assert_error(ddb.query, V, empty_key("string", attr), TableName=t["c"],
                 KeyConditionExpression=cond, ExpressionAttributeValues=values)


def test_key_type_mismatches_on_the_remaining_paths(ddb, t):
    h, c = t["h"], t["c"]
    schema = "The provided key element does not match the schema"
    assert_error(ddb.update_item, V, schema, TableName=h, Key={"pk": N(1)},
                 UpdateExpression="SET a = :v", ExpressionAttributeValues={":v": S("x")})
    # A batch's put: the delete's text (a conformance suite's capture against the service).
    assert_error(ddb.batch_write_item, V, schema,
                 RequestItems={h: [{"PutRequest": {"Item": {"pk": N(1)}}}]})
    assert_error(ddb.batch_write_item, V, schema,
                 RequestItems={h: [{"DeleteRequest": {"Key": {"pk": N(1)}}}]})
    assert_error(ddb.batch_get_item, V, schema, RequestItems={h: {"Keys": [{"pk": N(1)}]}})
    for cond, values in (("pk = :p", {":p": N(1)}), ("pk = :p AND sk = :s", {":p": S("a"),
                                                                              ":s": N(1)})):
        assert_error(ddb.query, V, INVALID + "Condition parameter type does not match schema type",
                     TableName=c, KeyConditionExpression=cond, ExpressionAttributeValues=values)
    assert get(ddb, h, {"pk": S("1")}) is None


# ---- nesting: 32 levels of documents ------------------------------------------------------------

def test_nesting_limit_applies_to_batch_and_transaction_writes(ddb, t):
    h = t["h"]
    ddb.batch_write_item(RequestItems={h: [{"PutRequest": {"Item": {"pk": S("nb-ok"),
                                                                    "v": nest(31)}}}]})
    assert get(ddb, h, {"pk": S("nb-ok")})["v"] == nest(31)
    assert_error(ddb.batch_write_item, V, NESTING,
                 RequestItems={h: [{"PutRequest": {"Item": {"pk": S("nb-no"), "v": nest(32)}}}]})
    assert_error(ddb.transact_write_items, V, NESTING, TransactItems=[
        {"Put": {"TableName": h, "Item": {"pk": S("nb-no"), "v": nest(32)}}}])
    assert get(ddb, h, {"pk": S("nb-no")}) is None


def test_update_value_nested_too_deep_is_refused_with_the_bare_nesting_message(ddb, t):
    h = t["h"]
    key = {"pk": S("nu")}
    ddb.update_item(TableName=h, Key=key, UpdateExpression="SET v = :v",
                    ExpressionAttributeValues={":v": nest(31)})
    assert_error(ddb.update_item, V, NESTING, TableName=h, Key=key, UpdateExpression="SET w = :v",
                 ExpressionAttributeValues={":v": nest(32)})
    assert set(get(ddb, h, key)) == {"pk", "v"}


def test_update_that_deepens_a_document_past_32_levels_is_refused(ddb, t):
    h = t["h"]
    key = {"pk": S("nd")}
    ddb.put_item(TableName=h, Item={**key, "v": nest(30)})
    leaf_path = "v" + ".a" * 30  # the string leaf, 31 levels down
    # Leaf at 31 containers is the deepest allowed...
    ddb.update_item(TableName=h, Key=key, UpdateExpression=f"SET {leaf_path} = :m",
                    ExpressionAttributeValues={":m": nest(1, S("x"))})
    # ...so replacing that leaf's parent level with two more maps goes one level too far.
    assert_error(ddb.update_item, V, NESTING, TableName=h, Key=key,
                 UpdateExpression=f"SET {leaf_path} = :m",
                 ExpressionAttributeValues={":m": nest(2, S("x"))})
    assert get(ddb, h, key)["v"] == nest(31, S("x"))


@pytest.mark.parametrize("kind", ["UpdateExpression", "ConditionExpression"])
def test_document_path_of_32_levels_passes_and_33_fails_in_updates_and_conditions(ddb, t, kind):
    h = t["h"]
    key = {"pk": S("dp")}

    def call(depth):
        path = ".".join(["m"] * depth)
        if kind == "UpdateExpression":
            return dict(UpdateExpression=f"SET z = if_not_exists({path}, :v)",
                        ExpressionAttributeValues={":v": S("z")})
        return dict(UpdateExpression="SET z = :v", ConditionExpression=f"attribute_not_exists({path})",
                    ExpressionAttributeValues={":v": S("z")})

    ddb.update_item(TableName=h, Key=key, **call(32))
    assert_error(ddb.update_item, V, f"Invalid {kind}: The document path has too many nesting "
                 "levels; nesting levels: 33", TableName=h, Key=key, **call(33))


# ---- batch totals across tables and duplicates by value ----------------------------------------

def test_batch_write_counts_25_requests_across_all_tables(ddb, t):
    h, c = t["h"], t["c"]
    puts = lambda table, n, tag: [{"PutRequest": {"Item": {"pk": S(f"{tag}{i}"), "sk": S("s")}
                                                  if table == c else {"pk": S(f"{tag}{i}")}}}
                                  for i in range(n)]
    ddb.batch_write_item(RequestItems={h: puts(h, 12, "b25-"), c: puts(c, 13, "b25-")})
    assert_error(ddb.batch_write_item, V, "Too many items requested for the BatchWriteItem call",
                 RequestItems={h: puts(h, 13, "b26-"), c: puts(c, 13, "b26-")})
    assert get(ddb, h, {"pk": S("b26-0")}) is None


def test_numerically_equal_keys_are_duplicates_in_batches_and_transactions(ddb, t):
    n = t["n"]
    assert_error(ddb.batch_write_item, V, DUPLICATES, RequestItems={n: [
        {"PutRequest": {"Item": {"pk": N("1")}}}, {"PutRequest": {"Item": {"pk": N("1.00")}}}]})
    assert_error(ddb.transact_write_items, V,
                 "Transaction request cannot include multiple operations on one item",
                 TransactItems=[{"Put": {"TableName": n, "Item": {"pk": N("1")}}},
                                {"Put": {"TableName": n, "Item": {"pk": N("10E-1")}}}])
    assert get(ddb, n, {"pk": N("1")}) is None


# ---- numbers: 38 digits, 1E-130 .. 9.99...E+125 ------------------------------------------------

def test_number_keys_at_the_range_limits_round_trip(ddb, t):
    n = t["n"]
    for value, stored in ((MAX_N, "9" * 38 + "0" * 88), ("-" + MAX_N, "-" + "9" * 38 + "0" * 88),
                          ("1E-130", "0." + "0" * 129 + "1"), (DIGITS_38, DIGITS_38)):
        ddb.put_item(TableName=n, Item={"pk": N(value)})
        assert get(ddb, n, {"pk": N(value)}) == {"pk": N(stored)}


@pytest.mark.parametrize("value,message", [
    ("123456789012345678901234567890123456789", TOO_PRECISE),
    ("1E+126", OVERFLOW), ("1E-131", UNDERFLOW),
])
def test_number_limits_apply_to_hash_and_sort_keys(ddb, t, value, message):
    assert_error(ddb.put_item, V, message, TableName=t["n"], Item={"pk": N(value)})
    assert_error(ddb.get_item, V, message, TableName=t["n"], Key={"pk": N(value)})
    assert_error(ddb.put_item, V, message, TableName=t["cn"], Item={"pk": S("a"), "sk": N(value)})


def test_leading_and_trailing_zeros_do_not_count_as_significant_digits(ddb, t):
    h = t["h"]
    item = {"pk": S("zeros"), "a": N("0000000" + DIGITS_38), "b": N("0." + "0" * 20 + DIGITS_38 +
                                                                    "000000"),
            "c": N(DIGITS_38 + "0" * 50), "d": N("-" + DIGITS_38[:20] + "." + DIGITS_38[20:] + "00")}
    ddb.put_item(TableName=h, Item=item)
    got = get(ddb, h, {"pk": S("zeros")})
    assert got["a"] == N(DIGITS_38)
    assert got["b"] == N("0." + "0" * 20 + DIGITS_38)
    assert got["c"] == N(DIGITS_38 + "0" * 50)
    assert got["d"] == N("-" + DIGITS_38[:20] + "." + DIGITS_38[20:])


def test_expression_attribute_value_numbers_are_checked(ddb, t):
    h = t["h"]
    for expr, value, message in (
            ("SET v = :v", N("1" + DIGITS_38), TOO_PRECISE),
            ("ADD s :v", {"NS": ["1" + DIGITS_38]}, TOO_PRECISE),
            ("SET v = :v", N("1E+126"), OVERFLOW)):
        assert_error(ddb.update_item, V, "ExpressionAttributeValues contains invalid value: "
                     f"{message} for key :v", TableName=h, Key={"pk": S("eavn")},
                     UpdateExpression=expr, ExpressionAttributeValues={":v": value})
    assert get(ddb, h, {"pk": S("eavn")}) is None


@pytest.mark.parametrize("start,expr,delta,message", [
    # A result past 38 digits is answered with the overflow text, however small (the service's
    # answer to 1e50 - 1: ScyllaDB's Alternator test_update_expression_plus_imprecise).
    (DIGITS_38, "ADD n :d", "0.1", OVERFLOW),
    (DIGITS_38, "SET n = n + :d", "0.1", OVERFLOW),
    ("1E+100", "ADD n :d", "1", OVERFLOW),
    ("-9E+125", "ADD n :d", "-9E+125", OVERFLOW),
    (MAX_N, "SET n = n + :d", "1E+88", OVERFLOW),
    ("1.1E-130", "SET n = n - :d", "1E-130", UNDERFLOW),
], ids=["add-precision", "set-precision", "big-plus-one", "negative-overflow", "max-plus",
        "underflow"])
def test_update_arithmetic_past_the_number_limits_is_refused(ddb, t, start, expr, delta, message):
    h = t["h"]
    key = {"pk": S(f"arith-{start}-{expr}")}
    ddb.put_item(TableName=h, Item={**key, "n": N(start)})
    assert_error(ddb.update_item, V, message, TableName=h, Key=key, UpdateExpression=expr,
                 ExpressionAttributeValues={":d": N(delta)})
    assert Decimal(get(ddb, h, key)["n"]["N"]) == Decimal(start)


def test_update_arithmetic_carrying_into_a_39th_digit_position_is_fine(ddb, t):
    # 99...9 (38 nines) + 1 = 1E+38: one significant digit, not 39.
    h = t["h"]
    key = {"pk": S("carry")}
    ddb.put_item(TableName=h, Item={**key, "n": N("9" * 38)})
    out = ddb.update_item(TableName=h, Key=key, UpdateExpression="SET n = n + :d",
                          ExpressionAttributeValues={":d": N(1)}, ReturnValues="UPDATED_NEW")
    assert out["Attributes"] == {"n": N("1" + "0" * 38)}


# The service's sizes of numbers, measured at the 400 KB gate against eu-west-2 (a conformance
# suite's capture record, tests/tier3/limits/numberByteSize; docs/compatibility.md "Item size").
@pytest.mark.parametrize("literal,cost", [
    ("0", 1), ("1", 2), ("123", 3), ("1234", 3), ("100", 2), ("1010", 3), ("0.0000001", 2),
    ("1E125", 2), ("1.5", 3), ("15", 2), ("1.200", 3), ("1.234", 4), ("3.14159", 5),
    ("123456", 4), ("100.5", 4), ("0.15", 2), ("-42", 3), ("-0", 1),
])
def test_number_sizes_at_the_item_size_gate(ddb, t, literal, cost):
    h = t["h"]
    gate = 409_600

    def item(pk: str, total: int) -> dict:
        pad = total - (2 + len(pk)) - (1 + cost) - 1
        return {"pk": S(pk), "n": {"N": literal}, "p": S("x" * pad)}

    ddb.put_item(TableName=h, Item=item("nbs-at", gate))
    assert_error(ddb.put_item, V, "Item size has exceeded the maximum allowed size",
                 TableName=h, Item=item("nbs-over", gate + 1))
