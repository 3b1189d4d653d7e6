// kill -9 of PostgreSQL itself during the Tablestore background jobs on the PostgreSQL backend
// (issue 33): a secondary index's backfill, the version purge, a search index's build. The
// postmaster gets SIGKILL at a seeded random moment of the job (scripts/pg-server.sh crash),
// stays down a moment and comes back through its crash recovery. The ttlstore process is NOT
// restarted: it must reconnect by itself and finish each job (docs/storage.md, "Background jobs
// during an outage"); then it is stopped and `ttlstore check --storage` must pass.
// (test_pg_crash.py does the same for the DynamoDB jobs; indexes_crash, purge_crash and
// search_crash kill ttlstore instead.)
//
// The test starts its own PostgreSQL 15 cluster, so it runs with the other Tablestore suites on
// RocksDB; under TTLSTORE_E2E_PG (every server on a shared cluster) it has nothing to add and is
// skipped. TTLSTORE_CRASH_SEED moves the kill moments.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import { after, before, describe, it } from 'node:test';

import {
  Long, Server, TableStore, TTLSTORE_BIN, condition, createTable, sleep, uniqueName,
  updateOptions,
} from './helpers.mjs';
import { readVersions, rng } from './crash_helpers.mjs';
import { Q, totalOf } from './search_helpers.mjs';
import { E2E_PG, pgScript } from '../pg_storage.mjs';

const SEED = Number(process.env.TTLSTORE_CRASH_SEED ?? 20261128);
const RECOVER_MS = 60000;
const FT = TableStore.FieldType;
const { INF_MIN, INF_MAX, Direction } = TableStore;

// kill -9 of the postmaster `delayMs` after now, down for up to half a second, then started
// again (crash recovery).
async function crashDatabase(dir, random, windowMs) {
  const delay = random() * windowMs;
  await sleep(delay);
  pgScript('crash', dir);
  await sleep(random() * 500);
  pgScript('resume', dir);
  return Math.round(delay);
}

// Calls fn until it stops failing (the outage's retryable answers), for up to RECOVER_MS.
async function retrying(fn) {
  const deadline = Date.now() + RECOVER_MS;
  for (;;) {
    try {
      return await fn();
    } catch (e) {
      if (Date.now() > deadline) throw e;
      await sleep(100);
    }
  }
}

async function waitUntil(what, fn) {
  const deadline = Date.now() + RECOVER_MS;
  for (;;) {
    if (await retrying(fn)) return;
    assert.ok(Date.now() < deadline, `not within ${RECOVER_MS} ms: ${what}`);
    await sleep(200);
  }
}

async function writeRows(client, t, n, tag) {
  for (let from = 0; from < n; from += 200) {
    const rows = [];
    for (let i = from; i < Math.min(n, from + 200); i++) {
      rows.push({ type: 'PUT', condition: condition('IGNORE'), primaryKey: [{ id: Long.fromNumber(i) }],
        attributeColumns: [{ k: `${tag}-${i % 97}` }, { v: Long.fromNumber(i) }] });
    }
    const r = await client.batchWriteRow({ tables: [{ tableName: t, rows }] });
    assert.ok(r.tables.every((x) => x.isOk), JSON.stringify(r.tables.find((x) => !x.isOk)));
  }
}


