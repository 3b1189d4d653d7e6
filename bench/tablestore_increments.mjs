// One hot counter: N increments of one cell (UpdateRow INCREMENT, one connection, one after
// another) on a table with max versions 1, against a fresh server this script starts. Reports
// the write latency (p50 / p99) and server CPU per write of the first and the last `window`
// increments, and what the row costs to store at the end: how many versions it still holds and
// the bytes of a backup of the table (`ttlstore backup`, which copies the row as stored).
//
//   node bench/tablestore_increments.mjs --bin build/ttlstore [--count 100000] \
//        [--window 1000] [--max-seconds 600]
//
// Bounded: stops after --max-seconds even if the count is not reached (a server whose rows grow
// with every write slows down quadratically) and reports how far it got.
import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import path from 'node:path';

import {
  TableStore, arg, cpuSeconds, duBytes, percentile, startServer,
} from './ts_server.mjs';

const bin = path.resolve(arg('bin', 'build/ttlstore'));
const count = Number(arg('count', '100000'));
const window = Number(arg('window', '1000'));
const maxSeconds = Math.min(Number(arg('max-seconds', '600')), 1800);

const server = await startServer(bin);
const table = 'counter';
const ignore = new TableStore.Condition(TableStore.RowExistenceExpectation.IGNORE, null);
await server.call('createTable', {
  tableMeta: { tableName: table, primaryKey: [{ name: 'id', type: 'STRING' }] },
  reservedThroughput: { capacityUnit: { read: 0, write: 0 } },
  tableOptions: { timeToLive: -1, maxVersions: 1 },
});

const latencies = new Float64Array(count);
const cpuAt = [];  // [increments done, server cpu s]
let done = 0;
const start = Date.now();
const deadline = start + maxSeconds * 1000;
cpuAt.push([0, cpuSeconds(server.pid)]);
while (done < count && Date.now() < deadline) {
  if (done > 0 && done % window === 0) cpuAt.push([done, cpuSeconds(server.pid)]);
  const t = process.hrtime.bigint();
  await server.call('updateRow', {
    tableName: table, primaryKey: [{ id: 'hot' }], condition: ignore,
    updateOfAttributeColumns: [{ INCREMENT: [{ n: TableStore.Long.fromNumber(1) }] }],
  });
  latencies[done] = Number(process.hrtime.bigint() - t) / 1e6;
  done += 1;
  if (done % 10000 === 0) {
    console.error(`  ${done} increments, ${((Date.now() - start) / 1000).toFixed(0)} s`);
  }
}
if (cpuAt[cpuAt.length - 1][0] !== done) cpuAt.push([done, cpuSeconds(server.pid)]);
const elapsed = (Date.now() - start) / 1000;

const row = await server.call('getRow', { tableName: table, primaryKey: [{ id: 'hot' }], maxVersions: 1 });
const value = Number(row.row.attributes[0].columnValue.toString());
// How many versions the row still holds: raise max versions, then ask for them all.
await server.call('updateTable', { tableName: table, tableOptions: { maxVersions: 2147483647 } });
const all = await server.call('getRow', { tableName: table, primaryKey: [{ id: 'hot' }], maxVersions: 2147483647 });
const stored = all.row.attributes.length;
const backupFile = path.join(server.root, 'counter.ttlbak');
execFileSync(bin, ['backup', '--data-dir', server.dataDir, '-t', table, '-o', backupFile], { stdio: 'ignore' });
const backupBytes = statSync(backupFile).size;
const dataBytes = duBytes(server.dataDir);
await server.stop();

function summary(from, to) {
  const s = Array.from(latencies.subarray(from, to)).sort((a, b) => a - b);
  return `p50 ${percentile(s, 0.5).toFixed(3)} ms, p99 ${percentile(s, 0.99).toFixed(3)} ms`;
}
function cpuPerOp(from, to) {
  const a = cpuAt.find(([n]) => n === from);
  const b = cpuAt.find(([n]) => n === to);
  return a && b && to > from ? `${((b[1] - a[1]) * 1e6 / (to - from)).toFixed(0)} us` : 'n/a';
}
console.log(`tablestore increments: ${done} of ${count} in ${elapsed.toFixed(1)} s ` +
            `(${(done / elapsed).toFixed(0)}/s, one connection), counter = ${value}`);
console.log(`  first ${window}: ${summary(0, Math.min(window, done))}, server cpu ${cpuPerOp(0, window)}/op`);
// The last whole window of `window` increments.
const lastTo = done - (done % window);
const lastFrom = Math.max(0, lastTo - window);
console.log(`  last ${window} (${lastFrom}..${lastTo}): ${summary(lastFrom, lastTo)}, server cpu ` +
            `${cpuPerOp(lastFrom, lastTo)}/op`);
console.log(`  row at the end: ${stored} versions stored, backup of the table ${backupBytes} bytes, ` +
            `data dir ${dataBytes} bytes`);
if (value !== done) {
  console.error(`counter is ${value}, expected ${done}`);
  process.exitCode = 1;
}
