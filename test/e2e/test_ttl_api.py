"""UpdateTimeToLive / DescribeTimeToLive: answers, state changes and errors (rules D1, D12, D13).

Mirrors the conformance suite's tier2/ttl/basic.test.ts (verified against the real service) and
adds the exact error types and messages the service gives:
  * enabling when TTL is already enabled (whatever attribute)  -> "TimeToLive is already enabled"
  * disabling when TTL is disabled                              -> "TimeToLive is already disabled"
  * disabling naming another attribute than the enabled one     ->
        "TimeToLive is active on a different AttributeName: current AttributeName is <name>"
  * AttributeName of length 0 or > 255                          -> the service's "1 validation
        error detected" form for timeToLiveSpecification.attributeName
  * a table that does not exist                                 -> ResourceNotFoundException
ttlstore applies a change at once (D12, ours), so DescribeTimeToLive says ENABLED / DISABLED,
never ENABLING / DISABLING. The TTL setting is not a tag. Restart persistence is in
test_ttl_restart.py, expiry itself in test_ttl_expiry.py.
"""
from __future__ import annotations

import json

import pytest

from e2e_util import assert_error, create_table, raw_call

ENABLE_TTL = {"Enabled": True, "AttributeName": "ttl"}
DISABLE_TTL = {"Enabled": False, "AttributeName": "ttl"}
ALREADY_ENABLED = "TimeToLive is already enabled"
ALREADY_DISABLED = "TimeToLive is already disabled"


def length_error(constraint: str, value: str = "") -> str:
    return ("1 validation error detected: Value '" + value + "' at "
            "'timeToLiveSpecification.attributeName' failed to satisfy constraint: " + constraint)


TOO_SHORT = length_error("Member must have length greater than or equal to 1")


def not_found(name: str) -> str:
    return f"Requested resource not found: Table: {name} not found"


@pytest.fixture
def table(ddb, table_name):
    create_table(ddb, table_name)
    yield table_name
    try:
        ddb.delete_table(TableName=table_name)
    except Exception:  # noqa: BLE001 - cleanup only
        pass


def describe_ttl(ddb, name: str) -> dict:
    return ddb.describe_time_to_live(TableName=name)["TimeToLiveDescription"]


def update_ttl(ddb, name: str, spec: dict) -> dict:
    out = ddb.update_time_to_live(TableName=name, TimeToLiveSpecification=spec)
    return out["TimeToLiveSpecification"]


# --------------------------------------------------------------------------------------------
# Answers and state (conformance: "TTL — basic")
# --------------------------------------------------------------------------------------------


def test_describe_on_a_new_table_is_disabled_without_attribute_name(ddb, table):
    assert describe_ttl(ddb, table) == {"TimeToLiveStatus": "DISABLED"}


def test_enable_answers_the_specification_it_was_given(ddb, table):
    assert update_ttl(ddb, table, ENABLE_TTL) == ENABLE_TTL


def test_enable_then_describe_is_enabled_with_the_attribute_name(ddb, table):
    update_ttl(ddb, table, ENABLE_TTL)
    assert describe_ttl(ddb, table) == {"TimeToLiveStatus": "ENABLED", "AttributeName": "ttl"}


def test_enable_with_a_custom_attribute_name(ddb, table):
    spec = {"Enabled": True, "AttributeName": "expiresAt"}
    assert update_ttl(ddb, table, spec) == spec
    assert describe_ttl(ddb, table) == {"TimeToLiveStatus": "ENABLED",
                                        "AttributeName": "expiresAt"}


def test_raw_wire_bodies_of_update_and_describe(server, ddb, table):
    """The exact JSON on the wire, without the SDK's parsing in between."""
    def call(op, body):
        status, headers, payload = raw_call(server.port, f"DynamoDB_20120810.{op}", body)
        return status, json.loads(payload)

    assert call("DescribeTimeToLive", {"TableName": table}) == (
        200, {"TimeToLiveDescription": {"TimeToLiveStatus": "DISABLED"}})
    spec = {"Enabled": True, "AttributeName": "Expiry Time.x"}
    assert call("UpdateTimeToLive", {"TableName": table, "TimeToLiveSpecification": spec}) == (
        200, {"TimeToLiveSpecification": spec})
    assert call("DescribeTimeToLive", {"TableName": table}) == (
        200, {"TimeToLiveDescription": {"TimeToLiveStatus": "ENABLED",
                                        "AttributeName": "Expiry Time.x"}})


