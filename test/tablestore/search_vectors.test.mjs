// Vector fields and KnnVectorQuery (issue 32; docs/tablestore.md, "Search: vector fields and
// KNN") through the official Node SDK: a few thousand random vectors in JSON-array strings, KNN
// for each metric checked against a brute-force nearest-neighbour computation here (recall@10
// >= 0.95, and each hit's score as the metric's formula gives it), KNN with a filter, top_k
// widened to the limit, rows deleted or past the TTL absent at once, overwritten rows ranked by
// their new vector, the refusals, and kill -9 during the build of an index with a Vector field.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { Long, Server, TableStore, condition, expectOtsError, sleep, uniqueName } from './helpers.mjs';
import { check, killServer, rng } from './crash_helpers.mjs';
import { Q, RT, idOf, search, waitCount } from './search_helpers.mjs';

const FT = TableStore.FieldType;
const QT = TableStore.QueryType;
const DESC = TableStore.SortOrder.SORT_ORDER_DESC;
const BAD = [400, 'OTSParameterInvalid'];
const DIM = 16;
const ROWS = 3000;
const METRICS = { l2: 0, cos: 1, dot: 2 };  // VectorMetricType

const knn = (fieldName, vector, topK, filter) => ({
  queryType: QT.KNN_VECTOR_QUERY,
  query: { fieldName, topK, float32QueryVector: vector, ...(filter ? { filter } : {}) },
});
const byScore = [{ scoreSort: { order: DESC } }];

// A random vector of float32 values with 4 decimals (exactly what the server parses).
function randomVector(random, unit = false) {
  let v = Array.from({ length: DIM }, () => Math.round((random() * 2 - 1) * 10000) / 10000);
  if (unit) {
    const n = Math.sqrt(v.reduce((s, x) => s + x * x, 0)) || 1;
    v = v.map((x) => Math.round((x / n) * 10000) / 10000);
  }
  return v;
}
const f32 = (v) => v.map((x) => Math.fround(x));

// The service's score of each metric (docs/tablestore.md): larger is more similar.
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

// The ids of the k rows of `rows` (id -> vector) nearest to `q` under `metric`, best first.
function bruteForce(rows, metric, q, k, keep = () => true) {
  return [...rows.entries()].filter(([id]) => keep(id))
    .map(([id, v]) => [id, score(metric, q, v)])
    .sort((x, y) => y[1] - x[1] || x[0] - y[0])
    .slice(0, k);
}

