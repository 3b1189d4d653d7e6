// Load on the Tablestore front end through the official Node SDK (the client most users run):
// PutRow (new rows; `overwrite`: over the --keys rows loaded first), BatchWriteRow (100 new
// rows), GetRow or GetRange (10 rows) at a fixed concurrency for a bounded time. Reports ops/s,
// latency percentiles, errors, and with --server-pid the server's CPU time per operation (the
// steadiest figure on a shared machine; the SDK itself costs far more CPU than the server).
//
//   node bench/tablestore_load.mjs --endpoint http://127.0.0.1:8000 --op get \
//        --concurrency 16 --seconds 10 [--server-pid PID] [--key K --secret S] [--indexes N]
//
// --had-transactions starts and aborts one local transaction on the table before the timed run,
// so that `--op overwrite` measures what a table that has had transactions pays per write (each
// write reads its partition key's lock record: docs/tablestore.md, "Local transactions").
//
// --indexes N (0-5) gives the table N global secondary indexes on the INTEGER column n (with v
// as their attribute), so that `--op put` measures what index upkeep costs a write: each PutRow
// then also puts N index rows, in the same WriteBatch.
//
// The SDK is the one the tests pin: run `npm ci --prefix test/tablestore` first.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(new URL('../test/tablestore/package.json', import.meta.url));
const TableStore = require('tablestore');

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
}
const endpoint = arg('endpoint', 'http://127.0.0.1:8000');
const op = arg('op', 'get');
const concurrency = Number(arg('concurrency', '16'));
const seconds = Math.min(Number(arg('seconds', '10')), 600);  // bounded
const keys = Number(arg('keys', '10000'));
const serverPid = arg('server-pid', '');
const indexes = Math.max(0, Math.min(5, Number(arg('indexes', '0'))));
const client = new TableStore.Client({
  accessKeyId: arg('key', 'local'), secretAccessKey: arg('secret', 'local'), endpoint,
  instancename: 'bench', maxRetries: 0,
});
const table = `bench_${process.pid}`;
const call = (fn, params) => new Promise((resolve, reject) =>
  client[fn](params, (err, data) => (err ? reject(err) : resolve(data))));
const ignore = new TableStore.Condition(TableStore.RowExistenceExpectation.IGNORE, null);
const value = 'x'.repeat(150);
const pk = (i) => [{ gid: TableStore.Long.fromNumber(i % 1000) }, { uid: `u${i}` }];

function cpuSeconds(pid) {
  if (!pid) return 0;
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;  // utime + stime, in clock ticks of 1/100 s
}

async function one(i) {
  if (op === 'put') {
    return call('putRow', { tableName: table, condition: ignore, primaryKey: pk(i),
      attributeColumns: [{ v: value }, { n: TableStore.Long.fromNumber(i) }] });
  }
  if (op === 'overwrite') {  // puts over the --keys rows written before the timed run
    return call('putRow', { tableName: table, condition: ignore, primaryKey: pk(i % keys),
      attributeColumns: [{ v: value }, { n: TableStore.Long.fromNumber(i) }] });
  }
  if (op === 'batchput') {  // 100 new rows per BatchWriteRow: the server's share per row grows
    const rows = [];
    for (let j = 0; j < 100; j++) {
      rows.push({ type: 'PUT', condition: ignore, primaryKey: pk(i * 100 + j),
        attributeColumns: [{ v: value }, { n: TableStore.Long.fromNumber(i * 100 + j) }] });
    }
    return call('batchWriteRow', { tables: [{ tableName: table, rows }] });
  }
  if (op === 'get') return call('getRow', { tableName: table, primaryKey: pk(i % keys), maxVersions: 1 });
  if (op === 'range') {
    const g = TableStore.Long.fromNumber(i % 1000);
    return call('getRange', { tableName: table, direction: TableStore.Direction.FORWARD,
      inclusiveStartPrimaryKey: [{ gid: g }, { uid: TableStore.INF_MIN }],
      exclusiveEndPrimaryKey: [{ gid: g }, { uid: TableStore.INF_MAX }], limit: 10, maxVersions: 1 });
  }
  throw new Error(`unknown --op ${op} (put, batchput, get, range)`);
}

await call('createTable', {
  tableMeta: { tableName: table, primaryKey: [{ name: 'gid', type: 'INTEGER' }, { name: 'uid', type: 'STRING' }],
    definedColumn: [{ name: 'v', type: TableStore.DefinedColumnType.DCT_STRING },
                    { name: 'n', type: TableStore.DefinedColumnType.DCT_INTEGER }] },
  reservedThroughput: { capacityUnit: { read: 0, write: 0 } }, tableOptions: { timeToLive: -1, maxVersions: 1 },
  indexMetas: Array.from({ length: indexes }, (_, k) => ({ name: `${table}_ix${k}`, primaryKey: ['n'], definedColumn: ['v'] })),
});
if (op !== 'put' && op !== 'batchput') {
  for (let i = 0; i < keys; i += 100) {
    const rows = [];
    for (let j = i; j < Math.min(i + 100, keys); j++) {
      rows.push({ type: 'PUT', condition: ignore, primaryKey: pk(j), attributeColumns: [{ v: value }] });
    }
    await call('batchWriteRow', { tables: [{ tableName: table, rows }] });
  }
}
if (process.argv.includes('--had-transactions')) {
  const { transactionId } = await call('startLocalTransaction',
    { tableName: table, primaryKey: [{ gid: TableStore.Long.fromNumber(999999) }] });
  await call('abortTransaction', { transactionId });
}
const latencies = [];
let errors = 0;
let next = 0;
const cpu0 = cpuSeconds(serverPid);
const start = process.hrtime.bigint();
const deadline = Date.now() + seconds * 1000;
await Promise.all(Array.from({ length: concurrency }, async () => {
  while (Date.now() < deadline) {
    const t = process.hrtime.bigint();
    try { await one(next++); } catch { errors++; continue; }
    latencies.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
}));
const elapsed = Number(process.hrtime.bigint() - start) / 1e9;
const cpu = cpuSeconds(serverPid) - cpu0;
await call('deleteTable', { tableName: table });
latencies.sort((a, b) => a - b);
const pct = (p) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]?.toFixed(2);
console.log(`tablestore ${op} (${indexes} secondary indexes): ${latencies.length} ops in ${elapsed.toFixed(1)} s = ` +
  `${(latencies.length / elapsed).toFixed(0)} ops/s, concurrency ${concurrency}`);
console.log(`  latency ms p50 ${pct(0.5)} p99 ${pct(0.99)} p999 ${pct(0.999)}`);
if (serverPid) console.log(`  server cpu: ${(cpu * 1e6 / Math.max(1, latencies.length)).toFixed(1)} us/op`);
if (serverPid && op === 'batchput') {
  console.log(`  rows: ${(latencies.length * 100 / elapsed).toFixed(0)} rows/s, server cpu ` +
    `${(cpu * 1e6 / Math.max(1, latencies.length * 100)).toFixed(1)} us/row`);
}
console.log(`  errors: ${errors === 0 ? 'none' : errors}`);
if (errors > 0) process.exitCode = 1;
