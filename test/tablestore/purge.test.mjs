// After a purge (T1, T3, T6, T8): once the compaction filter has removed invisible versions,
// raising max versions or TTL no longer brings them back. The server purges every second
// (--version-purge-interval 1); the test waits for ttlstore_versions_purged_total to move.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import {
  Server, TableStore, cells, createTable, getRow, putVersions, uniqueName, updateOptions, values,
  waitFor,
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
