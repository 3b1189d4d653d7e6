// Search-index benchmark through the official Node SDK (BENCHMARKS.md, "Tablestore search
// indexes"). Starts its own server (bench/ts_server.mjs) and:
//   1. loads --rows rows (default 1,000,000) through BatchWriteRow (200 rows per call, 4 calls in
//      flight) into a table, then creates one search index and reports the index build rate:
//      rows per second from CreateSearchIndex until Search's total count equals --rows;
//   2. runs Term, Range and Bool queries for --seconds each at --concurrency and reports p50/p99
//      latency and throughput;
//   3. measures BatchWriteRow throughput (rows/s) on a table with no index and on one with a
//      secondary index and a search index.
// Prints one JSON line per figure.
//
//   node bench/search.mjs [--bin build/ttlstore] [--rows 1000000] [--seconds 10] [--concurrency 8]
//
// The SDK is the one the tests pin: run `npm ci --prefix test/tablestore` first.
import { TableStore, arg, sleep, startServer } from './ts_server.mjs';

const bin = arg('bin', 'build/ttlstore');
const rows = Math.max(100, Number(arg('rows', '1000000')));
const seconds = Math.min(Number(arg('seconds', '10')), 600);
const concurrency = Math.max(1, Number(arg('concurrency', '8')));
const writeRows = Math.max(200, Number(arg('write-rows', String(Math.min(rows, 200000)))));
const FT = TableStore.FieldType;
const QT = TableStore.QueryType;
const ignore = new TableStore.Condition(TableStore.RowExistenceExpectation.IGNORE, null);
const L = (n) => TableStore.Long.fromNumber(n);
const CATEGORIES = 100;

function rowOf(i, tag = '') {
  return { type: 'PUT', condition: ignore, primaryKey: [{ id: L(i) }],
    attributeColumns: [{ cat: `c${i % CATEGORIES}${tag}` }, { n: L(i) }, { pad: 'x'.repeat(100) }] };
}

async function createTable(srv, name) {
  await srv.call('createTable', {
    tableMeta: { tableName: name, primaryKey: [{ name: 'id', type: 'INTEGER' }],
      definedColumn: [{ name: 'cat', type: 4 }, { name: 'n', type: 1 }] },
    reservedThroughput: { capacityUnit: { read: 0, write: 0 } },
    tableOptions: { timeToLive: -1, maxVersions: 1 },
  });
}

// Writes [0, n) in BatchWriteRow calls of 200 rows, `inflight` at a time; returns seconds taken.
async function load(srv, table, n, tag = '', inflight = 4) {
  const start = Date.now();
  let next = 0;
  const worker = async () => {
    while (next < n) {
      const from = next;
      next += 200;
      const batch = [];
      for (let i = from; i < Math.min(from + 200, n); i++) batch.push(rowOf(i, tag));
      const r = await srv.call('batchWriteRow', { tables: [{ tableName: table, rows: batch }] });
      if (!r.tables.every((x) => x.isOk)) throw new Error('a BatchWriteRow row failed');
    }
  };
  await Promise.all(Array.from({ length: inflight }, worker));
  return (Date.now() - start) / 1000;
}

const createIndex = (srv, table, indexName) => srv.call('createSearchIndex', {
  tableName: table, indexName,
  schema: { fieldSchemas: [
    { fieldName: 'cat', fieldType: FT.KEYWORD, enableSortAndAgg: true },
    { fieldName: 'n', fieldType: FT.LONG, enableSortAndAgg: true },
  ] },
});

async function total(srv, table, indexName) {
  const r = await srv.call('search', { tableName: table, indexName,
    searchQuery: { query: { queryType: QT.MATCH_ALL_QUERY, query: {} }, limit: 0, getTotalCount: true },
    columnToGet: { returnType: TableStore.ColumnReturnType.RETURN_NONE } });
  return Number(r.totalCounts);
}

