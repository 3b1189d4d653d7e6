// DynamoDB Toolbox (v2), unchanged, against a fresh ttlstore: a Table and an Entity with computed
// keys, put/get/query/update/delete through its commands, a conditional put that fails, and a
// TTL attribute that ttlstore's sweeper honours.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { CreateTableCommand, GetItemCommand, UpdateTimeToLiveCommand } from '@aws-sdk/client-dynamodb';
import { Table } from 'dynamodb-toolbox/table';
import { Entity } from 'dynamodb-toolbox/entity';
import { item } from 'dynamodb-toolbox/schema/item';
import { string } from 'dynamodb-toolbox/schema/string';
import { number } from 'dynamodb-toolbox/schema/number';
import { set } from 'dynamodb-toolbox/schema/set';
import { PutItemCommand } from 'dynamodb-toolbox/entity/actions/put';
import { GetItemCommand as ToolboxGet } from 'dynamodb-toolbox/entity/actions/get';
import { DeleteItemCommand } from 'dynamodb-toolbox/entity/actions/delete';
import { UpdateItemCommand, $add } from 'dynamodb-toolbox/entity/actions/update';
import { QueryCommand } from 'dynamodb-toolbox/table/actions/query';
import { BatchWriteCommand, execute as executeBatchWrite } from 'dynamodb-toolbox/table/actions/batchWrite';
import { BatchGetCommand, execute as executeBatchGet } from 'dynamodb-toolbox/table/actions/batchGet';
import { BatchPutRequest } from 'dynamodb-toolbox/entity/actions/batchPut';
import { BatchGetRequest } from 'dynamodb-toolbox/entity/actions/batchGet';
import { PutTransaction } from 'dynamodb-toolbox/entity/actions/transactPut';
import { ConditionCheck } from 'dynamodb-toolbox/entity/actions/transactCheck';
import { execute as executeTransactWrite, isTransactionCancelled } from 'dynamodb-toolbox/entity/actions/transactWrite';

import { Server, epochSeconds, rejection, waitFor } from './helpers.mjs';

const TABLE = 'toolbox';

let server;
let client;
let PostEntity;
let AppTable;

before(async () => {
  server = await Server.start();
  client = server.client();
  await client.send(new CreateTableCommand({
    TableName: TABLE,
    AttributeDefinitions: [{ AttributeName: 'PK', AttributeType: 'S' }, { AttributeName: 'SK', AttributeType: 'S' }],
    KeySchema: [{ AttributeName: 'PK', KeyType: 'HASH' }, { AttributeName: 'SK', KeyType: 'RANGE' }],
    BillingMode: 'PAY_PER_REQUEST',
  }));
  await client.send(new UpdateTimeToLiveCommand({
    TableName: TABLE, TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true },
  }));

  AppTable = new Table({
    name: TABLE,
    partitionKey: { name: 'PK', type: 'string' },
    sortKey: { name: 'SK', type: 'string' },
    documentClient: server.documentClient(),
  });
  PostEntity = new Entity({
    name: 'POST',
    schema: item({
      author: string().key(),
      postId: string().key(),
      title: string(),
      likes: number().default(0),
      tags: set(string()).optional(),
      ttl: number().optional(), // epoch seconds: the table's TTL attribute
    }),
    computeKey: ({ author, postId }) => ({ PK: `AUTHOR#${author}`, SK: `POST#${postId}` }),
    table: AppTable,
  });
});

after(async () => {
  client?.destroy();
  await server?.stop();
});

