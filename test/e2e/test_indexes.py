"""Secondary indexes end to end: LSIs and GSIs with each projection type, sparse indexes, paging
and parallel scans through an index, the reference's errors, every kind of delete removing index
entries (user, conditional, batch, transactional, TTL), DescribeTable's index counts, and a
restart keeping the indexes.
"""
from __future__ import annotations

import time

import pytest

from dataplane_util import N, S, all_items, batch_put, pages
from e2e_util import assert_error, make_client, wait_until

INVALID = "One or more parameter values were invalid: "


def make_indexed_table(client, name: str) -> None:
    """pk/sk table; LSIs on l (ALL, KEYS_ONLY, INCLUDE x); GSIs on g[/n] (ALL, KEYS_ONLY,
    INCLUDE x)."""
    lsi = lambda n, p: {"IndexName": n, "KeySchema": [
        {"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "l", "KeyType": "RANGE"}],
        "Projection": p}
    gsi = lambda n, keys, p: {"IndexName": n, "KeySchema": [
        {"AttributeName": k, "KeyType": t} for k, t in keys], "Projection": p}
    include = {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["x"]}
    client.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": a, "AttributeType": t} for a, t in
                              [("pk", "S"), ("sk", "S"), ("l", "S"), ("g", "S"), ("n", "N")]],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                   {"AttributeName": "sk", "KeyType": "RANGE"}],
        LocalSecondaryIndexes=[lsi("l_all", {"ProjectionType": "ALL"}),
                               lsi("l_keys", {"ProjectionType": "KEYS_ONLY"}),
                               lsi("l_inc", include)],
        GlobalSecondaryIndexes=[gsi("g_all", [("g", "HASH")], {"ProjectionType": "ALL"}),
                                gsi("g_keys", [("g", "HASH"), ("n", "RANGE")],
                                    {"ProjectionType": "KEYS_ONLY"}),
                                gsi("g_inc", [("g", "HASH"), ("n", "RANGE")], include)])


def row(pk: str, sk: str, l: str | None = None, g: str | None = None, n=None, **extra) -> dict:
    item = {"pk": S(pk), "sk": S(sk), "x": S(f"x-{pk}-{sk}"), "y": S(f"y-{pk}-{sk}")}
    if l is not None:
        item["l"] = S(l)
    if g is not None:
        item["g"] = S(g)
    if n is not None:
        item["n"] = N(n)
    item.update(extra)
    return item


def query_ix(client, table: str, index: str, cond: str, values: dict, **kw) -> list[dict]:
    return all_items(client.query, TableName=table, IndexName=index, KeyConditionExpression=cond,
                     ExpressionAttributeValues=values, **kw)


def gsi_count(client, table: str, index: str, g: str) -> int:
    return len(query_ix(client, table, index, "g = :g", {":g": S(g)}))


@pytest.fixture
def indexed(ddb, table_name):
    make_indexed_table(ddb, table_name)
    batch_put(ddb, table_name, [
        row("p1", "a", l="m", g="G", n=3),
        row("p1", "b", l="k", g="G", n=1),
        row("p1", "c", l="z"),                # no g: not in the GSIs
        row("p2", "a", l="m", g="H", n=2),
        row("p2", "b", g="G"),                 # no l and no n: only in g_all
    ])
    return table_name


