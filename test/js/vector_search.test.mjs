// DynamoDB vector indexes and SearchVectors (issue 32) through the AWS SDK for JavaScript v3,
// unchanged (its SearchVectorsCommand, pointed at the local endpoint): CreateTable with vector
// indexes of each distance function, a few thousand random vectors, SearchVectors against a
// brute force computed here (the server ranks exactly, so the same top K in the same order),
// SearchConditionExpression on HASH and INLINE_FILTER attributes, projections, the TopK bounds
// and the documented error texts, deleted and TTL-expired items leaving answers, and
// UpdateTable adding a vector index to a populated table (backfill) and deleting it. The rules
// and their sources: docs/vector-indexes.md.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import {
  BatchWriteItemCommand, CreateBackupCommand, CreateTableCommand, DeleteItemCommand, DescribeTableCommand,
  ExecuteStatementCommand, GetItemCommand, PutItemCommand, QueryCommand,
  RestoreTableFromBackupCommand, SearchVectorsCommand,
  TransactWriteItemsCommand, UpdateItemCommand, UpdateTableCommand, UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';

import { Server, epochSeconds, rejection, waitFor } from './helpers.mjs';

const DIM = 16;
const N_ITEMS = 3000;
const TABLE = 'Docs';
const CATEGORIES = ['a', 'b', 'c'];
const LANGS = ['en', 'fr'];

let server;
let client;
const items = new Map();  // id -> { vec (float32 values), category, lang, title }

// A deterministic generator, so a failure reproduces.
let seed = 12345;
function random() {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
}
function randomVector() {
  return Array.from({ length: DIM }, () => Math.fround(random() * 2 - 1));
}
const asList = (vec) => ({ L: vec.map((x) => ({ N: String(x) })) });

function distance(fn, a, b) {
  let dot = 0; let na = 0; let nb = 0; let l2 = 0;
  for (let i = 0; i < a.length; i += 1) {
    dot += a[i] * b[i]; na += a[i] * a[i]; nb += b[i] * b[i]; l2 += (a[i] - b[i]) ** 2;
  }
  if (fn === 'EUCLIDEAN') return Math.sqrt(l2);
  if (fn === 'COSINE') return 1 - dot / (Math.sqrt(na) * Math.sqrt(nb));
  return dot;  // DOT_PRODUCT: the score is the dot product, larger first
}

// The exact top K of `fn` among the items `keep` accepts: [{ id, score }], best first.
function bruteForce(fn, query, k, keep = () => true) {
  const scored = [];
  for (const [id, it] of items) {
    if (keep(it)) scored.push({ id, score: distance(fn, query, it.vec) });
  }
  scored.sort((x, y) => (fn === 'DOT_PRODUCT' ? y.score - x.score : x.score - y.score));
  return scored.slice(0, k);
}

async function search(input) {
  return client.send(new SearchVectorsCommand({ TableName: TABLE, ...input }));
}

function assertSameRanking(results, expected) {
  assert.deepEqual(results.map((r) => r.Item.id.S), expected.map((e) => e.id));
  results.forEach((r, i) => {
    assert.ok(Math.abs(r.Score - expected[i].score) <= 1e-5 * Math.max(1, Math.abs(expected[i].score)),
      `score ${r.Score} vs ${expected[i].score}`);
  });
}

async function putAll(entries) {
  for (let i = 0; i < entries.length; i += 25) {
    const batch = entries.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } }));
    const res = await client.send(new BatchWriteItemCommand({ RequestItems: { [TABLE]: batch } }));
    assert.deepEqual(res.UnprocessedItems ?? {}, {});
  }
}

function itemOf(id, it) {
  return {
    id: { S: id }, emb: asList(it.vec), category: { S: it.category }, lang: { S: it.lang },
    title: { S: it.title }, body: { S: `body of ${id}` },
  };
}