describe('DynamoDB Toolbox', () => {
  test('put, get, query, update, delete through the Entity and Table commands', async () => {
    await PostEntity.build(PutItemCommand).item({ author: 'ada', postId: '1', title: 'Notes', tags: new Set(['math']) }).send();
    await PostEntity.build(PutItemCommand).item({ author: 'ada', postId: '2', title: 'More notes' }).send();
    await PostEntity.build(PutItemCommand).item({ author: 'bob', postId: '1', title: 'Elsewhere' }).send();

    // Stored with the computed keys and Toolbox's own attributes (entity name, timestamps).
    const raw = await client.send(new GetItemCommand({ TableName: TABLE, Key: { PK: { S: 'AUTHOR#ada' }, SK: { S: 'POST#1' } } }));
    assert.ok(raw.Item, 'stored under the computed key');
    assert.equal(raw.Item._et.S, 'POST');
    assert.ok(raw.Item._ct?.S && raw.Item._md?.S, 'creation and modification timestamps');

    const { Item } = await PostEntity.build(ToolboxGet).key({ author: 'ada', postId: '1' }).send();
    assert.equal(Item.title, 'Notes');
    assert.equal(Item.likes, 0);
    assert.deepEqual(Item.tags, new Set(['math']));
    const none = await PostEntity.build(ToolboxGet).key({ author: 'ada', postId: '9' }).send();
    assert.equal(none.Item, undefined);

    const { Items } = await AppTable.build(QueryCommand)
      .query({ partition: 'AUTHOR#ada', range: { beginsWith: 'POST#' } })
      .entities(PostEntity)
      .send();
    assert.deepEqual(Items.map((p) => p.postId), ['1', '2']);

    const { Attributes } = await PostEntity.build(UpdateItemCommand)
      .item({ author: 'ada', postId: '1', likes: $add(2), tags: $add(new Set(['history'])) })
      .options({ returnValues: 'ALL_NEW' })
      .send();
    assert.equal(Attributes.likes, 2);
    assert.deepEqual(Attributes.tags, new Set(['math', 'history']));

    // A condition that does not hold: the service's exception reaches the caller.
    const err = await rejection(PostEntity.build(PutItemCommand)
      .item({ author: 'ada', postId: '1', title: 'overwrite' })
      .options({ condition: { attr: 'likes', lt: 1 } })
      .send());
    assert.equal(err.name, 'ConditionalCheckFailedException');
    assert.equal((await PostEntity.build(ToolboxGet).key({ author: 'ada', postId: '1' }).send()).Item.title, 'Notes');

    await PostEntity.build(DeleteItemCommand).key({ author: 'ada', postId: '1' }).send();
    assert.equal((await PostEntity.build(ToolboxGet).key({ author: 'ada', postId: '1' }).send()).Item, undefined);
    const left = await AppTable.build(QueryCommand).query({ partition: 'AUTHOR#ada' }).entities(PostEntity).send();
    assert.deepEqual(left.Items.map((p) => p.postId), ['2']);
  });

  test('batch write and get, and a cancelled transaction with the failing item', async () => {
    await executeBatchWrite(AppTable.build(BatchWriteCommand).requests(
      ...['a', 'b', 'c'].map((postId) => PostEntity.build(BatchPutRequest).item({ author: 'kim', postId, title: `post ${postId}` })),
    ));
    const { Responses } = await executeBatchGet(AppTable.build(BatchGetCommand).requests(
      PostEntity.build(BatchGetRequest).key({ author: 'kim', postId: 'c' }),
      PostEntity.build(BatchGetRequest).key({ author: 'kim', postId: 'zzz' }),
      PostEntity.build(BatchGetRequest).key({ author: 'kim', postId: 'a' }),
    ));
    // One list per BatchGetCommand, in request order, undefined where there is no item.
    assert.deepEqual(Responses[0].map((p) => p?.title), ['post c', undefined, 'post a']);

    const check = PostEntity.build(ConditionCheck).key({ author: 'kim', postId: 'a' })
      .condition({ attr: 'likes', gt: 10 }).options({ returnValuesOnConditionFalse: 'ALL_OLD' });
    const put = PostEntity.build(PutTransaction).item({ author: 'kim', postId: 'd', title: 'post d' });
    let err;
    try {
      await executeTransactWrite(check, put);
    } catch (e) {
      err = e;
    }
    assert.ok(err, 'the transaction is cancelled');
    assert.equal(isTransactionCancelled(err, check, put), true);
    assert.deepEqual(err.CancellationReasons.map((r) => r.Code), ['ConditionalCheckFailed', 'None']);
    // Toolbox formats the returned item back into the entity's shape.
    assert.equal(err.CancellationReasons[0].FormattedItem?.title, 'post a');
    assert.equal((await PostEntity.build(ToolboxGet).key({ author: 'kim', postId: 'd' }).send()).Item, undefined);
  });

  test('a TTL attribute: the item is gone after its expiry', async () => {
    await PostEntity.build(PutItemCommand).item({ author: 'eve', postId: 'story', title: 'gone soon', ttl: epochSeconds(2) }).send();
    await PostEntity.build(PutItemCommand).item({ author: 'eve', postId: 'pinned', title: 'stays', ttl: epochSeconds(3600) }).send();
    const key = { author: 'eve', postId: 'story' };
    assert.ok((await PostEntity.build(ToolboxGet).key(key).send()).Item, 'there before it expires');
    await waitFor('the expired post to be deleted', async () => (await PostEntity.build(ToolboxGet).key(key).send()).Item === undefined,
      { timeoutMs: 8000, intervalMs: 200 });
    const { Items } = await AppTable.build(QueryCommand).query({ partition: 'AUTHOR#eve' }).entities(PostEntity).send();
    assert.deepEqual(Items.map((p) => p.postId), ['pinned']);
  });
});
