// A stream's origin columns (StreamSpecification.columns_to_get, docs/tablestore.md "Streams"):
// set at CreateTable or when UpdateTable enables the stream, reported by DescribeTable in the
// order given (the Go SDK's TestCreateTableWithOriginColumn and TestUpdateAndDescribeTable), and
// carried by each record as `origin_record`: the values those columns had before the write (the
// Java SDK's TestTunnelConsumer.testConsumeOriginColumn). Also the stream's expiration range,
// 1-168 hours. The Node SDK cannot send columns_to_get nor read it back: the table calls are raw
// protobuf (sdk_wire.mjs rawCall), signed as the SDKs sign; rows are written through the SDK and
// records read through its pipeline with stream_helpers.mjs.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { Long, Server, condition, uniqueName } from './helpers.mjs';
import { createTableMessage, expectRawError, rawCall } from './sdk_wire.mjs';
import { put, readAll } from './stream_helpers.mjs';

describe('tablestore stream origin columns', () => {
  let server;
  let client;

  before(async () => {
    server = await Server.start();
    client = server.client();
  });
  after(async () => { await server?.stop({ removeDir: true }); });

  const describeRaw = async (t) => {
    const res = await rawCall(server.port, 'DescribeTable', { tableName: t });
    assert.equal(res.status, 200, JSON.stringify(res.error));
    return res.body;
  };
  // A table whose stream keeps records 168 hours and names `columns` as origin columns.
  const originTable = async (prefix, columns) => {
    const t = uniqueName(prefix);
    const res = await rawCall(server.port, 'CreateTable', createTableMessage(t, {
      tableOptions: { maxVersions: 3 },
      streamSpec: { enableStream: true, expirationTime: 168, columnsToGet: columns },
    }));
    assert.equal(res.status, 200, JSON.stringify(res.error));
    return { t, streamId: (await describeRaw(t)).streamDetails.streamId };
  };
  const pk = (k) => [{ pk: k }];

  it('CreateTable takes them with 168 hours; DescribeTable reports them in order, across a restart', async () => {
    const { t } = await originTable('orig_ct', ['col2', 'col1']);
    let d = await describeRaw(t);
    assert.equal(d.streamDetails.enableStream, true);
    assert.equal(d.streamDetails.expirationTime, 168);
    assert.deepEqual(d.streamDetails.columnsToGet, ['col2', 'col1']);
    // The SDK reads the same table (its protocol drops the field it does not know).
    assert.equal((await client.describeTable({ tableName: t })).streamDetails.expirationTime, 168);
    await server.restart();
    client = server.client();
    d = await describeRaw(t);
    assert.deepEqual(d.streamDetails.columnsToGet, ['col2', 'col1']);
    assert.equal(d.streamDetails.expirationTime, 168);
  });

  it('UpdateTable enables a stream with them, as the Go SDK TestUpdateAndDescribeTable does', async () => {
    const t = uniqueName('orig_ut');
    assert.equal((await rawCall(server.port, 'CreateTable', createTableMessage(t))).status, 200);
    const res = await rawCall(server.port, 'UpdateTable', {
      tableName: t,
      tableOptions: { timeToLive: -1, maxVersions: 5 },
      streamSpec: { enableStream: true, expirationTime: 168, columnsToGet: ['col1', 'col2'] },
    });
    assert.equal(res.status, 200, JSON.stringify(res.error));
    assert.equal(res.body.tableOptions.maxVersions, 5);
    assert.equal(res.body.streamDetails.enableStream, true);
    assert.equal(res.body.streamDetails.expirationTime, 168);
    assert.deepEqual(res.body.streamDetails.columnsToGet, ['col1', 'col2']);
    const d = await describeRaw(t);
    assert.equal(d.tableOptions.maxVersions, 5);
    assert.deepEqual(d.streamDetails.columnsToGet, ['col1', 'col2']);
    // A stream enabled without them has none; DescribeTable sends an empty list.
    const t2 = uniqueName('orig_none');
    assert.equal((await rawCall(server.port, 'CreateTable', createTableMessage(t2, {
      streamSpec: { enableStream: true, expirationTime: 1 } }))).status, 200);
    assert.deepEqual((await describeRaw(t2)).streamDetails.columnsToGet, []);
  });

  it('refuses bad names, primary-key columns, a name twice, too many, and columns without a stream', async () => {
    const t = uniqueName('orig_bad');
    assert.equal((await rawCall(server.port, 'CreateTable', createTableMessage(t))).status, 200);
    const enable = (columnsToGet, enableStream = true) => rawCall(server.port, 'UpdateTable', {
      tableName: t, streamSpec: { enableStream, expirationTime: 24, columnsToGet } });
    await expectRawError(enable(['9x']), 400, 'OTSParameterInvalid', "Invalid column name: '9x'.");
    await expectRawError(enable(['a', 'pk']), 400, 'OTSParameterInvalid',
                         "The primary key column 'pk' cannot be in columns_to_get of the stream.");
    await expectRawError(enable(['a', 'b', 'a']), 400, 'OTSParameterInvalid', "Duplicated column name: 'a'.");
    const many = Array.from({ length: 1025 }, (_, i) => `c${i}`);
    await expectRawError(enable(many), 400, 'OTSParameterInvalid',
                         'The number of columns from the request exceeds the limit, limit count: 1024, column count: 1025.');
    await expectRawError(enable(['a'], false), 400, 'OTSParameterInvalid',
                         'columns_to_get of the stream can be set only when enable_stream is true.');
    // Nothing was enabled by the refused requests; 1024 columns are accepted.
    assert.equal((await describeRaw(t)).streamDetails.enableStream, false);
    const res = await enable(many.slice(0, 1024));
    assert.equal(res.status, 200, JSON.stringify(res.error));
    assert.equal(res.body.streamDetails.columnsToGet.length, 1024);
    // The expiration range is 1-168 hours, at CreateTable too.
    await expectRawError(rawCall(server.port, 'CreateTable', createTableMessage(uniqueName('orig_exp'), {
      streamSpec: { enableStream: true, expirationTime: 169 } })), 400, 'OTSParameterInvalid',
      'Invalid expiration_time: 169, it must be in range [1, 168].');
  });

  it('each record carries the values the origin columns had before the write', async () => {
    const { t, streamId } = await originTable('orig_rec', ['col1', 'col2']);
    const ts = Date.now() - 60_000;
    // A new row: no origin record (Java testConsumeOriginColumn's PUT: no origin column).
    await client.putRow({ tableName: t, condition: condition('IGNORE'), primaryKey: pk('PK1'),
                          attributeColumns: [{ col1: 'col1ori', timestamp: ts }, { other: 'x', timestamp: ts }] });
    // An update: col1 as it was (col2 never existed, `other` is not an origin column).
    await client.updateRow({ tableName: t, condition: condition('IGNORE'), primaryKey: pk('PK1'),
                             updateOfAttributeColumns: [{ PUT: [{ col1: 'col1tar', timestamp: ts + 1 },
                                                                { col2: Long.fromNumber(5), timestamp: ts + 1 }] }] });
    // A put over the row: both, in the stream's order, the newest version of each.
    await client.putRow({ tableName: t, condition: condition('IGNORE'), primaryKey: pk('PK1'),
                          attributeColumns: [{ other: 'y', timestamp: ts + 2 }] });
    // A delete of the row the put left: none of the columns any more.
    await client.deleteRow({ tableName: t, condition: condition('IGNORE'), primaryKey: pk('PK1') });
    // BatchWriteRow rows carry it too.
    await client.putRow({ tableName: t, condition: condition('IGNORE'), primaryKey: pk('PK2'),
                          attributeColumns: [{ col2: 'two', timestamp: ts }] });
    await client.batchWriteRow({ tables: [{ tableName: t, rows: [
      { type: 'UPDATE', condition: condition('IGNORE'), primaryKey: pk('PK2'),
        attributeColumns: [{ DELETE_ALL: ['col2'] }] },
    ] }] });

    const records = await readAll(client, streamId);
    assert.deepEqual(records.map((r) => [r.action, r.origin ? r.origin.columns : null]), [
      ['PUT_ROW', null],
      ['UPDATE_ROW', [put('col1', 'col1ori', ts)]],
      ['PUT_ROW', [put('col1', 'col1tar', ts + 1), put('col2', 5n, ts + 1)]],
      ['DELETE_ROW', null],
      ['PUT_ROW', null],
      ['UPDATE_ROW', [put('col2', 'two', ts)]],
    ]);
    // The origin record holds the key, no delete marker and no sequence extension.
    assert.deepEqual(records[1].origin.pk, [['pk', 'PK1']]);
    assert.equal(records[1].origin.deleteMarker, false);
    assert.equal(records[1].origin.seq, null);
    // The record itself is unchanged by them.
    assert.deepEqual(records[1].columns, [put('col1', 'col1tar', ts + 1), put('col2', 5n, ts + 1)]);
  });

  it("a transaction's writes carry the values as the transaction saw the row", async () => {
    const { t, streamId } = await originTable('orig_txn', ['c']);
    await client.putRow({ tableName: t, condition: condition('IGNORE'), primaryKey: pk('k'),
                          attributeColumns: [{ c: 'stored', timestamp: Date.now() - 1000 }] });
    const { transactionId } = await client.startLocalTransaction({ tableName: t, primaryKey: pk('k') });
    await client.updateRow({ tableName: t, condition: condition('IGNORE'), primaryKey: pk('k'), transactionId,
                             updateOfAttributeColumns: [{ PUT: [{ c: 'first' }] }] });
    await client.updateRow({ tableName: t, condition: condition('IGNORE'), primaryKey: pk('k'), transactionId,
                             updateOfAttributeColumns: [{ PUT: [{ c: 'second' }] }] });
    await client.commitTransaction({ transactionId });
    const records = await readAll(client, streamId);
    assert.deepEqual(records.map((r) => r.origin?.columns.map((c) => c.value) ?? null),
                     [null, ['stored'], ['first']]);
  });
});
