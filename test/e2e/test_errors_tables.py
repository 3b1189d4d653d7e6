"""Control-plane validation errors: exact code, message and HTTP status.

Expected strings follow /work/ref/foundation-reference.md (real DynamoDB; the conformance suite's
exact strings win). Where the server differs, these tests are meant to fail until it is fixed.
"""
from __future__ import annotations

import json

import pytest

from e2e_util import assert_error, create_table, ddb_error, unique_name

V = "ValidationException"
INVALID = "One or more parameter values were invalid: "
PK = [{"AttributeName": "pk", "AttributeType": "S"}]
PK_HASH = [{"AttributeName": "pk", "KeyType": "HASH"}]
PT = {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5}


def create(ddb, **kwargs):
    args = dict(TableName=unique_name("ct"), AttributeDefinitions=PK, KeySchema=PK_HASH,
                ProvisionedThroughput=PT)
    args.update(kwargs)
    return lambda: ddb.create_table(**{k: v for k, v in args.items() if v is not None})


# ---- CreateTable ------------------------------------------------------------------------------

def test_create_table_without_table_name(ddb):
    assert_error(create(ddb, TableName=None), V,
                 "The parameter 'TableName' is required but was not present in the request")


def test_create_table_with_too_short_name(ddb):
    assert_error(create(ddb, TableName="ab"), V,
                 "1 validation error detected: Value 'ab' at 'tableName' failed to satisfy "
                 "constraint: Member must have length greater than or equal to 3")


def test_create_table_with_invalid_characters_in_name(ddb):
    assert_error(create(ddb, TableName="invalid;name"), V,
                 "1 validation error detected: Value 'invalid;name' at 'tableName' failed to "
                 "satisfy constraint: Member must satisfy regular expression pattern: "
                 "[a-zA-Z0-9_.-]+")


def test_create_table_that_already_exists(ddb, table_name):
    create_table(ddb, table_name)
    assert_error(create(ddb, TableName=table_name), "ResourceInUseException",
                 f"Table already exists: {table_name}")


def test_create_table_with_same_attribute_as_hash_and_range(ddb):
    assert_error(create(ddb, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                                        {"AttributeName": "pk", "KeyType": "RANGE"}]),
                 V, "Invalid KeySchema: Some index key attribute have no definition")


def test_create_table_with_three_key_schema_elements(ddb):
    defs = PK + [{"AttributeName": "sk", "AttributeType": "S"},
                 {"AttributeName": "extra", "AttributeType": "S"}]
    keys = PK_HASH + [{"AttributeName": "sk", "KeyType": "RANGE"},
                      {"AttributeName": "extra", "KeyType": "RANGE"}]
    assert_error(create(ddb, AttributeDefinitions=defs, KeySchema=keys), V,
                 "1 validation error detected: Value '[KeySchemaElement(attributeName=pk, "
                 "keyType=HASH), KeySchemaElement(attributeName=sk, keyType=RANGE), "
                 "KeySchemaElement(attributeName=extra, keyType=RANGE)]' at 'keySchema' failed "
                 "to satisfy constraint: Member must have length less than or equal to 2")


def test_create_table_with_invalid_key_type(ddb):
    assert_error(create(ddb, KeySchema=[{"AttributeName": "pk", "KeyType": "INVALID"}]), V,
                 "1 validation error detected: Value 'INVALID' at 'keySchema.1.member.keyType' "
                 "failed to satisfy constraint: Member must satisfy enum value set: [HASH, RANGE]")


@pytest.mark.parametrize("attr_type", ["INVALID", "SS", "BOOL"])
def test_create_table_with_invalid_attribute_type(ddb, attr_type):
    assert_error(create(ddb, AttributeDefinitions=[{"AttributeName": "pk",
                                                    "AttributeType": attr_type}]), V,
                 f"1 validation error detected: Value '{attr_type}' at "
                 "'attributeDefinitions.1.member.attributeType' failed to satisfy constraint: "
                 "Member must satisfy enum value set: [B, N, S]")


def test_create_table_with_invalid_billing_mode(ddb):
    assert_error(create(ddb, BillingMode="INVALID_MODE"), V,
                 "1 validation error detected: Value 'INVALID_MODE' at 'billingMode' failed to "
                 "satisfy constraint: Member must satisfy enum value set: "
                 "[PROVISIONED, PAY_PER_REQUEST]")


