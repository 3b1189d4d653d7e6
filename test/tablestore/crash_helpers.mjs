// What the kill -9 tests share (indexes_crash, purge_crash, search_crash): a seeded random
// generator, so that a failing round can be replayed with TTLSTORE_CRASH_SEED; killing the
// server with SIGKILL; and `ttlstore check` on its data dir.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';

import { TTLSTORE_BIN, pgStorageArgs } from './helpers.mjs';

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
