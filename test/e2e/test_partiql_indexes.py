"""PartiQL over secondary indexes: SELECT ... FROM "table"."index", through boto3.

Every expectation below is the service's answer as captured against real DynamoDB in public
test suites of DynamoDB-compatible implementations (eu-west-2 and us-east-1, 2026): which rows
and attributes an index read returns, the keyed/unkeyed rule for filters on attributes an index
does not project, the local index's fetch from the table, capacity charged to the index, tokens
bound to the statement, and each refusal's exact text. docs/compatibility.md, "PartiQL over
indexes", lists the sources.
"""
from __future__ import annotations

import pytest

from e2e_util import assert_error, unique_name

INVALID = "One or more parameter values were invalid: "
BATCH_NEEDS_KEY = ("Select statements within BatchExecuteStatement must specify the primary key "
                   "in the where clause.")


def S(v: str) -> dict:
    return {"S": v}


@pytest.fixture(scope="module")
def table(ddb):
    name = unique_name("pq_idx")
    ddb.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                   {"AttributeName": "sk", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": a, "AttributeType": "S"}
                              for a in ("pk", "sk", "gsiPk", "gsiPk2", "lsiSk", "lsiSk2")],
        GlobalSecondaryIndexes=[
            {"IndexName": "gsi-all", "KeySchema": [{"AttributeName": "gsiPk", "KeyType": "HASH"}],
             "Projection": {"ProjectionType": "ALL"}},
            {"IndexName": "gsi-inc", "KeySchema": [{"AttributeName": "gsiPk2", "KeyType": "HASH"}],
             "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["projattr"]}},
            {"IndexName": "gsi-keys",
             "KeySchema": [{"AttributeName": "gsiPk2", "KeyType": "HASH"}],
             "Projection": {"ProjectionType": "KEYS_ONLY"}},
        ],
        LocalSecondaryIndexes=[
            {"IndexName": "lsi-all", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                                                   {"AttributeName": "lsiSk", "KeyType": "RANGE"}],
             "Projection": {"ProjectionType": "ALL"}},
            {"IndexName": "lsi-keys", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                                                    {"AttributeName": "lsiSk2", "KeyType": "RANGE"}],
             "Projection": {"ProjectionType": "KEYS_ONLY"}},
        ])
    rows = [
        {"sk": "s1", "gsiPk": "x", "gsiPk2": "x2", "lsiSk": "l1", "lsiSk2": "m1", "projattr": "P1",
         "nonproj": "N1"},
        {"sk": "s2", "gsiPk": "y", "gsiPk2": "y2", "lsiSk": "l2", "lsiSk2": "m2", "projattr": "P2",
         "nonproj": "N2"},
        {"sk": "s3", "projattr": "P3", "nonproj": "N3"},  # in no index
        {"sk": "s4", "gsiPk": "x", "gsiPk2": "x2", "lsiSk": "l4", "lsiSk2": "m4", "projattr": "P4",
         "nonproj": "N4"},
    ]
    for row in rows:
        ddb.put_item(TableName=name, Item={"pk": S("p"), **{k: S(v) for k, v in row.items()}})
    yield name
    ddb.delete_table(TableName=name)


def run(ddb, statement: str, **kw) -> dict:
    return ddb.execute_statement(Statement=statement, **kw)


def keys(ddb, statement: str) -> list[str]:
    items = run(ddb, statement)["Items"]
    return sorted(f"{i.get('pk', {}).get('S', '')}/{i.get('sk', {}).get('S', '')}" for i in items)


def names(ddb, statement: str) -> list[str]:
    return sorted({n for i in run(ddb, statement)["Items"] for n in i})


def refused(ddb, statement: str, message: str, **kw) -> None:
    assert_error(ddb.execute_statement, "ValidationException", message, Statement=statement, **kw)


