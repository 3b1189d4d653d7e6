// ComputeSplitPointsBySize and the consumed capacity units of row operations, through the
// official SDK (docs/tablestore.md, "ComputeSplitPointsBySize" and "Consumed capacity").
//
// The Node SDK (5.6) carries ComputeSplitPointsBySizeRequest/Response in its compiled protocol
// but no client method for them: this test registers the operation with the SDK's own encoder
// and decoder at run time (the SDK's files are unchanged), so the call still goes through the
// SDK's request pipeline (signing, MD5, HTTP, PlainBuffer reader).
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';

import {
  Long, Server, TableStore, condition, createTable, expectOtsError, num, pkOf, putVersions,
  uniqueName,
} from './helpers.mjs';

const require = createRequire(import.meta.url);
const tsProtos = require('tablestore/lib/protocol/tablestore_compiled_proto.js').main.proto;

const { INF_MIN, INF_MAX, Direction } = TableStore;

const OP = 'computeSplitPointsBySize';
{
  const encode = TableStore.encoder.encode;
  TableStore.encoder.encode = function (operation, params) {
    if (operation !== OP) return encode.call(this, operation, params);
    const properties = { tableName: params.tableName, splitSize: params.splitSize };
    if (params.splitSizeUnitInByte !== undefined) properties.splitSizeUnitInByte = params.splitSizeUnitInByte;
    return tsProtos.ComputeSplitPointsBySizeRequest.create(properties);
  };
  const decode = TableStore.decoder.decode;
  TableStore.decoder.decode = function (operation, buffers) {
    if (operation !== OP) return decode.call(this, operation, buffers);
    const r = tsProtos.ComputeSplitPointsBySizeResponse.decode(buffers);
    return {
      consumed: r.consumed,
      schema: r.schema,
      splitPoints: r.splitPoints.map((b) => TableStore.decoder._parseRowItem(b)),
      locations: r.locations,
    };
  };
}

function computeSplits(client, params) {
  return client.makeRequest(OP, params);
}

const cu = (data) => ({ read: num(data.consumed.capacityUnit.read) || 0,
                        write: num(data.consumed.capacityUnit.write) || 0 });
const rowCu = (row) => ({ read: num(row.capacityUnit.read) || 0, write: num(row.capacityUnit.write) || 0 });

