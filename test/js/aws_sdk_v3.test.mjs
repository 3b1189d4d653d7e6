// The AWS SDK for JavaScript v3, unchanged, against a fresh ttlstore: @aws-sdk/client-dynamodb
// (DynamoDBClient, waiters, paginators, batches, transactions, TTL) and @aws-sdk/lib-dynamodb
// (DynamoDBDocumentClient: JS objects, Sets and numbers marshalled for you).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import {
  BatchGetItemCommand, BatchWriteItemCommand, CreateTableCommand, DeleteItemCommand,
  DeleteTableCommand, DescribeTableCommand, DescribeTimeToLiveCommand, GetItemCommand,
  PutItemCommand, QueryCommand as RawQueryCommand, TransactGetItemsCommand, TransactWriteItemsCommand, UpdateItemCommand, UpdateTimeToLiveCommand,
  paginateQuery, paginateScan, waitUntilTableExists, waitUntilTableNotExists,
} from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand, GetCommand, NumberValue, PutCommand, QueryCommand, UpdateCommand,
  paginateQuery as paginateDocQuery, paginateScan as paginateDocScan,
} from '@aws-sdk/lib-dynamodb';

import { Server, epochSeconds, rejection, sleep, waitFor } from './helpers.mjs';

let server;
let client;

before(async () => {
  server = await Server.start();
  client = server.client();
});

after(async () => {
  client?.destroy();
  await server?.stop();
});

async function createTable(TableName, { sortKeyType = 'N' } = {}) {
  await client.send(new CreateTableCommand({
    TableName,
    AttributeDefinitions: [
      { AttributeName: 'pk', AttributeType: 'S' },
      { AttributeName: 'sk', AttributeType: sortKeyType },
    ],
    KeySchema: [
      { AttributeName: 'pk', KeyType: 'HASH' },
      { AttributeName: 'sk', KeyType: 'RANGE' },
    ],
    BillingMode: 'PAY_PER_REQUEST',
  }));
  const waited = await waitUntilTableExists({ client, minDelay: 1, maxDelay: 2, maxWaitTime: 30 }, { TableName });
  assert.equal(waited.state, 'SUCCESS');
}

