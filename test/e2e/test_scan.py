"""Scan: filters, Select, projection, Limit paging and parallel scans (Segment/TotalSegments).

Exact messages: conformance tier3/error-messages/scan.
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from dataplane_util import N, S, all_items, batch_put, drop_table, make_table, pages
from e2e_util import assert_error, make_client, unique_name

V = "ValidationException"
COUNT = 40


@pytest.fixture(scope="module")
def tables(ddb):
    h = make_table(ddb, unique_name("scanh"))
    c = make_table(ddb, unique_name("scanc"), range_key=("sk", "N"))
    batch_put(ddb, h, [{"pk": S(f"item-{i:03d}"), "i": N(i),
                        "grp": S("even" if i % 2 == 0 else "odd"), "pad": S("p" * 50)}
                       for i in range(COUNT)])
    batch_put(ddb, c, [{"pk": S(f"p{i % 4}"), "sk": N(i), "i": N(i)} for i in range(COUNT)])
    yield {"h": h, "c": c}
    drop_table(ddb, h)
    drop_table(ddb, c)


def pks(items) -> list[str]:
    return [it["pk"]["S"] for it in items]


def key_of(it) -> tuple:
    return (it["pk"]["S"], it.get("sk", {}).get("N"))


def test_full_scan_returns_every_item(ddb, tables):
    out = ddb.scan(TableName=tables["h"])
    assert sorted(pks(out["Items"])) == [f"item-{i:03d}" for i in range(COUNT)]
    assert out["Count"] == out["ScannedCount"] == COUNT
    assert "LastEvaluatedKey" not in out


def test_filter_count_versus_scanned_count(ddb, tables):
    out = ddb.scan(TableName=tables["h"], FilterExpression="grp = :g AND i < :n",
                   ExpressionAttributeValues={":g": S("odd"), ":n": N(10)})
    assert sorted(pks(out["Items"])) == [f"item-{i:03d}" for i in (1, 3, 5, 7, 9)]
    assert (out["Count"], out["ScannedCount"]) == (5, COUNT)


def test_filter_on_key_attribute_and_no_match(ddb, tables):
    out = ddb.scan(TableName=tables["h"], FilterExpression="begins_with(pk, :p)",
                   ExpressionAttributeValues={":p": S("item-01")})
    assert sorted(pks(out["Items"])) == [f"item-{i:03d}" for i in range(10, 20)]
    out = ddb.scan(TableName=tables["h"], FilterExpression="pk = :p",
                   ExpressionAttributeValues={":p": S("nothing")})
    assert (out["Items"], out["Count"], out["ScannedCount"]) == ([], 0, COUNT)


def test_select_count_and_projection(ddb, tables):
    out = ddb.scan(TableName=tables["h"], Select="COUNT", FilterExpression="grp = :g",
                   ExpressionAttributeValues={":g": S("even")})
    assert "Items" not in out
    assert (out["Count"], out["ScannedCount"]) == (COUNT // 2, COUNT)
    out = ddb.scan(TableName=tables["h"], ProjectionExpression="i, #g",
                   ExpressionAttributeNames={"#g": "grp"})
    assert all(set(it) == {"i", "grp"} for it in out["Items"])
    assert len(out["Items"]) == COUNT


@pytest.mark.parametrize("limit", [1, 7, COUNT, COUNT + 1])
def test_limit_paging_sees_every_item_exactly_once(ddb, tables, limit):
    ps = pages(ddb.scan, TableName=tables["h"], Limit=limit)
    seen = pks([it for p in ps for it in p["Items"]])
    assert sorted(seen) == [f"item-{i:03d}" for i in range(COUNT)]
    assert len(seen) == len(set(seen))
    for p in ps:
        assert len(p["Items"]) <= limit
        assert p["ScannedCount"] == p["Count"] == len(p["Items"])
        if "LastEvaluatedKey" in p:
            assert p["LastEvaluatedKey"] == {"pk": p["Items"][-1]["pk"]}
    if limit < COUNT:
        assert len(ps) >= COUNT // limit


def test_paging_composite_table_with_filter(ddb, tables):
    ps = pages(ddb.scan, TableName=tables["c"], Limit=6, FilterExpression="i >= :n",
               ExpressionAttributeValues={":n": N(20)})
    items = [it for p in ps for it in p["Items"]]
    assert sorted(int(it["i"]["N"]) for it in items) == list(range(20, COUNT))
    assert sum(p["ScannedCount"] for p in ps) == COUNT
    for p in ps:
        if "LastEvaluatedKey" in p and p["Items"]:
            assert set(p["LastEvaluatedKey"]) == {"pk", "sk"}
    # Items of one partition come out together, in sort-key order.
    by_pk: dict = {}
    for it in all_items(ddb.scan, TableName=tables["c"], Limit=5):
        by_pk.setdefault(it["pk"]["S"], []).append(int(it["sk"]["N"]))
    assert sorted(by_pk) == ["p0", "p1", "p2", "p3"]
    for pk, values in by_pk.items():
        assert values == sorted(values) == list(range(int(pk[1]), COUNT, 4))


def segment_items(client, table, seg, total, **kw) -> list:
    return all_items(client.scan, TableName=table, Segment=seg, TotalSegments=total, **kw)


@pytest.mark.parametrize("total", [1, 2, 3, 4, 7, 64])
def test_parallel_scan_segments_are_disjoint_and_cover_the_table(ddb, tables, total):
    for table in (tables["h"], tables["c"]):
        full = sorted(key_of(it) for it in all_items(ddb.scan, TableName=table))
        per_segment = [[key_of(it) for it in segment_items(ddb, table, s, total, Limit=4)]
                       for s in range(total)]
        union = [k for seg in per_segment for k in seg]
        assert len(union) == len(set(union)), "an item was returned by two segments"
        assert sorted(union) == full
        if total == 64 and table == tables["h"]:
            assert any(len(seg) == 0 for seg in per_segment)


def test_parallel_scan_from_concurrent_clients_with_filter(endpoint, tables):
    total = 4

    def run(seg):
        client = make_client(endpoint)
        return segment_items(client, tables["h"], seg, total, Limit=3,
                             FilterExpression="grp = :g",
                             ExpressionAttributeValues={":g": S("odd")})

    with ThreadPoolExecutor(max_workers=total) as pool:
        results = list(pool.map(run, range(total)))
    union = [it["pk"]["S"] for seg in results for it in seg]
    assert sorted(union) == [f"item-{i:03d}" for i in range(1, COUNT, 2)]
    assert len(union) == len(set(union))


def test_parallel_scan_select_count_adds_up(ddb, tables):
    total = sum(p["Count"] for s in range(3)
                for p in pages(ddb.scan, TableName=tables["c"], Segment=s, TotalSegments=3,
                               Select="COUNT"))
    assert total == COUNT


# ---- errors --------------------------------------------------------------------------------------

@pytest.mark.parametrize("kw,msg", [
    ({"Segment": 0}, "The TotalSegments parameter is required but was not present in the request "
     "when Segment parameter is present"),
    ({"TotalSegments": 4}, "The Segment parameter is required but was not present in the request "
     "when parameter TotalSegments is present"),
    ({"Segment": 5, "TotalSegments": 5}, "The Segment parameter is zero-based and must be less "
     "than parameter TotalSegments: Segment: 5 is not less than TotalSegments: 5"),
    ({"Limit": 0}, "1 validation error detected: Value '0' at 'limit' failed to satisfy "
     "constraint: Member must have value greater than or equal to 1"),
])
def test_scan_parameter_errors(ddb, tables, kw, msg):
    assert_error(ddb.scan, V, msg, TableName=tables["h"], **kw)


def test_scan_of_missing_table(ddb):
    assert_error(ddb.scan, "ResourceNotFoundException", "Requested resource not found",
                 TableName=unique_name("missing"))


def test_paging_continues_after_the_last_evaluated_item_is_deleted(ddb):
    name = make_table(ddb, unique_name("scandel"))
    try:
        keys = [f"k{i:02d}" for i in range(30)]
        batch_put(ddb, name, [{"pk": S(k)} for k in keys])
        seen, start, deleted = [], None, []
        for _ in range(100):
            kw = {"ExclusiveStartKey": start} if start else {}
            page = ddb.scan(TableName=name, Limit=4, **kw)
            seen.extend(it["pk"]["S"] for it in page["Items"])
            start = page.get("LastEvaluatedKey")
            if not start:
                break
            ddb.delete_item(TableName=name, Key=start)  # the cursor's item disappears
            deleted.append(start["pk"]["S"])
        assert len(seen) == len(set(seen)) == len(keys)
        assert sorted(seen) == keys
        assert len(deleted) >= 7
    finally:
        drop_table(ddb, name)
