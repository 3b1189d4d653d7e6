"""Exact messages for the most common expression mistakes, on every operation that takes them.

Sources, in priority order: conformance tier3/error-messages (authoritative), DynamoDB Local's
parser output recorded in /work/ref/probe (same parser as the service) and dynalite's tests.
A syntax error names the offending token and the text from the token before it to the one after.
"""
from __future__ import annotations

import pytest

from dataplane_util import N, S, drop_table, get, make_table
from e2e_util import assert_error, ddb_error, unique_name

V = "ValidationException"


@pytest.fixture(scope="module")
def tables(ddb):
    h = make_table(ddb, unique_name("exh"))
    c = make_table(ddb, unique_name("exc"), range_key=("sk", "S"))
    ddb.put_item(TableName=h, Item={"pk": S("x"), "a": N(1), "l": {"L": [N(1)]}, "s": S("t")})
    yield {"h": h, "c": c}
    drop_table(ddb, h)
    drop_table(ddb, c)


def call(ddb, tables, op, **kw):
    if op == "update":
        return ddb.update_item(TableName=tables["h"], Key={"pk": S("x")}, **kw)
    if op == "put":
        return ddb.put_item(TableName=tables["h"], Item={"pk": S("x"), "a": N(1)}, **kw)
    if op == "delete":
        return ddb.delete_item(TableName=tables["h"], Key={"pk": S("x")}, **kw)
    if op == "query":
        kw.setdefault("KeyConditionExpression", "pk = :pk")
        kw.setdefault("ExpressionAttributeValues", {}).setdefault(":pk", S("x"))
        return ddb.query(TableName=tables["c"], **kw)
    if op == "scan":
        return ddb.scan(TableName=tables["h"], **kw)
    raise AssertionError(op)


def unused_values(keys: str) -> str:
    return f"Value provided in ExpressionAttributeValues unused in expressions: keys: {{{keys}}}"


def unused_names(keys: str) -> str:
    return f"Value provided in ExpressionAttributeNames unused in expressions: keys: {{{keys}}}"


def undefined_value(where: str, v: str) -> str:
    return (f"Invalid {where}: An expression attribute value used in expression is not defined; "
            f"attribute value: {v}")


def undefined_name(where: str, n: str) -> str:
    return (f"Invalid {where}: An expression attribute name used in the document path is not "
            f"defined; attribute name: {n}")


def reserved(where: str, word: str) -> str:
    return f"Invalid {where}: Attribute name is a reserved keyword; reserved keyword: {word}"


def syntax(where: str, token: str, near: str) -> str:
    return f'Invalid {where}: Syntax error; token: "{token}", near: "{near}"'


