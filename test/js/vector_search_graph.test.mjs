// SearchVectors on a vector index larger than --knn-exact-up-to (issue 32): ranked by the index's
// HNSW graph (ops/vector_graphs.h, built on the first search), through the AWS SDK for
// JavaScript v3. The server is started with --knn-exact-up-to 200 so that a few thousand vectors
// take the graph path; /metrics counts the searches a graph answered, so every check below
// knows which path ran. Recall@10 against a brute force computed here must be at least 0.95,
// every returned score is the exact one, and the graph follows writes made after it was built:
// new items are found, deleted and TTL-expired items leave every answer, an updated vector moves.
// A HASH partition of at most 200 entries is still ranked exactly (the same top K, same order).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import {
  BatchWriteItemCommand, CreateTableCommand, DeleteItemCommand, PutItemCommand,
  SearchVectorsCommand, UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';

import { Server, epochSeconds, waitFor } from './helpers.mjs';

const DIM = 24;
const TABLE = 'Memories';
const EXACT_UP_TO = 200;
const CATEGORIES = ['a', 'b', 'c'];

let server;
let client;
const items = new Map();  // id -> { vec, category, lang }

let seed = 777;
function random() {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
}
const randomVector = () => Array.from({ length: DIM }, () => Math.fround(random() * 2 - 1));
const asList = (vec) => vec.map((x) => ({ N: String(x) }));

function cosine(a, b) {
  let dot = 0; let na = 0; let nb = 0;
  for (let i = 0; i < a.length; i += 1) { dot += a[i] * b[i]; na += a[i] * a[i]; nb += b[i] * b[i]; }
  return 1 - dot / (Math.sqrt(na) * Math.sqrt(nb));
}
function dotProduct(a, b) {
  let dot = 0;
  for (let i = 0; i < a.length; i += 1) dot += a[i] * b[i];
  return dot;
}

// The exact top K: [{ id, score }], best first.
function bruteForce(fn, query, k, keep = () => true) {
  const scored = [];
  for (const [id, it] of items) {
    if (keep(it)) scored.push({ id, score: fn === 'COSINE' ? cosine(query, it.vec) : dotProduct(query, it.vec) });
  }
  scored.sort((x, y) => (fn === 'COSINE' ? x.score - y.score : y.score - x.score));
  return scored.slice(0, k);
}

function itemOf(id, it) {
  return { id: { S: id }, emb: { L: asList(it.vec) }, category: { S: it.category }, lang: { S: it.lang } };
}

async function put(id, it, extra = {}) {
  items.set(id, it);
  await client.send(new PutItemCommand({ TableName: TABLE, Item: { ...itemOf(id, it), ...extra } }));
}

async function search(input) {
  return client.send(new SearchVectorsCommand({ TableName: TABLE, ...input }));
}

async function graphSearches() {
  const text = await (await fetch(`${server.endpoint}/metrics`)).text();
  const m = text.match(/^ttlstore_vector_graph_searches_total (\d+)$/m);
  return m ? Number(m[1]) : 0;
}

// Searches `input` and checks it was ranked by a graph (byGraph) or exactly.
async function searchBy(byGraph, input) {
  const before = await graphSearches();
  const res = await search(input);
  assert.equal(await graphSearches() - before, byGraph ? 1 : 0, byGraph ? 'ranked by the graph' : 'ranked exactly');
  return res;
}

// Every returned score is the item's exact score, and the results are in score order.
function assertExactScores(fn, query, results) {
  for (const r of results) {
    const it = items.get(r.Item.id.S);
    assert.ok(it, `${r.Item.id.S} is a live item`);
    const want = fn === 'COSINE' ? cosine(query, it.vec) : dotProduct(query, it.vec);
    assert.ok(Math.abs(r.Score - want) <= 1e-5 * Math.max(1, Math.abs(want)), `score ${r.Score} vs ${want}`);
  }
  const scores = results.map((r) => r.Score);
  assert.deepEqual(scores, [...scores].sort((x, y) => (fn === 'COSINE' ? x - y : y - x)));
}