before(async () => {
  server = await Server.start({ args: ['--ttl-sweep-interval-ms', '50'] });
  client = server.client();
  await client.send(new CreateTableCommand({
    TableName: TABLE,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [
      { AttributeName: 'id', AttributeType: 'S' },
      { AttributeName: 'category', AttributeType: 'S' },
      { AttributeName: 'lang', AttributeType: 'S' },
    ],
    KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
    VectorIndexes: [
      {
        IndexName: 'cos', VectorAttribute: { AttributeName: 'emb' }, Dimensions: DIM,
        DistanceFunction: 'COSINE', Projection: { ProjectionType: 'ALL' },
      },
      {
        IndexName: 'euc', VectorAttribute: { AttributeName: 'emb' }, Dimensions: DIM,
        DistanceFunction: 'EUCLIDEAN', Projection: { ProjectionType: 'KEYS_ONLY' },
        SearchSchema: [{ AttributeName: 'lang', SearchSchemaElementType: 'INLINE_FILTER' }],
      },
      {
        IndexName: 'dot', VectorAttribute: { AttributeName: 'emb' }, Dimensions: DIM,
        DistanceFunction: 'DOT_PRODUCT', Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['title'] },
        SearchSchema: [
          { AttributeName: 'category', SearchSchemaElementType: 'HASH' },
          { AttributeName: 'lang', SearchSchemaElementType: 'INLINE_FILTER' },
        ],
      },
    ],
  }));
  const entries = [];
  for (let i = 0; i < N_ITEMS; i += 1) {
    const id = `doc${i}`;
    const it = {
      vec: randomVector(), category: CATEGORIES[i % 3], lang: LANGS[Math.floor(i / 3) % 2],
      title: `title ${i}`,
    };
    items.set(id, it);
    entries.push(itemOf(id, it));
  }
  await putAll(entries);
});

after(async () => {
  await server?.stop();
});