CASES = [
    # unused ExpressionAttributeValues / ExpressionAttributeNames
    ("update", dict(UpdateExpression="SET a = :a",
                    ExpressionAttributeValues={":a": N(1), ":v": N(2)}), unused_values(":v")),
    ("update", dict(UpdateExpression="SET a = :v", ExpressionAttributeValues={":v": S("val")},
                    ExpressionAttributeNames={"#unused": "someattr"}), unused_names("#unused")),
    ("put", dict(ConditionExpression="attribute_exists(a)", ExpressionAttributeValues={":v": N(1)}),
     unused_values(":v")),
    ("delete", dict(ConditionExpression="a = :a",
                    ExpressionAttributeValues={":a": N(1), ":v": N(1)}), unused_values(":v")),
    ("query", dict(ExpressionAttributeValues={":v": N(1)}), unused_values(":v")),
    ("scan", dict(FilterExpression="a = :a", ExpressionAttributeValues={":a": N(1), ":v": N(1)}),
     unused_values(":v")),
    ("scan", dict(FilterExpression="a = :a", ExpressionAttributeValues={":a": N(1)},
                  ExpressionAttributeNames={"#n": "a"}), unused_names("#n")),
    # undefined values and names
    ("update", dict(UpdateExpression="SET attr1 = :v"), undefined_value("UpdateExpression", ":v")),
    ("update", dict(UpdateExpression="SET a = :a", ConditionExpression="a = :v",
                    ExpressionAttributeValues={":a": N(1)}),
     undefined_value("ConditionExpression", ":v")),
    ("put", dict(ConditionExpression="a = :v"), undefined_value("ConditionExpression", ":v")),
    ("delete", dict(ConditionExpression="#n = :v", ExpressionAttributeValues={":v": N(1)}),
     undefined_name("ConditionExpression", "#n")),
    ("query", dict(KeyConditionExpression="pk = :nope"),
     undefined_value("KeyConditionExpression", ":nope")),
    ("query", dict(FilterExpression="#missing = :pk"),
     undefined_name("FilterExpression", "#missing")),
    ("scan", dict(FilterExpression="a = :v"), undefined_value("FilterExpression", ":v")),
    ("update", dict(UpdateExpression="SET #q = :v", ExpressionAttributeValues={":v": N(1)}),
     undefined_name("UpdateExpression", "#q")),
    # reserved words used bare
    ("update", dict(UpdateExpression="SET status = :v", ExpressionAttributeValues={":v": N(1)}),
     reserved("UpdateExpression", "status")),
    ("put", dict(ConditionExpression="attribute_not_exists(name)"),
     reserved("ConditionExpression", "name")),
    ("scan", dict(FilterExpression="size(data) > :v", ExpressionAttributeValues={":v": N(1)}),
     reserved("FilterExpression", "data")),
    ("query", dict(FilterExpression="count > :pk"), reserved("FilterExpression", "count")),
    ("query", dict(KeyConditionExpression="pk = :pk AND value = :pk"),
     reserved("KeyConditionExpression", "value")),
    ("update", dict(UpdateExpression="REMOVE Absolute"), reserved("UpdateExpression", "Absolute")),
    # syntax errors and empty expressions
    ("update", dict(UpdateExpression="INVALID SYNTAX HERE",
                    ExpressionAttributeValues={":v": S("val")}),
     syntax("UpdateExpression", "INVALID", "INVALID SYNTAX")),
    ("update", dict(UpdateExpression="SET a = :v,", ExpressionAttributeValues={":v": N(1)}),
     syntax("UpdateExpression", "<EOF>", ",")),
    ("put", dict(ConditionExpression="attribute_exists(a) AND"),
     syntax("ConditionExpression", "<EOF>", "AND")),
    ("scan", dict(FilterExpression="a ="), syntax("FilterExpression", "<EOF>", "=")),
    # a name starts with a letter (Alternator's test_update_expression_name_token, run against
    # the service: 'Syntax error; token: "_", near: "SET _123"')
    ("update", dict(UpdateExpression="SET _123 = :v", ExpressionAttributeValues={":v": N(1)}),
     syntax("UpdateExpression", "_", "SET _123")),
    ("update", dict(UpdateExpression="SET a = _f(b, c)"), syntax("UpdateExpression", "_", "= _f")),
    ("put", dict(ConditionExpression="a BETWEEN :lo AND :hi",
                 ExpressionAttributeValues={":lo": {"L": [N(1)]}, ":hi": {"L": [N(2)]}}),
     "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or "
     "function: BETWEEN, operand type: L"),
    ("query", dict(KeyConditionExpression="pk = :pk AND"),
     syntax("KeyConditionExpression", "<EOF>", "AND")),
    ("update", dict(UpdateExpression=""),
     "Invalid UpdateExpression: The expression can not be empty;"),
    # PutItem and DeleteItem answer this inside the envelope (a conformance suite's capture, 2026).
    ("put", dict(ConditionExpression=""), "1 validation error detected: Invalid ConditionExpression: The expression can not be "
     "empty;"),
    ("query", dict(KeyConditionExpression=""), "Invalid KeyConditionExpression: The expression can "
     "not be empty;"),
    # update-expression structure and operand types
    ("update", dict(UpdateExpression="SET a = :v SET b = :v",
                    ExpressionAttributeValues={":v": N(1)}),
     'Invalid UpdateExpression: The "SET" section can only be used once in an update expression;'),
    ("update", dict(UpdateExpression="SET a = :v REMOVE a", ExpressionAttributeValues={":v": N(1)}),
     "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite "
     "one of these paths; path one: [a], path two: [a]"),
    ("update", dict(UpdateExpression="SET a = bogus_fn(a, :v)",
                    ExpressionAttributeValues={":v": N(1)}),
     "Invalid UpdateExpression: Invalid function name; function: bogus_fn"),
    ("update", dict(UpdateExpression="SET a = if_not_exists(a)"),
     "Invalid UpdateExpression: Incorrect number of operands for operator or function; operator or "
     "function: if_not_exists, number of operands: 1"),
    ("update", dict(UpdateExpression="SET l = list_append(l, :v)",
                    ExpressionAttributeValues={":v": S("x")}),
     "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or "
     "function: list_append, operand type: S"),
    ("update", dict(UpdateExpression="SET a = a + :v", ExpressionAttributeValues={":v": S("x")}),
     "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or "
     "function: +, operand type: S"),
    # invalid values
    ("update", dict(UpdateExpression="SET a = :v", ExpressionAttributeValues={":v": {"SS": []}}),
     "ExpressionAttributeValues contains invalid value: One or more parameter values were invalid: "
     "An string set  may not be empty for key :v"),
    ("scan", dict(FilterExpression="a = :v", ExpressionAttributeValues={":v": {"N": "b"}}),
     "ExpressionAttributeValues contains invalid value: The parameter cannot be converted to a "
     "numeric value: b for key :v"),
    # values without an expression to use them
    ("put", dict(ExpressionAttributeValues={":v": N(1)}),
     "ExpressionAttributeValues can only be specified when using expressions: ConditionExpression "
     "is null"),
    ("update", dict(ExpressionAttributeValues={":v": N(1)}),
     "ExpressionAttributeValues can only be specified when using expressions: UpdateExpression and "
     "ConditionExpression are null"),
]


