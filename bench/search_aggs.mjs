// Aggregations and group-bys through the official Node SDK (BENCHMARKS.md, "Search: aggregations
// and KNN"). Starts its own server (bench/ts_server.mjs), loads --rows rows (an INTEGER key, a
// 100-category Keyword `cat`, a Long `n` = the row number, a Double `price`) through
// BatchWriteRow, creates a search index with sort-and-agg on the three fields and waits for it
// at most --build-seconds (reporting the rows indexed by then and the rate: a bounded run), then
// runs each aggregation request for --seconds at --concurrency (limit 0, match all unless said)
// and prints p50/p99 latency and queries/s, one JSON line per figure:
//   metrics      avg + sum + min + max + count of `price`
//   distinct     distinct_count of `cat`
//   percentiles  percentiles 50/90/99 of `n`
//   group_field  group-by field `cat` (size 10) with avg(price) in each group
//   group_range  group-by range over `n` (5 ranges)
//   group_hist   group-by histogram over `n` (20 buckets)
//   term_metrics Term cat = c7 (1% of rows) with avg + max of `price`
//
//   node bench/search_aggs.mjs [--bin build/ttlstore] [--rows 1000000] [--seconds 10]
//        [--concurrency 4] [--load-seconds 900] [--build-seconds 900]
import { TableStore, arg, sleep, startServer } from './ts_server.mjs';

const bin = arg('bin', 'build/ttlstore');
const rows = Math.max(1000, Number(arg('rows', '1000000')));
const seconds = Math.min(Number(arg('seconds', '10')), 300);
const concurrency = Math.max(1, Number(arg('concurrency', '4')));
const buildSeconds = Math.min(Number(arg('build-seconds', '900')), 3600);
const loadSeconds = Math.min(Number(arg('load-seconds', '900')), 3600);
const FT = TableStore.FieldType;
const QT = TableStore.QueryType;
const AT = TableStore.AggregationType;
const GT = TableStore.GroupByType;
const ignore = new TableStore.Condition(TableStore.RowExistenceExpectation.IGNORE, null);
const L = (n) => TableStore.Long.fromNumber(n);
const agg = (name, type, body) => ({ name, type, body });
const all = () => ({ queryType: QT.MATCH_ALL_QUERY, query: {} });

function rowOf(i) {
  return { type: 'PUT', condition: ignore, primaryKey: [{ id: L(i) }],
    attributeColumns: [{ cat: `c${i % 100}` }, { n: L(i) }, { price: (i % 10007) / 7 }] };
}

// Writes rows [0, n) (stopping at --load-seconds: a bounded run); returns [rows written, seconds].
async function load(srv, table, n, inflight = 4) {
  const start = Date.now();
  let next = 0;
  let written = 0;
  const worker = async () => {
    while (next < n && Date.now() - start < loadSeconds * 1000) {
      const from = next;
      next += 200;
      const batch = [];
      for (let i = from; i < Math.min(from + 200, n); i++) batch.push(rowOf(i));
      const r = await srv.call('batchWriteRow', { tables: [{ tableName: table, rows: batch }] });
      if (!r.tables.every((x) => x.isOk)) throw new Error('a BatchWriteRow row failed');
      written += batch.length;
    }
  };
  await Promise.all(Array.from({ length: inflight }, worker));
  return [written, (Date.now() - start) / 1000];
}

async function total(srv, table) {
  const r = await srv.call('search', { tableName: table, indexName: 'ix',
    searchQuery: { query: all(), limit: 0, getTotalCount: true },
    columnToGet: { returnType: TableStore.ColumnReturnType.RETURN_NONE } });
  return Number(r.totalCounts);
}

async function measure(srv, table, name, searchQuery, indexed) {
  const lat = [];
  const deadline = Date.now() + seconds * 1000;
  let errors = 0;
  let lastError;
  const worker = async () => {
    while (Date.now() < deadline) {
      const t0 = process.hrtime.bigint();
      try {
        await srv.call('search', { tableName: table, indexName: 'ix', searchQuery: searchQuery(),
          columnToGet: { returnType: TableStore.ColumnReturnType.RETURN_NONE } });
        lat.push(Number(process.hrtime.bigint() - t0) / 1e6);
      } catch (e) { errors++; lastError = String(e?.message ?? e); }
    }
  };
  const start = Date.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = (Date.now() - start) / 1000;
  lat.sort((a, b) => a - b);
  const p = (q) => (lat.length ? lat[Math.min(lat.length - 1, Math.floor(q * lat.length))] : NaN);
  console.log(JSON.stringify({ figure: `agg_${name}`, rows_indexed: indexed, queries: lat.length, errors,
    ...(lastError ? { last_error: lastError.slice(0, 200) } : {}),
    qps: +(lat.length / elapsed).toFixed(1), p50_ms: +p(0.5).toFixed(1), p99_ms: +p(0.99).toFixed(1) }));
}

