// GetRange (both directions, INF_MIN/INF_MAX, limit, paging, composite keys), BatchGetRow and
// BatchWriteRow through the official SDK.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import {
  Long, Server, TableStore, cells, condition, createTable, getRow, pkOf, putVersions, uniqueName,
  values,
} from './helpers.mjs';

const { INF_MIN, INF_MAX, Direction } = TableStore;

describe('tablestore GetRange and batches', () => {
  let server;
  let client;

  before(async () => {
    server = await Server.start();
    client = server.client();
  });

  after(async () => {
    const code = await server?.stop({ removeDir: true });
    assert.equal(code, 0, 'ttlstore exit code after SIGTERM');
  });

  const key = (s, n) => [{ pk1: s }, { pk2: Long.fromNumber(n) }];

  describe('GetRange', () => {
    let t;
    // Sorted by (pk1, pk2): strings bytewise, integers numerically (-3 < 1 < 2 < 10).
    const ROWS = [['a', -3], ['a', 1], ['a', 2], ['a', 10], ['b', 1], ['b', 2], ['c', 5]];
    const base = Date.now() - 60000;

    before(async () => {
      t = uniqueName('range');
      await createTable(client, t, { pk: [['pk1', 'STRING'], ['pk2', 'INTEGER']], maxVersions: 2 });
      // Write in a shuffled order; each row gets col n (its index) and two versions of v.
      const order = [4, 0, 6, 2, 5, 1, 3];
      for (const i of order) {
        const [s, n] = ROWS[i];
        await putVersions(client, t, key(s, n), [['n', Long.fromNumber(i), base], ['v', `old${i}`, base]]);
        await putVersions(client, t, key(s, n), [['v', `new${i}`, base + 1000]]);
      }
    });

    const keysOf = (rows) => rows.map((r) => pkOf(r).map(([, v]) => (typeof v === 'bigint' ? Number(v) : v)));

    async function range(params) {
      return client.getRange({ tableName: t, ...params });
    }

    it('FORWARD from INF_MIN to INF_MAX returns every row in key order', async () => {
      const data = await range({
        direction: Direction.FORWARD,
        inclusiveStartPrimaryKey: [{ pk1: INF_MIN }, { pk2: INF_MIN }],
        exclusiveEndPrimaryKey: [{ pk1: INF_MAX }, { pk2: INF_MAX }],
      });
      assert.deepEqual(keysOf(data.rows), ROWS);
      assert.equal(data.nextStartPrimaryKey, null, 'a finished scan has no nextStartPrimaryKey');
      // Default maxVersions 1: newest version of each column.
      assert.deepEqual(cells(data.rows[0]), [['n', 0n, base], ['v', 'new0', base + 1000]]);
    });

    it('BACKWARD from INF_MAX to INF_MIN returns every row in reverse order', async () => {
      const data = await range({
        direction: Direction.BACKWARD,
        inclusiveStartPrimaryKey: [{ pk1: INF_MAX }, { pk2: INF_MAX }],
        exclusiveEndPrimaryKey: [{ pk1: INF_MIN }, { pk2: INF_MIN }],
      });
      assert.deepEqual(keysOf(data.rows), [...ROWS].reverse());
      assert.equal(data.nextStartPrimaryKey, null);
    });

    it('bounds: inclusive start, exclusive end, both directions', async () => {
      let data = await range({
        direction: Direction.FORWARD,
        inclusiveStartPrimaryKey: key('a', 1),
        exclusiveEndPrimaryKey: key('b', 2),
      });
      assert.deepEqual(keysOf(data.rows), [['a', 1], ['a', 2], ['a', 10], ['b', 1]]);
      data = await range({
        direction: Direction.BACKWARD,
        inclusiveStartPrimaryKey: key('b', 2),
        exclusiveEndPrimaryKey: key('a', 1),
      });
      assert.deepEqual(keysOf(data.rows), [['b', 2], ['b', 1], ['a', 10], ['a', 2]]);
    });

    it('INF_MIN/INF_MAX on the second key column selects one pk1 prefix', async () => {
      let data = await range({
        direction: Direction.FORWARD,
        inclusiveStartPrimaryKey: [{ pk1: 'a' }, { pk2: INF_MIN }],
        exclusiveEndPrimaryKey: [{ pk1: 'a' }, { pk2: INF_MAX }],
      });
      assert.deepEqual(keysOf(data.rows), [['a', -3], ['a', 1], ['a', 2], ['a', 10]]);
      data = await range({
        direction: Direction.BACKWARD,
        inclusiveStartPrimaryKey: [{ pk1: 'b' }, { pk2: INF_MAX }],
        exclusiveEndPrimaryKey: [{ pk1: 'b' }, { pk2: INF_MIN }],
      });
      assert.deepEqual(keysOf(data.rows), [['b', 2], ['b', 1]]);
    });

    it('an empty range returns no rows and no next key', async () => {
      const data = await range({
        direction: Direction.FORWARD,
        inclusiveStartPrimaryKey: [{ pk1: 'a9' }, { pk2: INF_MIN }],
        exclusiveEndPrimaryKey: [{ pk1: 'b' }, { pk2: INF_MIN }],
      });
      assert.deepEqual(data.rows, []);
      assert.equal(data.nextStartPrimaryKey, null);
    });

    for (const direction of [Direction.FORWARD, Direction.BACKWARD]) {
      it(`limit and paging via nextStartPrimaryKey until null (${direction})`, async () => {
        const forward = direction === Direction.FORWARD;
        let start = forward ? [{ pk1: INF_MIN }, { pk2: INF_MIN }] : [{ pk1: INF_MAX }, { pk2: INF_MAX }];
        const end = forward ? [{ pk1: INF_MAX }, { pk2: INF_MAX }] : [{ pk1: INF_MIN }, { pk2: INF_MIN }];
        const seen = [];
        const pageSizes = [];
        for (let page = 0; page < 20; page += 1) {
          const data = await range({ direction, limit: 3, inclusiveStartPrimaryKey: start, exclusiveEndPrimaryKey: end });
          assert.ok(data.rows.length <= 3, `limit 3 exceeded: ${data.rows.length}`);
          pageSizes.push(data.rows.length);
          seen.push(...keysOf(data.rows));
          if (data.nextStartPrimaryKey === null) break;
          assert.equal(data.nextStartPrimaryKey.length, 2, 'next key holds the whole primary key');
          start = data.nextStartPrimaryKey.map((p) => ({ [p.name]: p.value }));
        }
        assert.deepEqual(seen, forward ? ROWS : [...ROWS].reverse());
        assert.equal(pageSizes[0], 3, `first page should be full: ${pageSizes}`);
        assert.ok(pageSizes.length >= 3, `7 rows with limit 3 need at least 3 pages: ${pageSizes}`);
      });
    }

    it('maxVersions, timeRange and columnsToGet apply to every row', async () => {
      let data = await range({
        direction: Direction.FORWARD, maxVersions: 2, columnsToGet: ['v'],
        inclusiveStartPrimaryKey: key('b', 1), exclusiveEndPrimaryKey: key('b', 3),
      });
      assert.deepEqual(data.rows.map(cells), [
        [['v', 'new4', base + 1000], ['v', 'old4', base]],
        [['v', 'new5', base + 1000], ['v', 'old5', base]],
      ]);
      data = await range({
        direction: Direction.FORWARD, maxVersions: 2, timeRange: { startTime: base, endTime: base + 1000 },
        inclusiveStartPrimaryKey: key('c', 5), exclusiveEndPrimaryKey: [{ pk1: INF_MAX }, { pk2: INF_MAX }],
      });
      assert.deepEqual(data.rows.map(cells), [[['n', 6n, base], ['v', 'old6', base]]]);
    });

    it('deleted rows are not returned', async () => {
      const t2 = uniqueName('rangedel');
      await createTable(client, t2, { pk: [['id', 'INTEGER']] });
      for (let i = 0; i < 5; i += 1) await putVersions(client, t2, [{ id: Long.fromNumber(i) }], [['c', `v${i}`]]);
      await client.deleteRow({ tableName: t2, primaryKey: [{ id: Long.fromNumber(2) }], condition: condition('IGNORE') });
      const data = await client.getRange({
        tableName: t2, direction: Direction.FORWARD,
        inclusiveStartPrimaryKey: [{ id: INF_MIN }], exclusiveEndPrimaryKey: [{ id: INF_MAX }],
      });
      assert.deepEqual(data.rows.map((r) => pkOf(r)[0][1]), [0n, 1n, 3n, 4n]);
    });
  });

  describe('BatchGetRow', () => {
    it('returns rows from two tables, an empty row for a missing key, and a row-level error for a missing table', async () => {
      const a = uniqueName('bga');
      const b = uniqueName('bgb');
      await createTable(client, a, { pk: [['pk1', 'STRING'], ['pk2', 'INTEGER']], maxVersions: 3 });
      await createTable(client, b, { pk: [['id', 'STRING']] });
      const ts = Date.now() - 10000;
      await putVersions(client, a, key('x', 1), [['c', 'c1', ts], ['d', 3.5, ts]]);
      await putVersions(client, a, key('x', 1), [['c', 'c2', ts + 1]]);
      await putVersions(client, a, key('y', 2), [['c', 'y', ts]]);
      await putVersions(client, b, [{ id: 'q' }], [['z', Buffer.from('zz')]]);
      const missingTable = uniqueName('bgnone');

      const data = await client.batchGetRow({
        tables: [
          { tableName: a, primaryKey: [key('x', 1), key('nope', 9), key('y', 2)], maxVersions: 2 },
          { tableName: b, primaryKey: [[{ id: 'q' }]], columnsToGet: ['z'] },
          { tableName: missingTable, primaryKey: [[{ id: 'q' }]] },
        ],
      });
      assert.equal(data.tables.length, 3);
      const [ra, rb, rn] = data.tables;

      assert.equal(ra.length, 3);
      assert.ok(ra.every((r) => r.isOk && r.tableName === a), JSON.stringify(ra));
      assert.deepEqual(pkOf(ra[0]), [['pk1', 'x'], ['pk2', 1n]]);
      assert.deepEqual(cells(ra[0]), [['c', 'c2', ts + 1], ['c', 'c1', ts], ['d', 3.5, ts]]);
      assert.equal(ra[1].primaryKey, null, 'missing row: no primary key');
      assert.equal(ra[1].attributes, null, 'missing row: no attributes');
      assert.deepEqual(values(ra[2]), [['c', 'y']]);

      assert.equal(rb.length, 1);
      assert.ok(rb[0].isOk);
      assert.equal(rb[0].tableName, b);
      assert.deepEqual(values(rb[0]), [['z', Buffer.from('zz')]]);

      assert.equal(rn.length, 1);
      assert.equal(rn[0].isOk, false);
      assert.equal(rn[0].tableName, missingTable);
      assert.equal(rn[0].errorCode, 'OTSObjectNotExist');
    });
  });

  describe('BatchWriteRow', () => {
    it('PUT, UPDATE and DELETE across two tables; a failed condition fails only its row', async () => {
      const a = uniqueName('bwa');
      const b = uniqueName('bwb');
      await createTable(client, a, { pk: [['pk1', 'STRING'], ['pk2', 'INTEGER']], maxVersions: 2 });
      await createTable(client, b, { pk: [['id', 'STRING']] });
      await putVersions(client, a, key('upd', 1), [['c', 'before']]);
      await putVersions(client, a, key('del', 2), [['c', 'doomed']]);
      await putVersions(client, b, [{ id: 'exists' }], [['c', 'original']]);

      const data = await client.batchWriteRow({
        tables: [
          {
            tableName: a,
            rows: [
              { type: 'PUT', condition: condition('IGNORE'), primaryKey: key('new', 3),
                attributeColumns: [{ c: 'fresh' }, { n: Long.fromNumber(3) }] },
              { type: 'UPDATE', condition: condition('EXPECT_EXIST'), primaryKey: key('upd', 1),
                attributeColumns: [{ PUT: [{ d: 'added' }] }, { DELETE_ALL: ['c'] }] },
              { type: 'DELETE', condition: condition('IGNORE'), primaryKey: key('del', 2) },
            ],
          },
          {
            tableName: b,
            rows: [
              { type: 'PUT', condition: condition('EXPECT_NOT_EXIST'), primaryKey: [{ id: 'exists' }],
                attributeColumns: [{ c: 'overwritten?' }] },
              { type: 'PUT', condition: condition('IGNORE'), primaryKey: [{ id: 'other' }],
                attributeColumns: [{ c: 'ok' }],
                returnContent: { returnType: TableStore.ReturnType.Primarykey } },
            ],
          },
        ],
      });
      // The SDK flattens the per-table results into one list, in request order.
      const rows = data.tables;
      assert.equal(rows.length, 5, JSON.stringify(rows));
      assert.deepEqual(rows.map((r) => [r.tableName, r.isOk]), [
        [a, true], [a, true], [a, true], [b, false], [b, true],
      ]);
      assert.equal(rows[3].errorCode, 'OTSConditionCheckFail');
      assert.deepEqual(pkOf(rows[4]), [['id', 'other']]);

      assert.deepEqual(values(await getRow(client, a, key('new', 3))), [['c', 'fresh'], ['n', 3n]]);
      assert.deepEqual(values(await getRow(client, a, key('upd', 1))), [['d', 'added']]);
      assert.deepEqual(await getRow(client, a, key('del', 2)), {});
      assert.deepEqual(values(await getRow(client, b, [{ id: 'exists' }])), [['c', 'original']]);
      assert.deepEqual(values(await getRow(client, b, [{ id: 'other' }])), [['c', 'ok']]);
    });

    it('a row-level error for a missing table does not stop the other table', async () => {
      const a = uniqueName('bwok');
      await createTable(client, a, { pk: [['id', 'STRING']] });
      const missingTable = uniqueName('bwnone');
      const data = await client.batchWriteRow({
        tables: [
          { tableName: missingTable, rows: [{ type: 'PUT', condition: condition('IGNORE'), primaryKey: [{ id: 'x' }], attributeColumns: [{ c: 'v' }] }] },
          { tableName: a, rows: [{ type: 'PUT', condition: condition('IGNORE'), primaryKey: [{ id: 'x' }], attributeColumns: [{ c: 'v' }] }] },
        ],
      });
      assert.deepEqual(data.tables.map((r) => [r.tableName, r.isOk, r.errorCode]), [
        [missingTable, false, 'OTSObjectNotExist'], [a, true, null],
      ]);
      assert.deepEqual(values(await getRow(client, a, [{ id: 'x' }])), [['c', 'v']]);
    });
  });
});
