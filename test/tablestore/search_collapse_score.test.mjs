// Collapse and function-score queries (issue 32) through the official Node SDK, each answer
// checked against a computation over the same rows in the test:
// - collapse: one hit per distinct value of a Keyword, Long or Double field (the rows without it
//   one group), the first in the search's sort, paged by offset and limit, total_count before
//   collapsing; refused on other field types, without enable_sort_and_agg, on arrays, and with a
//   next_token (the service's "Collapse" page);
// - FunctionScoreQuery (the query's score times the field's value) and FunctionsScoreQuery
//   (field_value_factor with factor, modifier and missing; weight with a filter; numeric decay;
//   random) under every score mode and combine mode, min_score and max_score, against the
//   query's own scores; what is not served refused by name.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { Long, Server, TableStore, condition, expectOtsError, num, uniqueName } from './helpers.mjs';
import { Q, RT, idOf, waitCount } from './search_helpers.mjs';

const FT = TableStore.FieldType;
const QT = TableStore.QueryType;
const ASC = TableStore.SortOrder.SORT_ORDER_ASC;
const DESC = TableStore.SortOrder.SORT_ORDER_DESC;
const N = 60;

// The rows: cat absent on every tenth, n absent on every eleventh.
const ROWS = [...Array(N).keys()].map((i) => ({
  id: i,
  cat: i % 10 === 9 ? undefined : `c${i % 7}`,
  g: i % 5,
  n: i % 11 === 10 ? undefined : i + 1,
  d: i * 0.5,
  t: i % 3 === 0 ? `dog row${i}` : `${'fox '.repeat((i % 4) + 1)}row${i}`,
}));

