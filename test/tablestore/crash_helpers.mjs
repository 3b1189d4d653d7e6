// What the kill -9 tests share (indexes_crash, purge_crash, search_crash, pg_crash): a seeded
// random generator, so that a failing round can be replayed with TTLSTORE_CRASH_SEED; killing
// the server with SIGKILL; `ttlstore check` on its data dir; and every row of a table with all
// its versions, to compare before and after.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';

import { TTLSTORE_BIN, TableStore, cells, pgStorageArgs } from './helpers.mjs';

// mulberry32: numbers in [0, 1) from a 32-bit seed.
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// SIGKILL, then wait until the process is gone.
export async function killServer(server) {
  const child = server.child;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  process.kill(child.pid, 'SIGKILL');
  await exited;
  server.port = null;
}

// `ttlstore check --data-dir`: asserts it passed and returns its summary line.
export function check(dataDir) {
  const r = spawnSync(TTLSTORE_BIN, ['check', '--data-dir', dataDir, ...pgStorageArgs(dataDir)],
    { encoding: 'utf8' });
  assert.equal(r.status, 0, `ttlstore check failed:\n${r.stdout}${r.stderr}`);
  assert.match(r.stdout, /^ok:/);
  return r.stdout.trim();
}

// Every row of `t` (a one-column primary key `id`) with up to 5 versions of each cell:
// [[id, cells], ...] in key order.
export async function readVersions(client, t) {
  const { INF_MIN, INF_MAX, Direction } = TableStore;
  const rows = [];
  let start = [{ id: INF_MIN }];
  while (start) {
    const data = await client.getRange({
      tableName: t, direction: Direction.FORWARD, maxVersions: 5,
      inclusiveStartPrimaryKey: start, exclusiveEndPrimaryKey: [{ id: INF_MAX }], limit: 200,
    });
    for (const r of data.rows) rows.push([r.primaryKey[0].value, cells(r)]);
    start = data.nextStartPrimaryKey ? data.nextStartPrimaryKey.map((c) => ({ [c.name]: c.value })) : null;
  }
  return rows;
}
