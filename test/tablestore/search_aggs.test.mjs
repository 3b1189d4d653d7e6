// Aggregations and group-bys on Search (issue 32) through the official Node SDK: every answer is
// compared with a brute-force computation over the rows this test wrote (avg, max, min, sum,
// count, distinct_count with and without missing values, percentiles, top_rows; group-by
// field, range, filter, histogram, date histogram and composite, with sub-aggregations,
// sub-group-bys and sorts), and the refusals (a field that does not exist or lacks
// enable_sort_and_agg, a GeoPoint group-by) are checked with the service's code and text.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { Long, Server, TableStore, condition, expectOtsError, num, uniqueName } from './helpers.mjs';
import { Q, RT, idOf, waitCount } from './search_helpers.mjs';
import { check } from './crash_helpers.mjs';
import { msg, pbBytes, pbVarint, raw, rawSearch } from './search_raw.mjs';
import { decode, encode } from './sdk_wire.mjs';

const FT = TableStore.FieldType;
const AT = TableStore.AggregationType;
const GT = TableStore.GroupByType;
const ASC = TableStore.SortOrder.SORT_ORDER_ASC;
const DESC = TableStore.SortOrder.SORT_ORDER_DESC;
const N = 97;
const DAY = 86400000;
const BASE = Date.UTC(2024, 0, 1);

// The rows: every field is absent on some rows.
function rowOf(i) {
  const r = { id: i };
  if (i % 7 !== 0) r.l = ((i * 37) % 50) - 10;
  if (i % 5 !== 0) r.d = ((i * 13) % 40) / 4 + 0.25;
  if (i % 11 !== 0) r.k = `k${i % 6}`;
  r.b = i % 3 === 0;
  r.t = BASE + i * 7 * 3600000;
  if (i % 2 === 0) r.arr = [i % 4, (i % 4) + 10, (i % 4) + 10];
  r.ns = i;
  return r;
}
const ROWS = [...Array(N).keys()].map(rowOf);

// ---- Brute force ------------------------------------------------------------------------------
const valuesOf = (rows, f) => rows.flatMap((r) => (r[f] === undefined ? [] : Array.isArray(r[f]) ? r[f] : [r[f]]));
const withMissing = (rows, f, missing) =>
  rows.flatMap((r) => (r[f] === undefined ? (missing === undefined ? [] : [missing]) : Array.isArray(r[f]) ? r[f] : [r[f]]));
const sum = (xs) => xs.reduce((a, b) => a + b, 0);
function percentile(sortedXs, p) {
  const rank = (p / 100) * (sortedXs.length - 1);
  const lo = Math.floor(rank);
  if (lo >= sortedXs.length - 1) return sortedXs[sortedXs.length - 1];
  return sortedXs[lo] + (sortedXs[lo + 1] - sortedXs[lo]) * (rank - lo);
}

// ---- Requests ---------------------------------------------------------------------------------
const agg = (name, type, body) => ({ name, type, body });
const field = (name, fieldName, extra = {}) => ({ name, type: GT.GROUP_BY_FIELD, body: { fieldName, ...extra } });
const close = (a, b, what) => assert.ok(Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b)), `${what}: ${a} != ${b}`);