const recall = (results, expected) => {
  const got = new Set(results.map((r) => r.Item.id.S));
  return expected.filter((e) => got.has(e.id)).length / expected.length;
};

before(async () => {
  server = await Server.start({ args: ['--knn-exact-up-to', String(EXACT_UP_TO), '--ttl-sweep-interval-ms', '50'] });
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
        SearchSchema: [{ AttributeName: 'lang', SearchSchemaElementType: 'INLINE_FILTER' }],
      },
      {
        IndexName: 'dot', VectorAttribute: { AttributeName: 'emb' }, Dimensions: DIM,
        DistanceFunction: 'DOT_PRODUCT', Projection: { ProjectionType: 'KEYS_ONLY' },
        SearchSchema: [
          { AttributeName: 'category', SearchSchemaElementType: 'HASH' },
          { AttributeName: 'lang', SearchSchemaElementType: 'INLINE_FILTER' },
        ],
      },
    ],
  }));
  const requests = [];
  for (let i = 0; i < 3000; i += 1) {
    const it = { vec: randomVector(), category: CATEGORIES[i % 3], lang: i % 4 === 0 ? 'fr' : 'en' };
    items.set(`m${i}`, it);
    requests.push({ PutRequest: { Item: itemOf(`m${i}`, it) } });
  }
  // A small partition: 40 items in category 'z'.
  for (let i = 0; i < 40; i += 1) {
    const it = { vec: randomVector(), category: 'z', lang: 'en' };
    items.set(`z${i}`, it);
    requests.push({ PutRequest: { Item: itemOf(`z${i}`, it) } });
  }
  for (let i = 0; i < requests.length; i += 25) {
    const res = await client.send(new BatchWriteItemCommand({ RequestItems: { [TABLE]: requests.slice(i, i + 25) } }));
    assert.deepEqual(res.UnprocessedItems ?? {}, {});
  }
  // The first search of each index asks for its graph; it is ranked exactly meanwhile.
  for (const IndexName of ['cos', 'dot']) {
    const input = { IndexName, SearchVector: asList(randomVector()), TopK: 5 };
    if (IndexName === 'dot') {
      input.SearchConditionExpression = 'category = :c';
      input.ExpressionAttributeValues = { ':c': { S: 'a' } };
    }
    await search(input);
  }
  await waitFor('both graphs to be built', async () => {
    const text = await (await fetch(`${server.endpoint}/metrics`)).text();
    return /^ttlstore_vector_graphs 2$/m.test(text);
  }, { timeoutMs: 60000, intervalMs: 200 });
});

after(async () => {
  await server?.stop();
});

