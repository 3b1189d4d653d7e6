// After a purge (T1, T3, T6, T8): once the purge has removed invisible versions, raising max
// versions or TTL no longer brings them back. The server purges every second
// (--version-purge-interval 1); the test waits for ttlstore_versions_purged_total to move.
// TTLSTORE_PURGE_KILL_SEED / TTLSTORE_PURGE_KILL_ROUNDS replay or lengthen the kill -9 test.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';

import {
  Server, TTLSTORE_BIN, TableStore, cells, condition, createTable, getRow, putVersions, sleep, uniqueName,
  updateOptions, values, waitFor,
} from './helpers.mjs';

const { INF_MIN, INF_MAX, Direction } = TableStore;
const PURGED = 'ttlstore_versions_purged_total';

describe('tablestore purge', () => {
  let server;
  let client;

  before(async () => {
    server = await Server.start({ args: ['--tablestore-min-ttl', '1', '--version-purge-interval', '1'] });
    client = server.client();
  });

  after(async () => {
    const code = await server?.stop({ removeDir: true });
    assert.equal(code, 0, 'ttlstore exit code after SIGTERM');
  });

  it('the purge metric is exported', async () => {
    const text = await server.metrics();
    assert.match(text, new RegExp(`^${PURGED}(\\{[^}]*\\})?\\s+\\d`, 'm'));
  });

  it('lowering max versions and TTL, then a purge: raising them again brings nothing back', async () => {
    const t = uniqueName('purge');
    await createTable(client, t, { pk: [['id', 'STRING']], timeToLive: -1, maxVersions: 3 });
    const now = Date.now();
    const base = now - 20000;
    const old = now - 120000;
    // r1: three versions of c. r2: one old column only. r3: one old and one fresh column.
    await putVersions(client, t, [{ id: 'r1' }], [['c', 'v1', base]]);
    await putVersions(client, t, [{ id: 'r1' }], [['c', 'v2', base + 1000]]);
    await putVersions(client, t, [{ id: 'r1' }], [['c', 'v3', base + 2000]]);
    await putVersions(client, t, [{ id: 'r2' }], [['x', 'x', old]]);
    await putVersions(client, t, [{ id: 'r3' }], [['y', 'y', old], ['z', 'z', now - 1000]]);

    // Nothing is invisible yet, so purges so far removed nothing of this table; from here on the
    // metric must grow by at least 4 cells: c@v1, c@v2, x, y.
    const before = await server.metric(PURGED);
    await updateOptions(client, t, { maxVersions: 1, timeToLive: 60 });

    // Invisible at once (before the purge).
    assert.deepEqual(values(await getRow(client, t, [{ id: 'r1' }], { maxVersions: 3 })), [['c', 'v3']]);
    assert.deepEqual(await getRow(client, t, [{ id: 'r2' }]), {});
    assert.deepEqual(values(await getRow(client, t, [{ id: 'r3' }])), [['z', 'z']]);

    const after = await waitFor(`${PURGED} to grow by 4 from ${before}`, async () => {
      const v = await server.metric(PURGED);
      return v >= before + 4 ? v : null;
    }, { timeoutMs: 30000, intervalMs: 250 });
    assert.ok(after >= before + 4);

    // Raising both options after the purge brings nothing back.
    await updateOptions(client, t, { maxVersions: 3, timeToLive: -1 });
    assert.deepEqual(cells(await getRow(client, t, [{ id: 'r1' }], { maxVersions: 3 })), [['c', 'v3', base + 2000]]);
    assert.deepEqual(await getRow(client, t, [{ id: 'r2' }]), {});
    assert.deepEqual(values(await getRow(client, t, [{ id: 'r3' }], { maxVersions: 3 })), [['z', 'z']]);
    const data = await client.getRange({
      tableName: t, direction: Direction.FORWARD, maxVersions: 3,
      inclusiveStartPrimaryKey: [{ id: INF_MIN }], exclusiveEndPrimaryKey: [{ id: INF_MAX }],
    });
    assert.deepEqual(data.rows.map((r) => r.primaryKey[0].value), ['r1', 'r3']);

    // The table still works normally: new versions accumulate again up to the raised limit.
    await putVersions(client, t, [{ id: 'r1' }], [['c', 'v4', base + 3000]]);
    assert.deepEqual(values(await getRow(client, t, [{ id: 'r1' }], { maxVersions: 3 })), [['c', 'v4'], ['c', 'v3']]);
  });

  it('a purge keeps visible data intact', async () => {
    const t = uniqueName('keep');
    await createTable(client, t, { pk: [['id', 'STRING']], timeToLive: -1, maxVersions: 3 });
    const base = Date.now() - 5000;
    await putVersions(client, t, [{ id: 'k' }], [['c', 'c1', base], ['d', 'd1', base]]);
    await putVersions(client, t, [{ id: 'k' }], [['c', 'c2', base + 1]]);
    await putVersions(client, t, [{ id: 'k' }], [['c', 'c3', base + 2]]);
    // With max versions 2, c1 becomes invisible: the purge may remove it, nothing else.
    const before = await server.metric(PURGED);
    await updateOptions(client, t, { maxVersions: 2 });
    await waitFor(`${PURGED} to grow from ${before}`, async () => (await server.metric(PURGED)) > before,
                  { timeoutMs: 30000, intervalMs: 250 });
    assert.deepEqual(cells(await getRow(client, t, [{ id: 'k' }], { maxVersions: 5 })), [
      ['c', 'c3', base + 2], ['c', 'c2', base + 1], ['d', 'd1', base],
    ]);
    await updateOptions(client, t, { maxVersions: 5 });
    assert.deepEqual(values(await getRow(client, t, [{ id: 'k' }], { maxVersions: 5 })), [
      ['c', 'c3'], ['c', 'c2'], ['d', 'd1'],
    ]);
  });
});

