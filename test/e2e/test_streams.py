"""DynamoDB Streams through boto3's unchanged `dynamodbstreams` client: records per view type,
no record for a no-op write, iterator types, paging, errors, every write path (BatchWrite,
TransactWrite, UpdateItem, PartiQL), TTL expiry as a service REMOVE (D7), restart, and stream
disable / re-enable / DeleteTable."""
from __future__ import annotations

import signal
import time

import pytest

from e2e_util import assert_error, create_table, make_client, make_streams_client, unique_name

SERVICE = {"PrincipalId": "dynamodb.amazonaws.com", "Type": "Service"}


def stream_table(ddb, name, view="NEW_AND_OLD_IMAGES", **extra) -> str:
    desc = create_table(ddb, name, StreamSpecification={"StreamEnabled": True,
                                                        "StreamViewType": view}, **extra)
    assert desc["StreamSpecification"] == {"StreamEnabled": True, "StreamViewType": view}
    assert desc["LatestStreamArn"] == desc["TableArn"] + "/stream/" + desc["LatestStreamLabel"]
    return desc["LatestStreamArn"]


def shard_ids(streams, arn):
    return [s["ShardId"] for s in
            streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]]


def iterator(streams, arn, kind="TRIM_HORIZON", seq=None, shard=None):
    kwargs = dict(StreamArn=arn, ShardId=shard or shard_ids(streams, arn)[0],
                  ShardIteratorType=kind)
    if seq is not None:
        kwargs["SequenceNumber"] = seq
    return streams.get_shard_iterator(**kwargs)["ShardIterator"]


def read_all(streams, arn, it=None):
    """Every record from `it` (default: TRIM_HORIZON of the first shard) to the present."""
    it = it or iterator(streams, arn)
    out = []
    for _ in range(1000):
        page = streams.get_records(ShardIterator=it)
        out += page["Records"]
        if not page["Records"] or "NextShardIterator" not in page:
            break
        it = page["NextShardIterator"]
    return out


def summary(records):
    return [(r["eventName"], r["dynamodb"]["Keys"]["pk"]["S"]) for r in records]


@pytest.mark.parametrize("view", ["KEYS_ONLY", "NEW_IMAGE", "OLD_IMAGE", "NEW_AND_OLD_IMAGES"])
def test_insert_modify_remove_records_per_view_type(ddb, streams, table_name, view):
    arn = stream_table(ddb, table_name, view)
    key = {"pk": {"S": "a"}}
    ddb.put_item(TableName=table_name, Item={**key, "v": {"N": "1"}})
    ddb.put_item(TableName=table_name, Item={**key, "v": {"N": "2"}})
    ddb.delete_item(TableName=table_name, Key=key)
    records = read_all(streams, arn)
    assert [r["eventName"] for r in records] == ["INSERT", "MODIFY", "REMOVE"]
    old = [None, {**key, "v": {"N": "1"}}, {**key, "v": {"N": "2"}}]
    new = [{**key, "v": {"N": "1"}}, {**key, "v": {"N": "2"}}, None]
    seqs = [r["dynamodb"]["SequenceNumber"] for r in records]
    assert all(len(s) >= 21 and s.isdigit() for s in seqs)
    assert [int(s) for s in seqs] == sorted(int(s) for s in seqs) and len(set(seqs)) == 3
    now = time.time()
    for r, o, n in zip(records, old, new):
        d = r["dynamodb"]
        assert r["eventSource"] == "aws:dynamodb" and r["eventVersion"] == "1.1"
        assert r["awsRegion"] == "us-east-1" and r["eventID"]
        assert "userIdentity" not in r  # user writes carry none
        assert d["Keys"] == key and d["StreamViewType"] == view and d["SizeBytes"] > 0
        assert abs(d["ApproximateCreationDateTime"].timestamp() - now) < 120
        assert d.get("NewImage") == (n if view in ("NEW_IMAGE", "NEW_AND_OLD_IMAGES") else None)
        assert d.get("OldImage") == (o if view in ("OLD_IMAGE", "NEW_AND_OLD_IMAGES") else None)
    assert len({r["eventID"] for r in records}) == 3


