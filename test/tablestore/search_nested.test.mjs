// Nested fields in a search index (issue 32) through the official Node SDK: CreateSearchIndex
// with a Nested field and its sub-fields, JSON-array values, NestedQuery (conditions hold within
// one sub-document, never across two; score_mode), FieldSort on a sub-field with nested_filter
// and mode, and InnerHits (offset, limit, sort) as the SDK decodes them, each checked against a
// brute-force computation over the same rows in this test.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { Long, Server, TableStore, condition, expectOtsError, uniqueName } from './helpers.mjs';
import { Q, idOf, search, searchIds, sorted, waitCount } from './search_helpers.mjs';

const FT = TableStore.FieldType;
const QT = TableStore.QueryType;
const SM = TableStore.ScoreMode;
const ASC = TableStore.SortOrder.SORT_ORDER_ASC;
const DESC = TableStore.SortOrder.SORT_ORDER_DESC;
const BAD = [400, 'OTSParameterInvalid'];

function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const N = 120;
const WORDS = ['red', 'green', 'blue', 'apple', 'stone'];

describe('search: Nested fields, NestedQuery, nested sorts and inner hits', () => {
  let server;
  let client;
  const t = uniqueName('nested');
  const ix = 'ix';
  const docs = new Map();  // id -> sub-documents (objects with nk, nl, nt; array positions kept)

  before(async () => {
    server = await Server.start();
    client = server.client();
    await client.createTable({
      tableMeta: { tableName: t, primaryKey: [{ name: 'id', type: 'INTEGER' }] },
      reservedThroughput: { capacityUnit: { read: 0, write: 0 } },
      tableOptions: { timeToLive: -1, maxVersions: 1 },
    });
    await client.createSearchIndex({ tableName: t, indexName: ix, schema: { fieldSchemas: [
      { fieldName: 'k', fieldType: FT.KEYWORD, index: true, enableSortAndAgg: true },
      { fieldName: 'n', fieldType: FT.NESTED, fieldSchemas: [
        { fieldName: 'nk', fieldType: FT.KEYWORD, index: true, enableSortAndAgg: true },
        { fieldName: 'nl', fieldType: FT.LONG, index: true, enableSortAndAgg: true },
        { fieldName: 'nt', fieldType: FT.TEXT, index: true },
        { fieldName: 'ng', fieldType: FT.GEO_POINT, index: true, enableSortAndAgg: true },
      ] },
    ] } });
    const rand = rng(7);
    const rows = [];
    for (let i = 0; i < N; i++) {
      const cols = [{ k: `k${i % 2}` }];
      if (i % 15 === 7) {
        cols.push({ n: i % 2 ? '[{"nk": "a",' : 'not json' });
      } else if (i % 15 !== 0) {
        const count = 1 + Math.floor(rand() * 4);
        const arr = [];
        for (let j = 0; j < count; j++) {
          const d = { nk: String.fromCharCode(97 + Math.floor(rand() * 3)), nl: Math.floor(rand() * 10) };
          if (rand() < 0.8) d.nt = `${WORDS[Math.floor(rand() * 5)]} ${WORDS[Math.floor(rand() * 5)]}`;
          d.ng = `${rand().toFixed(6)},${rand().toFixed(6)}`;
          arr.push(d);
        }
        docs.set(i, arr);
        cols.push({ n: JSON.stringify(arr) });
      }
      rows.push({ type: 'PUT', condition: condition('IGNORE'), primaryKey: [{ id: Long.fromNumber(i) }], attributeColumns: cols });
    }
    const r = await client.batchWriteRow({ tables: [{ tableName: t, rows }] });
    assert.ok(r.tables.every((x) => x.isOk));
    await waitCount(client, t, ix, N);
  });

  after(async () => {
    await server?.stop({ removeDir: true });
  });

  const nested = (path, query, extra = {}) => ({ queryType: QT.NESTED_QUERY, query: { path, query, ...extra } });
  const subMatch = {
    a5: (d) => d.nk === 'a' && d.nl >= 5,
    b: (d) => d.nk === 'b',
    red: (d) => (d.nt ?? '').split(' ').includes('red'),
  };
  const a5 = Q.bool({ must: [Q.term('n.nk', 'a'), Q.range('n.nl', Long.fromNumber(5), undefined, true, false)] });
  const rowsWhere = (pred) => sorted([...docs].filter(([, ds]) => ds.some(pred)).map(([id]) => id));

  it('DescribeSearchIndex shows the Nested field and its sub-fields', async () => {
    const d = await client.describeSearchIndex({ tableName: t, indexName: ix });
    const n = d.schema.fieldSchemas[1];
    assert.equal(n.fieldType, FT.NESTED);
    assert.deepEqual(n.fieldSchemas.map((f) => f.fieldName), ['nk', 'nl', 'nt', 'ng']);
    assert.equal(n.fieldSchemas[1].fieldType, FT.LONG);
  });

  it('NestedQuery: the conditions hold within one sub-document', async () => {
    assert.deepEqual(sorted(await searchIds(client, t, ix, nested('n', a5))), rowsWhere(subMatch.a5));
    // Across sub-documents (one with nk a, another with nl >= 5) does not count: the brute force
    // of "some a and some >= 5" differs from the answer.
    const across = sorted([...docs].filter(([, ds]) => ds.some((d) => d.nk === 'a') && ds.some((d) => d.nl >= 5)).map(([id]) => id));
    assert.ok(across.length > rowsWhere(subMatch.a5).length, 'the data tells the two apart');
    assert.deepEqual(sorted(await searchIds(client, t, ix, nested('n', Q.match('n.nt', 'red')))), rowsWhere(subMatch.red));
    assert.deepEqual(sorted(await searchIds(client, t, ix, nested('n', Q.bool({ mustNot: [Q.term('n.nk', 'b')] })))),
      rowsWhere((d) => d.nk !== 'b'));
    // Combined with a top-level query; and Exists on the Nested field.
    const q = Q.bool({ must: [Q.term('k', 'k1'), nested('n', Q.term('n.nk', 'b'))] });
    assert.deepEqual(sorted(await searchIds(client, t, ix, q)),
      rowsWhere(subMatch.b).filter((id) => id % 2 === 1));
    assert.deepEqual(sorted(await searchIds(client, t, ix, Q.exists('n'))), sorted([...docs.keys()]));
  });

  it('score_mode combines the scores of the matching sub-documents', async () => {
    const count = (id) => docs.get(id).filter(subMatch.b).length;
    const scores = async (mode) => {
      const r = await search(client, t, ix, nested('n', Q.term('n.nk', 'b'), { scoreMode: mode }), { limit: 100 });
      return new Map(r.rows.map((row, i) => [idOf(row), r.searchHits[i].score ?? 0]));
    };
    const total = await scores(SM.SCORE_MODE_TOTAL);
    const max = await scores(SM.SCORE_MODE_MAX);
    const avg = await scores(SM.SCORE_MODE_AVG);
    assert.deepEqual(sorted([...total.keys()]), rowsWhere(subMatch.b));
    for (const [id, s] of total) {
      assert.ok(Math.abs(s - count(id) * max.get(id)) < 1e-6, `total ${s} = ${count(id)} x max ${max.get(id)}`);
      assert.ok(Math.abs(avg.get(id) - max.get(id)) < 1e-6, 'equal leaf scores: avg = max');
    }
    // Sorted by score (total): rows with more matching sub-documents first.
    const r = await search(client, t, ix, nested('n', Q.term('n.nk', 'b'), { scoreMode: SM.SCORE_MODE_TOTAL }),
      { limit: 100, sort: [{ scoreSort: { order: DESC } }] });
    const counts = r.rows.map((row) => count(idOf(row)));
    for (let i = 1; i < counts.length; i++) assert.ok(counts[i - 1] >= counts[i]);
  });

  it('FieldSort on a sub-field: mode and nested_filter', async () => {
    const pick = { min: (xs) => Math.min(...xs), max: (xs) => Math.max(...xs) };
    for (const [mode, name] of [[TableStore.SortMode.SORT_MODE_MIN, 'min'], [TableStore.SortMode.SORT_MODE_MAX, 'max']]) {
      for (const order of [ASC, DESC]) {
        for (const filtered of [false, true]) {
          const fieldSort = { fieldName: 'n.nl', order, mode };
          if (filtered) fieldSort.nestedFilter = { path: 'n', filter: Q.term('n.nk', 'a') };
          const ids = await searchIds(client, t, ix, Q.all(), { limit: 30, sort: [{ fieldSort }] });
          assert.equal(ids.length, N);
          const keyOf = (id) => {
            const vs = (docs.get(id) ?? []).filter((d) => !filtered || d.nk === 'a').map((d) => d.nl);
            return vs.length ? pick[name](vs) : null;
          };
          const withKey = ids.filter((id) => keyOf(id) !== null);
          // Rows with a value first, ordered; the rest (missing) last.
          assert.deepEqual(ids.slice(0, withKey.length), withKey, `${name} ${order} ${filtered}: missing last`);
          for (let i = 1; i < withKey.length; i++) {
            const a = keyOf(withKey[i - 1]), b = keyOf(withKey[i]);
            assert.ok(order === DESC ? a >= b : a <= b, `${name} ${order} ${filtered}: ${a} then ${b}`);
          }
        }
      }
    }
  });

  it('InnerHits: the matching sub-documents, with offset, limit and sort', async () => {
    const offsetOf = (h) => h.nestedDocOffset ?? 0;
    // Default: the sub-documents in array order, at most 3.
    let r = await search(client, t, ix, nested('n', Q.term('n.nk', 'b'), { innerHits: {} }), { limit: 100 });
    assert.ok(r.rows.length > 10);
    r.rows.forEach((row, i) => {
      const want = docs.get(idOf(row)).map((d, j) => [d, j]).filter(([d]) => d.nk === 'b').map(([, j]) => j);
      const inner = r.searchHits[i].searchInnerHits.get('n');
      assert.ok(inner, 'inner hits under the path');
      assert.deepEqual(inner.subSearchHits.map(offsetOf), want.slice(0, 3));
    });
    // Sorted by nl descending (then array order), offset 1, limit 2.
    r = await search(client, t, ix, nested('n', Q.range('n.nl', Long.fromNumber(0), undefined, true, false), {
      innerHits: { sort: { sorters: [{ fieldSort: { fieldName: 'n.nl', order: DESC } }] }, offset: 1, limit: 2 },
    }), { limit: 100 });
    assert.ok(r.rows.length > 10);
    r.rows.forEach((row, i) => {
      const ds = docs.get(idOf(row)).map((d, j) => [d, j]);
      ds.sort((x, y) => y[0].nl - x[0].nl || x[1] - y[1]);
      const got = r.searchHits[i].searchInnerHits.get('n').subSearchHits.map(offsetOf);
      assert.deepEqual(got, ds.slice(1, 3).map(([, j]) => j));
    });
    // DocSort descending.
    r = await search(client, t, ix, nested('n', Q.term('n.nk', 'a'), {
      innerHits: { sort: { sorters: [{ docSort: { order: DESC } }] }, limit: 10 },
    }), { limit: 100 });
    r.rows.forEach((row, i) => {
      const want = docs.get(idOf(row)).map((d, j) => [d, j]).filter(([d]) => d.nk === 'a').map(([, j]) => j).reverse();
      assert.deepEqual(r.searchHits[i].searchInnerHits.get('n').subSearchHits.map(offsetOf), want);
    });
  });

  it('geo queries and GeoDistanceSort on a GeoPoint sub-field', async () => {
    const R = 6371008.7714;
    const rad = (x) => (x * Math.PI) / 180;
    const step = [180 / 2 ** 32, 360 / 2 ** 32];
    const pt = (d) => d.ng.split(',').map(Number).map((v, k) => Math.floor(v / step[k]) * step[k]);
    const dist = ([a, b], [c, e]) => 2 * R * Math.asin(Math.sqrt(Math.sin(rad(c - a) / 2) ** 2 +
      Math.cos(rad(a)) * Math.cos(rad(c)) * Math.sin(rad(e - b) / 2) ** 2));
    const center = [0.5, 0.5];
    const D = 30000;
    const want = [], not = [];
    for (const [id, ds] of docs) {
      const near = ds.filter((d) => d.nk === 'a').map((d) => dist(center, pt(d)));
      if (near.some((x) => Math.abs(x - D) < 1)) continue;
      (near.some((x) => x < D) ? want : not).push(id);
    }
    assert.ok(want.length > 3 && not.length > 3);
    const q = nested('n', Q.bool({ must: [Q.term('n.nk', 'a'),
      { queryType: QT.GEO_DISTANCE_QUERY, query: { fieldName: 'n.ng', centerPoint: '0.5,0.5', distance: D } }] }));
    const got = new Set(await searchIds(client, t, ix, q));
    for (const id of want) assert.ok(got.has(id), `row ${id} within`);
    for (const id of not) assert.ok(!got.has(id), `row ${id} outside`);
    // Sorted by the nearest sub-document point.
    const ids = await searchIds(client, t, ix, Q.exists('n'), { limit: 25, sort: [{ geoDistanceSort: {
      fieldName: 'n.ng', points: ['0.5,0.5'], order: ASC, nestedFilter: { path: 'n', filter: Q.all() } } }] });
    const key = (id) => Math.min(...docs.get(id).map((d) => dist(center, pt(d))));
    assert.equal(ids.length, docs.size);
    for (let i = 1; i < ids.length; i++) assert.ok(key(ids[i - 1]) <= key(ids[i]) + 0.01);
  });

  it('refuses what the service refuses, with OTSParameterInvalid', async () => {
    // A sub-field outside a NestedQuery; a top-level field inside one.
    await expectOtsError(search(client, t, ix, Q.term('n.nk', 'a')), ...BAD, 'NestedQuery');
    await expectOtsError(search(client, t, ix, nested('n', Q.term('k', 'k1'))), ...BAD, 'not a sub-field');
    await expectOtsError(search(client, t, ix, nested('k', Q.term('k', 'k1'))), ...BAD, 'is not a NESTED field');
    await expectOtsError(search(client, t, ix, Q.term('n', 'x')), ...BAD, 'NESTED');
    await expectOtsError(search(client, t, ix, Q.all(), { sort: [{ docSort: { order: ASC } }] }), ...BAD, 'DocSort');
    // An index with a Nested field has no index sort.
    await expectOtsError(client.createSearchIndex({ tableName: t, indexName: 'ix2', schema: {
      fieldSchemas: [{ fieldName: 'k', fieldType: FT.KEYWORD, index: true, enableSortAndAgg: true },
        { fieldName: 'n', fieldType: FT.NESTED, fieldSchemas: [{ fieldName: 'nk', fieldType: FT.KEYWORD }] }],
      indexSort: { sorters: [{ fieldSort: { fieldName: 'k', order: ASC } }] },
    } }), ...BAD, 'index sort');
    await expectOtsError(client.createSearchIndex({ tableName: t, indexName: 'ix3', schema: {
      fieldSchemas: [{ fieldName: 'n', fieldType: FT.NESTED }],
    } }), ...BAD, 'sub-fields');
    // Still serving.
    assert.equal((await search(client, t, ix, Q.all(), { limit: 1 })).rows.length, 1);
  });
});
