// AUTO_INCREMENT primary-key columns (docs/tablestore.md, "Auto-increment primary keys"), through
// the official Node SDK 5.6.5 (TableStore.PK_AUTO_INCR, option 'AUTO_INCREMENT', RT_PK) and, for
// CreateTable's enable_local_txn (which the Node SDK cannot send), a raw protobuf request signed
// as the SDKs sign. Covers: the option on CreateTable and in DescribeTable; every refusal;
// PutRow / UpdateRow / BatchWriteRow with the placeholder returning the generated key; values
// rising per partition key over many writes, across a restart and a kill -9 with the clock set
// back (so that only the persisted record can keep them rising), after the row holding the last
// value is deleted, and through a backup and restore; reading rows back by the returned key;
// concurrent writers to one partition key.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';

import {
  ACCESS_KEY, Long, SECRET, Server, TTLSTORE_BIN, TableStore, condition, decodeOtsError, expectOtsError, norm, pkOf,
  pgStorageArgs, signedPost, uniqueName, values,
} from './helpers.mjs';
import { check, killServer } from './crash_helpers.mjs';
import { decode, encode, sdkSendsIsAtomic } from './sdk_wire.mjs';

sdkSendsIsAtomic();

const PK = TableStore.PK_AUTO_INCR;
const RT_PK = { returnType: TableStore.ReturnType.Primarykey };
const YEAR_MS = 365 * 24 * 3600 * 1000;

// A table (user STRING, seq INTEGER AUTO_INCREMENT[, tag BINARY]).
async function createAutoTable(client, t, { third = false } = {}) {
  const primaryKey = [{ name: 'user', type: 'STRING' },
    { name: 'seq', type: 'INTEGER', option: 'AUTO_INCREMENT' }];
  if (third) primaryKey.push({ name: 'tag', type: 'BINARY' });
  await client.createTable({
    tableMeta: { tableName: t, primaryKey },
    reservedThroughput: { capacityUnit: { read: 0, write: 0 } },
    tableOptions: { timeToLive: -1, maxVersions: 1 },
  });
}

// PutRow with the placeholder and RT_PK: the generated value as a BigInt.
async function putNew(client, t, user, msg = 'hi', extra = {}) {
  const r = await client.putRow({
    tableName: t, condition: condition('IGNORE'),
    primaryKey: [{ user }, { seq: PK }], attributeColumns: [{ msg }], returnContent: RT_PK, ...extra,
  });
  const key = pkOf(r.row);
  assert.equal(key.length, 2, 'RT_PK returns the whole primary key');
  assert.deepEqual(key[0], ['user', user]);
  assert.equal(key[1][0], 'seq');
  assert.equal(typeof key[1][1], 'bigint', 'the generated value is an INTEGER');
  return key[1][1];
}

const seqKey = (user, v) => [{ user }, { seq: Long.fromString(v.toString()) }];

// Every row of a partition key, in key order: [[seq, msg], ...].
async function partitionRows(client, t, user) {
  const out = [];
  let start = [{ user }, { seq: TableStore.INF_MIN }];
  for (;;) {
    const r = await client.getRange({
      tableName: t, direction: TableStore.Direction.FORWARD, maxVersions: 1,
      inclusiveStartPrimaryKey: start, exclusiveEndPrimaryKey: [{ user }, { seq: TableStore.INF_MAX }],
    });
    for (const row of r.rows) out.push([pkOf(row)[1][1], values(row)[0]?.[1]]);
    if (!r.nextStartPrimaryKey) return out;
    start = r.nextStartPrimaryKey.primaryKey.map((c) => ({ [c.name]: c.value }));
  }
}

const increasing = (vs) => vs.every((v, i) => i === 0 || v > vs[i - 1]);

// A CreateTableRequest with `user` STRING, `seq` INTEGER AUTO_INCREMENT and enable_local_txn,
// which the Node SDK cannot send.
const createTableBody = (t, enableLocalTxn) => encode('CreateTableRequest', {
  tableMeta: { tableName: t, primaryKey: [{ name: 'user', type: 2 }, { name: 'seq', type: 1, option: 1 }] },
  reservedThroughput: { capacityUnit: {} },
  enableLocalTxn,
});

