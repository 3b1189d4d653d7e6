// Restart: stop the server (SIGTERM by PID) and start it again on the same data dir; tables, table
// options, rows and all their versions survive.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';

import {
  Long, Server, TableStore, cells, condition, createTable, getRow, optionsOf, uniqueName,
  putVersions, updateOptions, values,
} from './helpers.mjs';

const { INF_MIN, INF_MAX, Direction } = TableStore;

describe('tablestore restart', () => {
  let server;

  after(async () => {
    await server?.stop({ removeDir: true });
  });

  it('rows, versions and table options survive a restart on the same data dir', async () => {
    server = await Server.start();
    let client = server.client();

    const t = uniqueName('persist');
    const t2 = uniqueName('persist2');
    const dropped = uniqueName('dropped');
    await createTable(client, t, {
      pk: [['pk1', 'STRING'], ['pk2', 'INTEGER']], timeToLive: 172800, maxVersions: 3, maxTimeDeviation: 1000,
    });
    await createTable(client, t2, { pk: [['id', 'BINARY']], timeToLive: -1, maxVersions: 1, allowUpdate: false });
    await createTable(client, dropped, { pk: [['id', 'STRING']] });
    // Options changed after creation must survive too.
    await updateOptions(client, t, { maxVersions: 4 });

    const base = Date.now() - 30000;
    const k1 = [{ pk1: 'a' }, { pk2: Long.fromNumber(1) }];
    const k2 = [{ pk1: 'b' }, { pk2: Long.fromNumber(-2) }];
    const kGone = [{ pk1: 'c' }, { pk2: Long.fromNumber(3) }];
    await putVersions(client, t, k1, [['s', 's1', base], ['i', Long.fromNumber(10), base]]);
    await putVersions(client, t, k1, [['s', 's2', base + 1000]]);
    await putVersions(client, t, k1, [['s', 's3', base + 2000], ['d', 1.5, base + 2000]]);
    await client.putRow({
      tableName: t, condition: condition('IGNORE'), primaryKey: k2,
      attributeColumns: [{ b: false, timestamp: base }, { blob: Buffer.from([9, 8, 7]), timestamp: base }],
    });
    await putVersions(client, t, kGone, [['x', 'x']]);
    await client.deleteRow({ tableName: t, primaryKey: kGone, condition: condition('IGNORE') });
    await client.putRow({
      tableName: t2, condition: condition('IGNORE'), primaryKey: [{ id: Buffer.from([1, 2]) }],
      attributeColumns: [{ c: 'bin-keyed' }],
    });
    await client.deleteTable({ tableName: dropped });

    const describeBefore = await client.describeTable({ tableName: t });
    const code = await server.restart();
    assert.equal(code, 0, 'clean exit on SIGTERM');
    client = server.client();

    const names = (await client.listTable({})).tableNames;
    assert.ok(names.includes(t) && names.includes(t2), `ListTable after restart: ${JSON.stringify(names)}`);
    assert.ok(!names.includes(dropped), 'a deleted table stays deleted');

    const d = await client.describeTable({ tableName: t });
    assert.deepEqual(optionsOf(d.tableOptions), {
      timeToLive: 172800, maxVersions: 4, deviationCellVersionInSec: 1000, allowUpdate: true,
    });
    assert.deepEqual(optionsOf(d.tableOptions), optionsOf(describeBefore.tableOptions));
    assert.deepEqual(d.tableMeta.primaryKey.map((p) => [p.name, p.type]), [['pk1', 2], ['pk2', 1]]);
    assert.equal(d.tableStatus, 1);
    const d2 = await client.describeTable({ tableName: t2 });
    assert.deepEqual(optionsOf(d2.tableOptions), {
      timeToLive: -1, maxVersions: 1, deviationCellVersionInSec: 86400, allowUpdate: false,
    });
    assert.deepEqual(d2.tableMeta.primaryKey.map((p) => [p.name, p.type]), [['id', 3]]);

    assert.deepEqual(cells(await getRow(client, t, k1, { maxVersions: 5 })), [
      ['d', 1.5, base + 2000], ['i', 10n, base],
      ['s', 's3', base + 2000], ['s', 's2', base + 1000], ['s', 's1', base],
    ]);
    assert.deepEqual(cells(await getRow(client, t, k2)), [['b', false, base], ['blob', Buffer.from([9, 8, 7]), base]]);
    assert.deepEqual(await getRow(client, t, kGone), {});
    assert.deepEqual(values(await getRow(client, t2, [{ id: Buffer.from([1, 2]) }])), [['c', 'bin-keyed']]);

    const range = await client.getRange({
      tableName: t, direction: Direction.FORWARD,
      inclusiveStartPrimaryKey: [{ pk1: INF_MIN }, { pk2: INF_MIN }],
      exclusiveEndPrimaryKey: [{ pk1: INF_MAX }, { pk2: INF_MAX }],
    });
    assert.deepEqual(range.rows.map((r) => r.primaryKey.map((p) => p.value).map(String)), [['a', '1'], ['b', '-2']]);

    // The restarted server keeps enforcing the persisted options: max versions 4 and the
    // 1000 s deviation.
    await putVersions(client, t, k1, [['s', 's4', base + 3000]]);
    await putVersions(client, t, k1, [['s', 's5', base + 4000]]);
    assert.deepEqual(values(await getRow(client, t, k1, { maxVersions: 10, columnsToGet: ['s'] })), [
      ['s', 's5'], ['s', 's4'], ['s', 's3'], ['s', 's2'],
    ]);
    await assert.rejects(putVersions(client, t, k1, [['s', 'old', Date.now() - 2000000]]),
                         (e) => e.code === 400 && String(e.message).includes('OTSParameterInvalid'));

    // And a second restart, right after writes, loses nothing.
    assert.equal(await server.restart(), 0);
    client = server.client();
    assert.deepEqual(values(await getRow(client, t, k1, { maxVersions: 10, columnsToGet: ['s'] })), [
      ['s', 's5'], ['s', 's4'], ['s', 's3'], ['s', 's2'],
    ]);
  });
});
