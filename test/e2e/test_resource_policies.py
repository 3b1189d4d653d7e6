"""Resource-based policies (issue 19): PutResourcePolicy, GetResourcePolicy and
DeleteResourcePolicy on tables and streams, CreateTable's ResourcePolicy, and their evaluation
together with the per-key policies of --policies. Debian's botocore (1.29) predates these
operations, so they are sent as raw requests signed by botocore's own SigV4 signer; the data
calls whose authorization is checked go through boto3 unchanged. Expected texts are the
service's where a source measured them (docs/compatibility.md, "Resource-based policies")."""
import http.client
import json
import re

import boto3
import pytest
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

from e2e_util import (AMZ_JSON, REGION, ServerProcess, client_config, ddb_error, unique_name)

ACCOUNT = "000000000000"
ARN = f"arn:aws:dynamodb:{REGION}:{ACCOUNT}:table/"
KEYS = {"ADMIN": "adminsecret", "ALICE": "alicesecret", "BOB": "bobsecret",
        "READER": "readersecret"}
# READER may only GetItem on Music* tables by its identity policy; the others are unrestricted.
IDENTITY = {"READER": [{"Effect": "Allow", "Action": "dynamodb:GetItem",
                        "Resource": ARN + "Music*"}]}
NOT_FOUND_PREFIX = "Resource-based policy not found for the provided ResourceArn: "


def user(key):
    return f"arn:aws:iam::{ACCOUNT}:user/{key}"


def doc(*statements):
    return json.dumps({"Version": "2012-10-17", "Statement": list(statements)})


def allow(principal, actions, resource="*"):
    return {"Effect": "Allow", "Principal": principal, "Action": actions, "Resource": resource}


def deny(principal, actions, resource="*"):
    return {"Effect": "Deny", "Principal": principal, "Action": actions, "Resource": resource}


def start(root, extra=()):
    return ServerProcess(root / "data", root / "server.log",
                         ["--credentials", str(root / "credentials"),
                          "--policies", str(root / "policies.json"), *extra]).start()


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    r = tmp_path_factory.mktemp("respol")
    (r / "credentials").write_text("".join(f"{k} {v}\n" for k, v in KEYS.items()))
    (r / "policies.json").write_text(json.dumps(IDENTITY))
    return r


@pytest.fixture(scope="module")
def srv(root):
    s = start(root)
    yield s
    assert s.stop() == 0


def client(srv, key="ADMIN"):
    return boto3.session.Session().client(
        "dynamodb", endpoint_url=srv.endpoint, region_name=REGION, aws_access_key_id=key,
        aws_secret_access_key=KEYS[key], config=client_config())


def streams_client(srv, key="ADMIN"):
    return boto3.session.Session().client(
        "dynamodbstreams", endpoint_url=srv.endpoint, region_name=REGION,
        aws_access_key_id=key, aws_secret_access_key=KEYS[key], config=client_config())


def call(srv, op, body, key="ADMIN", raw_body=None):
    """A DynamoDB call signed by `key`, sent without an SDK model: (status, JSON answer)."""
    data = raw_body if raw_body is not None else json.dumps(body).encode()
    req = AWSRequest(method="POST", url=srv.endpoint + "/", data=data,
                     headers={"Content-Type": AMZ_JSON,
                              "X-Amz-Target": f"DynamoDB_20120810.{op}"})
    SigV4Auth(Credentials(key, KEYS[key]), "dynamodb", REGION).add_auth(req)
    prepared = req.prepare()
    conn = http.client.HTTPConnection("127.0.0.1", int(srv.endpoint.rsplit(":", 1)[1]),
                                      timeout=60)
    try:
        conn.request("POST", "/", body=data, headers=dict(prepared.headers))
        r = conn.getresponse()
        payload = r.read()
    finally:
        conn.close()
    return r.status, json.loads(payload) if payload else {}


def error(answer):
    status, body = answer
    assert status == 400, answer
    return body["__type"].split("#")[-1], body.get("message", body.get("Message"))