describe('tablestore AUTO_INCREMENT primary keys', () => {
  let server;
  let client;
  before(async () => {
    server = await Server.start();
    client = server.client();
  });
  after(async () => { await server?.stop({ removeDir: true }); });

  it('CreateTable takes the option and DescribeTable shows it on that column only', async () => {
    const t = uniqueName('ai');
    await createAutoTable(client, t, { third: true });
    const d = await client.describeTable({ tableName: t });
    const pks = d.tableMeta.primaryKey;
    assert.deepEqual(pks.map((p) => [p.name, p.type]), [['user', 2], ['seq', 1], ['tag', 3]]);
    // Only the AUTO_INCREMENT column carries the field (protobufjs: an own property when sent).
    assert.deepEqual(pks.map((p) => Object.hasOwn(p, 'option') ? p.option : null), [null, 1, null]);
    // So does ComputeSplitPointsBySize's schema (no Node SDK call: the SDK's compiled messages).
    const res = await signedPost(server.port, 'ComputeSplitPointsBySize',
      encode('ComputeSplitPointsBySizeRequest', { tableName: t, splitSize: 1 }));
    assert.equal(res.status, 200);
    const s = decode('ComputeSplitPointsBySizeResponse', res.body);
    assert.deepEqual(s.schema.map((p) => Object.hasOwn(p, 'option') ? p.option : null), [null, 1, null]);
    // And `ttlstore describe`.
    const cli = spawnSync(TTLSTORE_BIN, ['describe', '-t', t, '--endpoint', server.endpoint,
      '--access-key-id', ACCESS_KEY, '--access-key-secret', SECRET], { encoding: 'utf8' });
    assert.equal(cli.status, 0, cli.stderr);
    assert.match(cli.stdout, /primary key: user \(STRING\) seq \(INTEGER, AUTO_INCREMENT\) tag \(BINARY\)/);
  });

  it('refuses the option on the first column, on a non-INTEGER column, twice, and with local transactions', async () => {
    const create = (t, primaryKey) => client.createTable({
      tableMeta: { tableName: t, primaryKey },
      reservedThroughput: { capacityUnit: { read: 0, write: 0 } },
      tableOptions: { timeToLive: -1, maxVersions: 1 },
    });
    let t = uniqueName('aibad');
    await expectOtsError(create(t, [{ name: 'id', type: 'INTEGER', option: 'AUTO_INCREMENT' },
      { name: 'x', type: 'INTEGER' }]), 400, 'OTSParameterInvalid',
    `First primary key can't be auto increment, table: ${t}.`);
    await expectOtsError(create(uniqueName('aibad'), [{ name: 'id', type: 'STRING' },
      { name: 'x', type: 'STRING', option: 'AUTO_INCREMENT' }]), 400, 'OTSParameterInvalid',
    'AUTO_INCREMENT primary key must be integer.');
    await expectOtsError(create(uniqueName('aibad'), [{ name: 'id', type: 'STRING' },
      { name: 'x', type: 'INTEGER', option: 'AUTO_INCREMENT' },
      { name: 'y', type: 'INTEGER', option: 'AUTO_INCREMENT' }]), 400, 'OTSParameterInvalid',
    'AUTO_INCREMENT primary key count must <= 1.');
    // None of them was created.
    const list = await client.listTable({});
    assert.ok(!list.tableNames.some((n) => n.startsWith('aibad')), JSON.stringify(list.tableNames));

    // enable_local_txn true with an AUTO_INCREMENT column (raw: the Node SDK has no field 8).
    t = uniqueName('aitxn');
    let res = await signedPost(server.port, 'CreateTable', createTableBody(t, true));
    assert.equal(res.status, 400);
    assert.deepEqual(decodeOtsError(res.body), { code: 'OTSParameterInvalid',
      message: 'Local transactions cannot be enabled on a table with an AUTO_INCREMENT primary key column.' });
    // Without it (or with false) the table is made, with local transactions off.
    res = await signedPost(server.port, 'CreateTable', createTableBody(t, false));
    assert.equal(res.status, 200, JSON.stringify(decodeOtsError(res.body)));
    await createAutoTable(client, `${t}_2`);
    for (const name of [t, `${t}_2`]) {
      await expectOtsError(client.startLocalTransaction({ tableName: name, primaryKey: [{ user: 'a' }] }),
        400, 'OTSParameterInvalid',
        'Try to call method using explicit transaction on explicit-transaction-disabled table.');
    }
  });

  it('PutRow with the placeholder returns increasing values per partition key, readable by the returned key', async () => {
    const t = uniqueName('aiput');
    await createAutoTable(client, t);
    const before = BigInt(Date.now()) * 1000n;
    const a = [];
    const b = [];
    for (let i = 0; i < 40; i++) {
      a.push(await putNew(client, t, 'alice', `a${i}`));
      if (i % 2 === 0) b.push(await putNew(client, t, 'bob', `b${i}`));
    }
    const afterUs = BigInt(Date.now()) * 1000n;
    assert.ok(increasing(a) && increasing(b), `${a} / ${b}`);
    // Time-based: a new partition key's first value is the write's time in microseconds.
    assert.ok(b[0] >= before && b[0] <= afterUs, `${before} <= ${b[0]} <= ${afterUs}`);
    // GetRow by each returned key; GetRange returns exactly the rows written, in order.
    for (const [i, v] of a.entries()) {
      const r = await client.getRow({ tableName: t, primaryKey: seqKey('alice', v), maxVersions: 1 });
      assert.deepEqual(pkOf(r.row), [['user', 'alice'], ['seq', v]]);
      assert.deepEqual(values(r.row), [['msg', `a${i}`]]);
    }
    assert.deepEqual(await partitionRows(client, t, 'alice'), a.map((v, i) => [v, `a${i}`]));
    assert.deepEqual((await partitionRows(client, t, 'bob')).map(([v]) => v), b);
    // BatchGetRow and a filter take the generated value as any integer.
    const g = await client.batchGetRow({ tables: [{ tableName: t, maxVersions: 1,
      primaryKey: [seqKey('alice', a[3]), seqKey('bob', b[1])] }] });
    assert.deepEqual(g.tables[0].map((r) => pkOf(r)[1][1]), [a[3], b[1]]);
    const f = await client.getRange({
      tableName: t, direction: TableStore.Direction.FORWARD, maxVersions: 1,
      inclusiveStartPrimaryKey: seqKey('alice', a[10]), exclusiveEndPrimaryKey: seqKey('alice', a[13]),
    });
    assert.deepEqual(f.rows.map((r) => pkOf(r)[1][1]), [a[10], a[11], a[12]]);
  });

  it('without ReturnContent the value is generated all the same', async () => {
    const t = uniqueName('ainone');
    await createAutoTable(client, t);
    const r = await client.putRow({ tableName: t, condition: condition('IGNORE'),
      primaryKey: [{ user: 'u' }, { seq: PK }], attributeColumns: [{ msg: 'quiet' }] });
    assert.ok(!r.row || Object.keys(r.row).length === 0, 'no row without ReturnContent');
    const rows = await partitionRows(client, t, 'u');
    assert.equal(rows.length, 1);
    assert.ok(await putNew(client, t, 'u') > rows[0][0]);
  });

  it('UpdateRow with the placeholder and an INCREMENT, then a BatchWriteRow UPDATE of the returned key (Java functiontest testAutoPkWrite)', async () => {
    const t = uniqueName('aiupd');
    await createAutoTable(client, t);
    const u = await client.updateRow({
      tableName: t, condition: condition('IGNORE'), primaryKey: [{ user: 'autoPK' }, { seq: PK }],
      updateOfAttributeColumns: [{ INCREMENT: [{ price: Long.fromNumber(1) }] }], returnContent: RT_PK,
    });
    const key = pkOf(u.row);
    assert.equal(key[0][1], 'autoPK');
    const v = key[1][1];
    const w = await client.batchWriteRow({ tables: [{ tableName: t, rows: [{
      type: 'UPDATE', condition: condition('EXPECT_EXIST'), primaryKey: seqKey('autoPK', v),
      attributeColumns: [{ PUT: [{ item: Long.fromNumber(12) }] }, { INCREMENT: [{ price: Long.fromNumber(15) }] }],
      returnContent: { returnType: TableStore.ReturnType.AfterModify, returnColumns: ['price'] },
    }] }] });
    assert.ok(w.tables[0].isOk, JSON.stringify(w.tables[0]));
    assert.equal(norm(w.tables[0].attributes[0].columnValue), 16n);
    assert.deepEqual(w.tables[0].primaryKey.map((c) => [c.name, norm(c.value)]), [['user', 'autoPK'], ['seq', v]]);
  });

  it('BatchWriteRow: placeholders in PUT and UPDATE rows each get their own value, returned per row', async () => {
    const t = uniqueName('aibatch');
    await createAutoTable(client, t);
    const rows = [];
    for (let i = 0; i < 12; i++) {
      const user = i % 3 === 0 ? 'y' : 'x';
      rows.push(i % 4 === 1
        ? { type: 'UPDATE', condition: condition('IGNORE'), primaryKey: [{ user }, { seq: PK }],
          attributeColumns: [{ PUT: [{ msg: `m${i}` }] }], returnContent: RT_PK }
        : { type: 'PUT', condition: condition('IGNORE'), primaryKey: [{ user }, { seq: PK }],
          attributeColumns: [{ msg: `m${i}` }], returnContent: RT_PK });
    }
    // One row breaks a rule and fails on its own.
    rows.push({ type: 'PUT', condition: condition('EXPECT_NOT_EXIST'), primaryKey: [{ user: 'x' }, { seq: PK }],
      attributeColumns: [{ msg: 'bad' }], returnContent: RT_PK });
    const r = await client.batchWriteRow({ tables: [{ tableName: t, rows }] });
    assert.equal(r.tables.length, 13);
    assert.ok(r.tables.slice(0, 12).every((x) => x.isOk), JSON.stringify(r.tables));
    assert.equal(r.tables[12].isOk, false);
    assert.equal(r.tables[12].errorCode, 'OTSParameterInvalid');
    assert.equal(r.tables[12].errorMessage, 'Invalid expect:EXPECT_NOT_EXIST when modify row with pk auto increment.');
    const got = { x: [], y: [] };
    r.tables.slice(0, 12).forEach((row, i) => {
      const key = row.primaryKey.map((c) => [c.name, norm(c.value)]);
      assert.equal(key[0][1], i % 3 === 0 ? 'y' : 'x');
      got[key[0][1]].push([key[1][1], `m${i}`]);
    });
    // Within a partition key, in request order and increasing; stored as returned.
    for (const user of ['x', 'y']) {
      assert.ok(increasing(got[user].map(([v]) => v)), JSON.stringify(got[user].map(([v]) => String(v))));
      assert.deepEqual(await partitionRows(client, t, user), got[user]);
    }
  });

  it('an atomic BatchWriteRow takes placeholders all or none', async () => {
    const t = uniqueName('aiatomic');
    await createAutoTable(client, t);
    const row = (msg, cond = 'IGNORE', seq = PK) => ({ type: 'PUT', condition: condition(cond),
      primaryKey: [{ user: 'g' }, { seq }], attributeColumns: [{ msg }], returnContent: RT_PK });
    const r = await client.batchWriteRow({ isAtomic: true,
      tables: [{ tableName: t, rows: [row('m0'), row('m1'), row('m2')] }] });
    assert.ok(r.tables.every((x) => x.isOk), JSON.stringify(r.tables));
    const got = r.tables.map((x) => x.primaryKey.map((c) => [c.name, norm(c.value)]));
    assert.ok(got.every((k) => k[0][1] === 'g'));
    const vs = got.map((k) => k[1][1]);
    assert.ok(increasing(vs), vs.map(String).join());
    assert.deepEqual(await partitionRows(client, t, 'g'), vs.map((v, i) => [v, `m${i}`]));
    // A group with a refused row, or a row whose condition fails, writes nothing.
    for (const bad of [row('x', 'EXPECT_EXIST'), row('x', 'IGNORE', Long.fromString((vs[2] + 7n).toString()))]) {
      const f = await client.batchWriteRow({ isAtomic: true, tables: [{ tableName: t, rows: [row('y'), bad] }] });
      assert.ok(f.tables.every((x) => !x.isOk), JSON.stringify(f.tables));
    }
    assert.equal((await partitionRows(client, t, 'g')).length, 3);
    // The next value is above the group's.
    assert.ok(await putNew(client, t, 'g') > vs[2]);
  });

  it('refuses the placeholder where the service does, with its messages', async () => {
    const t = uniqueName('airef');
    await createAutoTable(client, t);
    const v = await putNew(client, t, 'a');
    const put = (primaryKey, cond, extra = {}) => client.putRow({ tableName: t, condition: cond,
      primaryKey, attributeColumns: [{ msg: 'x' }], ...extra });
    const bad = (p, message, status = 400, code = 'OTSParameterInvalid') => expectOtsError(p, status, code, message);

    await bad(put([{ user: 'a' }, { seq: PK }], condition('EXPECT_EXIST')),
      'Invalid expect:EXPECT_EXIST when modify row with pk auto increment.');
    await bad(put([{ user: 'a' }, { seq: PK }], condition('EXPECT_NOT_EXIST')),
      'Invalid expect:EXPECT_NOT_EXIST when modify row with pk auto increment.');
    await bad(client.updateRow({ tableName: t, condition: condition('EXPECT_EXIST'),
      primaryKey: [{ user: 'a' }, { seq: PK }], updateOfAttributeColumns: [{ PUT: [{ msg: 'x' }] }] }),
    'Invalid expect:EXPECT_EXIST when modify row with pk auto increment.');
    const colCond = new TableStore.Condition(TableStore.RowExistenceExpectation.IGNORE,
      new TableStore.SingleColumnCondition('msg', 'x', TableStore.ComparatorType.EQUAL));
    await bad(put([{ user: 'a' }, { seq: PK }], colCond),
      "Can't set condition when modify row with pk auto increment.");
    await bad(client.deleteRow({ tableName: t, condition: condition('IGNORE'), primaryKey: [{ user: 'a' }, { seq: PK }] }),
      'Invalid row to delete which with pk auto increment.');
    await bad(client.getRow({ tableName: t, primaryKey: [{ user: 'a' }, { seq: PK }], maxVersions: 1 }),
      "PKAutoIncr can't be used for read operations.");
    await bad(client.getRange({ tableName: t, direction: TableStore.Direction.FORWARD, maxVersions: 1,
      inclusiveStartPrimaryKey: [{ user: 'a' }, { seq: PK }], exclusiveEndPrimaryKey: [{ user: 'a' }, { seq: TableStore.INF_MAX }] }),
    "PKAutoIncr can't be used for read operations.");
    const g = await client.batchGetRow({ tables: [{ tableName: t, maxVersions: 1,
      primaryKey: [[{ user: 'a' }, { seq: PK }], seqKey('a', v)] }] });
    assert.equal(g.tables[0][0].isOk, false);
    assert.equal(g.tables[0][0].errorMessage, "PKAutoIncr can't be used for read operations.");
    assert.equal(g.tables[0][1].isOk, true);
    // Two placeholders; a placeholder in a column that is not AUTO_INCREMENT.
    await bad(put([{ user: PK }, { seq: PK }], condition('IGNORE')), '2 pk auto increment exist in row.');
    await bad(put([{ user: PK }, { seq: Long.fromNumber(1) }], condition('IGNORE')),
      'Validate PK type fail. Input: VT_AUTO_INCREMENT, Meta: VT_STRING.', 400, 'OTSInvalidPK');
    const plain = uniqueName('aiplain');
    await client.createTable({ tableMeta: { tableName: plain, primaryKey: [{ name: 'user', type: 'STRING' },
      { name: 'seq', type: 'INTEGER' }] }, reservedThroughput: { capacityUnit: { read: 0, write: 0 } },
    tableOptions: { timeToLive: -1, maxVersions: 1 } });
    await expectOtsError(client.putRow({ tableName: plain, condition: condition('IGNORE'),
      primaryKey: [{ user: 'a' }, { seq: PK }], attributeColumns: [{ msg: 'x' }] }), 400, 'OTSInvalidPK',
    'Validate PK type fail. Input: VT_AUTO_INCREMENT, Meta: VT_INTEGER.');
    // Nothing of the refused writes was stored.
    assert.deepEqual((await partitionRows(client, t, 'a')).map(([s]) => s), [v]);
  });

  it('a write naming a value modifies an existing row and never creates one', async () => {
    const t = uniqueName('aival');
    await createAutoTable(client, t);
    const v = await putNew(client, t, 'a', 'first');
    const missing = v + 1000n;
    // IGNORE on the existing row (the Java Timeline's update) and EXPECT_EXIST work.
    await client.updateRow({ tableName: t, condition: condition('IGNORE'), primaryKey: seqKey('a', v),
      updateOfAttributeColumns: [{ PUT: [{ msg: 'updated' }] }] });
    await client.putRow({ tableName: t, condition: condition('EXPECT_EXIST'), primaryKey: seqKey('a', v),
      attributeColumns: [{ msg: 'replaced' }] });
    // IGNORE or EXPECT_EXIST on a missing row: the condition fails (Go restore test: a PutRow with
    // IGNORE answers OTSConditionCheckFail).
    for (const cond of ['IGNORE', 'EXPECT_EXIST']) {
      await expectOtsError(client.putRow({ tableName: t, condition: condition(cond), primaryKey: seqKey('a', missing),
        attributeColumns: [{ msg: 'x' }] }), 403, 'OTSConditionCheckFail', 'Condition check failed.');
      await expectOtsError(client.updateRow({ tableName: t, condition: condition(cond), primaryKey: seqKey('a', missing),
        updateOfAttributeColumns: [{ PUT: [{ msg: 'x' }] }] }), 403, 'OTSConditionCheckFail', 'Condition check failed.');
    }
    await expectOtsError(client.putRow({ tableName: t, condition: condition('EXPECT_NOT_EXIST'),
      primaryKey: seqKey('a', missing), attributeColumns: [{ msg: 'x' }] }), 400, 'OTSParameterInvalid',
    'Invalid expect: EXPECT_NOT_EXIST when modify a specific row for table with pk auto increment.');
    assert.deepEqual(await partitionRows(client, t, 'a'), [[v, 'replaced']]);
    // DeleteRow by value: a missing row with IGNORE, the row with EXPECT_EXIST.
    await client.deleteRow({ tableName: t, condition: condition('IGNORE'), primaryKey: seqKey('a', missing) });
    await client.deleteRow({ tableName: t, condition: condition('EXPECT_EXIST'), primaryKey: seqKey('a', v) });
    assert.deepEqual(await partitionRows(client, t, 'a'), []);
  });

  it('concurrent writers to one partition key get distinct values, each writer\'s rising', async () => {
    const t = uniqueName('aiconc');
    await createAutoTable(client, t);
    const writers = 8;
    const each = 25;
    const got = await Promise.all(Array.from({ length: writers }, async (_, w) => {
      const c = server.client();
      const vs = [];
      for (let i = 0; i < each; i++) vs.push(await putNew(c, t, 'hot', `w${w}-${i}`));
      return vs;
    }));
    for (const vs of got) assert.ok(increasing(vs));
    const all = got.flat();
    assert.equal(new Set(all.map(String)).size, writers * each);
    const stored = await partitionRows(client, t, 'hot');
    assert.equal(stored.length, writers * each);
    assert.deepEqual(stored.map(([v]) => v), [...all].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0)));
  });

  it('a secondary index on the table carries the generated value', async () => {
    const t = uniqueName('aiidx');
    await client.createTable({
      tableMeta: { tableName: t, primaryKey: [{ name: 'user', type: 'STRING' },
        { name: 'seq', type: 'INTEGER', option: 'AUTO_INCREMENT' }], definedColumn: [{ name: 'msg', type: 4 }] },
      reservedThroughput: { capacityUnit: { read: 0, write: 0 } },
      tableOptions: { timeToLive: -1, maxVersions: 1 },
      indexMetas: [{ name: `${t}_msg`, primaryKey: ['msg'], definedColumn: [] }],
    });
    const v = await putNew(client, t, 'a', 'indexed');
    const r = await client.getRange({ tableName: `${t}_msg`, direction: TableStore.Direction.FORWARD, maxVersions: 1,
      inclusiveStartPrimaryKey: [{ msg: TableStore.INF_MIN }, { user: TableStore.INF_MIN }, { seq: TableStore.INF_MIN }],
      exclusiveEndPrimaryKey: [{ msg: TableStore.INF_MAX }, { user: TableStore.INF_MAX }, { seq: TableStore.INF_MAX }] });
    assert.deepEqual(r.rows.map((row) => pkOf(row)), [[['msg', 'indexed'], ['user', 'a'], ['seq', v]]]);
  });
});