def test_lsi_query_each_projection(ddb, indexed):
    cond, vals = "pk = :p", {":p": S("p1")}
    full = query_ix(ddb, indexed, "l_all", cond, vals)
    assert [i["sk"]["S"] for i in full] == ["b", "a", "c"]  # ordered by l: k, m, z
    assert set(full[0]) == {"pk", "sk", "l", "g", "n", "x", "y"}
    keys = query_ix(ddb, indexed, "l_keys", cond, vals)
    assert keys == [{"pk": S("p1"), "sk": S("b"), "l": S("k")},
                    {"pk": S("p1"), "sk": S("a"), "l": S("m")},
                    {"pk": S("p1"), "sk": S("c"), "l": S("z")}]
    inc = query_ix(ddb, indexed, "l_inc", "pk = :p AND l BETWEEN :a AND :b",
                   {":p": S("p1"), ":a": S("k"), ":b": S("m")}, ScanIndexForward=False)
    assert [set(i) for i in inc] == [{"pk", "sk", "l", "x"}] * 2
    assert [i["sk"]["S"] for i in inc] == ["a", "b"]
    # LSIs live with their table: ALL_ATTRIBUTES and non-projected attributes come from it.
    whole = query_ix(ddb, indexed, "l_keys", cond, vals, Select="ALL_ATTRIBUTES",
                     ConsistentRead=True)
    assert whole[0] == row("p1", "b", l="k", g="G", n=1)
    some = query_ix(ddb, indexed, "l_keys", cond, vals, ProjectionExpression="y")
    assert some[0] == {"y": S("y-p1-b")}


def test_gsi_query_each_projection_and_sparse(ddb, indexed):
    full = query_ix(ddb, indexed, "g_all", "g = :g", {":g": S("G")})
    assert sorted((i["pk"]["S"], i["sk"]["S"]) for i in full) == [
        ("p1", "a"), ("p1", "b"), ("p2", "b")]
    assert all("y" in i for i in full)
    keys = query_ix(ddb, indexed, "g_keys", "g = :g AND n > :n", {":g": S("G"), ":n": N(0)})
    assert keys == [{"pk": S("p1"), "sk": S("b"), "g": S("G"), "n": N(1)},
                    {"pk": S("p1"), "sk": S("a"), "g": S("G"), "n": N(3)}]
    inc = query_ix(ddb, indexed, "g_inc", "g = :g", {":g": S("G")},
                   Select="ALL_PROJECTED_ATTRIBUTES")
    assert [set(i) for i in inc] == [{"pk", "sk", "g", "n", "x"}] * 2
    assert query_ix(ddb, indexed, "g_all", "g = :g", {":g": S("nope")}) == []


def test_index_read_errors(ddb, indexed):
    q = dict(TableName=indexed, KeyConditionExpression="g = :g",
             ExpressionAttributeValues={":g": S("G")})
    assert_error(ddb.query, "ValidationException",
                 "Consistent reads are not supported on global secondary indexes",
                 IndexName="g_all", ConsistentRead=True, **q)
    assert_error(ddb.scan, "ValidationException",
                 "Consistent reads are not supported on global secondary indexes",
                 TableName=indexed, IndexName="g_keys", ConsistentRead=True)
    assert_error(ddb.query, "ValidationException",
                 INVALID + "Select type ALL_ATTRIBUTES is not supported for global secondary "
                 "index g_keys because its projection type is not ALL",
                 IndexName="g_keys", Select="ALL_ATTRIBUTES", **q)
    assert_error(ddb.query, "ValidationException",
                 INVALID + "Global secondary index g_inc does not project [y]",
                 IndexName="g_inc", ProjectionExpression="y", **q)
    assert_error(ddb.query, "ValidationException",
                 "The table does not have the specified index: nope", IndexName="nope", **q)
    assert_error(ddb.query, "ValidationException",
                 "Query condition missed key schema element: g", TableName=indexed,
                 IndexName="g_all", KeyConditionExpression="pk = :p",
                 ExpressionAttributeValues={":p": S("p1")})
    assert_error(ddb.query, "ValidationException",
                 "Filter Expression can only contain non-primary key attributes: Primary key "
                 "attribute: n", IndexName="g_keys", FilterExpression="n = :g", **q)
    assert_error(ddb.query, "ValidationException",
                 "The provided starting key is invalid", IndexName="g_keys",
                 ExclusiveStartKey={"pk": S("p1"), "sk": S("a")}, **q)


