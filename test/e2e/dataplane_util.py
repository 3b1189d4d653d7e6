"""Helpers shared by the data-plane end-to-end tests (UpdateItem, conditions, Query, Scan, batch
and transaction operations). Everything talks to the session server of conftest.py.

Debian 12's botocore (1.29) predates two members that current SDKs have: the
`ReturnValuesOnConditionCheckFailure` parameter of PutItem/UpdateItem/DeleteItem and the `Item`
member of ConditionalCheckFailedException. `modern_ddb` is a client built from a copy of the
installed DynamoDB model with exactly those two members added, so the tests send the parameter and
read `e.response['Item']` the way a current boto3 does.
"""
from __future__ import annotations

import copy
import json
from typing import Any, Callable, Iterable

import boto3
import botocore.session
import pytest

from e2e_util import ACCESS_KEY, REGION, SECRET_KEY, client_config, ddb_error

MAX_PAGES = 500  # any paging loop longer than this is a server bug (a LastEvaluatedKey loop)


# --------------------------------------------------------------------------------------------
# A client whose model knows ReturnValuesOnConditionCheckFailure on single-item writes
# --------------------------------------------------------------------------------------------

def _write_patched_model(root) -> str:
    loader = botocore.session.get_session().get_component("data_loader")
    model = copy.deepcopy(loader.load_service_model("dynamodb", "service-2"))
    shapes = model["shapes"]
    for op in ("PutItemInput", "UpdateItemInput", "DeleteItemInput"):
        shapes[op]["members"].setdefault(
            "ReturnValuesOnConditionCheckFailure",
            {"shape": "ReturnValuesOnConditionCheckFailure"})
    shapes["ConditionalCheckFailedException"]["members"].setdefault(
        "Item", {"shape": "AttributeMap"})
    folder = root / "dynamodb" / model["metadata"]["apiVersion"]
    folder.mkdir(parents=True)
    (folder / "service-2.json").write_text(json.dumps(model))
    return str(root)


@pytest.fixture(scope="session")
def modern_ddb(endpoint, tmp_path_factory):
    data_path = _write_patched_model(tmp_path_factory.mktemp("botocore-model"))
    core = botocore.session.get_session()
    core.set_config_variable("data_path", data_path)
    return boto3.session.Session(botocore_session=core).client(
        "dynamodb", endpoint_url=endpoint, region_name=REGION, aws_access_key_id=ACCESS_KEY,
        aws_secret_access_key=SECRET_KEY, config=client_config())


# --------------------------------------------------------------------------------------------
# Values, tables, paging
# --------------------------------------------------------------------------------------------

def S(v: str) -> dict:
    return {"S": v}


def N(v) -> dict:
    return {"N": str(v)}


def B(v: bytes) -> dict:
    return {"B": v}


def make_table(client, name: str, hash_key=("pk", "S"), range_key=None) -> str:
    attrs = [{"AttributeName": hash_key[0], "AttributeType": hash_key[1]}]
    schema = [{"AttributeName": hash_key[0], "KeyType": "HASH"}]
    if range_key:
        attrs.append({"AttributeName": range_key[0], "AttributeType": range_key[1]})
        schema.append({"AttributeName": range_key[0], "KeyType": "RANGE"})
    client.create_table(TableName=name, AttributeDefinitions=attrs, KeySchema=schema,
                        BillingMode="PAY_PER_REQUEST")
    return name


def drop_table(client, name: str) -> None:
    try:
        client.delete_table(TableName=name)
    except Exception:  # noqa: BLE001 - cleanup only; the test result does not depend on it
        pass


def batch_put(client, table: str, items: Iterable[dict]) -> None:
    """Write items 25 at a time with BatchWriteItem (the server never leaves any unprocessed)."""
    items = list(items)
    for i in range(0, len(items), 25):
        chunk = [{"PutRequest": {"Item": it}} for it in items[i:i + 25]]
        out = client.batch_write_item(RequestItems={table: chunk})
        assert not out.get("UnprocessedItems"), out.get("UnprocessedItems")


def pages(fn: Callable[..., dict], **kwargs) -> list[dict]:
    """Call a Query/Scan until LastEvaluatedKey is absent; return every page."""
    out = []
    start = None
    for _ in range(MAX_PAGES):
        args = dict(kwargs)
        if start is not None:
            args["ExclusiveStartKey"] = start
        page = fn(**args)
        out.append(page)
        start = page.get("LastEvaluatedKey")
        if start is None:
            return out
    raise AssertionError(f"more than {MAX_PAGES} pages: LastEvaluatedKey never ends")


def all_items(fn: Callable[..., dict], **kwargs) -> list[dict]:
    return [it for p in pages(fn, **kwargs) for it in p.get("Items", [])]


def get(client, table: str, key: dict) -> Any:
    """GetItem (consistent); the item or None."""
    return client.get_item(TableName=table, Key=key, ConsistentRead=True).get("Item")


def ccf(fn: Callable[..., Any], **kwargs):
    """Assert the call fails with the conditional-check error; return the DdbError."""
    e = ddb_error(fn, **kwargs)
    assert (e.code, e.message) == ("ConditionalCheckFailedException",
                                   "The conditional request failed"), (e.code, e.message)
    assert e.status == 400
    return e


def cancel_reasons(e) -> list:
    return e.response.get("CancellationReasons", [])


def tx_cancelled_message(codes: list[str]) -> str:
    return ("Transaction cancelled, please refer cancellation reasons for specific reasons "
            f"[{', '.join(codes)}]")
