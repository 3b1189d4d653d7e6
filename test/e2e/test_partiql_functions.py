"""PartiQL functions and IS in WHERE, SET_ADD / SET_DELETE, and the service's texts for the forms
it refuses, through boto3.

The expectations are the service's answers as captured against real DynamoDB (eu-west-2, October
2026; us-east-1, eu-west-1 and us-west-2 gave the same) in a public conformance suite's PartiQL
`whereFunctions` and `partiqlFunctions` files; docs/compatibility.md, "PartiQL functions".
Positions in messages are `at <line>:<column>:<length>`, counted in characters from 1.
"""
from __future__ import annotations

import pytest

from e2e_util import assert_error, unique_name

NOT_WELL_FORMED = "Statement wasn't well formed, can't be processed: "
ITEM = "pq-fn-item"


@pytest.fixture(scope="module")
def table(ddb):
    name = unique_name("pq_fn")
    ddb.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}])
    ddb.put_item(TableName=name, Item={
        "pk": {"S": ITEM}, "ss": {"SS": ["a", "b", "c"]}, "ns": {"NS": ["1", "2", "3"]},
        "s": {"S": "str"}, "m": {"M": {"sub": {"S": "x"}, "inner": {"SS": ["x"]}}},
        "nul": {"NULL": True}, "flag": {"BOOL": True}, "marker": {"S": "present"}})
    yield name
    ddb.delete_table(TableName=name)


def at(statement: str, token: str, length: int | None = None, start: int = 0) -> str:
    i = statement.index(token, start)
    return f"1:{i + 1}:{len(token) if length is None else length}"


def keys_where(ddb, table: str, condition: str) -> list[str]:
    out = ddb.execute_statement(
        Statement=f"SELECT * FROM \"{table}\" WHERE pk = '{ITEM}' AND {condition}",
        ConsistentRead=True)
    return [i["pk"]["S"] for i in out["Items"]]


def refused(ddb, statement: str, message: str, params=None) -> None:
    kw = {"Parameters": params} if params else {}
    assert_error(ddb.execute_statement, "ValidationException", message, Statement=statement, **kw)


def test_condition_functions_in_where(ddb, table):
    for condition, match in [
        ("attribute_exists(ss)", True), ("attribute_exists(nope)", False),
        ("attribute_not_exists(nope)", True), ("attribute_not_exists(ss)", False),
        ("NOT attribute_exists(nope)", True), ("ATTRIBUTE_EXISTS(ss)", True),
        ("(attribute_exists(nope) OR attribute_exists(ss))", True),
        ("attribute_exists(ss) = true", True), ("attribute_exists(nope) = true", False),
        ("attribute_exists(ss) = false", False), ("attribute_exists(nope) = false", True),
        ("attribute_exists(\"ss\")", True), ("attribute_exists(m.sub)", True),
        ("attribute_exists(m.nope)", False), ("size(s) = 3", True), ("size(s) = 4", False),
        ("attribute_type(ss, 'SS')", True), ("attribute_type(ss, 'S')", False),
        ("begins_with(s, 'st') = true", True), ("contains(ss, 'a') = false", False),
        ("nul IS NULL", True), ("s IS NULL", False), ("s IS NOT NULL", True),
        ("nul IS NOT NULL", False), ("flag IS BOOL", True), ("s IS STRING", True),
        ("s IS BOOL", False),
    ]:
        assert keys_where(ddb, table, condition) == ([ITEM] if match else []), condition


def test_condition_functions_refused_forms(ddb, table):
    where = f"SELECT * FROM \"{table}\" WHERE pk = '{ITEM}' AND "
    refused(ddb, where + "attribute_exists('ss')",
            "Operator or function requires a document path; operator or function: attribute_exists")
    refused(ddb, where + "attribute_exists(?)",
            "Operator or function requires a document path; operator or function: attribute_exists",
            [{"S": "ss"}])
    refused(ddb, where + "attribute_exists()",
            "Incorrect number of operands for operator or function; operator or function: "
            "attribute_exists, number of operands: 0")
    refused(ddb, where + "attribute_exists(ss, ns)",
            "Incorrect number of operands for operator or function; operator or function: "
            "attribute_exists, number of operands: 2")
    st = f"SELECT attribute_exists(ss) FROM \"{table}\" WHERE pk = '{ITEM}'"
    refused(ddb, st, f"Unexpected path component at {at(st, 'attribute_exists')}")
    st = where + "EXISTS(ss)"
    refused(ddb, st, f"Unrecognized function: exists at {at(st, 'EXISTS')}")
    st = where + "set_add(ss, <<'x'>>) = ss"
    refused(ddb, st, f"Unrecognized function: set_add at {at(st, 'set_add')}")


