// kill -9 during a search index's build and during heavy writes to a table with a search index
// (docs/background-jobs.md, search indexes). Row writes queue their change in the row's own
// WriteBatch and the engine commits its queue position and build cursor with its documents, so
// after any kill `ttlstore check` must find the data dir whole, and after a restart the index
// catches up until Search returns exactly the table's rows.
//
// Kill moments are seeded random (TTLSTORE_CRASH_SEED moves the seed).
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';

import { Long, Server, TableStore, condition, sleep, uniqueName, waitFor } from './helpers.mjs';
import { check, killServer, rng } from './crash_helpers.mjs';
import { Q, RT, parallelScanIds, search, totalOf, waitCount } from './search_helpers.mjs';

const ROWS = 20000;
const SEED = Number(process.env.TTLSTORE_CRASH_SEED ?? 20261126);
const FT = TableStore.FieldType;

async function writeBatch(client, t, from, n, tag) {
  const rows = [];
  for (let i = from; i < from + n; i++) {
    rows.push({ type: 'PUT', condition: condition('IGNORE'), primaryKey: [{ id: Long.fromNumber(i) }],
      attributeColumns: [{ k: `${tag}-${i % 97}` }, { v: Long.fromNumber(i) }] });
  }
  const r = await client.batchWriteRow({ tables: [{ tableName: t, rows }] });
  assert.ok(r.tables.every((x) => x.isOk), JSON.stringify(r.tables.find((x) => !x.isOk)));
}

describe('tablestore search indexes under kill -9', () => {
  let server;

  after(async () => {
    await server?.stop({ removeDir: true });
  });

  it('a killed build and killed writes leave an index that catches up to its table', async () => {
    server = await Server.start();
    let client = server.client();
    const t = uniqueName('scrash');
    const ix = 'ix';
    await client.createTable({
      tableMeta: { tableName: t, primaryKey: [{ name: 'id', type: 'INTEGER' }] },
      reservedThroughput: { capacityUnit: { read: 0, write: 0 } },
      tableOptions: { timeToLive: -1, maxVersions: 1 },
    });
    for (let i = 0; i < ROWS; i += 200) await writeBatch(client, t, i, 200, 'a');
    const random = rng(SEED);

    // 1. kill -9 during the build of a new index, twice.
    await client.createSearchIndex({ tableName: t, indexName: ix, schema: { fieldSchemas: [
      { fieldName: 'k', fieldType: FT.KEYWORD }, { fieldName: 'v', fieldType: FT.LONG, enableSortAndAgg: true }] } });
    for (let round = 0; round < 2; round++) {
      await sleep(random() * 400);
      const d = await client.describeSearchIndex({ tableName: t, indexName: ix });
      await killServer(server);
      console.log(`crash-job search build seed=${SEED} round=${round} building_at_kill=${d.syncStat.syncPhase === 1} ${check(server.dataDir)}`);
      await server._spawn();
      client = server.client();
    }
    await waitCount(client, t, ix, ROWS, { timeoutMs: 60000 });

    // 2. kill -9 under heavy writes that change the indexed column.
    for (let round = 0; round < 2; round++) {
      let stop = false;
      const writers = [0, 1, 2].map(async (w) => {
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
      console.log(`crash-job search writes seed=${SEED} round=${round} ${check(server.dataDir)}`);
      await server._spawn();
      client = server.client();
    }
    // A last known write, so the catch-up has something to wait for.
    await writeBatch(client, t, 0, 200, 'z');
    await waitCount(client, t, ix, 200, { query: Q.prefix('k', 'z-'), timeoutMs: 60000 });
    await waitCount(client, t, ix, ROWS, { timeoutMs: 60000 });

    // Search returns exactly the table's rows, and each row under its current value.
    const { ids } = await parallelScanIds(client, t, ix, Q.all(), { limit: 2000 });
    assert.equal(ids.size, ROWS);
    for (let probe = 0; probe < 20; probe++) {
      const id = Math.floor(random() * ROWS);
      const row = await client.getRow({ tableName: t, primaryKey: [{ id: Long.fromNumber(id) }], maxVersions: 1 });
      const k = row.row.attributes.find((a) => a.columnName === 'k').columnValue;
      const hits = await search(client, t, ix, Q.bool({ must: [Q.term('k', k), Q.term('v', Long.fromNumber(id))] }),
        { columns: { returnType: RT.RETURN_NONE } });
      assert.equal(hits.rows.length, 1, `row ${id} with k=${k} not found by its current value`);
    }
    const stale = await totalOf(client, t, ix, Q.prefix('k', 'a-'));
    const table = await countTablePrefix(client, t, 'a-');
    assert.equal(stale, table);

    const code = await server.stop();
    assert.equal(code, 0);
    check(server.dataDir);
  });
});

// How many of the table's rows have k starting with `prefix` (a GetRange over the table).
async function countTablePrefix(client, t, prefix) {
  let start = [{ id: TableStore.INF_MIN }];
  let n = 0;
  for (;;) {
    const r = await client.getRange({ tableName: t, direction: TableStore.Direction.FORWARD,
      inclusiveStartPrimaryKey: start, exclusiveEndPrimaryKey: [{ id: TableStore.INF_MAX }],
      maxVersions: 1, columnsToGet: ['k'] });
    for (const row of r.rows) {
      if (row.attributes.find((a) => a.columnName === 'k')?.columnValue.startsWith(prefix)) n++;
    }
    if (!r.nextStartPrimaryKey) return n;
    start = r.nextStartPrimaryKey.map((p) => ({ [p.name]: p.value }));
  }
}
