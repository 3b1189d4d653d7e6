// What one purge pass of hidden Tablestore versions costs: N rows of which P% carry hidden
// versions, against a fresh server this script starts. Measures the pass that follows the
// options change which hides them: its duration (the server's `row_purge_done` log line), and
// over the pass the server's CPU time and I/O (/proc/<pid>/io: rchar/wchar through read and
// write calls, read_bytes/write_bytes that reached the disk).
//
// CPU: the purge's thread plus RocksDB's background threads over the window (the whole
// process's CPU is printed too; it includes the other threads' idle ticks while waiting).
//
//   node bench/tablestore_purge.mjs --bin build/ttlstore [--rows 1000000] [--hidden-percent 1] \
//        [--kind versions|ttl] [--interval 60]
//
//   --kind versions  max versions 3; the P% rows hold 3 versions of a column, the others 1;
//                    then max versions is lowered to 1 (2 hidden versions in each of those rows)
//   --kind ttl       TTL -1; the P% rows also hold a column written 2 hours ago; then the TTL is
//                    set to 1 hour (that column is hidden, the row stays visible)
//
// The server purges every --interval seconds (--version-purge-interval). The script loads, waits
// for RocksDB to finish compacting, waits for a pass to end, changes the options at once, and
// measures until the next pass has ended: so the measured pass is the first one to see the
// hidden versions, and nothing else runs meanwhile.
import { randomBytes } from 'node:crypto';
import path from 'node:path';

import {
  TableStore, arg, cpuSeconds, duBytes, io, mb, sleep, startServer, threadCpuSeconds,
} from './ts_server.mjs';

const bin = path.resolve(arg('bin', 'build/ttlstore'));
const rows = Number(arg('rows', '1000000'));
const hiddenPercent = Number(arg('hidden-percent', '1'));
const kind = arg('kind', 'versions');
const interval = Number(arg('interval', '60'));
if (!['versions', 'ttl'].includes(kind)) throw new Error('--kind versions|ttl');

const server = await startServer(bin, ['--version-purge-interval', String(interval),
  '--log-level', 'debug', '--tablestore-min-ttl', '1']);
const table = 'purge_bench';
const ignore = new TableStore.Condition(TableStore.RowExistenceExpectation.IGNORE, null);
await server.call('createTable', {
  tableMeta: { tableName: table, primaryKey: [{ name: 'id', type: 'STRING' }] },
  reservedThroughput: { capacityUnit: { read: 0, write: 0 } },
  tableOptions: { timeToLive: -1, maxVersions: kind === 'versions' ? 3 : 1 },
});

const every = Math.round(100 / hiddenPercent);
// 100 random characters: values that compress as little as real ones, so that the data a full
// compaction rewrites is the size of the data, not of a run-length code.
const value = () => randomBytes(75).toString('base64');
const now = Date.now();
function rowOf(i) {
  const cells = [{ c: value(), timestamp: now - 1000 }];
  if (i % every === 0) {
    if (kind === 'versions') {
      cells.push({ c: value(), timestamp: now - 2000 }, { c: value(), timestamp: now - 3000 });
    } else {
      cells.push({ old: value(), timestamp: now - 7200 * 1000 });
    }
  }
  return { type: 'PUT', condition: ignore, primaryKey: [{ id: `row${String(i).padStart(8, '0')}` }],
    attributeColumns: cells };
}

// Load: BatchWriteRow of 200 rows, 4 requests in flight.
const loadStart = Date.now();
const loadCpu0 = cpuSeconds(server.pid);
let next = 0;
await Promise.all(Array.from({ length: 4 }, async () => {
  while (next < rows) {
    const from = next;
    next = Math.min(rows, next + 200);
    const batch = [];
    for (let i = from; i < next; i++) batch.push(rowOf(i));
    const res = await server.call('batchWriteRow', { tables: [{ tableName: table, rows: batch }] });
    if (res.tables.some((r) => !r.isOk)) throw new Error('a row failed to load');
  }
}));
const loadSeconds = (Date.now() - loadStart) / 1000;
const loadCpu = cpuSeconds(server.pid) - loadCpu0;
console.error(`  loaded ${rows} rows in ${loadSeconds.toFixed(1)} s`);