def test_a_write_that_changes_nothing_emits_no_record(ddb, streams, table_name):
    arn = stream_table(ddb, table_name)
    item = {"pk": {"S": "same"}, "n": {"N": "1.50"}}
    ddb.put_item(TableName=table_name, Item=item)
    ddb.put_item(TableName=table_name, Item={"pk": {"S": "same"}, "n": {"N": "1.5"}})
    ddb.update_item(TableName=table_name, Key={"pk": {"S": "same"}},
                    UpdateExpression="SET n = :v", ExpressionAttributeValues={":v": {"N": "1.5"}})
    ddb.delete_item(TableName=table_name, Key={"pk": {"S": "missing"}})
    assert summary(read_all(streams, arn)) == [("INSERT", "same")]


def test_iterator_types(ddb, streams, table_name):
    arn = stream_table(ddb, table_name, "KEYS_ONLY")
    for k in "abc":
        ddb.put_item(TableName=table_name, Item={"pk": {"S": k}})
    records = read_all(streams, arn)
    seqs = [r["dynamodb"]["SequenceNumber"] for r in records]
    assert summary(records) == [("INSERT", "a"), ("INSERT", "b"), ("INSERT", "c")]
    at = read_all(streams, arn, iterator(streams, arn, "AT_SEQUENCE_NUMBER", seqs[1]))
    assert summary(at) == [("INSERT", "b"), ("INSERT", "c")]
    after = read_all(streams, arn, iterator(streams, arn, "AFTER_SEQUENCE_NUMBER", seqs[1]))
    assert summary(after) == [("INSERT", "c")]
    latest = iterator(streams, arn, "LATEST")
    page = streams.get_records(ShardIterator=latest)
    assert page["Records"] == [] and page["NextShardIterator"]
    ddb.put_item(TableName=table_name, Item={"pk": {"S": "d"}})
    assert summary(read_all(streams, arn, page["NextShardIterator"])) == [("INSERT", "d")]
    # An iterator may be used again: it names a position, not a consumed cursor.
    assert summary(read_all(streams, arn, latest)) == [("INSERT", "d")]


def test_limit_and_next_shard_iterator_paging(ddb, streams, table_name):
    arn = stream_table(ddb, table_name, "NEW_IMAGE")
    for i in range(7):
        ddb.put_item(TableName=table_name, Item={"pk": {"S": f"k{i}"}})
    it, pages = iterator(streams, arn), []
    for _ in range(5):
        page = streams.get_records(ShardIterator=it, Limit=3)
        pages.append([r["dynamodb"]["Keys"]["pk"]["S"] for r in page["Records"]])
        it = page["NextShardIterator"]  # an open shard always has a next iterator
    assert pages == [["k0", "k1", "k2"], ["k3", "k4", "k5"], ["k6"], [], []]