def test_create_table_with_invalid_table_class(ddb):
    assert_error(create(ddb, TableClass="FOO"), V,
                 "1 validation error detected: Value 'FOO' at 'tableClass' failed to satisfy "
                 "constraint: Member must satisfy enum value set: "
                 "[STANDARD, STANDARD_INFREQUENT_ACCESS]")


def test_create_table_with_empty_key_schema(ddb):
    assert_error(create(ddb, KeySchema=[], BillingMode="PAY_PER_REQUEST",
                        ProvisionedThroughput=None), V,
                 "1 validation error detected: Value '[]' at 'keySchema' failed to satisfy "
                 "constraint: Member must have length greater than or equal to 1")


def test_create_table_with_unused_attribute_definition(ddb):
    assert_error(create(ddb, AttributeDefinitions=PK + [{"AttributeName": "extra",
                                                         "AttributeType": "N"}]), V,
                 INVALID + "Number of attributes in KeySchema does not exactly match number of "
                 "attributes defined in AttributeDefinitions")


def test_create_table_with_undefined_key_attribute(ddb):
    assert_error(create(ddb, AttributeDefinitions=[{"AttributeName": "b", "AttributeType": "S"}],
                        KeySchema=[{"AttributeName": "a", "KeyType": "HASH"}]), V,
                 INVALID + "Some index key attributes are not defined in AttributeDefinitions. "
                 "Keys: [a], AttributeDefinitions: [b]")


def test_create_table_with_range_key_first(ddb):
    defs = PK + [{"AttributeName": "sk", "AttributeType": "S"}]
    assert_error(create(ddb, AttributeDefinitions=defs,
                        KeySchema=[{"AttributeName": "sk", "KeyType": "RANGE"},
                                   {"AttributeName": "pk", "KeyType": "HASH"}]), V,
                 "Invalid KeySchema: The first KeySchemaElement is not a HASH key type")


def test_create_table_pay_per_request_with_throughput(ddb):
    assert_error(create(ddb, BillingMode="PAY_PER_REQUEST"), V,
                 INVALID + "Neither ReadCapacityUnits nor WriteCapacityUnits can be specified "
                 "when BillingMode is PAY_PER_REQUEST")


@pytest.mark.parametrize("billing", [None, "PROVISIONED"])
def test_create_table_provisioned_without_throughput(ddb, billing):
    assert_error(create(ddb, BillingMode=billing, ProvisionedThroughput=None), V,
                 INVALID + "ReadCapacityUnits and WriteCapacityUnits must both be specified when "
                 "BillingMode is PROVISIONED")


def test_create_table_with_zero_read_capacity(ddb):
    assert_error(create(ddb, ProvisionedThroughput={"ReadCapacityUnits": 0,
                                                    "WriteCapacityUnits": 5}), V,
                 "1 validation error detected: Value '0' at "
                 "'provisionedThroughput.readCapacityUnits' failed to satisfy constraint: "
                 "Member must have value greater than or equal to 1")


def test_create_table_lsi_on_hash_only_table(ddb):
    defs = PK + [{"AttributeName": "lsiSk", "AttributeType": "S"}]
    lsi = [{"IndexName": "lsi1", "Projection": {"ProjectionType": "ALL"},
            "KeySchema": PK_HASH + [{"AttributeName": "lsiSk", "KeyType": "RANGE"}]}]
    assert_error(create(ddb, AttributeDefinitions=defs, LocalSecondaryIndexes=lsi), V,
                 INVALID + "Table KeySchema does not have a range key, which is required when "
                 "specifying a LocalSecondaryIndex")


def test_create_table_with_duplicate_index_names(ddb):
    defs = PK + [{"AttributeName": n, "AttributeType": "S"} for n in ("sk", "g1", "g2")]
    gsis = [{"IndexName": "sameIndex", "KeySchema": [{"AttributeName": g, "KeyType": "HASH"}],
             "Projection": {"ProjectionType": "ALL"}, "ProvisionedThroughput": PT}
            for g in ("g1", "g2")]
    assert_error(create(ddb, AttributeDefinitions=defs, GlobalSecondaryIndexes=gsis,
                        KeySchema=PK_HASH + [{"AttributeName": "sk", "KeyType": "RANGE"}]), V,
                 INVALID + "Duplicate index name: sameIndex")


