// The seed's examples (T6, T9), replayed on a server whose clock starts 5 s before
// 2016-07-21 00:00 +08:00 (= 1469030400000 ms): --clock-start-ms 1469030395000.
//
// - TTL one day: a version 1468944000000 (2016-07-20 00:00 +08:00) is accepted and readable, and
//   becomes invisible once the clock passes 1469030400000 (its age then exceeds 86400 s).
// - Deviation 86400 at 00:00: versions in (1468944000000, 1469116800000) are accepted; a version
//   of 1468943999000 fails the row.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import {
  Server, cells, condition, createTable, expectOtsError, getRow, sleep, uniqueName, updateOptions,
} from './helpers.mjs';

const CLOCK_START = 1469030395000;
const MIDNIGHT = 1469030400000;        // 2016-07-21 00:00 +08:00
const DAY_BEFORE = 1468944000000;      // 2016-07-20 00:00 +08:00
const ONE_SECOND_EARLIER = 1468943999000;

describe('tablestore seed examples (server clock at 2016-07-20 23:59:55 +08:00)', () => {
  let server;
  let client;

  before(async () => {
    server = await Server.start({ args: ['--clock-start-ms', String(CLOCK_START)] });
    client = server.client();
  });

  after(async () => {
    const code = await server?.stop({ removeDir: true });
    assert.equal(code, 0, 'ttlstore exit code after SIGTERM');
  });

  it('TTL one day on version 1468944000000, then the deviation example with 1468943999000', async () => {
    const t = uniqueName('seed');
    await createTable(client, t, {
      pk: [['id', 'STRING']], timeToLive: 86400, maxVersions: 1, maxTimeDeviation: 86400,
    });

    // Before midnight on the server clock: the version is inside the write window and readable.
    await client.putRow({
      tableName: t, condition: condition('IGNORE'), primaryKey: [{ id: 'r1' }],
      attributeColumns: [{ c: 'day before', timestamp: DAY_BEFORE }],
    });
    assert.deepEqual(cells(await getRow(client, t, [{ id: 'r1' }])), [['c', 'day before', DAY_BEFORE]]);
    // The server clock runs at most as far as ours since spawn: it was before midnight here.
    const serverElapsedAtMost = Date.now() - server.spawnedAt;
    assert.ok(CLOCK_START + serverElapsedAtMost < MIDNIGHT,
              `the server took too long to start (${serverElapsedAtMost} ms) to replay the example`);

    // Wait until the server clock is surely past midnight + 1 s (its clock started no later than
    // the first GET /health answered).
    await sleep(Math.max(0, server.readyAt + (MIDNIGHT - CLOCK_START) + 1500 - Date.now()));

    // Its age now exceeds one day: invisible, and the row (all columns expired) is gone.
    assert.deepEqual(await getRow(client, t, [{ id: 'r1' }]), {});

    // Deviation example: at/after midnight, 1468943999000 is outside [now - 86400 s, ...): the
    // whole row fails and nothing is written.
    await expectOtsError(client.putRow({
      tableName: t, condition: condition('IGNORE'), primaryKey: [{ id: 'r2' }],
      attributeColumns: [{ ok: 'fine' }, { c: 'too old', timestamp: ONE_SECOND_EARLIER }],
    }), 400, 'OTSParameterInvalid', 'Invalid timestamp');
    assert.deepEqual(await getRow(client, t, [{ id: 'r2' }]), {});

    // A version near the server's "now" (2016, not the machine's real date) is accepted.
    await client.putRow({
      tableName: t, condition: condition('IGNORE'), primaryKey: [{ id: 'r3' }],
      attributeColumns: [{ c: 'now', timestamp: MIDNIGHT }],
    });
    assert.deepEqual(cells(await getRow(client, t, [{ id: 'r3' }])), [['c', 'now', MIDNIGHT]]);
    // ... and a version at the machine's real time is far beyond now + deviation.
    await expectOtsError(client.putRow({
      tableName: t, condition: condition('IGNORE'), primaryKey: [{ id: 'r4' }],
      attributeColumns: [{ c: 'future', timestamp: Date.now() }],
    }), 400, 'OTSParameterInvalid', 'Invalid timestamp');

    // T8: raising the TTL (no purge has run: default interval 3600 s) brings r1 back.
    await updateOptions(client, t, { timeToLive: 2 * 86400 });
    assert.deepEqual(cells(await getRow(client, t, [{ id: 'r1' }])), [['c', 'day before', DAY_BEFORE]]);
  });

  it('the deviation example on its own: 1468943999000 rejected after 00:00, a version inside the window accepted', async () => {
    const t = uniqueName('dev');
    await createTable(client, t, { pk: [['id', 'STRING']], timeToLive: -1, maxVersions: 1, maxTimeDeviation: 86400 });
    // By the time this test runs the server clock is past midnight (the previous test waited);
    // wait anyway in case it runs alone.
    await sleep(Math.max(0, server.readyAt + (MIDNIGHT - CLOCK_START) + 500 - Date.now()));
    await expectOtsError(client.putRow({
      tableName: t, condition: condition('IGNORE'), primaryKey: [{ id: 'x' }],
      attributeColumns: [{ c: 'x', timestamp: ONE_SECOND_EARLIER }],
    }), 400, 'OTSParameterInvalid', 'Invalid timestamp');
    // Well inside the window (one hour after the lower bound): accepted with TTL -1.
    await client.putRow({
      tableName: t, condition: condition('IGNORE'), primaryKey: [{ id: 'y' }],
      attributeColumns: [{ c: 'y', timestamp: DAY_BEFORE + 3600000 }],
    });
    assert.deepEqual(cells(await getRow(client, t, [{ id: 'y' }])), [['c', 'y', DAY_BEFORE + 3600000]]);
  });
});
