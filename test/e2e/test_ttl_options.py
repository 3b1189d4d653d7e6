"""TTL options of our own: hiding expired items at read time (opt-in tag) and declaring TTL at
table creation (D9 ours, D14).

Hiding is checked against a server whose sweeper runs once a minute, so expired items stay in
the table long enough to observe them; the default server deletes them within a second.
"""
import time

from e2e_util import create_table, make_client, unique_name

HIDE = {"Key": "ttlstore:hide-expired", "Value": "true"}


def _arn(client, table):
    return client.describe_table(TableName=table)["Table"]["TableArn"]


def _setup_expired(client, table):
    create_table(client, table, hash_key=("pk", "S"), range_key=("sk", "N"))
    client.update_time_to_live(TableName=table,
                               TimeToLiveSpecification={"Enabled": True, "AttributeName": "exp"})
    past = str(int(time.time()) - 60)
    client.put_item(TableName=table, Item={"pk": {"S": "p"}, "sk": {"N": "1"}, "exp": {"N": past}})
    client.put_item(TableName=table, Item={"pk": {"S": "p"}, "sk": {"N": "2"}})
    client.put_item(TableName=table, Item={"pk": {"S": "p"}, "sk": {"N": "3"},
                                           "exp": {"N": str(int(time.time()) + 3600)}})


def _visible_sort_keys(client, table):
    query = client.query(TableName=table, KeyConditionExpression="pk = :p",
                         ExpressionAttributeValues={":p": {"S": "p"}})
    scan = client.scan(TableName=table)
    keys = sorted(int(i["sk"]["N"]) for i in query["Items"])
    assert keys == sorted(int(i["sk"]["N"]) for i in scan["Items"])
    return keys


def test_expired_items_stay_visible_until_deleted_unless_the_table_opts_to_hide_them(
        start_server):
    srv = start_server(extra_args=["--ttl-sweep-interval-ms", "60000"])
    client = make_client(srv.endpoint)
    table = unique_name("hide")
    _setup_expired(client, table)
    key = {"pk": {"S": "p"}, "sk": {"N": "1"}}
    time.sleep(0.3)  # past the sweeper's first pass; the next one is a minute away

    # D9: by default an expired item is still read until the sweeper deletes it.
    assert "Item" in client.get_item(TableName=table, Key=key)
    assert _visible_sort_keys(client, table) == [1, 2, 3]

    client.tag_resource(ResourceArn=_arn(client, table), Tags=[HIDE])
    assert "Item" not in client.get_item(TableName=table, Key=key)
    assert _visible_sort_keys(client, table) == [2, 3]
    batch = client.batch_get_item(RequestItems={table: {"Keys": [key, {"pk": {"S": "p"},
                                                                          "sk": {"N": "2"}}]}})
    assert [i["sk"]["N"] for i in batch["Responses"][table]] == ["2"]
    tx = client.transact_get_items(TransactItems=[{"Get": {"TableName": table, "Key": key}}])
    assert "Item" not in tx["Responses"][0]
    # PartiQL reads too: a point SELECT and a scan.
    point = client.execute_statement(
        Statement=f'SELECT * FROM "{table}" WHERE pk = ? AND sk = ?',
        Parameters=[{"S": "p"}, {"N": "1"}])
    assert point["Items"] == []
    scanned = client.execute_statement(Statement=f'SELECT sk FROM "{table}"')
    assert sorted(int(i["sk"]["N"]) for i in scanned["Items"]) == [2, 3]

    # The item is only hidden, not gone: removing the tag shows it again.
    client.untag_resource(ResourceArn=_arn(client, table), TagKeys=[HIDE["Key"]])
    assert "Item" in client.get_item(TableName=table, Key=key)
    assert srv.stop() == 0


def test_ttl_can_be_declared_at_table_creation_with_the_reserved_tag(ddb, table_name):
    ddb.create_table(TableName=table_name, BillingMode="PAY_PER_REQUEST",
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                     Tags=[{"Key": "ttlstore:ttl-attribute", "Value": "expiresAt"},
                           {"Key": "team", "Value": "a"}])
    desc = ddb.describe_time_to_live(TableName=table_name)["TimeToLiveDescription"]
    assert desc == {"TimeToLiveStatus": "ENABLED", "AttributeName": "expiresAt"}
    tags = ddb.list_tags_of_resource(ResourceArn=_arn(ddb, table_name))["Tags"]
    assert tags == [{"Key": "team", "Value": "a"}]  # TTL state is not a tag

    ddb.put_item(TableName=table_name, Item={"pk": {"S": "a"},
                                             "expiresAt": {"N": str(time.time() + 0.5)}})
    deadline = time.time() + 10
    while "Item" in ddb.get_item(TableName=table_name, Key={"pk": {"S": "a"}}):
        assert time.time() < deadline, "item declared to expire was not deleted"
        time.sleep(0.1)


def test_ttl_values_in_milliseconds_are_counted_as_a_likely_mistake(ddb, table_name, endpoint):
    import urllib.request

    def count():
        text = urllib.request.urlopen(endpoint + "/metrics", timeout=5).read().decode()
        line = [l for l in text.splitlines()
                if l.startswith("ttlstore_ttl_millisecond_like_values_total ")]
        return int(float(line[0].split()[1]))

    create_table(ddb, table_name)
    ddb.update_time_to_live(TableName=table_name,
                            TimeToLiveSpecification={"Enabled": True, "AttributeName": "exp"})
    before = count()
    ddb.put_item(TableName=table_name, Item={"pk": {"S": "s"}, "exp": {"N": str(int(time.time()))}})
    assert count() == before
    ddb.put_item(TableName=table_name,
                 Item={"pk": {"S": "ms"}, "exp": {"N": str(int(time.time() * 1000))}})
    assert count() == before + 1