# ---- DescribeTable / DeleteTable ------------------------------------------------------------

@pytest.mark.parametrize("op", ["describe_table", "delete_table"])
def test_missing_table_is_resource_not_found_with_name(ddb, op):
    name = unique_name("missing")
    assert_error(getattr(ddb, op), "ResourceNotFoundException",
                 f"Requested resource not found: Table: {name} not found", TableName=name)


@pytest.mark.parametrize("op", ["describe_table", "delete_table"])
def test_table_name_required_for_describe_and_delete(ddb, op):
    assert_error(getattr(ddb, op), V,
                 "The parameter 'TableName' is required but was not present in the request")


# The service's live answer to DescribeTable with '' (us-west-2, 2026-10): length first, then the
# pattern, each as a constraint (docs/limits.md [SC]); the other names follow the same rule.
SHORT = "failed to satisfy constraint: Member must have length greater than or equal to 3"
PATTERN = ("failed to satisfy constraint: Member must satisfy regular expression pattern: "
           "[a-zA-Z0-9_.-]+")


@pytest.mark.parametrize("op", ["describe_table", "delete_table"])
@pytest.mark.parametrize("name,message", [
    ("", f"2 validation errors detected: Value '' at 'tableName' {SHORT}; "
         f"Value '' at 'tableName' {PATTERN}"),
    ("ab", f"1 validation error detected: Value 'ab' at 'tableName' {SHORT}"),
    ("a;", f"2 validation errors detected: Value 'a;' at 'tableName' {SHORT}; "
           f"Value 'a;' at 'tableName' {PATTERN}"),
    ("a" * 256, f"1 validation error detected: Value '{'a' * 256}' at 'tableName' failed to "
                "satisfy constraint: Member must have length less than or equal to 255"),
])
def test_bad_length_table_name_for_describe_and_delete(ddb, op, name, message):
    assert_error(getattr(ddb, op), V, message, TableName=name)


@pytest.mark.parametrize("op", ["describe_table", "delete_table"])
def test_bad_pattern_table_name_for_describe_and_delete(ddb, op):
    assert_error(getattr(ddb, op), V,
                 "1 validation error detected: Value 'abc;' at 'tableName' failed to satisfy "
                 "constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+",
                 TableName="abc;")


# ---- ListTables -------------------------------------------------------------------------------

@pytest.mark.parametrize("limit,constraint", [
    (0, "Member must have value greater than or equal to 1"),
    (-1, "Member must have value greater than or equal to 1"),
    (101, "Member must have value less than or equal to 100"),
])
def test_list_tables_limit_out_of_range(ddb, limit, constraint):
    assert_error(ddb.list_tables, V, f"1 validation error detected: Value '{limit}' at 'limit' "
                 f"failed to satisfy constraint: {constraint}", Limit=limit)


def test_list_tables_with_empty_exclusive_start_name(ddb):
    assert_error(ddb.list_tables, V,
                 "2 validation errors detected: Value '' at 'exclusiveStartTableName' failed to "
                 "satisfy constraint: Member must satisfy regular expression pattern: "
                 "[a-zA-Z0-9_.-]+; Value '' at 'exclusiveStartTableName' failed to satisfy "
                 "constraint: Member must have length greater than or equal to 3",
                 ExclusiveStartTableName="")


def test_list_tables_with_too_long_exclusive_start_name(ddb):
    name = "a" * 256
    assert_error(ddb.list_tables, V, f"1 validation error detected: Value '{name}' at "
                 "'exclusiveStartTableName' failed to satisfy constraint: Member must have "
                 "length less than or equal to 255", ExclusiveStartTableName=name)


# ---- Tags ---------------------------------------------------------------------------------------

@pytest.fixture
def arn(ddb, table_name):
    return create_table(ddb, table_name)["TableArn"]