// Runs `query()` (a fresh query per call) at `concurrency` for `secs`; latency percentiles.
async function measure(srv, table, indexName, name, query) {
  const lat = [];
  const deadline = Date.now() + secs(seconds);
  let errors = 0;
  const worker = async () => {
    while (Date.now() < deadline) {
      const t0 = process.hrtime.bigint();
      try {
        await srv.call('search', { tableName: table, indexName,
          searchQuery: { query: query(), limit: 10, getTotalCount: false },
          columnToGet: { returnType: TableStore.ColumnReturnType.RETURN_NONE } });
        lat.push(Number(process.hrtime.bigint() - t0) / 1e6);
      } catch { errors++; }
    }
  };
  const start = Date.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = (Date.now() - start) / 1000;
  lat.sort((a, b) => a - b);
  const p = (q) => (lat.length ? lat[Math.min(lat.length - 1, Math.floor(q * lat.length))] : NaN);
  console.log(JSON.stringify({ figure: `search_${name}`, queries: lat.length, errors,
    qps: Math.round(lat.length / elapsed), p50_ms: +p(0.5).toFixed(2), p99_ms: +p(0.99).toFixed(2) }));
  if (errors > 0 || lat.length === 0) process.exitCode = 1;
}
const secs = (s) => s * 1000;

const srv = await startServer(bin);
try {
  // 1. Load, then build the index from the table.
  const t = 'bench_search';
  await createTable(srv, t);
  const loadSecs = await load(srv, t, rows);
  console.log(JSON.stringify({ figure: 'load_no_index', rows, rows_per_s: Math.round(rows / loadSecs) }));
  const t0 = Date.now();
  await createIndex(srv, t, 'ix');
  const deadline = Date.now() + 3600 * 1000;
  let seen = 0;
  while ((seen = await total(srv, t, 'ix')) < rows) {
    if (Date.now() > deadline) throw new Error(`index build stalled at ${seen} of ${rows}`);
    await sleep(200);
  }
  const buildSecs = (Date.now() - t0) / 1000;
  console.log(JSON.stringify({ figure: 'index_build', rows, seconds: +buildSecs.toFixed(2),
    rows_per_s: Math.round(rows / buildSecs) }));

  // 2. Queries.
  let k = 0;
  await measure(srv, t, 'ix', 'term', () => ({ queryType: QT.TERM_QUERY,
    query: { fieldName: 'cat', term: `c${(k++) % CATEGORIES}` } }));
  await measure(srv, t, 'ix', 'range', () => {
    const from = Math.floor(Math.random() * Math.max(1, rows - 1000));
    return { queryType: QT.RANGE_QUERY, query: { fieldName: 'n', rangeFrom: L(from), rangeTo: L(from + 1000),
      includeLower: true, includeUpper: false } };
  });
  await measure(srv, t, 'ix', 'bool', () => {
    const from = Math.floor(Math.random() * Math.max(1, rows - 10000));
    return { queryType: QT.BOOL_QUERY, query: {
      mustQueries: [{ queryType: QT.TERM_QUERY, query: { fieldName: 'cat', term: `c${(k++) % CATEGORIES}` } }],
      filterQueries: [{ queryType: QT.RANGE_QUERY, query: { fieldName: 'n', rangeFrom: L(from), rangeTo: L(from + 10000) } }],
    } };
  });

  // 3. Write throughput: no index vs one secondary index + one search index.
  const plain = 'bench_plain';
  await createTable(srv, plain);
  const plainSecs = await load(srv, plain, writeRows);
  console.log(JSON.stringify({ figure: 'write_no_index', rows: writeRows, rows_per_s: Math.round(writeRows / plainSecs) }));
  const indexed = 'bench_indexed';
  await createTable(srv, indexed);
  await srv.call('createIndex', { mainTableName: indexed, includeBaseData: false,
    indexMeta: { name: 'bench_indexed_cat', primaryKey: ['cat'], definedColumn: ['n'] } });
  await createIndex(srv, indexed, 'ix');
  const indexedSecs = await load(srv, indexed, writeRows);
  console.log(JSON.stringify({ figure: 'write_secondary_and_search_index', rows: writeRows,
    rows_per_s: Math.round(writeRows / indexedSecs) }));
  // The search index catches up with those writes too.
  const catchUp = Date.now();
  while ((await total(srv, indexed, 'ix')) < writeRows) {
    if (Date.now() - catchUp > 600000) throw new Error('search index did not catch up');
    await sleep(200);
  }
  console.log(JSON.stringify({ figure: 'search_index_catch_up', rows: writeRows,
    seconds_after_last_write: +((Date.now() - catchUp) / 1000).toFixed(2) }));
} finally {
  await srv.stop();
}