describe('@aws-sdk/client-dynamodb', () => {
  test('CreateTable, waitUntilTableExists, DescribeTable, DeleteTable, waitUntilTableNotExists', async () => {
    await createTable('Waiters');
    const { Table } = await client.send(new DescribeTableCommand({ TableName: 'Waiters' }));
    assert.equal(Table.TableStatus, 'ACTIVE');
    assert.deepEqual(Table.KeySchema, [
      { AttributeName: 'pk', KeyType: 'HASH' },
      { AttributeName: 'sk', KeyType: 'RANGE' },
    ]);
    assert.equal(Table.BillingModeSummary?.BillingMode, 'PAY_PER_REQUEST');

    await client.send(new DeleteTableCommand({ TableName: 'Waiters' }));
    const waited = await waitUntilTableNotExists({ client, minDelay: 1, maxDelay: 2, maxWaitTime: 30 }, { TableName: 'Waiters' });
    assert.equal(waited.state, 'SUCCESS');
    const err = await rejection(client.send(new DescribeTableCommand({ TableName: 'Waiters' })));
    assert.equal(err.name, 'ResourceNotFoundException');
    assert.equal(err.message, 'Requested resource not found: Table: Waiters not found');
    assert.equal(err.$metadata.httpStatusCode, 400);
    const getErr = await rejection(client.send(new GetItemCommand({
      TableName: 'Waiters', Key: { pk: { S: 'a' }, sk: { N: '1' } },
    })));
    assert.equal(getErr.name, 'ResourceNotFoundException');
    assert.equal(getErr.message, 'Requested resource not found');
  });

  test('PutItem, GetItem, UpdateItem, DeleteItem and a failing condition', async () => {
    await createTable('Items');
    const key = { pk: { S: 'user#1' }, sk: { N: '1' } };
    await client.send(new PutItemCommand({
      TableName: 'Items',
      Item: { ...key, name: { S: 'Ada' }, visits: { N: '1' }, tags: { SS: ['a', 'b'] } },
      ConditionExpression: 'attribute_not_exists(pk)',
    }));

    const got = await client.send(new GetItemCommand({ TableName: 'Items', Key: key, ConsistentRead: true }));
    assert.deepEqual(got.Item, { ...key, name: { S: 'Ada' }, visits: { N: '1' }, tags: { SS: ['a', 'b'] } });

    const updated = await client.send(new UpdateItemCommand({
      TableName: 'Items',
      Key: key,
      UpdateExpression: 'SET #n = :n ADD visits :one',
      ExpressionAttributeNames: { '#n': 'name' },
      ExpressionAttributeValues: { ':n': { S: 'Ada Lovelace' }, ':one': { N: '1' } },
      ReturnValues: 'UPDATED_NEW',
    }));
    assert.deepEqual(updated.Attributes, { name: { S: 'Ada Lovelace' }, visits: { N: '2' } });

    // The same put again: the condition fails with the service's exception and message.
    const err = await rejection(client.send(new PutItemCommand({
      TableName: 'Items',
      Item: { ...key, name: { S: 'someone else' } },
      ConditionExpression: 'attribute_not_exists(pk)',
    })));
    assert.equal(err.name, 'ConditionalCheckFailedException');
    assert.equal(err.message, 'The conditional request failed');
    assert.equal(err.$metadata.httpStatusCode, 400);

    const deleted = await client.send(new DeleteItemCommand({
      TableName: 'Items', Key: key, ReturnValues: 'ALL_OLD',
    }));
    assert.equal(deleted.Attributes.name.S, 'Ada Lovelace');
    const gone = await client.send(new GetItemCommand({ TableName: 'Items', Key: key }));
    assert.equal(gone.Item, undefined);
  });

  test('a failed condition returns the item with ReturnValuesOnConditionCheckFailure', async () => {
    await createTable('OnFailure');
    const key = { pk: { S: 'k' }, sk: { N: '1' } };
    await client.send(new PutItemCommand({ TableName: 'OnFailure', Item: { ...key, v: { N: '7' } } }));
    const err = await rejection(client.send(new UpdateItemCommand({
      TableName: 'OnFailure',
      Key: key,
      UpdateExpression: 'SET v = :new',
      ConditionExpression: 'v = :old',
      ExpressionAttributeValues: { ':new': { N: '9' }, ':old': { N: '8' } },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    })));
    assert.equal(err.name, 'ConditionalCheckFailedException');
    assert.deepEqual(err.Item, { ...key, v: { N: '7' } });
  });

  test('paginateQuery and paginateScan walk every page in order', async () => {
    await createTable('Pages');
    // 60 items in two partitions, written with BatchWriteItem (at most 25 per call).
    const items = [];
    for (const pk of ['a', 'b']) {
      for (let i = 0; i < 30; i += 1) items.push({ pk: { S: pk }, sk: { N: String(i) }, n: { N: String(i * 10) } });
    }
    for (let i = 0; i < items.length; i += 25) {
      const out = await client.send(new BatchWriteItemCommand({
        RequestItems: { Pages: items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) },
      }));
      assert.deepEqual(out.UnprocessedItems ?? {}, {});
    }

    const pages = [];
    for await (const page of paginateQuery({ client, pageSize: 7 }, {
      TableName: 'Pages',
      KeyConditionExpression: 'pk = :pk AND sk >= :from',
      ExpressionAttributeValues: { ':pk': { S: 'a' }, ':from': { N: '5' } },
      ScanIndexForward: false,
    })) {
      pages.push(page.Items.map((it) => Number(it.sk.N)));
    }
    // 25 items (29 down to 5) in pages of 7; the service may end with an empty last page.
    assert.deepEqual(pages.flat(), Array.from({ length: 25 }, (_, i) => 29 - i));
    assert.ok(pages.length >= 4 && pages.length <= 5, `pages: ${JSON.stringify(pages)}`);
    assert.deepEqual(pages.slice(0, 3).map((p) => p.length), [7, 7, 7]);

    const scanned = [];
    let scanPages = 0;
    for await (const page of paginateScan({ client, pageSize: 13 }, {
      TableName: 'Pages',
      FilterExpression: 'n >= :min',
      ExpressionAttributeValues: { ':min': { N: '100' } },
    })) {
      scanPages += 1;
      assert.ok(page.ScannedCount <= 13);
      scanned.push(...page.Items.map((it) => `${it.pk.S}${it.sk.N}`));
    }
    assert.ok(scanPages >= 5, `scan pages: ${scanPages}`);
    const expected = [];
    for (const pk of ['a', 'b']) for (let i = 10; i < 30; i += 1) expected.push(`${pk}${i}`);
    assert.deepEqual(scanned.sort(), expected.sort());
  });

  test('a GSI: Query by the index key, pages carry the index key in LastEvaluatedKey', async () => {
    await client.send(new CreateTableCommand({
      TableName: 'Orders',
      AttributeDefinitions: [
        { AttributeName: 'orderId', AttributeType: 'S' },
        { AttributeName: 'customer', AttributeType: 'S' },
        { AttributeName: 'placedAt', AttributeType: 'N' },
      ],
      KeySchema: [{ AttributeName: 'orderId', KeyType: 'HASH' }],
      GlobalSecondaryIndexes: [{
        IndexName: 'byCustomer',
        KeySchema: [{ AttributeName: 'customer', KeyType: 'HASH' }, { AttributeName: 'placedAt', KeyType: 'RANGE' }],
        Projection: { ProjectionType: 'KEYS_ONLY' },
      }],
      BillingMode: 'PAY_PER_REQUEST',
    }));
    await waitUntilTableExists({ client, minDelay: 1, maxDelay: 2, maxWaitTime: 30 }, { TableName: 'Orders' });
    for (let i = 0; i < 9; i += 1) {
      await client.send(new PutItemCommand({
        TableName: 'Orders',
        Item: { orderId: { S: `o${i}` }, customer: { S: i % 3 === 0 ? 'zoe' : 'yan' }, placedAt: { N: String(1000 + i) }, total: { N: '5' } },
      }));
    }
    const first = await client.send(new RawQueryCommand({
      TableName: 'Orders', IndexName: 'byCustomer', Limit: 2,
      KeyConditionExpression: 'customer = :c', ExpressionAttributeValues: { ':c': { S: 'zoe' } },
    }));
    assert.deepEqual(first.Items, [
      { orderId: { S: 'o0' }, customer: { S: 'zoe' }, placedAt: { N: '1000' } },
      { orderId: { S: 'o3' }, customer: { S: 'zoe' }, placedAt: { N: '1003' } },
    ]);
    assert.deepEqual(first.LastEvaluatedKey, { orderId: { S: 'o3' }, customer: { S: 'zoe' }, placedAt: { N: '1003' } });
    const ids = [];
    for await (const page of paginateQuery({ client, pageSize: 2 }, {
      TableName: 'Orders', IndexName: 'byCustomer',
      KeyConditionExpression: 'customer = :c', ExpressionAttributeValues: { ':c': { S: 'yan' } },
    })) {
      ids.push(...page.Items.map((it) => it.orderId.S));
    }
    assert.deepEqual(ids, ['o1', 'o2', 'o4', 'o5', 'o7', 'o8']);
  });

  test('BatchWriteItem puts and deletes, BatchGetItem reads them back', async () => {
    await createTable('Batch');
    const key = (i) => ({ pk: { S: 'batch' }, sk: { N: String(i) } });
    await client.send(new BatchWriteItemCommand({
      RequestItems: { Batch: [0, 1, 2, 3].map((i) => ({ PutRequest: { Item: { ...key(i), v: { S: `v${i}` } } } })) },
    }));
    await client.send(new BatchWriteItemCommand({
      RequestItems: {
        Batch: [
          { DeleteRequest: { Key: key(1) } },
          { PutRequest: { Item: { ...key(4), v: { S: 'v4' } } } },
        ],
      },
    }));
    const out = await client.send(new BatchGetItemCommand({
      RequestItems: {
        Batch: { Keys: [0, 1, 2, 4, 9].map(key), ProjectionExpression: 'sk, v' },
      },
    }));
    assert.deepEqual(out.UnprocessedKeys ?? {}, {});
    const got = out.Responses.Batch.map((it) => [Number(it.sk.N), it.v.S]).sort((x, y) => x[0] - y[0]);
    assert.deepEqual(got, [[0, 'v0'], [2, 'v2'], [4, 'v4']]);
  });

  test('TransactWriteItems: a failing condition cancels all, with CancellationReasons', async () => {
    await createTable('Transfers', { sortKeyType: 'S' });
    const acct = (id) => ({ pk: { S: `acct#${id}` }, sk: { S: 'balance' } });
    await client.send(new PutItemCommand({ TableName: 'Transfers', Item: { ...acct('alice'), amount: { N: '10' } } }));
    await client.send(new PutItemCommand({ TableName: 'Transfers', Item: { ...acct('bob'), amount: { N: '0' } } }));

    const transfer = (n) => new TransactWriteItemsCommand({
      TransactItems: [
        {
          Update: {
            TableName: 'Transfers', Key: acct('alice'),
            UpdateExpression: 'SET amount = amount - :n',
            ConditionExpression: 'amount >= :n',
            ExpressionAttributeValues: { ':n': { N: String(n) } },
          },
        },
        {
          Update: {
            TableName: 'Transfers', Key: acct('bob'),
            UpdateExpression: 'SET amount = amount + :n',
            ExpressionAttributeValues: { ':n': { N: String(n) } },
          },
        },
      ],
    });

    const err = await rejection(client.send(transfer(15)));
    assert.equal(err.name, 'TransactionCanceledException');
    assert.equal(err.$metadata.httpStatusCode, 400);
    assert.equal(err.message,
      'Transaction cancelled, please refer cancellation reasons for specific reasons [ConditionalCheckFailed, None]');
    assert.equal(err.CancellationReasons.length, 2);
    assert.equal(err.CancellationReasons[0].Code, 'ConditionalCheckFailed');
    assert.equal(err.CancellationReasons[0].Message, 'The conditional request failed');
    assert.equal(err.CancellationReasons[1].Code, 'None');

    const amount = async (id) => Number((await client.send(new GetItemCommand({
      TableName: 'Transfers', Key: acct(id), ConsistentRead: true,
    }))).Item.amount.N);
    assert.deepEqual([await amount('alice'), await amount('bob')], [10, 0]);

    await client.send(transfer(4));
    assert.deepEqual([await amount('alice'), await amount('bob')], [6, 4]);

    // ReturnValuesOnConditionCheckFailure puts the item in its cancellation reason.
    const withItem = await rejection(client.send(new TransactWriteItemsCommand({
      TransactItems: [{
        ConditionCheck: {
          TableName: 'Transfers', Key: acct('alice'),
          ConditionExpression: 'amount > :n',
          ExpressionAttributeValues: { ':n': { N: '100' } },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        },
      }, {
        Put: { TableName: 'Transfers', Item: { ...acct('carol'), amount: { N: '1' } } },
      }],
    })));
    assert.equal(withItem.name, 'TransactionCanceledException');
    assert.deepEqual(withItem.CancellationReasons[0].Item, { ...acct('alice'), amount: { N: '6' } });
    assert.equal(withItem.CancellationReasons[1].Code, 'None');

    const read = await client.send(new TransactGetItemsCommand({
      TransactItems: ['alice', 'bob', 'carol'].map((id) => ({ Get: { TableName: 'Transfers', Key: acct(id) } })),
    }));
    assert.deepEqual(read.Responses.map((r) => r.Item?.amount.N), ['6', '4', undefined]);
  });

  test('UpdateTimeToLive, DescribeTimeToLive, and an expired item is deleted', async () => {
    await createTable('Sessions', { sortKeyType: 'S' });
    const before = await client.send(new DescribeTimeToLiveCommand({ TableName: 'Sessions' }));
    assert.equal(before.TimeToLiveDescription.TimeToLiveStatus, 'DISABLED');

    const updated = await client.send(new UpdateTimeToLiveCommand({
      TableName: 'Sessions',
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
    }));
    assert.deepEqual(updated.TimeToLiveSpecification, { AttributeName: 'expiresAt', Enabled: true });
    const described = await client.send(new DescribeTimeToLiveCommand({ TableName: 'Sessions' }));
    assert.deepEqual(described.TimeToLiveDescription, { TimeToLiveStatus: 'ENABLED', AttributeName: 'expiresAt' });

    const shortKey = { pk: { S: 'session' }, sk: { S: 'short' } };
    const longKey = { pk: { S: 'session' }, sk: { S: 'long' } };
    await client.send(new PutItemCommand({
      TableName: 'Sessions', Item: { ...shortKey, expiresAt: { N: String(epochSeconds(2)) } },
    }));
    await client.send(new PutItemCommand({
      TableName: 'Sessions', Item: { ...longKey, expiresAt: { N: String(epochSeconds(3600)) } },
    }));
    const present = await client.send(new GetItemCommand({ TableName: 'Sessions', Key: shortKey }));
    assert.ok(present.Item, 'the item is there before it expires');

    await waitFor('the expired item to be deleted', async () => {
      const res = await client.send(new GetItemCommand({ TableName: 'Sessions', Key: shortKey }));
      return res.Item === undefined;
    }, { timeoutMs: 8000, intervalMs: 200 });
    const kept = await client.send(new GetItemCommand({ TableName: 'Sessions', Key: longKey }));
    assert.ok(kept.Item, 'the item that expires in an hour is still there');
  });
});