describe('vector indexes', () => {
  test('DescribeTable shows the vector indexes with the service shape', async () => {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: TABLE }));
    assert.equal(Table.GlobalSecondaryIndexes, undefined);
    assert.equal(Table.LocalSecondaryIndexes, undefined);
    const byName = Object.fromEntries(Table.VectorIndexes.map((v) => [v.IndexName, v]));
    assert.deepEqual(Object.keys(byName).sort(), ['cos', 'dot', 'euc']);
    const dot = byName.dot;
    assert.equal(dot.IndexStatus, 'ACTIVE');
    assert.equal(dot.Backfilling, false);
    assert.deepEqual(dot.VectorAttribute, { AttributeName: 'emb' });
    assert.equal(dot.Dimensions, DIM);
    assert.equal(dot.DistanceFunction, 'DOT_PRODUCT');
    assert.deepEqual(dot.SearchSchema, [
      { AttributeName: 'category', SearchSchemaElementType: 'HASH' },
      { AttributeName: 'lang', SearchSchemaElementType: 'INLINE_FILTER' },
    ]);
    assert.deepEqual(dot.Projection, { ProjectionType: 'INCLUDE', NonKeyAttributes: ['title'] });
    assert.equal(dot.IndexArn, `${Table.TableArn}/index/dot`);
    assert.equal(byName.cos.ItemCount, N_ITEMS);
    assert.ok(byName.cos.IndexSizeBytes > 0);
    assert.equal(byName.cos.SearchSchema, undefined);
  });

  test('COSINE: the exact top K, smallest score first, whole items under ALL', async () => {
    for (let q = 0; q < 5; q += 1) {
      const query = randomVector();
      const res = await search({ IndexName: 'cos', SearchVector: asList(query).L, TopK: 10 });
      assertSameRanking(res.SearchResults, bruteForce('COSINE', query, 10));
      const first = res.SearchResults[0].Item;
      assert.deepEqual(first, itemOf(first.id.S, items.get(first.id.S)));
    }
  });

  test('EUCLIDEAN with an INLINE_FILTER, KEYS_ONLY projection', async () => {
    const query = randomVector();
    const res = await search({
      IndexName: 'euc', SearchVector: asList(query).L, TopK: 25,
      SearchConditionExpression: '#l = :lang',
      ExpressionAttributeNames: { '#l': 'lang' }, ExpressionAttributeValues: { ':lang': { S: 'fr' } },
      ReturnConsumedCapacity: 'TOTAL',
    });
    assertSameRanking(res.SearchResults, bruteForce('EUCLIDEAN', query, 25, (it) => it.lang === 'fr'));
    // KEYS_ONLY: the table key, the vector and the INLINE_FILTER attribute.
    assert.deepEqual(Object.keys(res.SearchResults[0].Item).sort(), ['emb', 'id', 'lang']);
    assert.equal(res.ConsumedCapacity.VectorSearchRequestBytes, 4 * DIM);
    const unfiltered = await search({ IndexName: 'euc', SearchVector: asList(query).L, TopK: 100 });
    assertSameRanking(unfiltered.SearchResults, bruteForce('EUCLIDEAN', query, 100));
  });

  test('DOT_PRODUCT within a HASH partition, largest score first, ProjectionExpression', async () => {
    const query = randomVector();
    const res = await search({
      IndexName: 'dot', SearchVector: asList(query).L, TopK: 7,
      SearchConditionExpression: 'category = :c AND lang = :l',
      ExpressionAttributeValues: { ':c': { S: 'b' }, ':l': { S: 'en' } },
      ProjectionExpression: 'id, title',
    });
    assertSameRanking(res.SearchResults,
      bruteForce('DOT_PRODUCT', query, 7, (it) => it.category === 'b' && it.lang === 'en'));
    assert.deepEqual(Object.keys(res.SearchResults[0].Item).sort(), ['id', 'title']);
    const scores = res.SearchResults.map((r) => r.Score);
    assert.deepEqual(scores, [...scores].sort((x, y) => y - x));
  });

  test('TopK bounds and the documented error texts', async () => {
    const q = asList(randomVector()).L;
    for (const TopK of [0, 101]) {
      const err = await rejection(search({ IndexName: 'cos', SearchVector: q, TopK }));
      assert.equal(err.name, 'ValidationException');
      // The service's whole text (a conformance suite's capture, searchVectors).
      assert.equal(err.message, `Provided TopK value '${TopK}' is out of valid range. The value must be between 1 and 100 inclusive`);
    }
    assert.equal((await search({ IndexName: 'cos', SearchVector: q, TopK: 1 })).SearchResults.length, 1);
    assert.equal((await search({ IndexName: 'cos', SearchVector: q, TopK: 100 })).SearchResults.length, 100);

    let err = await rejection(search({ IndexName: 'dot', SearchVector: q, TopK: 5 }));
    assert.equal(err.message, 'SearchConditionExpression must be provided when SearchSchema has a HASH key');
    err = await rejection(search({
      IndexName: 'dot', SearchVector: q, TopK: 5, SearchConditionExpression: 'category > :c',
      ExpressionAttributeValues: { ':c': { S: 'b' } },
    }));
    assert.equal(err.message, 'Invalid SearchConditionExpression: Invalid comparator used in SearchConditionExpression');
    err = await rejection(search({ IndexName: 'nope', SearchVector: q, TopK: 5 }));
    assert.equal(err.name, 'ValidationException');
    assert.equal(err.message, 'The table does not have the specified index: nope');
    err = await rejection(search({ IndexName: 'cos', SearchVector: q.slice(1), TopK: 5 }));
    assert.equal(err.name, 'ValidationException');
    assert.equal(err.message, 'Input search vector dimension 15 does not match vector index dimension 16');
    // The values are checked before the length (a conformance suite's capture, searchVectors).
    err = await rejection(search({ IndexName: 'cos', SearchVector: [{ L: [{ N: '1' }] }], TopK: 5 }));
    assert.equal(err.message, 'Search vector contains invalid values. All values in the search '
      + 'vector must be a 32-bit floating-point number attribute');
    err = await rejection(search({
      IndexName: 'dot', SearchVector: q, TopK: 5, SearchConditionExpression: 'title = :t',
      ExpressionAttributeValues: { ':t': { S: 'b' } },
    }));
    assert.equal(err.message, 'SearchConditionExpression must not contain any attributes that is '
      + 'not in SearchSchema. Invalid attribute: title');
    err = await rejection(client.send(new SearchVectorsCommand({
      TableName: 'Missing', IndexName: 'cos', SearchVector: q, TopK: 5,
    })));
    assert.equal(err.name, 'ResourceNotFoundException');
    err = await rejection(search({
      IndexName: 'euc', SearchVector: q, TopK: 5, ProjectionExpression: 'title',
    }));
    assert.match(err.message, /Vector index euc does not project \[title\]/);
    // Vector indexes are read with SearchVectors only.
    err = await rejection(client.send(new QueryCommand({
      TableName: TABLE, IndexName: 'cos', KeyConditionExpression: 'id = :i',
      ExpressionAttributeValues: { ':i': { S: 'doc1' } },
    })));
    assert.equal(err.message, 'The table does not have the specified index: cos');
  });

  test('writes: a wrong dimension or type is refused, a missing vector leaves the item out', async () => {
    let err = await rejection(client.send(new PutItemCommand({
      TableName: TABLE, Item: { id: { S: 'bad1' }, emb: asList(randomVector().slice(2)) },
    })));
    assert.equal(err.name, 'ValidationException');
    assert.match(err.message, /has 14 dimensions, but vector index \w+ requires 16/);
    err = await rejection(client.send(new PutItemCommand({
      TableName: TABLE, Item: { id: { S: 'bad2' }, emb: { S: 'not a vector' } },
    })));
    assert.match(err.message, /Invalid type for parameter emb/);
    err = await rejection(client.send(new PutItemCommand({
      TableName: TABLE, Item: { id: { S: 'bad3' }, emb: { L: [{ S: 'x' }, ...asList(randomVector()).L.slice(1)] } },
    })));
    assert.match(err.message, /Invalid type for parameter emb\[0\]/);
    const missing = await client.send(new GetItemCommand({ TableName: TABLE, Key: { id: { S: 'bad1' } } }));
    assert.equal(missing.Item, undefined);
    await client.send(new PutItemCommand({ TableName: TABLE, Item: { id: { S: 'novec' }, title: { S: 't' } } }));
    const { Table } = await client.send(new DescribeTableCommand({ TableName: TABLE }));
    assert.equal(Table.VectorIndexes.find((v) => v.IndexName === 'cos').ItemCount, N_ITEMS);
  });

  test('UpdateItem, transactions and PartiQL keep the index in step', async () => {
    const target = randomVector();
    await client.send(new UpdateItemCommand({
      TableName: TABLE, Key: { id: { S: 'doc7' } }, UpdateExpression: 'SET emb = :v',
      ExpressionAttributeValues: { ':v': asList(target) },
    }));
    items.get('doc7').vec = target;
    let res = await search({ IndexName: 'cos', SearchVector: asList(target).L, TopK: 1 });
    assert.equal(res.SearchResults[0].Item.id.S, 'doc7');
    assert.ok(res.SearchResults[0].Score < 1e-6);

    const t2 = randomVector();
    await client.send(new TransactWriteItemsCommand({
      TransactItems: [{ Put: { TableName: TABLE, Item: itemOf('tx1', { vec: t2, category: 'a', lang: 'en', title: 'tx' }) } }],
    }));
    items.set('tx1', { vec: t2, category: 'a', lang: 'en', title: 'tx' });
    res = await search({ IndexName: 'cos', SearchVector: asList(t2).L, TopK: 1 });
    assert.equal(res.SearchResults[0].Item.id.S, 'tx1');

    const t3 = randomVector();
    await client.send(new ExecuteStatementCommand({
      Statement: `INSERT INTO "${TABLE}" VALUE {'id': 'pq1', 'emb': [${t3.join(', ')}], 'category': 'c', 'lang': 'fr', 'title': 'pq', 'body': 'body of pq1'}`,
    }));
    items.set('pq1', { vec: t3, category: 'c', lang: 'fr', title: 'pq' });
    res = await search({ IndexName: 'cos', SearchVector: asList(t3).L, TopK: 1 });
    assert.equal(res.SearchResults[0].Item.id.S, 'pq1');
  });

  test('deleted items leave every answer', async () => {
    const query = randomVector();
    const top = bruteForce('COSINE', query, 5);
    for (const { id } of top.slice(0, 3)) {
      await client.send(new DeleteItemCommand({ TableName: TABLE, Key: { id: { S: id } } }));
      items.delete(id);
    }
    const res = await search({ IndexName: 'cos', SearchVector: asList(query).L, TopK: 10 });
    assertSameRanking(res.SearchResults, bruteForce('COSINE', query, 10));
    for (const { id } of top.slice(0, 3)) {
      assert.ok(!res.SearchResults.some((r) => r.Item.id.S === id));
    }
  });

  test('items expired by TTL leave the answers with their item', async () => {
    await client.send(new UpdateTimeToLiveCommand({
      TableName: TABLE, TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
    }));
    const query = randomVector();
    const soon = { ...itemOf('ttl1', { vec: query, category: 'a', lang: 'en', title: 'ttl' }), expiresAt: { N: String(epochSeconds(-5)) } };
    await client.send(new PutItemCommand({ TableName: TABLE, Item: soon }));
    await waitFor('the expired item to be deleted', async () => {
      const r = await client.send(new GetItemCommand({ TableName: TABLE, Key: { id: { S: 'ttl1' } } }));
      return r.Item === undefined;
    }, { timeoutMs: 8000, intervalMs: 100 });
    for (const IndexName of ['cos', 'euc']) {
      const res = await search({ IndexName, SearchVector: asList(query).L, TopK: 5 });
      assert.ok(!res.SearchResults.some((r) => r.Item.id.S === 'ttl1'));
    }
    const res = await search({ IndexName: 'cos', SearchVector: asList(query).L, TopK: 5 });
    assertSameRanking(res.SearchResults, bruteForce('COSINE', query, 5));
  });
});

