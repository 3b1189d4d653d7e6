"""Paging across many pages: the 1 MB page limit of Query and Scan, and Limit on large partitions.

Every item must be seen exactly once, in order for Query, whatever ends a page (Limit or 1 MB).
"""
from __future__ import annotations

import pytest

from dataplane_util import N, S, batch_put, drop_table, make_table, pages
from e2e_util import unique_name

MB = 1024 * 1024
PARTITION_ITEMS = 250
SMALL_PAYLOAD = 5000          # ~5 KB items: 250 of them are ~1.25 MB, more than one page
BIG_ITEMS = 48
BIG_PAYLOAD = 100_000         # ~100 KB items: 48 of them are ~4.8 MB, at least 5 pages


def item_size(item: dict) -> int:
    """Approximate DynamoDB item size (names + string/number bytes), good enough here."""
    total = 0
    for name, value in item.items():
        total += len(name.encode())
        (kind, v), = value.items()
        total += len(v.encode()) if kind in ("S", "N") else 1
    return total


@pytest.fixture(scope="module")
def partition(ddb):
    name = make_table(ddb, unique_name("pgq"), range_key=("sk", "N"))
    batch_put(ddb, name, [{"pk": S("big"), "sk": N(i),
                           "payload": S(chr(97 + i % 26) * SMALL_PAYLOAD)}
                          for i in range(PARTITION_ITEMS)])
    ddb.put_item(TableName=name, Item={"pk": S("small"), "sk": N(0)})
    yield name
    drop_table(ddb, name)


@pytest.fixture(scope="module")
def big_table(ddb):
    name = make_table(ddb, unique_name("pgs"))
    batch_put(ddb, name, [{"pk": S(f"k{i:02d}"), "payload": S("z" * BIG_PAYLOAD)}
                          for i in range(BIG_ITEMS)])
    yield name
    drop_table(ddb, name)


def query(ddb, table, **kw):
    return ddb.query(TableName=table, KeyConditionExpression="pk = :p",
                     ExpressionAttributeValues={":p": S("big")}, **kw)


@pytest.mark.parametrize("limit", [7, 37, 100, 249, 250])
def test_query_limit_pages_through_250_items_of_5kb(ddb, partition, limit):
    ps = pages(query, ddb=ddb, table=partition, Limit=limit)
    seen = [int(it["sk"]["N"]) for p in ps for it in p["Items"]]
    assert seen == list(range(PARTITION_ITEMS))
    assert all(len(p["Items"]) <= limit for p in ps)
    assert len(ps) >= -(-PARTITION_ITEMS // limit)
    for p in ps[:-1]:
        assert p["LastEvaluatedKey"] == {"pk": S("big"), "sk": p["Items"][-1]["sk"]}


@pytest.mark.parametrize("forward", [True, False], ids=["asc", "desc"])
def test_query_without_limit_stops_at_1mb(ddb, partition, forward):
    ps = pages(query, ddb=ddb, table=partition, ScanIndexForward=forward)
    assert len(ps) >= 2, "1.25 MB of items must not fit in one page"
    first = ps[0]
    assert "LastEvaluatedKey" in first
    size = sum(item_size(it) for it in first["Items"])
    assert 0.9 * MB <= size <= MB + 2 * (SMALL_PAYLOAD + 100), size
    seen = [int(it["sk"]["N"]) for p in ps for it in p["Items"]]
    expected = list(range(PARTITION_ITEMS))
    assert seen == (expected if forward else expected[::-1])


def test_query_count_is_also_paged_at_1mb(ddb, partition):
    ps = pages(query, ddb=ddb, table=partition, Select="COUNT")
    assert len(ps) >= 2
    assert ps[0]["Count"] < PARTITION_ITEMS
    assert sum(p["Count"] for p in ps) == PARTITION_ITEMS
    assert sum(p["ScannedCount"] for p in ps) == PARTITION_ITEMS


def test_query_filter_evaluates_at_most_1mb_per_page(ddb, partition):
    # Filter matches nothing: pages are empty but still end at 1 MB of evaluated items.
    ps = pages(query, ddb=ddb, table=partition, FilterExpression="attribute_exists(nothing)")
    assert len(ps) >= 2
    assert all(p["Items"] == [] and p["Count"] == 0 for p in ps)
    assert sum(p["ScannedCount"] for p in ps) == PARTITION_ITEMS
    assert ps[0]["ScannedCount"] < PARTITION_ITEMS


def test_scan_over_several_1mb_pages(ddb, big_table):
    ps = pages(ddb.scan, TableName=big_table)
    assert len(ps) >= 5, [len(p["Items"]) for p in ps]
    for p in ps:
        size = sum(item_size(it) for it in p["Items"])
        assert size <= MB + BIG_PAYLOAD + 100, size
        assert p["Count"] == p["ScannedCount"] == len(p["Items"])
    seen = [it["pk"]["S"] for p in ps for it in p["Items"]]
    assert sorted(seen) == [f"k{i:02d}" for i in range(BIG_ITEMS)]
    assert len(seen) == len(set(seen))


def test_parallel_scan_over_1mb_pages(ddb, big_table):
    seen = []
    for seg in range(3):
        for p in pages(ddb.scan, TableName=big_table, Segment=seg, TotalSegments=3,
                       ProjectionExpression="pk"):
            seen.extend(it["pk"]["S"] for it in p["Items"])
    assert sorted(seen) == [f"k{i:02d}" for i in range(BIG_ITEMS)]
    assert len(seen) == len(set(seen))


def test_scan_projection_does_not_change_the_1mb_page_boundary(ddb, big_table):
    # The 1 MB limit applies to the data read, not to the (projected) data returned.
    ps = pages(ddb.scan, TableName=big_table, ProjectionExpression="pk")
    assert len(ps) >= 5
    assert sum(len(p["Items"]) for p in ps) == BIG_ITEMS