// The purge reads only the rows that can hold hidden versions (the purge index), and a kill -9
// at any moment of a pass loses nothing visible: the next start finds the work left and ends it.
describe('tablestore purge: cost and crashes', () => {
  let server;
  let client;
  const ROWS_READ = 'ttlstore_versions_purge_rows_read_total';
  const RUNS = 'ttlstore_versions_purge_runs_total';

  before(async () => {
    server = await Server.start({ args: ['--tablestore-min-ttl', '1', '--version-purge-interval', '1'] });
    client = server.client();
  });

  after(async () => {
    const code = await server?.stop({ removeDir: true });
    assert.equal(code, 0, 'ttlstore exit code after SIGTERM');
  });

  // PUT rows [id, versions] through BatchWriteRow, 200 a request; versions are [value, ts].
  async function load(t, rows) {
    for (let i = 0; i < rows.length; i += 200) {
      await client.batchWriteRow({
        tables: [{
          tableName: t,
          rows: rows.slice(i, i + 200).map(([id, versions]) => ({
            type: 'PUT', condition: condition('IGNORE'), primaryKey: [{ id }],
            attributeColumns: versions.map(([v, ts]) => ({ c: v, timestamp: ts })),
          })),
        }],
      });
    }
  }
  async function scanAll(t, maxVersions) {
    const out = [];
    let start = [{ id: INF_MIN }];
    while (start) {
      const data = await client.getRange({
        tableName: t, direction: Direction.FORWARD, maxVersions,
        inclusiveStartPrimaryKey: start, exclusiveEndPrimaryKey: [{ id: INF_MAX }],
      });
      out.push(...data.rows.map((r) => [r.primaryKey[0].value, values(r)]));
      start = data.nextStartPrimaryKey ? data.nextStartPrimaryKey.map((c) => ({ [c.name]: c.value })) : null;
    }
    return out;
  }
  const id = (i) => `r${String(i).padStart(5, '0')}`;

  it('a pass reads the rows holding hidden versions, not the table', async () => {
    const t = uniqueName('cost');
    await createTable(client, t, { pk: [['id', 'STRING']], timeToLive: -1, maxVersions: 3 });
    const base = Date.now() - 10000;
    const rows = [];
    for (let i = 0; i < 2000; i += 1) {
      rows.push([id(i), i % 100 === 0 ? [['a', base], ['b', base + 1], ['c', base + 2]] : [['a', base]]]);
    }
    await load(t, rows);
    // Let a pass go by with nothing hidden, then lower max versions: 20 rows hide 2 versions.
    const runs = await server.metric(RUNS);
    await waitFor('a purge pass', async () => (await server.metric(RUNS)) > runs, { timeoutMs: 10000, intervalMs: 100 });
    const read = await server.metric(ROWS_READ);
    const purged = await server.metric(PURGED);
    await updateOptions(client, t, { maxVersions: 1 });
    await waitFor('the purge of 40 versions', async () => (await server.metric(PURGED)) >= purged + 40,
                  { timeoutMs: 15000, intervalMs: 100 });
    const runs2 = await server.metric(RUNS);
    await waitFor('one more pass', async () => (await server.metric(RUNS)) > runs2, { timeoutMs: 10000, intervalMs: 100 });
    assert.equal(await server.metric(ROWS_READ), read + 20, 'rows read by the purge');
    assert.equal(await server.metric(PURGED), purged + 40);
    await updateOptions(client, t, { maxVersions: 3 });
    const all = await scanAll(t, 3);
    assert.equal(all.length, 2000);
    assert.deepEqual(all[0], [id(0), [['c', 'c']]]);
    assert.deepEqual(all[1], [id(1), [['c', 'a']]]);
  });

  it('kill -9 during a purge loses nothing visible, and the purge resumes at the next start', async (t) => {
    const seed = Number(process.env.TTLSTORE_PURGE_KILL_SEED ?? Date.now() % 100000);
    let state = seed;
    const rand = () => { state = (state * 1103515245 + 12345) % 2147483648; return state / 2147483648; };
    const rounds = Number(process.env.TTLSTORE_PURGE_KILL_ROUNDS ?? 3);
    const N = 12000;  // a pass over them takes a few hundred ms: a kill often lands inside one
    const landed = { before: 0, during: 0, after: 0 };
    for (let round = 0; round < rounds; round += 1) {
      const name = uniqueName('kill');
      await createTable(client, name, { pk: [['id', 'STRING']], timeToLive: -1, maxVersions: 3 });
      const base = Date.now() - 10000;
      const rows = [];
      for (let i = 0; i < N; i += 1) rows.push([id(i), [['a', base], ['b', base + 1], ['c', base + 2]]]);
      await load(name, rows);
      await updateOptions(client, name, { maxVersions: 1 });
      const delay = Math.floor(rand() * 1500);
      await sleep(delay);
      const exited = new Promise((resolve) => server.child.once('exit', resolve));
      process.kill(server.child.pid, 'SIGKILL');
      await exited;
      server.port = null;
      await server._spawn();
      client = server.client();
      const context = `seed ${seed} round ${round} killed ${delay} ms after lowering max versions`;
      // Visible data as it was, whatever the purge had done.
      const seen = await scanAll(name, 3);
      assert.equal(seen.length, N, context);
      assert.ok(seen.every(([, v]) => v.length === 1 && v[0][1] === 'c'), context);
      // The pass at start-up ends the purge: raising the limit afterwards brings nothing back.
      await waitFor('the first pass after the restart', async () => (await server.metric(RUNS)) >= 1,
                    { timeoutMs: 15000, intervalMs: 100 });
      const read = await server.metric(ROWS_READ);  // what the kill left to do
      landed[read === N ? 'before' : read === 0 ? 'after' : 'during'] += 1;
      await updateOptions(client, name, { maxVersions: 3 });
      const after = await scanAll(name, 3);
      assert.equal(after.length, N, context);
      assert.ok(after.every(([, v]) => v.length === 1 && v[0][1] === 'c'), `${context}: all purged`);
    }
    t.diagnostic(`seed ${seed}: ${rounds} kills, before a pass ${landed.before}, during one ` +
                 `${landed.during}, after one ${landed.after}`);
    // The data dir is whole: every row has exactly its purge-index entries (ttlstore check).
    assert.equal(await server.stop(), 0);
    const out = execFileSync(TTLSTORE_BIN, ['check', '--data-dir', server.dataDir], { encoding: 'utf8' });
    assert.match(out, /^ok:/m, out);  // (execFileSync throws on a non-zero exit)
    server.port = null;
    await server._spawn();
    client = server.client();
  });
});
