"""Expression limits at their exact boundaries, as the service words them (messages checked
against DynamoDB Local, which shares the service's expression front end): 4 KB per expression of
every kind, 300 operators, 100 IN operands, 32 levels of document path, 64 KB attribute names in
ExpressionAttributeNames. Each refused request must leave the table untouched."""

from __future__ import annotations

import pytest

from e2e_util import assert_error, create_table

V = {":v": {"S": "x"}}


@pytest.fixture
def table(ddb, table_name):
    create_table(ddb, table_name)
    ddb.put_item(TableName=table_name, Item={"pk": {"S": "a"}, "n": {"N": "1"}})
    return table_name


def _padded(core: str, size: int) -> str:
    """`core` followed by spaces up to exactly `size` bytes."""
    assert len(core) <= size
    return core + " " * (size - len(core))


def _size_error(kind: str, size: int) -> str:
    # Only conditions quote the size: the real service says "...maximum allowed size;" for an
    # UpdateExpression (aws/aws-sdk-java-v2#4597), DynamoDB Local likewise for Projection.
    if kind in ("UpdateExpression", "ProjectionExpression"):
        return f"Invalid {kind}: Expression size has exceeded the maximum allowed size;"
    return (f"Invalid {kind}: Expression size has exceeded the maximum allowed size; "
            f"expression size: {size}")


def test_condition_expression_of_4096_bytes_passes_and_4097_fails(ddb, table):
    ok = _padded("attribute_exists(pk)", 4096)
    ddb.put_item(TableName=table, Item={"pk": {"S": "a"}, "n": {"N": "2"}}, ConditionExpression=ok)
    assert_error(ddb.put_item, "ValidationException", _size_error("ConditionExpression", 4097),
                 TableName=table, Item={"pk": {"S": "a"}, "n": {"N": "3"}},
                 ConditionExpression=ok + " ")
    assert ddb.get_item(TableName=table, Key={"pk": {"S": "a"}})["Item"]["n"] == {"N": "2"}


@pytest.mark.parametrize("kind", ["UpdateExpression", "ProjectionExpression",
                                  "FilterExpression", "KeyConditionExpression"])
def test_every_expression_kind_is_capped_at_4_kb(ddb, table, kind):
    core = {"UpdateExpression": "SET n = :one", "ProjectionExpression": "n",
            "FilterExpression": "n = :one", "KeyConditionExpression": "pk = :a"}[kind]
    values = {":one": {"N": "1"}} if ":one" in core else {":a": {"S": "a"}} if ":a" in core else None

    def call(text):
        if kind == "UpdateExpression":
            return ddb.update_item, dict(TableName=table, Key={"pk": {"S": "a"}},
                                         UpdateExpression=text, ExpressionAttributeValues=values)
        if kind == "ProjectionExpression":
            return ddb.get_item, dict(TableName=table, Key={"pk": {"S": "a"}},
                                      ProjectionExpression=text)
        if kind == "FilterExpression":
            return ddb.scan, dict(TableName=table, FilterExpression=text,
                                  ExpressionAttributeValues=values)
        return ddb.query, dict(TableName=table, KeyConditionExpression=text,
                               ExpressionAttributeValues=values)

    fn, kwargs = call(_padded(core, 4096))
    fn(**kwargs)
    fn, kwargs = call(_padded(core, 4097))
    assert_error(fn, "ValidationException", _size_error(kind, 4097), **kwargs)


TOO_MANY = "The expression contains too many operators; operator count: 301"


@pytest.mark.parametrize("n,ok", [(150, True), (151, False)])
def test_condition_of_300_operators_passes_and_301_fails(ddb, table, n, ok):
    # n function calls joined by n-1 ORs: 2n-1 operators.
    text = " OR ".join(["attribute_exists(pk)"] * n)
    if ok:
        ddb.put_item(TableName=table, Item={"pk": {"S": "a"}, "n": {"N": "9"}},
                     ConditionExpression=text)
        return
    assert_error(ddb.put_item, "ValidationException", "Invalid ConditionExpression: " + TOO_MANY,
                 TableName=table, Item={"pk": {"S": "a"}, "n": {"N": "9"}},
                 ConditionExpression=text)
    assert ddb.get_item(TableName=table, Key={"pk": {"S": "a"}})["Item"]["n"] == {"N": "1"}


def test_filter_operators_count_comparisons_between_and_logic(ddb, table):
    ddb.scan(TableName=table, ExpressionAttributeValues=V,
             FilterExpression=" OR ".join(["pk BETWEEN :v AND :v"] * 150))
    assert_error(ddb.scan, "ValidationException", "Invalid FilterExpression: " + TOO_MANY,
                 TableName=table, ExpressionAttributeValues=V,
                 FilterExpression=" OR ".join(["pk BETWEEN :v AND :v"] * 151))
    assert_error(ddb.scan, "ValidationException", "Invalid FilterExpression: " + TOO_MANY,
                 TableName=table, ExpressionAttributeValues=V,
                 FilterExpression=" AND ".join(["pk = :v"] * 151))


def test_in_takes_100_operands_not_101(ddb, table):
    ddb.scan(TableName=table, ExpressionAttributeValues=V,
             FilterExpression="pk IN (" + ",".join([":v"] * 100) + ")")
    assert_error(ddb.scan, "ValidationException",
                 "Invalid FilterExpression: The IN operator is provided with too many operands; "
                 "number of operands: 101",
                 TableName=table, ExpressionAttributeValues=V,
                 FilterExpression="pk IN (" + ",".join([":v"] * 101) + ")")


def test_document_path_of_32_levels_passes_and_33_fails(ddb, table):
    ddb.get_item(TableName=table, Key={"pk": {"S": "a"}}, ProjectionExpression=".".join(["m"] * 32))
    assert_error(ddb.get_item, "ValidationException",
                 "Invalid ProjectionExpression: The document path has too many nesting levels; "
                 "nesting levels: 33",
                 TableName=table, Key={"pk": {"S": "a"}}, ProjectionExpression=".".join(["m"] * 33))


def test_expression_attribute_name_of_64_kb_is_refused(ddb, table):
    ddb.get_item(TableName=table, Key={"pk": {"S": "a"}}, ProjectionExpression="#n",
                 ExpressionAttributeNames={"#n": "n" * 65535})
    assert_error(ddb.get_item, "ValidationException",
                 "ExpressionAttributeNames contains invalid value: Attribute name is too large, "
                 "must be less than 65536 bytes for key #n",
                 TableName=table, Key={"pk": {"S": "a"}}, ProjectionExpression="#n",
                 ExpressionAttributeNames={"#n": "n" * 65536})