describe('tablestore background jobs while PostgreSQL dies', { skip: E2E_PG !== '' }, () => {
  let pgDir, conninfo, server, client;
  const random = rng(SEED);

  before(async () => {
    const out = pgScript('start');
    conninfo = /TTLSTORE_TEST_PG='([^']*)'/.exec(out)[1];
    pgDir = /TTLSTORE_PG_DIR='([^']*)'/.exec(out)[1];
    server = await Server.start({ args: ['--storage', conninfo, '--tablestore-min-ttl', '1',
      '--version-purge-interval', '1', '--log-level', 'debug'] });
    client = server.client();
  });

  after(async () => {
    await server?.stop({ removeDir: true }).catch(() => {});
    if (pgDir) pgScript('stop', pgDir);
  });

  it('a secondary index backfill finishes with one index row per table row', async () => {
    const t = uniqueName('pgix');
    await client.createTable({
      tableMeta: { tableName: t, primaryKey: [{ name: 'id', type: 'INTEGER' }],
        definedColumn: [{ name: 'k', type: 4 }, { name: 'v', type: 1 }] },
      reservedThroughput: { capacityUnit: { read: 0, write: 0 } },
      tableOptions: { timeToLive: -1, maxVersions: 1 },
    });
    await writeRows(client, t, 6000, 'a');
    await client.createIndex({ mainTableName: t, includeBaseData: true,
      indexMeta: { name: `${t}_k`, primaryKey: ['k'], definedColumn: ['v'] } });
    const killMs = await crashDatabase(pgDir, random, 300);
    await waitUntil('the backfill finished', async () =>
      (await client.describeTable({ tableName: t })).indexMetas[0].indexSyncPhase === TableStore.SyncPhase.INCR);
    // Every table row is in the index, found by its indexed value.
    let n = 0;
    let start = [{ k: INF_MIN }, { id: INF_MIN }];
    while (start) {
      const r = await retrying(() => client.getRange({ tableName: `${t}_k`, direction: Direction.FORWARD,
        inclusiveStartPrimaryKey: start, exclusiveEndPrimaryKey: [{ k: INF_MAX }, { id: INF_MAX }],
        maxVersions: 1, limit: 1000 }));
      n += r.rows.length;
      start = r.nextStartPrimaryKey ? r.nextStartPrimaryKey.map((c) => ({ [c.name]: c.value })) : null;
    }
    assert.equal(n, 6000);
    console.log(`pg-crash-job ts-index backfill seed=${SEED} kill_after_ms=${killMs}`);
  });

  it('the version purge carries on and removes what is hidden', async () => {
    const t = uniqueName('pgpurge');
    await createTable(client, t, { pk: [['id', 'STRING']], timeToLive: -1, maxVersions: 5 });
    const now = Date.now();
    const pad = crypto.randomBytes(600).toString('base64');
    for (let i = 0; i < 300; i += 1) {
      const PUT = [0, 1, 2, 3].map((k) => ({ c: `${pad}${k}`, timestamp: (k < 2 ? now - 3600000 : now - 10000) + k }));
      await client.updateRow({ tableName: t, primaryKey: [{ id: `r${String(i).padStart(4, '0')}` }],
        condition: condition('IGNORE'), updateOfAttributeColumns: [{ PUT }] });
    }
    // At most 3 versions and a 10-minute TTL: each row shows its two newest versions of c.
    await updateOptions(client, t, { maxVersions: 3, timeToLive: 600 });
    const expected = await readVersions(client, t);
    const killMs = await crashDatabase(pgDir, random, 2000);  // over two purge periods
    const logFrom = server.log().length;  // the database is back
    assert.deepEqual(await retrying(() => readVersions(client, t)), expected, 'rows read the same');
    // Two passes complete after the outage; then raising the options brings nothing back.
    await waitUntil('purge passes after the outage', async () =>
      server.log().slice(logFrom).split('event=row_purge_done').length > 2);
    await retrying(() => updateOptions(client, t, { maxVersions: 5, timeToLive: -1 }));
    const raised = await retrying(() => readVersions(client, t));
    assert.equal(raised.length, 300);
    assert.ok(raised.every(([, c]) => c.length === 2), 'purged versions stay purged');
    console.log(`pg-crash-job purge seed=${SEED} kill_after_ms=${killMs}`);
  });

  it('a search index build catches up to its table', async () => {
    const t = uniqueName('pgsearch');
    await client.createTable({
      tableMeta: { tableName: t, primaryKey: [{ name: 'id', type: 'INTEGER' }] },
      reservedThroughput: { capacityUnit: { read: 0, write: 0 } },
      tableOptions: { timeToLive: -1, maxVersions: 1 },
    });
    await writeRows(client, t, 6000, 'a');
    await client.createSearchIndex({ tableName: t, indexName: 'ix', schema: { fieldSchemas: [
      { fieldName: 'k', fieldType: FT.KEYWORD }, { fieldName: 'v', fieldType: FT.LONG, enableSortAndAgg: true }] } });
    const killMs = await crashDatabase(pgDir, random, 400);
    await writeRows(client, t, 200, 'z').catch(() => retrying(() => writeRows(client, t, 200, 'z')));
    await waitUntil('every row searchable', async () => (await totalOf(client, t, 'ix', Q.all())) === 6000);
    await waitUntil('the last writes searchable', async () =>
      (await totalOf(client, t, 'ix', Q.prefix('k', 'z-'))) === 200);
    console.log(`pg-crash-job search build seed=${SEED} kill_after_ms=${killMs}`);
  });

  it('leaves the database whole (`ttlstore check --storage`)', async () => {
    assert.equal(await server.stop(), 0);
    const r = spawnSync(TTLSTORE_BIN, ['check', '--data-dir', server.dataDir, '--storage', conninfo],
      { encoding: 'utf8' });
    assert.equal(r.status, 0, `ttlstore check failed:\n${r.stdout}${r.stderr}`);
    assert.match(r.stdout, /^ok:/);
    assert.match(r.stdout, /6000 Tablestore index rows/);
  });
});