def test_index_reads_return_index_members_and_keep_where(ddb, table):
    t = f'"{table}"'
    assert keys(ddb, f'SELECT * FROM {t}."gsi-all"') == ["p/s1", "p/s2", "p/s4"]
    assert keys(ddb, f"SELECT * FROM {t}.\"gsi-all\" WHERE gsiPk='x'") == ["p/s1", "p/s4"]
    assert keys(ddb, f"SELECT * FROM {t} WHERE gsiPk='x'") == ["p/s1", "p/s4"]  # the table
    assert keys(ddb, f"SELECT * FROM {t}.\"gsi-all\" WHERE nonproj='N1'") == ["p/s1"]
    assert keys(ddb, f"SELECT * FROM {t}.\"gsi-all\" WHERE NOT gsiPk='x'") == ["p/s2"]
    assert keys(ddb, f"SELECT * FROM {t}.\"gsi-inc\" WHERE gsiPk2 IN ['x2', 'y2']") == [
        "p/s1", "p/s2", "p/s4"]
    assert keys(ddb, f"SELECT * FROM {t}.\"lsi-all\" WHERE pk='p'") == ["p/s1", "p/s2", "p/s4"]
    assert keys(ddb, f'SELECT * FROM {t}."lsi-all"') == ["p/s1", "p/s2", "p/s4"]
    assert keys(ddb, f"SELECT * FROM {t}.\"lsi-all\" WHERE pk='p' AND lsiSk='l1'") == ["p/s1"]
    # ORDER BY the index's sort key reads the index backwards.
    items = run(ddb, f"SELECT sk FROM {t}.\"lsi-all\" WHERE pk='p' ORDER BY lsiSk DESC")["Items"]
    assert [i["sk"]["S"] for i in items] == ["s4", "s2", "s1"]


def test_index_reads_return_what_the_index_projects(ddb, table):
    t = f'"{table}"'
    assert names(ddb, f'SELECT * FROM {t}."gsi-inc"') == ["gsiPk2", "pk", "projattr", "sk"]
    assert names(ddb, f'SELECT * FROM {t}."gsi-keys"') == ["gsiPk2", "pk", "sk"]
    assert names(ddb, f"SELECT * FROM {t}.\"lsi-keys\" WHERE pk='p'") == ["lsiSk2", "pk", "sk"]
    assert names(ddb, f'SELECT pk, projattr FROM {t}."gsi-inc"') == ["pk", "projattr"]
    assert names(ddb, f"SELECT pk, sk, lsiSk2 FROM {t}.\"lsi-keys\" WHERE pk='p'") == [
        "lsiSk2", "pk", "sk"]
    # A local index fetches what it does not project from the table.
    items = run(ddb, f"SELECT projattr FROM {t}.\"lsi-keys\" WHERE pk='p'")["Items"]
    assert sorted(i["projattr"]["S"] for i in items) == ["P1", "P2", "P4"]


def test_a_global_index_refuses_what_it_does_not_project(ddb, table):
    refused(ddb, f'SELECT nonproj FROM "{table}"."gsi-inc"',
            INVALID + "Global secondary index gsi-inc does not project [nonproj]")


