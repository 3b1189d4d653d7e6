"""DynamoDB Streams shard lineage through boto3: a server whose shards roll over every second
(`--stream-shard-rollover-seconds 1`), a reader that follows parent -> child shards (by
DescribeStream's ParentShardId and by ShardFilter CHILD_SHARDS) while puts, updates, deletes and
TTL expiry deletes happen, and that ends with every record exactly once and in order per key;
closed shards end GetRecords (no NextShardIterator) for every iterator type; ShardFilter
refusals; DescribeStream paging across the shards.

Debian's botocore predates ShardFilter (added to the service in 2025), so `describe` adds it to
the JSON body the unchanged client sends (an event hook, the SDK's own extension point)."""
from __future__ import annotations

import json
import threading
import time

import pytest

from e2e_util import assert_error, create_table, make_client, make_streams_client, unique_name

SERVICE = {"PrincipalId": "dynamodb.amazonaws.com", "Type": "Service"}
ROLLOVER_S = 1
WRITE_SECONDS = 3.5


def _pop_shard_filter(params, model, context, **_):
    if model.name == "DescribeStream" and "ShardFilter" in params:
        context["shard_filter"] = params.pop("ShardFilter")


def _add_shard_filter(model, params, context, **_):
    if model.name == "DescribeStream" and "shard_filter" in context:
        body = json.loads(params["body"] or b"{}")
        body["ShardFilter"] = context["shard_filter"]
        params["body"] = json.dumps(body).encode()


@pytest.fixture(scope="module")
def shard_server(tmp_path_factory):
    from e2e_util import ServerProcess
    root = tmp_path_factory.mktemp("shards")
    srv = ServerProcess(root / "data", root / "ttlstore.log",
                        ["--stream-shard-rollover-seconds", str(ROLLOVER_S),
                         "--ttl-sweep-interval-ms", "50"]).start()
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def ddb(shard_server):
    return make_client(shard_server.endpoint)


@pytest.fixture(scope="module")
def streams(shard_server):
    client = make_streams_client(shard_server.endpoint)
    client.meta.events.register("before-parameter-build", _pop_shard_filter)
    client.meta.events.register("before-call", _add_shard_filter)
    return client


def describe_all(streams, arn, **kwargs):
    """Every shard DescribeStream lists, following LastEvaluatedShardId."""
    shards, start = [], None
    for _ in range(1000):
        args = dict(StreamArn=arn, **kwargs)
        if start:
            args["ExclusiveStartShardId"] = start
        desc = streams.describe_stream(**args)["StreamDescription"]
        shards += desc["Shards"]
        start = desc.get("LastEvaluatedShardId")
        if not start:
            return shards
    raise AssertionError("DescribeStream paging did not end")


def children(streams, arn, shard_id, use_filter):
    if use_filter:
        return describe_all(streams, arn, ShardFilter={"Type": "CHILD_SHARDS", "ShardId": shard_id})
    return [s for s in describe_all(streams, arn) if s.get("ParentShardId") == shard_id]


class Writer(threading.Thread):
    """Puts, updates and deletes on k0..k9, and items that expire at once on x*; records what
    each key's stream must show, in order."""

    def __init__(self, ddb, table):
        super().__init__(daemon=True)
        self.ddb, self.table = ddb, table
        self.expected: dict[str, list] = {}
        self.error = None

    def run(self):
        try:
            exists, n, deadline = set(), 0, time.monotonic() + WRITE_SECONDS
            while time.monotonic() < deadline:
                n += 1
                key = f"k{n % 10}"
                log = self.expected.setdefault(key, [])
                if n % 7 == 0 and key in exists:
                    self.ddb.delete_item(TableName=self.table, Key={"pk": {"S": key}})
                    exists.discard(key)
                    log.append(("REMOVE", None))
                elif n % 3 == 0 and key in exists:
                    self.ddb.update_item(TableName=self.table, Key={"pk": {"S": key}},
                                         UpdateExpression="SET v = :v",
                                         ExpressionAttributeValues={":v": {"N": str(n)}})
                    log.append(("MODIFY", str(n)))
                else:
                    self.ddb.put_item(TableName=self.table,
                                      Item={"pk": {"S": key}, "v": {"N": str(n)}})
                    log.append(("MODIFY" if key in exists else "INSERT", str(n)))
                    exists.add(key)
                if n % 11 == 0:
                    # Expired on arrival: the sweeper deletes it, a service REMOVE.
                    x = f"x{n}"
                    self.ddb.put_item(TableName=self.table, Item={
                        "pk": {"S": x}, "v": {"N": str(n)}, "ttl": {"N": str(int(time.time()) - 5)}})
                    self.expected[x] = [("INSERT", str(n)), ("SERVICE-REMOVE", None)]
                time.sleep(0.004)
        except Exception as e:  # noqa: BLE001 - reported by the test
            self.error = e

    def total(self) -> int:
        return sum(len(v) for v in self.expected.values())