def test_index_key_type_clash_and_empty_value_rejected(ddb, indexed):
    assert_error(ddb.put_item, "ValidationException",
                 INVALID + "Type mismatch for Index Key n Expected: N Actual: S IndexName: g_keys",
                 TableName=indexed, Item={**row("p9", "a", g="G"), "n": S("1")})
    assert_error(ddb.update_item, "ValidationException",
                 INVALID + "Type mismatch for Index Key l Expected: S Actual: N IndexName: l_all",
                 TableName=indexed, Key={"pk": S("p1"), "sk": S("a")},
                 UpdateExpression="SET l = :v", ExpressionAttributeValues={":v": N(1)})
    assert_error(ddb.put_item, "ValidationException",
                 "One or more parameter values are not valid. A value specified for a secondary "
                 "index key is not supported. The AttributeValue for a key attribute cannot "
                 "contain an empty string value. IndexName: l_all, IndexKey: l",
                 TableName=indexed, Item=row("p9", "a", l=""))
    assert ddb.get_item(TableName=indexed, Key={"pk": S("p9"), "sk": S("a")}).get("Item") is None


def test_index_key_over_the_key_size_limits_is_refused(ddb, indexed):
    """An index key value is held to the table key's limits: 2048 bytes for a partition key, 1024
    for a sort key (developer guide), with the table key's texts."""
    hash_too_big = INVALID + "Size of hashkey has exceeded the maximum size limit of2048 bytes"
    range_too_big = (INVALID + "Aggregated size of all range keys has exceeded the size limit of "
                     "1024 bytes")
    ddb.put_item(TableName=indexed, Item=row("big", "ok", g="g" * 2048, l="l" * 1024))
    assert gsi_count(ddb, indexed, "g_all", "g" * 2048) == 1
    assert_error(ddb.put_item, "ValidationException", hash_too_big, TableName=indexed,
                 Item=row("big", "a", g="g" * 2049))
    assert_error(ddb.put_item, "ValidationException", range_too_big, TableName=indexed,
                 Item=row("big", "b", l="é" * 513))  # 1026 bytes in UTF-8
    assert_error(ddb.update_item, "ValidationException", hash_too_big, TableName=indexed,
                 Key={"pk": S("big"), "sk": S("ok")}, UpdateExpression="SET g = :g",
                 ExpressionAttributeValues={":g": S("g" * 3000)})
    assert_error(ddb.batch_write_item, "ValidationException", hash_too_big,
                 RequestItems={indexed: [{"PutRequest": {"Item": row("big", "c", g="g" * 2049)}}]})
    for sk in ("a", "b", "c"):
        assert "Item" not in ddb.get_item(TableName=indexed, Key={"pk": S("big"), "sk": S(sk)})


def test_paging_and_parallel_scan_through_a_gsi(ddb, table_name):
    make_indexed_table(ddb, table_name)
    batch_put(ddb, table_name, [row(f"p{i:03}", "s", l="m", g=f"G{i % 2}", n=i % 10)
                                for i in range(230)])
    # Query with a small Limit: every page's LastEvaluatedKey has the table and index keys.
    got, lek_shapes = [], set()
    for page in pages(ddb.query, TableName=table_name, IndexName="g_keys", Limit=7,
                      KeyConditionExpression="g = :g", ExpressionAttributeValues={":g": S("G0")}):
        got += page["Items"]
        if "LastEvaluatedKey" in page:
            lek_shapes.add(tuple(sorted(page["LastEvaluatedKey"])))
    assert len(got) == 115
    assert lek_shapes == {("g", "n", "pk", "sk")}
    assert [int(i["n"]["N"]) for i in got] == sorted(int(i["n"]["N"]) for i in got)
    # Filtered scan of the index, paged.
    filtered = all_items(ddb.scan, TableName=table_name, IndexName="g_all", Limit=20,
                         FilterExpression="x = :x", ExpressionAttributeValues={":x": S("x-p007-s")})
    assert [i["pk"]["S"] for i in filtered] == ["p007"]
    # Parallel scan: disjoint segments that together hold every entry.
    seen: list[str] = []
    for seg in range(4):
        seen += [i["pk"]["S"] for i in all_items(ddb.scan, TableName=table_name,
                                                  IndexName="g_inc", Segment=seg,
                                                  TotalSegments=4, Limit=13)]
    assert sorted(seen) == [f"p{i:03}" for i in range(230)]
    cap = ddb.query(TableName=table_name, IndexName="g_all", KeyConditionExpression="g = :g",
                    ExpressionAttributeValues={":g": S("G1")}, Limit=1,
                    ReturnConsumedCapacity="INDEXES")["ConsumedCapacity"]
    assert cap["TableName"] == table_name and cap["Table"] == {"CapacityUnits": 0.0}
    assert cap["GlobalSecondaryIndexes"] == {"g_all": {"CapacityUnits": 0.5}}