// Quiet: no compaction running or pending, then the end of a pass.
async function quiet() {
  for (let i = 0; i < 600; i++) {
    const running = await server.metric('ttlstore_storage_running_compactions');
    const pending = await server.metric('ttlstore_storage_pending_compaction_bytes');
    const flushes = await server.metric('ttlstore_storage_running_flushes');
    if (running === 0 && pending === 0 && flushes === 0) return;
    await sleep(1000);
  }
}
await quiet();
const runs0 = await server.metric('ttlstore_versions_purge_runs_total');
while ((await server.metric('ttlstore_versions_purge_runs_total')) === runs0) await sleep(50);
await quiet();  // (the old full compaction may leave work behind)
const runs1 = await server.metric('ttlstore_versions_purge_runs_total');
const logBefore = server.log().length;
const purged0 = await server.metric('ttlstore_versions_purged_total');
// The purge's own threads: the scheduler's ("row-purge") and RocksDB's background pool, which
// runs the compaction of the build before the purge index.
const PURGE_THREADS = /^(row-purge|rocksdb:)/;
const io0 = io(server.pid);
const cpu0 = cpuSeconds(server.pid);
const tcpu0 = threadCpuSeconds(server.pid, PURGE_THREADS);
await server.call('updateTable', { tableName: table,
  tableOptions: kind === 'versions' ? { maxVersions: 1 } : { timeToLive: 3600 } });
while ((await server.metric('ttlstore_versions_purge_runs_total')) === runs1) await sleep(50);
const io1 = io(server.pid);
const cpu1 = cpuSeconds(server.pid);
const tcpu1 = threadCpuSeconds(server.pid, PURGE_THREADS);
const purged = (await server.metric('ttlstore_versions_purged_total')) - purged0;
const line = server.log().slice(logBefore).split('\n').find((l) => l.includes('event=row_purge_done'));
const duration = /duration_ms=(\d+)/.exec(line ?? '')?.[1];
const rowsRead = /rows_read=(\d+)/.exec(line ?? '')?.[1];

// What a reader sees afterwards: a row that carried hidden versions, and one that did not.
const check = await server.call('getRow', { tableName: table, primaryKey: [{ id: 'row00000000' }],
  maxVersions: 10 });
const seen = check.row.attributes.map((a) => a.columnName).join(',');
const dataBytes = duBytes(server.dataDir);
await server.stop();

console.log(`tablestore purge (${kind}): ${rows} rows, ${hiddenPercent}% carrying hidden versions ` +
            `(${Math.ceil(rows / every)} rows)`);
console.log(`  load: ${loadSeconds.toFixed(1)} s, ${(rows / loadSeconds).toFixed(0)} rows/s, server cpu ` +
            `${(loadCpu * 1e6 / rows).toFixed(1)} us/row; data dir after ${mb(dataBytes)} MB`);
console.log(`  purge pass: ${duration ?? '?'} ms, cpu of the purge and RocksDB threads ` +
            `${(tcpu1 - tcpu0).toFixed(2)} s (whole server, idle wait included: ${(cpu1 - cpu0).toFixed(2)} s), ` +
            `versions purged ${purged}${rowsRead !== undefined ? `, rows read ${rowsRead}` : ''}`);
console.log(`  io over the pass: rchar ${mb(io1.rchar - io0.rchar)} MB, wchar ${mb(io1.wchar - io0.wchar)} MB, ` +
            `read_bytes ${mb(io1.read_bytes - io0.read_bytes)} MB, write_bytes ${mb(io1.write_bytes - io0.write_bytes)} MB`);
console.log(`  row00000000 afterwards shows: ${seen} (${check.row.attributes.length} cells)`);
// The pass must have purged exactly what the options hid, and left the newest version.
const expected = Math.ceil(rows / every) * (kind === 'versions' ? 2 : 1);
if (purged !== expected || seen !== 'c' || check.row.attributes.length !== 1) {
  console.error(`expected ${expected} versions purged and row00000000 to show one c`);
  process.exitCode = 1;
}
