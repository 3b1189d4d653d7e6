"""SigV4 authentication with a credentials file (issue 7): boto3 and the AWS CLI authenticate
unchanged (header form; presigned query form through botocore's own signer); a wrong key, a bad
signature, a stale date, a missing or malformed signature get the service's errors. Without a
credentials file the server refuses to listen beyond loopback unless --insecure."""
import datetime
import http.client
import json
import subprocess
from pathlib import Path

import boto3
import pytest
from botocore.auth import SigV4Auth, SigV4QueryAuth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials as BotoCredentials

from e2e_util import (AMZ_JSON, REGION, TTLSTORE_BIN, ServerProcess, cli_env, client_config,
                      ddb_error, unique_name)

KEY, SECRET = "AKIDTTLSTOREE2E", "e2e/secret+key"


class PresignKeepingBody(SigV4QueryAuth):
    """botocore's presigner moves a form body into the query string, which a JSON protocol
    cannot use; keep the JSON body and sign it as UNSIGNED-PAYLOAD, as S3 presigned URLs do."""

    def _modify_request_before_signing(self, request):
        body = request.data
        super()._modify_request_before_signing(request)
        request.data = body

    def payload(self, request):
        return "UNSIGNED-PAYLOAD"


@pytest.fixture(scope="module")
def auth_server(tmp_path_factory):
    root = tmp_path_factory.mktemp("auth")
    creds = root / "credentials"
    creds.write_text(f"# operators' keys\n{KEY} {SECRET}\nOTHERKEY othersecret\n")
    srv = ServerProcess(root / "data", root / "server.log", ["--credentials", str(creds)]).start()
    yield srv
    assert srv.stop() == 0


def client(endpoint, key=KEY, secret=SECRET):
    return boto3.session.Session().client(
        "dynamodb", endpoint_url=endpoint, region_name=REGION, aws_access_key_id=key,
        aws_secret_access_key=secret, config=client_config())


def signed_request(endpoint, target, body, key=KEY, secret=SECRET, when=None, query=False):
    """A request signed by botocore's own SigV4 signers (header or presigned-query form)."""
    req = AWSRequest(method="POST", url=endpoint + "/", data=json.dumps(body).encode(),
                     headers={"Content-Type": AMZ_JSON,
                              "X-Amz-Target": f"DynamoDB_20120810.{target}"})
    creds = BotoCredentials(key, secret)
    signer = PresignKeepingBody(creds, "dynamodb", REGION, expires=300) if query else \
        SigV4Auth(creds, "dynamodb", REGION)
    if when is not None:
        # botocore stamps the request with the current time; move "now" for skew tests.
        import botocore.auth as ba
        real = ba.datetime.datetime

        class Frozen(real):
            @classmethod
            def utcnow(cls):
                return when

            @classmethod
            def now(cls, tz=None):
                return when if tz is None else when.replace(tzinfo=tz)
        ba.datetime.datetime = Frozen
        try:
            signer.add_auth(req)
        finally:
            ba.datetime.datetime = real
    else:
        signer.add_auth(req)
    return req.prepare()


def send(port, prepared):
    url = prepared.url.split("://", 1)[1]
    path = url[url.index("/"):]
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        c.request("POST", path, body=prepared.body, headers=dict(prepared.headers))
        r = c.getresponse()
        return r.status, json.loads(r.read() or b"{}")
    finally:
        c.close()


def test_boto3_authenticates_and_works(auth_server):
    ddb = client(auth_server.endpoint)
    name = unique_name("auth")
    ddb.create_table(TableName=name, AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                     BillingMode="PAY_PER_REQUEST")
    ddb.put_item(TableName=name, Item={"pk": {"S": "a"}, "v": {"S": "x y"}})
    assert ddb.get_item(TableName=name, Key={"pk": {"S": "a"}})["Item"]["v"] == {"S": "x y"}
    # The second key works too.
    assert name in client(auth_server.endpoint, "OTHERKEY", "othersecret").list_tables()["TableNames"]


def test_unknown_key_is_unrecognized_client(auth_server):
    e = ddb_error(client(auth_server.endpoint, "NOPE", SECRET).list_tables)
    assert (e.code, e.status) == ("UnrecognizedClientException", 400)
    assert e.message == "The security token included in the request is invalid."


def test_wrong_secret_is_invalid_signature(auth_server):
    e = ddb_error(client(auth_server.endpoint, KEY, "wrong").list_tables)
    assert (e.code, e.status) == ("InvalidSignatureException", 400)
    assert e.message.startswith("The request signature we calculated does not match the signature "
                                "you provided.")


