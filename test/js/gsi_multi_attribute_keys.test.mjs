// Global secondary indexes with multi-attribute keys (DynamoDB, November 2025) through the AWS
// SDK for JavaScript v3, unchanged: CreateTable with 2 HASH + 2 RANGE attributes, DescribeTable,
// writes (sparse, refused types), Query in its allowed and refused shapes, ordering by the sort
// attributes in both directions, and paging with paginateQuery. The rules:
// docs/compatibility.md, "Multi-attribute GSI keys".
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import {
  CreateTableCommand, DescribeTableCommand, PutItemCommand, QueryCommand, UpdateTableCommand,
  paginateQuery,
} from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand as DocQueryCommand } from '@aws-sdk/lib-dynamodb';

import { Server, rejection, waitFor } from './helpers.mjs';

let server;
let client;
let doc;

const TABLE = 'matches';
const KEY_SCHEMA = [
  { AttributeName: 'tournament', KeyType: 'HASH' },
  { AttributeName: 'regionCode', KeyType: 'HASH' },
  { AttributeName: 'round', KeyType: 'RANGE' },
  { AttributeName: 'seq', KeyType: 'RANGE' },
];
const ROUNDS = ['FINAL', 'QUARTER', 'SEMI'];
const SEQS = [1, 2, 10, 20];

before(async () => {
  server = await Server.start();
  client = server.client();
  doc = DynamoDBDocumentClient.from(client);
  await client.send(new CreateTableCommand({
    TableName: TABLE,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [
      { AttributeName: 'matchId', AttributeType: 'S' },
      { AttributeName: 'tournament', AttributeType: 'S' },
      { AttributeName: 'regionCode', AttributeType: 'S' },
      { AttributeName: 'round', AttributeType: 'S' },
      { AttributeName: 'seq', AttributeType: 'N' },
    ],
    KeySchema: [{ AttributeName: 'matchId', KeyType: 'HASH' }],
    GlobalSecondaryIndexes: [{
      IndexName: 'byBracket', KeySchema: KEY_SCHEMA, Projection: { ProjectionType: 'ALL' },
    }],
  }));
  let n = 0;
  for (const round of ROUNDS) {
    for (const seq of SEQS) {
      await client.send(new PutItemCommand({
        TableName: TABLE,
        Item: {
          matchId: { S: `m${(n * 5) % 12}` }, tournament: { S: 'WINTER' }, regionCode: { S: 'EU' },
          round: { S: round }, seq: { N: String(seq) },
        },
      }));
      n += 1;
    }
  }
  // Sparse: without `seq` the item is not in the index; another region is another partition.
  await client.send(new PutItemCommand({
    TableName: TABLE,
    Item: { matchId: { S: 'noseq' }, tournament: { S: 'WINTER' }, regionCode: { S: 'EU' },
            round: { S: 'FINAL' } },
  }));
  await client.send(new PutItemCommand({
    TableName: TABLE,
    Item: { matchId: { S: 'na' }, tournament: { S: 'WINTER' }, regionCode: { S: 'NA' },
            round: { S: 'FINAL' }, seq: { N: '1' } },
  }));
});

after(async () => {
  client?.destroy();
  await server?.stop();
});

const EXPECTED = ROUNDS.flatMap((round) => SEQS.map((seq) => `${round}/${seq}`));

async function queryAll(input) {
  const out = [];
  // A copy: the paginator writes each page's ExclusiveStartKey into the input it is given.
  for await (const page of paginateQuery({ client, pageSize: 5 }, { ...input })) {
    out.push(...page.Items);
  }
  return out.map((i) => `${i.round.S}/${i.seq.N}`);
}

test('DescribeTable shows the multi-attribute key schema as given', async () => {
  const { Table } = await client.send(new DescribeTableCommand({ TableName: TABLE }));
  assert.deepEqual(Table.GlobalSecondaryIndexes[0].KeySchema, KEY_SCHEMA);
  assert.equal(Table.GlobalSecondaryIndexes[0].ItemCount, 13);
});

test('Query orders by the sort attributes, each by its type, in both directions, paged', async () => {
  const input = {
    TableName: TABLE, IndexName: 'byBracket',
    KeyConditionExpression: 'tournament = :t AND regionCode = :r',
    ExpressionAttributeValues: { ':t': { S: 'WINTER' }, ':r': { S: 'EU' } },
  };
  assert.deepEqual(await queryAll(input), EXPECTED);
  assert.deepEqual(await queryAll({ ...input, ScanIndexForward: false }), [...EXPECTED].reverse());
});