def summary(record):
    d = record["dynamodb"]
    if record["eventName"] == "REMOVE":
        return ("SERVICE-REMOVE" if record.get("userIdentity") == SERVICE else "REMOVE", None)
    return (record["eventName"], d["NewImage"]["v"]["N"])


def read_shard(streams, arn, shard_id, stop):
    """Reads one shard from TRIM_HORIZON until GetRecords returns no NextShardIterator (closed and
    read to its end), or, on the open shard, until stop() says everything expected has arrived."""
    it = streams.get_shard_iterator(StreamArn=arn, ShardId=shard_id,
                                    ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
    out = []
    while True:
        page = streams.get_records(ShardIterator=it, Limit=25)
        out += page["Records"]
        if "NextShardIterator" not in page:
            return out, True
        if not page["Records"]:
            if stop(out):
                return out, False
            time.sleep(0.02)
        it = page["NextShardIterator"]


def stream_table(ddb, name):
    desc = create_table(ddb, name, StreamSpecification={"StreamEnabled": True,
                                                        "StreamViewType": "NEW_AND_OLD_IMAGES"})
    ddb.update_time_to_live(TableName=name, TimeToLiveSpecification={
        "Enabled": True, "AttributeName": "ttl"})
    return desc["LatestStreamArn"]


@pytest.fixture(scope="module")
def followed(ddb, streams):
    """One stream written for a few seconds and read shard by shard while being written."""
    name = unique_name("lineage")
    arn = stream_table(ddb, name)
    writer = Writer(ddb, name)
    writer.start()
    deadline = time.monotonic() + WRITE_SECONDS + 20
    records, visited, closed_seen = [], [], []
    roots = [s for s in describe_all(streams, arn) if "ParentShardId" not in s]
    assert len(roots) == 1
    shard_id, use_filter = roots[0]["ShardId"], True

    def done(so_far):
        assert time.monotonic() < deadline, "the reader did not see every record in time"
        return not writer.is_alive() and len(records) + len(so_far) >= writer.total()

    while True:
        got, closed = read_shard(streams, arn, shard_id, done)
        records += got
        visited.append(shard_id)
        if not closed:
            break
        closed_seen.append(shard_id)
        # The child can be listed a little after the parent closed: wait for it.
        for _ in range(500):
            kids = children(streams, arn, shard_id, use_filter)
            if kids:
                break
            time.sleep(0.01)
        assert len(kids) == 1, kids
        assert kids[0]["ParentShardId"] == shard_id
        shard_id, use_filter = kids[0]["ShardId"], not use_filter
    writer.join()
    assert writer.error is None, writer.error
    return dict(arn=arn, name=name, records=records, visited=visited, closed=closed_seen,
                expected=writer.expected)


def test_reader_follows_lineage_and_sees_every_record_once_in_order(followed):
    records = followed["records"]
    assert len(followed["visited"]) >= 3, followed["visited"]  # at least two rollovers
    ids = [r["eventID"] for r in records]
    seqs = [int(r["dynamodb"]["SequenceNumber"]) for r in records]
    assert len(set(ids)) == len(ids) and len(set(seqs)) == len(seqs)
    assert seqs == sorted(seqs)  # shard after shard, numbers only rise
    per_key: dict[str, list] = {}
    for r in records:
        per_key.setdefault(r["dynamodb"]["Keys"]["pk"]["S"], []).append(summary(r))
    assert per_key == followed["expected"]
    assert any(k.startswith("x") for k in per_key)  # TTL deletes were among them


def test_closed_shards_have_an_end_and_their_child_names_them(streams, followed):
    shards = describe_all(streams, followed["arn"])
    by_id = {s["ShardId"]: s for s in shards}
    for sid in followed["closed"]:
        rng = by_id[sid]["SequenceNumberRange"]
        assert int(rng["StartingSequenceNumber"]) <= int(rng["EndingSequenceNumber"])
    open_shards = [s for s in shards if "EndingSequenceNumber" not in s["SequenceNumberRange"]]
    assert [s["ShardId"] for s in open_shards] == [shards[-1]["ShardId"]]
    for parent, child in zip(shards, shards[1:]):
        assert child["ParentShardId"] == parent["ShardId"]
        assert (int(parent["SequenceNumberRange"]["EndingSequenceNumber"])
                < int(child["SequenceNumberRange"]["StartingSequenceNumber"]))


def test_every_iterator_type_ends_on_a_closed_shard(streams, followed):
    arn = followed["arn"]
    shards = describe_all(streams, arn)
    closed, child = shards[0], shards[1]
    sid = closed["ShardId"]
    end = closed["SequenceNumberRange"]["EndingSequenceNumber"]

    def first_page(kind, seq=None):
        args = dict(StreamArn=arn, ShardId=sid, ShardIteratorType=kind)
        if seq:
            args["SequenceNumber"] = seq
        it = streams.get_shard_iterator(**args)["ShardIterator"]
        return streams.get_records(ShardIterator=it, Limit=1000)

    latest = first_page("LATEST")
    assert latest["Records"] == [] and "NextShardIterator" not in latest
    after = first_page("AFTER_SEQUENCE_NUMBER", end)
    assert after["Records"] == [] and "NextShardIterator" not in after
    at = first_page("AT_SEQUENCE_NUMBER", end)
    assert [r["dynamodb"]["SequenceNumber"] for r in at["Records"]] == [end]
    assert "NextShardIterator" not in at
    whole = first_page("TRIM_HORIZON")
    assert whole["Records"][-1]["dynamodb"]["SequenceNumber"] == end
    assert "NextShardIterator" not in whole
    # A number of the child shard is not one of this shard's.
    child_start = child["SequenceNumberRange"]["StartingSequenceNumber"]
    for kind in ("AT_SEQUENCE_NUMBER", "AFTER_SEQUENCE_NUMBER"):
        assert_error(streams.get_shard_iterator, "ValidationException",
                     "One or more parameter values were invalid: Invalid SequenceNumber",
                     StreamArn=arn, ShardId=sid, ShardIteratorType=kind,
                     SequenceNumber=child_start)
        assert_error(streams.get_shard_iterator, "ValidationException",
                     "One or more parameter values were invalid: Invalid SequenceNumber",
                     StreamArn=arn, ShardId=child["ShardId"], ShardIteratorType=kind,
                     SequenceNumber=end)


def test_describe_stream_pages_across_the_shards(streams, followed):
    arn = followed["arn"]
    whole = streams.describe_stream(StreamArn=arn)["StreamDescription"]
    assert "LastEvaluatedShardId" not in whole
    ids = [s["ShardId"] for s in whole["Shards"]]
    assert len(ids) >= 3 and ids == sorted(ids)
    for limit in (1, 2):
        assert [s["ShardId"] for s in describe_all(streams, arn, Limit=limit)] == ids
    page = streams.describe_stream(StreamArn=arn, Limit=len(ids))["StreamDescription"]
    assert "LastEvaluatedShardId" not in page
    # Children of each shard, paged too; the open shard has none yet.
    for parent, child in zip(ids, ids[1:] + [None]):
        kids = describe_all(streams, arn, Limit=1,
                            ShardFilter={"Type": "CHILD_SHARDS", "ShardId": parent})
        assert [k["ShardId"] for k in kids] == ([child] if child else [])
    # Past the last shard: nothing.
    assert streams.describe_stream(StreamArn=arn, ExclusiveStartShardId=ids[-1])[
        "StreamDescription"]["Shards"] == []


def test_shard_filter_refusals(streams, followed, ddb):
    arn = followed["arn"]
    sid = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]

    def refuse(code, message, shard_filter):
        assert_error(streams.describe_stream, code, message, StreamArn=arn,
                     ShardFilter=shard_filter)

    refuse("ValidationException",
           "1 validation error detected: Value 'PARENT_SHARDS' at 'shardFilter.type' failed to "
           "satisfy constraint: Member must satisfy enum value set: [CHILD_SHARDS]",
           {"Type": "PARENT_SHARDS", "ShardId": sid})
    refuse("ValidationException",
           "1 validation error detected: Value 'shardId-1' at 'shardFilter.shardId' failed to "
           "satisfy constraint: Member must have length greater than or equal to 28",
           {"Type": "CHILD_SHARDS", "ShardId": "shardId-1"})
    refuse("ValidationException", "One or more parameter values were invalid: ShardFilter of "
           "type CHILD_SHARDS requires a ShardId", {"Type": "CHILD_SHARDS"})
    refuse("ValidationException", "One or more parameter values were invalid: ShardFilter Type "
           "is required; the only type is CHILD_SHARDS", {"ShardId": sid})
    missing = "Requested resource not found: Shard does not exist"
    refuse("ResourceNotFoundException", missing,
           {"Type": "CHILD_SHARDS", "ShardId": sid[:-8] + "7fffffff"})
    refuse("ResourceNotFoundException", missing,
           {"Type": "CHILD_SHARDS", "ShardId": "shardId-00000000000000000001-00000000"})