# ResourceArn refusals, as the service words them (docs/compatibility.md, "Tags").
@pytest.mark.parametrize("bad,message", [
    ("not-a-valid-arn", INVALID + "ARNs must start with 'arn:': not-a-valid-arn"),
    ("arn:aws:s3:::bucket", INVALID + "Provided Arn is not a DynamoDB resource arn: "
     "arn:aws:s3:::bucket"),
    ("arn:aws:dynamodb:us-east-1:000000000000:table/t1/index/i1",
     INVALID + "Invalid resource arn provided, only table or stream is accepted. Provided "
     "resource arn: arn:aws:dynamodb:us-east-1:000000000000:table/t1/index/i1"),
    ("arn:aws:dynamodb:us-east-1:000000000000:backup/b",
     INVALID + "Invalid resource arn provided, only table or stream is accepted. Provided "
     "resource arn: arn:aws:dynamodb:us-east-1:000000000000:backup/b"),
    ("arn:aws:dynamodb:eu-west-1:000000000000:table/t1",
     "Invalid TableArn: Invalid ResourceArn provided as input "
     "arn:aws:dynamodb:eu-west-1:000000000000:table/t1"),
    ("arn:aws:dynamodb:us-east-1", "Invalid TableArn: Invalid ResourceArn provided as input "
     "arn:aws:dynamodb:us-east-1"),
])
def test_tagging_refuses_a_bad_resource_arn(ddb, bad, message):
    assert_error(ddb.tag_resource, V, message, ResourceArn=bad, Tags=[{"Key": "a", "Value": "b"}])
    assert_error(ddb.list_tags_of_resource, V, message, ResourceArn=bad)
    assert_error(ddb.untag_resource, V, message, ResourceArn=bad, TagKeys=["a"])


def test_tag_resource_with_no_tags(ddb, arn):
    assert_error(ddb.tag_resource, V, "Atleast one Tag needs to be provided as Input.",
                 ResourceArn=arn, Tags=[])


def test_untag_resource_with_no_keys(ddb, arn):
    assert_error(ddb.untag_resource, V, "Atleast one Tag Key needs to be provided as Input.",
                 ResourceArn=arn, TagKeys=[])


@pytest.mark.parametrize("key", ["", "k" * 129, "bad%key", "a,b", "emoji\U0001F600", "x\u0301"])
def test_tag_key_refused(ddb, arn, key):
    assert_error(ddb.tag_resource, V, "The Tag Key provided is invalid, Key: " + key,
                 ResourceArn=arn, Tags=[{"Key": key, "Value": "v"}])


@pytest.mark.parametrize("value", ["v" * 257, "semi;colon", "q'uote"])
def test_tag_value_refused(ddb, arn, value):
    assert_error(ddb.tag_resource, V, "The Tag Value provided is invalid, Value: " + value,
                 ResourceArn=arn, Tags=[{"Key": "k", "Value": value}])


def test_tag_key_and_value_of_any_script_and_the_allowed_signs(ddb, arn):
    tags = [{"Key": "k" * 128, "Value": "v" * 256},
            {"Key": "Ünïcödé 名前 ключ", "Value": "värde 値 +-=._:/@ 42"},
            {"Key": "empty", "Value": ""},
            {"Key": "\u00e9t\u00e9", "Value": "\u0663\u0664"}]
    ddb.tag_resource(ResourceArn=arn, Tags=tags)
    got = ddb.list_tags_of_resource(ResourceArn=arn)["Tags"]
    assert sorted(got, key=lambda t: t["Key"]) == sorted(tags, key=lambda t: t["Key"])


def test_tag_entries_missing_key_or_value(ddb, arn):
    # boto3 requires both members, so the request is sent raw.
    from e2e_util import raw_call
    port = int(ddb.meta.endpoint_url.rsplit(":", 1)[1])
    for tag, message in [({}, "The Tag Key provided is invalid, Key: null"),
                         ({"Value": "v"}, "The Tag Key provided is invalid, Key: null"),
                         ({"Key": "k"}, "The Tag Value provided is invalid, Value: null")]:
        status, _, body = raw_call(port, "DynamoDB_20120810.TagResource",
                                   {"ResourceArn": arn, "Tags": [tag]})
        assert (status, json.loads(body)["message"]) == (400, message)


