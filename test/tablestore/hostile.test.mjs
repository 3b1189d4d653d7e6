// Hostile input to the Tablestore front end over real HTTP (issue 17): deep nesting, millions of
// repeated entries, lengths that lie, oversized bodies and data, absurd headers. Each request
// gets the service's status, code and message (docs/limits.md), the server keeps serving, and
// nothing is written. Raw requests are signed as the SDK signs them (helpers.mjs); what the SDK
// can send itself is sent through it.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';

import {
  ACCESS_KEY, SECRET, Server, TableStore, condition, createTable, decodeOtsError, expectOtsError,
  getRow, hmacSha1Base64, md5Base64, rawHttp, signRequest, signedPost, uniqueName,
} from './helpers.mjs';

// Protobuf wire bytes, by hand: what the generated classes cannot produce.
function varint(n) {
  const out = [];
  while (n >= 0x80) {
    out.push((n % 0x80) | 0x80);
    n = Math.floor(n / 0x80);
  }
  out.push(n);
  return Buffer.from(out);
}
const field = (number, bytes) => Buffer.concat([varint(number * 8 + 2), varint(bytes.length), Buffer.from(bytes)]);
const varintField = (number, v) => Buffer.concat([varint(number * 8), varint(v)]);
// `count` copies of the same small field, without a million small Buffers.
function repeated(one, count) {
  const out = Buffer.alloc(one.length * count);
  for (let i = 0; i < count; i += 1) one.copy(out, i * one.length);
  return out;
}
// `depth` groups of field 15 (unknown to every request) nested in one another.
const nestedGroups = (depth) => Buffer.concat([Buffer.alloc(depth, 0x7b), Buffer.alloc(depth, 0x7c)]);

const PB = TableStore.PlainBufferBuilder;
const keyBuffer = (key) => PB.serializePrimaryKey([{ pk: key }]);
const rowBuffer = (key, columns = [{ c: 'v' }]) => PB.serializeForPutRow([{ pk: key }], columns);
const putRowBody = (table, row, extra = Buffer.alloc(0)) => Buffer.concat([
  field(1, table), field(2, row), field(3, varintField(1, 0)), extra,
]);
const getRowBody = (table, key, extra = Buffer.alloc(0)) => Buffer.concat([
  field(1, table), field(2, keyBuffer(key)), varintField(5, 1), extra,
]);