describe('collapse and function scores', () => {
  let server;
  let client;
  const t = uniqueName('cfs');

  before(async () => {
    server = await Server.start();
    client = server.client();
    await client.createTable({
      tableMeta: { tableName: t, primaryKey: [{ name: 'id', type: 'INTEGER' }] },
      reservedThroughput: { capacityUnit: { read: 0, write: 0 } },
      tableOptions: { timeToLive: -1, maxVersions: 1 },
    });
    const rows = ROWS.map((r) => {
      const cols = [{ g: Long.fromNumber(r.g) }, { d: r.d }, { t: r.t },
        { nosort: Long.fromNumber(r.id) }, { tags: '["x","y"]' }];
      if (r.cat !== undefined) cols.push({ cat: r.cat });
      if (r.n !== undefined) cols.push({ n: Long.fromNumber(r.n) });
      return { type: 'PUT', condition: condition('IGNORE'), primaryKey: [{ id: Long.fromNumber(r.id) }], attributeColumns: cols };
    });
    for (let from = 0; from < N; from += 30) {
      const r = await client.batchWriteRow({ tables: [{ tableName: t, rows: rows.slice(from, from + 30) }] });
      assert.ok(r.tables.every((x) => x.isOk));
    }
    await client.createSearchIndex({ tableName: t, indexName: 'ix', schema: { fieldSchemas: [
      { fieldName: 'cat', fieldType: FT.KEYWORD, index: true, enableSortAndAgg: true },
      { fieldName: 'g', fieldType: FT.LONG, index: true, enableSortAndAgg: true },
      { fieldName: 'n', fieldType: FT.LONG, index: true, enableSortAndAgg: true },
      { fieldName: 'd', fieldType: FT.DOUBLE, index: true, enableSortAndAgg: true },
      { fieldName: 't', fieldType: FT.TEXT, index: true },
      { fieldName: 'nosort', fieldType: FT.LONG, index: true },
      { fieldName: 'tags', fieldType: FT.KEYWORD, index: true, enableSortAndAgg: true, isAnArray: true },
    ] } });
    await waitCount(client, t, 'ix', N);
  });

  after(async () => {
    await server?.stop({ removeDir: true });
  });

  const run = (query, { sort, collapse, offset, limit = 100, token, getTotalCount = true } = {}) => {
    const searchQuery = { query, limit, getTotalCount };
    if (sort) searchQuery.sort = { sorters: sort };
    if (collapse) searchQuery.collapse = { fieldName: collapse };
    if (offset !== undefined) searchQuery.offset = offset;
    if (token) searchQuery.token = token;
    return client.search({ tableName: t, indexName: 'ix', searchQuery, columnToGet: { returnType: RT.RETURN_NONE } });
  };
  const ids = (r) => r.rows.map(idOf);
  // The first row of each distinct value of `field` in `order` (ids), the rows without it one group.
  const collapseIds = (order, field) => {
    const seen = new Set();
    const out = [];
    for (const id of order) {
      const v = ROWS[id][field];
      if (seen.has(v)) continue;
      seen.add(v);
      out.push(id);
    }
    return out;
  };

  describe('collapse', () => {
    it('one row per Keyword value, the first in the sort; rows without it one group; offset and limit', async () => {
      const byD = [...ROWS].sort((a, b) => b.d - a.d).map((r) => r.id);
      const want = collapseIds(byD, 'cat');
      assert.equal(want.length, 8);  // c0..c6 and the rows without cat
      const sort = [{ fieldSort: { fieldName: 'd', order: DESC } }];
      const r = await run(Q.all(), { sort, collapse: 'cat' });
      assert.deepEqual(ids(r), want);
      assert.equal(Number(r.totalCounts), N);  // the matches before collapsing
      for (const [offset, limit] of [[0, 3], [2, 3], [6, 5], [8, 2]]) {
        assert.deepEqual(ids(await run(Q.all(), { sort, collapse: 'cat', offset, limit })), want.slice(offset, offset + limit));
      }
      // With a query: only its matches are grouped.
      const q = Q.range('d', 10, 20);
      const inRange = byD.filter((id) => ROWS[id].d >= 10 && ROWS[id].d < 20);
      const r2 = await run(q, { sort, collapse: 'cat' });
      assert.deepEqual(ids(r2), collapseIds(inRange, 'cat'));
      assert.equal(Number(r2.totalCounts), inRange.length);
    });

    it('Long and Double fields; ascending sorts', async () => {
      const sort = [{ fieldSort: { fieldName: 'd', order: ASC } }];
      const byD = [...ROWS].sort((a, b) => a.d - b.d).map((r) => r.id);
      assert.deepEqual(ids(await run(Q.all(), { sort, collapse: 'g' })), collapseIds(byD, 'g'));
      assert.deepEqual(ids(await run(Q.all(), { sort, collapse: 'd' })), byD);  // all distinct
      assert.deepEqual(ids(await run(Q.all(), { sort: [{ fieldSort: { fieldName: 'g', order: DESC } },
        { fieldSort: { fieldName: 'd', order: DESC } }], collapse: 'cat' })),
      collapseIds([...ROWS].sort((a, b) => b.g - a.g || b.d - a.d).map((r) => r.id), 'cat'));
    });

    it('by score: the best row of each group, as the uncollapsed order has it', async () => {
      const sort = [{ scoreSort: { order: DESC } }];
      const q = Q.match('t', 'fox');
      const all = await run(q, { sort });
      const r = await run(q, { sort, collapse: 'cat' });
      assert.deepEqual(ids(r), collapseIds(ids(all), 'cat'));
      const scores = r.searchHits.map((h) => h.score ?? 0);
      for (let i = 1; i < scores.length; i++) assert.ok(scores[i - 1] >= scores[i], String(scores));
    });

    it('refusals: field types, arrays, next_token', async () => {
      await expectOtsError(run(Q.all(), { collapse: 't' }), 400, 'OTSParameterInvalid', 'KEYWORD, LONG and DOUBLE');
      // 'nosort' was created without enableSortAndAgg, which the service (and ttlstore) takes as
      // on for a Long field (docs/tablestore.md); the Node SDK cannot send it false, so the
      // refusal of a field with it off is tested raw in search_aggs.test.mjs.
      assert.ok((await run(Q.all(), { collapse: 'nosort' })).rows.length > 0);
      await expectOtsError(run(Q.all(), { collapse: 'tags' }), 400, 'OTSParameterInvalid', 'array');
      await expectOtsError(run(Q.all(), { collapse: 'absent' }), 400, 'OTSParameterInvalid', 'absent');
      const first = await run(Q.all(), { limit: 5 });
      assert.ok(first.nextToken && first.nextToken.length > 0);
      await expectOtsError(run(Q.all(), { collapse: 'cat', token: first.nextToken }), 400, 'OTSParameterInvalid', 'next_token');
    });
  });

  describe('function scores', () => {
    // id -> score of `query` (score sort, every match).
    const scoresOf = async (query) => {
      const r = await run(query, { sort: [{ scoreSort: { order: DESC } }] });
      return new Map(r.searchHits.map((h, i) => [idOf(r.rows[i]), h.score ?? 0]));
    };
    const close = (a, b) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
    const assertScores = (got, want, what) => {
      assert.deepEqual([...got.keys()].sort((a, b) => a - b), [...want.keys()].sort((a, b) => a - b), what);
      for (const [id, s] of want) assert.ok(close(got.get(id), s), `${what}: row ${id} scored ${got.get(id)}, expected ${s}`);
    };
    const hasN = Q.bool({ must: [Q.match('t', 'fox')], filter: [Q.exists('n')] });

    it('FunctionScoreQuery: the query score times the field value (the Python SDK test shape)', async () => {
      const base = await scoresOf(hasN);
      assert.ok(base.size > 20);
      const r = await run({ queryType: QT.FUNCTION_SCORE_QUERY, query: { query: hasN, fieldValueFactor: { fieldName: 'n' } } },
        { sort: [{ scoreSort: { order: DESC } }] });
      const got = new Map(r.searchHits.map((h, i) => [idOf(r.rows[i]), h.score ?? 0]));
      assertScores(got, new Map([...base].map(([id, s]) => [id, s * ROWS[id].n])), 'field value factor');
      const order = [...got.values()];
      for (let i = 1; i < order.length; i++) assert.ok(order[i - 1] >= order[i]);
      assert.equal(Number(r.totalCounts), base.size);
    });

    const FSM = TableStore.FSMScoreMode;
    const FCM = TableStore.FSMCombineMode;
    const FM = TableStore.FunctionModifier;
    const functions = [
      { fieldValueFactorFunction: { fieldName: 'n', factor: 2, modifier: FM.FM_SQRT, missing: 4 } },
      { weight: 3, filter: Q.term('cat', 'c1') },
      { weight: 2, decayFunction: { fieldName: 'd', mathFunction: TableStore.MathFunction.GAUSS,
        decayParamType: TableStore.DecayFuncParamType.DF_NUMERIC_PARAM,
        decayParam: { origin: 10, scale: 5, offset: 1 }, decay: 0.5 } },
    ];
    // Each function's value for a row (null: does not apply), as Elasticsearch defines them.
    const values = (row) => [
      Math.sqrt(2 * (row.n ?? 4)),
      row.cat === 'c1' ? 3 : null,
      2 * Math.exp((Math.max(0, Math.abs(row.d - 10) - 1) ** 2) * Math.log(0.5) / 25),
    ];
    const weights = [1, 3, 2];
    const factorOf = (mode, vs) => {
      const on = vs.map((v, i) => [v, weights[i]]).filter(([v]) => v !== null);
      if (on.length === 0) return 1;
      switch (mode) {
        case FSM.FSM_MULTIPLY: return on.reduce((p, [v]) => p * v, 1);
        case FSM.FSM_SUM: return on.reduce((p, [v]) => p + v, 0);
        case FSM.FSM_AVG: return on.reduce((p, [v]) => p + v, 0) / on.reduce((p, [, w]) => p + w, 0);
        case FSM.FSM_MAX: return Math.max(...on.map(([v]) => v));
        case FSM.FSM_MIN: return Math.min(...on.map(([v]) => v));
        case FSM.FSM_FIRST: return on[0][0];
      }
      throw new Error(`mode ${mode}`);
    };
    const combine = (mode, base, f) => {
      switch (mode) {
        case FCM.FCM_MULTIPLY: return base * f;
        case FCM.FCM_SUM: return base + f;
        case FCM.FCM_AVG: return (base + f) / 2;
        case FCM.FCM_MAX: return Math.max(base, f);
        case FCM.FCM_MIN: return Math.min(base, f);
        case FCM.FCM_REPLACE: return f;
      }
      throw new Error(`mode ${mode}`);
    };
    const fsq = (extra) => ({ queryType: QT.FUNCTIONS_SCORE_QUERY, query: { query: Q.match('t', 'fox'), functions, ...extra } });

    it('FunctionsScoreQuery: every score mode and combine mode', async () => {
      const base = await scoresOf(Q.match('t', 'fox'));
      for (const scoreMode of Object.values(FSM)) {
        for (const combineMode of Object.values(FCM)) {
          const got = await scoresOf(fsq({ scoreMode, combineMode }));
          const want = new Map([...base].map(([id, s]) => [id, combine(combineMode, s, factorOf(scoreMode, values(ROWS[id])))]));
          assertScores(got, want, `score mode ${scoreMode}, combine mode ${combineMode}`);
        }
      }
    });

    it('min_score drops rows, max_score caps the functions', async () => {
      const base = await scoresOf(Q.match('t', 'fox'));
      const want = new Map([...base].map(([id, s]) => [id, s * factorOf(FSM.FSM_SUM, values(ROWS[id]))]));
      // A threshold (a float on the wire) between two distinct scores near the median.
      const sorted = [...want.values()].sort((a, b) => a - b);
      let k = Math.floor(sorted.length / 2);
      while (k + 1 < sorted.length && sorted[k + 1] - sorted[k] < 1e-3 * sorted[k]) k++;
      const minScore = Math.fround((sorted[k] + sorted[k + 1]) / 2);
      const r = await run(fsq({ scoreMode: FSM.FSM_SUM, minScore }), { sort: [{ scoreSort: { order: DESC } }] });
      const kept = new Map([...want].filter(([, s]) => s >= minScore));
      assert.ok(kept.size > 0 && kept.size < want.size);
      assert.equal(Number(r.totalCounts), kept.size);
      assertScores(new Map(r.searchHits.map((h, i) => [idOf(r.rows[i]), h.score ?? 0])), kept, 'min_score');
      const capped = await scoresOf(fsq({ scoreMode: FSM.FSM_SUM, combineMode: FCM.FCM_REPLACE, maxScore: 4 }));
      assertScores(capped, new Map([...base].map(([id]) => [id, Math.min(4, factorOf(FSM.FSM_SUM, values(ROWS[id])))])), 'max_score');
    });

    it('random: each matching row once, scored in [0, weight)', async () => {
      const base = await scoresOf(Q.match('t', 'fox'));
      const got = await scoresOf({ queryType: QT.FUNCTIONS_SCORE_QUERY, query: { query: Q.match('t', 'fox'),
        functions: [{ randomFunction: {}, weight: 2 }], combineMode: FCM.FCM_REPLACE } });
      assert.deepEqual([...got.keys()].sort((a, b) => a - b), [...base.keys()].sort((a, b) => a - b));
      for (const s of got.values()) assert.ok(s >= 0 && s < 2, String(s));
    });

    it('function scores compose inside a Bool query', async () => {
      const fs = { queryType: QT.FUNCTION_SCORE_QUERY, query: { query: hasN, fieldValueFactor: { fieldName: 'n' } } };
      const r = await run(Q.bool({ must: [fs], filter: [Q.term('cat', 'c2')] }), { sort: [{ scoreSort: { order: DESC } }] });
      const base = await scoresOf(hasN);
      const want = new Map([...base].filter(([id]) => ROWS[id].cat === 'c2').map(([id, s]) => [id, s * ROWS[id].n]));
      assertScores(new Map(r.searchHits.map((h, i) => [idOf(r.rows[i]), h.score ?? 0])), want, 'in a Bool');
    });

    it('refusals name what is not served', async () => {
      // A geo decay needs a GeoPoint field (search_geo.test.mjs scores by one).
      const geo = { queryType: QT.FUNCTIONS_SCORE_QUERY, query: { query: Q.all(), functions: [{ decayFunction: {
        fieldName: 'd', decayParamType: TableStore.DecayFuncParamType.DF_GEO_PARAM, decayParam: { origin: '0,0', scale: 1 } } }] } };
      await expectOtsError(run(geo), 400, 'OTSParameterInvalid', 'DecayFunction with DecayFuncGeoParam is only supported on GEO_POINT fields');
      await expectOtsError(run(fsq({ functions: [{ fieldValueFactorFunction: { fieldName: 'cat' } }] })),
        400, 'OTSParameterInvalid', 'FieldValueFactor');
      // enableSortAndAgg left out is on (see the collapse refusals above).
      assert.ok((await run(fsq({ functions: [{ fieldValueFactorFunction: { fieldName: 'nosort' } }] }))).rows);
      await expectOtsError(run(fsq({ functions: [...functions, { weight: 2 }] })), 400, 'OTSParameterInvalid', 'at most 3');
      await expectOtsError(run(fsq({ functions: [{ decayFunction: { ...functions[2].decayFunction, decayParam: { origin: 1, scale: 0 } } }] })),
        400, 'OTSParameterInvalid', 'scale');
      await expectOtsError(run({ queryType: QT.FUNCTION_SCORE_QUERY, query: { query: Q.all(), fieldValueFactor: { fieldName: 't' } } }),
        400, 'OTSParameterInvalid', 'FieldValueFactor');
    });
  });
});
