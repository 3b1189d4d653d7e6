"""GetItem ProjectionExpression / AttributesToGet / ExpressionAttributeNames errors (exact text)."""
from __future__ import annotations

import pytest

from e2e_util import assert_error, create_table, unique_name

V = "ValidationException"
PE = "Invalid ProjectionExpression: "
KEY = {"pk": {"S": "proj"}}


@pytest.fixture(scope="module")
def table(ddb):
    name = unique_name("proj_err")
    create_table(ddb, name)
    ddb.put_item(TableName=name, Item={
        **KEY, "a": {"S": "alpha"}, "b": {"S": "beta"},
        "m": {"M": {"n": {"S": "deep"}, "o": {"N": "1"}}},
        "l": {"L": [{"S": "zero"}, {"S": "one"}]}})
    return name


def get(ddb, table, **kwargs):
    return lambda: ddb.get_item(TableName=table, Key=KEY, **kwargs)


@pytest.mark.parametrize("expr,message", [
    ("!!! INVALID !!!", 'Syntax error; token: "!", near: "!!"'),
    ("", "The expression can not be empty;"),
    ("a,", 'Syntax error; token: "<EOF>", near: ","'),
    ("a.b[1", 'Syntax error; token: "<EOF>", near: "1"'),
    ("l[-1]", 'Syntax error; token: "-", near: "[-1"'),
    ("pk, status", "Attribute name is a reserved keyword; reserved keyword: status"),
    ("Size", "Attribute name is a reserved keyword; reserved keyword: Size"),
    ("m.name", "Attribute name is a reserved keyword; reserved keyword: name"),
    ("#x", "An expression attribute name used in the document path is not defined; "
           "attribute name: #x"),
    ("a, a", "Two document paths overlap with each other; must remove or rewrite one of these "
             "paths; path one: [a], path two: [a]"),
    ("m, m.n", "Two document paths overlap with each other; must remove or rewrite one of these "
               "paths; path one: [m], path two: [m, n]"),
    ("l[0], l", "Two document paths overlap with each other; must remove or rewrite one of "
                "these paths; path one: [l, [0]], path two: [l]"),
])
def test_invalid_projection_expression(ddb, table, expr, message):
    assert_error(get(ddb, table, ProjectionExpression=expr), V, PE + message)


def test_reserved_word_is_fine_through_an_attribute_name_placeholder(ddb, table):
    got = ddb.get_item(TableName=table, Key=KEY, ProjectionExpression="#s, #n",
                       ExpressionAttributeNames={"#s": "status", "#n": "a"})
    assert got["Item"] == {"a": {"S": "alpha"}}


def test_unused_expression_attribute_name(ddb, table):
    assert_error(get(ddb, table, ProjectionExpression="a",
                     ExpressionAttributeNames={"#unused": "b"}), V,
                 "Value provided in ExpressionAttributeNames unused in expressions: "
                 "keys: {#unused}")


def test_expression_attribute_name_with_empty_value(ddb, table):
    assert_error(get(ddb, table, ProjectionExpression="#a", ExpressionAttributeNames={"#a": ""}),
                 V, "ExpressionAttributeNames contains invalid value: Empty attribute name for "
                    "key #a")


def test_expression_attribute_names_without_an_expression(ddb, table):
    assert_error(get(ddb, table, ExpressionAttributeNames={"#a": "a"}), V,
                 "ExpressionAttributeNames can only be specified when using expressions")


def test_expression_attribute_names_without_an_expression_on_put_and_delete(ddb, table):
    # Inside the envelope (a conformance suite's capture, 2026-10: error-messages/putItem and
    # deleteItem).
    envelope = "1 validation error detected: "
    assert_error(lambda: ddb.put_item(TableName=table, Item=KEY,
                                      ExpressionAttributeNames={"#a": "a"}), V,
                 envelope + "ExpressionAttributeNames can only be specified when using expressions")
    assert_error(lambda: ddb.delete_item(TableName=table, Key={"pk": {"S": "other"}},
                                         ExpressionAttributeNames={"#a": "a"}), V,
                 envelope + "ExpressionAttributeNames can only be specified when using expressions")


def test_attributes_to_get_together_with_projection_expression(ddb, table):
    assert_error(get(ddb, table, AttributesToGet=["a"], ProjectionExpression="a"), V,
                 "Can not use both expression and non-expression parameters in the same "
                 "request: Non-expression parameters: {AttributesToGet} Expression parameters: "
                 "{ProjectionExpression}")


def test_attributes_to_get_with_duplicates(ddb, table):
    assert_error(get(ddb, table, AttributesToGet=["a", "a"]), V,
                 "One or more parameter values were invalid: Duplicate value in attribute "
                 "name: a")


def test_empty_attributes_to_get(ddb, table):
    assert_error(get(ddb, table, AttributesToGet=[]), V,
                 "1 validation error detected: Value '[]' at 'attributesToGet' failed to "
                 "satisfy constraint: Member must have length greater than or equal to 1")


@pytest.mark.parametrize("name,message", [
    ("", "Empty attribute name"),
    ("x" * 65536, "Attribute name is too large, must be less than 65536 bytes"),
])
def test_attribute_names_out_of_limits_in_legacy_parameters(ddb, table, name, message):
    # The limits of an item's attribute names hold where AttributesToGet and AttributeUpdates
    # name attributes too (ScyllaDB's Alternator test_limit_attribute_length_nonkey_empty and
    # _bad, run against the service); 65535 bytes is the longest name accepted.
    assert_error(get(ddb, table, AttributesToGet=[name]), V, message)
    assert_error(lambda: ddb.update_item(TableName=table, Key=KEY, AttributeUpdates={
        name: {"Value": {"N": "1"}, "Action": "PUT"}}), V, message)
    assert_error(lambda: ddb.put_item(TableName=table, Item={**KEY, name: {"N": "1"}}), V,
                 message)
    ddb.update_item(TableName=table, Key=KEY, AttributeUpdates={
        "y" * 65535: {"Value": {"N": "1"}, "Action": "PUT"}})
    assert "y" * 65535 in ddb.get_item(TableName=table, Key=KEY, AttributesToGet=["y" * 65535])[
        "Item"]