const srv = await startServer(bin);
try {
  const t = 'bench_aggs';
  await srv.call('createTable', {
    tableMeta: { tableName: t, primaryKey: [{ name: 'id', type: 'INTEGER' }] },
    reservedThroughput: { capacityUnit: { read: 0, write: 0 } },
    tableOptions: { timeToLive: -1, maxVersions: 1 },
  });
  const [loaded, loadSecs] = await load(srv, t, rows);
  console.log(JSON.stringify({ figure: 'load', rows: loaded, complete: loaded >= rows, seconds: +loadSecs.toFixed(1),
    rows_per_s: Math.round(loaded / loadSecs) }));
  const t0 = Date.now();
  await srv.call('createSearchIndex', { tableName: t, indexName: 'ix', schema: { fieldSchemas: [
    { fieldName: 'cat', fieldType: FT.KEYWORD, enableSortAndAgg: true },
    { fieldName: 'n', fieldType: FT.LONG, enableSortAndAgg: true },
    { fieldName: 'price', fieldType: FT.DOUBLE, enableSortAndAgg: true },
  ] } });
  let indexed = 0;
  while ((indexed = await total(srv, t)) < loaded && Date.now() - t0 < buildSeconds * 1000) await sleep(500);
  const buildSecs = (Date.now() - t0) / 1000;
  console.log(JSON.stringify({ figure: 'index_build', rows: loaded, indexed, complete: indexed >= loaded,
    seconds: +buildSecs.toFixed(1), rows_per_s: Math.round(indexed / buildSecs) }));
  const q = (extra) => () => ({ query: all(), limit: 0, getTotalCount: false, ...extra });
  await measure(srv, t, 'metrics', q({ aggs: { aggs: [
    agg('avg', AT.AGG_AVG, { fieldName: 'price' }), agg('sum', AT.AGG_SUM, { fieldName: 'price' }),
    agg('min', AT.AGG_MIN, { fieldName: 'price' }), agg('max', AT.AGG_MAX, { fieldName: 'price' }),
    agg('count', AT.AGG_COUNT, { fieldName: 'price' })] } }), indexed);
  await measure(srv, t, 'distinct', q({ aggs: { aggs: [agg('dc', AT.AGG_DISTINCT_COUNT, { fieldName: 'cat' })] } }), indexed);
  await measure(srv, t, 'percentiles', q({ aggs: { aggs: [agg('p', AT.AGG_PERCENTILES, { fieldName: 'n', percentiles: [50, 90, 99] })] } }), indexed);
  await measure(srv, t, 'group_field', q({ groupBys: { groupBys: [{ name: 'g', type: GT.GROUP_BY_FIELD,
    body: { fieldName: 'cat', size: 10, subAggs: { aggs: [agg('avg', AT.AGG_AVG, { fieldName: 'price' })] } } }] } }), indexed);
  const step = Math.ceil(rows / 5);
  await measure(srv, t, 'group_range', q({ groupBys: { groupBys: [{ name: 'g', type: GT.GROUP_BY_RANGE,
    body: { fieldName: 'n', ranges: [0, 1, 2, 3, 4].map((i) => ({ from: i * step, to: (i + 1) * step })) } }] } }), indexed);
  await measure(srv, t, 'group_hist', q({ groupBys: { groupBys: [{ name: 'g', type: GT.GROUP_BY_HISTOGRAM,
    body: { fieldName: 'n', interval: L(Math.ceil(rows / 20)), fieldRange: { min: L(0), max: L(rows) } } }] } }), indexed);
  await measure(srv, t, 'term_metrics', () => ({ query: { queryType: QT.TERM_QUERY, query: { fieldName: 'cat', term: 'c7' } },
    limit: 0, getTotalCount: false, aggs: { aggs: [agg('avg', AT.AGG_AVG, { fieldName: 'price' }),
      agg('max', AT.AGG_MAX, { fieldName: 'price' })] } }), indexed);
} finally {
  await srv.stop();
}