describe('write capacity', () => {
  // VectorWriteRequestBytes: the developer guide's "Monitoring vector index capacity" (write
  // operations under INDEXES report a VectorIndexes map, apart from CapacityUnits); what counts
  // is Chosen (docs/vector-indexes.md): the entry replicated, its vector at 4 bytes per
  // dimension and every other attribute by the item-size rule; a removal replicates the key.
  const CAP = 'VecCap';
  const vec = () => asList(randomVector());
  // id 'c1' (2 + 2), title 'hello' (5 + 5), emb (3 + 4 × 16)
  const FULL = 2 + 2 + 5 + 5 + 3 + 4 * DIM;
  const KEYS = 2 + 2 + 3 + 4 * DIM;  // KEYS_ONLY: id and the vector
  const vectorBytes = (cc) => Object.fromEntries(Object.entries(cc.VectorIndexes ?? {})
    .map(([name, v]) => [name, v.VectorWriteRequestBytes]));

  before(async () => {
    await client.send(new CreateTableCommand({
      TableName: CAP, BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      VectorIndexes: [
        { IndexName: 'all', VectorAttribute: { AttributeName: 'emb' }, Dimensions: DIM,
          DistanceFunction: 'COSINE', Projection: { ProjectionType: 'ALL' } },
        { IndexName: 'keys', VectorAttribute: { AttributeName: 'emb' }, Dimensions: DIM,
          DistanceFunction: 'EUCLIDEAN', Projection: { ProjectionType: 'KEYS_ONLY' } },
      ],
    }));
  });

  test('single-item writes report the bytes each vector index receives, under INDEXES only', async () => {
    const put = await client.send(new PutItemCommand({
      TableName: CAP, Item: { id: { S: 'c1' }, title: { S: 'hello' }, emb: vec() },
      ReturnConsumedCapacity: 'INDEXES',
    }));
    assert.equal(put.ConsumedCapacity.CapacityUnits, 1);
    assert.deepEqual(put.ConsumedCapacity.Table, { CapacityUnits: 1 });
    assert.deepEqual(vectorBytes(put.ConsumedCapacity), { all: FULL, keys: KEYS });
    assert.equal(put.ConsumedCapacity.GlobalSecondaryIndexes, undefined);

    const total = await client.send(new PutItemCommand({
      TableName: CAP, Item: { id: { S: 'c1' }, title: { S: 'hello' }, emb: vec() },
      ReturnConsumedCapacity: 'TOTAL',
    }));
    assert.deepEqual(total.ConsumedCapacity, { TableName: CAP, CapacityUnits: 1 });

    // A change of an attribute only the ALL index projects leaves the KEYS_ONLY index alone.
    const upd = await client.send(new UpdateItemCommand({
      TableName: CAP, Key: { id: { S: 'c1' } }, UpdateExpression: 'SET title = :t',
      ExpressionAttributeValues: { ':t': { S: 'hello, world' } }, ReturnConsumedCapacity: 'INDEXES',
    }));
    assert.deepEqual(vectorBytes(upd.ConsumedCapacity), { all: FULL + 7 });

    // An item without the vector is in neither index: no VectorIndexes at all.
    const plain = await client.send(new PutItemCommand({
      TableName: CAP, Item: { id: { S: 'c2' }, title: { S: 'x' } }, ReturnConsumedCapacity: 'INDEXES',
    }));
    assert.equal(plain.ConsumedCapacity.VectorIndexes, undefined);

    const del = await client.send(new DeleteItemCommand({
      TableName: CAP, Key: { id: { S: 'c1' } }, ReturnConsumedCapacity: 'INDEXES',
    }));
    assert.deepEqual(vectorBytes(del.ConsumedCapacity), { all: 4, keys: 4 });
  });

  test('batches, transactions and PartiQL sum them per table', async () => {
    const batch = await client.send(new BatchWriteItemCommand({
      RequestItems: { [CAP]: ['b1', 'b2'].map((id) => ({ PutRequest: { Item: { id: { S: id }, emb: vec() } } })) },
      ReturnConsumedCapacity: 'INDEXES',
    }));
    const one = 2 + 2 + 3 + 4 * DIM;  // id 'bN' and the vector: the same entry in both indexes
    assert.deepEqual(vectorBytes(batch.ConsumedCapacity[0]), { all: 2 * one, keys: 2 * one });

    const tx = await client.send(new TransactWriteItemsCommand({
      TransactItems: [
        { Put: { TableName: CAP, Item: { id: { S: 't1' }, emb: vec() } } },
        { Delete: { TableName: CAP, Key: { id: { S: 'b1' } } } },
      ],
      ReturnConsumedCapacity: 'INDEXES',
    }));
    assert.deepEqual(vectorBytes(tx.ConsumedCapacity[0]), { all: one + 4, keys: one + 4 });

    const v = randomVector();
    const pq = await client.send(new ExecuteStatementCommand({
      Statement: `INSERT INTO "${CAP}" VALUE {'id': 'p1', 'emb': [${v.join(', ')}]}`,
      ReturnConsumedCapacity: 'INDEXES',
    }));
    assert.deepEqual(vectorBytes(pq.ConsumedCapacity), { all: one, keys: one });
  });
});

