// KNN through the HNSW graphs (issue 32; docs/vector-engine.md, "How KNN is served"): a server
// whose switch to exact ranking is low (--knn-exact-up-to 100), so that a few thousand 32-d
// random vectors are answered through the graph, which the metric
// ttlstore_knn_graph_queries_total proves for every query here. Recall@10 >= 0.95 against a
// brute force computed here, with and without a filter, after deletes and overwrites, with
// rows past the index's TTL absent at once, and after kill -9 during feeding (restart, `ttlstore
// check`, the graph rebuilt or reloaded from the documents, answers still right).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { Long, Server, TableStore, condition, sleep, uniqueName } from './helpers.mjs';
import { check, killServer, rng } from './crash_helpers.mjs';
import { Q, idOf, search, waitCount } from './search_helpers.mjs';

const FT = TableStore.FieldType;
const QT = TableStore.QueryType;
const DESC = TableStore.SortOrder.SORT_ORDER_DESC;
const DIM = 32;
const ROWS = 4000;
const METRICS = { l2: 0, cos: 1, dot: 2 };

const knn = (fieldName, vector, topK, filter) => ({
  queryType: QT.KNN_VECTOR_QUERY,
  query: { fieldName, topK, float32QueryVector: vector, ...(filter ? { filter } : {}) },
});
const byScore = [{ scoreSort: { order: DESC } }];

function randomVector(random) {
  return Array.from({ length: DIM }, () => Math.round((random() * 2 - 1) * 10000) / 10000);
}
const f32 = (v) => v.map((x) => Math.fround(x));

function score(metric, q, v) {
  const a = f32(q);
  const b = f32(v);
  let dot = 0, nq = 0, nv = 0, l2 = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i]; nq += a[i] * a[i]; nv += b[i] * b[i]; l2 += (a[i] - b[i]) ** 2;
  }
  if (metric === 'l2') return 1 / (1 + l2);
  if (metric === 'cos') return nq === 0 || nv === 0 ? 0.5 : (1 + dot / Math.sqrt(nq * nv)) / 2;
  return Math.max((1 + dot) / 2, 0);
}

function bruteForce(vectors, metric, q, k, keep = () => true) {
  return [...vectors.entries()].filter(([id]) => keep(id))
    .map(([id, v]) => [id, score(metric, q, v)])
    .sort((x, y) => y[1] - x[1] || x[0] - y[0])
    .slice(0, k)
    .map(([id]) => id);
}

