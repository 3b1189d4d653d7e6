"""TransactWriteItems (atomicity, cancellation reasons, ClientRequestToken) and TransactGetItems.

Exact messages: conformance tier3/error-messages/transactWriteItems, transactGetItems and
conditionalCheck (authoritative); tier2/transactions for behaviour.
"""
from __future__ import annotations

import re
import time
import uuid

import pytest

from dataplane_util import N, S, cancel_reasons, drop_table, get, make_table, tx_cancelled_message
from e2e_util import ServerProcess, assert_error, ddb_error, make_client, metric, unique_name

V = "ValidationException"
CANCELLED = "TransactionCanceledException"
MULTIPLE_OPS = "Transaction request cannot include multiple operations on one item"


@pytest.fixture(scope="module")
def tables(ddb):
    h = make_table(ddb, unique_name("txh"))
    c = make_table(ddb, unique_name("txc"), range_key=("sk", "N"))
    yield {"h": h, "c": c}
    drop_table(ddb, h)
    drop_table(ddb, c)


_ids = iter(range(1_000_000))


def k(prefix="t") -> dict:
    return {"pk": S(f"{prefix}{next(_ids)}")}


def add_counter(table, key, by=1) -> dict:
    return {"Update": {"TableName": table, "Key": key, "UpdateExpression": "ADD #c :n",
                       "ExpressionAttributeNames": {"#c": "counter"},
                       "ExpressionAttributeValues": {":n": N(by)}}}


def snapshot(ddb, table) -> tuple:
    items = ddb.scan(TableName=table, ConsistentRead=True)["Items"]
    count = ddb.describe_table(TableName=table)["Table"]["ItemCount"]
    return count, sorted(map(repr, items))


# ---- TransactWriteItems --------------------------------------------------------------------------

def test_put_update_delete_and_condition_check_commit_together(ddb, tables):
    h, c = tables["h"], tables["c"]
    upd, gone, witness, new = k(), k(), k(), k()
    for key in (upd, gone):
        ddb.put_item(TableName=h, Item={**key, "v": S("before")})
    ddb.put_item(TableName=h, Item={**witness, "st": S("ok")})
    ddb.transact_write_items(TransactItems=[
        {"Put": {"TableName": h, "Item": {**new, "v": S("created")},
                 "ConditionExpression": "attribute_not_exists(pk)"}},
        {"Update": {"TableName": h, "Key": upd, "UpdateExpression": "SET v = :v",
                    "ExpressionAttributeValues": {":v": S("after")}}},
        {"Delete": {"TableName": h, "Key": gone}},
        {"ConditionCheck": {"TableName": h, "Key": witness, "ConditionExpression": "st = :ok",
                            "ExpressionAttributeValues": {":ok": S("ok")}}},
        {"Put": {"TableName": c, "Item": {"pk": S("x"), "sk": N(1)}}},
    ])
    assert get(ddb, h, new) == {**new, "v": S("created")}
    assert get(ddb, h, upd) == {**upd, "v": S("after")}
    assert get(ddb, h, gone) is None
    assert get(ddb, c, {"pk": S("x"), "sk": N(1)}) is not None


def test_cancelled_transaction_leaves_no_trace(ddb, tables):
    h = tables["h"]
    counter, victim, witness, new = k(), k(), k(), k()
    ddb.put_item(TableName=h, Item={**counter, "counter": N(10)})
    ddb.put_item(TableName=h, Item={**victim, "v": S("keep")})
    ddb.put_item(TableName=h, Item={**witness, "st": S("locked")})
    before = snapshot(ddb, h)
    e = ddb_error(ddb.transact_write_items, TransactItems=[
        {"Put": {"TableName": h, "Item": {**new, "v": S("never")}}},
        add_counter(h, counter),
        {"Delete": {"TableName": h, "Key": victim}},
        {"ConditionCheck": {"TableName": h, "Key": witness, "ConditionExpression": "st = :open",
                            "ExpressionAttributeValues": {":open": S("open")}}},
    ])
    codes = ["None", "None", "None", "ConditionalCheckFailed"]
    assert (e.code, e.message) == (CANCELLED, tx_cancelled_message(codes))
    assert [r["Code"] for r in cancel_reasons(e)] == codes
    assert cancel_reasons(e)[3]["Message"] == "The conditional request failed"
    assert get(ddb, h, new) is None
    assert get(ddb, h, counter)["counter"] == N(10)
    assert get(ddb, h, victim) == {**victim, "v": S("keep")}
    assert snapshot(ddb, h) == before