def test_stream_api_errors(ddb, streams, table_name):
    arn = stream_table(ddb, table_name)
    shard = shard_ids(streams, arn)[0]
    good = iterator(streams, arn)
    assert_error(streams.get_records, "ValidationException", "Invalid ShardIterator",
                 ShardIterator="garbage")
    tampered = good[:-1] + ("0" if good[-1] != "0" else "1")
    assert_error(streams.get_records, "ValidationException", "Invalid ShardIterator",
                 ShardIterator=tampered)
    assert_error(streams.get_records, "ValidationException",
                 "One or more parameter values were invalid: Limit should be less than or "
                 "equal to 1000", ShardIterator=good, Limit=1001)
    missing = arn[:arn.rindex("/") + 1] + "2001-01-01T00:00:00.000"
    assert_error(streams.describe_stream, "ResourceNotFoundException",
                 f"Requested resource not found: Stream: {missing} not found", StreamArn=missing)
    assert_error(streams.get_shard_iterator, "ResourceNotFoundException",
                 f"Requested resource not found: Stream: {missing} not found", StreamArn=missing,
                 ShardId=shard, ShardIteratorType="TRIM_HORIZON")
    # Not a stream ARN at all: the service's ValidationException (Alternator's tests, run against
    # it, expect this type where DynamoDB Local says ResourceNotFoundException).
    for bad in ["sdfadfsdfnlfkajakfgjalksfgklasjklasdjfklasdfasdfgasf",
                arn[:arn.rindex("/") + 1] + "not-a-label",
                arn.replace(":table/", ":tables/")]:
        assert_error(streams.describe_stream, "ValidationException", "Invalid StreamArn",
                     StreamArn=bad)
        assert_error(streams.get_shard_iterator, "ValidationException", "Invalid StreamArn",
                     StreamArn=bad, ShardId=shard, ShardIteratorType="TRIM_HORIZON")
    assert_error(streams.get_shard_iterator, "ResourceNotFoundException",
                 "Requested resource not found: Shard does not exist", StreamArn=arn,
                 ShardId="shardId-00000000000000000001-00000000",
                 ShardIteratorType="TRIM_HORIZON")
    assert_error(streams.get_shard_iterator, "ValidationException",
                 "One or more parameter values were invalid: SequenceNumber should not be passed "
                 "for this iterator type", StreamArn=arn, ShardId=shard,
                 ShardIteratorType="LATEST", SequenceNumber="0" * 21)
    assert_error(streams.get_shard_iterator, "ValidationException",
                 "One or more parameter values were invalid: Invalid SequenceNumber",
                 StreamArn=arn, ShardId=shard, ShardIteratorType="AT_SEQUENCE_NUMBER")
    assert_error(streams.get_shard_iterator, "ValidationException",
                 "1 validation error detected: Value 'FIRST' at 'shardIteratorType' failed to "
                 "satisfy constraint: Member must satisfy enum value set: [TRIM_HORIZON, LATEST, "
                 "AT_SEQUENCE_NUMBER, AFTER_SEQUENCE_NUMBER]", StreamArn=arn, ShardId=shard,
                 ShardIteratorType="FIRST")