describe('tablestore AUTO_INCREMENT values survive restarts, kill -9 and backups', () => {
  const servers = [];
  const cleanup = [];
  after(async () => {
    for (const s of servers) await s.stop({ removeDir: true }).catch(() => {});
    for (const p of cleanup) fs.rmSync(p, { recursive: true, force: true });
  });

  // A server whose clock runs a year ahead: its values are a year of microseconds above the real
  // clock's, so a server started after it with the real clock can only keep issuing rising
  // values if it reads them back from the data dir.
  async function aheadServer() {
    const s = await Server.start({ args: ['--clock-start-ms', String(Date.now() + YEAR_MS)] });
    servers.push(s);
    return s;
  }
  async function respawnWithRealClock(s) {
    s.extraArgs = [];
    s.port = null;
    await s._spawn();
    return s.client();
  }

  it('a restart with the clock set back keeps the values rising', async () => {
    const server = await aheadServer();
    let client = server.client();
    const t = uniqueName('airestart');
    await createAutoTable(client, t);
    const before = [];
    for (let i = 0; i < 10; i++) before.push(await putNew(client, t, 'p'));
    assert.ok(before[0] > BigInt(Date.now() + YEAR_MS / 2) * 1000n, 'values follow the server clock');
    // The row holding the last value is deleted: only the partition key's record remembers it.
    await client.deleteRow({ tableName: t, condition: condition('IGNORE'), primaryKey: seqKey('p', before.at(-1)) });
    await server.stop();
    check(server.dataDir);
    client = await respawnWithRealClock(server);
    const next = await putNew(client, t, 'p');
    assert.equal(next, before.at(-1) + 1n);
    // Another partition key starts from the (real) clock.
    assert.ok(await putNew(client, t, 'q') < before[0]);
    // DeleteTable removes the table's records: `ttlstore check` finds none left over.
    await client.deleteTable({ tableName: t });
    await server.stop();
    assert.match(check(server.dataDir), / 0 auto-increment records/);
  });

  it('kill -9 during concurrent writes: every acknowledged value stays below the values issued after', async () => {
    const server = await aheadServer();
    let client = server.client();
    const t = uniqueName('aikill');
    await createAutoTable(client, t);
    const acked = [];
    let stop = false;
    const writers = Array.from({ length: 4 }, async (_, w) => {
      const c = server.client();
      for (let i = 0; !stop; i++) {
        try {
          acked.push(await putNew(c, t, 'k', `w${w}-${i}`));
        } catch {
          return;  // the server is gone
        }
      }
    });
    while (acked.length < 200) await new Promise((r) => setTimeout(r, 5));
    await killServer(server);
    stop = true;
    await Promise.all(writers);
    check(server.dataDir);
    client = await respawnWithRealClock(server);
    const max = acked.reduce((m, v) => (v > m ? v : m), 0n);
    const next = await putNew(client, t, 'k');
    assert.ok(next > max, `${next} > ${max}`);
    // Every acknowledged row is there; unacknowledged ones may be too, all below `next`.
    const stored = (await partitionRows(client, t, 'k')).map(([v]) => v);
    const storedSet = new Set(stored.map(String));
    for (const v of acked) assert.ok(storedSet.has(String(v)), `acknowledged ${v} lost`);
    assert.equal(stored.at(-1), next);
    assert.equal(new Set(stored.map(String)).size, stored.length);
  });

  it('a backup carries the option and the last values; the restored table issues above them', async () => {
    const server = await aheadServer();
    let client = server.client();
    const t = uniqueName('aibak');
    await createAutoTable(client, t);
    const vs = [];
    for (let i = 0; i < 5; i++) vs.push(await putNew(client, t, 'p', `m${i}`));
    // The row holding the last value is gone before the backup: only the record remembers it.
    await client.deleteRow({ tableName: t, condition: condition('IGNORE'), primaryKey: seqKey('p', vs[4]) });
    const file = path.join(server.root, 'ai.ttlbak');
    let r = spawnSync(TTLSTORE_BIN, ['backup', '--data-dir', server.dataDir, ...pgStorageArgs(server.dataDir), '-t', t, '-o', file], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stdout + r.stderr);
    await server.stop();
    const t2 = `${t}_restored`;
    r = spawnSync(TTLSTORE_BIN, ['restore', '--data-dir', server.dataDir, ...pgStorageArgs(server.dataDir), '--from', file, '-t', t2], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stdout + r.stderr);
    check(server.dataDir);
    client = await respawnWithRealClock(server);
    const d = await client.describeTable({ tableName: t2 });
    assert.deepEqual(d.tableMeta.primaryKey.map((p) => Object.hasOwn(p, 'option') ? p.option : null), [null, 1]);
    assert.deepEqual(await partitionRows(client, t2, 'p'), vs.slice(0, 4).map((v, i) => [v, `m${i}`]));
    assert.equal(await putNew(client, t2, 'p'), vs[4] + 1n);
  });
});