describe('tablestore splits and capacity', () => {
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

  describe('ComputeSplitPointsBySize', () => {
    let t;
    const A = 20;
    const B = ['x', 'y', 'z'];

    before(async () => {
      t = uniqueName('split');
      await createTable(client, t, { pk: [['a', 'INTEGER'], ['b', 'STRING']] });
      // 60 rows of 60 KB: about 3.5 MB, so 1 MB splits (the smallest unit) cut it several times.
      for (let a = 0; a < A; a += 1) {
        const rows = B.map((b) => ({
          type: 'PUT', condition: condition('IGNORE'),
          primaryKey: [{ a: Long.fromNumber(a) }, { b }],
          attributeColumns: [{ v: 'p'.repeat(60 * 1024) }],
        }));
        const res = await client.batchWriteRow({ tables: [{ tableName: t, rows }] });
        assert.ok(res.tables.every((r) => r.isOk));
      }
    });

    it('a small table has no split point and one location', async () => {
      const data = await computeSplits(client, { tableName: t, splitSize: 1 });  // 100 MB
      assert.equal(data.splitPoints.length, 0);
      assert.equal(data.locations.length, 1);
      assert.equal(num(data.locations[0].repeat), 1);
      // 32 characters, as the service's locations (the Java SDK's function test checks it).
      assert.equal(data.locations[0].location.length, 32);
      assert.deepEqual(data.schema.map((s) => [s.name, s.type]), [['a', 1], ['b', 2]]);
    });

    it('split points turn into GetRange ranges that cover the table exactly once', async () => {
      const data = await computeSplits(client, { tableName: t, splitSize: 1, splitSizeUnitInByte: 1024 * 1024 });
      const points = data.splitPoints.map((row) => pkOf(row));
      assert.ok(points.length >= 3, `expected several split points, got ${points.length}`);
      for (const p of points) assert.equal(p.length, 1, 'a split point holds the first column only');
      const firsts = points.map((p) => Number(p[0][1]));
      for (let i = 1; i < firsts.length; i += 1) assert.ok(firsts[i - 1] < firsts[i], 'increasing');
      assert.equal(data.locations.reduce((n, l) => n + num(l.repeat), 0), points.length + 1);

      // INF_MIN..p1, p1..p2, ..., pn..INF_MAX with the missing column padded with INF_MIN.
      const bounds = [[{ a: INF_MIN }, { b: INF_MIN }],
        ...firsts.map((a) => [{ a: Long.fromNumber(a) }, { b: INF_MIN }]),
        [{ a: INF_MAX }, { b: INF_MAX }]];
      const seen = [];
      for (let i = 0; i + 1 < bounds.length; i += 1) {
        const res = await client.getRange({
          tableName: t, direction: Direction.FORWARD,
          inclusiveStartPrimaryKey: bounds[i], exclusiveEndPrimaryKey: bounds[i + 1],
        });
        assert.ok(res.rows.length > 0, `range ${i} is not empty`);
        for (const row of res.rows) seen.push(pkOf(row).map(([, v]) => String(v)).join('/'));
      }
      const expected = [];
      for (let a = 0; a < A; a += 1) for (const b of B) expected.push(`${a}/${b}`);
      assert.deepEqual(seen, expected);
    });

    it('refuses a missing table and a bad split size', async () => {
      await expectOtsError(computeSplits(client, { tableName: 'no_such_table', splitSize: 1 }),
        404, 'OTSObjectNotExist');
      // The service's texts (the Java SDK's TestComputeSplitPointsBySize.testInvalidParam).
      await expectOtsError(computeSplits(client, { tableName: t, splitSize: 0 }),
        400, 'OTSParameterInvalid', 'The split_size should be greater than 0.');
      await expectOtsError(computeSplits(client, { tableName: t, splitSize: 1, splitSizeUnitInByte: -5 }),
        400, 'OTSParameterInvalid', 'The split_size_unit_in_byte should be greater equal than: 1048576');
      await expectOtsError(computeSplits(client, { tableName: t, splitSize: 1, splitSizeUnitInByte: 1024 * 1024 - 1 }),
        400, 'OTSParameterInvalid', 'The split_size_unit_in_byte should be greater equal than: 1048576');
    });
  });

  describe('consumed capacity units', () => {
    let t;
    let tv;
    const pk = (s) => [{ pk: s }];  // key size: 'pk' + s

    before(async () => {
      t = uniqueName('cu');
      tv = uniqueName('cuv');
      await createTable(client, t);
      await createTable(client, tv, { maxVersions: 2 });
    });

    const put = (table, key, columns, kind = 'IGNORE') => client.putRow({
      tableName: table, condition: condition(kind), primaryKey: pk(key), attributeColumns: columns,
    });

    it('PutRow: the row in write units, plus the key in read units with a row condition', async () => {
      // 'pk'+'k1' = 4, 'v' + 5000 = 5001: 5005 bytes, 2 units.
      assert.deepEqual(cu(await put(t, 'k1', [{ v: 'a'.repeat(5000) }])), { read: 0, write: 2 });
      // 4 + 1 + 4091 = 4096 bytes: exactly one unit.
      assert.deepEqual(cu(await put(t, 'k2', [{ v: 'a'.repeat(4091) }])), { read: 0, write: 1 });
      assert.deepEqual(cu(await put(t, 'k3', [{ v: 'a'.repeat(4092) }])), { read: 0, write: 2 });
      assert.deepEqual(cu(await put(t, 'k4', [{ n: Long.fromNumber(1) }], 'EXPECT_NOT_EXIST')),
                       { read: 1, write: 1 });
      // A column condition reads the row too, with IGNORE as well (the Python SDK's
      // filter_and_condition_update_unitttest.test_batch_write_row expects 1 read unit).
      const ifMissing = new TableStore.Condition(TableStore.RowExistenceExpectation.IGNORE,
        new TableStore.SingleColumnCondition('n', Long.fromNumber(7), TableStore.ComparatorType.EQUAL, true));
      assert.deepEqual(cu(await client.putRow({ tableName: t, condition: ifMissing, primaryKey: pk('k5'),
        attributeColumns: [{ n: Long.fromNumber(1) }] })), { read: 1, write: 1 });
      const batch = await client.batchWriteRow({ tables: [{ tableName: t, rows: [
        { type: 'PUT', condition: ifMissing, primaryKey: pk('k6'), attributeColumns: [{ n: Long.fromNumber(1) }] },
      ] }] });
      assert.deepEqual(batch.tables.map(rowCu), [{ read: 1, write: 1 }]);
    });

    it('a table that keeps versions counts 8 bytes per cell', async () => {
      const base = Date.now() - 10000;
      // 'pk'+'k' = 3, 'v' + 4084 + 8 = 4093: 4096 bytes; one more byte is 2 units.
      assert.deepEqual(cu(await putVersions(client, tv, pk('k'), [['v', 'a'.repeat(4084), base]])),
                       { read: 0, write: 1 });
      assert.deepEqual(cu(await putVersions(client, tv, pk('k'), [['v', 'a'.repeat(4085), base + 1]])),
                       { read: 0, write: 2 });
      // Both versions are read back: 3 + (1 + 8 + 4084) + (1 + 8 + 4085) = 8190 bytes.
      const got = await client.getRow({ tableName: tv, primaryKey: pk('k'), maxVersions: 2 });
      assert.equal(got.row.attributes.length, 2);
      assert.deepEqual(cu(got), { read: 2, write: 0 });
    });

    it('GetRow: the returned row in read units; nothing found costs 1', async () => {
      assert.deepEqual(cu(await client.getRow({ tableName: t, primaryKey: pk('k1'), maxVersions: 1 })),
                       { read: 2, write: 0 });
      assert.deepEqual(cu(await client.getRow({ tableName: t, primaryKey: pk('k2'), maxVersions: 1 })),
                       { read: 1, write: 0 });
      assert.deepEqual(cu(await client.getRow({ tableName: t, primaryKey: pk('none'), maxVersions: 1 })),
                       { read: 1, write: 0 });
    });

    it('UpdateRow: a deleted column counts its name only', async () => {
      // 4 + ('x' + 4090) + 'zz' = 4097 bytes: 2 units; without the delete 4095: 1 unit.
      const update = (cols) => client.updateRow({
        tableName: t, condition: condition('IGNORE'), primaryKey: pk('k5'), updateOfAttributeColumns: cols,
      });
      assert.deepEqual(cu(await update([{ PUT: [{ x: 'y'.repeat(4090) }] }])), { read: 0, write: 1 });
      assert.deepEqual(cu(await update([{ PUT: [{ x: 'y'.repeat(4090) }] }, { DELETE_ALL: ['zz'] }])),
                       { read: 0, write: 2 });
    });

    it('DeleteRow: the key in write units, plus read units with a row condition', async () => {
      const del = (key, kind) => client.deleteRow({ tableName: t, condition: condition(kind), primaryKey: pk(key) });
      assert.deepEqual(cu(await del('k3', 'IGNORE')), { read: 0, write: 1 });
      assert.deepEqual(cu(await del('k4', 'EXPECT_EXIST')), { read: 1, write: 1 });
    });

    it('GetRange: the returned rows summed in read units; an empty range costs 1', async () => {
      const r = uniqueName('cur');
      await createTable(client, r);
      for (const key of ['r1', 'r2', 'r3']) await put(r, key, [{ v: 'b'.repeat(2000) }]);  // 2005 each
      const range = (start, end) => client.getRange({
        tableName: r, direction: Direction.FORWARD, maxVersions: 1,
        inclusiveStartPrimaryKey: [{ pk: start }], exclusiveEndPrimaryKey: [{ pk: end }],
      });
      const all = await range(INF_MIN, INF_MAX);
      assert.equal(all.rows.length, 3);
      assert.deepEqual(cu(all), { read: 2, write: 0 });  // 6015 bytes
      assert.deepEqual(cu(await range('r1', 'r3')), { read: 1, write: 0 });  // 4010 bytes
      assert.deepEqual(cu(await range('s', 't')), { read: 1, write: 0 });
    });

    it('BatchGetRow and BatchWriteRow count each row; a failed condition costs 1 and 1', async () => {
      const got = await client.batchGetRow({
        tables: [{ tableName: t, maxVersions: 1, primaryKey: [pk('k1'), pk('k2'), pk('none')] }],
      });
      assert.deepEqual(got.tables[0].map(rowCu), [{ read: 2, write: 0 }, { read: 1, write: 0 },
        { read: 1, write: 0 }]);
      const written = await client.batchWriteRow({
        tables: [{
          tableName: t,
          rows: [
            { type: 'PUT', condition: condition('IGNORE'), primaryKey: pk('b1'),
              attributeColumns: [{ v: 'c'.repeat(5000) }] },
            { type: 'PUT', condition: condition('EXPECT_EXIST'), primaryKey: pk('missing'),
              attributeColumns: [{ v: 'c' }] },
            { type: 'DELETE', condition: condition('EXPECT_EXIST'), primaryKey: pk('k1') },
          ],
        }],
      });
      assert.deepEqual(written.tables.map((row) => row.isOk), [true, false, true]);
      assert.deepEqual(written.tables.map(rowCu), [{ read: 0, write: 2 }, { read: 1, write: 1 },
        { read: 1, write: 1 }]);
    });
  });
});