def test_stream_specification_errors(ddb, table_name):
    invalid = "One or more parameter values were invalid: "
    assert_error(create_table, "ValidationException",
                 invalid + "Table is being created with a stream enabled, UpdateViewType is "
                 "required", client=ddb, name=table_name,
                 StreamSpecification={"StreamEnabled": True})
    assert_error(create_table, "ValidationException",
                 invalid + "Table is being created with a stream disabled, UpdateViewType should "
                 "not be specified", client=ddb, name=table_name,
                 StreamSpecification={"StreamEnabled": False, "StreamViewType": "NEW_IMAGE"})
    assert_error(create_table, "ValidationException",
                 "1 validation error detected: Value 'ALL' at 'streamSpecification."
                 "streamViewType' failed to satisfy constraint: Member must satisfy enum value "
                 "set: [NEW_IMAGE, OLD_IMAGE, NEW_AND_OLD_IMAGES, KEYS_ONLY]", client=ddb,
                 name=table_name,
                 StreamSpecification={"StreamEnabled": True, "StreamViewType": "ALL"})
    desc = create_table(ddb, table_name, StreamSpecification={"StreamEnabled": False})
    assert "StreamSpecification" not in desc and "LatestStreamArn" not in desc
    assert_error(ddb.update_table, "ValidationException",
                 f"Table has no stream to disable: TableName: {table_name}",
                 TableName=table_name, StreamSpecification={"StreamEnabled": False})
    ddb.update_table(TableName=table_name,
                     StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"})
    assert_error(ddb.update_table, "ValidationException",
                 f"Table already has an enabled stream: TableName: {table_name}",
                 TableName=table_name,
                 StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"})


def test_records_from_every_write_path(ddb, streams, table_name):
    arn = stream_table(ddb, table_name)
    t = table_name
    ddb.batch_write_item(RequestItems={t: [
        {"PutRequest": {"Item": {"pk": {"S": "b1"}}}},
        {"PutRequest": {"Item": {"pk": {"S": "b2"}}}}]})
    ddb.batch_write_item(RequestItems={t: [{"DeleteRequest": {"Key": {"pk": {"S": "b1"}}}}]})
    ddb.transact_write_items(TransactItems=[
        {"Put": {"TableName": t, "Item": {"pk": {"S": "t1"}}}},
        {"Update": {"TableName": t, "Key": {"pk": {"S": "b2"}}, "UpdateExpression": "SET x = :x",
                    "ExpressionAttributeValues": {":x": {"S": "tx"}}}},
    ])
    ddb.transact_write_items(TransactItems=[
        {"Delete": {"TableName": t, "Key": {"pk": {"S": "t1"}}}}])
    ddb.update_item(TableName=t, Key={"pk": {"S": "u1"}}, UpdateExpression="SET y = :y",
                    ExpressionAttributeValues={":y": {"N": "1"}})
    ddb.execute_statement(Statement=f"INSERT INTO \"{t}\" VALUE {{'pk': 'p1', 'z': 1}}")
    ddb.execute_statement(Statement=f"UPDATE \"{t}\" SET z = 2 WHERE pk = 'p1'")
    ddb.execute_statement(Statement=f"DELETE FROM \"{t}\" WHERE pk = 'p1'")
    records = read_all(streams, arn)
    got = summary(records)
    assert sorted(got[:2]) == [("INSERT", "b1"), ("INSERT", "b2")]
    assert got[2] == ("REMOVE", "b1")
    assert sorted(got[3:5]) == [("INSERT", "t1"), ("MODIFY", "b2")]
    assert got[5:] == [("REMOVE", "t1"), ("INSERT", "u1"), ("INSERT", "p1"), ("MODIFY", "p1"),
                       ("REMOVE", "p1")]
    modify_b2 = next(r for r in records if summary([r]) == [("MODIFY", "b2")])
    assert modify_b2["dynamodb"]["OldImage"] == {"pk": {"S": "b2"}}
    assert modify_b2["dynamodb"]["NewImage"] == {"pk": {"S": "b2"}, "x": {"S": "tx"}}
    assert all("userIdentity" not in r for r in records)


def test_ttl_expiry_is_a_service_remove_and_user_delete_is_not(ddb, streams, table_name):
    arn = stream_table(ddb, table_name, "NEW_AND_OLD_IMAGES")
    ddb.update_time_to_live(TableName=table_name, TimeToLiveSpecification={
        "Enabled": True, "AttributeName": "ttl"})
    expired = {"pk": {"S": "old"}, "ttl": {"N": str(int(time.time()) - 1)}, "d": {"S": "x"}}
    ddb.put_item(TableName=table_name, Item=expired)
    ddb.put_item(TableName=table_name, Item={"pk": {"S": "mine"}})
    ddb.delete_item(TableName=table_name, Key={"pk": {"S": "mine"}})
    deadline = time.monotonic() + 5
    while True:
        records = read_all(streams, arn)
        removes = [r for r in records if r["eventName"] == "REMOVE"]
        if len(removes) == 2 or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    by_key = {r["dynamodb"]["Keys"]["pk"]["S"]: r for r in removes}
    assert set(by_key) == {"old", "mine"}
    ttl_remove = by_key["old"]
    assert ttl_remove["userIdentity"] == SERVICE
    assert ttl_remove["dynamodb"]["OldImage"] == expired
    assert "NewImage" not in ttl_remove["dynamodb"]
    assert "userIdentity" not in by_key["mine"]
    assert "Item" not in ddb.get_item(TableName=table_name, Key={"pk": {"S": "old"}})


def test_disable_and_reenable_creates_a_new_stream(ddb, streams, table_name):
    first = stream_table(ddb, table_name, "KEYS_ONLY")
    ddb.put_item(TableName=table_name, Item={"pk": {"S": "before"}})
    it = iterator(streams, first)
    ddb.update_table(TableName=table_name, StreamSpecification={"StreamEnabled": False})
    table = ddb.describe_table(TableName=table_name)["Table"]
    assert "StreamSpecification" not in table and table["LatestStreamArn"] == first
    ddb.put_item(TableName=table_name, Item={"pk": {"S": "while-disabled"}})
    desc = streams.describe_stream(StreamArn=first)["StreamDescription"]
    assert desc["StreamStatus"] == "DISABLED" and desc["TableName"] == table_name
    assert desc["KeySchema"] == [{"AttributeName": "pk", "KeyType": "HASH"}]
    rng = desc["Shards"][0]["SequenceNumberRange"]
    assert rng["EndingSequenceNumber"] == rng["StartingSequenceNumber"]
    page = streams.get_records(ShardIterator=it)
    assert summary(page["Records"]) == [("INSERT", "before")]
    assert "NextShardIterator" not in page  # a closed shard, read to its end
    time.sleep(0.01)
    ddb.update_table(TableName=table_name,
                     StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"})
    second = ddb.describe_table(TableName=table_name)["Table"]["LatestStreamArn"]
    assert second != first
    ddb.put_item(TableName=table_name, Item={"pk": {"S": "after"}})
    assert summary(read_all(streams, second)) == [("INSERT", "after")]
    listed = streams.list_streams(TableName=table_name)["Streams"]
    assert [s["StreamArn"] for s in listed] == [second, first]
    assert streams.describe_stream(StreamArn=second)["StreamDescription"]["StreamStatus"] == \
        "ENABLED"


def test_list_streams_paging_and_deleted_table(ddb, streams, table_name):
    arns = [stream_table(ddb, f"{table_name}_{i}") for i in range(3)]
    listed, start = [], None
    for _ in range(1000):
        kwargs = {"Limit": 1} | ({"ExclusiveStartStreamArn": start} if start else {})
        page = streams.list_streams(**kwargs)
        listed += [s["StreamArn"] for s in page["Streams"]]
        start = page.get("LastEvaluatedStreamArn")
        if not start:
            break
    assert [a for a in listed if a in arns] == arns
    ddb.put_item(TableName=f"{table_name}_0", Item={"pk": {"S": "k"}})
    ddb.delete_table(TableName=f"{table_name}_0")
    desc = streams.describe_stream(StreamArn=arns[0])["StreamDescription"]
    assert desc["StreamStatus"] == "DISABLED"
    assert summary(read_all(streams, arns[0])) == [("INSERT", "k")]
    assert arns[0] in [s["StreamArn"] for s in
                       streams.list_streams(TableName=f"{table_name}_0")["Streams"]]


def test_list_streams_resumes_after_a_start_arn_no_longer_listed(ddb, streams, table_name):
    """A page may end at a stream that is gone before the next call (its table deleted, its 24
    hours past): ListStreams goes on after where that ARN sorts, repeating none (Alternator's
    test_list_streams_paged_resume_on_deleted_table, run against the service). A start that is
    not a stream ARN at all is a ValidationException (its test_list_streams_with_nonexistent_
    last_stream)."""
    arns = [stream_table(ddb, f"{table_name}_{i}") for i in (0, 2)]
    label = arns[0].rsplit("/stream/", 1)[1]
    gone = arns[0].replace(f"table/{table_name}_0/", f"table/{table_name}_1/")  # never existed
    assert gone.endswith("/stream/" + label)
    listed, start = [], gone
    while start:
        page = streams.list_streams(Limit=1, ExclusiveStartStreamArn=start)
        listed += [s["StreamArn"] for s in page["Streams"]]
        start = page.get("LastEvaluatedStreamArn")
    assert arns[1] in listed and arns[0] not in listed
    assert len(listed) == len(set(listed))
    with pytest.raises(streams.exceptions.ClientError) as e:
        streams.list_streams(ExclusiveStartStreamArn="kossaapaaasdafsdaasdasdasdasasdasfadfadfasdasdas")
    assert e.value.response["Error"]["Code"] == "ValidationException"


def test_get_shard_iterator_at_the_edges_of_a_fresh_shard(ddb, streams, table_name):
    """The rules ScyllaDB's Alternator test_get_shard_iterator checks against the service: on a
    shard with no record yet, AT_ and AFTER_SEQUENCE_NUMBER of its StartingSequenceNumber give
    an iterator; those two need a SequenceNumber and TRIM_HORIZON and LATEST refuse one
    (ValidationException); a malformed StreamArn, iterator type or SequenceNumber is a
    ValidationException, an unknown ShardId a ResourceNotFoundException."""
    arn = stream_table(ddb, table_name)
    shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]
    shard_id = shard["ShardId"]
    seq = shard["SequenceNumberRange"]["StartingSequenceNumber"]
    at = {}
    for kind in ("AT_SEQUENCE_NUMBER", "AFTER_SEQUENCE_NUMBER"):
        at[kind] = streams.get_shard_iterator(StreamArn=arn, ShardId=shard_id,
                                              ShardIteratorType=kind,
                                              SequenceNumber=seq)["ShardIterator"]
    ddb.put_item(TableName=table_name, Item={"pk": {"S": "first"}})
    first = streams.get_records(ShardIterator=at["AT_SEQUENCE_NUMBER"])["Records"]
    assert summary(first) == [("INSERT", "first")]  # the shard's first record, from its start

    def refused(code, **kwargs):
        with pytest.raises(streams.exceptions.ClientError) as e:
            streams.get_shard_iterator(**kwargs)
        assert e.value.response["Error"]["Code"] == code, e.value.response

    for kind in ("AT_SEQUENCE_NUMBER", "AFTER_SEQUENCE_NUMBER"):
        refused("ValidationException", StreamArn=arn, ShardId=shard_id, ShardIteratorType=kind)
    for kind in ("TRIM_HORIZON", "LATEST"):
        assert streams.get_shard_iterator(StreamArn=arn, ShardId=shard_id,
                                          ShardIteratorType=kind)["ShardIterator"]
        refused("ValidationException", StreamArn=arn, ShardId=shard_id, ShardIteratorType=kind,
                SequenceNumber=seq)
    refused("ValidationException", StreamArn="sdfadsfsdfsdgdfsgsfdabadfbabdadsfsdfsdfsdfsdfsd",
            ShardId=shard_id, ShardIteratorType="LATEST")
    refused("ResourceNotFoundException", StreamArn=arn,
            ShardId="semprinidfaasdasfsdvacsdcfsdsvsdvsdvsdvsdvsdv", ShardIteratorType="LATEST")
    refused("ValidationException", StreamArn=arn, ShardId=shard_id, ShardIteratorType="bulle",
            SequenceNumber=seq)
    refused("ValidationException", StreamArn=arn, ShardId=shard_id, ShardIteratorType="LATEST",
            SequenceNumber="sdfsafglldfngjdafnasdflgnaldklkafdsgklnasdlv")


def test_restart_keeps_records_and_sequence_numbers_increase(start_server, tmp_path):
    data = tmp_path / "streams"
    srv = start_server(data)
    ddb, streams = make_client(srv.endpoint), make_streams_client(srv.endpoint)
    name = unique_name("restart")
    arn = stream_table(ddb, name, "NEW_IMAGE")
    for k in "ab":
        ddb.put_item(TableName=name, Item={"pk": {"S": k}})
    before = read_all(streams, arn)
    it = iterator(streams, arn, "AFTER_SEQUENCE_NUMBER", before[-1]["dynamodb"]["SequenceNumber"])
    assert srv.stop(signal.SIGTERM, timeout=10) == 0

    srv = start_server(data)
    ddb, streams = make_client(srv.endpoint), make_streams_client(srv.endpoint)
    assert read_all(streams, arn) == before
    ddb.put_item(TableName=name, Item={"pk": {"S": "c"}})
    after = read_all(streams, arn, it)
    assert summary(after) == [("INSERT", "c")]
    seqs = [int(r["dynamodb"]["SequenceNumber"]) for r in before + after]
    assert seqs == sorted(seqs) and len(set(seqs)) == 3


def test_ttl_expiry_leaves_table_and_every_index_and_is_a_service_remove(ddb, streams, table_name):
    """D6 and D7 in one write path: the sweeper's delete drops the item, its LSI and GSI entries,
    and records a service REMOVE with the old image, all in one batch."""
    ddb.create_table(
        TableName=table_name, BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": a, "AttributeType": "S"}
                              for a in ("pk", "sk", "l", "g")],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                   {"AttributeName": "sk", "KeyType": "RANGE"}],
        LocalSecondaryIndexes=[{"IndexName": "by_l", "Projection": {"ProjectionType": "ALL"},
                                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                                              {"AttributeName": "l", "KeyType": "RANGE"}]}],
        GlobalSecondaryIndexes=[{"IndexName": "by_g", "Projection": {"ProjectionType": "ALL"},
                                 "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}]}],
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "OLD_IMAGE"})
    arn = ddb.describe_table(TableName=table_name)["Table"]["LatestStreamArn"]
    ddb.update_time_to_live(TableName=table_name, TimeToLiveSpecification={
        "Enabled": True, "AttributeName": "ttl"})
    item = {"pk": {"S": "p"}, "sk": {"S": "s"}, "l": {"S": "L"}, "g": {"S": "G"},
            "ttl": {"N": str(int(time.time()) - 1)}}
    ddb.put_item(TableName=table_name, Item=item)
    deadline = time.monotonic() + 5
    while "Item" in ddb.get_item(TableName=table_name, Key={"pk": item["pk"], "sk": item["sk"]}):
        assert time.monotonic() < deadline, "expired item not deleted within 5 s"
        time.sleep(0.05)
    for index, cond, values in [("by_l", "pk = :v", {":v": item["pk"]}),
                                ("by_g", "g = :v", {":v": item["g"]})]:
        got = ddb.query(TableName=table_name, IndexName=index, KeyConditionExpression=cond,
                        ExpressionAttributeValues=values)
        assert got["Items"] == [], (index, got["Items"])
    desc = ddb.describe_table(TableName=table_name)["Table"]
    indexes = desc["LocalSecondaryIndexes"] + desc["GlobalSecondaryIndexes"]
    assert [i["ItemCount"] for i in indexes] == [0, 0]
    removes = [r for r in read_all(streams, arn) if r["eventName"] == "REMOVE"]
    assert len(removes) == 1
    assert removes[0]["userIdentity"] == SERVICE
    assert removes[0]["dynamodb"]["OldImage"] == item