def test_set_functions_refused_forms(ddb, table):
    def update(assignment: str) -> str:
        return f"UPDATE \"{table}\" SET {assignment} WHERE pk = '{ITEM}'"

    st = update("t = set_add(ss, <<'x'>>)")
    refused(ddb, st, f"The first argument to SET_ADD must equal the assignment value at "
                     f"{at(st, 'set_add')}")
    st = update("ss = set_add(<<'a'>>, <<'b'>>)")
    refused(ddb, st, f"The first argument to SET_ADD must equal the assignment value at "
                     f"{at(st, 'set_add')}")
    for second in ["'x'", "['x']"]:
        st = update(f"ss = set_add(ss, {second})")
        refused(ddb, st, "The second argument to SET_ADD must be a value with type SET at "
                         f"{at(st, 'ss', 2, st.index('set_add('))}")
    for args in ["ss", "ss, <<'x'>>, <<'y'>>"]:
        st = update(f"ss = set_add({args})")
        refused(ddb, st, f"SET_ADD must have exactly two arguments at {at(st, 'set_add')}")
    refused(ddb, update("ss = set_add(ss, <<1>>)"),
            "An operand in the update expression has an incorrect data type")
    refused(ddb, update("s = set_add(s, <<'x'>>)"),
            "An operand in the update expression has an incorrect data type")
    refused(ddb, update("ss = set_add(ss, <<'x', 'x'>>)"),
            "One or more parameter values were invalid: Input collection [x, x] contains "
            "duplicates.")
    refused(ddb, update("ss = set_add(ss, <<>>)"), "Empty bags are not supported")
    st = f"INSERT INTO \"{table}\" VALUE {{'pk': 'pq-fn-msg-insert', 'ss': set_add(<<'a'>>, <<'b'>>)}}"
    refused(ddb, st, f"Unsupported data type: set_add under key root at {at(st, 'set_add')}")
    st = update("t = set_delete(ss, <<'a'>>)")
    refused(ddb, st, f"The first argument to SET_DELETE must equal the assignment value at "
                     f"{at(st, 'set_delete')}")
    st = update("ss = set_delete(ss, 'a')")
    refused(ddb, st, "The second argument to SET_DELETE must be a value with type SET at "
                     f"{at(st, 'ss', 2, st.index('set_delete('))}")
    refused(ddb, update("ss = set_delete(ss, <<1>>)"),
            "An operand in the update expression has an incorrect data type")


def test_functions_as_write_conditions(ddb, table):
    def stored(pk: str):
        return ddb.get_item(TableName=table, Key={"pk": {"S": pk}}, ConsistentRead=True).get("Item")

    for pk in ["w-ok", "w-ccf", "w-not", "w-del-ccf", "w-del-ok", "w-tx"]:
        ddb.put_item(TableName=table, Item={"pk": {"S": pk}, "a": {"N": "5"}})
    t = f'"{table}"'

    def ccf(statement: str) -> None:
        assert_error(ddb.execute_statement, "ConditionalCheckFailedException",
                     "The conditional request failed", Statement=statement)

    ddb.execute_statement(Statement=f"UPDATE {t} SET z = 1 WHERE pk = 'w-ok' AND attribute_exists(a)")
    assert stored("w-ok")["z"] == {"N": "1"}
    ccf(f"UPDATE {t} SET z = 2 WHERE pk = 'w-ccf' AND attribute_exists(nope)")
    assert "z" not in stored("w-ccf")
    ddb.execute_statement(
        Statement=f"UPDATE {t} SET y = 1 WHERE pk = 'w-not' AND attribute_not_exists(y)")
    ccf(f"UPDATE {t} SET y = 2 WHERE pk = 'w-not' AND attribute_not_exists(y)")
    assert stored("w-not")["y"] == {"N": "1"}
    ccf(f"DELETE FROM {t} WHERE pk = 'w-del-ccf' AND attribute_exists(nope)")
    assert stored("w-del-ccf") is not None
    ddb.execute_statement(Statement=f"DELETE FROM {t} WHERE pk = 'w-del-ok' AND attribute_not_exists(nope)")
    assert stored("w-del-ok") is None
    ccf(f"UPDATE {t} SET z = 1 WHERE pk = 'w-absent' AND attribute_not_exists(pk)")
    assert stored("w-absent") is None
    ddb.execute_transaction(TransactStatements=[
        {"Statement": f"UPDATE {t} SET z = 1 WHERE pk = 'w-tx' AND attribute_exists(a)"}])
    assert stored("w-tx")["z"] == {"N": "1"}