def new_table(srv, prefix="Music", **extra):
    name = prefix + unique_name("")
    client(srv).create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                              {"AttributeName": "g", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        GlobalSecondaryIndexes=[{"IndexName": "byG", "KeySchema": [
            {"AttributeName": "g", "KeyType": "HASH"}], "Projection": {"ProjectionType": "ALL"}}],
        **extra)
    client(srv).put_item(TableName=name, Item={"pk": {"S": "a"}, "g": {"S": "x"}})
    return name


def put(srv, arn, policy, key="ADMIN", **extra):
    return call(srv, "PutResourcePolicy", {"ResourceArn": arn, "Policy": policy, **extra}, key)


# ---------------------------------------------------------------------------------------------
# Put / Get / Delete
# ---------------------------------------------------------------------------------------------


def test_put_get_delete_round_trip(srv):
    name = new_table(srv)
    policy = doc(allow({"AWS": user("BOB")}, "dynamodb:GetItem", ARN + name))
    status, out = put(srv, ARN + name, policy)
    assert status == 200 and set(out) == {"RevisionId"}
    rev1 = out["RevisionId"]
    assert re.fullmatch(r"[0-9]+", rev1)
    assert call(srv, "GetResourcePolicy", {"ResourceArn": ARN + name}) == (
        200, {"Policy": policy, "RevisionId": rev1})
    # The same document again: the same revision (the API reference: idempotent).
    assert put(srv, ARN + name, policy)[1]["RevisionId"] == rev1
    # Another document: a new, larger revision.
    policy2 = doc(allow({"AWS": user("BOB")}, ["dynamodb:GetItem", "dynamodb:Query"], ARN + name))
    rev2 = put(srv, ARN + name, policy2)[1]["RevisionId"]
    assert int(rev2) > int(rev1)
    # DescribeTable does not show it (the developer guide).
    assert "ResourcePolicy" not in json.dumps(client(srv).describe_table(TableName=name), default=str)
    # Delete echoes the removed revision; then there is none.
    assert call(srv, "DeleteResourcePolicy", {"ResourceArn": ARN + name}) == (
        200, {"RevisionId": rev2})
    assert error(call(srv, "GetResourcePolicy", {"ResourceArn": ARN + name})) == (
        "PolicyNotFoundException", NOT_FOUND_PREFIX + ARN + name)
    assert error(call(srv, "DeleteResourcePolicy", {"ResourceArn": ARN + name})) == (
        "PolicyNotFoundException", NOT_FOUND_PREFIX + ARN + name)


def test_expected_revision_id(srv):
    name = new_table(srv)
    p1 = doc(allow({"AWS": user("BOB")}, "dynamodb:GetItem", ARN + name))
    rev1 = put(srv, ARN + name, p1, ExpectedRevisionId="NO_POLICY")[1]["RevisionId"]
    assert error(put(srv, ARN + name, p1, ExpectedRevisionId="NO_POLICY")) == (
        "PolicyNotFoundException",
        f"{NOT_FOUND_PREFIX}Requested policy update expecting none to be present for table "
        f"{name}, but a policy exists with revision id {rev1}.")
    p2 = doc(allow({"AWS": user("BOB")}, "dynamodb:PutItem", ARN + name))
    rev2 = put(srv, ARN + name, p2, ExpectedRevisionId=rev1)[1]["RevisionId"]
    stale = (f"{NOT_FOUND_PREFIX}Requested update for policy with revision id {rev1}, but the "
             f"policy associated to target table {name} has revision id {rev2}.")
    assert error(put(srv, ARN + name, p1, ExpectedRevisionId=rev1)) == (
        "PolicyNotFoundException", stale)
    assert error(call(srv, "DeleteResourcePolicy",
                      {"ResourceArn": ARN + name, "ExpectedRevisionId": rev1})) == (
        "PolicyNotFoundException", stale)
    assert call(srv, "GetResourcePolicy", {"ResourceArn": ARN + name})[1]["RevisionId"] == rev2
    assert call(srv, "DeleteResourcePolicy",
                {"ResourceArn": ARN + name, "ExpectedRevisionId": rev2})[0] == 200