def test_tag_keys_with_the_aws_prefix_or_twice_are_refused(ddb, arn):
    assert_error(ddb.tag_resource, V, "Tag Key cannot be prefixed with aws:, Key: aws:owner",
                 ResourceArn=arn, Tags=[{"Key": "aws:owner", "Value": "v"}])
    assert_error(ddb.tag_resource, V,
                 "Duplicate Tag Keys provided as input: Duplicate Tag Key found dup",
                 ResourceArn=arn, Tags=[{"Key": "dup", "Value": "1"}, {"Key": "dup", "Value": "2"}])
    assert_error(ddb.untag_resource, V, "The Tag Key provided is invalid, Key: ",
                 ResourceArn=arn, TagKeys=[""])


def test_at_most_fifty_tags_on_a_table(ddb, arn, table_name):
    too_many = "Number of Tags exceed the current limit for the provided ResourceArn"
    tags = [{"Key": f"k{i}", "Value": "v"} for i in range(51)]
    assert_error(ddb.tag_resource, V, too_many, ResourceArn=arn, Tags=tags)
    ddb.tag_resource(ResourceArn=arn, Tags=tags[:50])
    ddb.tag_resource(ResourceArn=arn, Tags=[{"Key": "k0", "Value": "again"}])  # a replacement
    assert_error(ddb.tag_resource, V, too_many, ResourceArn=arn, Tags=[tags[50]])
    assert len(ddb.list_tags_of_resource(ResourceArn=arn)["Tags"]) == 50
    assert_error(ddb.untag_resource, V, too_many, ResourceArn=arn,
                 TagKeys=[f"k{i}" for i in range(51)])
    assert_error(ddb.create_table, V, too_many, TableName=table_name + "_2",
                 AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                 KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                 BillingMode="PAY_PER_REQUEST", Tags=tags)


def test_tag_operations_on_a_missing_table(ddb, arn, table_name):
    missing = arn.replace(f"table/{table_name}", f"table/{unique_name('missing')}")
    assert_error(ddb.tag_resource, "ResourceNotFoundException",
                 f"Requested resource not found: ResourcArn: {missing} not found",
                 ResourceArn=missing, Tags=[{"Key": "a", "Value": "b"}])
    assert_error(ddb.untag_resource, "ResourceNotFoundException", "Requested resource not found",
                 ResourceArn=missing, TagKeys=["a"])


def test_list_tags_of_missing_table_is_access_denied(ddb):
    missing = "arn:aws:dynamodb:us-east-1:000000000000:table/nonexistent_table_xyz"
    e = ddb_error(ddb.list_tags_of_resource, ResourceArn=missing)
    assert (e.code, e.message) == (
        "AccessDeniedException", "User: arn:aws:iam::000000000000:root is not authorized to "
        f"perform: dynamodb:ListTagsOfResource on resource: {missing}")
    assert e.status == 400


def test_tag_and_untag_answer_an_empty_body(ddb, arn):
    # TagResource and UntagResource have no output shape in the service's model (the AWS SDK
    # for JavaScript v3's schema: output smithy.api#Unit): 200 with nothing in the body.
    from e2e_util import raw_call
    port = int(ddb.meta.endpoint_url.rsplit(":", 1)[1])
    status, _, body = raw_call(port, "DynamoDB_20120810.TagResource",
                               {"ResourceArn": arn, "Tags": [{"Key": "e", "Value": "1"}]})
    assert (status, body) == (200, b"")
    status, _, body = raw_call(port, "DynamoDB_20120810.UntagResource",
                               {"ResourceArn": arn, "TagKeys": ["e"]})
    assert (status, body) == (200, b"")


def test_concurrent_tag_resource_calls_keep_every_tag(ddb, arn):
    # Each TagResource is a read-modify-write of the stored table (ops/catalog_commit.cc): none
    # is lost to another at the same moment.
    import threading
    barrier = threading.Barrier(8)

    def tag(i: int) -> None:
        barrier.wait()
        ddb.tag_resource(ResourceArn=arn, Tags=[{"Key": f"t{i}", "Value": str(i)}])
    threads = [threading.Thread(target=tag, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    got = {t["Key"] for t in ddb.list_tags_of_resource(ResourceArn=arn)["Tags"]}
    assert {f"t{i}" for i in range(8)} <= got
