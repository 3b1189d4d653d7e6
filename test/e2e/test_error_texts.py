"""The service's error texts, one row per message (issue 18): a change to any of them is a
deliberate edit of this table. Each row names where the text came from:
  CONF  nubo-db/dynamodb-conformance tier3/error-messages (run against real DynamoDB first)
  ALT   Scylla Alternator's tests, run against the service (the text from its comments)
  DYN   dynalite's tests, written against the service
  SC    a public catalogue of the service's live answers (us-west-2/us-east-1, 2026-10)
  USER  an issue thread quoting the service's answer
  PAR   a conformance suite's tier3 files captured against the service (eu-west-2, us-east-1,
        2026; paritysuite/dynamodb-conformance), where they are newer than the rows above
"""
from __future__ import annotations

import pytest

from e2e_util import create_table, ddb_error, unique_name

V = "ValidationException"
INV = "One or more parameter values were invalid: "
ENV = "1 validation error detected: "
S = lambda s: {"S": s}  # noqa: E731


@pytest.fixture(scope="module")
def t(ddb):
    name = unique_name("texts")
    create_table(ddb, name, range_key=("sk", "S"))
    ddb.put_item(TableName=name, Item={"pk": S("p"), "sk": S("s"), "str": S("x"), "num": {"N": "1"}})
    yield name
    ddb.delete_table(TableName=name)


KEY = {"pk": S("p"), "sk": S("s")}


def U(expr, **kw):
    return ("update_item", dict(Key=KEY, UpdateExpression=expr, **kw))


