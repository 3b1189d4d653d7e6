#!/usr/bin/env python3
"""Cross-checks loadgen's SigV4 signature against botocore's signer, when botocore is installed.
Usage: sigv4_check.py LOADGEN. Exit 0: equal (or botocore absent: skipped), 1: different."""
import subprocess
import sys

try:
    from botocore.auth import SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials
except ImportError:
    print("sigv4 check: botocore not installed, skipped")
    sys.exit(0)

NOW = 1440938160  # 2015-08-30T12:36:00Z, the date of AWS's documentation examples
AK, SK, REGION = "AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "eu-west-1"
BODY = '{"TableName":"bench","Key":{"pk":{"S":"k0000000001"}}}'
ENDPOINT = "http://127.0.0.1:8123"

out = subprocess.run([sys.argv[1], "--sign-only", "--endpoint", ENDPOINT, "--op", "GetItem",
                      "--body", BODY, "--now", str(NOW), "--access-key", AK, "--secret-key", SK,
                      "--region", REGION], check=True, capture_output=True, text=True).stdout
ours = next(l.split(": ", 1)[1] for l in out.splitlines() if l.startswith("Authorization: "))

req = AWSRequest(method="POST", url=ENDPOINT + "/", data=BODY.encode(), headers={
    "Content-Type": "application/x-amz-json-1.0",
    "X-Amz-Target": "DynamoDB_20120810.GetItem"})
signer = SigV4Auth(Credentials(AK, SK), "dynamodb", REGION)
# botocore reads the clock inside add_auth; pin it to NOW.
import botocore.auth as ba
orig = ba.datetime.datetime
class Fixed(orig):
    @classmethod
    def utcnow(cls):
        return orig.utcfromtimestamp(NOW)
    @classmethod
    def now(cls, tz=None):
        return orig.fromtimestamp(NOW, tz)
ba.datetime.datetime = Fixed
signer.add_auth(req)
theirs = req.headers["Authorization"]
if ours != theirs:
    print("sigv4 check: MISMATCH\n ours:     %s\n botocore: %s" % (ours, theirs))
    sys.exit(1)
print("sigv4 check: loadgen's signature equals botocore's")
