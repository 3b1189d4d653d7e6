// GetRange's output options, sent as raw protobuf (the Node SDK 5.6 has no way to set them):
// data_block_type_hint DBT_SIMPLE_ROW_MATRIX (the Go SDK's RangeRowQueryCriteria.DataBlockType,
// its TestFuzzyGetRangeMatrix), return_entire_primary_keys false (the Go SDK's
// ReturnSpecifiedPkOnly), compress_type_hint. The matrix is read back the way the Go SDK's
// matrix.go reads it, with the Java SDK's SimpleRowMatrixBlockParser checks on top (option
// order, footer checksum); docs/tablestore.md, "GetRange: data block type, key columns,
// compression".
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';

import { Long, Server, TableStore, condition, createTable, norm, putVersions, uniqueName }
  from './helpers.mjs';
import { decode, encode, errorOf, pbKey, readRow, sdkPost } from './sdk_wire.mjs';

const require = createRequire(import.meta.url);
const filterProtos = require('tablestore/lib/protocol/tablestore_compiled_proto.js').filter.proto;
const { INF_MIN, INF_MAX } = TableStore;
const CT = TableStore.ComparatorType;

// ------------------------------------------------------------------------------------------------
// A SimpleRowMatrix reader, after the Go SDK's matrix.go: api version, data offset, option
// offset, pk count, attr count, field names (int16 length + bytes); at the option offset
// TAG_ENTIRE_PRIMARY_KEYS (10) + byte and TAG_ROW_COUNT (3) + int32 (Java requires that order);
// at the data offset the rows: TAG_ROW (2), then per field a type byte and its value; the footer
// TAG_CHECKSUM (1) + the CRC-8 of every byte before it (Java checks it).
// ------------------------------------------------------------------------------------------------

const API_VERSION = 0x304d5253;

function crc8(bytes) {
  let crc = 0;
  for (const b of bytes) {
    crc ^= b;
    for (let i = 0; i < 8; i++) crc = (crc & 0x80) ? ((crc << 1) ^ 0x07) & 0xff : (crc << 1) & 0xff;
  }
  return crc;
}

// { names, pkCount, attrCount, entire, rows: [{ primaryKey: [[name, value]], attributes:
// [[name, value]] }] } with NULL attributes left out, as Go's readMatrixData does. Values:
// INTEGER BigInt, DOUBLE number, BOOLEAN boolean, STRING string, BINARY Buffer.
function readMatrix(buf) {
  let pos = 0;
  const need = (n) => { assert.ok(pos + n <= buf.length, `matrix truncated at ${pos}`); };
  const u8 = () => { need(1); return buf[pos++]; };
  const i16 = () => { need(2); const v = buf.readInt16LE(pos); pos += 2; return v; };
  const i32 = () => { need(4); const v = buf.readInt32LE(pos); pos += 4; return v; };
  const bytes = (n) => { need(n); const v = buf.subarray(pos, pos + n); pos += n; return v; };

  assert.equal(buf.readUInt32LE(0), API_VERSION, 'api version');
  pos = 4;
  const dataOffset = i32();
  const optionOffset = i32();
  const pkCount = i32();
  const attrCount = i32();
  const names = [];
  for (let i = 0; i < pkCount + attrCount; i++) names.push(bytes(i16()).toString('utf8'));
  pos = optionOffset;
  assert.equal(u8(), 10, 'TAG_ENTIRE_PRIMARY_KEYS first');
  const entire = u8();
  assert.ok(entire === 0 || entire === 1);
  assert.equal(u8(), 3, 'TAG_ROW_COUNT');
  const rowCount = i32();
  assert.equal(buf[buf.length - 2], 1, 'TAG_CHECKSUM');
  assert.equal(buf[buf.length - 1], crc8(buf.subarray(0, buf.length - 1)), 'checksum');

  const value = (isKey) => {
    const type = u8();
    switch (type) {
      case 0: { need(8); const v = buf.readBigInt64LE(pos); pos += 8; return v; }
      case 1: assert.ok(!isKey); { need(8); const v = buf.readDoubleLE(pos); pos += 8; return v; }
      case 2: { assert.ok(!isKey); const b = u8(); assert.ok(b <= 1); return b === 1; }
      case 3: return bytes(i32()).toString('utf8');
      case 7: return Buffer.from(bytes(i32()));
      case 6: assert.ok(!isKey, 'a NULL key cell'); return undefined;
      default: assert.fail(`unexpected cell type ${type}`);
    }
  };
  pos = dataOffset;
  const rows = [];
  for (let r = 0; r < rowCount; r++) {
    assert.equal(u8(), 2, 'TAG_ROW');
    const row = { primaryKey: [], attributes: [] };
    for (let f = 0; f < names.length; f++) {
      const v = value(f < pkCount);
      if (f < pkCount) row.primaryKey.push([names[f], v]);
      else if (v !== undefined) row.attributes.push([names[f], v]);
    }
    rows.push(row);
  }
  assert.equal(pos, buf.length - 2, 'nothing between the last row and the footer');
  return { names, pkCount, attrCount, entire: entire === 1, rows };
}

