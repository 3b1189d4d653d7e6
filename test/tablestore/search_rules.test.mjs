// The lifetime rules of search indexes (T11, T12; docs/tablestore.md, "Search indexes") with
// their exact codes and messages, the index's own TTL (rows past it vanish from Search at once
// and are purged later) and the table's TTL (hides rows from table and index), field types that
// are refused, and hostile queries (absurd nesting, clause and term counts) that must be
// refused without harm to the server.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import {
  Long, Server, TableStore, condition, decodeOtsError, expectOtsError, num, signedPost, sleep, uniqueName, waitFor,
} from './helpers.mjs';
import { Q, RT, search, totalOf, waitCount } from './search_helpers.mjs';

const FT = TableStore.FieldType;

// Protobuf by hand, for requests the SDK cannot build.
function varintBytes(n) {
  const out = [];
  while (n >= 0x80) { out.push((n % 0x80) | 0x80); n = Math.floor(n / 0x80); }
  out.push(n);
  return Buffer.from(out);
}
const pbVarint = (field, n) => Buffer.concat([varintBytes(field * 8), varintBytes(n)]);
const pbBytes = (field, b) => Buffer.concat([varintBytes(field * 8 + 2), varintBytes(b.length), b]);
// A Query of `levels` Bool queries, each the one must clause of the one above (built in linear
// time: sizes bottom-up, bytes top-down).
function deepBool(levels) {
  const vlen = (n) => varintBytes(n).length;
  const q = [4];  // innermost: type 6, empty bytes
  const b = [0];
  for (let i = 1; i <= levels; i++) {
    b[i] = 1 + vlen(q[i - 1]) + q[i - 1];
    q[i] = 3 + vlen(b[i]) + b[i];
  }
  const out = Buffer.alloc(q[levels]);
  let p = 0;
  const put = (bytes) => { bytes.copy(out, p); p += bytes.length; };
  for (let i = levels; i >= 1; i--) {
    put(Buffer.from([0x08, 0x06, 0x12]));
    put(varintBytes(b[i]));
    put(Buffer.from([0x0a]));
    put(varintBytes(q[i - 1]));
  }
  put(Buffer.from([0x08, 0x06, 0x12, 0x00]));
  return out;
}
const BAD = [400, 'OTSParameterInvalid'];

