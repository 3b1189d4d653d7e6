// The service's refusals of row requests, with its texts, and what it refuses for a whole batch
// rather than row by row (issue 31). Sources: the Python SDK's tests/row_op_test.py and the Java
// SDK's function tests ParameterLegalityTest, DataOperationTest, RestrictedItemTest and
// LocalTxnTest, which run against the service (docs/tablestore.md, "Refusals of row requests").
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { Long, Server, TableStore, condition, createTable, expectOtsError, uniqueName } from './helpers.mjs';
import { decode, encode, errorOf, pbKey, pbPutRow, sdkPost } from './sdk_wire.mjs';

const { INF_MIN, INF_MAX } = TableStore;
const FORWARD = TableStore.Direction.FORWARD;
const BACKWARD = TableStore.Direction.BACKWARD;

describe('tablestore refusals of row requests', () => {
  let server;
  let client;
  let t;  // pk1 STRING, pk2 INTEGER
  const key = (a, b) => [{ pk1: a }, { pk2: Long.fromNumber(b) }];
  before(async () => {
    server = await Server.start();
    client = server.client();
    t = uniqueName('rr');
    await createTable(client, t, { pk: [['pk1', 'STRING'], ['pk2', 'INTEGER']] });
    await client.putRow({ tableName: t, condition: condition('IGNORE'), primaryKey: key('a', 1),
      attributeColumns: [{ c: 'v' }] });
  });
  after(async () => { await server?.stop({ removeDir: true }); });

  const invalid = (promise, message) => expectOtsError(promise, 400, 'OTSParameterInvalid', message);
  const invalidPk = (promise, message) => expectOtsError(promise, 400, 'OTSInvalidPK', message);

  it('GetRange: bounds that hold no key, equal ones included, in either direction', async () => {
    const range = (direction, start, end) => client.getRange({
      tableName: t, direction, inclusiveStartPrimaryKey: start, exclusiveEndPrimaryKey: end,
    });
    const forward = 'Begin key must less than end key in FORWARD';
    const backward = 'Begin key must more than end key in BACKWARD';
    await invalid(range(FORWARD, key('b', 1), key('a', 1)), forward);
    await invalid(range(FORWARD, key('a', 1), key('a', 1)), forward);
    await invalid(range(FORWARD, [{ pk1: 'b' }, { pk2: INF_MAX }], [{ pk1: 'a' }, { pk2: INF_MIN }]), forward);
    await invalid(range(BACKWARD, key('a', 1), key('b', 1)), backward);
    await invalid(range(BACKWARD, key('a', 1), key('a', 1)), backward);
    // (a, MAX) .. (b, MIN) holds no row but is in order: an empty answer, not a refusal.
    const res = await range(FORWARD, [{ pk1: 'a' }, { pk2: INF_MAX }], [{ pk1: 'b' }, { pk2: INF_MIN }]);
    assert.equal(res.rows.length, 0);
  });

  it('a key with the wrong number of columns, name or type: size, then name, then type', async () => {
    for (const [pk, message] of [
      [[{ pk1: 'a' }], 'Validate PK size fail. Input: 1, Meta: 2.'],
      [[...key('a', 1), { pk3: 'x' }], 'Validate PK size fail. Input: 3, Meta: 2.'],
      [[{ pk1: 'a' }, { PK2: Long.fromNumber(1) }], 'Validate PK name fail. Input: PK2, Meta: pk2.'],
      [[{ pk1: 'a' }, { pk2: 'x' }], 'Validate PK type fail. Input: VT_STRING, Meta: VT_INTEGER.'],
      [[{ pk1: Long.fromNumber(1) }, { pk2: Long.fromNumber(1) }], 'Validate PK type fail. Input: VT_INTEGER, Meta: VT_STRING.'],
      [[{ pk1: Buffer.from('a') }, { pk2: Long.fromNumber(1) }], 'Validate PK type fail. Input: VT_BLOB, Meta: VT_STRING.'],
    ]) {
      await invalidPk(client.getRow({ tableName: t, primaryKey: pk }), message);
      await invalidPk(client.putRow({ tableName: t, condition: condition('IGNORE'), primaryKey: pk,
        attributeColumns: [{ c: 1 }] }), message);
      await invalidPk(client.updateRow({ tableName: t, condition: condition('IGNORE'), primaryKey: pk,
        updateOfAttributeColumns: [{ PUT: [{ c: 1 }] }] }), message);
      await invalidPk(client.deleteRow({ tableName: t, condition: condition('IGNORE'), primaryKey: pk }), message);
      // In batches the row fails on its own.
      const got = await client.batchGetRow({ tables: [{ tableName: t, primaryKey: [pk, key('a', 1)] }] });
      assert.equal(got.tables[0][0].isOk, false);
      assert.equal(got.tables[0][0].errorCode, 'OTSInvalidPK');
      assert.equal(got.tables[0][0].errorMessage, message);
      assert.equal(got.tables[0][1].isOk, true);
      const wrote = await client.batchWriteRow({ tables: [{ tableName: t, rows: [
        { type: 'PUT', condition: condition('IGNORE'), primaryKey: pk, attributeColumns: [{ c: 1 }] },
      ] }] });
      assert.equal(wrote.tables[0].isOk, false);
      assert.equal(wrote.tables[0].errorCode, 'OTSInvalidPK');
    }
  });

  it('INF_MIN and INF_MAX are no key values: refused, for the whole of a batch', async () => {
    for (const [marker, name] of [[INF_MIN, 'VT_INF_MIN'], [INF_MAX, 'VT_INF_MAX']]) {
      const pk = [{ pk1: 'a' }, { pk2: marker }];
      const message = `${name} is an invalid type for the primary key.`;
      await invalid(client.getRow({ tableName: t, primaryKey: pk }), message);
      await invalid(client.putRow({ tableName: t, condition: condition('IGNORE'), primaryKey: pk,
        attributeColumns: [{ c: 1 }] }), message);
      await invalid(client.deleteRow({ tableName: t, condition: condition('IGNORE'), primaryKey: pk }), message);
      await invalid(client.batchGetRow({ tables: [{ tableName: t, primaryKey: [key('a', 1), pk] }] }), message);
      await invalid(client.batchWriteRow({ tables: [{ tableName: t, rows: [
        { type: 'PUT', condition: condition('IGNORE'), primaryKey: key('z', 9), attributeColumns: [{ c: 1 }] },
        { type: 'DELETE', condition: condition('IGNORE'), primaryKey: pk },
      ] }] }), message);
    }
    // Nothing of the refused batch was written.
    const { row } = await client.getRow({ tableName: t, primaryKey: key('z', 9) });
    assert.ok(!row || Object.keys(row).length === 0);
  });

  it('column names: 1-255 bytes, no leading #; refused for the whole of a batch', async () => {
    // (The Node SDK's PlainBuffer writer sizes names in UTF-16 units, so it cannot write a
    // non-ASCII column name in a row; such names are tried where they travel as protobuf strings.)
    await invalid(client.getRow({ tableName: t, primaryKey: key('a', 1), columnsToGet: ['#公司'] }),
      "Invalid column name: '#公司'.");
    for (const name of ['#', '#abc', '# ', 'x'.repeat(256)]) {
      const message = `Invalid column name: '${name}'.`;
      await invalid(client.putRow({ tableName: t, condition: condition('IGNORE'), primaryKey: key('a', 2),
        attributeColumns: [{ [name]: 1 }] }), message);
      await invalid(client.getRow({ tableName: t, primaryKey: key('a', 1), columnsToGet: [name] }), message);
      await invalid(client.getRange({ tableName: t, direction: FORWARD, columnsToGet: [name],
        inclusiveStartPrimaryKey: key('a', 0), exclusiveEndPrimaryKey: key('a', 9) }), message);
      await invalid(client.batchGetRow({ tables: [{ tableName: t, primaryKey: [key('a', 1)], columnsToGet: [name] }] }), message);
      await invalid(client.batchWriteRow({ tables: [{ tableName: t, rows: [
        { type: 'PUT', condition: condition('IGNORE'), primaryKey: key('a', 3), attributeColumns: [{ ok: 1 }] },
        { type: 'PUT', condition: condition('IGNORE'), primaryKey: key('a', 4), attributeColumns: [{ [name]: 1 }] },
      ] }] }), message);
    }
    // Anything else is a name: 255 bytes, punctuation, spaces, a '#' further in.
    const { row: none } = await client.getRow({ tableName: t, primaryKey: key('a', 1), columnsToGet: ['公司'] });
    assert.ok(!none || Object.keys(none).length === 0);
    const names = ['y'.repeat(255), '.', ':', '$', '&', '*', '(', '/', '\\', ' ', 'a b', 'a#b', "'", '"'];
    await client.putRow({ tableName: t, condition: condition('IGNORE'), primaryKey: key('n', 1),
      attributeColumns: names.map((n, i) => ({ [n]: Long.fromNumber(i) })) });
    const { row } = await client.getRow({ tableName: t, primaryKey: key('n', 1), columnsToGet: names });
    assert.deepEqual(row.attributes.map((c) => c.columnName).sort(), [...names].sort());
  });

  it('a table name no table can have is refused for the whole request', async () => {
    for (const name of ['0', '#', '中文', 'T#', '3t', '-']) {
      const message = `Invalid table name: '${name}'.`;
      await invalid(client.getRow({ tableName: name, primaryKey: key('a', 1) }), message);
      await invalid(client.batchGetRow({ tables: [
        { tableName: t, primaryKey: [key('a', 1)] }, { tableName: name, primaryKey: [key('a', 1)] },
      ] }), message);
      await invalid(client.batchWriteRow({ tables: [{ tableName: name, rows: [
        { type: 'PUT', condition: condition('IGNORE'), primaryKey: key('a', 5), attributeColumns: [{ c: 1 }] },
      ] }] }), message);
    }
    // A well-formed name of no table is a per-row error in a batch.
    const got = await client.batchGetRow({ tables: [{ tableName: uniqueName('none'), primaryKey: [key('a', 1)] }] });
    assert.equal(got.tables[0][0].isOk, false);
  });

  it('a read without max_versions or time_range: GetRow and GetRange say less than BatchGetRow', async () => {
    const send = async (action, message, body) => {
      const res = await sdkPost(server.port, action, encode(message, body));
      return errorOf(res);
    };
    assert.deepEqual(await send('GetRow', 'GetRowRequest', { tableName: t, primaryKey: pbKey(key('a', 1)) }),
      { status: 400, code: 'OTSParameterInvalid', message: 'No version condition is specified.' });
    assert.deepEqual(await send('GetRange', 'GetRangeRequest', {
      tableName: t, direction: 0, inclusiveStartPrimaryKey: pbKey(key('a', 0)),
      exclusiveEndPrimaryKey: pbKey(key('a', 9)),
    }), { status: 400, code: 'OTSParameterInvalid', message: 'No version condition is specified.' });
    assert.deepEqual(await send('BatchGetRow', 'BatchGetRowRequest', {
      tables: [{ tableName: t, primaryKey: [pbKey(key('a', 1))] }],
    }), { status: 400, code: 'OTSParameterInvalid',
      message: 'No version condition is specified while querying row.' });
  });

  it('BatchGetRow: no table is refused, a table entry without rows is answered', async () => {
    let res = await sdkPost(server.port, 'BatchGetRow', encode('BatchGetRowRequest', {}));
    assert.deepEqual(errorOf(res), { status: 400, code: 'OTSParameterInvalid',
      message: 'No row specified in the request of BatchGetRow.' });
    res = await sdkPost(server.port, 'BatchGetRow', encode('BatchGetRowRequest', {
      tables: [{ tableName: t, maxVersions: 1 }],
    }));
    assert.equal(res.status, 200, JSON.stringify(errorOf(res)));
    const tables = decode('BatchGetRowResponse', res.body).tables;
    assert.equal(tables.length, 1);
    assert.equal(tables[0].tableName, t);
    assert.equal(tables[0].rows?.length ?? 0, 0);
    // BatchWriteRow's texts for no table and for a table entry without rows.
    res = await sdkPost(server.port, 'BatchWriteRow', encode('BatchWriteRowRequest', {}));
    assert.deepEqual(errorOf(res), { status: 400, code: 'OTSParameterInvalid',
      message: 'No row is specified in BatchWriteRow.' });
    res = await sdkPost(server.port, 'BatchWriteRow', encode('BatchWriteRowRequest', { tables: [{ tableName: t }] }));
    assert.deepEqual(errorOf(res), { status: 400, code: 'OTSParameterInvalid',
      message: `No operation is specified for table: '${t}'.` });
  });

  it('the 4 MB of a write request count 8 bytes for each timestamp given', async () => {
    // Three rows: key 'pk1' (3) + 98 bytes, 'pk2' (3) + 8, one column of a 47-byte name, a
    // value and a timestamp (8): sized so that the total is 4194305 bytes with the timestamps
    // and 4194281 without (the Java SDK's RestrictedItemTest.testCase48 does the same sum).
    const ts = Date.now();
    const keyBytes = 3 + 98 + 3 + 8;
    const colName = 'c'.repeat(47);
    const total = 4 * 1024 * 1024 + 1;
    const perRow = Math.floor(total / 3);
    const sizes = [perRow, perRow, total - 2 * perRow];
    const rows = sizes.map((size, i) => pbPutRow([{ pk1: `${i}`.padEnd(98, 'k') }, { pk2: Long.fromNumber(i) }],
      [{ [colName]: 'v'.repeat(size - keyBytes - 47 - 8), timestamp: Long.fromNumber(ts) }]));
    const body = encode('BatchWriteRowRequest', { tables: [{ tableName: t, rows: rows.map((row) => ({
      type: 1, rowChange: row, condition: { rowExistence: 0 } })) }] });
    const res = await sdkPost(server.port, 'BatchWriteRow', body);
    assert.deepEqual(errorOf(res), { status: 400, code: 'OTSParameterInvalid',
      message: 'The total data size of BatchWriteRow request exceeds the limit, limit size: 4194304, data size: 4194305.' });
  });

  it('StartLocalTransaction with an empty table name', async () => {
    await invalid(client.startLocalTransaction({ tableName: '', primaryKey: [{ pk1: 'a' }] }),
      "Invalid table name: ''.");
  });
});