def test_a_shifted_clock_dates_records_and_trims_them(start_server, tmp_path):
    """--clock-start-ms moves every time the server shows, stream records included: a record's
    ApproximateCreationDateTime, the stream's label and shard, and the 24-hour trimming follow
    the server's clock, not the machine's (PITR and TTL already did)."""
    start_ms = 1_577_836_800_000  # 2020-01-01T00:00:00Z
    srv = start_server(tmp_path / "shifted", ["--clock-start-ms", str(start_ms),
                                              "--stream-trim-interval-seconds", "1"])
    ddb, streams = make_client(srv.endpoint), make_streams_client(srv.endpoint)
    name = unique_name("clock")
    arn = stream_table(ddb, name, "KEYS_ONLY")
    ddb.put_item(TableName=name, Item={"pk": {"S": "a"}})
    records = read_all(streams, arn)
    assert summary(records) == [("INSERT", "a")]
    created = records[0]["dynamodb"]["ApproximateCreationDateTime"].timestamp()
    assert start_ms / 1000 - 5 <= created <= start_ms / 1000 + 120, created
    assert srv.stop(signal.SIGTERM, timeout=10) == 0
    # The same data a day and a minute later (by the server's clock): the record is past the
    # 24-hour retention and the trimmer's passes, dated by that clock, remove it.
    srv = start_server(tmp_path / "shifted", ["--clock-start-ms", str(start_ms + 86_460_000),
                                              "--stream-trim-interval-seconds", "1"])
    ddb, streams = make_client(srv.endpoint), make_streams_client(srv.endpoint)

    def remaining():
        return [r for shard in shard_ids(streams, arn)
                for r in read_all(streams, arn, iterator(streams, arn, shard=shard))]
    deadline = time.monotonic() + 20
    while remaining() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert remaining() == []
    assert ddb.get_item(TableName=name, Key={"pk": {"S": "a"}})["Item"] == {"pk": {"S": "a"}}