describe('table rules', () => {
  test('vector indexes need an on-demand table and defined SearchSchema attributes', async () => {
    const base = {
      AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
    };
    const index = {
      IndexName: 'vix', VectorAttribute: { AttributeName: 'emb' }, Dimensions: 4,
      DistanceFunction: 'COSINE', Projection: { ProjectionType: 'ALL' },
    };
    let err = await rejection(client.send(new CreateTableCommand({
      ...base, TableName: 'Prov', ProvisionedThroughput: { ReadCapacityUnits: 1, WriteCapacityUnits: 1 },
      VectorIndexes: [index],
    })));
    assert.equal(err.name, 'ValidationException');
    assert.match(err.message, /on-demand capacity mode/);
    err = await rejection(client.send(new CreateTableCommand({
      ...base, TableName: 'NoDef', BillingMode: 'PAY_PER_REQUEST',
      VectorIndexes: [{ ...index, SearchSchema: [{ AttributeName: 'tenant', SearchSchemaElementType: 'HASH' }] }],
    })));
    assert.equal(err.message, 'One element in SearchSchema is not defined in attribute definitions');
    err = await rejection(client.send(new CreateTableCommand({
      ...base, TableName: 'BadFn', BillingMode: 'PAY_PER_REQUEST',
      VectorIndexes: [{ ...index, DistanceFunction: 'MANHATTAN' }],
    })));
    assert.match(err.message, /distanceFunction' failed to satisfy constraint/);
    err = await rejection(client.send(new CreateTableCommand({
      ...base, TableName: 'BigDim', BillingMode: 'PAY_PER_REQUEST',
      VectorIndexes: [{ ...index, Dimensions: 4097 }],
    })));
    assert.match(err.message, /Dimensions must be between 1 and 4096/);
  });

  test('UpdateTable adds a vector index to a populated table (backfill) and deletes it', async () => {
    await client.send(new UpdateTableCommand({
      TableName: TABLE,
      VectorIndexUpdates: [{
        Create: {
          IndexName: 'late', VectorAttribute: { AttributeName: 'emb' }, Dimensions: DIM,
          DistanceFunction: 'EUCLIDEAN', Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['title'] },
        },
      }],
    }));
    await waitFor('the new vector index to become ACTIVE', async () => {
      const { Table } = await client.send(new DescribeTableCommand({ TableName: TABLE }));
      const v = Table.VectorIndexes.find((x) => x.IndexName === 'late');
      return v.IndexStatus === 'ACTIVE' && v.Backfilling === false;
    }, { timeoutMs: 30000, intervalMs: 100 });
    const { Table } = await client.send(new DescribeTableCommand({ TableName: TABLE }));
    assert.equal(Table.VectorIndexes.find((x) => x.IndexName === 'late').ItemCount, items.size);
    const query = randomVector();
    const res = await search({ IndexName: 'late', SearchVector: asList(query).L, TopK: 20 });
    assertSameRanking(res.SearchResults, bruteForce('EUCLIDEAN', query, 20));
    assert.deepEqual(Object.keys(res.SearchResults[0].Item).sort(), ['emb', 'id', 'title']);

    await client.send(new UpdateTableCommand({
      TableName: TABLE, VectorIndexUpdates: [{ Delete: { IndexName: 'late' } }],
    }));
    const after = await client.send(new DescribeTableCommand({ TableName: TABLE }));
    assert.ok(!after.Table.VectorIndexes.some((x) => x.IndexName === 'late'));
    const err = await rejection(search({ IndexName: 'late', SearchVector: asList(query).L, TopK: 5 }));
    assert.equal(err.message, 'The table does not have the specified index: late');
  });

  test('a restored table keeps its vector indexes, on demand only', async () => {
    const { BackupDetails } = await client.send(new CreateBackupCommand({ TableName: TABLE, BackupName: 'vecbackup' }));
    const err = await rejection(client.send(new RestoreTableFromBackupCommand({
      TargetTableName: 'DocsProv', BackupArn: BackupDetails.BackupArn, BillingModeOverride: 'PROVISIONED',
      ProvisionedThroughputOverride: { ReadCapacityUnits: 1, WriteCapacityUnits: 1 },
    })));
    assert.match(err.message, /on-demand capacity mode/);
    // VectorIndexOverride chooses among the backup's vector indexes (the SDK's doc: "The
    // indexes provided must match existing vector indexes from the backup. You can choose to
    // exclude some or all").
    const missing = await rejection(client.send(new RestoreTableFromBackupCommand({
      TargetTableName: 'DocsOv', BackupArn: BackupDetails.BackupArn,
      VectorIndexOverride: [{ IndexName: 'nope', VectorAttribute: { AttributeName: 'emb' }, Dimensions: DIM, DistanceFunction: 'COSINE' }],
    })));
    assert.equal(missing.message, 'One or more parameter values were invalid: The vector index nope does not exist in the backup');
    const mismatch = await rejection(client.send(new RestoreTableFromBackupCommand({
      TargetTableName: 'DocsOv', BackupArn: BackupDetails.BackupArn,
      VectorIndexOverride: [{ IndexName: 'cos', VectorAttribute: { AttributeName: 'emb' }, Dimensions: DIM + 1, DistanceFunction: 'COSINE' }],
    })));
    assert.match(mismatch.message, /The vector index cos in VectorIndexOverride does not match the backup's/);
    const badEnum = await rejection(client.send(new RestoreTableFromBackupCommand({
      TargetTableName: 'DocsOv', BackupArn: BackupDetails.BackupArn,
      VectorIndexOverride: [{ IndexName: 'cos', VectorAttribute: { AttributeName: 'emb' }, Dimensions: DIM, DistanceFunction: 'MANHATTAN' }],
    })));
    assert.equal(badEnum.message, "1 validation error detected: Value 'MANHATTAN' at 'vectorIndexOverride.1.member.distanceFunction' failed to satisfy constraint: Member must satisfy enum value set: [COSINE, DOT_PRODUCT, EUCLIDEAN]");
    await client.send(new RestoreTableFromBackupCommand({
      TargetTableName: 'DocsOne', BackupArn: BackupDetails.BackupArn,
      VectorIndexOverride: [{ IndexName: 'euc', VectorAttribute: { AttributeName: 'emb' }, Dimensions: DIM, DistanceFunction: 'EUCLIDEAN' }],
    }));
    await client.send(new RestoreTableFromBackupCommand({
      TargetTableName: 'DocsNone', BackupArn: BackupDetails.BackupArn, VectorIndexOverride: [],
    }));
    for (const name of ['DocsOne', 'DocsNone']) {
      await waitFor(`the restore of ${name} to finish`, async () => {
        const { Table } = await client.send(new DescribeTableCommand({ TableName: name }));
        return Table.TableStatus === 'ACTIVE';
      }, { timeoutMs: 30000, intervalMs: 100 });
    }
    const one = (await client.send(new DescribeTableCommand({ TableName: 'DocsOne' }))).Table;
    assert.deepEqual(one.VectorIndexes.map((v) => v.IndexName), ['euc']);
    assert.equal(one.VectorIndexes[0].ItemCount, items.size);
    const q1 = randomVector();
    const kept = await client.send(new SearchVectorsCommand({
      TableName: 'DocsOne', IndexName: 'euc', SearchVector: asList(q1).L, TopK: 10,
    }));
    assertSameRanking(kept.SearchResults, bruteForce('EUCLIDEAN', q1, 10));
    const dropped = await rejection(client.send(new SearchVectorsCommand({
      TableName: 'DocsOne', IndexName: 'cos', SearchVector: asList(q1).L, TopK: 10,
    })));
    assert.equal(dropped.message, 'The table does not have the specified index: cos');
    const none = (await client.send(new DescribeTableCommand({ TableName: 'DocsNone' }))).Table;
    assert.equal((none.VectorIndexes ?? []).length, 0);
    await client.send(new RestoreTableFromBackupCommand({
      TargetTableName: 'DocsCopy', BackupArn: BackupDetails.BackupArn,
    }));
    await waitFor('the restore to finish', async () => {
      const { Table } = await client.send(new DescribeTableCommand({ TableName: 'DocsCopy' }));
      return Table.TableStatus === 'ACTIVE';
    }, { timeoutMs: 30000, intervalMs: 100 });
    const query = randomVector();
    const res = await client.send(new SearchVectorsCommand({
      TableName: 'DocsCopy', IndexName: 'cos', SearchVector: asList(query).L, TopK: 10,
    }));
    assertSameRanking(res.SearchResults, bruteForce('COSINE', query, 10));
  });
});
