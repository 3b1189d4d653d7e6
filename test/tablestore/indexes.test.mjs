// Secondary indexes through the official Node SDK (docs/tablestore.md, "Secondary indexes"):
// predefined columns, index_metas at CreateTable, CreateIndex (with and without the base data),
// DropIndex, DescribeTable; reads of an index by name (GetRow, GetRange, BatchGetRow) with the
// index columns then the table's remaining primary key, and the index's defined columns;
// index rows following every put, update, delete and the TTL; writes to an index refused; and
// the lifetime rules T11/T12 with their exact codes and messages.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';

import {
  ACCESS_KEY, Long, SECRET, Server, TableStore, TTLSTORE_BIN, cells, condition, expectOtsError, pkOf, sleep,
  uniqueName, values, waitFor,
} from './helpers.mjs';

const DCT = TableStore.DefinedColumnType ?? { DCT_INTEGER: 1, DCT_DOUBLE: 2, DCT_BOOLEAN: 3, DCT_STRING: 4, DCT_BLOB: 7 };
const INF_MIN = TableStore.INF_MIN;
const INF_MAX = TableStore.INF_MAX;
const G_PK = ['email', 'region', 'id'];
const L_PK = ['region', 'age', 'id'];
const GLOBAL = TableStore.IndexType.IT_GLOBAL_INDEX;
const LOCAL = TableStore.IndexType.IT_LOCAL_INDEX;

