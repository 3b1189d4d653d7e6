// The PostgreSQL backend for the Node end-to-end suites (test/tablestore, test/js).
//
// TTLSTORE_E2E_PG (a libpq key=value connection string; scripts/test.sh sets it for the suites it
// runs on PostgreSQL, test/pg_e2e_suites.txt): every server a suite starts runs on the PostgreSQL
// backend, its data in a schema named after its data dir, so a restart on the same data dir finds
// its data as it would in a RocksDB folder. Only Node built-ins here: both suites import it.
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export const E2E_PG = process.env.TTLSTORE_E2E_PG || '';

// The `--storage` flags for a server (or `check`, `backup`, ...) whose data dir is `dataDir`:
// none without TTLSTORE_E2E_PG. Creates the schema if it is missing.
export function pgStorageArgs(dataDir) {
  if (!E2E_PG) return [];
  const schema = 'e2e_' + crypto.createHash('sha1').update(path.resolve(dataDir)).digest('hex')
    .slice(0, 16);
  const r = spawnSync('psql', [E2E_PG, '-q', '-v', 'ON_ERROR_STOP=1', '-c',
    `CREATE SCHEMA IF NOT EXISTS ${schema}`], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`psql failed: ${r.stderr}`);
  return ['--storage', `${E2E_PG} options='-csearch_path=${schema}'`];
}

// scripts/pg-server.sh `args` (start, stop DIR, crash DIR, resume DIR, ...): its standard output.
// The suites that start a private PostgreSQL cluster of their own use it.
export function pgScript(...args) {
  const r = spawnSync('bash', [path.join(REPO, 'scripts/pg-server.sh'), ...args],
    { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`pg-server.sh ${args[0]} failed: ${r.stderr}`);
  return r.stdout;
}