def test_every_delete_removes_index_entries(ddb, table_name):
    make_indexed_table(ddb, table_name)
    batch_put(ddb, table_name, [row(f"p{i}", "s", l="m", g="G", n=i) for i in range(6)])
    assert gsi_count(ddb, table_name, "g_keys", "G") == 6
    key = lambda i: {"pk": S(f"p{i}"), "sk": S("s")}
    ddb.delete_item(TableName=table_name, Key=key(0))
    ddb.delete_item(TableName=table_name, Key=key(1), ConditionExpression="attribute_exists(g)")
    ddb.batch_write_item(RequestItems={table_name: [{"DeleteRequest": {"Key": key(2)}}]})
    ddb.transact_write_items(TransactItems=[{"Delete": {"TableName": table_name, "Key": key(3)}}])
    # An update removing the index key attribute takes the item out of the index too.
    ddb.update_item(TableName=table_name, Key=key(4), UpdateExpression="REMOVE g")
    left = query_ix(ddb, table_name, "g_keys", "g = :g", {":g": S("G")})
    assert [i["pk"]["S"] for i in left] == ["p5"]
    assert [i["sk"]["S"] for i in query_ix(ddb, table_name, "l_keys", "pk = :p",
                                           {":p": S("p4")})] == ["s"]
    assert query_ix(ddb, table_name, "l_keys", "pk = :p", {":p": S("p3")}) == []
    desc = ddb.describe_table(TableName=table_name)["Table"]
    counts = {ix["IndexName"]: ix["ItemCount"] for ix in
              desc["GlobalSecondaryIndexes"] + desc["LocalSecondaryIndexes"]}
    assert counts == {"g_all": 1, "g_keys": 1, "g_inc": 1, "l_all": 2, "l_keys": 2, "l_inc": 2}
    sizes = [ix["IndexSizeBytes"] for ix in desc["GlobalSecondaryIndexes"]]
    assert all(s > 0 for s in sizes)
    assert desc["GlobalSecondaryIndexes"][0]["IndexArn"].endswith(f"table/{table_name}/index/g_all")


def test_ttl_expired_item_leaves_table_and_every_index(ddb, table_name):
    make_indexed_table(ddb, table_name)
    ddb.update_time_to_live(TableName=table_name,
                            TimeToLiveSpecification={"Enabled": True, "AttributeName": "ttl"})
    now = int(time.time())
    ddb.put_item(TableName=table_name, Item=row("gone", "s", l="m", g="G", n=1, ttl=N(now - 1)))
    ddb.put_item(TableName=table_name, Item=row("kept", "s", l="m", g="G", n=2, ttl=N(now + 3600)))

    def index_pks():
        out = set()
        for ix in ("g_all", "g_keys", "g_inc"):
            out |= {i["pk"]["S"] for i in query_ix(ddb, table_name, ix, "g = :g", {":g": S("G")})}
        for ix in ("l_all", "l_keys", "l_inc"):
            for pk in ("gone", "kept"):
                out |= {i["pk"]["S"] for i in query_ix(ddb, table_name, ix, "pk = :p",
                                                       {":p": S(pk)})}
        return out

    wait_until(lambda: "Item" not in ddb.get_item(TableName=table_name,
                                                  Key={"pk": S("gone"), "sk": S("s")}),
               5, "the expired item to be deleted")
    assert index_pks() == {"kept"}
    desc = ddb.describe_table(TableName=table_name)["Table"]
    assert {ix["ItemCount"] for ix in desc["GlobalSecondaryIndexes"]} == {1}


