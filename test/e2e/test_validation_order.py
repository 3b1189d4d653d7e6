"""What the service checks before it looks up a table, and how it names what it refuses: batch
table names and key shapes, transactions validated whole before any lookup, and the members
the service names. Every expectation is the service's answer as captured against real DynamoDB
(eu-west-2, 2026) in a public conformance suite's tier3 files (error-messages/batchGetItem,
batchWriteItem, transactGetItems, transactWriteItems; validation-ordering/batchOperations,
deepRequests, transactions); docs/compatibility.md, "Validation before lookup".
"""
from __future__ import annotations

import pytest

from e2e_util import assert_error, create_table, ddb_error, unique_name

V = "ValidationException"
MAP_KEYS = ("' at 'requestItems' failed to satisfy constraint: Map keys must satisfy constraint: "
            "[Member must have length less than or equal to 255, Member must have length greater "
            "than or equal to 3, Member must satisfy regular expression pattern: "
            "[a-zA-Z0-9_.-]+]")
RCC = ("Value 'BOGUS' at 'returnConsumedCapacity' failed to satisfy constraint: Member must "
       "satisfy enum value set: [INDEXES, TOTAL, NONE]")


def S(v: str) -> dict:
    return {"S": v}


@pytest.fixture(scope="module")
def table(ddb):
    name = unique_name("vo")
    create_table(ddb, name)
    yield name
    ddb.delete_table(TableName=name)


def test_batch_table_names_are_checked_before_lookup(ddb):
    assert_error(ddb.batch_get_item, V,
                 "1 validation error detected: Value '{\"bad!name\":{\"Keys\":[{\"pk\":{\"S\":\"a\"}}]}}"
                 + MAP_KEYS, RequestItems={"bad!name": {"Keys": [{"pk": S("a")}]}})
    assert_error(ddb.batch_get_item, V,
                 "2 validation errors detected: Value '{\"bad!name\":{\"Keys\":[{\"pk\":{\"S\":\"a\"}}]}}"
                 + MAP_KEYS + "; " + RCC,
                 RequestItems={"bad!name": {"Keys": [{"pk": S("a")}]}}, ReturnConsumedCapacity="BOGUS")
    err = ddb_error(ddb.batch_write_item,
                    RequestItems={"bad!name": [{"PutRequest": {"Item": {"pk": S("a")}}}]})
    assert err.code == V
    assert err.message.startswith("1 validation error detected: Value '{bad!name=[WriteRequest("
                                  "putRequest=PutRequest(item={pk=")
    assert err.message.endswith(MAP_KEYS)


def test_batch_key_shapes_and_projections(ddb, table):
    schema = "The provided key element does not match the schema"
    for item in [{"pk": {"N": "5"}}, {"pk": {"L": [S("a")]}}, {"other": S("x")}]:
        assert_error(ddb.batch_write_item, V, schema,
                     RequestItems={table: [{"PutRequest": {"Item": item}}]})
    assert_error(ddb.batch_get_item, V,
                 f"1 validation error detected: Value at 'RequestItems.{table}.member.Keys' failed "
                 "to satisfy constraint: Member must have length greater than or equal to 1",
                 RequestItems={table: {"Keys": []}})
    other = unique_name("vo2")
    create_table(ddb, other)
    try:
        assert_error(ddb.batch_get_item, V,
                     "Can not use both expression and non-expression parameters in the same "
                     "request: Non-expression parameters: {AttributesToGet} Expression parameters: "
                     "{ProjectionExpression}",
                     RequestItems={table: {"Keys": [{"pk": S("a")}], "ProjectionExpression": "pk"},
                                   other: {"Keys": [{"pk": S("a")}], "AttributesToGet": ["pk"]}})
    finally:
        ddb.delete_table(TableName=other)


