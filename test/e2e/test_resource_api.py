"""The high-level boto3 API: boto3.resource Table with boto3.dynamodb.conditions Key/Attr,
update_item, batch_writer, and the low-level client's paginators.
"""
from __future__ import annotations

from decimal import Decimal

import pytest
from boto3.dynamodb.conditions import Attr, Key
from botocore.exceptions import ClientError

from dataplane_util import drop_table, make_table
from e2e_util import unique_name


@pytest.fixture(scope="module")
def table(ddb, ddb_resource):
    name = make_table(ddb, unique_name("res"), range_key=("sk", "N"))
    t = ddb_resource.Table(name)
    with t.batch_writer() as bw:
        for i in range(10):
            bw.put_item(Item={"pk": "x", "sk": i, "color": "red" if i % 3 == 0 else "blue",
                              "tags": {"t1", f"t{i}"}, "n": Decimal(i) / 2,
                              "doc": {"title": f"doc-{i}", "parts": [i, i + 1]}})
        bw.put_item(Item={"pk": "y", "sk": 1, "color": "green"})
    yield t
    drop_table(ddb, name)


def sks(items) -> list[int]:
    return [int(it["sk"]) for it in items]


@pytest.mark.parametrize("cond,expected", [
    (Key("pk").eq("x") & Key("sk").between(1, 5), [1, 2, 3, 4, 5]),
    (Key("pk").eq("x") & Key("sk").lt(3), [0, 1, 2]),
    (Key("pk").eq("x") & Key("sk").lte(3), [0, 1, 2, 3]),
    (Key("pk").eq("x") & Key("sk").gt(7), [8, 9]),
    (Key("pk").eq("x") & Key("sk").gte(7), [7, 8, 9]),
    (Key("pk").eq("x") & Key("sk").eq(4), [4]),
    (Key("pk").eq("y"), [1]),
], ids=["between", "lt", "lte", "gt", "gte", "eq", "hash-only"])
def test_query_with_key_conditions(table, cond, expected):
    out = table.query(KeyConditionExpression=cond)
    assert sks(out["Items"]) == expected
    assert out["Count"] == len(expected)
    out = table.query(KeyConditionExpression=cond, ScanIndexForward=False)
    assert sks(out["Items"]) == expected[::-1]


def test_query_with_filter_projection_and_limit(table):
    out = table.query(KeyConditionExpression=Key("pk").eq("x") & Key("sk").between(1, 5),
                      FilterExpression=Attr("color").eq("blue"),
                      ProjectionExpression="sk, doc.title")
    assert out["Items"] == [{"sk": Decimal(i), "doc": {"title": f"doc-{i}"}} for i in (1, 2, 4, 5)]
    assert (out["Count"], out["ScannedCount"]) == (4, 5)
    out = table.query(KeyConditionExpression=Key("pk").eq("x"), Limit=4)
    assert sks(out["Items"]) == [0, 1, 2, 3]
    assert out["LastEvaluatedKey"] == {"pk": "x", "sk": Decimal(3)}
    out = table.query(KeyConditionExpression=Key("pk").eq("x"),
                      ExclusiveStartKey=out["LastEvaluatedKey"], Select="COUNT")
    assert out["Count"] == 6


@pytest.mark.parametrize("cond,expected", [
    (Attr("color").eq("red"), [0, 3, 6, 9]),
    (Attr("color").ne("blue") & Attr("pk").eq("x"), [0, 3, 6, 9]),
    (Attr("n").gt(3), [7, 8, 9]),
    (Attr("n").between(Decimal("1"), Decimal("2")), [2, 3, 4]),
    (Attr("tags").contains("t5"), [5]),
    (Attr("doc.parts").contains(10), [9]),
    (Attr("doc.title").begins_with("doc-1"), [1]),
    (Attr("sk").is_in([2, 4, 99]), [2, 4]),
    (Attr("tags").size().eq(1), [1]),
    (Attr("doc").exists() & ~Attr("color").eq("red"), [1, 2, 4, 5, 7, 8]),
    (Attr("tags").not_exists(), ["y1"]),
    (Attr("color").attribute_type("S") & Attr("pk").eq("y"), ["y1"]),
    (Attr("color").eq("green") | Attr("sk").eq(0), [0, "y1"]),
], ids=["eq", "ne-and", "gt", "between", "contains-set", "contains-list", "begins_with",
        "in", "size", "exists-not", "not_exists", "attribute_type", "or"])