def test_from_first_update_form(ddb, table):
    """FROM "T" WHERE <key> [AND <condition>] SET ... REMOVE ... [RETURNING ...]: an update of
    the item WHERE names (issue 35); no such item, or a false condition, is a failed condition."""
    t = f'"{table}"'
    ddb.put_item(TableName=table, Item={"pk": {"S": "ff"}, "g": {"S": "x"}, "n": {"N": "1"}})
    assert ddb.execute_statement(Statement=f"FROM {t} WHERE pk = 'ff' SET z = 1")["Items"] == []
    out = ddb.execute_statement(
        Statement=f"FROM {t} WHERE pk = 'ff' AND g = 'x' SET z = z + 1 REMOVE g RETURNING ALL NEW *")
    assert out["Items"] == [{"pk": {"S": "ff"}, "n": {"N": "1"}, "z": {"N": "2"}}]
    for statement in [f"FROM {t} WHERE pk = 'ff-absent' SET z = 1",
                      f"FROM {t} WHERE pk = 'ff' AND g = 'x' SET z = 9"]:
        assert_error(ddb.execute_statement, "ConditionalCheckFailedException",
                     "The conditional request failed", Statement=statement)
    assert "ff-absent" not in str(ddb.scan(TableName=table)["Items"])
    assert_error(ddb.execute_statement, "ValidationException",
                 "Where clause does not contain a mandatory equality on all key attributes",
                 Statement=f"FROM {t} WHERE n = 1 SET z = 1")
    # In a transaction and in a batch, as any UPDATE.
    ddb.execute_transaction(TransactStatements=[
        {"Statement": f"FROM {t} WHERE pk = 'ff' AND attribute_exists(n) SET n = n + 1"}])
    out = ddb.batch_execute_statement(Statements=[
        {"Statement": f"FROM {t} WHERE pk = 'ff' REMOVE z"},
        {"Statement": f"FROM {t} WHERE pk = 'ff-absent' SET z = 1"}])["Responses"]
    assert "Error" not in out[0]
    assert out[1]["Error"]["Code"] == "ConditionalCheckFailed"
    item = ddb.get_item(TableName=table, Key={"pk": {"S": "ff"}}, ConsistentRead=True)["Item"]
    assert item == {"pk": {"S": "ff"}, "n": {"N": "2"}}


def test_statement_and_number_texts(ddb, table):
    """Unconvertible numbers and broken-off statements, as the service answers them."""
    t = f'"{table}"'
    # A literal whose exponent the PartiQL engine cannot convert: the envelope alone.
    refused(ddb, f"SELECT * FROM {t} WHERE pk = 1e99999999999", NOT_WELL_FORMED)
    refused(ddb, f"SELECT * FROM {t} WHERE pk = ?",
            "The parameter cannot be converted to a numeric value: 1e99999999999",
            [{"N": "1e99999999999"}])
    # Within the engine's range, DynamoDB's own number limits answer.
    refused(ddb, f"SELECT * FROM {t} WHERE pk = ?",
            "Number overflow. Attempting to store a number with magnitude larger than supported "
            "range", [{"N": "1e126"}])
    refused(ddb, f"SELECT * FROM {t} WHERE", NOT_WELL_FORMED + "Unexpected term")
    for statement in ["SELECT * FROM \"", "SELECT * FROM \"abc", f"SELECT * FROM {t} WHERE pk = 'oops"]:
        refused(ddb, statement, NOT_WELL_FORMED)
    refused(ddb, 'SELECT * FROM ""', "Path component cannot be an empty string")


@pytest.mark.parametrize("value", ["1e99999999999", "-1e99999999999", "1e-99999999999",
                                   "1e2147483648", "1e-2147483648"])
def test_parameters_the_engine_cannot_convert(ddb, table, value):
    refused(ddb, f"SELECT * FROM \"{table}\" WHERE pk = 'x' AND n = ?",
            f"The parameter cannot be converted to a numeric value: {value}", [{"N": value}])