@pytest.mark.parametrize("op,kw,message", CASES,
                         ids=[f"{i:02d}-{c[0]}" for i, c in enumerate(CASES)])
def test_expression_error_message(ddb, tables, op, kw, message):
    assert_error(call, V, message, ddb=ddb, tables=tables, op=op, **kw)
    assert get(ddb, tables["h"], {"pk": S("x")}) == {
        "pk": S("x"), "a": N(1), "l": {"L": [N(1)]}, "s": S("t")}


@pytest.mark.parametrize("expr,value,operator,kind", [
    ("ADD a :v", {"L": [N(1)]}, "ADD", "LIST"),
    ("ADD a :v", S("x"), "ADD", "STRING"),
    ("DELETE a :v", S("x"), "DELETE", "STRING"),
    ("DELETE a :v", N(1), "DELETE", "NUMBER"),
])
def test_add_and_delete_operand_types(ddb, tables, expr, value, operator, kind):
    # dynalite and Dynoxide end the message here; DynamoDB Local (the service's parser) appends
    # ", typeSet: ALLOWED_FOR_<op>_OPERAND". Both are accepted.
    e = ddb_error(call, ddb=ddb, tables=tables, op="update", UpdateExpression=expr,
                  ExpressionAttributeValues={":v": value})
    prefix = ("Invalid UpdateExpression: Incorrect operand type for operator or function; "
              f"operator: {operator}, operand type: {kind}")
    assert e.code == V
    assert e.message in (prefix, f"{prefix}, typeSet: ALLOWED_FOR_{operator}_OPERAND"), e.message


def test_reserved_words_work_through_placeholders(ddb, tables):
    h = tables["h"]
    names = {"#s": "status", "#n": "name", "#d": "data", "#c": "count", "#i": "items"}
    ddb.update_item(TableName=h, Key={"pk": S("rw")}, ExpressionAttributeNames=names,
                    UpdateExpression="SET #s = :s, #n = :n, #d = :d, #i = :i ADD #c :one",
                    ConditionExpression="attribute_not_exists(#s) AND attribute_not_exists(#c)",
                    ExpressionAttributeValues={":s": S("active"), ":n": S("Alice"),
                                               ":d": S("payload"), ":i": {"L": [S("a")]},
                                               ":one": N(1)})
    out = ddb.scan(TableName=h, FilterExpression="#s = :s AND size(#i) = :one",
                   ProjectionExpression="#n, #c",
                   ExpressionAttributeNames={"#s": "status", "#i": "items", "#n": "name",
                                             "#c": "count"},
                   ExpressionAttributeValues={":s": S("active"), ":one": N(1)})
    assert out["Items"] == [{"name": S("Alice"), "count": N(1)}]