# (operation, parameters (TableName added unless present), error type, message, source)
ROWS = [
    # ---- update expressions ---------------------------------------------------------------------
    (*U("INVALID SYNTAX HERE"), V,
     'Invalid UpdateExpression: Syntax error; token: "INVALID", near: "INVALID SYNTAX"', "CONF"),
    (*U(""), V, "Invalid UpdateExpression: The expression can not be empty;", "CONF"),
    (*U("SET attr1 = :v"), V, "Invalid UpdateExpression: An expression attribute value used in "
     "expression is not defined; attribute value: :v", "CONF"),
    (*U("SET a = :v", ExpressionAttributeValues={":v": S("x"), ":unused": S("y")}), V,
     "Value provided in ExpressionAttributeValues unused in expressions: keys: {:unused}", "CONF"),
    (*U("SET a = :v", ExpressionAttributeNames={"#unused": "x"},
        ExpressionAttributeValues={":v": S("x")}), V,
     "Value provided in ExpressionAttributeNames unused in expressions: keys: {#unused}", "CONF"),
    (*U("REMOVE a SET a = :v", ExpressionAttributeValues={":v": S("x")}), V,
     "Invalid UpdateExpression: Two document paths overlap with each other; must remove or "
     "rewrite one of these paths; path one: [a], path two: [a]", "ALT"),
    (*U("SET a.b = :v1, a[1] = :v2", ExpressionAttributeValues={":v1": S("x"), ":v2": S("y")}), V,
     "Invalid UpdateExpression: Two document paths conflict with each other; must remove or "
     "rewrite one of these paths; path one: [a, b], path two: [a, [1]]", "DYN"),
    (*U("SET status = :v", ExpressionAttributeValues={":v": S("x")}), V,
     "Invalid UpdateExpression: Attribute name is a reserved keyword; reserved keyword: status",
     "CONF"),
    (*U("SET a = :v1 SET b = :v2", ExpressionAttributeValues={":v1": S("x"), ":v2": S("y")}), V,
     'Invalid UpdateExpression: The "SET" section can only be used once in an update expression;',
     "DYN"),
    (*U("SET a = f(b, c, d)"), V, "Invalid UpdateExpression: Invalid function name; function: f",
     "ALT"),
    (*U("SET a = list_append(:v)", ExpressionAttributeValues={":v": {"L": []}}), V,
     "Invalid UpdateExpression: Incorrect number of operands for operator or function; operator "
     "or function: list_append, number of operands: 1", "ALT"),
    (*U("ADD a :v", ExpressionAttributeValues={":v": S("hello")}), V,
     "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, "
     "operand type: STRING", "ALT"),
    (*U("SET b = :a + :b", ExpressionAttributeValues={":a": S("dog"), ":b": {"N": "1"}}), V,
     "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or "
     "function: +, operand type: S", "ALT"),
    (*U("SET b = if_not_exists(:a, :b)", ExpressionAttributeValues={":a": S("x"), ":b": S("y")}),
     V, "Invalid UpdateExpression: Operator or function requires a document path; operator or "
     "function: if_not_exists", "ALT"),
    (*U("SET a = list_append(list_append(:a, :b), :c)",
        ExpressionAttributeValues={":a": {"L": []}, ":b": {"L": []}, ":c": {"L": []}}), V,
     "Invalid UpdateExpression: The function is not allowed to be used this way in an expression; "
     "function: list_append", "ALT"),
    (*U("SET pk = :v", ExpressionAttributeValues={":v": S("x")}), V,
     INV + "Cannot update attribute pk. This attribute is part of the key", "CONF"),
    (*U("SET c = nothere"), V,
     "The provided expression refers to an attribute that does not exist in the item", "ALT"),
    (*U("SET str.c = :v", ExpressionAttributeValues={":v": S("x")}), V,
     "The document path provided in the update expression is invalid for update", "ALT"),
    (*U("ADD num :v", ExpressionAttributeValues={":v": {"SS": ["a"]}}), V,
     "An operand in the update expression has an incorrect data type", "ALT"),
    # ---- conditions, projections, filters ---------------------------------------------------------
    ("get_item", dict(Key=KEY, ProjectionExpression="!!"), V,
     'Invalid ProjectionExpression: Syntax error; token: "!", near: "!!"', "CONF"),
    ("put_item", dict(Item=KEY, ConditionExpression="foo"), V,
     'Invalid ConditionExpression: Syntax error; token: "<EOF>", near: "foo"', "CONF"),
    ("put_item", dict(Item=KEY, ConditionExpression=""), V,
     ENV + "Invalid ConditionExpression: The expression can not be empty;", "PAR"),
    ("put_item", dict(Item=KEY, ExpressionAttributeValues={":v": S("x")}), V,
     "ExpressionAttributeValues can only be specified when using expressions: "
     "ConditionExpression is null", "CONF"),
    ("query", dict(KeyConditionExpression="pk = :p", FilterExpression="#missing = :p",
                   ExpressionAttributeValues={":p": S("p")}), V,
     "Invalid FilterExpression: An expression attribute name used in the document path is not "
     "defined; attribute name: #missing", "CONF"),
    ("query", dict(KeyConditionExpression="pk = :p", ExpressionAttributeNames={},
                   ExpressionAttributeValues={":p": S("p")}), V,
     "ExpressionAttributeNames must not be empty", "DYN"),
    ("get_item", dict(Key=KEY, ProjectionExpression="a, a"), V,
     "Invalid ProjectionExpression: Two document paths overlap with each other; must remove or "
     "rewrite one of these paths; path one: [a], path two: [a]", "CONF"),
    ("put_item", dict(Item=KEY, ConditionExpression="a BETWEEN :s AND :n",
                      ExpressionAttributeValues={":s": S("x"), ":n": {"N": "1"}}), V,
     "Invalid ConditionExpression: The BETWEEN operator requires same data type for lower and "
     "upper bounds; lower bound operand: AttributeValue: {S:x}, upper bound operand: "
     "AttributeValue: {N:1}", "DYN"),
    ("scan", dict(FilterExpression="((a = :v))", ExpressionAttributeValues={":v": S("x")}), V,
     "Invalid FilterExpression: The expression has redundant parentheses;", "DYN"),
    ("put_item", dict(Item=KEY, ConditionExpression="attribute_not_exists(pk) AND str = :v",
                      ExpressionAttributeValues={":v": S("other")}),
     "ConditionalCheckFailedException", "The conditional request failed", "CONF"),
    # ---- legacy parameters --------------------------------------------------------------------------
    ("scan", dict(ScanFilter={"a": {"ComparisonOperator": "EQ"}}), V,
     INV + "Invalid number of argument(s) for the EQ ComparisonOperator", "DYN"),
    ("scan", dict(ScanFilter={"a": {"ComparisonOperator": "LT",
                                    "AttributeValueList": [{"BOOL": True}]}}), V,
     INV + "ComparisonOperator LT is not valid for BOOL AttributeValue type", "DYN"),
    ("query", dict(KeyConditions={}), V, "Conditions can be of length 1 or 2 only", "DYN"),
    ("query", dict(KeyConditions={"pk": {"ComparisonOperator": "NULL"}}), V,
     "Attempted conditional constraint is not an indexable operation", "DYN"),
    ("put_item", dict(Item=KEY, Expected={"a": {"Exists": False, "Value": S("x")}}), V,
     ENV + INV + "Value cannot be used when Exists is false for Attribute: a", "PAR"),
    ("get_item", dict(Key=KEY, AttributesToGet=["a", "a"]), V,
     INV + "Duplicate value in attribute name: a", "DYN"),
    # ---- table names -----------------------------------------------------------------------------
    ("put_item", dict(TableName="bad table!@#", Item=KEY), V,
     "1 validation error detected: Value 'bad table!@#' at 'tableName' failed to satisfy "
     "constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+", "CONF"),
    ("describe_table", dict(TableName=""), V,
     "2 validation errors detected: Value '' at 'tableName' failed to satisfy constraint: Member "
     "must have length greater than or equal to 3; Value '' at 'tableName' failed to satisfy "
     "constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+", "SC"),
    ("get_item", dict(TableName="no_such_table_here", Key=KEY), "ResourceNotFoundException",
     "Requested resource not found", "CONF"),
    # ---- tags --------------------------------------------------------------------------------------
    ("tag_resource", dict(TableName=None, ResourceArn="not-a-valid-arn",
                          Tags=[{"Key": "k", "Value": "v"}]), V,
     INV + "ARNs must start with 'arn:': not-a-valid-arn", "SC"),
    ("tag_resource", dict(TableName=None, ResourceArn="arn:aws:dynamodb:us-east-1:000000000000:"
                          "table/x1", Tags=[{"Key": "k" * 129, "Value": "v"}]), V,
     "The Tag Key provided is invalid, Key: " + "k" * 129, "SC"),
    ("tag_resource", dict(TableName=None, ResourceArn="arn:aws:dynamodb:us-east-1:000000000000:"
                          "table/x1", Tags=[]), V,
     "Atleast one Tag needs to be provided as Input.", "SC"),
    # ---- keys and items ------------------------------------------------------------------------------
    ("put_item", dict(Item={"pk": S("p" * 2049), "sk": S("s")}), V,
     INV + "Size of hashkey has exceeded the maximum size limit of2048 bytes", "DYN"),
    ("get_item", dict(Key={"pk": S("p")}), V,
     "The provided key element does not match the schema", "CONF"),
    ("put_item", dict(Item={"pk": S("p"), "sk": S("s"), "big": S("x" * 410_000)}), V,
     "Item size has exceeded the maximum allowed size", "CONF"),
    # ---- point-in-time recovery (docs/compatibility.md, "Point-in-time recovery") -------------
    ("restore_table_to_point_in_time", dict(TableName=None, SourceTableName="no_such_src",
                                            TargetTableName="no_such_dst"), V,
     "Invalid Request: Either one of RestoreDateTime or UseLatestRestorableTime must be "
     "specified, but not both", "SC"),
    ("restore_table_to_point_in_time", dict(TableName=None, SourceTableName="no_such_src",
                                            TargetTableName="no_such_dst",
                                            UseLatestRestorableTime=True),
     "TableNotFoundException", "Table not found: no_such_src", "SC"),
    # ---- export to S3 (docs/compatibility.md, "Export to S3") ------------------------------------
    ("export_table_to_point_in_time", dict(TableName=None, TableArn="no_such_table",
                                           S3Bucket="b1"), V,
     INV + "tableArn is not a valid ARN", "SC"),
    ("export_table_to_point_in_time",
     dict(TableName=None, S3Bucket="b1",
          TableArn="arn:aws:dynamodb:us-east-1:000000000000:table/no_such_table"),
     "TableNotFoundException",
     "Table not found: arn:aws:dynamodb:us-east-1:000000000000:table/no_such_table", "SC"),
    ("export_table_to_point_in_time",
     dict(TableName=None, S3Bucket="b1",
          TableArn="arn:aws:dynamodb:us-east-1:000000000000:table/no_such_table/index/i"), V,
     "Invalid Request: Table ARN is invalid.", "SC"),
    ("describe_export",
     dict(TableName=None, ExportArn="arn:aws:dynamodb:us-east-1:000000000000:table/no_such_table"),
     V, "Invalid Export ARN", "SC"),
]


@pytest.mark.parametrize("op,params,code,message,source", ROWS,
                         ids=[f"{i:02d}-{r[0]}-{r[4]}" for i, r in enumerate(ROWS)])
def test_error_text(ddb, t, op, params, code, message, source):
    params = dict(params)
    if params.get("TableName", t) is None:
        params.pop("TableName")
    else:
        params.setdefault("TableName", t)
    e = ddb_error(getattr(ddb, op), **params)
    assert (e.code, e.message) == (code, message)