def test_disable_answers_the_specification_and_describe_is_disabled(ddb, table):
    update_ttl(ddb, table, ENABLE_TTL)
    assert update_ttl(ddb, table, DISABLE_TTL) == DISABLE_TTL
    assert describe_ttl(ddb, table) == {"TimeToLiveStatus": "DISABLED"}


def test_repoint_by_disabling_then_enabling_another_attribute(ddb, table):
    """D13: TTL cannot move to another attribute while enabled; disable, then enable anew."""
    update_ttl(ddb, table, ENABLE_TTL)
    update_ttl(ddb, table, DISABLE_TTL)
    spec = {"Enabled": True, "AttributeName": "expires_at"}
    assert update_ttl(ddb, table, spec) == spec
    assert describe_ttl(ddb, table) == {"TimeToLiveStatus": "ENABLED",
                                        "AttributeName": "expires_at"}
    # ... and back again: every change takes effect at once (D12, ours).
    update_ttl(ddb, table, {"Enabled": False, "AttributeName": "expires_at"})
    update_ttl(ddb, table, ENABLE_TTL)
    assert describe_ttl(ddb, table) == {"TimeToLiveStatus": "ENABLED", "AttributeName": "ttl"}


def test_attribute_name_of_255_characters_is_accepted(ddb, table):
    spec = {"Enabled": True, "AttributeName": "a" * 255}
    assert update_ttl(ddb, table, spec) == spec
    assert describe_ttl(ddb, table) == {"TimeToLiveStatus": "ENABLED", "AttributeName": "a" * 255}


def test_ttl_is_per_table(ddb, table, table_name):
    other = table_name + "_other"
    create_table(ddb, other)
    try:
        update_ttl(ddb, table, ENABLE_TTL)
        assert describe_ttl(ddb, other) == {"TimeToLiveStatus": "DISABLED"}
        update_ttl(ddb, other, {"Enabled": True, "AttributeName": "exp"})
        assert describe_ttl(ddb, table) == {"TimeToLiveStatus": "ENABLED", "AttributeName": "ttl"}
        assert describe_ttl(ddb, other) == {"TimeToLiveStatus": "ENABLED", "AttributeName": "exp"}
    finally:
        ddb.delete_table(TableName=other)


def test_a_recreated_table_starts_with_ttl_disabled(ddb, table_name):
    create_table(ddb, table_name)
    update_ttl(ddb, table_name, ENABLE_TTL)
    ddb.delete_table(TableName=table_name)
    create_table(ddb, table_name)
    try:
        assert describe_ttl(ddb, table_name) == {"TimeToLiveStatus": "DISABLED"}
        assert update_ttl(ddb, table_name, ENABLE_TTL) == ENABLE_TTL
    finally:
        ddb.delete_table(TableName=table_name)


def test_ttl_is_not_a_tag(ddb, table_name):
    arn = create_table(ddb, table_name, Tags=[{"Key": "env", "Value": "test"}])["TableArn"]
    try:
        update_ttl(ddb, table_name, ENABLE_TTL)
        assert ddb.list_tags_of_resource(ResourceArn=arn)["Tags"] == [
            {"Key": "env", "Value": "test"}]
        ddb.tag_resource(ResourceArn=arn, Tags=[{"Key": "team", "Value": "db"}])
        tags = ddb.list_tags_of_resource(ResourceArn=arn)["Tags"]
        assert sorted(tags, key=lambda t: t["Key"]) == [{"Key": "env", "Value": "test"},
                                                        {"Key": "team", "Value": "db"}]
        # Removing every tag leaves the TTL setting alone.
        ddb.untag_resource(ResourceArn=arn, TagKeys=["env", "team"])
        assert ddb.list_tags_of_resource(ResourceArn=arn)["Tags"] == []
        assert describe_ttl(ddb, table_name) == {"TimeToLiveStatus": "ENABLED",
                                                 "AttributeName": "ttl"}
    finally:
        ddb.delete_table(TableName=table_name)


def test_ttl_on_an_untagged_table_lists_no_tags(ddb, table_name):
    arn = create_table(ddb, table_name)["TableArn"]
    try:
        update_ttl(ddb, table_name, ENABLE_TTL)
        assert ddb.list_tags_of_resource(ResourceArn=arn)["Tags"] == []
    finally:
        ddb.delete_table(TableName=table_name)