def test_resource_arn_refusals(srv):
    name = new_table(srv)
    p = doc(allow({"AWS": user("BOB")}, "dynamodb:GetItem"))
    inv = "One or more parameter values were invalid: "
    cases = [
        (name, "ValidationException", f"{inv}ARNs must start with 'arn:': {name}"),
        (f"arn:aws:dynamodb:{REGION}:111111111111:table/{name}", "ValidationException",
         "This action is only supported by accounts that match the resource owner\u2019s account."),
        (f"arn:aws:dynamodb:us-west-2:{ACCOUNT}:table/{name}", "ValidationException",
         f"{inv}Invalid resource Arn: arn:aws:dynamodb:us-west-2:{ACCOUNT}:table/{name}"),
        (f"arn:aws-cn:dynamodb:{REGION}:{ACCOUNT}:table/{name}", "ValidationException",
         f"{inv}Invalid resource Arn: arn:aws-cn:dynamodb:{REGION}:{ACCOUNT}:table/{name}"),
        (ARN + name + "/index/byG", "ValidationException",
         f"{inv}Invalid resource arn provided, only table or stream is accepted. Provided "
         f"resource arn: {ARN}{name}/index/byG"),
        (ARN + name + "/backup/01700000000000-abcdef01", "ValidationException",
         f"{inv}Provided Arn is not a DynamoDB resource arn: {ARN}{name}/backup/"
         "01700000000000-abcdef01"),
        (ARN + name + "missing", "ResourceNotFoundException",
         f"Requested resource not found: Table: {name}missing not found"),
        (ARN + name.upper(), "ResourceNotFoundException",
         f"Requested resource not found: Table: {name.upper()} not found"),
        (ARN + name + "/stream/2000-01-01T00:00:00.000", "ResourceNotFoundException",
         f"Requested resource not found: Stream: 2000-01-01T00:00:00.000 not found for Table: "
         f"{name}"),
    ]
    for arn, code, message in cases:
        assert error(call(srv, "GetResourcePolicy", {"ResourceArn": arn})) == (code, message), arn
        assert error(call(srv, "DeleteResourcePolicy", {"ResourceArn": arn})) == (code, message), arn
        assert error(put(srv, arn, p)) == (code, message), arn
    code, message = error(call(srv, "GetResourcePolicy", {}))
    assert code == "ValidationException" and "resourceArn" in message
    code, message = error(call(srv, "PutResourcePolicy", {"ResourceArn": ARN + name}))
    assert code == "ValidationException" and "policy" in message
    code, _ = error(call(srv, "PutResourcePolicy", {"ResourceArn": ARN + name, "Policy": 5}))
    assert code == "SerializationException"
    code, message = error(put(srv, ARN + name, p, ExpectedRevisionId=""))
    assert code == "ValidationException" and "expectedRevisionId" in message


def test_policy_document_refusals(srv):
    name = new_table(srv)
    inv = "One or more parameter values were invalid: Invalid policy document: "
    cases = [
        ("not json", inv + "it is not valid JSON"),
        ("[]", inv + "it must be a JSON object"),
        ('{"Version":"2012-10-17"}', inv + "it needs a Statement"),
        (doc({"Effect": "Allow", "Action": "*", "Resource": "*"}),
         inv + "each Statement needs a Principal"),
        (doc({"Effect": "Perhaps", "Principal": "*", "Action": "*", "Resource": "*"}),
         inv + 'Effect must be "Allow" or "Deny"'),
    ]
    for policy, message in cases:
        assert error(put(srv, ARN + name, policy)) == ("ValidationException", message), policy
        assert error(call(srv, "GetResourcePolicy", {"ResourceArn": ARN + name}))[0] == \
            "PolicyNotFoundException"


