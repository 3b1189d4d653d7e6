"""IAM-like policies per access key (issue 7, D15): an operator forbids changing TTL
configuration and writing the TTL attribute; a reader key may only read one table; a key the
policy file doesn't list is unrestricted. Denials are AccessDeniedException with the service's
message, and nothing is written."""
import json
import subprocess

import boto3
import pytest

from e2e_util import REGION, TTLSTORE_BIN, ServerProcess, client_config, ddb_error, unique_name

ARN = "arn:aws:dynamodb:us-east-1:000000000000:table/"
POLICIES = {
    "OPS": [
        {"Effect": "Allow", "Action": "dynamodb:*", "Resource": "*"},
        {"Effect": "Deny", "Action": "dynamodb:UpdateTimeToLive", "Resource": "*"},
        {"Effect": "Deny", "Action": ["dynamodb:PutItem", "dynamodb:UpdateItem",
                                      "dynamodb:BatchWriteItem"],
         "Resource": ARN + "*",
         "Condition": {"ForAnyValue:StringEquals": {"dynamodb:Attributes": ["ExpirationTime"]}}},
    ],
    "READER": [
        {"Effect": "Allow", "Action": ["dynamodb:GetItem", "dynamodb:Query", "dynamodb:DescribeTable"],
         "Resource": [ARN + "Sessions*"]},
    ],
}


@pytest.fixture(scope="module")
def srv(tmp_path_factory):
    root = tmp_path_factory.mktemp("policies")
    (root / "credentials").write_text("OPS opssecret\nREADER readersecret\nADMIN adminsecret\n")
    (root / "policies.json").write_text(json.dumps(POLICIES))
    s = ServerProcess(root / "data", root / "server.log",
                      ["--credentials", str(root / "credentials"),
                       "--policies", str(root / "policies.json")]).start()
    yield s
    assert s.stop() == 0


def client(endpoint, key):
    return boto3.session.Session().client(
        "dynamodb", endpoint_url=endpoint, region_name=REGION, aws_access_key_id=key,
        aws_secret_access_key=key.lower() + "secret", config=client_config())


@pytest.fixture(scope="module")
def sessions(srv):
    admin = client(srv.endpoint, "ADMIN")
    name = "Sessions" + unique_name("")
    admin.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                       AttributeDefinitions=[{"AttributeName": "UserName", "AttributeType": "S"}],
                       KeySchema=[{"AttributeName": "UserName", "KeyType": "HASH"}])
    admin.update_time_to_live(TableName=name, TimeToLiveSpecification={
        "Enabled": True, "AttributeName": "ExpirationTime"})
    return name


def test_operator_may_not_change_ttl_configuration(srv, sessions):
    ops = client(srv.endpoint, "OPS")
    e = ddb_error(ops.update_time_to_live, TableName=sessions,
                  TimeToLiveSpecification={"Enabled": False, "AttributeName": "ExpirationTime"})
    assert (e.code, e.status) == ("AccessDeniedException", 400)
    assert e.message == (f"User: arn:aws:iam::000000000000:user/OPS is not authorized to perform: "
                         f"dynamodb:UpdateTimeToLive on resource: {ARN}{sessions} with an explicit "
                         f"deny in an identity-based policy")
    assert ops.describe_time_to_live(TableName=sessions)["TimeToLiveDescription"][
        "TimeToLiveStatus"] == "ENABLED"


def test_operator_may_not_write_the_ttl_attribute(srv, sessions):
    ops = client(srv.endpoint, "OPS")
    ops.put_item(TableName=sessions, Item={"UserName": {"S": "u1"}, "Info": {"S": "x"}})
    e = ddb_error(ops.put_item, TableName=sessions,
                  Item={"UserName": {"S": "u2"}, "ExpirationTime": {"N": "1571827560"}})
    assert e.code == "AccessDeniedException"
    e = ddb_error(ops.update_item, TableName=sessions, Key={"UserName": {"S": "u1"}},
                  UpdateExpression="SET #t = :t", ExpressionAttributeNames={"#t": "ExpirationTime"},
                  ExpressionAttributeValues={":t": {"N": "1"}})
    assert e.code == "AccessDeniedException"
    e = ddb_error(ops.batch_write_item, RequestItems={sessions: [
        {"PutRequest": {"Item": {"UserName": {"S": "u3"}, "ExpirationTime": {"N": "1"}}}}]})
    assert e.code == "AccessDeniedException"
    ops.update_item(TableName=sessions, Key={"UserName": {"S": "u1"}},
                    UpdateExpression="SET Info = :v", ExpressionAttributeValues={":v": {"S": "y"}})
    admin = client(srv.endpoint, "ADMIN")
    assert "Item" not in admin.get_item(TableName=sessions, Key={"UserName": {"S": "u2"}})
    assert "Item" not in admin.get_item(TableName=sessions, Key={"UserName": {"S": "u3"}})
    item = admin.get_item(TableName=sessions, Key={"UserName": {"S": "u1"}})["Item"]
    assert item == {"UserName": {"S": "u1"}, "Info": {"S": "y"}}


def test_reader_reads_its_table_only(srv, sessions):
    reader = client(srv.endpoint, "READER")
    reader.get_item(TableName=sessions, Key={"UserName": {"S": "u1"}})
    reader.describe_table(TableName=sessions)
    e = ddb_error(reader.put_item, TableName=sessions, Item={"UserName": {"S": "r"}})
    assert e.code == "AccessDeniedException"
    assert e.message.endswith("because no identity-based policy allows the dynamodb:PutItem action")
    e = ddb_error(reader.list_tables)
    assert e.code == "AccessDeniedException"
    assert "on resource: *" in e.message


def test_policies_need_credentials(tmp_path):
    (tmp_path / "p.json").write_text("{}")
    r = subprocess.run([TTLSTORE_BIN, "serve", "--port", "0", "--data-dir", str(tmp_path / "d"),
                        "--policies", str(tmp_path / "p.json")],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 2
    assert "--policies needs --credentials" in r.stdout + r.stderr