def test_aws_cli_update_and_describe_time_to_live(aws_cli, ddb, table):
    out = aws_cli("update-time-to-live", "--table-name", table,
                  "--time-to-live-specification", "Enabled=true,AttributeName=ttl")
    assert json.loads(out.stdout) == {"TimeToLiveSpecification": ENABLE_TTL}
    out = aws_cli("describe-time-to-live", "--table-name", table)
    assert json.loads(out.stdout) == {
        "TimeToLiveDescription": {"TimeToLiveStatus": "ENABLED", "AttributeName": "ttl"}}


# --------------------------------------------------------------------------------------------
# Errors (conformance: "TTL — validation", plus the service's exact messages)
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("second", ["ttl", "other"], ids=["same_name", "other_name"])
def test_enable_when_already_enabled(ddb, table, second):
    update_ttl(ddb, table, ENABLE_TTL)
    assert_error(ddb.update_time_to_live, "ValidationException", ALREADY_ENABLED,
                 TableName=table,
                 TimeToLiveSpecification={"Enabled": True, "AttributeName": second})
    # The refused call changed nothing.
    assert describe_ttl(ddb, table) == {"TimeToLiveStatus": "ENABLED", "AttributeName": "ttl"}


def test_disable_when_never_enabled(ddb, table):
    assert_error(ddb.update_time_to_live, "ValidationException", ALREADY_DISABLED,
                 TableName=table, TimeToLiveSpecification=DISABLE_TTL)
    assert describe_ttl(ddb, table) == {"TimeToLiveStatus": "DISABLED"}


def test_disable_twice(ddb, table):
    update_ttl(ddb, table, ENABLE_TTL)
    update_ttl(ddb, table, DISABLE_TTL)
    assert_error(ddb.update_time_to_live, "ValidationException", ALREADY_DISABLED,
                 TableName=table, TimeToLiveSpecification=DISABLE_TTL)
    assert describe_ttl(ddb, table) == {"TimeToLiveStatus": "DISABLED"}


def test_disable_naming_another_attribute(ddb, table):
    update_ttl(ddb, table, ENABLE_TTL)
    assert_error(ddb.update_time_to_live, "ValidationException",
                 "TimeToLive is active on a different AttributeName: current AttributeName is ttl",
                 TableName=table,
                 TimeToLiveSpecification={"Enabled": False, "AttributeName": "expiresAt"})
    assert describe_ttl(ddb, table) == {"TimeToLiveStatus": "ENABLED", "AttributeName": "ttl"}


@pytest.mark.parametrize("enabled", [True, False], ids=["enable", "disable"])
def test_empty_attribute_name(ddb, table, enabled):
    assert_error(ddb.update_time_to_live, "ValidationException", TOO_SHORT,
                 TableName=table,
                 TimeToLiveSpecification={"Enabled": enabled, "AttributeName": ""})
    assert describe_ttl(ddb, table) == {"TimeToLiveStatus": "DISABLED"}


def test_attribute_name_longer_than_255(ddb, table):
    name = "a" * 256
    assert_error(ddb.update_time_to_live, "ValidationException",
                 length_error("Member must have length less than or equal to 255", name),
                 TableName=table,
                 TimeToLiveSpecification={"Enabled": True, "AttributeName": name})
    assert describe_ttl(ddb, table) == {"TimeToLiveStatus": "DISABLED"}


def test_empty_attribute_name_is_checked_before_the_state(ddb, table):
    """Request validation comes first: an enabled table still answers the length error."""
    update_ttl(ddb, table, ENABLE_TTL)
    assert_error(ddb.update_time_to_live, "ValidationException", TOO_SHORT,
                 TableName=table, TimeToLiveSpecification={"Enabled": True, "AttributeName": ""})


def test_update_on_a_missing_table(ddb, table_name):
    assert_error(ddb.update_time_to_live, "ResourceNotFoundException", not_found(table_name),
                 TableName=table_name, TimeToLiveSpecification=ENABLE_TTL)


def test_update_on_the_conformance_suites_missing_table(ddb):
    name = "_conformance_nonexistent_table"
    assert_error(ddb.update_time_to_live, "ResourceNotFoundException", not_found(name),
                 TableName=name, TimeToLiveSpecification=ENABLE_TTL)


def test_describe_on_a_missing_table(ddb, table_name):
    assert_error(ddb.describe_time_to_live, "ResourceNotFoundException", not_found(table_name),
                 TableName=table_name)


def test_update_on_a_deleted_table(ddb, table_name):
    create_table(ddb, table_name)
    ddb.delete_table(TableName=table_name)
    assert_error(ddb.update_time_to_live, "ResourceNotFoundException", not_found(table_name),
                 TableName=table_name, TimeToLiveSpecification=ENABLE_TTL)