describe('tablestore secondary indexes (T11, T12)', () => {
  let server;
  let client;

  before(async () => {
    // TTLs of a few seconds, so that expiry can be watched.
    server = await Server.start({ args: ['--tablestore-min-ttl', '1'] });
    client = server.client();
  });

  after(async () => {
    await server?.stop({ removeDir: true });
  });

  const create = (name, { tableOptions = { timeToLive: -1, maxVersions: 1 }, indexMetas } = {}) =>
    client.createTable({
      tableMeta: {
        tableName: name,
        primaryKey: [{ name: 'region', type: 'STRING' }, { name: 'id', type: 'INTEGER' }],
        definedColumn: [
          { name: 'email', type: DCT.DCT_STRING },
          { name: 'age', type: DCT.DCT_INTEGER },
          { name: 'score', type: DCT.DCT_DOUBLE },
        ],
      },
      reservedThroughput: { capacityUnit: { read: 0, write: 0 } },
      tableOptions,
      indexMetas,
    });
  const byEmail = (name = 'idx_email') => ({ name, primaryKey: ['email'], definedColumn: ['age'] });
  const put = (t, region, id, cols) => client.putRow({
    tableName: t, condition: condition('IGNORE'), primaryKey: [{ region }, { id: Long.fromNumber(id) }],
    attributeColumns: cols,
  });
  // Every row of table or index `t`, whose primary key is `names`.
  const scan = async (t, names = G_PK) => {
    const start = names.map((n) => ({ [n]: INF_MIN }));
    const end = names.map((n) => ({ [n]: INF_MAX }));
    const data = await client.getRange({
      tableName: t, direction: TableStore.Direction.FORWARD,
      inclusiveStartPrimaryKey: start, exclusiveEndPrimaryKey: end, limit: 1000,
    });
    return data.rows.map((r) => [pkOf(r).map(([n, v]) => `${n}=${v}`).join(','), values(r)]);
  };

  it('CreateTable with predefined columns and indexMetas; DescribeTable lists both', async () => {
    const t = uniqueName('ix');
    await create(t, {
      indexMetas: [
        byEmail(`${t}_g`),
        { name: `${t}_l`, primaryKey: ['region', 'age'], definedColumn: ['email', 'score'], indexType: LOCAL,
          indexUpdateMode: TableStore.IndexUpdateMode.IUM_SYNC_INDEX },
      ],
    });
    const d = await client.describeTable({ tableName: t });
    assert.deepEqual(d.tableMeta.definedColumn.map((c) => [c.name, c.type]),
      [['email', DCT.DCT_STRING], ['age', DCT.DCT_INTEGER], ['score', DCT.DCT_DOUBLE]]);
    assert.equal(d.indexMetas.length, 2);
    const [g, l] = d.indexMetas;
    assert.equal(g.name, `${t}_g`);
    assert.deepEqual(g.primaryKey, ['email']);
    assert.deepEqual(g.definedColumn, ['age']);
    assert.equal(g.indexType, GLOBAL);
    assert.equal(g.indexUpdateMode, TableStore.IndexUpdateMode.IUM_ASYNC_INDEX);
    assert.equal(g.indexSyncPhase, TableStore.SyncPhase.INCR);  // ISP_INCR: built
    assert.equal(l.indexType, LOCAL);
    assert.equal(l.indexUpdateMode, TableStore.IndexUpdateMode.IUM_SYNC_INDEX);
    assert.deepEqual(l.primaryKey, ['region', 'age']);
    // An index is described by its name too, as a table whose primary key is the index's.
    const di = await client.describeTable({ tableName: `${t}_g` });
    assert.deepEqual(di.tableMeta.primaryKey.map((c) => c.name), ['email', 'region', 'id']);
    // ListTable lists tables, not indexes (Chosen).
    const list = await client.listTable({});
    assert.ok(list.tableNames.includes(t));
    assert.ok(!list.tableNames.includes(`${t}_g`));
  });

  it('index rows follow puts, updates and deletes; read by GetRange, GetRow and BatchGetRow', async () => {
    const t = uniqueName('ix');
    const g = `${t}_g`;
    const l = `${t}_l`;
    await create(t, {
      indexMetas: [byEmail(g),
        { name: l, primaryKey: ['region', 'age'], definedColumn: ['email'], indexType: LOCAL }],
    });
    await put(t, 'eu', 1, [{ email: 'b@x' }, { age: Long.fromNumber(30) }, { other: 'o' }]);
    await put(t, 'eu', 2, [{ email: 'a@x' }, { age: Long.fromNumber(40) }]);
    await put(t, 'us', 3, [{ age: Long.fromNumber(50) }]);  // no email: not in the global index
    assert.deepEqual(await scan(g), [
      ['email=a@x,region=eu,id=2', [['age', 40n]]],
      ['email=b@x,region=eu,id=1', [['age', 30n]]],
    ]);
    assert.deepEqual(await scan(l, L_PK), [
      ['region=eu,age=30,id=1', [['email', 'b@x']]],
      ['region=eu,age=40,id=2', [['email', 'a@x']]],
      ['region=us,age=50,id=3', []],
    ]);
    // GetRow by the index's primary key.
    const got = await client.getRow({
      tableName: g, primaryKey: [{ email: 'b@x' }, { region: 'eu' }, { id: Long.fromNumber(1) }],
    });
    assert.deepEqual(pkOf(got.row), [['email', 'b@x'], ['region', 'eu'], ['id', 1n]]);
    assert.deepEqual(values(got.row), [['age', 30n]]);
    // The index row carries the table cell's timestamp.
    const base = await client.getRow({ tableName: t, primaryKey: [{ region: 'eu' }, { id: Long.fromNumber(1) }] });
    const baseAge = cells(base.row).find(([n]) => n === 'age');
    assert.equal(cells(got.row)[0][2], baseAge[2]);
    // BatchGetRow over the table and an index at once.
    const batch = await client.batchGetRow({
      tables: [
        { tableName: g, primaryKey: [[{ email: 'a@x' }, { region: 'eu' }, { id: Long.fromNumber(2) }],
                                     [{ email: 'zz' }, { region: 'eu' }, { id: Long.fromNumber(2) }]] },
        { tableName: t, primaryKey: [[{ region: 'eu' }, { id: Long.fromNumber(2) }]] },
      ],
    });
    assert.ok(batch.tables[0][0].isOk);
    assert.deepEqual(values(batch.tables[0][0]), [['age', 40n]]);
    assert.equal(batch.tables[0][1].primaryKey, null);
    assert.ok(batch.tables[1][0].isOk);

    // A put changing the indexed column moves the row; UpdateRow too; a delete removes it.
    await put(t, 'eu', 1, [{ email: 'c@x' }, { age: Long.fromNumber(31) }]);
    await client.updateRow({
      tableName: t, condition: condition('IGNORE'), primaryKey: [{ region: 'eu' }, { id: Long.fromNumber(2) }],
      updateOfAttributeColumns: [{ PUT: [{ email: 'd@x' }] }],
    });
    assert.deepEqual(await scan(g), [
      ['email=c@x,region=eu,id=1', [['age', 31n]]],
      ['email=d@x,region=eu,id=2', [['age', 40n]]],
    ]);
    await client.updateRow({
      tableName: t, condition: condition('IGNORE'), primaryKey: [{ region: 'eu' }, { id: Long.fromNumber(2) }],
      updateOfAttributeColumns: [{ DELETE_ALL: ['email'] }],
    });
    await client.deleteRow({
      tableName: t, condition: condition('IGNORE'), primaryKey: [{ region: 'eu' }, { id: Long.fromNumber(1) }],
    });
    assert.deepEqual(await scan(g), []);
    assert.deepEqual((await scan(l, L_PK)).map(([k]) => k), ['region=eu,age=40,id=2', 'region=us,age=50,id=3']);
  });

  it('writes to an index are refused with OTSParameterInvalid', async () => {
    const t = uniqueName('ix');
    const g = `${t}_g`;
    await create(t, { indexMetas: [byEmail(g)] });
    const pk = [{ email: 'a' }, { region: 'eu' }, { id: Long.fromNumber(1) }];
    const msg = `Index table ${g} is read-only: write to its main table instead.`;
    await expectOtsError(client.putRow({ tableName: g, condition: condition('IGNORE'), primaryKey: pk,
      attributeColumns: [{ age: Long.fromNumber(1) }] }), 400, 'OTSParameterInvalid', msg);
    await expectOtsError(client.updateRow({ tableName: g, condition: condition('IGNORE'), primaryKey: pk,
      updateOfAttributeColumns: [{ PUT: [{ age: Long.fromNumber(1) }] }] }), 400, 'OTSParameterInvalid', msg);
    await expectOtsError(client.deleteRow({ tableName: g, condition: condition('IGNORE'), primaryKey: pk }),
      400, 'OTSParameterInvalid', msg);
    const bw = await client.batchWriteRow({ tables: [{ tableName: g, rows: [
      { type: 'PUT', condition: condition('IGNORE'), primaryKey: pk, attributeColumns: [{ age: Long.fromNumber(1) }] },
    ] }] });
    assert.equal(bw.tables[0].isOk, false);
    assert.equal(bw.tables[0].errorCode, 'OTSParameterInvalid');
    assert.equal(bw.tables[0].errorMessage, msg);
    await expectOtsError(client.deleteTable({ tableName: g }), 400, 'OTSParameterInvalid',
      `Table ${g} is an index: drop it with DropIndex.`);
    assert.deepEqual(await scan(g), []);
  });

  it('CreateIndex with include_base_data backfills existing rows; without, indexes new writes only', async () => {
    const t = uniqueName('ix');
    await create(t);
    for (let i = 0; i < 300; i++) await put(t, 'eu', i, [{ email: `m${1000 + i}` }, { age: Long.fromNumber(i) }]);
    await client.createIndex({ mainTableName: t, indexMeta: byEmail(`${t}_full`), includeBaseData: true });
    await client.createIndex({ mainTableName: t, indexMeta: byEmail(`${t}_new`), includeBaseData: false });
    await put(t, 'eu', 1000, [{ email: 'late' }]);
    await waitFor('backfill', async () => {
      const d = await client.describeTable({ tableName: t });
      return d.indexMetas.every((m) => m.indexSyncPhase === TableStore.SyncPhase.INCR);
    });
    const full = await scan(`${t}_full`);
    assert.equal(full.length, 301);
    assert.deepEqual(full[0], ['email=late,region=eu,id=1000', []]);
    assert.deepEqual(full[1], ['email=m1000,region=eu,id=0', [['age', 0n]]]);
    assert.deepEqual(await scan(`${t}_new`), [['email=late,region=eu,id=1000', []]]);
  });

  it('DropIndex removes the index; DeleteTable removes the table with its indexes', async () => {
    const t = uniqueName('ix');
    const g = `${t}_g`;
    await create(t, { indexMetas: [byEmail(g)] });
    await put(t, 'eu', 1, [{ email: 'a' }]);
    await expectOtsError(client.dropIndex({ mainTableName: t, indexName: 'nope' }),
      404, 'OTSObjectNotExist', 'Requested table does not exist.');
    await client.dropIndex({ mainTableName: t, indexName: g });
    const d = await client.describeTable({ tableName: t });
    assert.equal(d.indexMetas.length, 0);
    await expectOtsError(scan(g), 404, 'OTSObjectNotExist', 'Requested table does not exist.');
    // The name is free again, and the new index starts empty of the old one's rows.
    await client.createIndex({ mainTableName: t, indexMeta: byEmail(g), includeBaseData: false });
    assert.deepEqual(await scan(g), []);
    await client.deleteTable({ tableName: t });
    await expectOtsError(client.describeTable({ tableName: g }), 404, 'OTSObjectNotExist');
  });

  it('refuses what the service refuses, with its code and message (T12 and the index limits)', async () => {
    const P = 'OTSParameterInvalid';
    await expectOtsError(create(uniqueName('ix'), { tableOptions: { timeToLive: -1, maxVersions: 2 }, indexMetas: [byEmail(uniqueName('i'))] }),
      400, P, 'The max versions of a table with indexes must be 1.');
    await expectOtsError(create(uniqueName('ix'), { tableOptions: { timeToLive: 86400, maxVersions: 1 }, indexMetas: [byEmail(uniqueName('i'))] }),
      400, P, "Don't support allow update operation on table with index and ttl");
    const t = uniqueName('ix');
    await create(t);
    const ci = (indexMeta) => client.createIndex({ mainTableName: t, indexMeta });
    await expectOtsError(ci({ name: uniqueName('i'), primaryKey: ['nope'], definedColumn: [] }), 400, P,
      "Index column 'nope' is neither a primary key column nor a predefined column.");
    await expectOtsError(ci({ name: uniqueName('i'), primaryKey: ['score'], definedColumn: [] }), 400, P,
      "Index column 'score' must be of type STRING, INTEGER or BINARY.");
    await expectOtsError(ci({ name: uniqueName('i'), primaryKey: ['email'], definedColumn: ['region'] }), 400, P,
      "Index attribute column 'region' is not a predefined column.");
    await expectOtsError(ci({ name: uniqueName('i'), primaryKey: ['email', 'email'], definedColumn: [] }), 400, P,
      "Duplicated index column: 'email'.");
    await expectOtsError(ci({ name: uniqueName('i'), primaryKey: [], definedColumn: [] }), 400, P,
      'The number of primary key columns must be in range: [1, 4] in index.');
    await expectOtsError(ci({ name: uniqueName('i'), primaryKey: ['email'], definedColumn: [], indexType: LOCAL }), 400, P,
      'The first primary key column of a local index must be the first primary key column of the table.');
    await expectOtsError(ci({ name: '1bad', primaryKey: ['email'], definedColumn: [] }), 400, P, "Invalid index name: '1bad'.");
    await expectOtsError(ci({ name: t, primaryKey: ['email'], definedColumn: [] }), 409, 'OTSObjectAlreadyExist',
      'Requested table already exists.');
    await expectOtsError(create(`${t}_taken`, { indexMetas: [byEmail(`${t}_taken`)] }), 409, 'OTSObjectAlreadyExist',
      'Requested table already exists.');
    await expectOtsError(client.createIndex({ mainTableName: uniqueName('none'), indexMeta: byEmail(uniqueName('i')) }),
      404, 'OTSObjectNotExist', 'Requested table does not exist.');
    for (let i = 0; i < 5; i++) await ci(byEmail(`${t}_${i}`));
    await expectOtsError(ci(byEmail(`${t}_5`)), 400, P, 'Number of index per table exceeds the quota:5.');
    await expectOtsError(ci(byEmail(`${t}_0`)), 409, 'OTSObjectAlreadyExist', 'Requested table already exists.');
    await expectOtsError(create(`${t}_0`), 409, 'OTSObjectAlreadyExist', 'Requested table already exists.');

    // T12 on UpdateTable: max versions stays 1; a TTL needs allow_update false first.
    await expectOtsError(client.updateTable({ tableName: t, tableOptions: { maxVersions: 2 } }), 400, P,
      'The max versions of a table with indexes must be 1.');
    await expectOtsError(client.updateTable({ tableName: t, tableOptions: { timeToLive: 86400 } }), 400, P,
      "Don't support allow update operation on table with index and ttl");
    await client.updateTable({ tableName: t, tableOptions: { allowUpdate: false } });
    const u = await client.updateTable({ tableName: t, tableOptions: { timeToLive: 86400 } });
    assert.equal(u.tableOptions.timeToLive, 86400);
    await expectOtsError(client.updateTable({ tableName: t, tableOptions: { allowUpdate: true } }), 400, P,
      "Don't support allow update operation on table with index and ttl");
    // An index on a table whose options already break T12.
    const v = uniqueName('ix');
    await create(v, { tableOptions: { timeToLive: -1, maxVersions: 3 } });
    await expectOtsError(client.createIndex({ mainTableName: v, indexMeta: byEmail(uniqueName('i')) }), 400, P,
      'The max versions of a table with indexes must be 1.');
  });

  it('rows past the table TTL vanish from the table and every index at once', async () => {
    const t = uniqueName('ix');
    const g = `${t}_g`;
    await create(t, { tableOptions: { timeToLive: 3, maxVersions: 1, allowUpdate: false }, indexMetas: [byEmail(g)] });
    await put(t, 'eu', 1, [{ email: 'a' }, { age: Long.fromNumber(1) }]);
    assert.equal((await scan(g)).length, 1);
    await sleep(4200);
    const data = await client.getRange({
      tableName: t, direction: TableStore.Direction.FORWARD,
      inclusiveStartPrimaryKey: [{ region: INF_MIN }, { id: INF_MIN }],
      exclusiveEndPrimaryKey: [{ region: INF_MAX }, { id: INF_MAX }],
    });
    assert.equal(data.rows.length, 0);
    assert.deepEqual(await scan(g), []);
    // Raising the TTL brings both back together (T8: not yet purged).
    await client.updateTable({ tableName: t, tableOptions: { timeToLive: 86400 } });
    assert.equal((await scan(g)).length, 1);
  });

  it('ttlstore describe shows the indexes', async () => {
    const t = uniqueName('ix');
    await create(t, { indexMetas: [byEmail(`${t}_g`)] });
    const r = spawnSync(TTLSTORE_BIN, ['describe', '--endpoint', server.endpoint, '--access-key-id', ACCESS_KEY, '--access-key-secret', SECRET, '-t', t], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`index: ${t}_g \\(global, ready\\) primary key: email defined columns: age`));
  });
});
