"""Concurrent writers: atomic counters, put-if-absent races, optimistic locking and transactions.

Every thread has its own boto3 client (its own connections). All threads start together.
"""
from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from botocore.exceptions import ClientError

from dataplane_util import N, S, drop_table, get, make_table
from e2e_util import make_client, unique_name

CLIENTS = 8
CALLS = 50


@pytest.fixture(scope="module")
def tbl(ddb):
    name = make_table(ddb, unique_name("conc"))
    yield name
    drop_table(ddb, name)


def run_threads(endpoint, n, fn, clients=None):
    """Run fn(client, index) in n threads that start at the same moment; return the results."""
    clients = clients or [make_client(endpoint) for _ in range(n)]
    barrier = threading.Barrier(n)

    def body(i):
        barrier.wait(timeout=30)
        return fn(clients[i], i)

    with ThreadPoolExecutor(max_workers=n) as pool:
        return list(pool.map(body, range(n)))


def test_concurrent_add_counter_is_exact(endpoint, ddb, tbl):
    key = {"pk": S("counter")}

    def work(client, _):
        seen = []
        for _ in range(CALLS):
            out = client.update_item(TableName=tbl, Key=key, UpdateExpression="ADD #c :one",
                                     ExpressionAttributeNames={"#c": "counter"},
                                     ExpressionAttributeValues={":one": N(1)},
                                     ReturnValues="UPDATED_NEW")
            seen.append(int(out["Attributes"]["counter"]["N"]))
        return seen

    results = run_threads(endpoint, CLIENTS, work)
    assert get(ddb, tbl, key)["counter"] == N(CLIENTS * CALLS)
    every = sorted(v for r in results for v in r)
    assert every == list(range(1, CLIENTS * CALLS + 1)), "two increments saw the same value"
    for r in results:
        assert r == sorted(r)