// PlainBuffer rows as the Node SDK reads them, in readMatrix's shape: the newest version of
// each column (the matrix's one value), in the order of `columns`.
function plainRows(buf, columns) {
  if (buf.length === 0) return [];
  // The SDK's stream takes { buffer, offset, limit } (its decoder hands it a ByteBuffer).
  const input = new TableStore.PlainBufferInputStream({ buffer: buf, offset: 0, limit: buf.length });
  const rows = new TableStore.PlainBufferCodedInputStream(input).readRows();
  return rows.map((row) => ({
    primaryKey: row.primaryKey.map((p) => [p.name, norm(p.value)]),
    attributes: columns.flatMap((c) => {
      const cell = row.attributes.find((a) => a.columnName === c);  // newest first
      return cell ? [[c, norm(cell.columnValue)]] : [];
    }),
  }));
}

function filterBytes(cond) {
  const props = {};
  TableStore.encoder._makeColumnCondition(props, cond);
  return Buffer.from(filterProtos.Filter.encode(filterProtos.Filter.create(props)).finish());
}

// A varint field appended to a message: how a value our enum lacks goes on the wire.
function withVarint(body, field, value) {
  const out = [];
  for (let v = (field << 3) >>> 0; ; v >>>= 7) {
    if (v < 0x80) { out.push(v); break; }
    out.push((v & 0x7f) | 0x80);
  }
  for (let v = value; ; v >>>= 7) {
    if (v < 0x80) { out.push(v); break; }
    out.push((v & 0x7f) | 0x80);
  }
  return Buffer.concat([body, Buffer.from(out)]);
}

