// Tablestore streams through the official SDK (docs/tablestore.md, "Streams"): the stream option
// of CreateTable / UpdateTable / DescribeTable, ListStream, DescribeStream, GetShardIterator and
// GetStreamRecord, the records of every kind of write, paging, what purged versions leave (no
// record), and each refusal with its code and message. The stream calls go through the SDK's
// request pipeline and records are read by stream_helpers.mjs (the SDK has no stream methods and
// cannot read stream records); origin columns are tested in stream_origin.test.mjs.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';

import {
  Long, Server, TTLSTORE_BIN, condition, createTable, expectOtsError, num, putVersions, uniqueName,
  pgStorageArgs, updateOptions, waitFor,
} from './helpers.mjs';

import {
  call, describeTable, enableStream, put, readAll, readRecord, strip, tsProtos,
} from './stream_helpers.mjs';
import { decode, encode, errorOf, sdkPost } from './sdk_wire.mjs';

const require = createRequire(import.meta.url);
const TableStore = require('tablestore');

describe('tablestore streams', () => {
  let server;
  let client;

  before(async () => {
    server = await Server.start({ args: ['--tablestore-min-ttl', '1', '--version-purge-interval', '1'] });
    client = server.client();
  });

  after(async () => {
    const code = await server?.stop({ removeDir: true });
    assert.equal(code, 0, 'ttlstore exit code after SIGTERM');
  });

  async function streamTable(prefix, extra = {}) {
    const t = uniqueName(prefix);
    await client.createTable({
      tableMeta: { tableName: t, primaryKey: [{ name: 'a', type: 'INTEGER' }, { name: 'b', type: 'STRING' }] },
      reservedThroughput: { capacityUnit: { read: 0, write: 0 } },
      tableOptions: { timeToLive: -1, maxVersions: 3, ...extra },
      streamSpecification: { enableStream: true, expirationTime: 24 },
    });
    const d = await describeTable(client, t);
    return { t, streamId: d.streamDetails.streamId };
  }

  describe('the stream option', () => {
    it('CreateTable enables it; DescribeTable, ListStream and DescribeStream report it', async () => {
      const before = Date.now();
      const { t, streamId } = await streamTable('sopt');
      const d = await describeTable(client, t);
      assert.equal(d.streamDetails.enableStream, true);
      assert.equal(streamId, `${t}_${num(d.streamDetails.lastEnableTime) / 1000}`);
      assert.equal(d.streamDetails.expirationTime, 24);
      const enabledMs = num(d.streamDetails.lastEnableTime) / 1000;  // microseconds on the wire
      assert.ok(enabledMs >= before - 5000 && enabledMs <= Date.now() + 5000, `last_enable_time ${enabledMs}`);

      const listed = await call(client, 'listStream', { tableName: t });
      assert.deepEqual(listed.streams.map((s) => [s.streamId, s.tableName, num(s.creationTime)]),
                       [[streamId, t, enabledMs * 1000]]);
      const all = await call(client, 'listStream', {});
      assert.ok(all.streams.some((s) => s.streamId === streamId), 'ListStream without a table lists it');

      const desc = await call(client, 'describeStream', { streamId });
      assert.equal(desc.streamId, streamId);
      assert.equal(desc.tableName, t);
      assert.equal(desc.expirationTime, 24);
      assert.equal(num(desc.creationTime), enabledMs * 1000);
      assert.equal(desc.streamStatus, tsProtos.StreamStatus.STREAM_ACTIVE);
      assert.equal(desc.shards.length, 1);
      assert.match(desc.shards[0].shardId, /^shardId-\d{20}-00000000$/);
      assert.ok(!desc.shards[0].parentId, 'the first shard has no parent');
      assert.ok(!desc.nextShardId);
      // shard_limit and inclusive_start_shard_id page the shards.
      const limited = await call(client, 'describeStream', { streamId, shardLimit: 1,
                                                              inclusiveStartShardId: desc.shards[0].shardId });
      assert.deepEqual(limited.shards.map((s) => s.shardId), [desc.shards[0].shardId]);
    });

    it('a table without a stream: DescribeTable says so, ListStream lists none; UpdateTable enables one', async () => {
      const t = uniqueName('supd');
      await createTable(client, t, { pk: [['a', 'INTEGER'], ['b', 'STRING']] });
      let d = await describeTable(client, t);
      assert.equal(d.streamDetails.enableStream, false);
      assert.ok(!d.streamDetails.streamId);
      assert.deepEqual((await call(client, 'listStream', { tableName: t })).streams, []);
      // A write before the stream exists is in no stream.
      await client.putRow({ tableName: t, condition: condition('IGNORE'),
                            primaryKey: [{ a: Long.fromNumber(0) }, { b: 'before' }], attributeColumns: [{ c: 'x' }] });

      const resp = await enableStream(client, t, 12);
      assert.equal(resp.streamDetails.enableStream, true);
      assert.equal(resp.streamDetails.expirationTime, 12);
      d = await describeTable(client, t);
      assert.equal(d.streamDetails.enableStream, true);
      assert.equal(d.streamDetails.streamId, resp.streamDetails.streamId);
      assert.equal(d.streamDetails.expirationTime, 12);
      const desc = await call(client, 'describeStream', { streamId: d.streamDetails.streamId });
      assert.equal(desc.expirationTime, 12);

      await client.putRow({ tableName: t, condition: condition('IGNORE'),
                            primaryKey: [{ a: Long.fromNumber(1) }, { b: 'after' }],
                            attributeColumns: [{ c: 'y', timestamp: Date.now() - 1000 }] });
      const records = await readAll(client, d.streamDetails.streamId);
      assert.deepEqual(records.map((r) => [r.action, r.pk]), [['PUT_ROW', [['a', 1n], ['b', 'after']]]]);
    });
  });

  describe('records', () => {
    it('PutRow, UpdateRow (each column operation), DeleteRow and BatchWriteRow, in order', async () => {
      const { t, streamId } = await streamTable('srec');
      const ts = Date.now() - 60_000;
      const pk = (a, b) => [{ a: Long.fromNumber(a) }, { b }];
      const t0 = Date.now();
      await client.putRow({ tableName: t, condition: condition('IGNORE'), primaryKey: pk(1, 'x'),
                            attributeColumns: [{ s: 'str', timestamp: ts },
                                               { n: Long.fromNumber(7), timestamp: ts },
                                               { now: true }] });
      await client.updateRow({
        tableName: t, condition: condition('EXPECT_EXIST'), primaryKey: pk(1, 'x'),
        updateOfAttributeColumns: [
          { PUT: [{ s: 'v2', timestamp: ts + 1 }, { d: 1.5 }] },
          { DELETE: [{ s: ts }] },
          { DELETE_ALL: ['now'] },
          { INCREMENT: [{ n: Long.fromNumber(5) }] },
        ],
      });
      await client.deleteRow({ tableName: t, condition: condition('IGNORE'), primaryKey: pk(1, 'x') });
      await client.batchWriteRow({ tables: [{ tableName: t, rows: [
        { type: 'PUT', condition: condition('IGNORE'), primaryKey: pk(2, 'y'),
          attributeColumns: [{ c: 'p', timestamp: ts }] },
        { type: 'UPDATE', condition: condition('IGNORE'), primaryKey: pk(3, 'z'),
          attributeColumns: [{ PUT: [{ c: 'u', timestamp: ts }] }] },
        { type: 'DELETE', condition: condition('IGNORE'), primaryKey: pk(2, 'y') },
      ] }] });
      const t1 = Date.now();

      const records = await readAll(client, streamId);
      assert.equal(records.length, 6, JSON.stringify(records.map((r) => r.action)));
      const [p, u, del, bp, bu, bd] = records;

      // PutRow: every cell with its timestamp (the server's time when the request gave none).
      assert.equal(p.action, 'PUT_ROW');
      assert.deepEqual(p.pk, [['a', 1n], ['b', 'x']]);
      assert.deepEqual(p.columns.slice(0, 2), [put('s', 'str', ts), put('n', 7n, ts)]);
      assert.equal(p.columns[2].name, 'now');
      assert.equal(p.columns[2].value, true);
      assert.ok(p.columns[2].ts >= t0 - 1000 && p.columns[2].ts <= t1 + 1000, `server timestamp ${p.columns[2].ts}`);

      // UpdateRow: each operation in request order; INCREMENT as the put of its result.
      assert.equal(u.action, 'UPDATE_ROW');
      assert.deepEqual(u.pk, [['a', 1n], ['b', 'x']]);
      assert.deepEqual(u.columns.map((c) => [c.name, c.op]), [
        ['s', 'PUT'], ['d', 'PUT'], ['s', 'DELETE_ONE'], ['now', 'DELETE_ALL'], ['n', 'PUT'],
      ]);
      assert.deepEqual(u.columns[0], put('s', 'v2', ts + 1));
      assert.equal(u.columns[1].value, 1.5);
      assert.ok(u.columns[1].ts >= t0 - 1000 && u.columns[1].ts <= t1 + 1000);
      assert.deepEqual(u.columns[2], { name: 's', value: undefined, op: 'DELETE_ONE', ts });
      assert.deepEqual(u.columns[3], { name: 'now', value: undefined, op: 'DELETE_ALL', ts: undefined });
      assert.equal(u.columns[4].value, 12n);  // 7 + 5
      assert.equal(u.columns[4].ts, u.columns[1].ts, 'the increment is stamped with the request time');

      // DeleteRow: the key and the delete marker.
      assert.deepEqual(strip(del), { action: 'DELETE_ROW', pk: [['a', 1n], ['b', 'x']], columns: [], deleteMarker: true });

      // BatchWriteRow: one record per row, in the request's order.
      assert.deepEqual(strip(bp), { action: 'PUT_ROW', pk: [['a', 2n], ['b', 'y']], columns: [put('c', 'p', ts)], deleteMarker: false });
      assert.deepEqual(strip(bu), { action: 'UPDATE_ROW', pk: [['a', 3n], ['b', 'z']], columns: [put('c', 'u', ts)], deleteMarker: false });
      assert.deepEqual(strip(bd), { action: 'DELETE_ROW', pk: [['a', 2n], ['b', 'y']], columns: [], deleteMarker: true });

      // Sequence info: microseconds of the record's time, indexes rising within the shard.
      for (const r of records) {
        assert.equal(r.seq.epoch, 0);
        assert.ok(r.seq.ts >= (t0 - 1000) * 1000 && r.seq.ts <= (t1 + 1000) * 1000, `seq ts ${r.seq.ts}`);
      }
      for (let k = 1; k < records.length; k += 1) {
        assert.ok(records[k].seq.rowIndex > records[k - 1].seq.rowIndex, 'row indexes rise');
      }
    });

    it('a failed write and a delete of a missing row make no record', async () => {
      const { t, streamId } = await streamTable('snone');
      await expectOtsError(client.putRow({ tableName: t, condition: condition('EXPECT_EXIST'),
                                           primaryKey: [{ a: Long.fromNumber(1) }, { b: 'q' }],
                                           attributeColumns: [{ c: 'x' }] }),
                           403, 'OTSConditionCheckFail');
      await client.deleteRow({ tableName: t, condition: condition('IGNORE'),
                               primaryKey: [{ a: Long.fromNumber(9) }, { b: 'none' }] });
      assert.deepEqual(await readAll(client, streamId), []);
    });

    it('paging: limit caps each page and the next iterator goes on where it stopped', async () => {
      const { t, streamId } = await streamTable('spage');
      for (let k = 0; k < 7; k += 1) {
        await client.putRow({ tableName: t, condition: condition('IGNORE'),
                              primaryKey: [{ a: Long.fromNumber(k) }, { b: 'p' }], attributeColumns: [{ k: Long.fromNumber(k) }] });
      }
      const desc = await call(client, 'describeStream', { streamId });
      let iterator = (await call(client, 'getShardIterator', { streamId, shardId: desc.shards[0].shardId })).shardIterator;
      const pages = [];
      for (;;) {
        const page = await call(client, 'getStreamRecord', { shardIterator: iterator, limit: 3 });
        pages.push(page.streamRecords.map((r) => readRecord(Buffer.from(r.record)).pk[0][1]));
        // The open shard always hands out a next iterator, even when caught up.
        assert.ok(page.nextShardIterator, 'next iterator');
        iterator = page.nextShardIterator;
        if (page.streamRecords.length === 0) break;
      }
      assert.deepEqual(pages, [[0n, 1n, 2n], [3n, 4n, 5n], [6n], []]);
      // A record written later is read through the last iterator.
      await client.putRow({ tableName: t, condition: condition('IGNORE'),
                            primaryKey: [{ a: Long.fromNumber(99) }, { b: 'p' }], attributeColumns: [{ k: 'late' }] });
      const late = await call(client, 'getStreamRecord', { shardIterator: iterator });
      assert.deepEqual(late.streamRecords.map((r) => readRecord(Buffer.from(r.record)).pk[0][1]), [99n]);
      // The same iterator reads the same records again (iterators are positions, not cursors).
      const again = await call(client, 'getStreamRecord', { shardIterator: iterator });
      assert.equal(again.streamRecords.length, 1);
    });

    it('caught up, the same iterator comes back byte for byte; may_more_record says the limit cut the page', async () => {
      // The Go SDK stops polling a shard when the iterator comes back unchanged
      // (exhaustStreamRecords); the Java SDK's testStreamWithMayMoreRecord reads ten records one
      // by one, may_more_record true on each, false on the eleventh (empty) page.
      const { t, streamId } = await streamTable('smore');
      for (let k = 0; k < 3; k += 1) {
        await client.putRow({ tableName: t, condition: condition('IGNORE'),
                              primaryKey: [{ a: Long.fromNumber(k) }, { b: 'm' }], attributeColumns: [{ k: 'v' }] });
      }
      const desc = await call(client, 'describeStream', { streamId });
      let iterator = (await call(client, 'getShardIterator', { streamId, shardId: desc.shards[0].shardId })).shardIterator;
      const page = async (limit) => {
        const res = await sdkPost(server.port, 'GetStreamRecord',
          encode('GetStreamRecordRequest', { shardIterator: iterator, limit, tableName: t }));
        assert.equal(res.status, 200, JSON.stringify(errorOf(res)));
        return decode('GetStreamRecordResponse', res.body);
      };
      for (let k = 0; k < 3; k += 1) {
        const got = await page(1);
        assert.equal(got.streamRecords.length, 1);
        assert.equal(got.mayMoreRecord, true);
        iterator = got.nextShardIterator;
      }
      const empty = await page(1);
      assert.equal(empty.streamRecords?.length ?? 0, 0);
      assert.equal(empty.mayMoreRecord, false);
      assert.equal(empty.nextShardIterator, iterator, 'an idle shard gives the iterator back unchanged');
      await new Promise((resolve) => setTimeout(resolve, 5));
      assert.equal((await page(10)).nextShardIterator, iterator);
    });

    it('a table name over 238 characters: its stream is listed and described, its records are refused', async () => {
      // The Java SDK's APITest.testStreamWithLongTableName (238 reads; 239-255 "Invalid stream id").
      for (const [length, readable] of [[238, true], [239, false]]) {
        const t = `s${'x'.repeat(length - 1)}`;
        await client.createTable({
          tableMeta: { tableName: t, primaryKey: [{ name: 'a', type: 'INTEGER' }] },
          reservedThroughput: { capacityUnit: { read: 0, write: 0 } },
          tableOptions: { timeToLive: -1, maxVersions: 1 },
          streamSpecification: { enableStream: true, expirationTime: 168 },
        });
        await client.putRow({ tableName: t, condition: condition('IGNORE'),
                              primaryKey: [{ a: Long.fromNumber(1) }], attributeColumns: [{ c: 'v' }] });
        const { streamId } = (await describeTable(client, t)).streamDetails;
        const desc = await call(client, 'describeStream', { streamId });
        const { shardIterator } = await call(client, 'getShardIterator', { streamId, shardId: desc.shards[0].shardId });
        if (readable) {
          assert.equal((await call(client, 'getStreamRecord', { shardIterator })).streamRecords.length, 1);
        } else {
          await expectOtsError(call(client, 'getStreamRecord', { shardIterator }), 400, 'OTSParameterInvalid',
            `Invalid stream id: ${streamId}.`);
        }
      }
    });
  });

  describe('versions the options hide', () => {
    it('versions dropped by max versions (by a write or by the purge) make no record', async () => {
      const { t, streamId } = await streamTable('smaxv');
      const base = Date.now() - 3_600_000;
      const pk = [{ a: Long.fromNumber(1) }, { b: 'm' }];
      await putVersions(client, t, pk, [['c', 'v1', base], ['c', 'v2', base + 1],
                                         ['c', 'v3', base + 2]]);
      // A fourth version pushes the oldest out at once (the write drops it).
      await putVersions(client, t, pk, [['c', 'v4', base + 3]]);
      const purged = await server.metric('ttlstore_versions_purged_total');
      await updateOptions(client, t, { maxVersions: 1 });
      await waitFor('the purge of 2 versions', async () =>
        (await server.metric('ttlstore_versions_purged_total')) >= purged + 2, { timeoutMs: 30000, intervalMs: 250 });
      const records = await readAll(client, streamId);
      assert.deepEqual(records.map((r) => [r.action, r.columns.map((c) => c.value)]),
                       [['UPDATE_ROW', ['v1', 'v2', 'v3']], ['UPDATE_ROW', ['v4']]]);
    });

    it('rows aged out by the table TTL and purged make no record', async () => {
      const { t, streamId } = await streamTable('sttl');
      const old = Date.now() - 3_600_000;
      await client.putRow({ tableName: t, condition: condition('IGNORE'),
                            primaryKey: [{ a: Long.fromNumber(1) }, { b: 't' }],
                            attributeColumns: [{ c: 'old', timestamp: old }] });
      const rowsPurged = await server.metric('ttlstore_versions_rows_purged_total');
      await updateOptions(client, t, { timeToLive: 60 });  // the row aged out 59 minutes ago
      await waitFor('the purge of the aged-out row', async () =>
        (await server.metric('ttlstore_versions_rows_purged_total')) > rowsPurged, { timeoutMs: 30000, intervalMs: 250 });
      const records = await readAll(client, streamId);
      assert.deepEqual(records.map((r) => r.action), ['PUT_ROW']);
    });
  });

  describe('local transactions', () => {
    it("a transaction's writes reach the stream at its commit, in order; an aborted one's never", async () => {
      const { t, streamId } = await streamTable('stxn');
      const partition = [{ a: Long.fromNumber(7) }];
      const row = (b, value, transactionId) => client.putRow({
        tableName: t, condition: condition('IGNORE'), primaryKey: [{ a: Long.fromNumber(7) }, { b }],
        attributeColumns: [{ c: value }], transactionId,
      });
      const aborted = (await client.startLocalTransaction({ tableName: t, primaryKey: partition })).transactionId;
      await row('r0', 'aborted', aborted);
      await client.abortTransaction({ transactionId: aborted });
      const txn = (await client.startLocalTransaction({ tableName: t, primaryKey: partition })).transactionId;
      await row('r1', 'one', txn);
      await row('r2', 'two', txn);
      await client.updateRow({
        tableName: t, condition: condition('IGNORE'), primaryKey: [{ a: Long.fromNumber(7) }, { b: 'r1' }],
        updateOfAttributeColumns: [{ PUT: [{ d: 'more' }] }], transactionId: txn,
      });
      assert.deepEqual(await readAll(client, streamId), [], 'nothing reaches the stream before the commit');
      await client.commitTransaction({ transactionId: txn });
      const records = await readAll(client, streamId);
      assert.deepEqual(records.map((r) => [r.action, r.pk[1][1], r.columns.map((c) => c.value)]),
                       [['PUT_ROW', 'r1', ['one']], ['PUT_ROW', 'r2', ['two']], ['UPDATE_ROW', 'r1', ['more']]]);
    });
  });

  describe('refusals', () => {
    it('a bad iterator, a missing stream or shard, a bad limit', async () => {
      const { streamId } = await streamTable('sbad');
      await expectOtsError(call(client, 'getStreamRecord', { shardIterator: 'garbage' }),
                           400, 'OTSParameterInvalid', 'Invalid shard iterator.');
      const desc = await call(client, 'describeStream', { streamId });
      const { shardIterator } = await call(client, 'getShardIterator', { streamId, shardId: desc.shards[0].shardId });
      // One character changed: the checksum catches it.
      const edited = shardIterator.slice(0, -1) + (shardIterator.endsWith('0') ? '1' : '0');
      await expectOtsError(call(client, 'getStreamRecord', { shardIterator: edited }),
                           400, 'OTSParameterInvalid', 'Invalid shard iterator.');
      for (const limit of [0, -1, 1001]) {
        await expectOtsError(call(client, 'getStreamRecord', { shardIterator, limit }),
                             400, 'OTSParameterInvalid', `Invalid limit: ${limit}, it must be in range [1, 1000].`);
      }
      await expectOtsError(call(client, 'describeStream', { streamId: 'no_such_table_123' }),
                           404, 'OTSObjectNotExist', 'Stream does not exist.');
      await expectOtsError(call(client, 'describeStream', { streamId: 'not-a-stream-id' }),
                           404, 'OTSObjectNotExist', 'Stream does not exist.');
      await expectOtsError(call(client, 'getShardIterator', { streamId: 'no_such_table_123', shardId: desc.shards[0].shardId }),
                           404, 'OTSObjectNotExist', 'Stream does not exist.');
      await expectOtsError(call(client, 'getShardIterator', { streamId, shardId: 'shardId-00000000000000000001-00000000' }),
                           404, 'OTSObjectNotExist', 'Shard does not exist.');
      await expectOtsError(call(client, 'listStream', { tableName: 'no_such_table_for_streams' }),
                           404, 'OTSObjectNotExist', 'Requested table does not exist.');
    });

    it('a disabled stream is gone; enabling again makes a new stream without the old records', async () => {
      const { t, streamId } = await streamTable('sdis');
      const pk = [{ a: Long.fromNumber(1) }, { b: 'd' }];
      await client.putRow({ tableName: t, condition: condition('IGNORE'), primaryKey: pk, attributeColumns: [{ c: 'one' }] });
      const desc = await call(client, 'describeStream', { streamId });
      const { shardIterator } = await call(client, 'getShardIterator', { streamId, shardId: desc.shards[0].shardId });

      const off = await client.updateTable({ tableName: t, tableOptions: {}, streamSpecification: { enableStream: false } });
      assert.equal(off.streamDetails.enableStream, false);
      assert.equal((await describeTable(client, t)).streamDetails.enableStream, false);
      assert.deepEqual((await call(client, 'listStream', { tableName: t })).streams, []);
      await expectOtsError(call(client, 'describeStream', { streamId }), 404, 'OTSObjectNotExist', 'Stream does not exist.');
      await expectOtsError(call(client, 'getShardIterator', { streamId, shardId: desc.shards[0].shardId }),
                           404, 'OTSObjectNotExist', 'Stream does not exist.');
      await expectOtsError(call(client, 'getStreamRecord', { shardIterator }), 404, 'OTSObjectNotExist', 'Stream does not exist.');
      // Writes while disabled are in no stream.
      await client.putRow({ tableName: t, condition: condition('IGNORE'), primaryKey: pk, attributeColumns: [{ c: 'two' }] });

      const on = await enableStream(client, t, 1);
      const newId = on.streamDetails.streamId;
      assert.notEqual(newId, streamId);
      assert.deepEqual(await readAll(client, newId), []);
      await client.putRow({ tableName: t, condition: condition('IGNORE'), primaryKey: pk, attributeColumns: [{ c: 'three' }] });
      const records = await readAll(client, newId);
      assert.deepEqual(records.map((r) => r.columns[0].value), ['three']);
      assert.equal((await call(client, 'describeStream', { streamId: newId })).expirationTime, 1);
    });

    it('the stream option: already enabled, expiration time out of range or missing', async () => {
      const { t } = await streamTable('sspec');
      await expectOtsError(enableStream(client, t, 24), 400, 'OTSParameterInvalid',
                           'The stream of the table is already enabled.');
      const t2 = uniqueName('sspec2');
      await createTable(client, t2, { pk: [['a', 'INTEGER']] });
      for (const hours of [0, 169, -1]) {
        await expectOtsError(enableStream(client, t2, hours), 400, 'OTSParameterInvalid',
                             `Invalid expiration_time: ${hours}, it must be in range [1, 168].`);
      }
      await expectOtsError(client.updateTable({ tableName: t2, tableOptions: {}, streamSpecification: { enableStream: true } }),
                           400, 'OTSParameterInvalid', 'expiration_time is required when enable_stream is true.');
      const t3 = uniqueName('sspec3');
      await expectOtsError(client.createTable({
        tableMeta: { tableName: t3, primaryKey: [{ name: 'a', type: 'INTEGER' }] },
        reservedThroughput: { capacityUnit: { read: 0, write: 0 } },
        tableOptions: { timeToLive: -1, maxVersions: 1 },
        streamSpecification: { enableStream: true, expirationTime: 200 },
      }), 400, 'OTSParameterInvalid', 'Invalid expiration_time: 200, it must be in range [1, 168].');
      // Disabling a table that has no stream changes nothing.
      const off = await client.updateTable({ tableName: t2, tableOptions: {}, streamSpecification: { enableStream: false } });
      assert.equal(off.streamDetails.enableStream, false);
    });
  });

  it('kill -9 amid writes: every row written has its record and every record its row', async () => {
    const { t, streamId } = await streamTable('skill');
    const writers = [];
    let stop = false;
    for (let w = 0; w < 4; w += 1) {
      writers.push((async () => {
        for (let k = 0; !stop; k += 1) {
          try {
            await client.putRow({ tableName: t, condition: condition('IGNORE'),
                                  primaryKey: [{ a: Long.fromNumber(w * 100000 + k) }, { b: 'k' }],
                                  attributeColumns: [{ c: k }] });
          } catch { return; }  // the server is gone
        }
      })());
    }
    await new Promise((resolve) => setTimeout(resolve, 300 + Math.floor(Math.random() * 400)));
    const child = server.child;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    process.kill(child.pid, 'SIGKILL');
    await exited;
    stop = true;
    await Promise.all(writers);
    const check = spawnSync(TTLSTORE_BIN, ['check', '--data-dir', server.dataDir, ...pgStorageArgs(server.dataDir)], { encoding: 'utf8' });
    assert.equal(check.status, 0, `ttlstore check:\n${check.stdout}${check.stderr}`);
    server.port = null;
    await server._spawn();
    client = server.client();

    const rows = new Set();
    let start = [{ a: TableStore.INF_MIN }, { b: TableStore.INF_MIN }];
    for (;;) {
      const page = await client.getRange({ tableName: t, direction: TableStore.Direction.FORWARD,
                                           inclusiveStartPrimaryKey: start,
                                           exclusiveEndPrimaryKey: [{ a: TableStore.INF_MAX }, { b: TableStore.INF_MAX }] });
      for (const r of page.rows) rows.add(BigInt(r.primaryKey[0].value.toString()));
      if (!page.nextStartPrimaryKey) break;
      start = page.nextStartPrimaryKey.map((c) => ({ [c.name]: c.value }));
    }
    const recorded = new Set((await readAll(client, streamId)).map((r) => r.pk[0][1]));
    assert.ok(rows.size > 0, 'some writes committed before the kill');
    assert.deepEqual([...recorded].sort(), [...rows].sort());
  });

  it('records survive a restart, and new records keep rising after it', async () => {
    const { t, streamId } = await streamTable('srestart');
    await client.putRow({ tableName: t, condition: condition('IGNORE'),
                          primaryKey: [{ a: Long.fromNumber(1) }, { b: 'r' }], attributeColumns: [{ c: 'before' }] });
    await server.restart();
    client = server.client();
    await client.putRow({ tableName: t, condition: condition('IGNORE'),
                          primaryKey: [{ a: Long.fromNumber(2) }, { b: 'r' }], attributeColumns: [{ c: 'after' }] });
    const records = await readAll(client, streamId);
    assert.deepEqual(records.map((r) => r.columns[0].value), ['before', 'after']);
    assert.ok(records[1].seq.rowIndex > records[0].seq.rowIndex);
  });
});
