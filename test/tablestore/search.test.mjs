// Search indexes through the official Node SDK (docs/tablestore.md, "Search indexes"): each
// call (CreateSearchIndex, DescribeSearchIndex, ListSearchIndex, UpdateSearchIndex,
// DeleteSearchIndex, Search, ComputeSplits, ParallelScan), each query type on real rows, sorts,
// limit/offset and next_token paging, total counts, each column return type, and the index
// following puts and deletes (near-real-time: polled for up to a few seconds).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { Long, Server, TableStore, condition, expectOtsError, num, uniqueName, waitFor } from './helpers.mjs';
import {
  Q, RT, idOf, parallelScanIds, search, searchIds, sorted, totalOf, waitCount,
} from './search_helpers.mjs';

const FT = TableStore.FieldType;
const ASC = TableStore.SortOrder.SORT_ORDER_ASC;
const DESC = TableStore.SortOrder.SORT_ORDER_DESC;
const N = 60;
const PHRASES = ['quick brown fox', 'lazy dog sleeps', 'brown dog runs quick'];

// The attributes of row i: what each query below is checked against.
function rowOf(i) {
  const cols = [
    { k: `key${i % 6}` },
    { n: Long.fromNumber(i) },
    { d: i / 4 },
    { b: i % 2 === 0 },
    { t: PHRASES[i % 3] },
    { extra: `not indexed ${i}` },
  ];
  if (i % 5 === 0) cols.push({ opt: `o${i}` });
  return cols;
}
const ids = (pred) => [...Array(N).keys()].filter(pred);

