// Versions and table lifetime before any purge: max versions (T1-T3), TTL (T6-T8), the write
// window (T9), and what a write trims. The server runs with --tablestore-min-ttl 1 so TTLs of a
// few seconds are allowed; with the default purge interval (3600 s) the only purge pass runs at
// start-up, before any table exists, so hidden data goes only through the writes tested here.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import {
  Long, Server, TableStore, assertNoCells, cells, condition, createTable, expectOtsError, getRow, putVersions,
  sleep, uniqueName, updateOptions, values,
} from './helpers.mjs';

const { INF_MIN, INF_MAX, Direction } = TableStore;

describe('tablestore versions and TTL (before purge)', () => {
  let server;
  let client;

  before(async () => {
    server = await Server.start({ args: ['--tablestore-min-ttl', '1'] });
    client = server.client();
  });

  after(async () => {
    const code = await server?.stop({ removeDir: true });
    assert.equal(code, 0, 'ttlstore exit code after SIGTERM');
  });

  const pk = (id) => [{ id }];
  async function table(prefix, opts) {
    const name = uniqueName(prefix);
    await createTable(client, name, { pk: [['id', 'STRING']], ...opts });
    return name;
  }
  async function scanIds(t, extra = {}) {
    const data = await client.getRange({
      tableName: t, direction: Direction.FORWARD,
      inclusiveStartPrimaryKey: [{ id: INF_MIN }], exclusiveEndPrimaryKey: [{ id: INF_MAX }], ...extra,
    });
    return data.rows.map((r) => r.primaryKey[0].value);
  }

  describe('max versions (T1-T3)', () => {
    it('3 versions with maxVersions 1: only the newest is visible, and the writes trimmed the rest for good', async () => {
      const t = await table('mv', { timeToLive: -1, maxVersions: 1 });
      const base = Date.now() - 10000;
      await putVersions(client, t, pk('r'), [['c', 'v1', base]]);
      await putVersions(client, t, pk('r'), [['c', 'v2', base + 1000]]);
      await putVersions(client, t, pk('r'), [['c', 'v3', base + 2000]]);

      // T2: beyond max versions is invisible at once, whatever the read asks for.
      assert.deepEqual(cells(await getRow(client, t, pk('r'), { maxVersions: 10 })), [['c', 'v3', base + 2000]]);
      assertNoCells(await getRow(client, t, pk('r'), { maxVersions: 10, timeRange: { startTime: base, endTime: base + 2000 } }),
                    'older versions must not show through a time range either');
      const range = await client.getRange({
        tableName: t, direction: Direction.FORWARD, maxVersions: 10,
        inclusiveStartPrimaryKey: [{ id: INF_MIN }], exclusiveEndPrimaryKey: [{ id: INF_MAX }],
      });
      assert.deepEqual(range.rows.map(cells), [[['c', 'v3', base + 2000]]]);

      // Each write dropped what max versions hid: raising the limit brings nothing back.
      await updateOptions(client, t, { maxVersions: 3 });
      assert.deepEqual(cells(await getRow(client, t, pk('r'), { maxVersions: 10 })), [['c', 'v3', base + 2000]]);
    });

    it('lowering hides at once; raising brings back what no write has trimmed since (T3)', async () => {
      const t = await table('mvraise', { timeToLive: -1, maxVersions: 3 });
      const base = Date.now() - 10000;
      for (const id of ['idle', 'written']) {
        for (let i = 0; i < 3; i += 1) await putVersions(client, t, pk(id), [['c', `v${i}`, base + 1000 * i]]);
      }
      await updateOptions(client, t, { maxVersions: 2 });
      assert.deepEqual(values(await getRow(client, t, pk('idle'), { maxVersions: 10 })), [['c', 'v2'], ['c', 'v1']]);
      await updateOptions(client, t, { maxVersions: 1 });
      assert.deepEqual(values(await getRow(client, t, pk('idle'), { maxVersions: 10 })), [['c', 'v2']]);
      let range = await client.getRange({
        tableName: t, direction: Direction.FORWARD, maxVersions: 10,
        inclusiveStartPrimaryKey: [{ id: INF_MIN }], exclusiveEndPrimaryKey: [{ id: INF_MAX }],
      });
      assert.deepEqual(range.rows.map(values), [[['c', 'v2']], [['c', 'v2']]]);

      // A write to another column of "written" rewrites the row: the hidden versions of c go.
      await putVersions(client, t, pk('written'), [['other', 'o', base + 5000]]);
      await updateOptions(client, t, { maxVersions: 3 });
      assert.deepEqual(cells(await getRow(client, t, pk('idle'), { maxVersions: 10 })), [
        ['c', 'v2', base + 2000], ['c', 'v1', base + 1000], ['c', 'v0', base],
      ]);
      assert.deepEqual(cells(await getRow(client, t, pk('written'), { maxVersions: 10 })), [
        ['c', 'v2', base + 2000], ['other', 'o', base + 5000],
      ]);
      range = await client.getRange({
        tableName: t, direction: Direction.FORWARD, maxVersions: 10,
        inclusiveStartPrimaryKey: [{ id: INF_MIN }], exclusiveEndPrimaryKey: [{ id: INF_MAX }],
      });
      assert.deepEqual(range.rows.map((r) => r.attributes.length), [3, 2]);
    });

    it('deleting the newest version does not bring back one that max versions hid', async () => {
      const t = await table('mvdel', { timeToLive: -1, maxVersions: 3 });
      const base = Date.now() - 10000;
      for (let i = 0; i < 3; i += 1) await putVersions(client, t, pk('r'), [['c', `v${i}`, base + i]]);
      await updateOptions(client, t, { maxVersions: 2 });
      await client.updateRow({
        tableName: t, primaryKey: pk('r'), condition: condition('IGNORE'),
        updateOfAttributeColumns: [{ DELETE: [{ c: base + 2 }] }],
      });
      assert.deepEqual(values(await getRow(client, t, pk('r'), { maxVersions: 10 })), [['c', 'v1']]);
      await updateOptions(client, t, { maxVersions: 3 });
      assert.deepEqual(values(await getRow(client, t, pk('r'), { maxVersions: 10 })), [['c', 'v1']]);
    });

    it('100 increments of one cell keep one version (max versions 1)', async () => {
      const t = await table('mvinc', { timeToLive: -1, maxVersions: 1 });
      const rc = { returnType: TableStore.ReturnType.AfterModify, returnColumns: ['n'] };
      let last;
      for (let i = 0; i < 100; i += 1) {
        last = await client.updateRow({
          tableName: t, primaryKey: pk('n'), condition: condition('IGNORE'), returnContent: rc,
          updateOfAttributeColumns: [{ INCREMENT: [{ n: Long.fromNumber(1) }] }],
        });
      }
      assert.deepEqual(values(last.row), [['n', 100n]]);
      await updateOptions(client, t, { maxVersions: 1000 });
      const row = await getRow(client, t, pk('n'), { maxVersions: 1000 });
      assert.deepEqual(values(row), [['n', 100n]], 'the row kept one version, not a hundred');
    });
    it('writes beyond max versions keep counting per column', async () => {
      const t = await table('mv2', { timeToLive: -1, maxVersions: 2 });
      const base = Date.now() - 10000;
      for (let i = 0; i < 5; i += 1) {
        await putVersions(client, t, pk('r'), [['a', `a${i}`, base + i], ['b', Long.fromNumber(i), base + 10 * i]]);
      }
      assert.deepEqual(cells(await getRow(client, t, pk('r'), { maxVersions: 5 })), [
        ['a', 'a4', base + 4], ['a', 'a3', base + 3], ['b', 4n, base + 40], ['b', 3n, base + 30],
      ]);
    });

    it('a rewrite of the same timestamp replaces that version', async () => {
      const t = await table('samets', { timeToLive: -1, maxVersions: 3 });
      const ts = Date.now() - 5000;
      await putVersions(client, t, pk('r'), [['c', 'first', ts]]);
      await putVersions(client, t, pk('r'), [['c', 'second', ts]]);
      assert.deepEqual(cells(await getRow(client, t, pk('r'), { maxVersions: 3 })), [['c', 'second', ts]]);
    });
  });

  describe('table TTL (T6-T8)', () => {
    it('lowering TTL hides old versions and rows at once; raising brings them back', async () => {
      const t = await table('ttl', { timeToLive: -1, maxVersions: 5 });
      const now = Date.now();
      const old = now - 60000;
      const fresh = now - 1000;
      await putVersions(client, t, pk('mixed'), [['old', 'o', old], ['new', 'n', fresh]]);
      await putVersions(client, t, pk('mixed'), [['new', 'n-old', old]]);
      await putVersions(client, t, pk('allold'), [['x', 'x', old], ['y', 'y', old + 1]]);
      assert.deepEqual(await scanIds(t), ['allold', 'mixed']);

      // TTL 30 s: everything older than 30 s is invisible at once (T8).
      await updateOptions(client, t, { timeToLive: 30 });
      assert.deepEqual(cells(await getRow(client, t, pk('mixed'), { maxVersions: 5 })), [['new', 'n', fresh]]);
      // T6: a row whose columns have all expired is gone for reads.
      assert.deepEqual(await getRow(client, t, pk('allold')), {});
      assert.deepEqual(await scanIds(t), ['mixed']);
      const bg = await client.batchGetRow({ tables: [{ tableName: t, primaryKey: [pk('allold'), pk('mixed')] }] });
      assert.equal(bg.tables[0][0].isOk, true);
      assert.equal(bg.tables[0][0].attributes, null, 'expired row is empty in BatchGetRow');
      assert.deepEqual(bg.tables[0][1].attributes.map((a) => a.columnName), ['new']);

      // Raising the TTL before a purge brings the data back (T8).
      await updateOptions(client, t, { timeToLive: 120 });
      assert.deepEqual(values(await getRow(client, t, pk('mixed'), { maxVersions: 5 })), [
        ['new', 'n'], ['new', 'n-old'], ['old', 'o'],
      ]);
      assert.deepEqual(values(await getRow(client, t, pk('allold'))), [['x', 'x'], ['y', 'y']]);
      await updateOptions(client, t, { timeToLive: -1 });
      assert.deepEqual(await scanIds(t), ['allold', 'mixed']);
    });

    it('a write trims what the TTL hides: raising the TTL revives only rows nobody wrote since (T8)', async () => {
      const t = await table('ttlwrite', { timeToLive: -1, maxVersions: 3 });
      const now = Date.now();
      for (const id of ['idle', 'written']) {
        await putVersions(client, t, pk(id), [['old', 'o', now - 120000], ['new', 'n', now - 1000]]);
      }
      await updateOptions(client, t, { timeToLive: 60 });
      assert.deepEqual(values(await getRow(client, t, pk('written'))), [['new', 'n']]);
      await putVersions(client, t, pk('written'), [['more', 'm']]);
      await updateOptions(client, t, { timeToLive: -1 });
      assert.deepEqual(values(await getRow(client, t, pk('idle'))), [['new', 'n'], ['old', 'o']]);
      assert.deepEqual(values(await getRow(client, t, pk('written'))), [['more', 'm'], ['new', 'n']]);
    });

    it('a version becomes invisible once its age exceeds the TTL (real time)', async () => {
      const t = await table('ttlclock', { timeToLive: 3, maxVersions: 1 });
      await putVersions(client, t, pk('r'), [['c', 'short-lived']]);
      const written = Date.now();
      assert.deepEqual(values(await getRow(client, t, pk('r'))), [['c', 'short-lived']]);
      assert.deepEqual(await scanIds(t), ['r']);
      await sleep(Math.max(0, written + 4500 - Date.now()));
      assert.deepEqual(await getRow(client, t, pk('r')), {});
      assert.deepEqual(await scanIds(t), []);
      // Still there until a purge: raising the TTL shows it again.
      await updateOptions(client, t, { timeToLive: 3600 });
      assert.deepEqual(values(await getRow(client, t, pk('r'))), [['c', 'short-lived']]);
    });
  });

  describe('write window (T9)', () => {
    it('a version older than now - deviation fails the whole row with 400 "Invalid timestamp"', async () => {
      const t = await table('devold', { timeToLive: -1, maxVersions: 3, maxTimeDeviation: 60 });
      const now = Date.now();
      await expectOtsError(client.putRow({
        tableName: t, condition: condition('IGNORE'), primaryKey: pk('r'),
        attributeColumns: [{ good: 'g', timestamp: now - 10000 }, { bad: 'b', timestamp: now - 120000 }],
      }), 400, 'OTSParameterInvalid', 'Invalid timestamp');
      assert.deepEqual(await getRow(client, t, pk('r'), { maxVersions: 3 }), {}, 'nothing of the row is written');

      // Inside the window: accepted.
      await client.putRow({
        tableName: t, condition: condition('IGNORE'), primaryKey: pk('r'),
        attributeColumns: [{ good: 'g', timestamp: now - 30000 }],
      });
      assert.deepEqual(cells(await getRow(client, t, pk('r'))), [['good', 'g', now - 30000]]);
    });

    it('a version at or beyond now + deviation fails the whole row', async () => {
      const t = await table('devnew', { timeToLive: -1, maxVersions: 3, maxTimeDeviation: 60 });
      const now = Date.now();
      await expectOtsError(client.putRow({
        tableName: t, condition: condition('IGNORE'), primaryKey: pk('r'),
        attributeColumns: [{ a: 'a' }, { b: 'b', timestamp: now + 120000 }],
      }), 400, 'OTSParameterInvalid', 'Invalid timestamp');
      await expectOtsError(client.putRow({
        tableName: t, condition: condition('IGNORE'), primaryKey: pk('r'),
        attributeColumns: [{ b: 'b', timestamp: now + 61000 }],
      }), 400, 'OTSParameterInvalid', 'Invalid timestamp');
      assert.deepEqual(await getRow(client, t, pk('r'), { maxVersions: 3 }), {});
      // Slightly in the future but inside the deviation: accepted.
      await client.putRow({
        tableName: t, condition: condition('IGNORE'), primaryKey: pk('r'),
        attributeColumns: [{ b: 'b', timestamp: now + 20000 }],
      });
      assert.deepEqual(cells(await getRow(client, t, pk('r'))), [['b', 'b', now + 20000]]);
    });

    it('with a TTL, a version older than now - TTL is refused even inside the deviation', async () => {
      const t = await table('devttl', { timeToLive: 30, maxVersions: 3 }); // deviation 86400
      const now = Date.now();
      await expectOtsError(client.putRow({
        tableName: t, condition: condition('IGNORE'), primaryKey: pk('r'),
        attributeColumns: [{ c: 'too old', timestamp: now - 60000 }],
      }), 400, 'OTSParameterInvalid', 'Invalid timestamp');
      assert.deepEqual(await getRow(client, t, pk('r')), {});
      await client.putRow({
        tableName: t, condition: condition('IGNORE'), primaryKey: pk('r'),
        attributeColumns: [{ c: 'ok', timestamp: now - 10000 }],
      });
      assert.deepEqual(values(await getRow(client, t, pk('r'))), [['c', 'ok']]);
    });

    it('UpdateRow with one bad version fails whole and leaves the row unchanged', async () => {
      const t = await table('devupd', { timeToLive: -1, maxVersions: 3, maxTimeDeviation: 60 });
      const now = Date.now();
      await putVersions(client, t, pk('r'), [['a', 'a1', now - 20000]]);
      await expectOtsError(client.updateRow({
        tableName: t, primaryKey: pk('r'), condition: condition('IGNORE'),
        updateOfAttributeColumns: [
          { PUT: [{ a: 'a2', timestamp: now - 10000 }, { b: 'b', timestamp: now - 3600000 }] },
          { DELETE_ALL: ['z'] },
        ],
      }), 400, 'OTSParameterInvalid', 'Invalid timestamp');
      assert.deepEqual(cells(await getRow(client, t, pk('r'), { maxVersions: 3 })), [['a', 'a1', now - 20000]]);
    });

    it('raising the deviation widens the window', async () => {
      const t = await table('devraise', { timeToLive: -1, maxVersions: 3, maxTimeDeviation: 60 });
      const ts = Date.now() - 600000;
      await expectOtsError(putVersions(client, t, pk('r'), [['c', 'x', ts]]), 400, 'OTSParameterInvalid');
      await updateOptions(client, t, { maxTimeDeviation: 3600 });
      await putVersions(client, t, pk('r'), [['c', 'x', ts]]);
      assert.deepEqual(cells(await getRow(client, t, pk('r'))), [['c', 'x', ts]]);
    });
  });
});
