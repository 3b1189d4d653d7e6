// kill -9 during the Tablestore version purge (docs/background-jobs.md): a pass runs every
// second (--version-purge-interval 1) and rewrites the rows the purge index names, up to 64 rows
// and their index entries per WriteBatch. A crash at any moment must leave every row reading
// exactly as before (hidden versions stay hidden, visible ones stay), and `ttlstore check` must
// pass on the killed data dir. Versions are hidden two ways at once here (max versions and the
// TTL); purge.test.mjs kills a larger table during its first pass.
//
// The test kills the server at seeded random moments over several purge periods and says, from
// the killed server's debug log, how many passes had finished since the last start
// (`passes_done`). TTLSTORE_CRASH_SEED moves the seed, TTLSTORE_CRASH_SEEDS runs more rounds
// (default 4).
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, describe, it } from 'node:test';

import {
  Server, condition, createTable, sleep, uniqueName, updateOptions,
} from './helpers.mjs';
import { check, killServer, readVersions, rng } from './crash_helpers.mjs';

const ROWS = 600;
const SEED = Number(process.env.TTLSTORE_CRASH_SEED ?? 20261125);
const ROUNDS = Number(process.env.TTLSTORE_CRASH_SEEDS ?? 4);


describe('tablestore purge under kill -9', () => {
  let server;

  after(async () => {
    await server?.stop({ removeDir: true });
  });

  it('rows read the same after every kill, and the data dir stays whole', async () => {
    const args = ['--tablestore-min-ttl', '1', '--version-purge-interval', '1', '--log-level', 'debug'];
    server = await Server.start({ args });
    let client = server.client();
    const t = uniqueName('purge_crash');
    await createTable(client, t, { pk: [['id', 'STRING']], timeToLive: -1, maxVersions: 5 });
    // Each row: four versions of c (the two oldest an hour old), and on every third row a
    // column d written only an hour ago.
    const now = Date.now();
    const pad = crypto.randomBytes(1500).toString('base64');  // incompressible: larger rows to rewrite
    for (let i = 0; i < ROWS; i += 1) {
      const id = `r${String(i).padStart(5, '0')}`;
      const PUT = [0, 1, 2, 3].map((k) => ({ c: `${pad}${k}`, timestamp: (k < 2 ? now - 3600000 : now - 10000) + k }));
      if (i % 3 === 0) PUT.push({ d: 'old', timestamp: now - 3600000 });
      await client.updateRow({
        tableName: t, primaryKey: [{ id }], condition: condition('IGNORE'),
        updateOfAttributeColumns: [{ PUT }],
      });
    }
    // Hide versions two ways: at most 3 kept (drops c@0), and a TTL of 10 minutes (drops c@1 and d).
    await updateOptions(client, t, { maxVersions: 3, timeToLive: 600 });
    const expected = await readVersions(client, t);
    assert.equal(expected.length, ROWS);
    assert.ok(expected.every(([, c]) => c.length === 2 && c.every(([name]) => name === 'c')));

    const random = rng(SEED);
    for (let round = 0; round < ROUNDS; round += 1) {
      const delay = 200 + random() * 2300;  // over two purge periods
      const logFrom = server.log().length;
      await sleep(delay);
      await killServer(server);
      // Passes finished between this start and the kill (0: the kill fell in or before the first).
      const passes = server.log().slice(logFrom).split('event=row_purge_done').length - 1;
      const summary = check(server.dataDir);
      console.log(`crash-job purge seed=${SEED} round=${round} kill_after_ms=${Math.round(delay)} passes_done=${passes} ${summary.trim()}`);
      await server._spawn();
      client = server.client();
      assert.deepEqual(await readVersions(client, t), expected, `rows after kill ${round}`);
    }
    // The purge itself still works after all that: the hidden versions go.
    await sleep(2500);
    const code = await server.stop();
    assert.equal(code, 0);
    check(server.dataDir);
    await server._spawn();
    client = server.client();
    assert.deepEqual(await readVersions(client, t), expected);
    // Raising the options again brings nothing back: the purge removed what was hidden.
    await updateOptions(client, t, { maxVersions: 5, timeToLive: -1 });
    const raised = await readVersions(client, t);
    assert.ok(raised.every(([, c]) => c.length === 2), 'purged versions stay purged');
  });
});