def test_transactions_name_the_member_and_validate_before_lookup(ddb, table):
    missing = unique_name("absent")
    for i, member, items in [
        (1, "put", [{"Put": {"TableName": "bad!name", "Item": {"pk": S("a")}}}]),
        (2, "update", [{"Put": {"TableName": table, "Item": {"pk": S("a")}}},
                       {"Update": {"TableName": "bad!name", "Key": {"pk": S("b")},
                                   "UpdateExpression": "SET a = :a",
                                   "ExpressionAttributeValues": {":a": S("x")}}}]),
    ]:
        assert_error(ddb.transact_write_items, V,
                     f"1 validation error detected: Value 'bad!name' at 'transactItems.{i}.member."
                     f"{member}.tableName' failed to satisfy constraint: Member must satisfy "
                     "regular expression pattern: [a-zA-Z0-9_.-]+", TransactItems=items)
    assert_error(ddb.transact_get_items, V,
                 "1 validation error detected: Value 'bad!name' at 'transactItems.1.member.get."
                 "tableName' failed to satisfy constraint: Member must satisfy regular expression "
                 "pattern: [a-zA-Z0-9_.-]+",
                 TransactItems=[{"Get": {"TableName": "bad!name", "Key": {"pk": S("a")}}}])
    # A put to a table that does not exist, then a malformed condition: the condition answers.
    assert_error(ddb.transact_write_items, V,
                 'Invalid ConditionExpression: Syntax error; token: "<EOF>", near: "("',
                 TransactItems=[{"Put": {"TableName": missing, "Item": {"pk": S("a")}}},
                                {"ConditionCheck": {"TableName": table, "Key": {"pk": S("b")},
                                                    "ConditionExpression": "attribute_not_exists("}}])
    assert_error(ddb.transact_write_items, V,
                 "Value provided in ExpressionAttributeValues unused in expressions: keys: {:v}",
                 TransactItems=[{"Put": {"TableName": missing, "Item": {"pk": S("a")}}},
                                {"ConditionCheck": {"TableName": table, "Key": {"pk": S("b")},
                                                    "ConditionExpression": "attribute_exists(pk)",
                                                    "ExpressionAttributeValues": {":v": S("x")}}}])
    assert_error(ddb.transact_write_items, V, "Empty attribute name",
                 TransactItems=[{"Put": {"TableName": missing, "Item": {"pk": S("a"), "": S("x")}}}])


def test_transaction_enums_in_the_service_order(ddb, table):
    put = [{"Put": {"TableName": table, "Item": {"pk": S("enum")}}}]
    assert_error(ddb.transact_write_items, V,
                 "1 validation error detected: Value 'BOGUS2' at 'returnItemCollectionMetrics' "
                 "failed to satisfy constraint: Member must satisfy enum value set: [SIZE, NONE]",
                 TransactItems=put, ReturnItemCollectionMetrics="BOGUS2")
    assert "Item" not in ddb.get_item(TableName=table, Key={"pk": S("enum")})
    assert_error(ddb.transact_write_items, V,
                 "2 validation errors detected: " + RCC + "; Value 'BOGUS2' at "
                 "'returnItemCollectionMetrics' failed to satisfy constraint: Member must satisfy "
                 "enum value set: [SIZE, NONE]",
                 TransactItems=put, ReturnConsumedCapacity="BOGUS",
                 ReturnItemCollectionMetrics="BOGUS2")


def test_transaction_action_without_an_operation(ddb):
    assert_error(ddb.transact_write_items, V,
                 "1 validation error detected: Value '' at 'transactItems' failed to satisfy "
                 "constraint: TransactWriteRequest should contain Delete or Put or Update or "
                 "ConditionCheck", TransactItems=[{}])


