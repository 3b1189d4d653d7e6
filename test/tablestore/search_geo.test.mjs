// GeoPoint fields in a search index (issue 32) through the official Node SDK: CreateSearchIndex
// with GeoPoint fields (plain and array), "lat,lon" values (values that are not points leave the
// field absent, the row searchable by its other fields), GeoDistanceQuery, GeoBoundingBoxQuery
// (also across the antimeridian), GeoPolygonQuery, GeoDistanceSort (order, mode, paging by
// next_token), GroupByGeoDistance, GroupByGeoGrid (geohash cells) and a DecayFunction on a
// GeoPoint field, each checked against a brute-force computation over the same rows in this test:
// haversine distances on the points as the index keeps them (docs/search-engine.md, "Geo points":
// the service's 32-bit grid). Rows within a meter (or 1e-7 degree) of a region's edge are left out
// of the comparison: which side they fall on is the grid's rounding, not the rule under test.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { Long, Server, TableStore, condition, expectOtsError, uniqueName } from './helpers.mjs';
import { Q, search, searchIds, sorted, waitCount } from './search_helpers.mjs';

const FT = TableStore.FieldType;
const QT = TableStore.QueryType;
const ASC = TableStore.SortOrder.SORT_ORDER_ASC;
const DESC = TableStore.SortOrder.SORT_ORDER_DESC;
const BAD = [400, 'OTSParameterInvalid'];