def test_delete_table_drops_entries_and_a_new_table_starts_empty(ddb, table_name):
    make_indexed_table(ddb, table_name)
    batch_put(ddb, table_name, [row(f"p{i}", "s", l="m", g="G", n=i) for i in range(5)])
    ddb.delete_table(TableName=table_name)
    make_indexed_table(ddb, table_name)
    assert gsi_count(ddb, table_name, "g_all", "G") == 0
    desc = ddb.describe_table(TableName=table_name)["Table"]
    assert {ix["ItemCount"] for ix in desc["GlobalSecondaryIndexes"]} == {0}


def test_restart_keeps_indexes(start_server, tmp_path):
    data = tmp_path / "data"
    srv = start_server(data)
    c = make_client(srv.endpoint)
    make_indexed_table(c, "kept_indexes")
    batch_put(c, "kept_indexes", [row(f"p{i}", "s", l="m", g="G", n=i) for i in range(20)])
    srv.stop()
    srv = start_server(data)
    c = make_client(srv.endpoint)
    assert gsi_count(c, "kept_indexes", "g_keys", "G") == 20
    c.delete_item(TableName="kept_indexes", Key={"pk": S("p0"), "sk": S("s")})
    assert gsi_count(c, "kept_indexes", "g_inc", "G") == 19
    desc = c.describe_table(TableName="kept_indexes")["Table"]
    assert {ix["ItemCount"] for ix in desc["GlobalSecondaryIndexes"]} == {19}


def test_transactional_update_checks_index_key_types(ddb, indexed):
    with pytest.raises(ddb.exceptions.TransactionCanceledException) as e:
        ddb.transact_write_items(TransactItems=[{"Update": {
            "TableName": indexed, "Key": {"pk": S("p1"), "sk": S("a")},
            "UpdateExpression": "SET n = :v", "ExpressionAttributeValues": {":v": S("x")}}}])
    reasons = e.value.response["CancellationReasons"]
    assert reasons[0]["Code"] == "ValidationError"
    assert "Type mismatch for Index Key n" in reasons[0]["Message"]
    assert ddb.get_item(TableName=indexed, Key={"pk": S("p1"), "sk": S("a")})["Item"]["n"] == N(3)


def test_item_collection_metrics_on_a_table_with_a_local_index(ddb, indexed, table_name):
    put = ddb.put_item(TableName=indexed, Item=row("p7", "a", l="m"),
                       ReturnItemCollectionMetrics="SIZE")
    assert put["ItemCollectionMetrics"] == {"ItemCollectionKey": {"pk": S("p7")},
                                            "SizeEstimateRangeGB": [0.0, 1.0]}
    upd = ddb.update_item(TableName=indexed, Key={"pk": S("p7"), "sk": S("a")},
                          UpdateExpression="SET x = :v", ExpressionAttributeValues={":v": S("1")},
                          ReturnItemCollectionMetrics="SIZE")
    assert upd["ItemCollectionMetrics"]["ItemCollectionKey"] == {"pk": S("p7")}
    dele = ddb.delete_item(TableName=indexed, Key={"pk": S("p7"), "sk": S("a")},
                           ReturnItemCollectionMetrics="SIZE")
    assert dele["ItemCollectionMetrics"]["SizeEstimateRangeGB"] == [0.0, 1.0]
    assert "ItemCollectionMetrics" not in ddb.put_item(
        TableName=indexed, Item=row("p7", "b"), ReturnItemCollectionMetrics="NONE")
    # Without a local secondary index there is no item collection to report.
    other = table_name + "_plain"
    ddb.create_table(TableName=other, BillingMode="PAY_PER_REQUEST",
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
    try:
        plain = ddb.put_item(TableName=other, Item={"pk": S("a")},
                             ReturnItemCollectionMetrics="SIZE")
        assert "ItemCollectionMetrics" not in plain
    finally:
        ddb.delete_table(TableName=other)