def test_every_failing_action_is_reported_in_order(ddb, tables):
    h = tables["h"]
    a, b, fresh = k(), k(), k()
    for key in (a, b):
        ddb.put_item(TableName=h, Item={**key, "v": S("exists")})
    e = ddb_error(ddb.transact_write_items, TransactItems=[
        {"Put": {"TableName": h, "Item": {**a, "v": S("over")},
                 "ConditionExpression": "attribute_not_exists(pk)"}},
        {"Put": {"TableName": h, "Item": {**fresh},
                 "ConditionExpression": "attribute_not_exists(pk)"}},
        {"Update": {"TableName": h, "Key": b, "UpdateExpression": "SET v = :v",
                    "ConditionExpression": "v = :other",
                    "ExpressionAttributeValues": {":v": S("x"), ":other": S("other")}}},
    ])
    codes = ["ConditionalCheckFailed", "None", "ConditionalCheckFailed"]
    assert (e.code, e.message) == (CANCELLED, tx_cancelled_message(codes))
    assert [r["Code"] for r in cancel_reasons(e)] == codes
    assert get(ddb, h, fresh) is None


def test_return_values_on_condition_check_failure_in_a_transaction(ddb, tables):
    h = tables["h"]
    key = k()
    ddb.put_item(TableName=h, Item={**key, "data": S("original")})
    e = ddb_error(ddb.transact_write_items, TransactItems=[
        {"Put": {"TableName": h, "Item": {**key, "data": S("new")},
                 "ConditionExpression": "attribute_not_exists(pk)",
                 "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}}])
    reason = cancel_reasons(e)[0]
    assert reason["Code"] == "ConditionalCheckFailed"
    assert reason["Item"] == {**key, "data": S("original")}


def test_update_condition_on_missing_item_cancels_without_ghost(ddb, tables):
    h = tables["h"]
    key = k()
    e = ddb_error(ddb.transact_write_items, TransactItems=[
        {"Update": {"TableName": h, "Key": key, "UpdateExpression": "SET st = :v",
                    "ConditionExpression": "attribute_exists(pk)",
                    "ExpressionAttributeValues": {":v": S("x")}}}])
    assert [r["Code"] for r in cancel_reasons(e)] == ["ConditionalCheckFailed"]
    assert get(ddb, h, key) is None


def test_transact_write_two_actions_on_one_item(ddb, tables):
    h = tables["h"]
    key = k()
    assert_error(ddb.transact_write_items, V, MULTIPLE_OPS, TransactItems=[
        {"Put": {"TableName": h, "Item": key}}, add_counter(h, key)])
    assert get(ddb, h, key) is None


def test_transact_write_empty(ddb):
    assert_error(ddb.transact_write_items, V, "1 validation error detected: Value '[]' at "
                 "'transactItems' failed to satisfy constraint: Member must have length greater "
                 "than or equal to 1", TransactItems=[])


def test_transact_write_101_actions_and_missing_table(ddb, tables):
    h = tables["h"]
    key = k()
    e = ddb_error(ddb.transact_write_items, TransactItems=[
        {"Put": {"TableName": h, "Item": {"pk": S(f"tw101-{i}")}}} for i in range(101)])
    assert e.code == V
    assert re.match(r"^1 validation error detected: Value '\[.+\]' at 'transactItems' failed to "
                    r"satisfy constraint: Member must have length less than or equal to 100$",
                    e.message, re.S), e.message
    assert get(ddb, h, {"pk": S("tw101-0")}) is None
    assert_error(ddb.transact_write_items, "ResourceNotFoundException",
                 "Requested resource not found",
                 TransactItems=[{"Put": {"TableName": unique_name("nope"), "Item": key}}])


def test_100_actions_are_accepted(ddb, tables):
    c = tables["c"]
    ddb.transact_write_items(TransactItems=[
        {"Put": {"TableName": c, "Item": {"pk": S("hundred"), "sk": N(i)}}} for i in range(100)])
    out = ddb.query(TableName=c, KeyConditionExpression="pk = :p", Select="COUNT",
                    ExpressionAttributeValues={":p": S("hundred")})
    assert out["Count"] == 100


# ---- ClientRequestToken --------------------------------------------------------------------------

def test_client_request_token_replay_applies_once(ddb, tables):
    h = tables["h"]
    key, other = k(), k()
    token = str(uuid.uuid4())
    request = dict(ClientRequestToken=token, TransactItems=[
        add_counter(h, key), {"Put": {"TableName": h, "Item": {**other, "v": S("1")}}}])
    for _ in range(3):
        ddb.transact_write_items(**request)
    assert get(ddb, h, key)["counter"] == N(1)
    # Still a replay after someone else changed the item: nothing is applied again.
    ddb.put_item(TableName=h, Item={**other, "v": S("changed")})
    ddb.transact_write_items(**request)
    assert get(ddb, h, key)["counter"] == N(1)
    assert get(ddb, h, other)["v"] == S("changed")
    # A new token is a new transaction.
    ddb.transact_write_items(ClientRequestToken=str(uuid.uuid4()),
                             TransactItems=request["TransactItems"])
    assert get(ddb, h, key)["counter"] == N(2)


def test_client_request_token_with_a_different_request_is_a_mismatch(ddb, tables):
    h = tables["h"]
    key = k()
    token = str(uuid.uuid4())
    ddb.transact_write_items(ClientRequestToken=token, TransactItems=[add_counter(h, key)])
    e = ddb_error(ddb.transact_write_items, ClientRequestToken=token,
                  TransactItems=[add_counter(h, key, by=2)])
    assert e.code == "IdempotentParameterMismatchException"
    assert e.status == 400
    assert get(ddb, h, key)["counter"] == N(1)


def test_client_request_token_survives_a_restart_and_expires_after_ten_minutes(tmp_path):
    """The token's record is in the store with the transaction's writes (ops/request_tokens.h):
    a repeat after a restart applies nothing; a first server whose clock ran 11 minutes behind
    left a record already past its time, which the trimmer removes and which no longer binds."""
    data = tmp_path / "data"
    eleven_minutes_ago = int(time.time() * 1000) - 11 * 60 * 1000
    srv = ServerProcess(data, tmp_path / "a.log", ["--clock-start-ms", str(eleven_minutes_ago)]).start()
    try:
        ddb = make_client(srv.endpoint)
        h = make_table(ddb, unique_name("txr"))
        key = k()
        old_token, token = str(uuid.uuid4()), str(uuid.uuid4())
        ddb.transact_write_items(ClientRequestToken=old_token, TransactItems=[add_counter(h, key)])
    finally:
        assert srv.stop() == 0
    srv = ServerProcess(data, tmp_path / "b.log").start()
    try:
        ddb = make_client(srv.endpoint)
        # The old token's record was past its time at the start: the trimmer's first pass.
        deadline = time.monotonic() + 20
        while metric(srv, "ttlstore_request_tokens_trimmed_total") < 1:
            assert time.monotonic() < deadline, "the expired token record was not trimmed"
            time.sleep(0.1)
        ddb.transact_write_items(ClientRequestToken=token, TransactItems=[add_counter(h, key)])
        assert get(ddb, h, key)["counter"] == N(2)
    finally:
        assert srv.stop() == 0
    srv = ServerProcess(data, tmp_path / "c.log").start()
    try:
        ddb = make_client(srv.endpoint)
        # After a restart the repeat is still recognised: nothing applied again, and the
        # answer's capacity is the read of the item (the API reference on repeats).
        out = ddb.transact_write_items(ClientRequestToken=token, ReturnConsumedCapacity="TOTAL",
                                       TransactItems=[add_counter(h, key)])
        assert out["ConsumedCapacity"] == [{"TableName": h, "CapacityUnits": 1.0}]
        assert get(ddb, h, key)["counter"] == N(2)
        e = ddb_error(ddb.transact_write_items, ClientRequestToken=token,
                      TransactItems=[add_counter(h, key, by=5)])
        assert e.code == "IdempotentParameterMismatchException"
        # An expired token is a new one, whatever request it carries.
        ddb.transact_write_items(ClientRequestToken=old_token,
                                 TransactItems=[add_counter(h, key, by=5)])
        assert get(ddb, h, key)["counter"] == N(7)
    finally:
        assert srv.stop() == 0


def test_requests_without_token_are_never_deduplicated(ddb, tables):
    h = tables["h"]
    key = k()
    for _ in range(3):
        ddb.transact_write_items(TransactItems=[add_counter(h, key)])
    assert get(ddb, h, key)["counter"] == N(3)


# ---- TransactGetItems ----------------------------------------------------------------------------

def test_transact_get_items(ddb, tables):
    h, c = tables["h"], tables["c"]
    a, b, missing = k(), k(), k()
    ddb.put_item(TableName=h, Item={**a, "x": N(1), "y": S("why")})
    ddb.put_item(TableName=h, Item={**b, "x": N(2)})
    ddb.put_item(TableName=c, Item={"pk": S("tg"), "sk": N(1), "z": S("zed")})
    out = ddb.transact_get_items(TransactItems=[
        {"Get": {"TableName": h, "Key": a}},
        {"Get": {"TableName": h, "Key": missing}},
        {"Get": {"TableName": h, "Key": b, "ProjectionExpression": "#x",
                 "ExpressionAttributeNames": {"#x": "x"}}},
        {"Get": {"TableName": c, "Key": {"pk": S("tg"), "sk": N(1)}}},
    ])
    r = out["Responses"]
    assert len(r) == 4
    assert r[0]["Item"] == {**a, "x": N(1), "y": S("why")}
    assert not r[1].get("Item")
    assert r[2]["Item"] == {"x": N(2)}
    assert r[3]["Item"] == {"pk": S("tg"), "sk": N(1), "z": S("zed")}


def test_transact_get_empty(ddb):
    assert_error(ddb.transact_get_items, V, "1 validation error detected: Value '[]' at "
                 "'transactItems' failed to satisfy constraint: Member must have length greater "
                 "than or equal to 1", TransactItems=[])


def test_transact_get_errors(ddb, tables):
    h = tables["h"]
    assert_error(ddb.transact_get_items, "ResourceNotFoundException",
                 "Requested resource not found",
                 TransactItems=[{"Get": {"TableName": unique_name("nope"), "Key": k()}}])
    assert_error(ddb.transact_get_items, V, 'Invalid ProjectionExpression: Syntax error; token: '
                 '"!", near: "!!"', TransactItems=[
                     {"Get": {"TableName": h, "Key": k(), "ProjectionExpression": "!!!"}}])
    e = ddb_error(ddb.transact_get_items, TransactItems=[{"Get": {"TableName": h, "Key": {}}}])
    assert (e.code, e.message) == (CANCELLED, tx_cancelled_message(["ValidationError"]))
    assert [r["Code"] for r in cancel_reasons(e)] == ["ValidationError"]
    e = ddb_error(ddb.transact_get_items, TransactItems=[
        {"Get": {"TableName": h, "Key": {"pk": S(f"g{i}")}}} for i in range(101)])
    assert e.code == V
    assert re.match(r"^1 validation error detected: Value '\[.+\]' at 'transactItems' failed to "
                    r"satisfy constraint: Member must have length less than or equal to 100$",
                    e.message, re.S), e.message


def test_transact_get_the_same_item_twice_is_rejected(ddb, tables):
    h = tables["h"]
    key = k()
    ddb.put_item(TableName=h, Item=key)
    assert_error(ddb.transact_get_items, V, MULTIPLE_OPS, TransactItems=[
        {"Get": {"TableName": h, "Key": key}}, {"Get": {"TableName": h, "Key": key}}])


# ---- validation inside a transaction (issue 18) ---------------------------------------------------
# Alternator's test_transact.py, run against the service: per-action validation happens before any
# condition is evaluated and only the first invalid action is named; a bad enum or an empty index
# key fails the whole request. Conformance tier3/error-messages/transactWriteItems for the texts.

def test_only_the_first_invalid_action_is_named(ddb, tables):
    h = tables["h"]
    fresh = k()
    e = ddb_error(ddb.transact_write_items, TransactItems=[
        {"Put": {"TableName": h, "Item": {"pk": N(7)}}},
        {"Put": {"TableName": h, "Item": {"pk": N(8)}}},
        {"Put": {"TableName": h, "Item": fresh, "ConditionExpression": "attribute_exists(pk)"}},
    ])
    codes = ["ValidationError", "None", "None"]
    assert (e.code, e.message) == (CANCELLED, tx_cancelled_message(codes))
    assert cancel_reasons(e) == [
        {"Code": "ValidationError", "Message": "One or more parameter values were invalid: "
         "Type mismatch for key pk expected: S actual: N"},
        {"Code": "None"}, {"Code": "None"}]
    assert get(ddb, h, fresh) is None


def test_transact_get_names_only_the_first_invalid_key(ddb, tables):
    h = tables["h"]
    e = ddb_error(ddb.transact_get_items, TransactItems=[
        {"Get": {"TableName": h, "Key": {"pk": N(1)}}},
        {"Get": {"TableName": h, "Key": {"pk": N(2)}}}])
    assert cancel_reasons(e) == [
        {"Code": "ValidationError", "Message": "The provided key element does not match the schema"},
        {"Code": "None"}]


@pytest.mark.parametrize("kind", ["Update", "Delete", "ConditionCheck"])
def test_return_values_on_condition_check_failure_per_action_kind(ddb, tables, kind):
    h = tables["h"]
    key, missing = k(), k()
    ddb.put_item(TableName=h, Item={**key, "v": N(42)})

    def action(target, mode):
        spec = {"TableName": h, "Key": target, "ConditionExpression": "v = :no",
                "ExpressionAttributeValues": {":no": N(43)},
                "ReturnValuesOnConditionCheckFailure": mode}
        if kind == "Update":
            spec["UpdateExpression"] = "SET w = :no"
        return {kind: spec}

    e = ddb_error(ddb.transact_write_items,
                  TransactItems=[action(key, "ALL_OLD"), action(missing, "ALL_OLD")])
    assert cancel_reasons(e) == [
        {"Code": "ConditionalCheckFailed", "Message": "The conditional request failed",
         "Item": {**key, "v": N(42)}},
        # The item does not exist: nothing to return.
        {"Code": "ConditionalCheckFailed", "Message": "The conditional request failed"}]
    e = ddb_error(ddb.transact_write_items, TransactItems=[action(key, "NONE")])
    assert cancel_reasons(e) == [{"Code": "ConditionalCheckFailed",
                                  "Message": "The conditional request failed"}]
    assert get(ddb, h, key) == {**key, "v": N(42)}


@pytest.mark.parametrize("value", ["none", "DOG", "UPDATED_OLD"])
def test_bad_return_values_on_condition_check_failure_fails_the_request(ddb, tables, value):
    h = tables["h"]
    key = k()
    assert_error(ddb.transact_write_items, V,
                 f"1 validation error detected: Value '{value}' at "
                 "'transactItems.2.member.delete.returnValuesOnConditionCheckFailure' failed to "
                 "satisfy constraint: Member must satisfy enum value set: [ALL_OLD, NONE]",
                 TransactItems=[
                     {"Put": {"TableName": h, "Item": key}},
                     {"Delete": {"TableName": h, "Key": k(),
                                 "ReturnValuesOnConditionCheckFailure": value}}])
    assert get(ddb, h, key) is None


@pytest.fixture(scope="module")
def gsi_table(ddb):
    name = unique_name("txgsi")
    ddb.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                              {"AttributeName": "g", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        GlobalSecondaryIndexes=[{"IndexName": "by_g",
                                 "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                                 "Projection": {"ProjectionType": "ALL"}}])
    yield name
    drop_table(ddb, name)


EMPTY_INDEX_KEY_PUT = ("One or more parameter values are not valid. A value specified for a "
                       "secondary index key is not supported. The AttributeValue for a key "
                       "attribute cannot contain an empty string value. IndexName: by_g, "
                       "IndexKey: g")
EMPTY_INDEX_KEY_UPDATE = ("One or more parameter values are not valid. The update expression "
                          "attempted to update a secondary index key to a value that is not "
                          "supported. The AttributeValue for a key attribute cannot contain an "
                          "empty string value.")


def test_empty_index_key_value_fails_the_whole_transaction(ddb, gsi_table):
    key = k()
    assert_error(ddb.transact_write_items, V, EMPTY_INDEX_KEY_PUT, TransactItems=[
        {"Put": {"TableName": gsi_table, "Item": {**key, "g": S("")}}}])
    assert_error(ddb.transact_write_items, V, EMPTY_INDEX_KEY_UPDATE, TransactItems=[
        {"Put": {"TableName": gsi_table, "Item": k()}},
        {"Update": {"TableName": gsi_table, "Key": key, "UpdateExpression": "SET g = :e",
                    "ExpressionAttributeValues": {":e": S("")}}}])
    assert get(ddb, gsi_table, key) is None
    # A wrong type only cancels it.
    e = ddb_error(ddb.transact_write_items, TransactItems=[
        {"Put": {"TableName": gsi_table, "Item": {**key, "g": N(1)}}}])
    assert cancel_reasons(e) == [{"Code": "ValidationError", "Message": "One or more parameter "
                                  "values were invalid: Type mismatch for Index Key g Expected: "
                                  "S Actual: N IndexName: by_g"}]


def test_update_item_words_an_empty_index_key_as_an_update(ddb, gsi_table):
    key = k()
    assert_error(ddb.update_item, V, EMPTY_INDEX_KEY_UPDATE, TableName=gsi_table, Key=key,
                 UpdateExpression="SET g = :e", ExpressionAttributeValues={":e": S("")})
    assert_error(ddb.put_item, V, EMPTY_INDEX_KEY_PUT, TableName=gsi_table,
                 Item={**key, "g": S("")})
    assert get(ddb, gsi_table, key) is None