describe('@aws-sdk/lib-dynamodb DynamoDBDocumentClient', () => {
  let doc;
  before(async () => {
    doc = server.documentClient({ marshallOptions: { removeUndefinedValues: true } });
    await createTable('Docs', { sortKeyType: 'S' });
  });

  test('JS objects, Sets, numbers and binaries round-trip', async () => {
    const item = {
      pk: 'doc#1',
      sk: 'profile',
      name: 'Grace',
      age: 85,
      ratio: 0.25,
      active: true,
      nothing: null,
      missing: undefined, // dropped by removeUndefinedValues
      tags: new Set(['navy', 'cobol']),
      scores: new Set([3, 1, 2]),
      blob: new Uint8Array([0, 1, 2, 255]),
      address: { city: 'Arlington', lines: ['1 Main St', { unit: 4 }] },
    };
    await doc.send(new PutCommand({ TableName: 'Docs', Item: item }));
    const { Item } = await doc.send(new GetCommand({ TableName: 'Docs', Key: { pk: 'doc#1', sk: 'profile' } }));
    const { missing, ...expected } = item;
    assert.equal(missing, undefined);
    assert.deepEqual(Item, expected);

    // Raw view: the document client wrote the DynamoDB types a user would expect.
    const raw = await client.send(new GetItemCommand({
      TableName: 'Docs', Key: { pk: { S: 'doc#1' }, sk: { S: 'profile' } },
    }));
    assert.deepEqual(raw.Item.tags, { SS: ['navy', 'cobol'] });
    assert.deepEqual(new Set(raw.Item.scores.NS), new Set(['1', '2', '3']));
    assert.deepEqual(raw.Item.nothing, { NULL: true });
    assert.deepEqual(raw.Item.address.M.lines.L[1], { M: { unit: { N: '4' } } });
  });

  test('numbers beyond a double keep every digit with NumberValue', async () => {
    const precise = server.documentClient({ unmarshallOptions: { wrapNumbers: true } });
    const big = '12345678901234567890123456789.123456789';
    await precise.send(new PutCommand({
      TableName: 'Docs', Item: { pk: 'doc#2', sk: 'big', n: NumberValue.from(big), small: 42 },
    }));
    const { Item } = await precise.send(new GetCommand({ TableName: 'Docs', Key: { pk: 'doc#2', sk: 'big' } }));
    assert.ok(Item.n instanceof NumberValue);
    assert.equal(Item.n.toString(), big);
    assert.equal(Item.small.toString(), '42');

    // Without wrapNumbers the library refuses to lose precision silently.
    const err = await rejection(doc.send(new GetCommand({ TableName: 'Docs', Key: { pk: 'doc#2', sk: 'big' } })));
    assert.match(err.message, /can't be converted to BigInt/);
    await doc.send(new DeleteCommand({ TableName: 'Docs', Key: { pk: 'doc#2', sk: 'big' } }));
  });

  test('UpdateCommand with Set ADD/DELETE, conditional DeleteCommand', async () => {
    await doc.send(new PutCommand({ TableName: 'Docs', Item: { pk: 'doc#3', sk: 'x', colors: new Set(['red']), n: 1 } }));
    const Key = { pk: 'doc#3', sk: 'x' };
    await doc.send(new UpdateCommand({
      TableName: 'Docs', Key, UpdateExpression: 'ADD colors :add, n :inc',
      ExpressionAttributeValues: { ':add': new Set(['green', 'blue']), ':inc': 2 },
    }));
    const { Attributes } = await doc.send(new UpdateCommand({
      TableName: 'Docs', Key, UpdateExpression: 'DELETE colors :del',
      ExpressionAttributeValues: { ':del': new Set(['red']) },
      ReturnValues: 'ALL_NEW',
    }));
    assert.deepEqual(Attributes, { pk: 'doc#3', sk: 'x', colors: new Set(['blue', 'green']), n: 3 });

    // ADD and DELETE on the same attribute in one expression is refused, as by the service.
    const overlap = await rejection(doc.send(new UpdateCommand({
      TableName: 'Docs', Key, UpdateExpression: 'ADD colors :a DELETE colors :d',
      ExpressionAttributeValues: { ':a': new Set(['x']), ':d': new Set(['y']) },
    })));
    assert.equal(overlap.name, 'ValidationException');
    assert.match(overlap.message, /^Invalid UpdateExpression: Two document paths overlap with each other/);

    const err = await rejection(doc.send(new DeleteCommand({
      TableName: 'Docs', Key: { pk: 'doc#3', sk: 'x' }, ConditionExpression: 'n > :max',
      ExpressionAttributeValues: { ':max': 5 },
    })));
    assert.equal(err.name, 'ConditionalCheckFailedException');
    await doc.send(new DeleteCommand({ TableName: 'Docs', Key: { pk: 'doc#3', sk: 'x' } }));
    const { Item } = await doc.send(new GetCommand({ TableName: 'Docs', Key: { pk: 'doc#3', sk: 'x' } }));
    assert.equal(Item, undefined);
  });

  test('document paginators: paginateQuery and paginateScan', async () => {
    for (let i = 0; i < 23; i += 1) {
      await doc.send(new PutCommand({
        TableName: 'Docs', Item: { pk: 'feed', sk: `post#${String(i).padStart(2, '0')}`, likes: i, odd: i % 2 === 1 },
      }));
    }
    const seen = [];
    let pages = 0;
    for await (const page of paginateDocQuery({ client: doc, pageSize: 5 }, {
      TableName: 'Docs',
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
      FilterExpression: 'odd = :t',
      ExpressionAttributeValues: { ':pk': 'feed', ':p': 'post#', ':t': true },
    })) {
      pages += 1;
      seen.push(...page.Items.map((it) => it.likes));
    }
    assert.ok(pages >= 5, `query pages: ${pages}`);
    assert.deepEqual(seen, [1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21]);

    const one = await doc.send(new QueryCommand({
      TableName: 'Docs', KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': 'feed' },
      Select: 'COUNT',
    }));
    assert.equal(one.Count, 23);

    let scannedFeed = 0;
    for await (const page of paginateDocScan({ client: doc, pageSize: 4 }, { TableName: 'Docs' })) {
      scannedFeed += page.Items.filter((it) => it.pk === 'feed').length;
    }
    assert.equal(scannedFeed, 23);
  });

  test('a TTL attribute written by the document client expires the item', async () => {
    await createTable('DocTtl', { sortKeyType: 'S' });
    await client.send(new UpdateTimeToLiveCommand({
      TableName: 'DocTtl', TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true },
    }));
    const Key = { pk: 'cart#9', sk: 'open' };
    await doc.send(new PutCommand({ TableName: 'DocTtl', Item: { ...Key, ttl: epochSeconds(2), items: ['book'] } }));
    assert.ok((await doc.send(new GetCommand({ TableName: 'DocTtl', Key }))).Item);
    await sleep(1000);
    await waitFor('the cart to expire', async () => (await doc.send(new GetCommand({ TableName: 'DocTtl', Key }))).Item === undefined,
      { timeoutMs: 8000, intervalMs: 200 });
  });
});