def test_filters_on_unprojected_attributes_refused_only_when_keyed(ddb, table):
    t = f'"{table}"'
    filt = "does not project one or more filter attributes: [{}]"
    for statement, index, name in [
        (f"SELECT * FROM {t}.\"gsi-inc\" WHERE gsiPk2='x2' AND nonproj='N1'", "gsi-inc", "nonproj"),
        (f"SELECT * FROM {t}.\"lsi-keys\" WHERE pk='p' AND projattr='P1'", "lsi-keys", "projattr"),
        (f"SELECT * FROM {t}.\"gsi-inc\" WHERE gsiPk2 IN ['x2','y2'] AND nonproj='N1'", "gsi-inc",
         "nonproj"),
        (f"SELECT * FROM {t}.\"gsi-inc\" WHERE gsiPk2='x2' AND nonproj IS MISSING", "gsi-inc",
         "nonproj"),
        (f"SELECT * FROM {t}.\"gsi-inc\" WHERE gsiPk2='x2' AND BEGINS_WITH(nonproj, 'N')",
         "gsi-inc", "nonproj"),
        (f"SELECT pk FROM {t}.\"gsi-keys\" WHERE gsiPk2='x2' AND NOT nonproj='N1'", "gsi-keys",
         "nonproj"),
        (f"SELECT pk FROM {t}.\"lsi-keys\" WHERE pk='p' AND NOT nonproj='N1'", "lsi-keys",
         "nonproj"),
    ]:
        refused(ddb, statement, INVALID + f"Secondary index {index} " + filt.format(name))
    # Unkeyed reads scan the index and evaluate the filter over what it holds.
    for statement in [
        f"SELECT * FROM {t}.\"gsi-inc\" WHERE nonproj='N1'",
        f"SELECT * FROM {t}.\"gsi-keys\" WHERE projattr='P1'",
        f"SELECT * FROM {t}.\"gsi-inc\" WHERE nonproj='N1' AND projattr='P1'",
        f"SELECT * FROM {t}.\"lsi-keys\" WHERE projattr='P1'",
    ]:
        assert keys(ddb, statement) == [], statement
    assert len(keys(ddb, f"SELECT pk FROM {t}.\"gsi-keys\" WHERE NOT nonproj='N1'")) == 3
    # The index key reached through OR is not keyed.
    run(ddb, f"SELECT * FROM {t}.\"gsi-inc\" WHERE (gsiPk2='x2' AND nonproj='N1') OR gsiPk2='y2'")
    # Filters on projected attributes are served.
    assert keys(ddb, f"SELECT * FROM {t}.\"gsi-inc\" WHERE gsiPk2='x2' AND projattr='P1'") == [
        "p/s1"]
    assert keys(ddb, f"SELECT * FROM {t}.\"gsi-inc\" WHERE gsiPk2='x2' AND projattr IS MISSING") \
        == []


def test_refusals_and_their_texts(ddb, table):
    t = f'"{table}"'
    refused(ddb, f"SELECT * FROM {t}.\"nosuchindex\" WHERE pk='p'",
            "The table does not have the specified index")
    refused(ddb, f"SELECT * FROM {t}.{t} WHERE pk='p'", "The table does not have the specified index")
    refused(ddb, f"SELECT * FROM {t}.\"gsi-all\".\"extra\" WHERE pk='p'",
            "A path may contain at most 2 components in the FROM clause")
    refused(ddb, f"SELECT * FROM {t}.\"\" WHERE pk='p'", "Path component cannot be an empty string")
    refused(ddb, f"INSERT INTO {t}.\"gsi-all\" VALUE {{'pk':'w','sk':'w'}}",
            "FROM clause may only contain a single table name in data manipulation statements")
    for statement in [f"UPDATE {t}.\"gsi-all\" SET projattr='z' WHERE pk='p' AND sk='s1'",
                      f"DELETE FROM {t}.\"gsi-all\" WHERE pk='p' AND sk='s1'",
                      "UPDATE \"nosuchtable\".\"gsi-all\" SET a='z' WHERE pk='p'"]:
        refused(ddb, statement, "This operation is not supported on an index")
    refused(ddb, f"SELECT * FROM {t}.\"gsi-all\" WHERE gsiPk='x'",
            "Strongly consistent read is not supported on Global Secondary Indexes",
            ConsistentRead=True)
    assert len(run(ddb, f"SELECT * FROM {t}.\"lsi-all\" WHERE pk='p'",
                   ConsistentRead=True)["Items"]) == 3
    assert_error(ddb.execute_transaction, "ValidationException",
                 "Validation failed in TransactStatements[0]: Reads on indices are not supported "
                 "within transactions.",
                 TransactStatements=[{"Statement": f"SELECT * FROM {t}.\"gsi-all\" WHERE gsiPk='x'"}])


def test_batch_refuses_index_reads_per_statement(ddb, table):
    t = f'"{table}"'
    out = ddb.batch_execute_statement(Statements=[
        {"Statement": f"SELECT * FROM {t}.\"gsi-all\" WHERE gsiPk='x'"},
        {"Statement": f"SELECT * FROM {t} WHERE pk='p'"},
        {"Statement": f"SELECT * FROM {t} WHERE pk='p' AND sk='s1'"},
    ])["Responses"]
    for slot in out[:2]:
        assert slot["Error"] == {"Code": "ValidationError", "Message": BATCH_NEEDS_KEY}
    assert "Error" not in out[2] and out[2]["Item"]["sk"] == S("s1")