def test_scan_with_attr_conditions(table, cond, expected):
    items = table.scan(FilterExpression=cond)["Items"]
    got = sorted(((int(it["sk"]) if it["pk"] == "x" else f"y{int(it['sk'])}") for it in items),
                 key=str)
    assert got == sorted(expected, key=str)


def test_update_item_through_the_table(table):
    out = table.update_item(
        Key={"pk": "u", "sk": 100}, UpdateExpression="SET ver = :one, doc = :doc ADD hits :one",
        ConditionExpression=Attr("ver").not_exists(),
        ExpressionAttributeValues={":one": 1, ":doc": {"parts": [Decimal("1.5")], "ok": True}},
        ReturnValues="ALL_NEW")
    assert out["Attributes"] == {"pk": "u", "sk": Decimal(100), "ver": Decimal(1),
                                 "hits": Decimal(1), "doc": {"parts": [Decimal("1.5")], "ok": True}}
    out = table.update_item(
        Key={"pk": "u", "sk": 100}, ConditionExpression=Attr("ver").eq(1),
        UpdateExpression="SET ver = ver + :one, doc.parts = list_append(doc.parts, :more)",
        ExpressionAttributeValues={":one": 1, ":more": ["tail"]}, ReturnValues="UPDATED_NEW")
    assert out["Attributes"] == {"ver": Decimal(2), "doc": {"parts": [Decimal("1.5"), "tail"]}}
    with pytest.raises(ClientError) as exc:
        table.update_item(Key={"pk": "u", "sk": 100}, UpdateExpression="SET ver = :v",
                          ConditionExpression=Attr("ver").eq(1),
                          ExpressionAttributeValues={":v": 9})
    assert exc.value.response["Error"]["Code"] == "ConditionalCheckFailedException"
    table.delete_item(Key={"pk": "u", "sk": 100}, ConditionExpression=Attr("ver").eq(2))
    assert "Item" not in table.get_item(Key={"pk": "u", "sk": 100})


def test_batch_writer_many_items_with_overwrites_and_deletes(ddb_resource, ddb):
    name = make_table(ddb, unique_name("resbw"), range_key=("sk", "N"))
    try:
        t = ddb_resource.Table(name)
        with t.batch_writer(overwrite_by_pkeys=["pk", "sk"]) as bw:
            for i in range(120):
                bw.put_item(Item={"pk": f"p{i % 3}", "sk": i, "v": "first"})
            for i in range(0, 120, 10):  # same keys again: the writer keeps only the last one
                bw.put_item(Item={"pk": f"p{i % 3}", "sk": i, "v": "second"})
            for i in range(1, 120, 10):
                bw.delete_item(Key={"pk": f"p{i % 3}", "sk": i})
        items = []
        kwargs = {}
        while True:
            page = t.scan(**kwargs)
            items.extend(page["Items"])
            if "LastEvaluatedKey" not in page:
                break
            kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]
        assert len(items) == 120 - 12
        by_sk = {int(it["sk"]): it["v"] for it in items}
        assert all(by_sk[i] == "second" for i in range(0, 120, 10))
        assert not any(i in by_sk for i in range(1, 120, 10))
        assert t.query(KeyConditionExpression=Key("pk").eq("p0"), Select="COUNT")["Count"] == 36
    finally:
        drop_table(ddb, name)


def test_client_paginators(ddb, table):
    name = table.name
    pq = ddb.get_paginator("query").paginate(
        TableName=name, KeyConditionExpression="pk = :p",
        ExpressionAttributeValues={":p": {"S": "x"}},
        PaginationConfig={"PageSize": 3})
    query_pages = list(pq)
    assert [int(it["sk"]["N"]) for p in query_pages for it in p["Items"]] == list(range(10))
    assert len(query_pages) >= 4
    ps = list(ddb.get_paginator("scan").paginate(TableName=name, PaginationConfig={"PageSize": 2}))
    assert len(ps) >= 6
    assert sum(1 for p in ps for it in p["Items"] if it["pk"]["S"] in ("x", "y")) == 11