describe('tablestore search index rules (T11, T12)', () => {
  let server;
  let client;

  before(async () => {
    server = await Server.start({ args: ['--tablestore-min-ttl', '1'] });
    client = server.client();
  });

  after(async () => {
    await server?.stop({ removeDir: true });
  });

  const table = async (tableOptions) => {
    const name = uniqueName('srule');
    await client.createTable({
      tableMeta: { tableName: name, primaryKey: [{ name: 'id', type: 'INTEGER' }] },
      reservedThroughput: { capacityUnit: { read: 0, write: 0 } },
      tableOptions,
    });
    return name;
  };
  const index = (tableName, indexName, { timeToLive, fields } = {}) => client.createSearchIndex({
    tableName, indexName, timeToLive,
    schema: { fieldSchemas: fields ?? [{ fieldName: 'k', fieldType: FT.KEYWORD }] },
  });
  const options = (tableName, tableOptions) => client.updateTable({ tableName, tableOptions });
  const put = (t, i, k, extra = {}) => client.putRow({
    tableName: t, condition: condition('IGNORE'), primaryKey: [{ id: Long.fromNumber(i) }],
    attributeColumns: [{ k }], ...extra,
  });

  it('refuses bad schemas (Vector, GeoPoint and Nested fields are served)', async () => {
    const t = await table({ timeToLive: -1, maxVersions: 1 });
    // A Vector field is a column of the table, never a sub-field of a Nested field (Chosen).
    await expectOtsError(index(t, 'ix', { fields: [{ fieldName: 'n', fieldType: FT.NESTED, fieldSchemas: [
      { fieldName: 'v', fieldType: FT.VECTOR, index: true, vectorOptions: { dataType: 2, dimension: 4, metricType: 0 } },
    ] }] }), ...BAD, "Vector field 'v' can't be a sub-field of a Nested field.");
    await expectOtsError(index(t, 'ix', { fields: [{ fieldName: 'k', fieldType: FT.KEYWORD }, { fieldName: 'k', fieldType: FT.LONG }] }),
      ...BAD, "Duplicated field name: 'k'.");
    await expectOtsError(index(t, 'ix', { fields: [{ fieldName: 't', fieldType: FT.TEXT, enableSortAndAgg: true }] }),
      ...BAD, "Text field 't' can't enable sort and agg.");
    await expectOtsError(index(t, '1bad'), ...BAD, "Invalid index name: '1bad'.");
    await expectOtsError(index('no_such_table', 'ix'), 404, 'OTSObjectNotExist');
  });

  it('T12: an index needs max versions 1, which then cannot change', async () => {
    const t = await table({ timeToLive: -1, maxVersions: 2 });
    await expectOtsError(index(t, 'ix'), ...BAD, 'The max versions of a table with indexes must be 1.');
    await options(t, { maxVersions: 1 });
    await index(t, 'ix');
    await expectOtsError(options(t, { maxVersions: 3 }), ...BAD,
      'The max versions of a table with indexes must be 1.');
  });

  it('T12: a table with an index and a TTL must disallow updates; its TTL changes only then', async () => {
    const t = await table({ timeToLive: 100, maxVersions: 1 });
    await expectOtsError(index(t, 'ix', { timeToLive: 50 }), ...BAD,
      "Don't support allow update operation on table with index and ttl");
    const t2 = await table({ timeToLive: -1, maxVersions: 1 });
    await index(t2, 'ix');
    await expectOtsError(options(t2, { timeToLive: 100 }), ...BAD,
      "Don't support allow update operation on table with index and ttl");
    // A search-index TTL needs allow_update false too.
    await expectOtsError(client.updateSearchIndex({ tableName: t2, indexName: 'ix', timeToLive: 100 }), ...BAD,
      "The time to live of a search index can be set only when the table's allow_update is false or its update_full_row is true.");
    await options(t2, { allowUpdate: false });
    await client.updateSearchIndex({ tableName: t2, indexName: 'ix', timeToLive: 100 });
    await options(t2, { timeToLive: 200 });
    const d = await client.describeSearchIndex({ tableName: t2, indexName: 'ix' });
    assert.equal(d.timeToLive, 100);
  });

  it('T11: the table TTL must stay >= every search index TTL', async () => {
    const t = await table({ timeToLive: 1000, maxVersions: 1, allowUpdate: false });
    await expectOtsError(index(t, 'big', { timeToLive: 2000 }), ...BAD,
      '[table ttl] must be bigger than or equal search index ttl, but table ttl is 1000 and search index ttl is [big:2000]');
    await expectOtsError(index(t, 'forever'), ...BAD,
      '[table ttl] must be bigger than or equal search index ttl, but table ttl is 1000 and search index ttl is [forever:-1]');
    await index(t, 'ix', { timeToLive: 500 });
    await expectOtsError(options(t, { timeToLive: 400 }), ...BAD,
      '[table ttl] must be bigger than or equal search index ttl, but table ttl is 400 and search index ttl is [ix:500]');
    await expectOtsError(client.updateSearchIndex({ tableName: t, indexName: 'ix', timeToLive: 1001 }), ...BAD,
      '[table ttl] must be bigger than or equal search index ttl, but table ttl is 1000 and search index ttl is [ix:1001]');
    await expectOtsError(client.updateSearchIndex({ tableName: t, indexName: 'ix', timeToLive: 0 }), ...BAD,
      'TimeToLive cannot be 0 or less than -1.');
    // Lower the index first, then the table (the service's documented order).
    await client.updateSearchIndex({ tableName: t, indexName: 'ix', timeToLive: 300 });
    await options(t, { timeToLive: 400 });
    await options(t, { timeToLive: -1 });
    const desc = await client.describeTable({ tableName: t });
    assert.equal(desc.tableOptions.timeToLive, -1);
  });

  it("an index's TTL hides rows from Search at once; the purge removes them later", async () => {
    const t = await table({ timeToLive: -1, maxVersions: 1, allowUpdate: false });
    await index(t, 'ix', { timeToLive: 3 });
    for (let i = 0; i < 5; i++) await put(t, i, 'old');
    await waitCount(client, t, 'ix', 5);
    await sleep(3200);
    // Past the index's TTL: gone from Search, still in the table.
    assert.equal(await totalOf(client, t, 'ix'), 0);
    const r = await search(client, t, 'ix', Q.term('k', 'old'), { columns: { returnType: RT.RETURN_ALL } });
    assert.equal(r.rows.length, 0);
    const row = await client.getRow({ tableName: t, primaryKey: [{ id: Long.fromNumber(0) }], maxVersions: 1 });
    assert.equal(row.row.attributes[0].columnValue, 'old');
    // A fresh row is searchable.
    await put(t, 10, 'new');
    await waitCount(client, t, 'ix', 1);
    // The purge removes the expired documents.
    await waitFor('expired documents purged', async () => {
      const d = await client.describeSearchIndex({ tableName: t, indexName: 'ix' });
      return num(d.meteringInfo.rowCount) === 1;
    }, { timeoutMs: 15000, intervalMs: 250 });
  });

  it("the table's TTL hides rows from the table and the index", async () => {
    const t = await table({ timeToLive: 3, maxVersions: 1, allowUpdate: false });
    await index(t, 'ix', { timeToLive: 3 });
    for (let i = 0; i < 4; i++) await put(t, i, 'x');
    await waitCount(client, t, 'ix', 4);
    await sleep(3200);
    assert.equal(await totalOf(client, t, 'ix'), 0);
    const row = await client.getRow({ tableName: t, primaryKey: [{ id: Long.fromNumber(1) }], maxVersions: 1 });
    assert.ok(!row.row || !row.row.attributes || row.row.attributes.length === 0);
  });

  it('refuses absurd queries without harm', async () => {
    const t = await table({ timeToLive: -1, maxVersions: 1 });
    await index(t, 'ix');
    await put(t, 1, 'a');
    let q = Q.term('k', 'a');
    for (let d = 0; d < 200; d++) q = Q.bool({ must: [q] });
    await expectOtsError(search(client, t, 'ix', q), ...BAD, 'nests too deeply');
    // Deeper than the SDK can encode: raw bytes, 200,000 Bool levels (about 1.6 MB).
    const searchQuery = Buffer.concat([pbBytes(4, deepBool(200000)), pbVarint(2, 10)]);
    const body = Buffer.concat([pbBytes(1, Buffer.from(t)), pbBytes(2, Buffer.from('ix')),
      pbBytes(3, pbVarint(1, 3)), pbBytes(4, searchQuery)]);
    const res = await signedPost(server.port, 'Search', body);
    assert.equal(res.status, 400);
    assert.match(decodeOtsError(res.body).message, /nests too deeply/);
    const wide = Q.bool({ should: Array.from({ length: 5000 }, () => Q.term('k', 'a')) });
    await expectOtsError(search(client, t, 'ix', wide), ...BAD, 'too many queries in bool_query');
    const terms = Q.terms('k', Array.from({ length: 20000 }, (_, i) => `v${i}`));
    await expectOtsError(search(client, t, 'ix', terms), ...BAD, '[terms_query] the number of terms');
    await expectOtsError(search(client, t, 'ix', Q.all(), { offset: 99990, limit: 100 }), ...BAD, 'offset and limit');
    await expectOtsError(search(client, t, 'ix', { queryType: TableStore.QueryType.GEO_DISTANCE_QUERY,
      query: { fieldName: 'k', centerPoint: '1,1', distance: 1 } }), ...BAD, 'not supported');
    await expectOtsError(client.parallelScan({ tableName: t, indexName: 'ix', sessionId: Buffer.alloc(0),
      columnToGet: { returnType: RT.RETURN_NONE },
      scanQuery: { query: Q.all(), limit: 10, maxParallel: 1, currentParallelId: 5 } }), ...BAD, 'current_parallel_id');
    // Still serving.
    await waitCount(client, t, 'ix', 1);
  });
});