describe('tablestore search: KNN through the HNSW graphs', () => {
  let server;
  let client;
  const random = rng(20261128);

  before(async () => {
    server = await Server.start({ args: ['--tablestore-min-ttl', '1', ...(process.env.KNN_EXACT_UP_TO === 'none' ? [] : ['--knn-exact-up-to', process.env.KNN_EXACT_UP_TO ?? '100'])] });
    client = server.client();
  });

  after(async () => {
    if (process.env.TTLSTORE_TEST_SHOW_LOG) console.log(server?.log().split('\n').filter((l) => /level=(error|warn)/.test(l)).join('\n'));
    await server?.stop({ removeDir: true });
  });

  const table = async () => {
    const name = uniqueName('sgraph');
    await client.createTable({
      tableMeta: { tableName: name, primaryKey: [{ name: 'id', type: 'INTEGER' }] },
      reservedThroughput: { capacityUnit: { read: 0, write: 0 } },
      tableOptions: { timeToLive: -1, maxVersions: 1, allowUpdate: false },
    });
    return name;
  };
  const vectorField = (fieldName, metric) => ({
    fieldName, fieldType: FT.VECTOR, index: true,
    vectorOptions: { dataType: 2, dimension: DIM, metricType: METRICS[metric] },
  });
  const writeRows = async (t, rows) => {
    const list = [...rows.entries()];
    for (let i = 0; i < list.length; i += 200) {
      const batch = list.slice(i, i + 200).map(([id, r]) => ({
        type: 'PUT', condition: condition('IGNORE'), primaryKey: [{ id: Long.fromNumber(id) }],
        attributeColumns: [{ v: JSON.stringify(r.v) }, { cat: r.cat }],
      }));
      const res = await client.batchWriteRow({ tables: [{ tableName: t, rows: batch }] });
      assert.ok(res.tables.every((x) => x.isOk), JSON.stringify(res.tables.find((x) => !x.isOk)));
    }
  };
  // Waits until at least `n` vector graphs are loaded and in step (a restart rebuilds them).
  const waitGraphs = async (n, timeoutMs = 120000) => {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (await server.metric('ttlstore_vector_graphs_ready') >= n) return;
      await sleep(100);
    }
    assert.fail(`fewer than ${n} vector graphs ready after ${timeoutMs} ms`);
  };
  // Runs `n` random KNN queries on field v ('l2') against `vectors` (id -> vector), the ids
  // `keep` accepts; asserts every answer holds only accepted ids, every score is the metric's,
  // every query went through the graph, and returns the recall@10.
  const recall = async (t, ix, vectors, { n = 20, filter, keep = () => true, metric = 'l2' } = {}) => {
    const before = await server.metric('ttlstore_knn_graph_queries_total');
    let found = 0;
    for (let i = 0; i < n; i++) {
      const q = randomVector(random);
      const r = await search(client, t, ix, knn('v', q, 10, filter), { limit: 10, sort: byScore });
      const got = r.rows.map(idOf);
      assert.equal(got.length, 10);
      for (let j = 0; j < got.length; j++) {
        assert.ok(vectors.has(got[j]) && keep(got[j]), `row ${got[j]} must not be an answer`);
        const want = score(metric, q, vectors.get(got[j]));
        assert.ok(Math.abs(r.searchHits[j].score - want) < 1e-5, `score of ${got[j]}`);
      }
      const truth = new Set(bruteForce(vectors, metric, q, 10, keep));
      found += got.filter((id) => truth.has(id)).length;
    }
    const graphQueries = await server.metric('ttlstore_knn_graph_queries_total') - before;
    assert.equal(graphQueries, n, 'every query went through the graph');
    return found / (10 * n);
  };

  it('recall@10 >= 0.95 with and without a filter, after deletes and overwrites', async () => {
    const t = await table();
    await client.createSearchIndex({ tableName: t, indexName: 'ix',
      schema: { fieldSchemas: [vectorField('v', 'l2'), { fieldName: 'cat', fieldType: FT.KEYWORD }] } });
    const rows = new Map();
    for (let id = 0; id < ROWS; id++) rows.set(id, { v: randomVector(random), cat: id % 4 === 0 ? 'a' : 'b' });
    await writeRows(t, rows);
    await waitCount(client, t, 'ix', ROWS, { timeoutMs: 120000 });
    await waitGraphs(1);
    const vectors = new Map([...rows].map(([id, r]) => [id, r.v]));
    const all = await recall(t, 'ix', vectors);
    console.log(`graph knn recall@10=${all.toFixed(3)} over ${ROWS} vectors of ${DIM} dimensions`);
    assert.ok(all >= 0.95, `recall ${all}`);
    const filtered = await recall(t, 'ix', vectors, { filter: Q.term('cat', 'a'), keep: (id) => id % 4 === 0 });
    console.log(`graph knn filtered (1 in 4) recall@10=${filtered.toFixed(3)}`);
    assert.ok(filtered >= 0.95, `filtered recall ${filtered}`);
    // Deletes: the nearest rows of a query, then a random fifth of the rest.
    const q = randomVector(random);
    const doomed = new Set(bruteForce(vectors, 'l2', q, 30));
    for (const id of vectors.keys()) if (random() < 0.2) doomed.add(id);
    const ids = [...doomed];
    for (let i = 0; i < ids.length; i += 200) {
      await client.batchWriteRow({ tables: [{ tableName: t, rows: ids.slice(i, i + 200).map((id) => ({
        type: 'DELETE', condition: condition('IGNORE'), primaryKey: [{ id: Long.fromNumber(id) }] })) }] });
    }
    for (const id of doomed) vectors.delete(id);
    // Overwrites: 200 rows get new vectors.
    const moved = new Map();
    for (const id of [...vectors.keys()].slice(0, 200)) moved.set(id, { v: randomVector(random), cat: id % 4 === 0 ? 'a' : 'b' });
    await writeRows(t, moved);
    for (const [id, r] of moved) vectors.set(id, r.v);
    await waitCount(client, t, 'ix', vectors.size, { timeoutMs: 60000 });
    // The count does not show the overwrites applied: a row written after them (no vector, so
    // never a KNN answer) is searchable only once every earlier queue entry was applied.
    await client.putRow({ tableName: t, condition: condition('IGNORE'), primaryKey: [{ id: Long.fromNumber(999999) }],
      attributeColumns: [{ cat: 'sentinel' }] });
    await waitCount(client, t, 'ix', 1, { query: Q.term('cat', 'sentinel'), timeoutMs: 60000 });
    // The deleted nearest rows leave the answer even right away; after the index caught up the
    // recall holds.
    const r = await search(client, t, 'ix', knn('v', q, 10), { limit: 10, sort: byScore });
    assert.ok(r.rows.map(idOf).every((id) => !doomed.has(id)));
    const later = await recall(t, 'ix', vectors);
    console.log(`graph knn after ${doomed.size} deletes and 200 overwrites recall@10=${later.toFixed(3)}`);
    assert.ok(later >= 0.95, `recall after deletes ${later}`);
    const laterFiltered = await recall(t, 'ix', vectors, { filter: Q.term('cat', 'a'), keep: (id) => id % 4 === 0 });
    assert.ok(laterFiltered >= 0.95, `filtered recall after deletes ${laterFiltered}`);
  });

  it('rows past the index TTL leave graph answers at once', async () => {
    const t = await table();
    // 30 s: the later rows must outlive the queries, also on a loaded machine.
    await client.createSearchIndex({ tableName: t, indexName: 'ix', timeToLive: 30,
      schema: { fieldSchemas: [vectorField('v', 'l2'), { fieldName: 'cat', fieldType: FT.KEYWORD }] } });
    // Old rows, drawn like the later ones (expiry is not tied to where a vector lies; a filter
    // that is, e.g. every expired vector nearer the queries than every live one, lowers the
    // graph's recall: docs/vector-engine.md). They expire 30 s after they are written.
    const old = new Map();
    for (let id = 0; id < 2000; id++) old.set(id, { v: randomVector(random), cat: 'a' });
    await writeRows(t, old);
    const written = Date.now();  // every old row was written by now
    await waitCount(client, t, 'ix', 2000, { timeoutMs: 60000 });
    const fresh = new Map();
    for (let id = 2000; id < 4000; id++) fresh.set(id, { v: randomVector(random), cat: 'a' });
    await sleep(Math.max(0, written + 30500 - Date.now()));
    const freshAt = Date.now();
    await writeRows(t, fresh);
    await waitCount(client, t, 'ix', 2000, { timeoutMs: 60000 });
    const vectors = new Map([...fresh].map(([id, r]) => [id, r.v]));
    // No term filter here: a term query over a posting list the purge has just thinned can
    // fail with Xapian's "Unexpected end of posting list" (found by this test; the same with
    // exact ranking and with main's binary: reported, not fixed here).
    const rec = await recall(t, 'ix', vectors, { n: 20 });
    assert.ok(Date.now() - freshAt < 29000, 'the later rows were all alive during the queries');
    console.log(`graph knn with half the rows past the TTL recall@10=${rec.toFixed(3)}`);
    assert.ok(rec >= 0.95, `recall over the rows alive ${rec}`);
  });

  it('kill -9 while rows are fed: check passes, the graph is rebuilt, answers still right', async () => {
    const t = await table();
    await client.createSearchIndex({ tableName: t, indexName: 'ix',
      schema: { fieldSchemas: [vectorField('v', 'l2'), { fieldName: 'cat', fieldType: FT.KEYWORD }] } });
    const rows = new Map();
    for (let id = 0; id < ROWS; id++) rows.set(id, { v: randomVector(random), cat: 'a' });
    await writeRows(t, new Map([...rows].slice(0, 2000)));
    await waitGraphs(3);  // this index's graph, and the two earlier tests'
    for (let round = 0; round < 2; round++) {
      // Feed the rest (and overwrite some) while the server is killed at a random moment.
      const feeding = writeRows(t, new Map([...rows].slice(2000 + round * 1000, 3000 + round * 1000))).catch(() => {});
      await sleep(200 + random() * 800);
      await killServer(server);
      await feeding;
      console.log(`crash-job vector graph feed round=${round} ${check(server.dataDir)}`);
      await server._spawn();
      client = server.client();
    }
    // Whatever the kills interrupted is written again (IGNORE puts: idempotent).
    await writeRows(t, rows);
    await waitCount(client, t, 'ix', ROWS, { timeoutMs: 120000 });
    await waitGraphs(3);
    const vectors = new Map([...rows].map(([id, r]) => [id, r.v]));
    const rec = await recall(t, 'ix', vectors);
    console.log(`graph knn after kill -9 recall@10=${rec.toFixed(3)}`);
    assert.ok(rec >= 0.95, `recall after restart ${rec}`);
  });
});