test('Query with an equality prefix and a range condition on the last sort attribute', async () => {
  const out = await doc.send(new DocQueryCommand({
    TableName: TABLE, IndexName: 'byBracket',
    KeyConditionExpression: 'tournament = :t AND regionCode = :r AND #round = :round AND seq BETWEEN :lo AND :hi',
    ExpressionAttributeNames: { '#round': 'round' },
    ExpressionAttributeValues: { ':t': 'WINTER', ':r': 'EU', ':round': 'SEMI', ':lo': 2, ':hi': 10 },
  }));
  assert.deepEqual(out.Items.map((i) => i.seq), [2, 10]);
  const prefix = await doc.send(new DocQueryCommand({
    TableName: TABLE, IndexName: 'byBracket',
    KeyConditionExpression: 'tournament = :t AND regionCode = :r AND begins_with(#round, :p)',
    ExpressionAttributeNames: { '#round': 'round' },
    ExpressionAttributeValues: { ':t': 'WINTER', ':r': 'EU', ':p': 'S' },
  }));
  assert.deepEqual(prefix.Items.map((i) => `${i.round}/${i.seq}`),
    SEQS.map((s) => `SEMI/${s}`));
});

test('Query refuses a missing partition attribute, a skipped sort attribute, a range before the last', async () => {
  const base = { TableName: TABLE, IndexName: 'byBracket' };
  const cases = [
    ['tournament = :t', { ':t': { S: 'WINTER' } },
      'Query condition missed key schema element: regionCode'],
    ['tournament = :t AND regionCode = :r AND seq = :s',
      { ':t': { S: 'WINTER' }, ':r': { S: 'EU' }, ':s': { N: '1' } },
      'Query condition missed key schema element: round'],
    ['tournament = :t AND regionCode = :r AND #round > :x AND seq = :s',
      { ':t': { S: 'WINTER' }, ':r': { S: 'EU' }, ':x': { S: 'A' }, ':s': { N: '1' } },
      'Query key condition not supported'],
  ];
  for (const [cond, values, message] of cases) {
    const input = { ...base, KeyConditionExpression: cond, ExpressionAttributeValues: values };
    if (cond.includes('#round')) input.ExpressionAttributeNames = { '#round': 'round' };
    const err = await rejection(client.send(new QueryCommand(input)));
    assert.equal(err.name, 'ValidationException');
    assert.equal(err.message, message);
  }
});

test('a key attribute of the wrong type is refused', async () => {
  const err = await rejection(client.send(new PutItemCommand({
    TableName: TABLE,
    Item: { matchId: { S: 'bad' }, tournament: { S: 'WINTER' }, regionCode: { S: 'EU' },
            round: { S: 'FINAL' }, seq: { S: 'one' } },
  })));
  assert.equal(err.name, 'ValidationException');
  assert.equal(err.message, 'One or more parameter values were invalid: Type mismatch for Index '
    + 'Key seq Expected: N Actual: S IndexName: byBracket');
});

test('UpdateTable adds a multi-attribute index over the existing items', async () => {
  await client.send(new UpdateTableCommand({
    TableName: TABLE,
    AttributeDefinitions: [
      { AttributeName: 'regionCode', AttributeType: 'S' },
      { AttributeName: 'round', AttributeType: 'S' },
      { AttributeName: 'seq', AttributeType: 'N' },
    ],
    GlobalSecondaryIndexUpdates: [{ Create: {
      IndexName: 'byRegion',
      KeySchema: [{ AttributeName: 'regionCode', KeyType: 'HASH' },
                  { AttributeName: 'seq', KeyType: 'RANGE' },
                  { AttributeName: 'round', KeyType: 'RANGE' }],
      Projection: { ProjectionType: 'KEYS_ONLY' },
    } }],
  }));
  await waitFor('byRegion to be ACTIVE', async () => {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: TABLE }));
    return Table.GlobalSecondaryIndexes.every((g) => g.IndexStatus === 'ACTIVE');
  });
  const out = await client.send(new QueryCommand({
    TableName: TABLE, IndexName: 'byRegion',
    KeyConditionExpression: 'regionCode = :r AND seq = :s',
    ExpressionAttributeValues: { ':r': { S: 'EU' }, ':s': { N: '10' } },
  }));
  assert.deepEqual(out.Items.map((i) => i.round.S), ROUNDS);
});
