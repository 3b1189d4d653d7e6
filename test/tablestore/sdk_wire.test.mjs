// The bytes each official SDK sends and expects (issue 31), for the SDKs CI cannot install: the
// Go SDK's canonical header names and odd date, the Java SDK's dates, trace headers and request
// compression, the Python SDK's dates and the response checks it and the Java SDK make; and
// rows read with `columns_to_get` carrying their whole primary key first, which the Python,
// Java and Go decoders require. Sources: docs/tablestore.md, "What each SDK sends".
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { after, before, describe, it } from 'node:test';

import { Long, SECRET, Server, condition, createTable, md5Base64, rawHttp, uniqueName } from './helpers.mjs';
import { checkSignedResponse, decode, encode, errorOf, pbKey, pbPutRow, readRow, sdkDate,
  sdkPost, v4SigningKey } from './sdk_wire.mjs';

const STYLES = ['go', 'java', 'python', 'node', 'upper'];

const createTableBody = (name, pk) => encode('CreateTableRequest', {
  tableMeta: { tableName: name, primaryKey: pk.map(([n, type]) => ({ name: n, type })) },
  reservedThroughput: { capacityUnit: { read: 0, write: 0 } },
  tableOptions: { timeToLive: -1, maxVersions: 1 },
});
const PK_STRING = 2;
const PK_INTEGER = 1;