INVALID_DOC = "One or more parameter values were invalid: Invalid policy document: "


def test_actions_must_apply_to_the_resource(srv):
    """A table's policy may not name stream actions, a stream's policy only stream actions, and
    no policy ListStreams (texts measured by aws-cdk#32230 and aws-controllers-k8s
    dynamodb-controller#176 on the service)."""
    name = new_table(srv, StreamSpecification={"StreamEnabled": True,
                                               "StreamViewType": "KEYS_ONLY"})
    stream_arn = client(srv).describe_table(TableName=name)["Table"]["LatestStreamArn"]
    bob = {"AWS": user("BOB")}
    table_doc = doc(allow(bob, ["dynamodb:GetShardIterator", "dynamodb:Query",
                                "dynamodb:GetRecords"], ARN + name),
                    allow(bob, ["dynamodb:GetRecords", "dynamodb:ListStreams"], ARN + name))
    assert error(put(srv, ARN + name, table_doc)) == (
        "ValidationException", INVALID_DOC + 'The following action names are invalid: '
        '"dynamodb:GetShardIterator", "dynamodb:GetRecords", "dynamodb:ListStreams"')
    assert error(put(srv, stream_arn, doc(allow(bob, "dynamodb:ListStreams", stream_arn)))) == (
        "ValidationException",
        INVALID_DOC + 'The following action names are invalid: "dynamodb:ListStreams"')
    assert error(put(srv, stream_arn, doc(deny(bob, ["dynamodb:GetRecords", "dynamodb:GetItem",
                                                     "s3:GetObject"], stream_arn)))) == (
        "ValidationException", INVALID_DOC + 'The following action names are invalid: '
        '"dynamodb:GetItem", "s3:GetObject"')
    # Wildcards that name some valid action, and any case, are accepted.
    assert put(srv, ARN + name, doc(allow(bob, ["dynamodb:Get*", "DynamoDB:putitem"],
                                          ARN + name)))[0] == 200
    assert put(srv, stream_arn, doc(allow(bob, ["dynamodb:*", "dynamodb:Get*"],
                                          stream_arn)))[0] == 200
    # CreateTable's ResourcePolicy is a table's.
    code, message = error(call(srv, "CreateTable", {
        "TableName": unique_name("Music"), "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "ResourcePolicy": doc(allow(bob, "dynamodb:DescribeStream", "*"))}))
    assert (code, message) == ("ValidationException", INVALID_DOC +
                               'The following action names are invalid: "dynamodb:DescribeStream"')


def test_block_public_access(srv):
    """An Allow to everyone must be narrowed by a trusted condition key (developer guide,
    "Blocking public access with resource-based policies"); a Deny to everyone is fine."""
    name = new_table(srv)
    code, message = error(put(srv, ARN + name, doc(allow("*", "dynamodb:GetItem", ARN + name))))
    assert code == "ValidationException" and "public access" in message
    code, _ = error(put(srv, ARN + name, doc(allow({"AWS": ["*"]}, "dynamodb:GetItem"))))
    assert code == "ValidationException"
    # A wildcard value narrows nothing.
    wide = dict(allow("*", "dynamodb:GetItem"),
                Condition={"StringLike": {"aws:PrincipalAccount": "*"}})
    assert error(put(srv, ARN + name, doc(wide)))[0] == "ValidationException"
    assert error(call(srv, "GetResourcePolicy", {"ResourceArn": ARN + name}))[0] == \
        "PolicyNotFoundException"
    assert put(srv, ARN + name, doc(deny("*", "dynamodb:DeleteItem", ARN + name)))[0] == 200
    vpc = dict(allow("*", "dynamodb:GetItem"),
               Condition={"StringEquals": {"aws:SourceVpc": "vpc-1234"}})
    assert put(srv, ARN + name, doc(vpc))[0] == 200
    # No request here comes from a VPC: that Allow allows nobody.
    reader = client(srv, "READER")
    assert ddb_error(reader.scan, TableName=name).code == "AccessDeniedException"


def test_principal_conditions_are_evaluated(srv):
    """Principal "*" narrowed by aws:PrincipalAccount or aws:PrincipalArn allows exactly the
    callers the condition names."""
    name = new_table(srv)
    reader = client(srv, "READER")
    assert ddb_error(reader.scan, TableName=name).code == "AccessDeniedException"
    account = dict(allow("*", "dynamodb:Scan", ARN + name),
                   Condition={"StringEquals": {"aws:PrincipalAccount": [ACCOUNT]}})
    put(srv, ARN + name, doc(account))
    assert reader.scan(TableName=name)["Count"] == 1
    other = dict(allow("*", "dynamodb:Scan", ARN + name),
                 Condition={"StringEquals": {"aws:PrincipalAccount": "111111111111"}})
    put(srv, ARN + name, doc(other))
    assert ddb_error(reader.scan, TableName=name).code == "AccessDeniedException"
    by_arn = dict(allow("*", "dynamodb:Scan", ARN + name),
                  Condition={"ArnLike": {"aws:PrincipalArn": f"arn:aws:iam::{ACCOUNT}:user/READ*"}})
    put(srv, ARN + name, doc(by_arn))
    assert reader.scan(TableName=name)["Count"] == 1
    # A Deny to everyone but one key.
    put(srv, ARN + name, doc(dict(deny("*", "dynamodb:Scan", ARN + name),
                                  Condition={"StringNotEquals": {"aws:PrincipalArn": user("BOB")}})))
    assert client(srv, "BOB").scan(TableName=name)["Count"] == 1
    e = ddb_error(client(srv).scan, TableName=name)
    assert e.message == denied("ADMIN", "Scan", ARN + name, RESOURCE_DENY)


def test_service_principals(srv):
    name = new_table(srv)
    bad = allow({"Service": "lambda.amazonaws.com"}, "dynamodb:GetItem", ARN + name)
    assert error(put(srv, ARN + name, doc(bad))) == (
        "ValidationException", INVALID_DOC + "Policy contains invalid service principal")
    ok = allow({"Service": "redshift.amazonaws.com"}, "dynamodb:Scan", ARN + name)
    assert put(srv, ARN + name, doc(ok))[0] == 200


def test_policy_size_and_depth_bounds(srv):
    """20 KB counts whitespace and is checked before parsing; absurd sizes and depths are refused
    without harm, and the server keeps serving."""
    name = new_table(srv)
    base = doc(allow({"AWS": user("BOB")}, "dynamodb:GetItem", ARN + name))
    exact = base[:1] + " " * (20 * 1024 - len(base)) + base[1:]
    assert put(srv, ARN + name, exact)[0] == 200
    code, message = error(put(srv, ARN + name, exact[:1] + " " + exact[1:]))
    assert code == "ValidationException" and "20 KB" in message
    for policy in ["[" * 100_000, "{\"a\":" * 2_000_000, " " * 15_000_000]:
        code, message = error(put(srv, ARN + name, policy))
        assert code == "ValidationException" and "20 KB" in message
    deep = '{"Statement":' + "[" * 10_000 + "]" * 10_000 + "}"
    assert error(put(srv, ARN + name, deep)) == (
        "ValidationException",
        "One or more parameter values were invalid: Invalid policy document: it is nested too "
        "deeply")
    assert call(srv, "GetResourcePolicy", {"ResourceArn": ARN + name})[1]["Policy"] == exact


def test_policy_survives_restart_and_goes_with_the_table(tmp_path):
    (tmp_path / "credentials").write_text("".join(f"{k} {v}\n" for k, v in KEYS.items()))
    (tmp_path / "policies.json").write_text(json.dumps(IDENTITY))
    s = start(tmp_path)
    try:
        name = new_table(s)
        policy = doc(deny({"AWS": user("ALICE")}, "dynamodb:GetItem", ARN + name))
        rev = put(s, ARN + name, policy)[1]["RevisionId"]
    finally:
        assert s.stop() == 0
    s = start(tmp_path)
    try:
        assert call(s, "GetResourcePolicy", {"ResourceArn": ARN + name}) == (
            200, {"Policy": policy, "RevisionId": rev})
        assert ddb_error(client(s, "ALICE").get_item, TableName=name,
                         Key={"pk": {"S": "a"}}).code == "AccessDeniedException"
        client(s).delete_table(TableName=name)
        assert error(call(s, "GetResourcePolicy", {"ResourceArn": ARN + name})) == (
            "ResourceNotFoundException", f"Requested resource not found: Table: {name} not found")
        new_table_same = client(s).create_table(
            TableName=name, BillingMode="PAY_PER_REQUEST",
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
        assert new_table_same
        assert error(call(s, "GetResourcePolicy", {"ResourceArn": ARN + name}))[0] == \
            "PolicyNotFoundException"
        assert "Item" not in client(s, "ALICE").get_item(TableName=name, Key={"pk": {"S": "a"}})
    finally:
        assert s.stop() == 0


# ---------------------------------------------------------------------------------------------
# Evaluation with per-key policies
# ---------------------------------------------------------------------------------------------


def denied(key, action, resource, how):
    return (f"User: {user(key)} is not authorized to perform: dynamodb:{action} on resource: "
            f"{resource} {how}")


RESOURCE_DENY = "with an explicit deny in a resource-based policy"


def test_resource_deny_refuses_an_unrestricted_key(srv):
    name = new_table(srv)
    assert put(srv, ARN + name, doc(
        deny({"AWS": [user("ALICE")]}, ["dynamodb:GetItem", "dynamodb:Query"],
             [ARN + name, ARN + name + "/index/*"])))[0] == 200
    e = ddb_error(client(srv, "ALICE").get_item, TableName=name, Key={"pk": {"S": "a"}})
    assert (e.code, e.status) == ("AccessDeniedException", 400)
    assert e.message == denied("ALICE", "GetItem", ARN + name, RESOURCE_DENY)
    # The table's policy governs its indexes.
    e = ddb_error(client(srv, "ALICE").query, TableName=name, IndexName="byG",
                  KeyConditionExpression="g = :g", ExpressionAttributeValues={":g": {"S": "x"}})
    assert e.message == denied("ALICE", "Query", ARN + name + "/index/byG",
                               RESOURCE_DENY)
    # Other actions, and other keys, are untouched.
    assert client(srv, "ALICE").scan(TableName=name)["Count"] == 1
    assert client(srv, "BOB").get_item(TableName=name, Key={"pk": {"S": "a"}})["Item"]


def test_resource_deny_beats_an_identity_allow(srv):
    name = new_table(srv)
    assert client(srv, "READER").get_item(TableName=name, Key={"pk": {"S": "a"}})["Item"]
    put(srv, ARN + name, doc(deny("*", "dynamodb:GetItem", ARN + name)))
    e = ddb_error(client(srv, "READER").get_item, TableName=name, Key={"pk": {"S": "a"}})
    assert e.message == denied("READER", "GetItem", ARN + name, RESOURCE_DENY)
    # "*" denies the admin too, until the policy is removed.
    e = ddb_error(client(srv).get_item, TableName=name, Key={"pk": {"S": "a"}})
    assert e.message == denied("ADMIN", "GetItem", ARN + name, RESOURCE_DENY)
    assert call(srv, "DeleteResourcePolicy", {"ResourceArn": ARN + name})[0] == 200
    assert client(srv).get_item(TableName=name, Key={"pk": {"S": "a"}})["Item"]


def test_resource_allow_adds_to_a_restricted_key(srv):
    name = new_table(srv)
    reader = client(srv, "READER")
    e = ddb_error(reader.put_item, TableName=name, Item={"pk": {"S": "r"}})
    assert e.message == denied("READER", "PutItem", ARN + name,
                               "because no identity-based policy allows the dynamodb:PutItem "
                               "action")
    put(srv, ARN + name, doc(allow({"AWS": user("READER")}, "dynamodb:PutItem", ARN + name)))
    reader.put_item(TableName=name, Item={"pk": {"S": "r"}})
    # Still nothing else.
    assert ddb_error(reader.scan, TableName=name).code == "AccessDeniedException"
    # An allow for another key, or for the account as a whole, does not allow READER.
    put(srv, ARN + name, doc(allow({"AWS": [user("BOB"), ACCOUNT,
                                            f"arn:aws:iam::{ACCOUNT}:root"]},
                                   "dynamodb:DeleteItem", ARN + name)))
    assert ddb_error(reader.delete_item, TableName=name,
                     Key={"pk": {"S": "r"}}).code == "AccessDeniedException"


def test_account_principal_deny_covers_every_key(srv):
    name = new_table(srv)
    everyone_here = {"Effect": "Allow", "Principal": "*", "Action": "dynamodb:*",
                     "Resource": ARN + name,
                     "Condition": {"StringEquals": {"aws:PrincipalAccount": ACCOUNT}}}
    put(srv, ARN + name, doc(everyone_here,
                             deny({"AWS": f"arn:aws:iam::{ACCOUNT}:root"}, "dynamodb:DeleteItem",
                                  ARN + name)))
    for key in KEYS:
        e = ddb_error(client(srv, key).delete_item, TableName=name, Key={"pk": {"S": "a"}})
        assert e.message == denied(key, "DeleteItem", ARN + name, RESOURCE_DENY)


def test_policy_calls_are_governed_by_the_policy(srv):
    """A resource policy may deny changing itself; the denied key cannot lift it."""
    name = new_table(srv)
    put(srv, ARN + name, doc(deny({"AWS": user("ALICE")},
                                  ["dynamodb:PutResourcePolicy", "dynamodb:DeleteResourcePolicy",
                                   "dynamodb:GetResourcePolicy"], ARN + name)))
    for op, body in [("GetResourcePolicy", {}), ("DeleteResourcePolicy", {}),
                     ("PutResourcePolicy", {"Policy": doc(allow({"AWS": user("ALICE")}, "*"))})]:
        code, message = error(call(srv, op, {"ResourceArn": ARN + name, **body}, key="ALICE"))
        assert (code, message) == ("AccessDeniedException",
                                   denied("ALICE", op, ARN + name, RESOURCE_DENY))
    assert call(srv, "GetResourcePolicy", {"ResourceArn": ARN + name}, key="BOB")[0] == 200


def test_batch_and_transaction_check_each_table(srv):
    open_table, closed = new_table(srv), new_table(srv)
    put(srv, ARN + closed, doc(deny({"AWS": user("BOB")}, "dynamodb:*", ARN + closed)))
    bob = client(srv, "BOB")
    e = ddb_error(bob.batch_get_item, RequestItems={
        open_table: {"Keys": [{"pk": {"S": "a"}}]}, closed: {"Keys": [{"pk": {"S": "a"}}]}})
    assert e.message == denied("BOB", "BatchGetItem", ARN + closed, RESOURCE_DENY)
    e = ddb_error(bob.transact_write_items, TransactItems=[
        {"Put": {"TableName": open_table, "Item": {"pk": {"S": "t"}}}},
        {"Put": {"TableName": closed, "Item": {"pk": {"S": "t"}}}}])
    assert e.message == denied("BOB", "PutItem", ARN + closed, RESOURCE_DENY)
    assert "Item" not in bob.get_item(TableName=open_table, Key={"pk": {"S": "t"}})


# ---------------------------------------------------------------------------------------------
# Streams and CreateTable
# ---------------------------------------------------------------------------------------------


def test_stream_policy_is_its_own_slot(srv):
    name = new_table(srv, StreamSpecification={"StreamEnabled": True,
                                               "StreamViewType": "KEYS_ONLY"})
    stream_arn = client(srv).describe_table(TableName=name)["Table"]["LatestStreamArn"]
    policy = doc(deny({"AWS": user("ALICE")}, ["dynamodb:DescribeStream",
                                                "dynamodb:GetShardIterator"], stream_arn))
    rev = put(srv, stream_arn, policy)[1]["RevisionId"]
    assert call(srv, "GetResourcePolicy", {"ResourceArn": stream_arn}) == (
        200, {"Policy": policy, "RevisionId": rev})
    assert error(call(srv, "GetResourcePolicy", {"ResourceArn": ARN + name})) == (
        "PolicyNotFoundException", NOT_FOUND_PREFIX + ARN + name)
    e = ddb_error(streams_client(srv, "ALICE").describe_stream, StreamArn=stream_arn)
    assert e.message == denied("ALICE", "DescribeStream", stream_arn, RESOURCE_DENY)
    assert streams_client(srv, "BOB").describe_stream(StreamArn=stream_arn)["StreamDescription"]
    # GetRecords acts on the stream its iterator names: governed by the same policy.
    shard = streams_client(srv).describe_stream(StreamArn=stream_arn)["StreamDescription"][
        "Shards"][0]["ShardId"]
    iterator = streams_client(srv).get_shard_iterator(
        StreamArn=stream_arn, ShardId=shard, ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
    put(srv, stream_arn, doc(deny({"AWS": user("ALICE")}, "dynamodb:GetRecords", stream_arn)))
    e = ddb_error(streams_client(srv, "ALICE").get_records, ShardIterator=iterator)
    assert e.message == denied("ALICE", "GetRecords", stream_arn, RESOURCE_DENY)
    assert streams_client(srv, "BOB").get_records(ShardIterator=iterator)["Records"]
    rev = call(srv, "GetResourcePolicy", {"ResourceArn": stream_arn})[1]["RevisionId"]
    # The table's own data calls are not governed by the stream's policy.
    assert client(srv, "ALICE").get_item(TableName=name, Key={"pk": {"S": "a"}})["Item"]
    assert call(srv, "DeleteResourcePolicy", {"ResourceArn": stream_arn}) == (
        200, {"RevisionId": rev})


def test_create_table_with_resource_policy(srv):
    name = "Music" + unique_name("")
    policy = doc(deny({"AWS": user("BOB")}, "dynamodb:PutItem", ARN + name))
    body = {"TableName": name, "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
            "ResourcePolicy": policy}
    status, out = call(srv, "CreateTable", body)
    assert status == 200 and "ResourcePolicy" not in json.dumps(out)
    status, got = call(srv, "GetResourcePolicy", {"ResourceArn": ARN + name})
    assert status == 200 and got["Policy"] == policy and re.fullmatch(r"[0-9]+", got["RevisionId"])
    e = ddb_error(client(srv, "BOB").put_item, TableName=name, Item={"pk": {"S": "b"}})
    assert e.message == denied("BOB", "PutItem", ARN + name, RESOURCE_DENY)
    client(srv, "ALICE").put_item(TableName=name, Item={"pk": {"S": "b"}})
    # A bad document refuses the CreateTable: no table is made.
    other = dict(body, TableName=name + "x", ResourcePolicy="nope")
    assert error(call(srv, "CreateTable", other)) == (
        "ValidationException",
        "One or more parameter values were invalid: Invalid policy document: it is not valid JSON")
    assert ddb_error(client(srv).describe_table,
                     TableName=name + "x").code == "ResourceNotFoundException"
    # Bounded the same way as PutResourcePolicy's document: size first, then depth.
    code, message = error(call(srv, "CreateTable", dict(other, ResourcePolicy="[" * 1_000_000)))
    assert code == "ValidationException" and "20 KB" in message
    code, message = error(call(srv, "CreateTable", dict(other, ResourcePolicy="[" * 5_000)))
    assert (code, message) == ("ValidationException", "One or more parameter values were invalid: "
                               "Invalid policy document: it is nested too deeply")