describe('Search aggregations and group-bys against a brute force', () => {
  let server;
  let client;
  const t = uniqueName('aggs');
  const ix = 'ix';

  const run = (query, { aggs, groupBys, limit = 0, columns = { returnType: RT.RETURN_NONE } } = {}) => {
    const searchQuery = { query, limit, getTotalCount: true };
    if (aggs) searchQuery.aggs = { aggs };
    if (groupBys) searchQuery.groupBys = { groupBys };
    return client.search({ tableName: t, indexName: ix, searchQuery, columnToGet: columns });
  };
  const aggValues = async (query, aggs) => {
    const r = await run(query, { aggs });
    assert.equal(r.aggs.aggResults.length, aggs.length);
    return Object.fromEntries(r.aggs.aggResults.map((a, i) => {
      assert.equal(a.name, aggs[i].name);
      assert.equal(a.type, aggs[i].type);
      return [a.name, a.aggResult];
    }));
  };

  before(async () => {
    server = await Server.start();
    client = server.client();
    await client.createTable({
      tableMeta: { tableName: t, primaryKey: [{ name: 'id', type: 'INTEGER' }] },
      reservedThroughput: { capacityUnit: { read: 0, write: 0 } },
      tableOptions: { timeToLive: -1, maxVersions: 1 },
    });
    const agg = { index: true, enableSortAndAgg: true };
    await client.createSearchIndex({ tableName: t, indexName: ix, schema: { fieldSchemas: [
      { fieldName: 'l', fieldType: FT.LONG, ...agg },
      { fieldName: 'd', fieldType: FT.DOUBLE, ...agg },
      { fieldName: 'k', fieldType: FT.KEYWORD, ...agg },
      { fieldName: 'b', fieldType: FT.BOOLEAN, ...agg },
      { fieldName: 't', fieldType: FT.DATE, dateFormats: ['epoch_millis'], ...agg },
      { fieldName: 'arr', fieldType: FT.LONG, isAnArray: true, ...agg },
      { fieldName: 'ns', fieldType: FT.LONG, index: true },
    ] } });
    for (let at = 0; at < N; at += 50) {
      const rows = ROWS.slice(at, at + 50).map((r) => {
        const cols = [];
        if (r.l !== undefined) cols.push({ l: Long.fromNumber(r.l) });
        if (r.d !== undefined) cols.push({ d: r.d });
        if (r.k !== undefined) cols.push({ k: r.k });
        cols.push({ b: r.b }, { t: Long.fromNumber(r.t) }, { ns: Long.fromNumber(r.ns) });
        if (r.arr) cols.push({ arr: JSON.stringify(r.arr) });
        return { type: 'PUT', condition: condition('IGNORE'), primaryKey: [{ id: Long.fromNumber(r.id) }], attributeColumns: cols };
      });
      const w = await client.batchWriteRow({ tables: [{ tableName: t, rows }] });
      assert.ok(w.tables.every((x) => x.isOk));
    }
    await waitCount(client, t, ix, N);
  });

  after(async () => {
    await server?.stop({ removeDir: true });
  });

  // The query of most cases, and its rows: l >= 0 (rows without l are left out too).
  const someQuery = Q.range('l', Long.fromNumber(0), Long.fromNumber(1000));
  const someRows = ROWS.filter((r) => r.l !== undefined && r.l >= 0);

  for (const [label, query, rows] of [['match_all', Q.all(), ROWS], ['range query', someQuery, someRows]]) {
    it(`avg, max, min, sum, count, distinct_count (${label})`, async () => {
      const got = await aggValues(query, [
        agg('avg_l', AT.AGG_AVG, { fieldName: 'l' }),
        agg('max_d', AT.AGG_MAX, { fieldName: 'd' }),
        agg('min_l', AT.AGG_MIN, { fieldName: 'l' }),
        agg('sum_d', AT.AGG_SUM, { fieldName: 'd' }),
        agg('count_k', AT.AGG_COUNT, { fieldName: 'k' }),
      ]);
      const l = valuesOf(rows, 'l');
      const d = valuesOf(rows, 'd');
      close(got.avg_l.value, sum(l) / l.length, 'avg');
      close(got.max_d.value, Math.max(...d), 'max');
      close(got.min_l.value, Math.min(...l), 'min');
      close(got.sum_d.value, sum(d), 'sum');
      assert.equal(num(got.count_k.value), valuesOf(rows, 'k').length);

      const more = await aggValues(query, [
        agg('dc_k', AT.AGG_DISTINCT_COUNT, { fieldName: 'k' }),
        agg('dc_l', AT.AGG_DISTINCT_COUNT, { fieldName: 'l' }),
        agg('sum_l', AT.AGG_SUM, { fieldName: 'l' }),
        agg('count_t', AT.AGG_COUNT, { fieldName: 't' }),
        agg('max_t', AT.AGG_MAX, { fieldName: 't' }),
      ]);
      assert.equal(num(more.dc_k.value), new Set(valuesOf(rows, 'k')).size);
      assert.equal(num(more.dc_l.value), new Set(l).size);
      assert.equal(more.sum_l.value, sum(l));
      assert.equal(num(more.count_t.value), rows.length);
      assert.equal(more.max_t.value, Math.max(...valuesOf(rows, 't')));
    });
  }

  it('missing values stand for the rows without the field', async () => {
    const got = await aggValues(Q.all(), [
      agg('avg_l', AT.AGG_AVG, { fieldName: 'l', missing: Long.fromNumber(100) }),
      agg('min_d', AT.AGG_MIN, { fieldName: 'd', missing: -5.5 }),
      agg('sum_l', AT.AGG_SUM, { fieldName: 'l', missing: Long.fromNumber(3) }),
      agg('dc_k', AT.AGG_DISTINCT_COUNT, { fieldName: 'k', missing: 'none' }),
      agg('max_l', AT.AGG_MAX, { fieldName: 'l', missing: Long.fromNumber(1000) }),
    ]);
    const l100 = withMissing(ROWS, 'l', 100);
    close(got.avg_l.value, sum(l100) / l100.length, 'avg');
    assert.equal(got.min_d.value, -5.5);
    assert.equal(got.sum_l.value, sum(withMissing(ROWS, 'l', 3)));
    assert.equal(num(got.dc_k.value), new Set(withMissing(ROWS, 'k', 'none')).size);
    assert.equal(got.max_l.value, 1000);
  });

  it('an array field aggregates every element', async () => {
    const got = await aggValues(Q.all(), [
      agg('sum', AT.AGG_SUM, { fieldName: 'arr' }),
      agg('count', AT.AGG_COUNT, { fieldName: 'arr' }),
      agg('dc', AT.AGG_DISTINCT_COUNT, { fieldName: 'arr' }),
      agg('max', AT.AGG_MAX, { fieldName: 'arr' }),
    ]);
    const all = valuesOf(ROWS, 'arr');
    assert.equal(got.sum.value, sum(all));
    assert.equal(num(got.count.value), all.length);
    assert.equal(num(got.dc.value), new Set(all).size);
    assert.equal(got.max.value, Math.max(...all));
  });

  it('no matching row: count 0, sum 0', async () => {
    const got = await aggValues(Q.term('k', 'nothing'), [
      agg('count', AT.AGG_COUNT, { fieldName: 'l' }),
      agg('sum', AT.AGG_SUM, { fieldName: 'l' }),
      agg('dc', AT.AGG_DISTINCT_COUNT, { fieldName: 'l' }),
    ]);
    assert.equal(num(got.count.value), 0);
    assert.equal(got.sum.value, 0);
    assert.equal(num(got.dc.value), 0);
  });

  it('percentiles of a Long and a Double field', async () => {
    const ps = [0, 10, 25, 50, 90, 99, 100];
    const got = await aggValues(someQuery, [
      agg('pl', AT.AGG_PERCENTILES, { fieldName: 'l', percentiles: ps }),
      agg('pd', AT.AGG_PERCENTILES, { fieldName: 'd', percentiles: ps, missing: 0.5 }),
    ]);
    const l = valuesOf(someRows, 'l').sort((a, b) => a - b);
    const d = withMissing(someRows, 'd', 0.5).sort((a, b) => a - b);
    // The Node SDK wraps each item: { item: { key, value } }.
    assert.deepEqual(got.pl.items.map((x) => x.item.key), ps);
    assert.deepEqual(got.pd.items.map((x) => x.item.key), ps);
    got.pl.items.forEach((x, i) => assert.equal(num(x.item.value), Math.trunc(percentile(l, ps[i])), `p${ps[i]} of l`));
    got.pd.items.forEach((x, i) => close(x.item.value, percentile(d, ps[i]), `p${ps[i]} of d`));
  });

  it('top_rows: the first rows by a sort, with their columns', async () => {
    const got = await aggValues(someQuery, [
      agg('top', AT.AGG_TOP_ROWS, { limit: 4, sort: { sorters: [{ fieldSort: { fieldName: 'l', order: DESC } }] } }),
    ]);
    const want = [...someRows].sort((a, b) => b.l - a.l || a.id - b.id).slice(0, 4);
    assert.deepEqual(got.top.rows.map(idOf), want.map((r) => r.id));
  });

  it('group by field: default sort (row count desc, key asc), size, sub-aggregations', async () => {
    const r = await run(someQuery, { groupBys: [field('by_k', 'k', {
      size: 4,
      subAggs: { aggs: [agg('sum_d', AT.AGG_SUM, { fieldName: 'd' }), agg('n', AT.AGG_COUNT, { fieldName: 'l' })] },
    })] });
    const g = r.groupBys.groupByResults[0];
    assert.equal(g.name, 'by_k');
    assert.equal(g.type, GT.GROUP_BY_FIELD);
    const groups = new Map();
    for (const row of someRows) if (row.k !== undefined) groups.set(row.k, [...(groups.get(row.k) ?? []), row]);
    const want = [...groups].sort((a, b) => b[1].length - a[1].length || (a[0] < b[0] ? -1 : 1)).slice(0, 4);
    assert.deepEqual(g.groupByResult.items.map((x) => [x.key, num(x.rowCount)]), want.map(([k, rows]) => [k, rows.length]));
    g.groupByResult.items.forEach((item, i) => {
      const sub = item.subAggsResult.aggResults;
      close(sub[0].aggResult.value, sum(valuesOf(want[i][1], 'd')), `sum_d of ${item.key}`);
      assert.equal(num(sub[1].aggResult.value), valuesOf(want[i][1], 'l').length);
    });
  });

  it('group by field: sort by key and by a sub-aggregation; Long and Boolean keys', async () => {
    const r = await run(Q.all(), { groupBys: [
      field('by_key', 'k', { size: 10, sort: { sorters: [{ groupKeySort: { order: DESC } }] } }),
      field('by_sub', 'k', {
        size: 10,
        sort: { sorters: [{ subAggSort: { subAggName: 'avg_l', order: ASC } }] },
        subAggs: { aggs: [agg('avg_l', AT.AGG_AVG, { fieldName: 'l' })] },
      }),
      field('by_b', 'b', { size: 10, sort: { sorters: [{ groupKeySort: { order: ASC } }] } }),
      field('by_arr', 'arr', { size: 10, sort: { sorters: [{ rowCountSort: { order: ASC } }, { groupKeySort: { order: ASC } }] } }),
    ] });
    const [byKey, bySub, byB, byArr] = r.groupBys.groupByResults.map((x) => x.groupByResult.items);
    const keys = [...new Set(valuesOf(ROWS, 'k'))];
    const count = (f, v) => ROWS.filter((row) => row[f] === v).length;
    assert.deepEqual(byKey.map((x) => [x.key, num(x.rowCount)]),
      [...keys].sort().reverse().map((k) => [k, count('k', k)]));
    const avg = (k) => { const l = valuesOf(ROWS.filter((row) => row.k === k), 'l'); return sum(l) / l.length; };
    assert.deepEqual(bySub.map((x) => x.key), [...keys].sort((a, b) => avg(a) - avg(b) || (a < b ? -1 : 1)));
    bySub.forEach((x) => close(x.subAggsResult.aggResults[0].aggResult.value, avg(x.key), `avg of ${x.key}`));
    assert.deepEqual(byB.map((x) => [x.key, num(x.rowCount)]), [['false', count('b', false)], ['true', count('b', true)]]);
    // An array row counts once in each of its distinct elements' groups.
    const arrGroups = new Map();
    for (const row of ROWS) for (const v of new Set(row.arr ?? [])) arrGroups.set(v, (arrGroups.get(v) ?? 0) + 1);
    assert.deepEqual(byArr.map((x) => [x.key, num(x.rowCount)]),
      [...arrGroups].sort((a, b) => a[1] - b[1] || a[0] - b[0]).map(([k, n]) => [String(k), n]));
  });

  it('group by range, with a sub-group-by', async () => {
    const ranges = [{ from: -10, to: 0 }, { from: 0, to: 15.5 }, { from: 15.5, to: 100 }];
    const r = await run(Q.all(), { groupBys: [{
      name: 'ranges', type: GT.GROUP_BY_RANGE,
      body: { fieldName: 'l', ranges, subGroupBys: { groupBys: [field('by_b', 'b', { size: 5 })] } },
    }] });
    const items = r.groupBys.groupByResults[0].groupByResult.items;
    assert.equal(items.length, ranges.length);
    items.forEach((item, i) => {
      const rows = ROWS.filter((row) => row.l !== undefined && row.l >= ranges[i].from && row.l < ranges[i].to);
      assert.equal(item.from, ranges[i].from);
      assert.equal(item.to, ranges[i].to);
      assert.equal(num(item.rowCount), rows.length);
      const sub = item.subGroupBysResult.groupByResults[0].groupByResult.items;
      assert.equal(sum(sub.map((x) => num(x.rowCount))), rows.length);
      for (const x of sub) assert.equal(num(x.rowCount), rows.filter((row) => String(row.b) === x.key).length);
    });
  });

  it('group by filter: one group per filter, in order', async () => {
    const filters = [Q.term('k', 'k1'), Q.range('d', 2, 6), Q.exists('arr')];
    const r = await run(someQuery, { groupBys: [{
      name: 'f', type: GT.GROUP_BY_FILTER,
      body: { filters, subAggs: { aggs: [agg('max_l', AT.AGG_MAX, { fieldName: 'l' })] } },
    }] });
    const items = r.groupBys.groupByResults[0].groupByResult.items;
    const preds = [(row) => row.k === 'k1', (row) => row.d !== undefined && row.d >= 2 && row.d < 6, (row) => row.arr !== undefined];
    assert.equal(items.length, 3);
    items.forEach((item, i) => {
      const rows = someRows.filter(preds[i]);
      assert.equal(num(item.rowCount), rows.length, `filter ${i}`);
      assert.equal(item.subAggsResult.aggResults[0].aggResult.value, Math.max(...valuesOf(rows, 'l')));
    });
  });

  it('group by histogram: groups of an interval within field_range, key order', async () => {
    const r = await run(Q.all(), { groupBys: [{
      name: 'h', type: GT.GROUP_BY_HISTOGRAM,
      body: {
        fieldName: 'l', interval: Long.fromNumber(10), fieldRange: { min: Long.fromNumber(-5), max: Long.fromNumber(30) },
        sort: { sorters: [{ groupKeySort: { order: ASC } }] },
      },
    }] });
    const items = r.groupBys.groupByResults[0].groupByResult.items;
    const counts = new Map();
    for (const v of valuesOf(ROWS, 'l')) {
      if (v < -5 || v > 30) continue;
      const key = Math.floor(v / 10) * 10;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    assert.deepEqual(items.map((x) => [num(x.key), num(x.value)]), [...counts].sort((a, b) => a[0] - b[0]));
  });

  it('group by date histogram: days, with a sub-aggregation', async () => {
    const r = await run(Q.all(), { groupBys: [{
      name: 'days', type: GT.GROUP_BY_DATE_HISTOGRAM,
      body: {
        fieldName: 't', interval: { value: 1, unit: TableStore.DateTimeUnit.DAY },
        fieldRange: { min: Long.fromNumber(BASE), max: Long.fromNumber(BASE + 40 * DAY) },
        sort: { sorters: [{ groupKeySort: { order: ASC } }] },
        subAggs: { aggs: [agg('n', AT.AGG_COUNT, { fieldName: 'l' })] },
      },
    }] });
    const items = r.groupBys.groupByResults[0].groupByResult.items;
    const groups = new Map();
    for (const row of ROWS) {
      const day = Math.floor(row.t / DAY) * DAY;
      groups.set(day, [...(groups.get(day) ?? []), row]);
    }
    const want = [...groups].sort((a, b) => a[0] - b[0]);
    assert.deepEqual(items.map((x) => [num(x.timeStamp), num(x.rowCount)]), want.map(([d, rows]) => [d, rows.length]));
    items.forEach((x, i) => assert.equal(num(x.subAggsResult.aggResults[0].aggResult.value), valuesOf(want[i][1], 'l').length));
  });

  it('group by composite: every combination, page by page through next_token', async () => {
    const seen = [];
    let nextToken;
    for (let page = 0; page < 50; page++) {
      const body = {
        size: 4,
        sources: { groupBys: [field('k', 'k'), field('b', 'b')] },
        subAggs: { aggs: [agg('sum_l', AT.AGG_SUM, { fieldName: 'l' })] },
      };
      if (nextToken) body.nextToken = nextToken;
      const r = await run(someQuery, { groupBys: [{ name: 'c', type: GT.GROUP_BY_COMPOSITE, body }] });
      const res = r.groupBys.groupByResults[0].groupByResult;
      assert.deepEqual(res.sourceNames, ['k', 'b']);
      assert.ok(res.items.length <= 4);
      seen.push(...res.items);
      nextToken = res.nextToken;
      if (!nextToken) break;
    }
    // Rows without k have no key there (the SDK reads an empty key); nulls come first.
    const groups = new Map();
    for (const row of someRows) {
      const key = `${row.k ?? ''}|${row.b}`;
      groups.set(key, [...(groups.get(key) ?? []), row]);
    }
    const order = (rows) => [rows[0].k === undefined ? 0 : 1, rows[0].k ?? '', rows[0].b ? 1 : 0];
    const cmp = (a, b) => { for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1; return 0; };
    const want = [...groups].sort((a, b) => cmp(order(a[1]), order(b[1])));
    assert.deepEqual(seen.map((x) => [x.keys.join('|'), num(x.rowCount)]), want.map(([k, rows]) => [k, rows.length]));
    seen.forEach((x, i) => assert.equal(x.subAggsResult.aggResults[0].aggResult.value, sum(valuesOf(want[i][1], 'l'))));
  });

  it('histogram: default order, min_doc_count 0 fills the range, an offset; a Double field', async () => {
    const [lo, hi, iv, off] = [-10, 39, 7, 3];
    const r = await run(Q.all(), { groupBys: [
      { name: 'hl', type: GT.GROUP_BY_HISTOGRAM, body: {
        fieldName: 'l', interval: Long.fromNumber(iv), offset: Long.fromNumber(off), minDocCount: Long.fromNumber(0),
        fieldRange: { min: Long.fromNumber(lo), max: Long.fromNumber(hi) } } },
      { name: 'hd', type: GT.GROUP_BY_HISTOGRAM, body: {
        fieldName: 'd', interval: 2.5, fieldRange: { min: 0.0001, max: 10.5 },
        sort: { sorters: [{ groupKeySort: { order: DESC } }] } } },
    ] });
    const [hl, hd] = r.groupBys.groupByResults.map((x) => x.groupByResult.items);
    const counts = new Map();
    for (let k = Math.floor((lo - off) / iv) * iv + off; k <= hi; k += iv) counts.set(k, 0);
    for (const v of valuesOf(ROWS, 'l')) {
      if (v >= lo && v <= hi) { const k = Math.floor((v - off) / iv) * iv + off; counts.set(k, counts.get(k) + 1); }
    }
    assert.deepEqual(hl.map((x) => [num(x.key), num(x.value)]), [...counts].sort((a, b) => b[1] - a[1] || a[0] - b[0]));
    const dc = new Map();
    for (const v of valuesOf(ROWS, 'd')) {
      if (v >= 0.0001 && v <= 10.5) { const k = Math.floor(v / 2.5) * 2.5; dc.set(k, (dc.get(k) ?? 0) + 1); }
    }
    assert.deepEqual(hd.map((x) => [x.key, num(x.value)]), [...dc].sort((a, b) => b[0] - a[0]));
  });

  it('date histogram: two-day groups in a time zone', async () => {
    const tz = 8 * 3600000;
    const r = await run(Q.all(), { groupBys: [{
      name: 'd2', type: GT.GROUP_BY_DATE_HISTOGRAM,
      body: {
        fieldName: 't', interval: { value: 2, unit: TableStore.DateTimeUnit.DAY }, timeZone: '+08:00',
        fieldRange: { min: Long.fromNumber(BASE), max: Long.fromNumber(BASE + 40 * DAY) },
        sort: { sorters: [{ groupKeySort: { order: ASC } }] },
      },
    }] });
    const items = r.groupBys.groupByResults[0].groupByResult.items;
    const groups = new Map();
    for (const row of ROWS) {
      const start = Math.floor((row.t + tz) / (2 * DAY)) * 2 * DAY - tz;
      groups.set(start, (groups.get(start) ?? 0) + 1);
    }
    assert.deepEqual(items.map((x) => [num(x.timeStamp), num(x.rowCount)]), [...groups].sort((a, b) => a[0] - b[0]));
  });

  it('composite with a histogram source, and a sub-group-by in each group', async () => {
    const body = {
      size: 200,
      sources: { groupBys: [
        { name: 'h', type: GT.GROUP_BY_HISTOGRAM, body: { fieldName: 'l', interval: Long.fromNumber(10) } },
        field('b', 'b'),
      ] },
      subGroupBys: { groupBys: [field('by_k', 'k', { size: 2 })] },
    };
    const r = await run(Q.all(), { groupBys: [{ name: 'c', type: GT.GROUP_BY_COMPOSITE, body }] });
    const res = r.groupBys.groupByResults[0].groupByResult;
    assert.ok(!res.nextToken);
    const groups = new Map();
    for (const row of ROWS) {
      const h = row.l === undefined ? null : Math.floor(row.l / 10) * 10;
      const key = JSON.stringify([h, row.b]);
      groups.set(key, [...(groups.get(key) ?? []), row]);
    }
    const want = [...groups].map(([k, rows]) => [JSON.parse(k), rows]).sort((a, b) =>
      (a[0][0] === null ? -Infinity : a[0][0]) - (b[0][0] === null ? -Infinity : b[0][0]) || Number(a[0][1]) - Number(b[0][1]));
    assert.deepEqual(res.items.map((x) => [x.keys[0], x.keys[1], num(x.rowCount)]),
      want.map(([[h, b], rows]) => [h === null ? '' : String(h), String(b), rows.length]));
    res.items.forEach((item, i) => {
      const byK = new Map();
      for (const row of want[i][1]) if (row.k !== undefined) byK.set(row.k, (byK.get(row.k) ?? 0) + 1);
      const top = [...byK].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 2);
      assert.deepEqual(item.subGroupBysResult.groupByResults[0].groupByResult.items.map((x) => [x.key, num(x.rowCount)]), top);
    });
  });

  it('top_rows returns the columns asked; default percentiles', async () => {
    const r = await run(Q.term('k', 'k2'), {
      aggs: [
        agg('top', AT.AGG_TOP_ROWS, { limit: 2, sort: { sorters: [{ fieldSort: { fieldName: 'd', order: ASC } }] } }),
        agg('p', AT.AGG_PERCENTILES, { fieldName: 't' }),
      ],
      columns: { returnType: RT.RETURN_SPECIFIED, returnNames: ['l', 'k'] },
    });
    const [top, p] = r.aggs.aggResults.map((x) => x.aggResult);
    const rows = ROWS.filter((row) => row.k === 'k2');
    // Rows without d sort last (the default missing of an ascending sort).
    const want = [...rows].sort((a, b) => (a.d ?? Infinity) - (b.d ?? Infinity) || a.id - b.id).slice(0, 2);
    assert.deepEqual(top.rows.map(idOf), want.map((x) => x.id));
    top.rows.forEach((row, i) => {
      const cols = Object.fromEntries(row.attributes.map((c) => [c.columnName, c.columnValue]));
      assert.deepEqual(Object.keys(cols).sort(), want[i].l === undefined ? ['k'] : ['k', 'l']);
      assert.equal(cols.k, 'k2');
    });
    const ts = valuesOf(rows, 't').sort((a, b) => a - b);
    assert.deepEqual(p.items.map((x) => x.item.key), [1, 5, 25, 50, 75, 95, 99]);
    p.items.forEach((x) => assert.equal(num(x.item.value), Math.trunc(percentile(ts, x.item.key))));
  });

  it('group-bys nest three deep; a fourth level is refused', async () => {
    const level = (name, f, sub) => field(name, f, { size: 10, ...(sub ? { subGroupBys: { groupBys: [sub] } } : {}) });
    const r = await run(someQuery, { groupBys: [level('g1', 'b', level('g2', 'k', level('g3', 'arr')))] });
    const g1 = r.groupBys.groupByResults[0].groupByResult.items;
    for (const a of g1) {
      for (const b of a.subGroupBysResult.groupByResults[0].groupByResult.items) {
        const rows = someRows.filter((row) => String(row.b) === a.key && row.k === b.key);
        assert.equal(num(b.rowCount), rows.length);
        for (const c of b.subGroupBysResult.groupByResults[0].groupByResult.items) {
          assert.equal(num(c.rowCount), rows.filter((row) => (row.arr ?? []).includes(Number(c.key))).length);
        }
      }
    }
    await expectOtsError(run(Q.all(), { groupBys: [level('g1', 'b', level('g2', 'k', level('g3', 'arr', level('g4', 'l'))))] }),
      400, 'OTSParameterInvalid', 'Group-bys nest deeper than the limit: 3 levels');
  });

  it('offset, limit and next_token do not change the aggregations', async () => {
    const aggs = [agg('sum', AT.AGG_SUM, { fieldName: 'l' })];
    const r = await run(Q.all(), { aggs, limit: 3 });
    assert.equal(r.rows.length, 3);
    assert.equal(r.aggs.aggResults[0].aggResult.value, sum(valuesOf(ROWS, 'l')));
    const r2 = await client.search({ tableName: t, indexName: ix, searchQuery: {
      query: Q.all(), limit: 3, token: r.nextToken, aggs: { aggs } }, columnToGet: { returnType: RT.RETURN_NONE } });
    assert.equal(r2.aggs.aggResults[0].aggResult.value, sum(valuesOf(ROWS, 'l')));
  });

  // What the Node SDK does not read: the composite's is_null_keys, which the Java and Go SDKs
  // read to tell a null key from an empty one; and hostile request bytes.
  const sq = (extra) => encode('otssearchpb.SearchQuery', { query: { type: 11, query: Buffer.alloc(0) }, limit: 0, ...extra });
  const gb = (name, type, msgName, body) => ({ name, type, body: encode(`otssearchpb.${msgName}`, body) });

  it('raw: a composite marks its null keys with is_null_keys', async () => {
    const groupBys = encode('otssearchpb.GroupBys', { groupBys: [gb('c', 8, 'GroupByComposite', {
      size: 100, sources: { groupBys: [gb('k', 1, 'GroupByField', { fieldName: 'k' })] },
    })] });
    const r = await rawSearch(server, t, ix, sq({ groupBys }));
    assert.equal(r.status, 200, JSON.stringify(r.error));
    const resp = decode('otssearchpb.SearchResponse', r.body);
    const results = decode('otssearchpb.GroupBysResult', resp.groupBys).groupByResults;
    const composite = decode('otssearchpb.GroupByCompositeResult', results[0].groupByResult, { arrays: true, longs: Number });
    const items = composite.groupByCompositeResultItems;
    const keys = [...new Set(valuesOf(ROWS, 'k'))].sort();
    assert.deepEqual(items.map((x) => [x.keys[0], x.isNullKeys[0], x.rowCount]),
      [['', true, ROWS.filter((row) => row.k === undefined).length],
        ...keys.map((k) => [k, false, ROWS.filter((row) => row.k === k).length])]);
    assert.deepEqual(composite.sourceGroupByNames, ['k']);
  });

  it('raw: malformed, unknown and too deeply nested aggregations are refused', async () => {
    let r = await rawSearch(server, t, ix, sq({ aggs: Buffer.from([0x0a, 0xff, 0xff, 0x7f]) }));
    assert.equal(r.status, 400);
    assert.equal(r.error.code, 'OTSParameterInvalid');
    const unknown = encode('otssearchpb.Aggregations', { aggs: [{ name: 'a', type: 42, body: Buffer.alloc(0) }] }, { verify: false });
    r = await rawSearch(server, t, ix, sq({ aggs: unknown }));
    assert.equal(r.status, 400);
    assert.match(r.error.message, /Aggregation type must be set to a known type/);
    // Forty levels of group-bys: refused at the fourth, whatever lies below.
    let level = null;
    for (let d = 40; d >= 1; d--) {
      const body = { fieldName: 'k', size: 1 };
      if (level) body.subGroupBys = level;
      level = { groupBys: [gb(`g${d}`, 1, 'GroupByField', body)] };
    }
    r = await rawSearch(server, t, ix, sq({ groupBys: encode('otssearchpb.GroupBys', level) }));
    assert.equal(r.status, 400);
    assert.match(r.error.message, /Group-bys nest deeper than the limit: 3 levels/);
  });

  it('a field created without enableSortAndAgg aggregates: the service defaults it on', async () => {
    // The Python SDK's agg_test and group_by_test (run against the service) aggregate and group
    // Long fields created without enable_sort_and_agg; its search_index_test reads them back
    // from DescribeSearchIndex without it. 'ns' is such a field.
    const v = await aggValues(Q.all(), [agg('sum_ns', AT.AGG_SUM, { fieldName: 'ns' })]);
    assert.equal(v.sum_ns.value, sum(valuesOf(ROWS, 'ns')));
    const r = await run(Q.all(), { groupBys: [field('g', 'ns')] });
    assert.equal(r.groupBys.groupByResults[0].groupByResult.items.length, 10);
    const d = await client.describeSearchIndex({ tableName: t, indexName: ix });
    const ns = d.schema.fieldSchemas.find((f) => f.fieldName === 'ns');
    assert.ok(!ns.docValues, 'DescribeSearchIndex leaves doc_values out, as it came');
  });

  it('refusals: a missing field, a field with enable_sort_and_agg false, a wrong type, geo group-bys', async () => {
    await expectOtsError(run(Q.all(), { aggs: [agg('a', AT.AGG_AVG, { fieldName: 'nope' })] }),
      400, 'OTSParameterInvalid', '[avg agg] field: nope does not exist');
    // doc_values false, said explicitly (raw CreateSearchIndex: the Node SDK sends it only when
    // true). FieldSchema { 1 name, 2 type LONG(1), 5 index, 6 doc_values }.
    const off = 'ix_off';
    const create = msg(pbBytes(1, t), pbBytes(2, off),
      pbBytes(3, pbBytes(1, msg(pbBytes(1, 'ns'), pbVarint(2, 1), pbVarint(5, 1), pbVarint(6, 0)))));
    const res = await raw(server, 'CreateSearchIndex', create);
    assert.equal(res.status, 200);
    const onOff = (searchQuery) => client.search({ tableName: t, indexName: off, searchQuery: {
      query: Q.all(), limit: 0, ...searchQuery }, columnToGet: { returnType: RT.RETURN_NONE } });
    await expectOtsError(onOff({ aggs: { aggs: [agg('a', AT.AGG_SUM, { fieldName: 'ns' })] } }),
      400, 'OTSParameterInvalid', '[sum agg] field:ns must enable enable_sort_and_agg, but enable_sort_and_agg is not enabled');
    await expectOtsError(onOff({ groupBys: { groupBys: [field('g', 'ns')] } }),
      400, 'OTSParameterInvalid', '[groupby_field] field:ns must enable enable_sort_and_agg');
    const d = await client.describeSearchIndex({ tableName: t, indexName: off });
    assert.equal(d.schema.fieldSchemas[0].docValues, false);
    // Kept: the last test runs `ttlstore check` right after stopping the server, and a deleted
    // index's folder is removed by the search thread's next pass, which a stop can precede.
    await expectOtsError(run(Q.all(), { aggs: [agg('a', AT.AGG_SUM, { fieldName: 'k' })] }),
      400, 'OTSParameterInvalid', '[sum agg] field_name:k type:keyword is invalid, allow [long, double]');
    // Geo group-bys need a GeoPoint field (search_geo.test.mjs runs them).
    await expectOtsError(run(Q.all(), { groupBys: [{ name: 'g', type: GT.GROUP_BY_GEO_GRID, body: { fieldName: 'l', precision: 5 } }] }),
      400, 'OTSParameterInvalid', '[groupby_geo_grid] field_name:l type:long is invalid, allow [geo_point]');
    await expectOtsError(run(Q.all(), { groupBys: [{ name: 'g', type: GT.GROUP_BY_GEO_DISTANCE,
      body: { fieldName: 'l', origin: { lat: 1, lon: 2 }, ranges: [{ from: 0, to: 10 }] } }] }),
      400, 'OTSParameterInvalid', '[groupby_geo_distance] field_name:l type:long is invalid, allow [geo_point]');
    const six = [...Array(6).keys()].map((i) => agg(`a${i}`, AT.AGG_COUNT, { fieldName: 'l' }));
    await expectOtsError(run(Q.all(), { aggs: six }), 400, 'OTSParameterInvalid', 'exceeds the limit: 5');
    await expectOtsError(run(Q.all(), { aggs: [agg('a', AT.AGG_COUNT, { fieldName: 'l' }), agg('a', AT.AGG_SUM, { fieldName: 'l' })] }),
      400, 'OTSParameterInvalid', 'Duplicate aggregation or group-by name: a');
  });

  // Last: stops the server. The documents hold every array element in a slot of their own;
  // `ttlstore check` rebuilds each document from its row and finds them equal.
  it('ttlstore check finds the index, array slots included, consistent with the rows', async () => {
    await server.stop();
    check(server.dataDir);
  });
});