const R = 6371008.7714;
const LAT_STEP = 180 / 2 ** 32;
const LON_STEP = 360 / 2 ** 32;
// A point as the index keeps it: each axis floored to the grid.
const grid = ([lat, lon]) => [Math.floor(lat / LAT_STEP) * LAT_STEP, Math.floor(lon / LON_STEP) * LON_STEP];
const rad = (d) => (d * Math.PI) / 180;
function haversine([lat1, lon1], [lat2, lon2]) {
  const a = Math.sin(rad(lat2 - lat1) / 2) ** 2 +
    Math.cos(rad(lat1)) * Math.cos(rad(lat2)) * Math.sin(rad(lon2 - lon1) / 2) ** 2;
  return 2 * R * Math.asin(Math.min(1, Math.sqrt(a)));
}
// Even-odd point in polygon in the lat/lon plane; `near`: within eps of an edge.
function inPolygon([y, x], poly, eps = 1e-7) {
  let inside = false;
  let near = false;
  for (let i = 0, j = poly.length - 1; i < poly.length; j = i++) {
    const [yi, xi] = poly[i];
    const [yj, xj] = poly[j];
    // Distance from the point to segment (i, j) in degrees.
    const dx = xj - xi, dy = yj - yi;
    const t = Math.max(0, Math.min(1, ((x - xi) * dx + (y - yi) * dy) / (dx * dx + dy * dy)));
    if (Math.hypot(x - (xi + t * dx), y - (yi + t * dy)) < eps) near = true;
    if ((yi > y) !== (yj > y) && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return { inside, near };
}

// A deterministic generator.
function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const N = 400;
const ANTI = 40;  // rows N..N+ANTI-1 sit around the antimeridian
const INVALID = ['abc', '91,10', '10,181', '30.1', '', '30,120,5', '-90.5,0', 'lat,lon'];

describe('search: GeoPoint fields, geo queries and GeoDistanceSort', () => {
  let server;
  let client;
  const t = uniqueName('geo');
  const ix = 'ix';
  const points = new Map();  // id -> [lat, lon] on the grid (only rows with a valid point)
  const arrays = new Map();  // id -> [[lat, lon], ...] on the grid (non-empty arrays only)
  const kOf = (i) => `k${i % 3}`;

  before(async () => {
    server = await Server.start();
    client = server.client();
    await client.createTable({
      tableMeta: { tableName: t, primaryKey: [{ name: 'id', type: 'INTEGER' }] },
      reservedThroughput: { capacityUnit: { read: 0, write: 0 } },
      tableOptions: { timeToLive: -1, maxVersions: 1 },
    });
    await client.createSearchIndex({ tableName: t, indexName: ix, schema: { fieldSchemas: [
      { fieldName: 'g', fieldType: FT.GEO_POINT, index: true, enableSortAndAgg: true },
      { fieldName: 'ga', fieldType: FT.GEO_POINT, index: true, enableSortAndAgg: true, isAnArray: true },
      { fieldName: 'k', fieldType: FT.KEYWORD, index: true, enableSortAndAgg: true },
    ] } });
    const rand = rng(32);
    const all = [];
    for (let i = 0; i < N + ANTI; i++) {
      const cols = [{ k: kOf(i) }];
      if (i >= N) {
        const lat = -2 + 4 * rand();
        let lon = 179 + 2 * rand();
        if (lon > 180) lon -= 360;
        cols.push({ g: `${lat.toFixed(6)},${lon.toFixed(6)}` });
        points.set(i, grid([Number(lat.toFixed(6)), Number(lon.toFixed(6))]));
      } else if (i % 20 === 1) {
        cols.push({ g: INVALID[(i / 20 | 0) % INVALID.length] });
      } else if (i % 20 !== 0) {
        const lat = 29 + 2 * rand();
        const lon = 119 + 2 * rand();
        cols.push({ g: ` ${lat.toFixed(6)}, ${lon.toFixed(6)}` });
        points.set(i, grid([Number(lat.toFixed(6)), Number(lon.toFixed(6))]));
      }
      if (i < N && i % 4 !== 0) {
        const n = i % 4;  // 1..3 points, one of them maybe not a point
        const arr = [];
        const kept = [];
        for (let j = 0; j < n; j++) {
          if (j === 1 && i % 8 === 2) { arr.push('nonsense'); continue; }
          const lat = 29 + 2 * rand();
          const lon = 119 + 2 * rand();
          arr.push(`${lat.toFixed(6)},${lon.toFixed(6)}`);
          kept.push(grid([Number(lat.toFixed(6)), Number(lon.toFixed(6))]));
        }
        cols.push({ ga: JSON.stringify(arr) });
        if (kept.length) arrays.set(i, kept);
      }
      all.push({ type: 'PUT', condition: condition('IGNORE'), primaryKey: [{ id: Long.fromNumber(i) }], attributeColumns: cols });
    }
    for (let at = 0; at < all.length; at += 200) {
      const r = await client.batchWriteRow({ tables: [{ tableName: t, rows: all.slice(at, at + 200) }] });
      assert.ok(r.tables.every((x) => x.isOk));
    }
    await waitCount(client, t, ix, N + ANTI);
  });

  after(async () => {
    await server?.stop({ removeDir: true });
  });

  const distance = (fieldName, centerPoint, d) => ({ queryType: QT.GEO_DISTANCE_QUERY, query: { fieldName, centerPoint, distance: d } });
  const box = (fieldName, topLeft, bottomRight) => ({ queryType: QT.GEO_BOUNDING_BOX_QUERY, query: { fieldName, topLeft, bottomRight } });
  const polygon = (fieldName, pts) => ({ queryType: QT.GEO_POLYGON_QUERY, query: { fieldName, points: pts } });
  const parse = (s) => s.split(',').map(Number);

  // Asserts that `got` holds every id of `want` and none of `not`; ids in neither are borderline.
  const assertSplit = (got, want, not, what) => {
    const g = new Set(got);
    const missing = want.filter((i) => !g.has(i));
    const extra = not.filter((i) => g.has(i));
    assert.deepEqual(missing, [], `${what}: rows inside but not found`);
    assert.deepEqual(extra, [], `${what}: rows outside but found`);
    assert.ok(got.length >= want.length, what);
  };

  it('DescribeSearchIndex shows the GeoPoint fields', async () => {
    const d = await client.describeSearchIndex({ tableName: t, indexName: ix });
    const f = d.schema.fieldSchemas;
    assert.equal(f[0].fieldName, 'g');
    assert.equal(f[0].fieldType, FT.GEO_POINT);
    assert.equal(f[1].fieldType, FT.GEO_POINT);
    assert.equal(f[1].isArray, true);
  });

  it('values that are not points leave the field absent; the row stays searchable', async () => {
    const ids = sorted(await searchIds(client, t, ix, Q.exists('g')));
    assert.deepEqual(ids, sorted([...points.keys()]));
    const arr = sorted(await searchIds(client, t, ix, Q.exists('ga')));
    assert.deepEqual(arr, sorted([...arrays.keys()]));
    // Row 1 holds 'abc': still found by k.
    const byK = await searchIds(client, t, ix, Q.term('k', kOf(1)));
    assert.ok(byK.includes(1));
  });

  it('GeoDistanceQuery matches the rows within the distance (haversine)', async () => {
    for (const [center, d] of [['30,120', 1000], ['30,120', 10000], ['30.3,119.7', 50000],
      ['30,120', 150000], ['0,179.95', 60000], ['29,119', 30000], ['45,45', 1000]]) {
      const c = parse(center);
      const want = [], not = [];
      for (const [id, p] of points) {
        const dd = haversine(c, p);
        if (dd < d - 1) want.push(id); else if (dd > d + 1) not.push(id);
      }
      const got = await searchIds(client, t, ix, distance('g', center, d));
      assertSplit(got, want, not, `distance ${center} ${d}`);
    }
    // An array field matches when any of its points is within.
    const c = [30, 120];
    const want = [], not = [];
    for (const [id, ps] of arrays) {
      const dd = Math.min(...ps.map((p) => haversine(c, p)));
      if (dd < 40000 - 1) want.push(id); else if (dd > 40000 + 1) not.push(id);
    }
    assert.ok(want.length > 10 && not.length > 10);
    assertSplit(await searchIds(client, t, ix, distance('ga', '30,120', 40000)), want, not, 'array distance');
  });

  it('GeoBoundingBoxQuery matches the rows in the box, also across the antimeridian', async () => {
    for (const [tl, br] of [['30.5,119.5', '29.5,120.5'], ['31,119', '29,121'], ['30.01,120.2', '30,120.21'],
      ['1,179.5', '-1,-179.5'], ['2,-180', '-2,-179.5']]) {
      const [top, left] = parse(tl);
      const [bottom, right] = parse(br);
      const eps = 1e-7;
      const inLon = (lon, e) => (left <= right ? lon >= left + e && lon <= right - e
        : lon >= left + e || lon <= right - e);
      const want = [], not = [];
      for (const [id, [lat, lon]] of points) {
        if (lat >= bottom + eps && lat <= top - eps && inLon(lon, eps)) want.push(id);
        else if (!(lat >= bottom - eps && lat <= top + eps && inLon(lon, -eps))) not.push(id);
      }
      const got = await searchIds(client, t, ix, box('g', tl, br));
      assertSplit(got, want, not, `box ${tl} ${br}`);
      if (tl === '1,179.5') assert.ok(want.length >= 3 && not.length > 10, 'the antimeridian box holds rows');
    }
  });

  it('GeoPolygonQuery matches the rows inside the polygon', async () => {
    const polys = [
      ['29.2,119.2', '30.8,119.5', '29.5,120.8'],
      // A concave one (an L), closed explicitly.
      ['29.1,119.1', '30.9,119.1', '30.9,119.6', '29.6,119.6', '29.6,120.9', '29.1,120.9', '29.1,119.1'],
    ];
    for (const poly of polys) {
      const p = poly.map(parse);
      const want = [], not = [];
      for (const [id, pt] of points) {
        const { inside, near } = inPolygon(pt, p);
        if (near) continue;
        (inside ? want : not).push(id);
      }
      assert.ok(want.length > 10, 'the polygon holds rows');
      const got = await searchIds(client, t, ix, polygon('g', poly));
      assertSplit(got, want, not, `polygon ${poly.join(' ')}`);
    }
  });

  it('geo queries combine with other queries in a BoolQuery', async () => {
    const c = [30, 120];
    const want = [], not = [];
    for (const [id, p] of points) {
      const dd = haversine(c, p);
      if (kOf(id) !== 'k1') continue;
      if (dd < 80000 - 1) want.push(id); else if (dd > 80000 + 1) not.push(id);
    }
    const q = Q.bool({ must: [Q.term('k', 'k1')], filter: [distance('g', '30,120', 80000)] });
    assertSplit(await searchIds(client, t, ix, q), want, not, 'bool');
    const q2 = Q.bool({ must: [Q.term('k', 'k1')], mustNot: [distance('g', '30,120', 80000)] });
    const got2 = new Set(await searchIds(client, t, ix, q2));
    for (const id of want) assert.ok(!got2.has(id));
    for (const id of not) assert.ok(got2.has(id));
  });

  // The distances of a sorted answer: each row's from `c` by `pick` over its points.
  const checkOrder = (ids, dist, desc, what) => {
    for (let i = 1; i < ids.length; i++) {
      const a = dist(ids[i - 1]), b = dist(ids[i]);
      assert.ok(desc ? a >= b - 0.01 : a <= b + 0.01, `${what}: ${ids[i - 1]} (${a}) before ${ids[i]} (${b})`);
    }
  };

  it('GeoDistanceSort orders rows by their distance, ascending and descending, across pages', async () => {
    const c = [30.2, 119.8];
    const dist = (id) => haversine(c, points.get(id));
    const inside = distance('g', '30,120', 200000);
    for (const order of [ASC, DESC]) {
      const sort = [{ geoDistanceSort: { fieldName: 'g', points: ['30.2,119.8'], order } }];
      const ids = await searchIds(client, t, ix, inside, { limit: 37, sort });
      const want = [...points.keys()].filter((id) => id < N);
      assert.deepEqual(sorted(ids), sorted(want));
      checkOrder(ids, dist, order === DESC, `sort ${order}`);
      // Exactly the brute-force order (no two rows are as close as a centimeter).
      const exact = [...want].sort((a, b) => (order === DESC ? dist(b) - dist(a) : dist(a) - dist(b)));
      assert.deepEqual(ids, exact);
    }
    // Rows without a point come after the others, in either order.
    for (const order of [ASC, DESC]) {
      const ids = await searchIds(client, t, ix, Q.all(), { limit: 100, sort: [{ geoDistanceSort: { fieldName: 'g', points: ['30.2,119.8'], order } }] });
      assert.equal(ids.length, N + ANTI);
      const firstMissing = ids.findIndex((id) => !points.has(id));
      assert.equal(firstMissing, points.size);
      checkOrder(ids.slice(0, points.size), dist, order === DESC, `all ${order}`);
    }
  });

  it('GeoDistanceSort on an array field: mode min, max and avg of several points', async () => {
    const c = [30, 120];
    const pick = {
      [TableStore.SortMode.SORT_MODE_MIN]: (ds) => Math.min(...ds),
      [TableStore.SortMode.SORT_MODE_MAX]: (ds) => Math.max(...ds),
      [TableStore.SortMode.SORT_MODE_AVG]: (ds) => ds.reduce((a, b) => a + b, 0) / ds.length,
    };
    for (const mode of Object.keys(pick).map(Number)) {
      for (const order of [ASC, DESC]) {
        const sort = [{ geoDistanceSort: { fieldName: 'ga', points: ['30,120'], order, mode } }];
        const ids = await searchIds(client, t, ix, Q.exists('ga'), { limit: 50, sort });
        assert.deepEqual(sorted(ids), sorted([...arrays.keys()]));
        const dist = (id) => pick[mode](arrays.get(id).map((p) => haversine(c, p)));
        checkOrder(ids, dist, order === DESC, `mode ${mode} order ${order}`);
      }
    }
    // Several sort points: the distance to the nearest of them (min mode).
    const ps = [[29.5, 119.5], [30.5, 120.5]];
    const dist = (id) => Math.min(...ps.map((q) => haversine(q, points.get(id))));
    const ids = await searchIds(client, t, ix, Q.exists('g'), {
      limit: 100, sort: [{ geoDistanceSort: { fieldName: 'g', points: ['29.5,119.5', '30.5,120.5'], order: ASC } }],
    });
    checkOrder(ids, dist, false, 'two points');
    // PLANE distances: accepted, same rows, near the arc order at this scale.
    const plane = await searchIds(client, t, ix, distance('g', '30,120', 50000), {
      limit: 100, sort: [{ geoDistanceSort: { fieldName: 'g', points: ['30,120'], order: ASC, distanceType: TableStore.GeoDistanceType.GEO_DISTANCE_PLANE } }],
    });
    const arcD = (id) => haversine([30, 120], points.get(id));
    assert.deepEqual(sorted(plane), sorted(await searchIds(client, t, ix, distance('g', '30,120', 50000))));
    for (let i = 1; i < plane.length; i++) assert.ok(arcD(plane[i - 1]) <= arcD(plane[i]) + 50);
  });

  // The standard geohash (bits alternate longitude, latitude; five per base-32 digit), written
  // here from its definition, and the cell a hash names.
  const BASE32 = '0123456789bcdefghjkmnpqrstuvwxyz';
  const geohash = ([lat, lon], len) => {
    const r = { lat: [-90, 90], lon: [-180, 180] };
    let out = '', v = 0, bits = 0, even = true;
    while (out.length < len) {
      const [axis, x] = even ? ['lon', lon] : ['lat', lat];
      const mid = (r[axis][0] + r[axis][1]) / 2;
      v <<= 1;
      if (x >= mid) { v |= 1; r[axis][0] = mid; } else { r[axis][1] = mid; }
      even = !even;
      if (++bits === 5) { out += BASE32[v]; v = 0; bits = 0; }
    }
    return { hash: out, top: r.lat[1], left: r.lon[0], bottom: r.lat[0], right: r.lon[1] };
  };
  const groupBy = async (g, query = Q.all()) => {
    const r = await client.search({ tableName: t, indexName: ix, searchQuery: { query, limit: 0, groupBys: { groupBys: [g] } },
      columnToGet: { returnType: TableStore.ColumnReturnType.RETURN_NONE } });
    return r.groupBys.groupByResults[0].groupByResult.items;
  };
  const GT = TableStore.GroupByType;

  it('GroupByGeoDistance counts the rows in each distance range (haversine), arrays once per range', async () => {
    // The published geohash examples first, so the brute force below is the standard one.
    assert.equal(geohash([42.6, -5.6], 5).hash, 'ezs42');
    assert.equal(geohash([57.64911, 10.40744], 11).hash, 'u4pruydqqvj');
    const origin = { lat: 30, lon: 120 };
    // Out of order on purpose, one open-ended on each side, one overlapping another.
    const ranges = [{ from: 50000, to: 100000 }, { to: 20000 }, { from: 10000, to: 60000 }, { from: 100000 }];
    const order = [1, 2, 0, 3];  // by from, then to
    for (const [field, pts] of [['g', [...points].map(([id, p]) => [id, [p]])], ['ga', [...arrays]]]) {
      const items = await groupBy({ name: 'd', type: GT.GROUP_BY_GEO_DISTANCE, body: {
        fieldName: field, origin, ranges,
        subAggs: { aggs: [{ name: 'n', type: TableStore.AggregationType.AGG_COUNT, body: { fieldName: 'k' } }] },
      } });
      assert.equal(items.length, ranges.length);
      items.forEach((item, i) => {
        const r = ranges[order[i]];
        const from = r.from ?? -Infinity, to = r.to ?? Infinity;
        assert.equal(item.from, from);
        assert.equal(item.to, to);
        let sure = 0, edge = 0;
        for (const [, ps] of pts) {
          const ds = ps.map((p) => haversine([origin.lat, origin.lon], p));
          if (ds.some((d) => d >= from + 1 && d < to - 1)) sure += 1;
          else if (ds.some((d) => d >= from - 1 && d < to + 1)) edge += 1;
        }
        const n = Number(item.rowCount);
        assert.ok(n >= sure && n <= sure + edge, `${field} [${from}, ${to}): ${n} rows, brute force ${sure} (+${edge} at an edge)`);
        assert.equal(Number(item.subAggsResult.aggResults[0].aggResult.value), n);  // every row has k
      });
      assert.ok(Number(items[0].rowCount) > 0 && Number(items[3].rowCount) > 0, 'the ranges hold rows');
    }
  });

  it('GroupByGeoGrid groups the rows by geohash cell: most rows first, size, cell bounds', async () => {
    for (const precision of [2, 4, 5]) {
      const counts = new Map();
      for (const [, p] of points) {
        const h = geohash(p, precision).hash;
        counts.set(h, (counts.get(h) ?? 0) + 1);
      }
      const want = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
      const size = Math.min(want.length, 7);
      const items = await groupBy({ name: 'grid', type: GT.GROUP_BY_GEO_GRID, body: { fieldName: 'g', precision, size } });
      assert.deepEqual(items.map((x) => [x.key, Number(x.rowCount)]), want.slice(0, size), `precision ${precision}`);
      for (const item of items) {
        // The cell of a point in it (any: they share the hash, so the cell).
        const [, p] = [...points].find(([, q]) => geohash(q, precision).hash === item.key);
        const cell = geohash(p, precision);
        assert.deepEqual([item.geoGrid.topLeft.lat, item.geoGrid.topLeft.lon, item.geoGrid.bottomRight.lat, item.geoGrid.bottomRight.lon],
          [cell.top, cell.left, cell.bottom, cell.right]);
        assert.ok(cell.top > cell.bottom && cell.right > cell.left);
      }
    }
    // An array row is in each of its cells once; a query narrows the rows.
    const arrCounts = new Map();
    for (const [, ps] of arrays) {
      for (const h of new Set(ps.map((p) => geohash(p, 4).hash))) arrCounts.set(h, (arrCounts.get(h) ?? 0) + 1);
    }
    const items = await groupBy({ name: 'grid', type: GT.GROUP_BY_GEO_GRID, body: { fieldName: 'ga', precision: 4, size: 2000 } });
    assert.deepEqual(new Map(items.map((x) => [x.key, Number(x.rowCount)])), arrCounts);
    const near = await groupBy({ name: 'grid', type: GT.GROUP_BY_GEO_GRID, body: { fieldName: 'g', precision: 1, size: 10 } },
      distance('g', '0,180', 300000));
    const anti = [...points].filter(([id]) => id >= N).map(([, p]) => geohash(p, 1).hash);
    assert.equal(near.reduce((a, x) => a + Number(x.rowCount), 0), anti.length);
  });

  it('a DecayFunction on a GeoPoint field scores by distance from its origin (meters)', async () => {
    const MF = TableStore.MathFunction;
    const origin = [30, 120];
    const scale = 20000, offset = 2000, decay = 0.5;
    // Elasticsearch's decay curves over d = max(0, distance - offset), worth `decay` at `scale`.
    const curve = {
      [MF.GAUSS]: (d) => Math.exp((d * d * Math.log(decay)) / (scale * scale)),
      [MF.EXP]: (d) => Math.exp((d * Math.log(decay)) / scale),
      [MF.LINEAR]: (d) => Math.max(0, (scale / (1 - decay) - d) / (scale / (1 - decay))),
    };
    for (const mathFunction of [MF.GAUSS, MF.EXP, MF.LINEAR]) {
      const q = { queryType: QT.FUNCTIONS_SCORE_QUERY, query: {
        query: distance('g', '30,120', 60000),
        functions: [{ decayFunction: { fieldName: 'g', mathFunction, decay,
          decayParamType: TableStore.DecayFuncParamType.DF_GEO_PARAM,
          decayParam: { origin: origin.join(','), scale, offset } } }],
        combineMode: TableStore.FSMCombineMode.FCM_REPLACE,
      } };
      const r = await search(client, t, ix, q, { limit: 100, sort: [{ scoreSort: { order: DESC } }] });
      assert.ok(r.rows.length > 20, 'rows near the origin');
      r.rows.forEach((row, i) => {
        const id = Number(row.primaryKey[0].value);
        const d = Math.max(0, haversine(origin, points.get(id)) - offset);
        const want = curve[mathFunction](d);
        const got = r.searchHits[i].score ?? 0;  // a score of 0 is left out on the wire
        assert.ok(Math.abs(got - want) <= 1e-4 * Math.max(want, 1e-3), `row ${id}: ${got} vs ${want}`);
      });
      const scores = r.searchHits.map((h) => h.score ?? 0);
      assert.deepEqual(scores, [...scores].sort((a, b) => b - a));
    }
    const bad = (decayParam, fieldName = 'g') => search(client, t, ix, { queryType: QT.FUNCTIONS_SCORE_QUERY, query: { query: Q.all(),
      functions: [{ decayFunction: { fieldName, decayParamType: TableStore.DecayFuncParamType.DF_GEO_PARAM, decayParam } }] } });
    await expectOtsError(bad({ origin: '95,0', scale: 10 }), ...BAD, 'origin:95,0 is not a geo point');
    await expectOtsError(bad({ origin: '0,0', scale: 0 }), ...BAD, 'scale');
    await expectOtsError(bad({ origin: '0,0', scale: 5 }, 'k'), ...BAD, 'DecayFuncGeoParam is only supported on GEO_POINT fields');
    await expectOtsError(bad({ origin: '0,0', scale: 5 }, 'ga'), ...BAD, 'is an array');
  });

  it('refuses bad geo group-bys with OTSParameterInvalid', async () => {
    await expectOtsError(groupBy({ name: 'x', type: GT.GROUP_BY_GEO_GRID, body: { fieldName: 'k', precision: 3 } }),
      ...BAD, '[groupby_geo_grid] field_name:k type:keyword is invalid, allow [geo_point]');
    await expectOtsError(groupBy({ name: 'x', type: GT.GROUP_BY_GEO_GRID, body: { fieldName: 'g' } }), ...BAD, 'precision');
    await expectOtsError(groupBy({ name: 'x', type: GT.GROUP_BY_GEO_GRID, body: { fieldName: 'g', precision: 3, size: 2001 } }),
      ...BAD, 'size must be in [1, 2000]');
    await expectOtsError(groupBy({ name: 'x', type: GT.GROUP_BY_GEO_DISTANCE, body: { fieldName: 'g', origin: { lat: 91, lon: 0 }, ranges: [{ to: 5 }] } }),
      ...BAD, 'origin is not a valid point');
    await expectOtsError(groupBy({ name: 'x', type: GT.GROUP_BY_GEO_DISTANCE, body: { fieldName: 'g', origin: { lat: 1, lon: 0 }, ranges: [] } }),
      ...BAD, 'ranges must not be empty');
  });

  it('refuses bad geo queries and sorts with OTSParameterInvalid', async () => {
    await expectOtsError(search(client, t, ix, distance('g', 'abc', 10)), ...BAD, 'is not a geo point');
    await expectOtsError(search(client, t, ix, distance('g', '91,0', 10)), ...BAD, 'is not a geo point');
    await expectOtsError(search(client, t, ix, distance('g', '30,120', 0)), ...BAD, 'distance');
    await expectOtsError(search(client, t, ix, distance('g', '30,120', -5)), ...BAD, 'distance');
    await expectOtsError(search(client, t, ix, distance('k', '30,120', 5)), ...BAD, 'not supported on field:k');
    await expectOtsError(search(client, t, ix, box('g', '29,119', '30,120')), ...BAD, 'top_left');
    await expectOtsError(search(client, t, ix, polygon('g', ['1,1', '2,2'])), ...BAD, 'at least 3');
    await expectOtsError(search(client, t, ix, polygon('g', ['1,1', 'x', '2,2'])), ...BAD, 'is not a geo point');
    await expectOtsError(search(client, t, ix, Q.term('g', '30,120')), ...BAD);
    await expectOtsError(search(client, t, ix, Q.all(), { sort: [{ geoDistanceSort: { fieldName: 'k', points: ['1,1'] } }] }),
      ...BAD, 'GeoDistanceSort');
    await expectOtsError(search(client, t, ix, Q.all(), { sort: [{ geoDistanceSort: { fieldName: 'g', points: [] } }] }),
      ...BAD, 'points');
    await expectOtsError(search(client, t, ix, Q.all(), { sort: [{ fieldSort: { fieldName: 'g', order: ASC } }] }),
      ...BAD, 'GeoDistanceSort');
    // Still serving.
    assert.equal((await search(client, t, ix, Q.all(), { limit: 1 })).rows.length, 1);
  });

  it('a row rewritten or deleted leaves its old point', async () => {
    const id = 2;  // a row with a valid point
    assert.ok(points.has(id));
    await client.putRow({ tableName: t, condition: condition('IGNORE'), primaryKey: [{ id: Long.fromNumber(id) }],
      attributeColumns: [{ k: kOf(id) }, { g: '-45,-45' }] });
    const q = distance('g', '-45,-45', 10);
    await waitCount(client, t, ix, 1, { query: q });
    assert.deepEqual(await searchIds(client, t, ix, q), [id]);
    await client.deleteRow({ tableName: t, condition: condition('IGNORE'), primaryKey: [{ id: Long.fromNumber(id) }] });
    await waitCount(client, t, ix, 0, { query: q });
    const near = await searchIds(client, t, ix, distance('g', `${points.get(id)[0]},${points.get(id)[1]}`, 1));
    assert.ok(!near.includes(id));
  });
});