@pytest.mark.parametrize("spell", [str.lower, str.upper, str.title], ids=["lower", "upper", "title"])
def test_header_names_in_any_case_are_served(auth_server, spell):
    """Header names are case-insensitive (RFC 9110, section 5.1): SDKs spell them differently
    (botocore "X-Amz-Date", Go's net/http canonical names, others lower case), and a request
    signed over lower-case names is served whatever case its names arrive in."""
    prepared = signed_request(auth_server.endpoint, "ListTables", {})
    c = http.client.HTTPConnection("127.0.0.1", auth_server.port, timeout=30)
    try:
        c.request("POST", "/", body=prepared.body,
                  headers={spell(k): v for k, v in prepared.headers.items()})
        r = c.getresponse()
        assert r.status == 200, r.read()
        assert "TableNames" in json.loads(r.read())
    finally:
        c.close()


def test_tampered_body_is_invalid_signature(auth_server):
    prepared = signed_request(auth_server.endpoint, "ListTables", {})
    prepared.body = json.dumps({"Limit": 1}).encode()
    prepared.headers["Content-Length"] = str(len(prepared.body))
    status, body = send(auth_server.port, prepared)
    assert status == 400
    assert body["__type"].endswith("#InvalidSignatureException")


def test_clock_skew_beyond_15_minutes_is_refused(auth_server):
    now = datetime.datetime.utcnow()
    ok = signed_request(auth_server.endpoint, "ListTables", {}, when=now - datetime.timedelta(minutes=14))
    assert send(auth_server.port, ok)[0] == 200
    old = signed_request(auth_server.endpoint, "ListTables", {}, when=now - datetime.timedelta(minutes=16))
    status, body = send(auth_server.port, old)
    assert status == 400 and body["__type"].endswith("#InvalidSignatureException")
    assert body["message"].startswith("Signature expired: ")
    assert body["message"].endswith(" - 15 min.)")
    future = signed_request(auth_server.endpoint, "ListTables", {}, when=now + datetime.timedelta(minutes=16))
    status, body = send(auth_server.port, future)
    assert status == 400 and body["message"].startswith("Signature not yet current: ")


def test_presigned_query_form(auth_server):
    prepared = signed_request(auth_server.endpoint, "ListTables", {"Limit": 5}, query=True)
    assert "X-Amz-Signature=" in prepared.url and "Authorization" not in prepared.headers
    status, body = send(auth_server.port, prepared)
    assert status == 200, body
    assert "TableNames" in body
    bad = signed_request(auth_server.endpoint, "ListTables", {}, query=True, secret="wrong")
    status, body = send(auth_server.port, bad)
    assert status == 400 and body["__type"].endswith("#InvalidSignatureException")


def test_missing_and_malformed_signatures(auth_server):
    c = http.client.HTTPConnection("127.0.0.1", auth_server.port, timeout=30)
    try:
        c.request("POST", "/", body=b"{}", headers={"Content-Type": AMZ_JSON,
                                                   "X-Amz-Target": "DynamoDB_20120810.ListTables"})
        r = c.getresponse()
        body = json.loads(r.read())
        assert r.status == 400
        assert body["__type"].endswith("#MissingAuthenticationTokenException")
        assert body["message"] == "Request is missing Authentication Token"
        c.request("POST", "/", body=b"{}", headers={
            "Content-Type": AMZ_JSON, "X-Amz-Target": "DynamoDB_20120810.ListTables",
            "X-Amz-Date": "20261122T000000Z",
            "Authorization": f"AWS4-HMAC-SHA256 Credential={KEY}/20261122/{REGION}/dynamodb/aws4_request"})
        r = c.getresponse()
        body = json.loads(r.read())
        assert r.status == 400
        assert body["__type"].endswith("#IncompleteSignatureException")
        assert "Authorization header requires 'Signature' parameter." in body["message"]
    finally:
        c.close()


def test_aws_cli_authenticates(auth_server, tmp_path):
    env = cli_env(tmp_path)
    env["AWS_ACCESS_KEY_ID"], env["AWS_SECRET_ACCESS_KEY"] = KEY, SECRET
    out = subprocess.run(["/usr/bin/aws", "dynamodb", "list-tables", "--endpoint-url",
                          auth_server.endpoint], env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "TableNames" in json.loads(out.stdout)
    env["AWS_SECRET_ACCESS_KEY"] = "wrong"
    out = subprocess.run(["/usr/bin/aws", "dynamodb", "list-tables", "--endpoint-url",
                          auth_server.endpoint], env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode != 0
    assert "InvalidSignatureException" in out.stderr


def test_non_loopback_without_credentials_is_refused(tmp_path):
    r = subprocess.run([TTLSTORE_BIN, "serve", "--host", "0.0.0.0", "--port", "0", "--data-dir",
                        str(tmp_path / "d")], capture_output=True, text=True, timeout=30)
    assert r.returncode == 2
    assert "refusing to listen on 0.0.0.0 without --credentials" in r.stdout + r.stderr