describe('tablestore hostile input', () => {
  let server;
  let client;
  let table;

  before(async () => {
    server = await Server.start();
    client = server.client();
    table = uniqueName('hostile');
    await createTable(client, table);
  });

  after(async () => {
    const code = await server?.stop({ removeDir: true });
    assert.equal(code, 0, 'ttlstore exit code after SIGTERM');
  });

  async function expectRaw(res, status, code, message) {
    assert.equal(res.status, status, `status; body ${res.body.toString('latin1').slice(0, 300)}`);
    const err = decodeOtsError(res.body);
    assert.equal(err.code, code);
    if (message instanceof RegExp) assert.match(err.message, message);
    else assert.equal(err.message, message);
    const health = await rawHttp({ port: server.port, method: 'GET', path: '/health' });
    assert.equal(health.status, 200, 'the server still serves');
  }

  async function absent(key) {
    const row = await getRow(client, table, [{ pk: key }]);
    assert.deepEqual(row, {}, `row ${key} was written`);
  }

  it('groups nested 1,000 to 1,000,000 deep are a parse error and write nothing', async () => {
    for (const depth of [1000, 100000, 1000000]) {
      const key = `nested${depth}`;
      const res = await signedPost(server.port, 'PutRow', putRowBody(table, rowBuffer(key), nestedGroups(depth)));
      await expectRaw(res, 400, 'OTSParameterInvalid', 'Parse PBMessage from RawString failed.');
      await absent(key);
    }
    // 33 levels are within protobuf's recursion limit: skipped as an unknown field.
    const res = await signedPost(server.port, 'PutRow', putRowBody(table, rowBuffer('nested33'), nestedGroups(33)));
    assert.equal(res.status, 200, decodeOtsError(res.body).message);
    assert.ok((await getRow(client, table, [{ pk: 'nested33' }])).primaryKey);
  });

  it('a million columns to get are counted, not parsed', async () => {
    const one = field(3, 'c');
    for (const count of [1025, 1000000]) {
      const res = await signedPost(server.port, 'GetRow', getRowBody(table, 'k', repeated(one, count)));
      await expectRaw(res, 400, 'OTSParameterInvalid',
        `The number of columns from the request exceeds the limit, limit count: 1024, column count: ${count}.`);
    }
    // The same limit through the SDK, at its boundary.
    const columns = (n) => Array.from({ length: n }, (_, i) => `c${i}`);
    await client.getRow({ tableName: table, primaryKey: [{ pk: 'k' }], columnsToGet: columns(1024) });
    await expectOtsError(
      client.getRow({ tableName: table, primaryKey: [{ pk: 'k' }], columnsToGet: columns(1025) }),
      400, 'OTSParameterInvalid',
      'The number of columns from the request exceeds the limit, limit count: 1024, column count: 1025.');
  });

  it('a row of 1025 columns is refused with its count; 1024 are written', async () => {
    const columns = (n) => Array.from({ length: n }, (_, i) => ({ [`c${i}`]: 'v' }));
    await client.putRow({ tableName: table, condition: condition(), primaryKey: [{ pk: 'w1024' }],
      attributeColumns: columns(1024) });
    assert.equal((await getRow(client, table, [{ pk: 'w1024' }])).attributes.length, 1024);
    await expectOtsError(
      client.putRow({ tableName: table, condition: condition(), primaryKey: [{ pk: 'w1025' }],
        attributeColumns: columns(1025) }),
      400, 'OTSParameterInvalid',
      'The number of attribute columns exceeds the limit, limit count: 1024, column count: 1025.');
    await absent('w1025');
    // 100,000 cells in one row, raw.
    const res = await signedPost(server.port, 'PutRow', putRowBody(table, rowBuffer('w100k', columns(100000))));
    await expectRaw(res, 400, 'OTSParameterInvalid',
      'The number of attribute columns exceeds the limit, limit count: 1024, column count: 100000.');
    await absent('w100k');
  });

  it('batches over their row limits write nothing', async () => {
    const rowEntry = field(2, Buffer.concat([varintField(1, 1), field(2, rowBuffer('b')),
      field(3, varintField(1, 0))]));
    for (const count of [201, 1000000]) {
      const rows = count > 1000 ? repeated(field(2, Buffer.alloc(0)), count) : repeated(rowEntry, count);
      const body = field(1, Buffer.concat([field(1, table), rows]));
      const res = await signedPost(server.port, 'BatchWriteRow', body);
      await expectRaw(res, 400, 'OTSParameterInvalid', 'Rows count exceeds the upper limit: 200.');
    }
    await absent('b');
    const keys = Array.from({ length: 101 }, (_, i) => [{ pk: `g${i}` }]);
    await expectOtsError(
      client.batchGetRow({ tables: [{ tableName: table, primaryKey: keys, maxVersions: 1 }] }),
      400, 'OTSParameterInvalid', 'Rows count exceeds the upper limit: 100.');
  });

  it('bodies over 5 MB are 413 OTSRequestBodyTooLarge', async () => {
    const res = await signedPost(server.port, 'PutRow', Buffer.alloc(5 * 1024 * 1024 + 1, 0x7b));
    await expectRaw(res, 413, 'OTSRequestBodyTooLarge', 'The size of POST data is too large.');
    // Past the HTTP server's own 16 MiB cap the body is refused from its headers alone (only the
    // head is sent here), still with Tablestore's answer, not DynamoDB's.
    const headers = {
      'x-ots-date': new Date().toISOString(), 'x-ots-apiversion': '2015-12-31',
      'x-ots-accesskeyid': ACCESS_KEY, 'x-ots-instancename': 'e2e-inst',
      'x-ots-contentmd5': md5Base64(Buffer.alloc(0)),
    };
    headers['x-ots-signature'] = signRequest('PutRow', headers, SECRET);
    const head = `POST /PutRow HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: ${16 * 1024 * 1024 + 1}\r\n` +
      Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('') + '\r\n';
    const reply = await new Promise((resolve, reject) => {
      const chunks = [];
      const sock = net.connect(server.port, '127.0.0.1', () => sock.write(head));
      sock.on('data', (d) => chunks.push(d));
      sock.on('end', () => resolve(Buffer.concat(chunks)));
      sock.on('error', reject);
    });
    const split = reply.indexOf('\r\n\r\n');
    assert.match(reply.subarray(0, split).toString(), /^HTTP\/1\.1 413 /);
    assert.match(reply.subarray(0, split).toString(), /application\/x-protobuf/);
    assert.deepEqual(decodeOtsError(reply.subarray(split + 4)),
      { code: 'OTSRequestBodyTooLarge', message: 'The size of POST data is too large.' });
  });

  it('the 4 MB data limit of PutRow and BatchWriteRow, at its boundary', async () => {
    // pk "pk"="d" is 3 bytes; "c1" and "c2" 2 each; the rest is the two blobs. The batch: three
    // rows of pk "pk"="xN" (4 bytes) and "c" (1) with 1,500,000 bytes: 4,500,015.
    const blobs = (total) => [{ c1: Buffer.alloc(2 * 1024 * 1024, 1) },
      { c2: Buffer.alloc(total - 3 - 4 - 2 * 1024 * 1024, 2) }];
    await client.putRow({ tableName: table, condition: condition(), primaryKey: [{ pk: 'd' }],
      attributeColumns: blobs(4194304) });
    await expectOtsError(
      client.putRow({ tableName: table, condition: condition(), primaryKey: [{ pk: 'e' }],
        attributeColumns: blobs(4194305) }),
      400, 'OTSParameterInvalid',
      'The total data size of PutRow request exceeds the limit, limit size: 4194304, data size: 4194305.');
    await absent('e');
    const rows = ['x0', 'x1', 'x2'].map((key) => ({
      type: 'PUT', condition: condition(), primaryKey: [{ pk: key }],
      attributeColumns: [{ c: Buffer.alloc(1500000, 3) }],
    }));
    await expectOtsError(client.batchWriteRow({ tables: [{ tableName: table, rows }] }),
      400, 'OTSParameterInvalid',
      'The total data size of BatchWriteRow request exceeds the limit, limit size: 4194304, data size: 4500015.');
    for (const key of ['x0', 'x1', 'x2']) await absent(key);
  });

  it('PlainBuffer that lies about its lengths or checksums is refused', async () => {
    // A name claiming 2^32-1 bytes.
    const lying = Buffer.from('75000000' + '01' + '03' + '04' + 'ffffffff' + '676964', 'hex');
    let res = await signedPost(server.port, 'PutRow', putRowBody(table, lying));
    await expectRaw(res, 400, 'OTSParameterInvalid', 'data format is invalid.');
    const bad = Buffer.from(rowBuffer('crc'));
    bad[bad.length - 1] ^= 1;  // the row checksum (no padding after it for PutRow)
    res = await signedPost(server.port, 'PutRow', putRowBody(table, bad));
    await expectRaw(res, 400, 'OTSParameterInvalid', /^Cell data broken, checksum is mismatch, \d+:\d+\.$/);
    await absent('crc');
  });

  it('NaN and infinite doubles and 33 defined columns get the service messages', async () => {
    for (const [value, message] of [[NaN, "NaN can't be set to double value."],
      [Infinity, "Infinity can't be set to double value."]]) {
      await expectOtsError(
        client.putRow({ tableName: table, condition: condition(), primaryKey: [{ pk: 'nan' }],
          attributeColumns: [{ c: value }] }),
        400, 'OTSParameterInvalid', message);
    }
    await absent('nan');
    const name = uniqueName('defined');
    await expectOtsError(client.createTable({
      tableMeta: { tableName: name, primaryKey: [{ name: 'pk', type: 'STRING' }],
        definedColumn: Array.from({ length: 33 }, (_, i) => ({ name: `d${i}`, type: 'DCT_STRING' })) },
      reservedThroughput: { capacityUnit: { read: 0, write: 0 } },
      tableOptions: { timeToLive: -1, maxVersions: 1 },
    }), 400, 'OTSParameterInvalid', 'The number of defined columns must be in range: [0, 32].');
    assert.ok(!(await client.listTable({})).tableNames.includes(name));
  });

  it('many x-ots headers, bad dates and stale dates', async () => {
    const send = (extra, date = new Date().toISOString()) => {
      const headers = {
        'x-ots-date': date, 'x-ots-apiversion': '2015-12-31', 'x-ots-accesskeyid': ACCESS_KEY,
        'x-ots-instancename': 'inst', 'x-ots-contentmd5': md5Base64(Buffer.alloc(0)), ...extra,
      };
      const lines = Object.keys(headers).map((k) => k.toLowerCase()).sort()
        .map((k) => `${k}:${String(headers[k]).trim()}\n`).join('');
      headers['x-ots-signature'] = hmacSha1Base64(SECRET, `/ListTable\nPOST\n\n${lines}`);
      return rawHttp({ port: server.port, path: '/ListTable', headers });
    };
    const many = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`x-ots-h${i}`, 'v']));
    assert.equal((await send(many)).status, 200);
    for (const date of ['2026-13-01T00:00:00Z', 'tomorrow', '2026-01-01T 0:00:00Z']) {
      await expectRaw(await send({}, date), 400, 'OTSParameterInvalid', `Invalid date format: ${date}.`);
    }
    const stale = '2001-01-01T00:00:00.123Z';
    await expectRaw(await send({}, stale), 403, 'OTSAuthFailed',
      `Mismatch between system time and x-ots-date: ${stale}.`);
  });
});