describe('tablestore requests as each SDK sends them', () => {
  let server;
  let client;
  before(async () => {
    server = await Server.start();
    client = server.client();
  });
  after(async () => { await server?.stop({ removeDir: true }); });

  for (const style of STYLES) {
    it(`${style}: headers, date and signature accepted; the response passes the Java and Python checks`, async () => {
      const t = uniqueName(`w${style}`);
      let res = await sdkPost(server.port, 'CreateTable',
        createTableBody(t, [['pk', PK_STRING], ['n', PK_INTEGER]]), { style });
      assert.equal(res.status, 200, JSON.stringify(errorOf(res)));
      checkSignedResponse(res, 'CreateTable');

      const key = [{ pk: 'k' }, { n: Long.fromNumber(7) }];
      res = await sdkPost(server.port, 'PutRow', encode('PutRowRequest', {
        tableName: t, row: pbPutRow(key, [{ a: 'x' }, { b: Long.fromNumber(2) }]),
        condition: { rowExistence: 0 },
      }), { style });
      assert.equal(res.status, 200, JSON.stringify(errorOf(res)));
      checkSignedResponse(res, 'PutRow');

      res = await sdkPost(server.port, 'GetRow', encode('GetRowRequest', {
        tableName: t, primaryKey: pbKey(key), maxVersions: 1,
      }), { style });
      assert.equal(res.status, 200, JSON.stringify(errorOf(res)));
      checkSignedResponse(res, 'GetRow');
      const row = readRow(decode('GetRowResponse', res.body).row);
      assert.deepEqual(row.primaryKey.map((c) => c.name), ['pk', 'n']);
      assert.deepEqual(row.attributes.map((c) => c.columnName), ['a', 'b']);
    });
  }

  it('Go writes its date with month, day and hour for a fraction; it is read to the second', () => {
    const d = new Date(Date.UTC(2026, 10, 7, 15, 4, 5, 123));
    assert.equal(sdkDate('go', d), '2026-11-07T15:04:05.1173Z');
    assert.equal(sdkDate('python', d), '2026-11-07T15:04:05.000Z');
    assert.equal(sdkDate('java', d), '2026-11-07T15:04:05.123Z');
  });

  it('a missing header is named in lower case whatever the spelling of the others', async () => {
    const body = encode('ListTableRequest', {});
    const headers = {
      'X-Ots-Apiversion': '2015-12-31', 'X-Ots-Accesskeyid': 'testKey',
      'X-Ots-Contentmd5': md5Base64(body), 'Content-Length': '0',
    };
    const res = await rawHttp({ port: server.port, path: '/ListTable', headers, body });
    assert.deepEqual(errorOf(res),
      { status: 400, code: 'OTSParameterInvalid', message: 'Missing header: x-ots-date.' });
  });

  it('Java with a region credential: a V4 signature, answered under the derived key', async () => {
    const d = new Date();
    const date = `${d.getUTCFullYear()}${String(d.getUTCMonth() + 1).padStart(2, '0')}${String(d.getUTCDate()).padStart(2, '0')}`;
    const v4 = { date, region: 'cn-hangzhou' };
    let res = await sdkPost(server.port, 'ListTable', Buffer.alloc(0), { style: 'java', v4 });
    assert.equal(res.status, 200, JSON.stringify(errorOf(res)));
    checkSignedResponse(res, 'ListTable', { secret: v4SigningKey(SECRET, date, 'cn-hangzhou') });
    res = await sdkPost(server.port, 'ListTable', Buffer.alloc(0), { style: 'java', v4, secret: 'wrong' });
    assert.deepEqual(errorOf(res), { status: 403, code: 'OTSAuthFailed', message: 'Signature mismatch.' });
    res = await sdkPost(server.port, 'ListTable', Buffer.alloc(0), { style: 'java', v4: { date: '20200101', region: 'r' } });
    assert.deepEqual(errorOf(res), { status: 400, code: 'OTSParameterInvalid', message: 'Invalid x-ots-signdate: 20200101.' });
  });

  it('Java: the trace headers it adds are signed and accepted', async () => {
    const res = await sdkPost(server.port, 'ListTable', Buffer.alloc(0), {
      style: 'java',
      extra: { 'x-ots-sdk-traceid': 'a1b2c3d4-0000-1111-2222-333344445555', 'x-ots-trace-threshold': '300' },
    });
    assert.equal(res.status, 200, JSON.stringify(errorOf(res)));
    checkSignedResponse(res, 'ListTable');
  });

  describe('Java request compression (x-ots-request-compress-type: deflate)', () => {
    let t;
    before(async () => {
      t = uniqueName('wz');
      const res = await sdkPost(server.port, 'CreateTable', createTableBody(t, [['pk', PK_STRING]]));
      assert.equal(res.status, 200);
    });
    const putBody = (pk) => encode('PutRowRequest', {
      tableName: t, row: pbPutRow([{ pk }], [{ v: 'z'.repeat(1000) }]), condition: { rowExistence: 0 },
    });
    // The SDK deflates into a zlib stream (java.util.zip.Deflater) and MD5s what it sends.
    const compressed = (plain, size = plain.length, type = 'deflate') => ({
      body: zlib.deflateSync(plain),
      extra: { 'x-ots-request-compress-type': type, 'x-ots-request-compress-size': String(size) },
    });

    it('a deflated body is served as the plain one', async () => {
      const { body, extra } = compressed(putBody('c1'));
      const res = await sdkPost(server.port, 'PutRow', body, { style: 'java', extra });
      assert.equal(res.status, 200, JSON.stringify(errorOf(res)));
      checkSignedResponse(res, 'PutRow');
      const { row } = await client.getRow({ tableName: t, primaryKey: [{ pk: 'c1' }] });
      assert.equal(row.attributes[0].columnValue, 'z'.repeat(1000));
    });

    it('a corrupt stream, a wrong size and an unknown type are refused and write nothing', async () => {
      const plain = putBody('c2');
      const bad = [
        [{ body: Buffer.from('not deflate at all'), extra: compressed(plain).extra },
          'The request body is not a valid deflate stream.'],
        [compressed(plain, plain.length + 1),
          `The decompressed request body has ${plain.length} bytes, but x-ots-request-compress-size says ${plain.length + 1}.`],
        [compressed(plain, plain.length, 'lz4'), 'Unsupported compress type: lz4.'],
      ];
      for (const [{ body, extra }, message] of bad) {
        const res = await sdkPost(server.port, 'PutRow', body, { style: 'java', extra });
        assert.deepEqual(errorOf(res), { status: 400, code: 'OTSParameterInvalid', message });
      }
      const { row } = await client.getRow({ tableName: t, primaryKey: [{ pk: 'c2' }] });
      assert.ok(!row || Object.keys(row).length === 0, 'nothing was written');
    });

    it('a stream that inflates past 5 MB is refused as a body too large', async () => {
      const { body, extra } = compressed(Buffer.alloc(6 * 1024 * 1024, 0x61));
      const res = await sdkPost(server.port, 'PutRow', body, { style: 'java', extra });
      assert.deepEqual(errorOf(res), { status: 413, code: 'OTSRequestBodyTooLarge',
        message: 'The size of POST data is too large.' });
    });
  });

  describe('rows read with columns_to_get carry the whole primary key, first', () => {
    let t;
    const key = (a) => [{ p1: 'k' }, { p2: Long.fromNumber(a) }];
    before(async () => {
      t = uniqueName('wk');
      await createTable(client, t, { pk: [['p1', 'STRING'], ['p2', 'INTEGER']] });
      for (const a of [1, 2]) {
        await client.putRow({ tableName: t, condition: condition('IGNORE'), primaryKey: key(a),
          attributeColumns: [{ c1: `v${a}` }, { c2: 'w' }] });
      }
    });
    const names = (row) => row.primaryKey.map((c) => c.name);

    it('GetRow: an attribute column, a key column, a column the row lacks', async () => {
      let { row } = await client.getRow({ tableName: t, primaryKey: key(1), columnsToGet: ['c1'] });
      assert.deepEqual(names(row), ['p1', 'p2']);
      assert.deepEqual(row.attributes.map((c) => c.columnName), ['c1']);
      ({ row } = await client.getRow({ tableName: t, primaryKey: key(1), columnsToGet: ['p2'] }));
      assert.deepEqual(names(row), ['p1', 'p2']);
      assert.deepEqual(row.attributes, []);
      // A row showing none of the columns asked for is absent, as the service answers
      // (the Python SDK's test_columns_to_get_semantics).
      ({ row } = await client.getRow({ tableName: t, primaryKey: key(1), columnsToGet: ['nope'] }));
      assert.ok(!row || Object.keys(row).length === 0);
    });

    it('GetRange and BatchGetRow', async () => {
      const range = await client.getRange({
        tableName: t, direction: 'FORWARD', columnsToGet: ['c2'],
        inclusiveStartPrimaryKey: [{ p1: 'k' }, { p2: Long.fromNumber(0) }],
        exclusiveEndPrimaryKey: [{ p1: 'k' }, { p2: Long.fromNumber(9) }],
      });
      assert.equal(range.rows.length, 2);
      for (const row of range.rows) assert.deepEqual(names(row), ['p1', 'p2']);
      const batch = await client.batchGetRow({ tables: [{
        tableName: t, primaryKey: [key(1), key(2)], columnsToGet: ['c1'],
      }] });
      assert.equal(batch.tables[0].length, 2);
      for (const r of batch.tables[0]) {
        assert.ok(r.isOk);
        assert.deepEqual(names(r), ['p1', 'p2']);  // the SDK flattens the row into the result
      }
    });
  });
});
