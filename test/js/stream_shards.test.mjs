// DynamoDB Streams shard lineage with the AWS SDK for JavaScript v3, unchanged:
// @aws-sdk/client-dynamodb-streams against a ttlstore whose shards roll over every second. A
// reader starts at the root shard, reads each shard until GetRecords returns no
// NextShardIterator (closed and read to its end), asks DescribeStream for its child with
// ShardFilter CHILD_SHARDS, and goes on, while puts, updates and deletes are written; it must see
// every record once, in order. The filter's refusals come back as the SDK's typed errors.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import {
  CreateTableCommand, DeleteItemCommand, PutItemCommand, UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand, DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand,
} from '@aws-sdk/client-dynamodb-streams';

import { CREDENTIALS, REGION, Server, rejection, sleep } from './helpers.mjs';

const WRITE_MS = 3500;  // three rollovers at one a second: two closed shards even on a slow (ASan) build

let server;
let client;
let streams;

before(async () => {
  server = await Server.start({ args: ['--stream-shard-rollover-seconds', '1'] });
  client = server.client();
  streams = new DynamoDBStreamsClient({
    endpoint: server.endpoint, region: REGION, credentials: CREDENTIALS, maxAttempts: 1,
  });
});

after(async () => {
  client?.destroy();
  streams?.destroy();
  await server?.stop();
});

async function describeAll(StreamArn, ShardFilter) {
  const shards = [];
  let ExclusiveStartShardId;
  do {
    const { StreamDescription: d } = await streams.send(
      new DescribeStreamCommand({ StreamArn, ShardFilter, ExclusiveStartShardId, Limit: 1 }));
    shards.push(...d.Shards);
    ExclusiveStartShardId = d.LastEvaluatedShardId;
  } while (ExclusiveStartShardId);
  return shards;
}

// Puts, updates and deletes on eight keys; returns what each key's stream must show.
async function write(TableName) {
  const expected = new Map();
  const exists = new Set();
  const deadline = Date.now() + WRITE_MS;
  for (let n = 1; Date.now() < deadline; n++) {
    const key = `k${n % 8}`;
    if (!expected.has(key)) expected.set(key, []);
    const log = expected.get(key);
    if (n % 5 === 0 && exists.has(key)) {
      await client.send(new DeleteItemCommand({ TableName, Key: { pk: { S: key } } }));
      exists.delete(key);
      log.push('REMOVE');
    } else if (n % 3 === 0 && exists.has(key)) {
      await client.send(new UpdateItemCommand({
        TableName, Key: { pk: { S: key } }, UpdateExpression: 'SET v = :v',
        ExpressionAttributeValues: { ':v': { N: String(n) } },
      }));
      log.push(`MODIFY ${n}`);
    } else {
      await client.send(new PutItemCommand({ TableName, Item: { pk: { S: key }, v: { N: String(n) } } }));
      log.push(`${exists.has(key) ? 'MODIFY' : 'INSERT'} ${n}`);
      exists.add(key);
    }
    await sleep(5);
  }
  return expected;
}

function summary(r) {
  return r.eventName === 'REMOVE' ? 'REMOVE' : `${r.eventName} ${r.dynamodb.NewImage.v.N}`;
}

test('a reader follows parent to child with ShardFilter CHILD_SHARDS and sees every record once', async () => {
  const TableName = 'js_shards';
  const { TableDescription } = await client.send(new CreateTableCommand({
    TableName, BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
    KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
    StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' },
  }));
  const StreamArn = TableDescription.LatestStreamArn;
  let writing = true;
  let expectedTotal = Infinity;
  const writer = write(TableName).then((expected) => {
    writing = false;
    expectedTotal = [...expected.values()].reduce((n, log) => n + log.length, 0);
    return expected;
  });

  const roots = (await describeAll(StreamArn)).filter((s) => !s.ParentShardId);
  assert.equal(roots.length, 1);
  let ShardId = roots[0].ShardId;
  const records = [];
  const closed = [];
  const deadline = Date.now() + WRITE_MS + 20000;
  for (;;) {
    let { ShardIterator } = await streams.send(new GetShardIteratorCommand({
      StreamArn, ShardId, ShardIteratorType: 'TRIM_HORIZON',
    }));
    let open = false;
    while (ShardIterator) {
      assert.ok(Date.now() < deadline, 'the reader did not see every record in time');
      const page = await streams.send(new GetRecordsCommand({ ShardIterator, Limit: 20 }));
      records.push(...page.Records);
      if (page.NextShardIterator === undefined) break;  // closed, read to its end
      if (page.Records.length === 0) {
        if (!writing && records.length >= expectedTotal) { open = true; break; }
        await sleep(20);
      }
      ShardIterator = page.NextShardIterator;
    }
    if (open) break;
    closed.push(ShardId);
    let children = [];
    while (children.length === 0) {
      children = await describeAll(StreamArn, { Type: 'CHILD_SHARDS', ShardId });
      if (children.length === 0) await sleep(10);
    }
    assert.equal(children.length, 1);
    assert.equal(children[0].ParentShardId, ShardId);
    ShardId = children[0].ShardId;
  }
  const expected = await writer;
  assert.ok(closed.length >= 2, `only ${closed.length} rollovers`);

  const ids = records.map((r) => r.eventID);
  assert.equal(new Set(ids).size, ids.length);
  const seqs = records.map((r) => BigInt(r.dynamodb.SequenceNumber));
  assert.deepEqual(seqs, [...seqs].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
  const perKey = new Map();
  for (const r of records) {
    const key = r.dynamodb.Keys.pk.S;
    if (!perKey.has(key)) perKey.set(key, []);
    perKey.get(key).push(summary(r));
  }
  assert.deepEqual(perKey, expected);

  // Every closed shard has its end; the one still open has none.
  const all = await describeAll(StreamArn);
  for (const s of all.slice(0, -1)) assert.ok(s.SequenceNumberRange.EndingSequenceNumber, s.ShardId);
  assert.equal(all.at(-1).SequenceNumberRange.EndingSequenceNumber, undefined);

  // The filter's refusals.
  const badType = await rejection(streams.send(new DescribeStreamCommand({
    StreamArn, ShardFilter: { Type: 'PARENT_SHARDS', ShardId: all[0].ShardId },
  })));
  assert.equal(badType.name, 'ValidationException');
  assert.equal(badType.message, "1 validation error detected: Value 'PARENT_SHARDS' at "
    + "'shardFilter.type' failed to satisfy constraint: Member must satisfy enum value set: [CHILD_SHARDS]");
  const noShard = await rejection(streams.send(new DescribeStreamCommand({
    StreamArn, ShardFilter: { Type: 'CHILD_SHARDS' },
  })));
  assert.equal(noShard.name, 'ValidationException');
  assert.equal(noShard.message,
    'One or more parameter values were invalid: ShardFilter of type CHILD_SHARDS requires a ShardId');
  const unknown = await rejection(streams.send(new DescribeStreamCommand({
    StreamArn, ShardFilter: { Type: 'CHILD_SHARDS', ShardId: `${all[0].ShardId.slice(0, -8)}7fffffff` },
  })));
  assert.equal(unknown.name, 'ResourceNotFoundException');
  assert.equal(unknown.message, 'Requested resource not found: Shard does not exist');
});