def test_capacity_is_charged_to_the_index(ddb, table):
    t = f'"{table}"'
    cap = run(ddb, f"SELECT * FROM {t}.\"gsi-all\" WHERE gsiPk='x'",
              ReturnConsumedCapacity="INDEXES")["ConsumedCapacity"]
    assert cap["CapacityUnits"] == 0.5 and cap["Table"]["CapacityUnits"] == 0.0
    assert cap["GlobalSecondaryIndexes"] == {"gsi-all": {"CapacityUnits": 0.5}}
    assert "LocalSecondaryIndexes" not in cap
    cap = run(ddb, f"SELECT * FROM {t}.\"lsi-all\" WHERE pk='p'", ConsistentRead=True,
              ReturnConsumedCapacity="INDEXES")["ConsumedCapacity"]
    assert cap["Table"]["CapacityUnits"] == 0.0
    assert cap["LocalSecondaryIndexes"] == {"lsi-all": {"CapacityUnits": 1.0}}
    # The local index's fetches from the table are charged to the table.
    cap = run(ddb, f"SELECT projattr FROM {t}.\"lsi-keys\" WHERE pk='p'",
              ReturnConsumedCapacity="INDEXES")["ConsumedCapacity"]
    assert cap["Table"]["CapacityUnits"] > 0
    cap = run(ddb, f"SELECT * FROM {t}.\"gsi-all\" WHERE gsiPk='x'",
              ReturnConsumedCapacity="TOTAL")["ConsumedCapacity"]
    assert cap["CapacityUnits"] == 0.5 and "Table" not in cap


def test_paging_across_tied_index_keys_and_foreign_tokens(ddb, table):
    statement = f"SELECT * FROM \"{table}\".\"gsi-all\" WHERE gsiPk='x'"
    first = run(ddb, statement, Limit=1)
    second = run(ddb, statement, Limit=1, NextToken=first["NextToken"])
    assert [i["sk"]["S"] for i in first["Items"]] + [i["sk"]["S"] for i in second["Items"]] == [
        "s1", "s4"]
    token = run(ddb, f'SELECT * FROM "{table}"."gsi-all"', Limit=1)["NextToken"]
    refused(ddb, f'SELECT * FROM "{table}"."gsi-inc"', "NextToken does not match request",
            Limit=1, NextToken=token)


def test_multi_attribute_key_indexes_are_refused(ddb):
    name = unique_name("pq_multi")
    ddb.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": a, "AttributeType": "S"}
                              for a in ("id", "h1", "h2", "r1")],
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        GlobalSecondaryIndexes=[{"IndexName": "gsi", "KeySchema": [
            {"AttributeName": "h1", "KeyType": "HASH"}, {"AttributeName": "h2", "KeyType": "HASH"},
            {"AttributeName": "r1", "KeyType": "RANGE"}], "Projection": {"ProjectionType": "ALL"}}])
    try:
        ddb.put_item(TableName=name, Item={"id": S("i1"), "h1": S("a"), "h2": S("x"),
                                           "r1": S("m")})
        message = ("PartiQL statements cannot be executed on tables with multi-attribute HASH keys "
                   "or multi-attribute RANGE keys.")
        for statement in [f"SELECT * FROM \"{name}\".\"gsi\" WHERE h1 = 'a'",
                          f"SELECT * FROM \"{name}\".\"gsi\" WHERE h1 = 5",
                          f"SELECT * FROM \"{name}\".\"gsi\""]:
            refused(ddb, statement, message)
        out = ddb.batch_execute_statement(Statements=[
            {"Statement": f"SELECT * FROM \"{name}\".\"gsi\" WHERE h1 = 'a' AND h2 = 'x'"},
            {"Statement": f"SELECT * FROM \"{name}\" WHERE id = 'i1'"},
        ])["Responses"]
        assert out[0]["Error"] == {"Code": "ValidationError", "Message": message}
        assert out[1]["Item"]["id"] == S("i1")
    finally:
        ddb.delete_table(TableName=name)