def test_create_table_reports_global_indexes_before_local_ones(ddb):
    def index(name: str, key: list[tuple[str, str]]) -> dict:
        return {"IndexName": name, "KeySchema": [{"AttributeName": a, "KeyType": k} for a, k in key],
                "Projection": {"ProjectionType": "ALL"}}

    constraint = ("Value '{}' at '{}SecondaryIndexes.1.member.indexName' failed to satisfy "
                  "constraint: Member must have length greater than or equal to 3")
    assert_error(ddb.create_table, V,
                 "2 validation errors detected: " + constraint.format("g1", "global") + "; "
                 + constraint.format("l1", "local"),
                 TableName=unique_name("ord"), BillingMode="PAY_PER_REQUEST",
                 AttributeDefinitions=[{"AttributeName": a, "AttributeType": "S"}
                                       for a in ("pk", "sk", "x")],
                 KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                            {"AttributeName": "sk", "KeyType": "RANGE"}],
                 LocalSecondaryIndexes=[index("l1", [("pk", "HASH"), ("x", "RANGE")])],
                 GlobalSecondaryIndexes=[index("g1", [("x", "HASH")])])


def test_batch_write_reports_its_enums_alone_before_table_names(ddb):
    assert_error(ddb.batch_write_item, V, "1 validation error detected: " + RCC,
                 RequestItems={"bad!name": [{"PutRequest": {"Item": {"pk": S("a")}}}]},
                 ReturnConsumedCapacity="BOGUS")


def test_an_item_is_checked_names_then_depth_then_nested_names(ddb, table):
    """Within one item: an empty top-level name first, however deep another value nests; a
    value nested past the limit before an empty key inside a map (the same capture)."""
    def deep(n: int) -> dict:
        v: dict = {"S": "x"}
        for _ in range(n):
            v = {"L": [v]}
        return v

    nesting = ("Nesting Levels have exceeded supported limits: Attributes in the item have nested "
               "levels beyond supported limit")
    missing = unique_name("absent")
    for item in [{"pk": S("a"), "": S("x"), "d": deep(100)}, {"pk": S("a"), "d": deep(100), "": S("x")}]:
        assert_error(ddb.transact_write_items, V, "Empty attribute name",
                     TransactItems=[{"Put": {"TableName": missing, "Item": item}}])
    assert_error(ddb.transact_write_items, V, nesting,
                 TransactItems=[{"Put": {"TableName": missing, "Item": {
                     "pk": S("a"), "m": {"M": {"": S("x")}}, "d": deep(40)}}}])
    assert_error(ddb.put_item, V, nesting, TableName=table,
                 Item={"pk": S("a"), "m": {"M": {"": S("x")}}, "d": deep(40)})


def test_delete_item_request_refusals_in_the_envelope(ddb, table):
    one = "1 validation error detected: "
    key = {"pk": S("env")}
    for kw, message in [
        (dict(ExpressionAttributeValues={":v": S("x")}),
         "ExpressionAttributeValues can only be specified when using expressions"),
        (dict(ExpressionAttributeNames={"#a": "a"}),
         "ExpressionAttributeNames can only be specified when using expressions"),
        (dict(ConditionExpression="attribute_exists(a)", ExpressionAttributeValues={}),
         "ExpressionAttributeValues must not be empty"),
        (dict(ConditionExpression=""), "Invalid ConditionExpression: The expression can not be empty;"),
        (dict(ReturnValues="ALL_NEW"), "ReturnValues can only be ALL_OLD or NONE"),
        (dict(Expected={"a": {"ComparisonOperator": "BETWEEN", "AttributeValueList": [S("x")]}}),
         "One or more parameter values were invalid: Invalid number of argument(s) for the BETWEEN "
         "ComparisonOperator"),
    ]:
        assert_error(ddb.delete_item, V, one + message, TableName=table, Key=key, **kw)
    # PutItem keeps the older text the public conformance suite pins for this one.
    assert_error(ddb.put_item, V, "ExpressionAttributeValues can only be specified when using "
                 "expressions: ConditionExpression is null", TableName=table, Item=key,
                 ExpressionAttributeValues={":v": S("x")})


def test_query_key_condition_operands_are_checked_before_the_table(ddb):
    assert_error(ddb.query, V,
                 "Invalid KeyConditionExpression: Incorrect operand type for operator or function; "
                 "operator or function: begins_with, operand type: N",
                 TableName=unique_name("absent"),
                 KeyConditionExpression="pk = :p AND begins_with(sk, :n)",
                 ExpressionAttributeValues={":p": S("a"), ":n": {"N": "1"}})