describe('tablestore GetRange data block type, key columns, compression', () => {
  let server;
  let client;
  let t;      // pk1 STRING, pk2 INTEGER, pk3 BINARY
  let big;    // pk STRING, rows of 1.5 MB
  let multi;  // pk STRING, max versions 3
  const N = 12;
  const key = (i) => [{ pk1: 'k' }, { pk2: Long.fromNumber(i) }, { pk3: Buffer.from([i, 0xff]) }];
  const all = [{ pk1: INF_MIN }, { pk2: INF_MIN }, { pk3: INF_MIN }];
  const allEnd = [{ pk1: INF_MAX }, { pk2: INF_MAX }, { pk3: INF_MAX }];
  const COLUMNS = ['s', 'i', 'd', 'b', 'bin', 'nope', 'pk2', 's'];

  before(async () => {
    server = await Server.start();
    client = server.client();
    t = uniqueName('rm');
    await createTable(client, t, { pk: [['pk1', 'STRING'], ['pk2', 'INTEGER'], ['pk3', 'BINARY']] });
    for (let i = 0; i < N; i++) {
      const cols = [{ s: `s${i}é` }, { d: i + 0.5 }, { b: i % 2 === 0 }, { bin: Buffer.from([i, 0, 7]) },
        { other: 'not asked' }];
      if (i % 3 !== 0) cols.push({ i: Long.fromNumber(i * 10) });
      await client.putRow({ tableName: t, condition: condition('IGNORE'), primaryKey: key(i),
        attributeColumns: cols });
    }
    big = uniqueName('rmbig');
    await createTable(client, big);
    for (let i = 0; i < 5; i++) {
      await client.putRow({ tableName: big, condition: condition('IGNORE'), primaryKey: [{ pk: `b${i}` }],
        attributeColumns: [{ v: 'x'.repeat(1536 * 1024) }, { n: Long.fromNumber(i) }] });
    }
    multi = uniqueName('rmmv');
    await createTable(client, multi, { maxVersions: 3 });
  });
  after(async () => { await server?.stop({ removeDir: true }); });

  // GetRange over `table` (default t, the whole range) with `extra` request fields.
  async function range(extra = {}, { table = t, start = all, end = allEnd } = {}) {
    const body = encode('GetRangeRequest', {
      tableName: table, direction: 0, maxVersions: 1,
      inclusiveStartPrimaryKey: pbKey(start), exclusiveEndPrimaryKey: pbKey(end), ...extra,
    });
    return rawRange(body);
  }
  async function rawRange(body) {
    const res = await sdkPost(server.port, 'GetRange', body, { style: 'go' });
    if (res.status !== 200) return { error: errorOf(res) };
    return decode('GetRangeResponse', res.body);
  }
  const MATRIX = { dataBlockTypeHint: 1 };

  it('a matrix page holds the rows of the PlainBuffer page, one value per column', async () => {
    const plain = await range({ columnsToGet: COLUMNS, dataBlockTypeHint: 0, compressTypeHint: 0 });
    assert.equal(plain.dataBlockType, 0);
    assert.equal(plain.compressType, 0);
    const matrix = await range({ columnsToGet: COLUMNS, ...MATRIX, compressTypeHint: 0 });
    assert.equal(matrix.dataBlockType, 1);
    assert.equal(matrix.compressType, 0);
    const m = readMatrix(matrix.rows);
    // The whole key in key order, then the attributes asked for in the order asked, each once.
    assert.deepEqual(m.names, ['pk1', 'pk2', 'pk3', 's', 'i', 'd', 'b', 'bin', 'nope']);
    assert.equal(m.pkCount, 3);
    assert.equal(m.attrCount, 6);
    assert.equal(m.entire, true);
    assert.equal(m.rows.length, N);
    assert.deepEqual(m.rows, plainRows(plain.rows, m.names.slice(3)));
    // Every type, and a column a row lacks (i of rows 0, 3, 6, 9; nope of all) left out.
    assert.deepEqual(m.rows[4], {
      primaryKey: [['pk1', 'k'], ['pk2', 4n], ['pk3', Buffer.from([4, 0xff])]],
      attributes: [['s', 's4é'], ['i', 40n], ['d', 4.5], ['b', true], ['bin', Buffer.from([4, 0, 7])]],
    });
    assert.deepEqual(m.rows[3].attributes.map(([n]) => n), ['s', 'd', 'b', 'bin']);
    // Absent hints: PlainBuffer, said explicitly.
    const none = await range({ columnsToGet: ['s'] });
    assert.equal(none.dataBlockType, 0);
    assert.equal(readRow(none.rows).primaryKey.length, 3);
  });

  it('pages through next_start_primary_key, forward and backward, a filter dropping rows', async () => {
    for (const direction of [0, 1]) {
      const seen = [];
      let start = direction === 0 ? all : allEnd;
      const end = direction === 0 ? allEnd : all;
      const pageSizes = [];
      for (;;) {
        const res = await range({ columnsToGet: ['i', 's'], limit: 5, direction, ...MATRIX }, { start, end });
        assert.equal(res.dataBlockType, 1);
        const m = readMatrix(res.rows);
        pageSizes.push(m.rows.length);
        seen.push(...m.rows.map((r) => r.primaryKey[1][1]));
        if (!res.nextStartPrimaryKey) break;
        // The next start is always the whole key, in PlainBuffer.
        start = readRow(res.nextStartPrimaryKey).primaryKey.map((p) => ({ [p.name]: p.value }));
        assert.equal(start.length, 3);
      }
      const expected = [...Array(N).keys()].map(BigInt);
      assert.deepEqual(seen, direction === 0 ? expected : expected.reverse());
      assert.deepEqual(pageSizes.slice(0, 2), [5, 5]);
    }
    // i > 50 (rows 6 and 9 have no i: dropped with passIfMissing false).
    const res = await range({ columnsToGet: ['i'], ...MATRIX,
      filter: filterBytes(new TableStore.SingleColumnCondition('i', Long.fromNumber(50), CT.GREATER_THAN, false)) });
    const m = readMatrix(res.rows);
    assert.deepEqual(m.rows.map((r) => r.attributes), [[['i', 70n]], [['i', 80n]], [['i', 100n]], [['i', 110n]]]);
  });

  it('a page cut at 4 MB continues in the next, in matrix form', async () => {
    const start = [{ pk: INF_MIN }];
    let from = start;
    const got = [];
    let pages = 0;
    for (;;) {
      const res = await range({ columnsToGet: ['n', 'v'], ...MATRIX }, { table: big, start: from, end: [{ pk: INF_MAX }] });
      const m = readMatrix(res.rows);
      pages++;
      for (const r of m.rows) {
        assert.equal(r.attributes[1][1].length, 1536 * 1024);
        got.push(r.attributes[0][1]);
      }
      if (!res.nextStartPrimaryKey) break;
      from = readRow(res.nextStartPrimaryKey).primaryKey.map((p) => ({ [p.name]: p.value }));
    }
    assert.deepEqual(got, [0n, 1n, 2n, 3n, 4n]);
    assert.ok(pages >= 2, `${pages} page(s)`);
  });

  it('an empty page is a matrix block of no rows', async () => {
    const res = await range({ columnsToGet: ['s'], ...MATRIX },
      { start: [{ pk1: 'z' }, { pk2: INF_MIN }, { pk3: INF_MIN }] });
    assert.equal(res.dataBlockType, 1);
    assert.ok(res.rows.length > 0);
    const m = readMatrix(res.rows);
    assert.deepEqual(m.rows, []);
    assert.deepEqual(m.names, ['pk1', 'pk2', 'pk3', 's']);
    // A filter that drops every row: no rows either.
    const dropped = await range({ columnsToGet: ['s'], ...MATRIX,
      filter: filterBytes(new TableStore.SingleColumnCondition('s', 'none', CT.EQUAL, true)) });
    assert.deepEqual(readMatrix(dropped.rows).rows, []);
    // PlainBuffer answers an empty page with no bytes, as before.
    const plain = await range({ columnsToGet: ['s'] }, { start: [{ pk1: 'z' }, { pk2: INF_MIN }, { pk3: INF_MIN }] });
    assert.equal(plain.rows?.length ?? 0, 0);
    assert.equal(plain.dataBlockType, 0);
  });

  it('the newest version of each column among those the read selects', async () => {
    const now = Date.now();
    await putVersions(client, multi, [{ pk: 'a' }], [['v', 'one', now - 3000], ['v', 'two', now - 2000],
      ['v', 'three', now - 1000]]);
    const rowsOf = async (extra) => readMatrix((await range({ columnsToGet: ['v'], ...MATRIX, ...extra },
      { table: multi, start: [{ pk: INF_MIN }], end: [{ pk: INF_MAX }] })).rows).rows;
    assert.deepEqual((await rowsOf({ maxVersions: 3 }))[0].attributes, [['v', 'three']]);
    assert.deepEqual((await rowsOf({ maxVersions: undefined,
      timeRange: { startTime: now - 3000, endTime: now - 1500 } }))[0].attributes, [['v', 'two']]);
  });

  it('return_entire_primary_keys false: only the key columns columns_to_get names', async () => {
    const plain = await range({ columnsToGet: ['pk2', 's'], returnEntirePrimaryKeys: false, limit: 2 });
    const row = readRow(plain.rows);
    assert.deepEqual(row.primaryKey.map((p) => p.name), ['pk2']);
    assert.deepEqual(row.attributes.map((a) => a.columnName), ['s']);
    // The next start is still the whole key.
    assert.equal(readRow(plain.nextStartPrimaryKey).primaryKey.length, 3);
    const m = readMatrix((await range({ columnsToGet: ['s', 'pk3', 'pk1'], returnEntirePrimaryKeys: false,
      ...MATRIX })).rows);
    assert.deepEqual(m.names, ['pk1', 'pk3', 's']);  // key order
    assert.equal(m.pkCount, 2);
    assert.equal(m.entire, false);
    assert.equal(m.rows.length, N);
    // No key column named: rows without key cells.
    const none = readMatrix((await range({ columnsToGet: ['s'], returnEntirePrimaryKeys: false, ...MATRIX })).rows);
    assert.equal(none.pkCount, 0);
    assert.deepEqual(none.rows[0], { primaryKey: [], attributes: [['s', 's0é']] });
    const plainNone = await range({ columnsToGet: ['s'], returnEntirePrimaryKeys: false, limit: 1 });
    assert.deepEqual(readRow(plainNone.rows).primaryKey, []);
    // Every key column named, or true, or no columns_to_get: the whole key.
    for (const extra of [{ columnsToGet: ['pk3', 'pk2', 'pk1', 's'], returnEntirePrimaryKeys: false },
      { columnsToGet: ['s'], returnEntirePrimaryKeys: true }, { returnEntirePrimaryKeys: false }]) {
      const res = await range({ ...extra, limit: 1 });
      assert.equal(readRow(res.rows).primaryKey.length, 3, JSON.stringify(extra));
    }
    const entire = readMatrix((await range({ columnsToGet: ['pk3', 'pk2', 'pk1', 's'],
      returnEntirePrimaryKeys: false, ...MATRIX })).rows);
    assert.equal(entire.entire, true);
  });

  it('refuses a matrix without columns to get and hint values the protocol lacks', async () => {
    let res = await range({ ...MATRIX });
    assert.deepEqual(res.error, { status: 400, code: 'OTSParameterInvalid',
      message: 'DBT_SIMPLE_ROW_MATRIX need at least one column to get.' });
    const body = encode('GetRangeRequest', { tableName: t, direction: 0, maxVersions: 1, columnsToGet: ['s'],
      inclusiveStartPrimaryKey: pbKey(all), exclusiveEndPrimaryKey: pbKey(allEnd) });
    res = await rawRange(withVarint(body, 15, 2));
    assert.equal(res.error?.status, 400);
    assert.equal(res.error.code, 'OTSParameterInvalid');
    assert.match(res.error.message, /data_block_type_hint 2 is not supported/);
    res = await rawRange(withVarint(body, 17, 1));
    assert.equal(res.error?.code, 'OTSParameterInvalid');
    assert.match(res.error.message, /compress_type_hint 1 is not supported: only CPT_NONE \(0\) is/);
  });
});
