// Search indexes as the service answers them (issue 31), through the official Node SDK and, for
// what it cannot send, raw requests (search_raw.mjs): the analyzers (single_word splits Chinese
// into characters: "杭州" -> "杭", "州"; case_sensitive and delimit_word; max_word on the Python
// SDK's full_text_search_test data; fuzzy on its search_index_test data), DescribeSearchIndex
// (sync timestamp in nanoseconds, create time in milliseconds, the default index sort, routing
// fields, include_sync_stat), routing fields and routing values, ComputeSplits and ParallelScan
// with the service's codes and texts (the Python SDK's parallel_scan_test, the Go SDK's
// search_api_test), and schema changes refused.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { Long, Server, TableStore, condition, decodeOtsError, expectOtsError, num, sleep, uniqueName } from './helpers.mjs';
import { Q, RT, search, waitCount } from './search_helpers.mjs';
import { msg, pbBytes, pbVarint, raw } from './search_raw.mjs';

const FT = TableStore.FieldType;
const NAMES = '马尔代夫巴厘岛苏梅岛';
const TEXTS = { 0: '我在杭州工作', 1: 'Hang Zhou is 杭州', 2: 'IPhone6 手机' };
const N = 100;

describe('search indexes as the service answers them', () => {
  let server;
  let client;
  const t = uniqueName('svc');
  const web = uniqueName('web');

  // pk2 of every row of the pages of `query` (pk2 is the row's number).
  const ids = async (tableName, indexName, query, extra = {}) => {
    const out = [];
    let token;
    for (let page = 0; page < 100; page++) {
      const r = await search(client, tableName, indexName, query, { limit: 100, token, ...extra });
      for (const row of r.rows) out.push(row.primaryKey.length > 1 ? num(row.primaryKey[1].value) : row.primaryKey[0].value);
      if (!r.nextToken || r.nextToken.length === 0) break;
      token = r.nextToken;
    }
    return out.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  };

  before(async () => {
    server = await Server.start();
    client = server.client();
    await client.createTable({
      tableMeta: { tableName: t, primaryKey: [{ name: 'pk1', type: 'STRING' }, { name: 'pk2', type: 'INTEGER' }] },
      reservedThroughput: { capacityUnit: { read: 0, write: 0 } },
      tableOptions: { timeToLive: -1, maxVersions: 1 },
    });
    await client.createSearchIndex({
      tableName: t, indexName: 'ix',
      schema: {
        fieldSchemas: [
          { fieldName: 't', fieldType: FT.TEXT, index: true, store: true },  // single_word by default
          { fieldName: 'cs', fieldType: FT.TEXT, index: true, analyzer: 'single_word',
            analyzerParameter: { caseSensitive: true, delimitWord: true } },
          { fieldName: 'name', fieldType: FT.TEXT, index: true, analyzer: 'fuzzy',
            analyzerParameter: { minChars: 1, maxChars: 7 } },
          { fieldName: 'n', fieldType: FT.LONG, index: true, enableSortAndAgg: true },
        ],
        indexSetting: { routingFields: ['pk2'] },
      },
    });
    for (let from = 0; from < N; from += 50) {
      const rows = [];
      for (let i = from; i < from + 50; i++) {
        rows.push({ type: 'PUT', condition: condition('IGNORE'),
          primaryKey: [{ pk1: `p${i % 10}` }, { pk2: Long.fromNumber(i) }],
          attributeColumns: [{ t: TEXTS[i] ?? `row ${i}` }, { cs: TEXTS[i] ?? `row ${i}` },
            { name: NAMES[Math.floor(i / 10)] + NAMES[i % 10] }, { n: Long.fromNumber(i) }] });
      }
      const r = await client.batchWriteRow({ tables: [{ tableName: t, rows }] });
      assert.ok(r.tables.every((x) => x.isOk));
    }
    // The Python SDK's full_text_search_test: four titles, max_word.
    await client.createTable({
      tableMeta: { tableName: web, primaryKey: [{ name: 'url', type: 'STRING' }] },
      reservedThroughput: { capacityUnit: { read: 0, write: 0 } },
      tableOptions: { timeToLive: -1, maxVersions: 1 },
    });
    const titles = {
      'http://a.com/001.html': '求推荐几款菊花茶店铺',
      'http://b.com/news/001.html': '秋天最适合饮用的几种花茶',
      'http://a.com/011.html': '苕溪边上有一大片野生菊花',
      'http://a.com/019.html': '菊花茶是一款大部分人都适合的经典花茶',
    };
    for (const [url, title] of Object.entries(titles)) {
      await client.putRow({ tableName: web, condition: condition('IGNORE'), primaryKey: [{ url }],
        attributeColumns: [{ title }] });
    }
    await client.createSearchIndex({ tableName: web, indexName: 'wix', schema: { fieldSchemas: [
      { fieldName: 'title', fieldType: FT.TEXT, index: true, analyzer: 'max_word' }] } });
    await waitCount(client, t, 'ix', N);
    await waitCount(client, web, 'wix', 4);
  });

  after(async () => {
    await server?.stop({ removeDir: true });
  });

  it('single_word splits Chinese into characters; case_sensitive and delimit_word', async () => {
    // The service's Tokenization page: "杭州" is tokenized into "杭" and "州", and a match of
    // "杭" finds it; "Hang Zhou" into "hang" and "zhou"; "IPhone6" stays one word.
    assert.deepEqual(await ids(t, 'ix', Q.match('t', '杭')), [0, 1]);
    assert.deepEqual(await ids(t, 'ix', Q.phrase('t', '杭州')), [0, 1]);
    assert.deepEqual(await ids(t, 'ix', Q.phrase('t', '州杭')), []);
    assert.deepEqual(await ids(t, 'ix', Q.phrase('t', '在杭州工')), [0]);
    assert.deepEqual(await ids(t, 'ix', Q.match('t', 'HANG')), [1]);
    assert.deepEqual(await ids(t, 'ix', Q.match('t', 'iphone')), []);
    assert.deepEqual(await ids(t, 'ix', Q.match('t', 'iphone6')), [2]);
    assert.deepEqual(await ids(t, 'ix', Q.match('t', '机')), [2]);
    // caseSensitive and delimitWord: "IPhone6" is "IPhone" and "6".
    assert.deepEqual(await ids(t, 'ix', Q.match('cs', 'iphone')), []);
    assert.deepEqual(await ids(t, 'ix', Q.match('cs', 'IPhone')), [2]);
    assert.deepEqual(await ids(t, 'ix', Q.match('cs', '6')), [2, 6]);  // and 'row 6'
    assert.deepEqual(await ids(t, 'ix', Q.match('cs', 'Hang')), [1]);
    assert.deepEqual(await ids(t, 'ix', Q.match('cs', 'hang')), []);
  });

  it('fuzzy: a phrase of one character finds it anywhere (Python search_index_test data)', async () => {
    const want = [...Array(N).keys()].filter((i) => Math.floor(i / 10) === 7 || i % 10 === 7);
    assert.deepEqual(await ids(t, 'ix', Q.phrase('name', '苏')), want);
    assert.deepEqual(await ids(t, 'ix', Q.phrase('name', '苏梅')), [78]);
  });

  it('max_word: character pairs (Python full_text_search_test data)', async () => {
    const count = async (query) => (await ids(web, 'wix', query)).length;
    assert.equal(await count(Q.match('title', '菊花茶')), 4);
    assert.equal(await count(Q.match('title', '梨花茶')), 3);
    assert.equal(await count(Q.match('title', '花茶')), 3);
    assert.equal(await count(Q.match('title', '菊花')), 3);
    assert.equal(await count(Q.match('title', '饮用花茶', { operator: TableStore.QueryOperator?.OR ?? 1 })), 3);
    assert.equal(await count(Q.match('title', '饮用花茶', { operator: TableStore.QueryOperator?.OR ?? 1, minimumShouldMatch: 2 })), 1);
    assert.equal(await count(Q.phrase('title', '野生菊花')), 1);
    assert.equal(await count(Q.phrase('title', '秋天菊花')), 0);
  });

  it('DescribeSearchIndex: nanosecond sync time, millisecond create time, default sort, routing', async () => {
    const before = Date.now();
    const d = await client.describeSearchIndex({ tableName: t, indexName: 'ix' });
    // current_sync_timestamp in nanoseconds (the service's SyncStat page; the Python SDK's
    // wait_for_search_index_ready divides it by 10^9).
    const syncMs = num(d.syncStat.currentSyncTimestamp) / 1e6;
    assert.ok(syncMs > before - 600000 && syncMs <= Date.now() + 1000, `sync ${d.syncStat.currentSyncTimestamp}`);
    // create_time in milliseconds (the DescribeSearchIndex reference).
    const created = num(d.createTime);
    assert.ok(created > before - 600000 && created <= Date.now(), `created ${created}`);
    // No index sort given: the primary key ascending is shown.
    assert.equal(d.schema.indexSort.sorter.length, 1);
    assert.ok(d.schema.indexSort.sorter[0].pkSort);
    assert.equal(d.schema.indexSort.sorter[0].pkSort.order ?? 0, TableStore.SortOrder.SORT_ORDER_ASC);
    assert.deepEqual(d.schema.indexSetting.routingFields, ['pk2']);
    assert.equal(d.schema.fieldSchemas[0].analyzer, 'single_word');

    const other = await client.describeSearchIndex({ tableName: web, indexName: 'wix' });
    assert.deepEqual(other.schema.indexSetting.routingFields, []);
    // include_sync_stat false (the Java SDK's setIncludeSyncStat): no sync stat.
    const res = await raw(server, 'DescribeSearchIndex', msg(pbBytes(1, t), pbBytes(2, 'ix'), pbVarint(3, 0)));
    assert.equal(res.status, 200);
    const decoded = TableStore.decoder.decodeDescribeSearchIndex(res.body);
    assert.equal(decoded.syncStat, null);
    assert.deepEqual(decoded.schema.indexSetting.routingFields, ['pk2']);
  });

  it('routing fields: primary-key columns only; routing values checked, never narrowing', async () => {
    const BAD = [400, 'OTSParameterInvalid'];
    const schema = (routingFields) => ({ fieldSchemas: [{ fieldName: 'n', fieldType: FT.LONG }], indexSetting: { routingFields } });
    await expectOtsError(client.createSearchIndex({ tableName: t, indexName: 'r1', schema: schema(['n']) }),
      ...BAD, "Routing field 'n' is not a primary key column of the table.");
    await expectOtsError(client.createSearchIndex({ tableName: t, indexName: 'r1', schema: schema(['pk2', 'pk2']) }),
      ...BAD, "Duplicated routing field: 'pk2'.");
    await client.createSearchIndex({ tableName: t, indexName: 'r2', schema: schema(['pk1', 'pk2']) });
    const d = await client.describeSearchIndex({ tableName: t, indexName: 'r2' });
    assert.deepEqual(d.schema.indexSetting.routingFields, ['pk1', 'pk2']);
    await client.deleteSearchIndex({ tableName: t, indexName: 'r2' });

    // One partition here: a routing value finds what the query finds (the Python SDK's
    // _test_search_with_routing_keys expects every match, not only the routed rows).
    const routed = await search(client, t, 'ix', Q.range('n', Long.fromNumber(10), Long.fromNumber(30)), { getTotalCount: true });
    const withRouting = await client.search({ tableName: t, indexName: 'ix',
      searchQuery: { query: Q.range('n', Long.fromNumber(10), Long.fromNumber(30)), limit: 100, getTotalCount: true },
      columnToGet: { returnType: RT.RETURN_NONE }, routingValues: [[{ pk2: Long.fromNumber(0) }]] });
    assert.equal(withRouting.totalCounts, routed.totalCounts);
    assert.equal(Number(withRouting.totalCounts), 20);
    const wrong = (routingValues) => client.search({ tableName: t, indexName: 'ix',
      searchQuery: { query: Q.all(), limit: 1 }, columnToGet: { returnType: RT.RETURN_NONE }, routingValues });
    const text = 'A routing value must hold the routing fields [pk2] of the search index';
    await expectOtsError(wrong([[{ pk1: 'p1' }]]), ...BAD, text);
    await expectOtsError(wrong([[{ pk2: 'not a number' }]]), ...BAD, text);
    await expectOtsError(wrong([[{ pk1: 'p1' }, { pk2: Long.fromNumber(1) }]]), ...BAD, text);
    // Without routing fields the partition key (the first primary-key column) routes.
    await client.createSearchIndex({ tableName: t, indexName: 'r3', schema: schema([]) });
    await client.search({ tableName: t, indexName: 'r3', searchQuery: { query: Q.all(), limit: 1 },
      columnToGet: { returnType: RT.RETURN_NONE }, routingValues: [[{ pk1: 'p1' }]] });
    await expectOtsError(client.search({ tableName: t, indexName: 'r3', searchQuery: { query: Q.all(), limit: 1 },
      columnToGet: { returnType: RT.RETURN_NONE }, routingValues: [[{ pk2: Long.fromNumber(1) }]] }),
    ...BAD, 'routing fields [pk1]');
    await client.deleteSearchIndex({ tableName: t, indexName: 'r3' });
  });

  it("ComputeSplits: one split for a small index; the service's codes for what is missing", async () => {
    const splits = await client.computeSplits({ tableName: t, searchIndexSplitsOptions: { indexName: 'ix' } });
    assert.equal(splits.splitsSize, 1);
    assert.ok(splits.sessionId.length > 0);
    await expectOtsError(client.computeSplits({ tableName: 'not_exist', searchIndexSplitsOptions: { indexName: 'ix' } }),
      400, 'OTSParameterInvalid', 'table [not_exist] does not exist');
    await expectOtsError(client.computeSplits({ tableName: t, searchIndexSplitsOptions: { indexName: 'not_exist' } }),
      400, 'OTSMetaNotMatch', 'search index [not_exist] does not exist');
    await expectOtsError(client.computeSplits({ tableName: t }),
      400, 'OTSParameterInvalid', '[search index splits options] must not be null');
  });

  it('ParallelScan: pages until an empty one, max_parallel bounded by the splits, alive_time', async () => {
    const { sessionId } = await client.computeSplits({ tableName: t, searchIndexSplitsOptions: { indexName: 'ix' } });
    const scan = (scanQuery) => client.parallelScan({ tableName: t, indexName: 'ix', sessionId,
      columnToGet: { returnType: RT.RETURN_ALL_FROM_INDEX }, scanQuery: { query: Q.all(), ...scanQuery } });
    // The Python SDK's test_parallel_scan_normal: 70, then 30 with a token, then none.
    const sizes = [];
    let token;
    for (let i = 0; i < 5; i++) {
      const r = await scan({ limit: 70, maxParallel: 1, currentParallelId: 0, token, aliveTime: 30 });
      sizes.push(r.rows.length);
      if (!r.nextToken || r.nextToken.length === 0) break;
      token = r.nextToken;
    }
    assert.deepEqual(sizes, [70, 30, 0]);
    await expectOtsError(scan({ limit: 70, maxParallel: 2, currentParallelId: 0 }), 400, 'OTSParameterInvalid',
      '[parallel_scan.max_parallel_id] must in (0 ,1], current max_parallel_id is 2');
    await expectOtsError(scan({ limit: 700, maxParallel: 1, currentParallelId: 101 }), 400, 'OTSParameterInvalid',
      '[parallel_scan.current_parallel_id] must in [0, max_parallel), current max_parallel is 1, current_parallel_id is 101');
    // A token past its alive_time: the service's OTSSessionExpired.
    const first = await scan({ limit: 10, maxParallel: 1, currentParallelId: 0, aliveTime: 1 });
    await sleep(2100);
    await expectOtsError(scan({ limit: 10, maxParallel: 1, currentParallelId: 0, aliveTime: 1, token: first.nextToken }),
      400, 'OTSSessionExpired', "ScanQuery'session is expired, please retry ComputeSplitsRequest and ScanQuery.");
  });

  it('split and fuzzy case_sensitive (raw CreateSearchIndex: the Node SDK has no such parameter)', async () => {
    // FieldSchema { 1 name, 2 type TEXT(5), 4 analyzer, 10 parameter }.
    const field = (name, analyzer, parameter) =>
      pbBytes(1, msg(pbBytes(1, name), pbVarint(2, 5), pbBytes(4, analyzer), pbBytes(10, parameter)));
    const create = msg(pbBytes(1, t), pbBytes(2, 'cases'), pbBytes(3, msg(
      field('t', 'split', msg(pbBytes(1, ' '), pbVarint(2, 1))),             // delimiter, case_sensitive
      field('name', 'fuzzy', msg(pbVarint(1, 1), pbVarint(2, 3), pbVarint(3, 1))))));  // min, max, case_sensitive
    const res = await raw(server, 'CreateSearchIndex', create);
    assert.equal(res.status, 200, JSON.stringify(decodeOtsError(res.body)));
    await waitCount(client, t, 'cases', N);
    assert.deepEqual(await ids(t, 'cases', Q.match('t', 'Hang')), [1]);
    assert.deepEqual(await ids(t, 'cases', Q.match('t', 'hang')), []);
    await client.deleteSearchIndex({ tableName: t, indexName: 'cases' });
  });

  it('schema changes by UpdateSearchIndex are refused, never ignored', async () => {
    // UpdateSearchIndexRequest { 1 table, 2 index, 3 switch_index_name, 6 added_field_schemas }.
    for (const extra of [pbBytes(3, 'ix_reindex'), pbBytes(6, msg(pbBytes(1, 'z'), pbVarint(2, 1)))]) {
      const res = await raw(server, 'UpdateSearchIndex', msg(pbBytes(1, t), pbBytes(2, 'ix'), extra));
      assert.equal(res.status, 400);
      const err = decodeOtsError(res.body);
      assert.equal(err.code, 'OTSParameterInvalid');
      assert.match(err.message, /not supported by ttlstore/);
    }
  });
});