def test_concurrent_set_arithmetic_on_nested_counter(endpoint, ddb, tbl):
    key = {"pk": S("nested-counter")}
    ddb.put_item(TableName=tbl, Item={**key, "m": {"M": {"n": N(0)}}})

    def work(client, _):
        for _ in range(CALLS // 2):
            client.update_item(TableName=tbl, Key=key, UpdateExpression="SET m.n = m.n + :one",
                               ExpressionAttributeValues={":one": N(1)})

    run_threads(endpoint, CLIENTS, work)
    assert get(ddb, tbl, key)["m"] == {"M": {"n": N(CLIENTS * (CALLS // 2))}}


def test_put_if_absent_race_has_exactly_one_winner(endpoint, ddb, tbl):
    clients = [make_client(endpoint) for _ in range(CLIENTS)]
    for round_ in range(20):
        key = {"pk": S(f"race-{round_}")}

        def work(client, i):
            try:
                client.put_item(TableName=tbl, Item={**key, "owner_": N(i)},
                                ConditionExpression="attribute_not_exists(pk)")
                return i
            except ClientError as e:
                assert e.response["Error"]["Code"] == "ConditionalCheckFailedException"
                return None

        won = [r for r in run_threads(endpoint, CLIENTS, work, clients) if r is not None]
        assert len(won) == 1, won
        assert get(ddb, tbl, key)["owner_"] == N(won[0])


def test_optimistic_locking_loses_no_update(endpoint, ddb, tbl):
    key = {"pk": S("versioned")}
    ddb.put_item(TableName=tbl, Item={**key, "ver": N(0), "log": {"L": []}})
    writers, each = 4, 10

    def work(client, i):
        done = conflicts = 0
        while done < each:
            item = client.get_item(TableName=tbl, Key=key, ConsistentRead=True)["Item"]
            ver = int(item["ver"]["N"])
            try:
                client.update_item(
                    TableName=tbl, Key=key, ConditionExpression="ver = :v",
                    UpdateExpression="SET ver = :next, #l = list_append(#l, :entry)",
                    ExpressionAttributeNames={"#l": "log"},
                    ExpressionAttributeValues={":v": N(ver), ":next": N(ver + 1),
                                               ":entry": {"L": [S(f"{i}-{done}")]}})
                done += 1
            except ClientError as e:
                assert e.response["Error"]["Code"] == "ConditionalCheckFailedException"
                conflicts += 1
                assert conflicts < 2000, "livelock"
        return conflicts

    run_threads(endpoint, writers, work)
    item = get(ddb, tbl, key)
    assert item["ver"] == N(writers * each)
    entries = [e["S"] for e in item["log"]["L"]]
    assert sorted(entries) == sorted(f"{i}-{d}" for i in range(writers) for d in range(each))


def test_concurrent_transactions_are_atomic(endpoint, ddb, tbl):
    a, b = {"pk": S("tx-a")}, {"pk": S("tx-b")}
    ddb.put_item(TableName=tbl, Item={**a, "n": N(0)})
    ddb.put_item(TableName=tbl, Item={**b, "n": N(0)})
    threads, each = 4, 15

    def work(client, _):
        for _ in range(each):
            client.transact_write_items(TransactItems=[
                {"Update": {"TableName": tbl, "Key": a, "UpdateExpression": "ADD n :one",
                            "ExpressionAttributeValues": {":one": N(1)}}},
                {"Update": {"TableName": tbl, "Key": b, "UpdateExpression": "ADD n :minus",
                            "ExpressionAttributeValues": {":minus": N(-1)}}},
            ])
            got = client.transact_get_items(TransactItems=[
                {"Get": {"TableName": tbl, "Key": a}}, {"Get": {"TableName": tbl, "Key": b}}])
            na, nb = (int(r["Item"]["n"]["N"]) for r in got["Responses"])
            assert na + nb == 0, (na, nb)

    run_threads(endpoint, threads, work)
    assert get(ddb, tbl, a)["n"] == N(threads * each)
    assert get(ddb, tbl, b)["n"] == N(-threads * each)


def test_updates_and_transactions_on_one_item_serialize(endpoint, ddb, tbl):
    key = {"pk": S("mixed-writers")}
    each = 25

    def work(client, i):
        for _ in range(each):
            if i % 2:
                client.update_item(TableName=tbl, Key=key, UpdateExpression="ADD n :one",
                                   ExpressionAttributeValues={":one": N(1)})
            else:
                client.transact_write_items(TransactItems=[{"Update": {
                    "TableName": tbl, "Key": key, "UpdateExpression": "ADD n :one",
                    "ExpressionAttributeValues": {":one": N(1)}}}])

    run_threads(endpoint, 4, work)
    assert get(ddb, tbl, key)["n"] == N(4 * each)


def test_same_client_request_token_from_concurrent_clients_applies_once(endpoint, ddb, tbl):
    # Many rounds (new token and items each time) of a 50-action transaction sent by every client
    # at once, so that a check-then-act race in the token cache shows up.
    clients = [make_client(endpoint) for _ in range(CLIENTS)]
    for round_ in range(60):
        keys = [{"pk": S(f"token-race-{round_}-{i}")} for i in range(50)]
        request = dict(ClientRequestToken=f"token-race-{round_:04d}", TransactItems=[
            {"Update": {"TableName": tbl, "Key": key, "UpdateExpression": "ADD n :one",
                        "ExpressionAttributeValues": {":one": N(1)}}} for key in keys])

        def work(client, _):
            try:
                client.transact_write_items(**request)
                return "ok"
            except ClientError as e:
                return e.response["Error"]["Code"]

        results = run_threads(endpoint, CLIENTS, work, clients)
        assert set(results) <= {"ok", "TransactionInProgressException"}, results
        assert "ok" in results
        assert get(ddb, tbl, keys[0])["n"] == N(1), f"round {round_}: applied more than once"
        assert get(ddb, tbl, keys[-1])["n"] == N(1), f"round {round_}: applied more than once"


def test_scan_pages_while_items_change_see_each_stable_item_once(endpoint, ddb, tbl):
    name = make_table(ddb, unique_name("concscan"))
    try:
        stable = [f"s{i:03d}" for i in range(150)]
        for i in range(0, 150, 25):
            ddb.batch_write_item(RequestItems={name: [
                {"PutRequest": {"Item": {"pk": S(pk), "v": N(0)}}} for pk in stable[i:i + 25]]})
        stop = threading.Event()

        def writer():
            client = make_client(endpoint)
            j = 0
            while not stop.is_set():
                client.update_item(TableName=name, Key={"pk": S(stable[j % 150])},
                                   UpdateExpression="ADD v :one",
                                   ExpressionAttributeValues={":one": N(1)})
                client.put_item(TableName=name, Item={"pk": S(f"new{j:05d}")})
                if j % 3 == 0:
                    client.delete_item(TableName=name, Key={"pk": S(f"new{j:05d}")})
                j += 1

        thread = threading.Thread(target=writer)
        thread.start()
        try:
            for _ in range(3):
                seen, start = [], None
                for _ in range(1000):
                    kw = {"ExclusiveStartKey": start} if start else {}
                    page = ddb.scan(TableName=name, Limit=7, **kw)
                    seen.extend(it["pk"]["S"] for it in page["Items"])
                    start = page.get("LastEvaluatedKey")
                    if not start:
                        break
                got = [pk for pk in seen if pk.startswith("s")]
                assert sorted(got) == stable, "a stable item was missed or seen twice"
                assert len(seen) == len(set(seen))
        finally:
            stop.set()
            thread.join(timeout=30)
    finally:
        drop_table(ddb, name)
