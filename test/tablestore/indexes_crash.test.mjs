// kill -9 during a secondary index's backfill and during heavy writes to an indexed table
// (docs/background-jobs.md, "Tablestore secondary indexes"). The backfill commits each chunk of
// index rows with its cursor in one WriteBatch, and every row write puts the table row and its
// index rows in one WriteBatch, so after any kill `ttlstore check` must find every index equal to
// what its table implies (check/ts_index_check.h), and after a restart the backfill finishes.
//
// Kill moments are seeded random (TTLSTORE_CRASH_SEED moves the seed); each round says whether
// the index was still being built when it was killed (`building_at_kill`).
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';

import { Long, Server, TableStore, condition, sleep, uniqueName, waitFor } from './helpers.mjs';
import { check, killServer, rng } from './crash_helpers.mjs';

const ROWS = 20000;
const SEED = Number(process.env.TTLSTORE_CRASH_SEED ?? 20261126);

const pk = (i) => [{ id: Long.fromNumber(i) }];

async function writeBatch(client, t, from, n, tag) {
  const rows = [];
  for (let i = from; i < from + n; i++) {
    rows.push({ type: 'PUT', condition: condition('IGNORE'), primaryKey: pk(i),
      attributeColumns: [{ k: `${tag}-${(i * 7919) % 100000}` }, { v: Long.fromNumber(i) }] });
  }
  const r = await client.batchWriteRow({ tables: [{ tableName: t, rows }] });
  assert.ok(r.tables.every((x) => x.isOk), JSON.stringify(r.tables.find((x) => !x.isOk)));
}

async function indexPhase(client, t) {
  const d = await client.describeTable({ tableName: t });
  return d.indexMetas.map((m) => m.indexSyncPhase);
}

describe('tablestore secondary indexes under kill -9', () => {
  let server;

  after(async () => {
    await server?.stop({ removeDir: true });
  });

  it('a killed backfill and killed writes leave every index equal to its table', async () => {
    server = await Server.start();
    let client = server.client();
    const t = uniqueName('ixcrash');
    await client.createTable({
      tableMeta: { tableName: t, primaryKey: [{ name: 'id', type: 'INTEGER' }],
        definedColumn: [{ name: 'k', type: 4 }, { name: 'v', type: 1 }] },
      reservedThroughput: { capacityUnit: { read: 0, write: 0 } },
      tableOptions: { timeToLive: -1, maxVersions: 1 },
    });
    for (let i = 0; i < ROWS; i += 200) await writeBatch(client, t, i, 200, 'a');
    const random = rng(SEED);

    // 1. kill -9 during the backfill of a new index, twice.
    await client.createIndex({ mainTableName: t, includeBaseData: true,
      indexMeta: { name: `${t}_k`, primaryKey: ['k'], definedColumn: ['v'] } });
    for (let round = 0; round < 2; round++) {
      await sleep(random() * 150);
      const phase = await indexPhase(client, t);
      await killServer(server);
      console.log(`crash-job ts-index backfill seed=${SEED} round=${round} building_at_kill=${phase[0] === TableStore.SyncPhase.FULL} ${check(server.dataDir)}`);
      await server._spawn();
      client = server.client();
    }
    await waitFor('backfill done', async () => (await indexPhase(client, t))[0] === TableStore.SyncPhase.INCR, { timeoutMs: 60000 });

    // 2. kill -9 under heavy writes that move index rows (the indexed column changes).
    for (let round = 0; round < 2; round++) {
      let stop = false;
      const writers = [0, 1, 2, 3].map(async (w) => {
        let n = 0;
        while (!stop) {
          const from = Math.floor(random() * (ROWS - 200));
          try { await writeBatch(client, t, from, 200, `w${round}${w}${n++}`); } catch { return; }
        }
      });
      await sleep(300 + random() * 700);
      await killServer(server);
      stop = true;
      await Promise.allSettled(writers);
      console.log(`crash-job ts-index writes seed=${SEED} round=${round} ${check(server.dataDir)}`);
      await server._spawn();
      client = server.client();
    }
    // And a clean stop: still whole, and the index has one row per table row.
    const code = await server.stop();
    assert.equal(code, 0);
    const summary = check(server.dataDir);
    assert.match(summary, new RegExp(`${ROWS} Tablestore index rows`));
  });
});