describe('SearchVectors by graph', () => {
  test('COSINE over the whole index: recall@10 >= 0.95, exact scores', async () => {
    let total = 0;
    const queries = 20;
    for (let q = 0; q < queries; q += 1) {
      const query = randomVector();
      const res = await searchBy(true, { IndexName: 'cos', SearchVector: asList(query), TopK: 10 });
      assert.equal(res.SearchResults.length, 10);
      assertExactScores('COSINE', query, res.SearchResults);
      total += recall(res.SearchResults, bruteForce('COSINE', query, 10));
    }
    assert.ok(total / queries >= 0.95, `recall ${total / queries}`);
  });

  test('an INLINE_FILTER keeps only matching items, recall >= 0.95', async () => {
    let total = 0;
    const queries = 10;
    for (let q = 0; q < queries; q += 1) {
      const query = randomVector();
      const res = await searchBy(true, {
        IndexName: 'cos', SearchVector: asList(query), TopK: 10,
        SearchConditionExpression: 'lang = :l', ExpressionAttributeValues: { ':l': { S: 'fr' } },
      });
      assert.equal(res.SearchResults.length, 10);
      assert.ok(res.SearchResults.every((r) => r.Item.lang.S === 'fr'));
      assertExactScores('COSINE', query, res.SearchResults);
      total += recall(res.SearchResults, bruteForce('COSINE', query, 10, (it) => it.lang === 'fr'));
    }
    assert.ok(total / queries >= 0.95, `recall ${total / queries}`);
  });

  test('a HASH partition larger than the switch point by the graph, a small one exactly', async () => {
    let total = 0;
    const queries = 10;
    for (let q = 0; q < queries; q += 1) {
      const query = randomVector();
      const res = await searchBy(true, {
        IndexName: 'dot', SearchVector: asList(query), TopK: 8,
        SearchConditionExpression: 'category = :c AND lang = :l',
        ExpressionAttributeValues: { ':c': { S: 'b' }, ':l': { S: 'en' } },
      });
      assert.equal(res.SearchResults.length, 8);
      assertExactScores('DOT_PRODUCT', query, res.SearchResults);
      assert.ok(res.SearchResults.every((r) => items.get(r.Item.id.S).category === 'b'
        && items.get(r.Item.id.S).lang === 'en'));
      total += recall(res.SearchResults, bruteForce('DOT_PRODUCT', query, 8, (it) => it.category === 'b' && it.lang === 'en'));
    }
    assert.ok(total / queries >= 0.95, `recall ${total / queries}`);
    const query = randomVector();
    const small = await searchBy(false, {
      IndexName: 'dot', SearchVector: asList(query), TopK: 10,
      SearchConditionExpression: 'category = :c', ExpressionAttributeValues: { ':c': { S: 'z' } },
    });
    assert.deepEqual(small.SearchResults.map((r) => r.Item.id.S),
      bruteForce('DOT_PRODUCT', query, 10, (it) => it.category === 'z').map((e) => e.id));
  });

  test('the graph follows writes: new, updated, deleted and expired items', async () => {
    const query = randomVector();
    // New items right next to the query are found.
    for (let i = 0; i < 3; i += 1) {
      await put(`new${i}`, { vec: query.map((x) => Math.fround(x * (1 + 0.001 * (i + 1)))), category: 'a', lang: 'en' });
    }
    const search10 = () => searchBy(true, { IndexName: 'cos', SearchVector: asList(query), TopK: 10 });
    await waitFor('new items in the graph', async () => {
      const ids = (await search10()).SearchResults.slice(0, 3).map((r) => r.Item.id.S).sort();
      return ids.join() === 'new0,new1,new2';
    }, { timeoutMs: 10000, intervalMs: 100 });
    // Deleted items leave at once (the entries are the truth).
    await client.send(new DeleteItemCommand({ TableName: TABLE, Key: { id: { S: 'new0' } } }));
    items.delete('new0');
    let res = await search10();
    assert.ok(!res.SearchResults.some((r) => r.Item.id.S === 'new0'));
    assertExactScores('COSINE', query, res.SearchResults);
    // An updated vector moves away.
    await put('new1', { vec: query.map((x) => -x), category: 'a', lang: 'en' });
    res = await search10();
    assert.ok(!res.SearchResults.some((r) => r.Item.id.S === 'new1'));
    assertExactScores('COSINE', query, res.SearchResults);
    // An item expired by TTL leaves with its item.
    await client.send(new UpdateTimeToLiveCommand({
      TableName: TABLE, TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
    }));
    await put('new2', items.get('new2'), { expiresAt: { N: String(epochSeconds(-5)) } });
    await waitFor('the expired item to leave the answers', async () => {
      const r = await search10();
      return !r.SearchResults.some((x) => x.Item.id.S === 'new2');
    }, { timeoutMs: 8000, intervalMs: 100 });
    items.delete('new2');
    res = await search10();
    assertExactScores('COSINE', query, res.SearchResults);
    assert.ok(recall(res.SearchResults, bruteForce('COSINE', query, 10)) >= 0.9);
  });
});