def test_parameter_number_edges(ddb, table):
    st = f"SELECT * FROM \"{table}\" WHERE pk = 'x' AND n = ?"
    refused(ddb, st, "The parameter cannot be converted to a numeric value", [{"N": ""}])
    refused(ddb, st, "Number underflow. Attempting to store a number with magnitude smaller than "
                     "supported range", [{"N": "1e2147483647"}])
    for nested in [{"L": [{"N": "1"}, {"N": "1e99999999999"}]},
                   {"M": {"x": {"N": "1e99999999999"}}}, {"NS": ["1", "1e99999999999"]}]:
        refused(ddb, st, "The parameter cannot be converted to a numeric value: 1e99999999999",
                [nested])
    out = ddb.batch_execute_statement(Statements=[
        {"Statement": f"SELECT * FROM \"{table}\" WHERE pk = 'x'", "Parameters": [{"N": "1e99999999999"}]},
        {"Statement": f"SELECT * FROM \"{table}\" WHERE pk = '{ITEM}'"}])["Responses"]
    assert out[0]["Error"] == {"Code": "ValidationError", "Message":
                               "The parameter cannot be converted to a numeric value: 1e99999999999"}
    assert out[1]["Item"]["pk"] == {"S": ITEM}
    refused(ddb, f"SELECT * FROM \"{table}\" WHERE pk = 1e2147483648", NOT_WELL_FORMED)


@pytest.fixture(scope="module")
def ranges(ddb):
    name = unique_name("pq_ranges")
    ddb.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                                {"AttributeName": "sk", "KeyType": "RANGE"}],
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                           {"AttributeName": "sk", "AttributeType": "S"}])
    for sk in ("1", "2"):
        ddb.put_item(TableName=name, Item={"pk": {"S": "ranges"}, "sk": {"S": sk},
                                           "flag": {"S": "one" if sk == "1" else "two"}})
    yield name
    ddb.delete_table(TableName=name)


def test_key_reads_as_the_service_decomposes_them(ddb, ranges):
    """Cases a public test suite characterised against the service (eu-west-1, 2026-09)."""
    select = f"SELECT sk FROM \"{ranges}\" WHERE "
    refused(ddb, select + "pk IN ['ranges','ranges']",
            "Overlapping conditions with range keys are not supported in where clause")
    values = ", ".join(f"'v{i}'" for i in range(51))
    refused(ddb, select + f"pk IN [{values}]", "Too many decomposed read operations for a given query.")
    refused(ddb, select + "pk='ranges' AND sk IN [" + values + "]",
            "Too many decomposed read operations for a given query.")
    many = ", ".join(f"'v{i}'" for i in range(101))
    refused(ddb, select + f"pk='ranges' AND flag IN [{many}]",
            "The IN operator is provided with too many operands; number of operands: 101")
    assert_error(ddb.execute_transaction, "ValidationException",
                 "Validation failed in TransactStatements[0]: The IN operator is provided with too "
                 "many operands; number of operands: 101",
                 TransactStatements=[{"Statement": select + f"pk IN [{many}] AND sk='1'"}])
    # A SELECT in a transaction or a batch reads one item: `pk IN ['x']` names it, the same key
    # named twice with one value too; anything else is refused.
    out = ddb.execute_transaction(TransactStatements=[
        {"Statement": select + "pk IN ['ranges'] AND sk IN ['1']"}])["Responses"]
    assert out[0]["Item"]["sk"] == {"S": "1"}
    out = ddb.execute_transaction(TransactStatements=[
        {"Statement": select + "(pk IN ['ranges']) AND pk='ranges' AND sk='2'"}])["Responses"]
    assert out[0]["Item"]["sk"] == {"S": "2"}
    assert_error(ddb.execute_transaction, "ValidationException",
                 "Validation failed in TransactStatements[0]: Select statements within "
                 "ExecuteTransaction must specify the primary key in the where clause.",
                 TransactStatements=[{"Statement": select + "pk IN ['other'] AND pk='ranges' AND sk='1'"}])
    out = ddb.batch_execute_statement(Statements=[
        {"Statement": select + "pk IN ['ranges'] AND sk='1'"},
        {"Statement": select + "pk='ranges' AND sk='1' AND flag='one'"},
        {"Statement": select + f"pk IN [{values}] AND sk='1'"}])["Responses"]
    assert out[0]["Item"]["sk"] == {"S": "1"}
    assert out[1]["Error"]["Message"] == ("Select statements within BatchExecuteStatement must "
                                          "specify the primary key in the where clause.")
    assert out[2]["Error"]["Message"] == "Too many decomposed read operations for a given query."
    # A write names its item by equality; the same value twice is that item.
    ddb.execute_statement(Statement=f"UPDATE \"{ranges}\" SET a=2 WHERE pk='ranges' AND sk='1' "
                                    "AND pk='ranges'")
    refused(ddb, f"UPDATE \"{ranges}\" SET a=1 WHERE pk='ranges' AND sk='1' AND pk='other'",
            "Multiple conditions on same key pk. Only single item Update/Insert/Delete are supported")