describe('tablestore search: vector fields and KNN', () => {
  let server;
  let client;
  const random = rng(20261127);

  before(async () => {
    server = await Server.start({ args: ['--tablestore-min-ttl', '1'] });
    client = server.client();
  });

  after(async () => {
    await server?.stop({ removeDir: true });
  });

  const table = async (tableOptions = { timeToLive: -1, maxVersions: 1 }) => {
    const name = uniqueName('svec');
    await client.createTable({
      tableMeta: { tableName: name, primaryKey: [{ name: 'id', type: 'INTEGER' }] },
      reservedThroughput: { capacityUnit: { read: 0, write: 0 } },
      tableOptions,
    });
    return name;
  };
  const vectorField = (fieldName, metric, dimension = DIM) => ({
    fieldName, fieldType: FT.VECTOR, index: true,
    vectorOptions: { dataType: 2, dimension, metricType: METRICS[metric] },
  });
  const index = (tableName, indexName, fields, extra = {}) => client.createSearchIndex({
    tableName, indexName, schema: { fieldSchemas: fields }, ...extra,
  });
  // Writes rows id -> { l2, cos, dot, cat } in batches of 200.
  const writeRows = async (t, rows) => {
    const list = [...rows.entries()];
    for (let i = 0; i < list.length; i += 200) {
      const batch = list.slice(i, i + 200).map(([id, r]) => ({
        type: 'PUT', condition: condition('IGNORE'), primaryKey: [{ id: Long.fromNumber(id) }],
        attributeColumns: [
          { l2: JSON.stringify(r.l2) }, { cos: JSON.stringify(r.cos) }, { dot: JSON.stringify(r.dot) },
          { cat: r.cat },
        ],
      }));
      const res = await client.batchWriteRow({ tables: [{ tableName: t, rows: batch }] });
      assert.ok(res.tables.every((x) => x.isOk), JSON.stringify(res.tables.find((x) => !x.isOk)));
    }
  };

  describe('recall, scores and filters over random vectors', () => {
    let t;
    const rows = new Map();

    before(async () => {
      t = await table();
      await index(t, 'ix', [vectorField('l2', 'l2'), vectorField('cos', 'cos'), vectorField('dot', 'dot'),
        { fieldName: 'cat', fieldType: FT.KEYWORD }]);
      for (let id = 0; id < ROWS; id++) {
        rows.set(id, { l2: randomVector(random), cos: randomVector(random), dot: randomVector(random, true),
          cat: id % 3 === 0 ? 'a' : 'b' });
      }
      await writeRows(t, rows);
      await waitCount(client, t, 'ix', ROWS, { timeoutMs: 60000 });
    });

    for (const metric of ['l2', 'cos', 'dot']) {
      it(`${metric}: recall@10 >= 0.95 against exact search, scores as the metric's formula`, async () => {
        const vectors = new Map([...rows].map(([id, r]) => [id, r[metric]]));
        let found = 0, wanted = 0;
        for (let n = 0; n < 20; n++) {
          const q = randomVector(random, metric === 'dot');
          const r = await search(client, t, 'ix', knn(metric, q, 10), { limit: 10, sort: byScore });
          const truth = bruteForce(vectors, metric, q, 10);
          const got = r.rows.map(idOf);
          assert.equal(got.length, 10);
          const truthIds = new Set(truth.map(([id]) => id));
          found += got.filter((id) => truthIds.has(id)).length;
          wanted += 10;
          for (let i = 0; i < got.length; i++) {
            const want = score(metric, q, vectors.get(got[i]));
            assert.ok(Math.abs(r.searchHits[i].score - want) < 1e-5,
              `${metric} score of row ${got[i]}: ${r.searchHits[i].score}, expected ${want}`);
            if (i > 0) assert.ok(r.searchHits[i].score <= r.searchHits[i - 1].score, 'sorted by score');
          }
        }
        const recall = found / wanted;
        console.log(`knn ${metric} recall@10=${recall.toFixed(3)} over ${ROWS} vectors, ${DIM} dimensions`);
        assert.ok(recall >= 0.95, `recall ${recall}`);
      });
    }

    it('KNN with a filter: the nearest among the matching rows only', async () => {
      const vectors = new Map([...rows].map(([id, r]) => [id, r.l2]));
      let found = 0;
      for (let n = 0; n < 10; n++) {
        const q = randomVector(random);
        const r = await search(client, t, 'ix', knn('l2', q, 10, Q.term('cat', 'a')), { limit: 10, sort: byScore });
        const got = r.rows.map(idOf);
        assert.equal(got.length, 10);
        assert.ok(got.every((id) => id % 3 === 0), `only cat a: ${got}`);
        const truth = new Set(bruteForce(vectors, 'l2', q, 10, (id) => id % 3 === 0).map(([id]) => id));
        found += got.filter((id) => truth.has(id)).length;
      }
      assert.ok(found / 100 >= 0.95, `filtered recall ${found / 100}`);
      // KNN inside a Bool query with another condition.
      const q = randomVector(random);
      const r = await search(client, t, 'ix', Q.bool({ must: [knn('l2', q, 30), Q.term('cat', 'b')] }), { limit: 30, sort: byScore });
      const nearest = new Set(bruteForce(vectors, 'l2', q, 30).map(([id]) => id));
      const got = r.rows.map(idOf);
      assert.deepEqual(new Set(got), new Set([...nearest].filter((id) => id % 3 !== 0)));
    });

    it('top_k below the limit is widened to it; without a sort, rows come in primary-key order', async () => {
      const q = randomVector(random);
      const r = await search(client, t, 'ix', knn('l2', q, 5), { limit: 20 });
      const got = r.rows.map(idOf);
      assert.equal(got.length, 20);
      assert.deepEqual(got, [...got].sort((a, b) => a - b));
      const vectors = new Map([...rows].map(([id, x]) => [id, x.l2]));
      const truth = new Set(bruteForce(vectors, 'l2', q, 20).map(([id]) => id));
      assert.ok(got.filter((id) => truth.has(id)).length >= 19);
      // top_k larger than the limit: the total counts the top_k rows, pages come by token.
      const all = await search(client, t, 'ix', knn('l2', q, 50), { limit: 20, getTotalCount: true });
      assert.equal(Number(all.totalCounts), 50);
    });

    it('refuses what the service refuses', async () => {
      const q = randomVector(random);
      await expectOtsError(search(client, t, 'ix', knn('l2', q.slice(1), 10)), ...BAD,
        'the dimension of float32_query_vector is 15, but the dimension of field:l2 is 16');
      await expectOtsError(search(client, t, 'ix', knn('l2', q, 1001)), ...BAD, 'top_k must be in [1, 1000]');
      await expectOtsError(search(client, t, 'ix', knn('cat', q, 10)), ...BAD, 'KnnVectorQuery is only supported on VECTOR fields');
      await expectOtsError(search(client, t, 'ix', Q.term('l2', '[1]')), ...BAD, 'TermQuery is not supported on field:l2 type:VECTOR, use KnnVectorQuery');
      const exists = await search(client, t, 'ix', Q.exists('l2'), { limit: 0, getTotalCount: true });
      assert.equal(Number(exists.totalCounts), ROWS);
      await expectOtsError(search(client, t, 'ix', knn('nope', q, 10)), ...BAD);
      await expectOtsError(client.parallelScan({ tableName: t, indexName: 'ix', sessionId: Buffer.alloc(0),
        columnToGet: { returnType: RT.RETURN_NONE },
        scanQuery: { query: knn('l2', q, 10), limit: 10, maxParallel: 1, currentParallelId: 0 } }), ...BAD, 'KnnVectorQuery');
    });
  });

  it('KNN in the query of a function score: its rows, scored by similarity times the field', async () => {
    const t = await table();
    await index(t, 'ix', [vectorField('v', 'l2'), { fieldName: 'n', fieldType: FT.LONG, enableSortAndAgg: true },
      { fieldName: 'g', fieldType: FT.GEO_POINT }]);
    const vectors = new Map();
    const rows = [];
    for (let id = 0; id < 200; id++) {
      vectors.set(id, randomVector(random));
      rows.push({ type: 'PUT', condition: condition('IGNORE'), primaryKey: [{ id: Long.fromNumber(id) }],
        attributeColumns: [{ v: JSON.stringify(vectors.get(id)) }, { n: Long.fromNumber(1 + (id % 7)) }, { g: '10,20' }] });
    }
    const res = await client.batchWriteRow({ tables: [{ tableName: t, rows }] });
    assert.ok(res.tables.every((x) => x.isOk));
    await waitCount(client, t, 'ix', 200, { timeoutMs: 60000 });
    const q = randomVector(random);
    const fs = { queryType: QT.FUNCTION_SCORE_QUERY, query: { query: knn('v', q, 20), fieldValueFactor: { fieldName: 'n' } } };
    const r = await search(client, t, 'ix', fs, { limit: 20, sort: byScore });
    const nearest = bruteForce(vectors, 'l2', q, 20);
    const want = nearest.map(([id, sc]) => [id, sc * (1 + (id % 7))]).sort((x, y) => y[1] - x[1]);
    assert.deepEqual(new Set(r.rows.map(idOf)), new Set(nearest.map(([id]) => id)));
    for (let i = 0; i < r.rows.length; i++) {
      assert.ok(Math.abs(r.searchHits[i].score - want[i][1]) < 1e-4,
        `hit ${i}: score ${r.searchHits[i].score}, expected ${want[i][1]}`);
    }
    // On a field of another type (here a GeoPoint field) it is refused.
    await expectOtsError(search(client, t, 'ix', knn('g', q, 10)), ...BAD, 'KnnVectorQuery is only supported on VECTOR fields');
  });

  it('creates and describes Vector fields; refuses bad vector options', async () => {
    const t = await table();
    await expectOtsError(index(t, 'ix', [{ fieldName: 'v', fieldType: FT.VECTOR }]), ...BAD,
      "Vector field 'v' must have vector_options.");
    await expectOtsError(index(t, 'ix', [vectorField('v', 'l2', 4097)]), ...BAD,
      "The dimension of vector field 'v' must be in [1, 4096], but was 4097.");
    await expectOtsError(index(t, 'ix', [vectorField('v', 'l2', 0)]), ...BAD, 'must be in [1, 4096]');
    await expectOtsError(index(t, 'ix', [{ ...vectorField('v', 'l2'), enableSortAndAgg: true }]), ...BAD,
      "Vector field 'v' can't enable sort and agg.");
    await expectOtsError(index(t, 'ix', [{ ...vectorField('v', 'l2'), isAnArray: true }]), ...BAD,
      "Vector field 'v' can't be an array.");
    await expectOtsError(index(t, 'ix', Array.from({ length: 6 }, (_, i) => vectorField(`v${i}`, 'cos'))), ...BAD,
      'The number of vector fields of a search index cannot exceed 5.');
    await expectOtsError(index(t, 'ix', [{ fieldName: 'k', fieldType: FT.KEYWORD, vectorOptions: { dataType: 2, dimension: 4, metricType: 0 } }]),
      ...BAD, 'Only Vector fields have vector_options.');
    await index(t, 'ix', [vectorField('v', 'cos', 4096), vectorField('w', 'dot', 3), vectorField('x', 'l2', 1)]);
    const d = await client.describeSearchIndex({ tableName: t, indexName: 'ix' });
    const opts = d.schema.fieldSchemas.map((f) => [f.fieldName, f.fieldType, f.vectorOptions?.dataType,
      f.vectorOptions?.dimension, f.vectorOptions?.metricType]);
    assert.deepEqual(opts, [['v', FT.VECTOR, 2, 4096, 1], ['w', FT.VECTOR, 2, 3, 2], ['x', FT.VECTOR, 2, 1, 0]]);
  });

  it('values that are not vectors of the dimension are not indexed; deleted and overwritten rows leave answers', async () => {
    const t = await table();
    await index(t, 'ix', [vectorField('v', 'l2', 3)]);
    const put = (id, v) => client.putRow({ tableName: t, condition: condition('IGNORE'),
      primaryKey: [{ id: Long.fromNumber(id) }], attributeColumns: [{ v }] });
    await put(1, '[0, 0, 0]');
    await put(2, ' [1.5, -2, 3e-1] ');
    await put(3, '[1, 2]');            // wrong dimension
    await put(4, '[1, 2, "x"]');        // not numbers
    await put(5, '[1, 2, 3, 4]');       // wrong dimension
    await put(6, 'not json');
    await put(7, Long.fromNumber(7));   // not a string
    await put(8, '[0.5, 0.5, 0.5]');
    const ids = async (q, k = 10) => (await search(client, t, 'ix', knn('v', q, k), { limit: 10, sort: byScore })).rows.map(idOf);
    await waitCount(client, t, 'ix', 8);
    assert.deepEqual(await ids([0, 0, 0]), [1, 8, 2]);
    // Deleted: gone at once (before the index applies the delete).
    await client.deleteRow({ tableName: t, condition: condition('IGNORE'), primaryKey: [{ id: Long.fromNumber(1) }] });
    assert.deepEqual(await ids([0, 0, 0]), [8, 2]);
    // Overwritten with a far vector: ranked by it once the index has applied it.
    await put(8, '[100, 100, 100]');
    const deadline = Date.now() + 10000;
    let got;
    while (Date.now() < deadline) {
      got = await ids([0, 0, 0]);
      if (got[0] === 2) break;
      await sleep(100);
    }
    assert.deepEqual(got, [2, 8]);
  });

  it('rows past the TTL leave KNN answers at once', async () => {
    const t = await table({ timeToLive: -1, maxVersions: 1, allowUpdate: false });
    await index(t, 'ix', [vectorField('v', 'l2', 2)], { timeToLive: 4 });
    const put = (id, v) => client.putRow({ tableName: t, condition: condition('IGNORE'),
      primaryKey: [{ id: Long.fromNumber(id) }], attributeColumns: [{ v: JSON.stringify(v) }] });
    const written = Date.now();
    for (let id = 0; id < 5; id++) await put(id, [id * 0.01, 0]);  // nearest to [0, 0]
    await waitCount(client, t, 'ix', 5);
    const before = await search(client, t, 'ix', knn('v', [0, 0], 3), { limit: 3, sort: byScore });
    assert.deepEqual(before.rows.map(idOf), [0, 1, 2]);
    await sleep(Math.max(0, written + 4300 - Date.now()));
    for (let id = 10; id < 13; id++) await put(id, [id, 0]);        // far, written later
    // The first five are past the index's TTL (their documents not purged yet): the KNN answer
    // is the three later rows.
    await waitCount(client, t, 'ix', 3);
    const r = await search(client, t, 'ix', knn('v', [0, 0], 3), { limit: 3, sort: byScore });
    assert.deepEqual(r.rows.map(idOf), [10, 11, 12]);
  });

  it('kill -9 during the build of an index with a Vector field: check passes, KNN is exact after the restart', async () => {
    const t = await table();
    const rows = new Map();
    for (let id = 0; id < ROWS; id++) {
      rows.set(id, { l2: randomVector(random), cos: randomVector(random), dot: randomVector(random, true), cat: 'a' });
    }
    await writeRows(t, rows);
    await index(t, 'kix', [vectorField('l2', 'l2'), vectorField('cos', 'cos')]);
    for (let round = 0; round < 2; round++) {
      await sleep(random() * 300);
      await killServer(server);
      console.log(`crash-job vector build round=${round} ${check(server.dataDir)}`);
      await server._spawn();
      client = server.client();
    }
    await waitCount(client, t, 'kix', ROWS, { timeoutMs: 60000 });
    const vectors = new Map([...rows].map(([id, r]) => [id, r.cos]));
    for (let n = 0; n < 5; n++) {
      const q = randomVector(random);
      const r = await search(client, t, 'kix', knn('cos', q, 10), { limit: 10, sort: byScore });
      const truth = bruteForce(vectors, 'cos', q, 10).map(([id]) => id);
      assert.ok(r.rows.map(idOf).filter((id) => truth.includes(id)).length >= 9);
    }
  });
});