describe('tablestore search indexes', () => {
  let server;
  let client;
  const t = uniqueName('srch');
  const ix = 'ix_all';

  before(async () => {
    server = await Server.start({ args: ['--tablestore-min-ttl', '1'] });
    client = server.client();
    await client.createTable({
      tableMeta: { tableName: t, primaryKey: [{ name: 'id', type: 'INTEGER' }] },
      reservedThroughput: { capacityUnit: { read: 0, write: 0 } },
      tableOptions: { timeToLive: -1, maxVersions: 1 },
    });
    // Half the rows before the index (built from the table), half after (fed by the writes).
    const write = async (from, to) => {
      const rows = [];
      for (let i = from; i < to; i++) {
        rows.push({ type: 'PUT', condition: condition('IGNORE'), primaryKey: [{ id: Long.fromNumber(i) }],
          attributeColumns: rowOf(i) });
      }
      const r = await client.batchWriteRow({ tables: [{ tableName: t, rows }] });
      assert.ok(r.tables.every((x) => x.isOk));
    };
    await write(0, N / 2);
    await client.createSearchIndex({
      tableName: t, indexName: ix,
      schema: {
        fieldSchemas: [
          { fieldName: 'k', fieldType: FT.KEYWORD, index: true, enableSortAndAgg: true, store: true },
          { fieldName: 'n', fieldType: FT.LONG, index: true, enableSortAndAgg: true, store: true },
          { fieldName: 'd', fieldType: FT.DOUBLE, index: true, enableSortAndAgg: true, store: true },
          { fieldName: 'b', fieldType: FT.BOOLEAN, index: true, store: true },
          { fieldName: 't', fieldType: FT.TEXT, index: true, store: true, analyzer: 'single_word',
            analyzerParameter: { caseSensitive: false, delimitWord: false } },
          { fieldName: 'opt', fieldType: FT.KEYWORD, index: true, store: true },
        ],
      },
    });
    await write(N / 2, N);
    await waitCount(client, t, ix, N);
  });

  after(async () => {
    await server?.stop({ removeDir: true });
  });

  it('ListSearchIndex, DescribeSearchIndex', async () => {
    const all = await client.listSearchIndex({});
    assert.ok(all.indices.some((x) => x.tableName === t && x.indexName === ix));
    const one = await client.listSearchIndex({ tableName: t });
    assert.deepEqual(one.indices.map((x) => [x.tableName, x.indexName]), [[t, ix]]);

    const d = await client.describeSearchIndex({ tableName: t, indexName: ix });
    assert.deepEqual(d.schema.fieldSchemas.map((f) => [f.fieldName, f.fieldType]),
      [['k', FT.KEYWORD], ['n', FT.LONG], ['d', FT.DOUBLE], ['b', FT.BOOLEAN], ['t', FT.TEXT], ['opt', FT.KEYWORD]]);
    assert.equal(d.schema.fieldSchemas[0].docValues, true);
    assert.equal(d.schema.fieldSchemas[4].analyzer, 'single_word');
    assert.equal(d.timeToLive, -1);
    assert.equal(d.indexStatus.status, TableStore.IndexStatus.RUNNING);
    assert.equal(d.syncStat.syncPhase, 2);  // INCR once built
    assert.ok(num(d.createTime) > 0);
    assert.ok(d.meteringInfo);

    await expectOtsError(client.describeSearchIndex({ tableName: t, indexName: 'nope' }),
      404, 'OTSObjectNotExist', "Search index 'nope' does not exist.");
    await expectOtsError(client.describeSearchIndex({ tableName: 'no_such_table', indexName: ix }),
      404, 'OTSObjectNotExist', 'Requested table does not exist.');
    await expectOtsError(client.createSearchIndex({ tableName: t, indexName: ix,
      schema: { fieldSchemas: [{ fieldName: 'k', fieldType: FT.KEYWORD }] } }),
    409, 'OTSObjectAlreadyExist', `Search index '${ix}' already exists.`);
  });

  const check = async (query, expected) => {
    assert.deepEqual(sorted(await searchIds(client, t, ix, query)), expected);
  };

  it('Term, Terms, Range, Prefix, Wildcard, Exists', async () => {
    await check(Q.term('k', 'key2'), ids((i) => i % 6 === 2));
    await check(Q.term('n', Long.fromNumber(17)), [17]);
    await check(Q.term('b', true), ids((i) => i % 2 === 0));
    await check(Q.terms('k', ['key1', 'key3']), ids((i) => i % 6 === 1 || i % 6 === 3));
    await check(Q.range('n', Long.fromNumber(10), Long.fromNumber(20)), ids((i) => i >= 10 && i < 20));
    await check(Q.range('n', Long.fromNumber(10), Long.fromNumber(20), false, true), ids((i) => i > 10 && i <= 20));
    await check(Q.range('d', 5.0, undefined), ids((i) => i / 4 >= 5));
    await check(Q.prefix('k', 'key1'), ids((i) => i % 6 === 1));
    await check(Q.wildcard('k', '*3'), ids((i) => i % 6 === 3));
    await check(Q.wildcard('k', 'k?y*'), ids(() => true));
    await check(Q.exists('opt'), ids((i) => i % 5 === 0));
    await check(Q.all(), ids(() => true));
  });

  it('Bool must, must_not, filter, should', async () => {
    const q = Q.bool({
      must: [Q.term('b', true)],
      mustNot: [Q.range('n', Long.fromNumber(0), Long.fromNumber(10))],
      filter: [Q.prefix('k', 'key')],
      should: [Q.term('k', 'key0'), Q.term('k', 'key2')],
      minimumShouldMatch: 1,
    });
    await check(q, ids((i) => i % 2 === 0 && i >= 10 && (i % 6 === 0 || i % 6 === 2)));
    await check(Q.bool({ should: [Q.term('n', Long.fromNumber(1)), Q.term('n', Long.fromNumber(2))] }), [1, 2]);
    await check(Q.bool({ mustNot: [Q.exists('opt')] }), ids((i) => i % 5 !== 0));
  });

  it('Match and MatchPhrase on Text', async () => {
    await check(Q.match('t', 'quick'), ids((i) => i % 3 === 0 || i % 3 === 2));
    await check(Q.match('t', 'fox sleeps'), ids((i) => i % 3 !== 2));
    await check(Q.match('t', 'quick dog', { operator: TableStore.QueryOperator?.AND ?? 2 }), ids((i) => i % 3 === 2));
    await check(Q.phrase('t', 'brown fox'), ids((i) => i % 3 === 0));
    await check(Q.phrase('t', 'brown dog'), ids((i) => i % 3 === 2));
    await check(Q.phrase('t', 'dog brown'), []);
  });

  it('sorts by field and by primary key; limit and offset', async () => {
    const byN = await search(client, t, ix, Q.all(), { limit: 5, sort: [{ fieldSort: { fieldName: 'n', order: DESC } }] });
    assert.deepEqual(byN.rows.map(idOf), [59, 58, 57, 56, 55]);
    const byD = await search(client, t, ix, Q.range('n', Long.fromNumber(20), Long.fromNumber(30)),
      { limit: 3, sort: [{ fieldSort: { fieldName: 'd', order: ASC } }] });
    assert.deepEqual(byD.rows.map(idOf), [20, 21, 22]);
    const byK = await search(client, t, ix, Q.all(), { limit: 4,
      sort: [{ fieldSort: { fieldName: 'k', order: DESC } }, { primaryKeySort: { order: ASC } }] });
    assert.deepEqual(byK.rows.map(idOf), [5, 11, 17, 23]);
    const pkDesc = await search(client, t, ix, Q.all(), { limit: 3, sort: [{ primaryKeySort: { order: DESC } }] });
    assert.deepEqual(pkDesc.rows.map(idOf), [59, 58, 57]);
    const page = await search(client, t, ix, Q.all(), { offset: 10, limit: 5, sort: [{ primaryKeySort: { order: ASC } }] });
    assert.deepEqual(page.rows.map(idOf), [10, 11, 12, 13, 14]);
    // 1000 rows a page when every column comes from the index, 100 when the table is read.
    const big = await search(client, t, ix, Q.all(), { limit: 1000 });
    assert.equal(big.rows.length, N);
    await expectOtsError(search(client, t, ix, Q.all(), { limit: 101, columns: { returnType: RT.RETURN_ALL } }),
      400, 'OTSParameterInvalid', 'The limit must be in range [0, 100] when columns are read from the table, but was 101.');
    await expectOtsError(search(client, t, ix, Q.all(), { limit: 1001 }), 400, 'OTSParameterInvalid',
      'The limit must be in range [0, 1000], but was 1001.');
  });

  it('next_token pages cover every row exactly once; total counts', async () => {
    for (const sort of [undefined, [{ fieldSort: { fieldName: 'n', order: DESC } }],
      [{ fieldSort: { fieldName: 'k', order: ASC } }, { primaryKeySort: { order: DESC } }]]) {
      const got = await searchIds(client, t, ix, Q.all(), { limit: 7, sort });
      assert.equal(got.length, N);
      assert.deepEqual(sorted(got), ids(() => true));
      if (sort?.[0].fieldSort?.fieldName === 'n') assert.deepEqual(got.slice(0, 3), [59, 58, 57]);
    }
    const withCount = await search(client, t, ix, Q.term('k', 'key4'), { limit: 2, getTotalCount: true });
    assert.equal(Number(withCount.totalCounts), 10);
    assert.equal(withCount.rows.length, 2);
    const noCount = await search(client, t, ix, Q.term('k', 'key4'), { limit: 2 });
    assert.equal(noCount.totalCounts, undefined);
  });

  it('columns: RETURN_ALL, RETURN_SPECIFIED, RETURN_NONE, RETURN_ALL_FROM_INDEX', async () => {
    const q = Q.term('n', Long.fromNumber(10));
    const names = (r) => r.rows[0].attributes.map((a) => a.columnName).sort();
    const all = await search(client, t, ix, q, { columns: { returnType: RT.RETURN_ALL } });
    assert.deepEqual(names(all), ['b', 'd', 'extra', 'k', 'n', 'opt', 't']);
    assert.equal(all.rows[0].attributes.find((a) => a.columnName === 'k').columnValue, 'key4');
    const spec = await search(client, t, ix, q, { columns: { returnType: RT.RETURN_SPECIFIED, returnNames: ['n', 'extra'] } });
    assert.deepEqual(names(spec), ['extra', 'n']);
    const none = await search(client, t, ix, q, { columns: { returnType: RT.RETURN_NONE } });
    assert.deepEqual(none.rows.map(idOf), [10]);
    assert.equal((none.rows[0].attributes ?? []).length, 0);
    const fromIndex = await search(client, t, ix, q, { columns: { returnType: RT.RETURN_ALL_FROM_INDEX } });
    assert.deepEqual(names(fromIndex), ['b', 'd', 'k', 'n', 'opt', 't']);
  });

  it('ComputeSplits and ParallelScan return every row once', async () => {
    const { ids: got } = await parallelScanIds(client, t, ix, Q.all(), { limit: 13 });
    assert.deepEqual(sorted(got), ids(() => true));
    const { ids: some } = await parallelScanIds(client, t, ix, Q.term('k', 'key1'), { limit: 3 });
    assert.deepEqual(sorted(some), ids((i) => i % 6 === 1));
  });

  it('follows puts, updates and deletes near-real-time', async () => {
    await client.putRow({ tableName: t, condition: condition('IGNORE'), primaryKey: [{ id: Long.fromNumber(1000) }],
      attributeColumns: [{ k: 'fresh' }, { n: Long.fromNumber(1000) }] });
    await waitFor('new row searchable', async () => (await totalOf(client, t, ix, Q.term('k', 'fresh'))) === 1, { timeoutMs: 5000, intervalMs: 50 });
    await client.updateRow({ tableName: t, condition: condition('IGNORE'), primaryKey: [{ id: Long.fromNumber(1000) }],
      updateOfAttributeColumns: [{ PUT: [{ k: 'fresher' }] }] });
    await waitFor('update searchable', async () => (await totalOf(client, t, ix, Q.term('k', 'fresher'))) === 1 &&
      (await totalOf(client, t, ix, Q.term('k', 'fresh'))) === 0, { timeoutMs: 5000, intervalMs: 50 });
    await client.deleteRow({ tableName: t, condition: condition('IGNORE'), primaryKey: [{ id: Long.fromNumber(1000) }] });
    await waitFor('delete searchable', async () => (await totalOf(client, t, ix, Q.term('k', 'fresher'))) === 0, { timeoutMs: 5000, intervalMs: 50 });
    assert.equal(await totalOf(client, t, ix), N);
  });

  it('UpdateSearchIndex and DeleteSearchIndex', async () => {
    const other = 'ix_other';
    await client.createSearchIndex({ tableName: t, indexName: other,
      schema: { fieldSchemas: [{ fieldName: 'k', fieldType: FT.KEYWORD }] } });
    // allow_update is true: a TTL other than -1 is refused, -1 is accepted.
    await client.updateSearchIndex({ tableName: t, indexName: other, timeToLive: -1 });
    await client.deleteSearchIndex({ tableName: t, indexName: other });
    await expectOtsError(client.describeSearchIndex({ tableName: t, indexName: other }), 404, 'OTSObjectNotExist');
    await expectOtsError(client.deleteSearchIndex({ tableName: t, indexName: other }), 404, 'OTSObjectNotExist');
    const left = await client.listSearchIndex({ tableName: t });
    assert.deepEqual(left.indices.map((x) => x.indexName), [ix]);
  });
});
