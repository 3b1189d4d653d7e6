// Table operations through the official SDK: CreateTable, DescribeTable, ListTable, UpdateTable,
// DeleteTable, and the option limits (T1, T7, T9). The server runs with the DEFAULT minimum TTL
// (86400 s) so that "TTL under the minimum" is refused.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import {
  Server, TableStore, createTable, expectOtsError, num, optionsOf, uniqueName, updateOptions,
  condition,
} from './helpers.mjs';

describe('tablestore tables', () => {
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

  it('CreateTable with all options; DescribeTable returns meta, options, status and throughput', async () => {
    const name = uniqueName('full');
    const created = await client.createTable({
      tableMeta: {
        tableName: name,
        primaryKey: [
          { name: 'pk1', type: 'STRING' },
          { name: 'pk2', type: 'INTEGER' },
          { name: 'pk3', type: 'BINARY' },
        ],
      },
      reservedThroughput: { capacityUnit: { read: 0, write: 0 } },
      tableOptions: { timeToLive: 172800, maxVersions: 3, maxTimeDeviation: 3600, allowUpdate: false },
    });
    assert.ok(created, 'CreateTable answers');

    const d = await client.describeTable({ tableName: name });
    assert.equal(d.tableMeta.tableName, name);
    assert.deepEqual(d.tableMeta.primaryKey.map((p) => [p.name, p.type]), [
      ['pk1', TableStore.PrimaryKeyType.STRING],
      ['pk2', TableStore.PrimaryKeyType.INTEGER],
      ['pk3', TableStore.PrimaryKeyType.BINARY],
    ]);
    assert.deepEqual(optionsOf(d.tableOptions), {
      timeToLive: 172800, maxVersions: 3, deviationCellVersionInSec: 3600, allowUpdate: false,
    });
    assert.equal(d.tableStatus, 1, 'tableStatus ACTIVE');
    assert.equal(num(d.reservedThroughputDetails.capacityUnit.read), 0);
    assert.equal(num(d.reservedThroughputDetails.capacityUnit.write), 0);
    assert.equal(typeof num(d.reservedThroughputDetails.lastIncreaseTime), 'number');
  });

  it('CreateTable defaults: deviation 86400 and allowUpdate true when not sent', async () => {
    const name = uniqueName('defaults');
    await createTable(client, name, { timeToLive: -1, maxVersions: 1 });
    const d = await client.describeTable({ tableName: name });
    assert.deepEqual(optionsOf(d.tableOptions), {
      timeToLive: -1, maxVersions: 1, deviationCellVersionInSec: 86400, allowUpdate: true,
    });
    assert.equal(d.tableStatus, 1);
  });

  it('CreateTable of an existing table is 409 OTSObjectAlreadyExist', async () => {
    const name = uniqueName('dup');
    await createTable(client, name);
    await expectOtsError(createTable(client, name), 409, 'OTSObjectAlreadyExist');
  });

  it('ListTable lists created tables and drops deleted ones', async () => {
    const a = uniqueName('lista');
    const b = uniqueName('listb');
    await createTable(client, a);
    await createTable(client, b);
    let names = (await client.listTable({})).tableNames;
    assert.ok(Array.isArray(names));
    assert.ok(names.includes(a) && names.includes(b), `ListTable: ${JSON.stringify(names)}`);
    await client.deleteTable({ tableName: a });
    names = (await client.listTable({})).tableNames;
    assert.ok(!names.includes(a), `deleted table still listed: ${JSON.stringify(names)}`);
    assert.ok(names.includes(b));
  });

  it('UpdateTable changes only the fields given and echoes the full options', async () => {
    const name = uniqueName('upd');
    await createTable(client, name, { timeToLive: -1, maxVersions: 1 });

    let r = await updateOptions(client, name, { maxVersions: 5 });
    assert.deepEqual(optionsOf(r.tableOptions), {
      timeToLive: -1, maxVersions: 5, deviationCellVersionInSec: 86400, allowUpdate: true,
    });
    assert.ok(r.reservedThroughputDetails, 'UpdateTable response has reservedThroughputDetails');
    assert.equal(num(r.reservedThroughputDetails.capacityUnit.read), 0);

    r = await updateOptions(client, name, { timeToLive: 172800 });
    assert.deepEqual(optionsOf(r.tableOptions), {
      timeToLive: 172800, maxVersions: 5, deviationCellVersionInSec: 86400, allowUpdate: true,
    });

    r = await updateOptions(client, name, { maxTimeDeviation: 1000, allowUpdate: false });
    assert.deepEqual(optionsOf(r.tableOptions), {
      timeToLive: 172800, maxVersions: 5, deviationCellVersionInSec: 1000, allowUpdate: false,
    });

    // The SDK's own example (T13): TTL one day and max versions 1 in one call.
    r = await updateOptions(client, name, { timeToLive: 86400, maxVersions: 1 });
    assert.deepEqual(optionsOf(r.tableOptions), {
      timeToLive: 86400, maxVersions: 1, deviationCellVersionInSec: 1000, allowUpdate: false,
    });

    const d = await client.describeTable({ tableName: name });
    assert.deepEqual(optionsOf(d.tableOptions), optionsOf(r.tableOptions));
  });

  it('DeleteTable, then every operation on it is 404 OTSObjectNotExist', async () => {
    const name = uniqueName('gone');
    await createTable(client, name);
    await client.putRow({
      tableName: name, condition: condition('IGNORE'), primaryKey: [{ pk: 'a' }], attributeColumns: [{ c: 'v' }],
    });
    await client.deleteTable({ tableName: name });

    const pk = [{ pk: 'a' }];
    await expectOtsError(client.describeTable({ tableName: name }), 404, 'OTSObjectNotExist');
    await expectOtsError(client.deleteTable({ tableName: name }), 404, 'OTSObjectNotExist');
    await expectOtsError(updateOptions(client, name, { maxVersions: 2 }), 404, 'OTSObjectNotExist');
    await expectOtsError(client.getRow({ tableName: name, primaryKey: pk }), 404, 'OTSObjectNotExist');
    await expectOtsError(client.putRow({
      tableName: name, condition: condition('IGNORE'), primaryKey: pk, attributeColumns: [{ c: 'v' }],
    }), 404, 'OTSObjectNotExist');
    await expectOtsError(client.updateRow({
      tableName: name, condition: condition('IGNORE'), primaryKey: pk,
      updateOfAttributeColumns: [{ PUT: [{ c: 'v' }] }],
    }), 404, 'OTSObjectNotExist');
    await expectOtsError(client.deleteRow({ tableName: name, condition: condition('IGNORE'), primaryKey: pk }),
                         404, 'OTSObjectNotExist');
    await expectOtsError(client.getRange({
      tableName: name, direction: TableStore.Direction.FORWARD,
      inclusiveStartPrimaryKey: [{ pk: TableStore.INF_MIN }],
      exclusiveEndPrimaryKey: [{ pk: TableStore.INF_MAX }],
    }), 404, 'OTSObjectNotExist');

    // The name can be used again, and the new table is empty.
    await createTable(client, name);
    const g = await client.getRow({ tableName: name, primaryKey: pk });
    assert.deepEqual(g.row, {});
  });

  it('DescribeTable of a table that never existed is 404 OTSObjectNotExist', async () => {
    await expectOtsError(client.describeTable({ tableName: uniqueName('never') }), 404, 'OTSObjectNotExist');
  });

  describe('invalid options are 400 OTSParameterInvalid and create nothing', () => {
    const cases = [
      ['maxVersions 0 (T1)', { timeToLive: -1, maxVersions: 0 }],
      ['maxVersions -1 (T1)', { timeToLive: -1, maxVersions: -1 }],
      ['TTL 0 (T7)', { timeToLive: 0, maxVersions: 1 }],
      ['TTL -2 (T7)', { timeToLive: -2, maxVersions: 1 }],
      ['TTL under the 86400 minimum (T7)', { timeToLive: 86399, maxVersions: 1 }],
      ['TTL 3600 under the minimum (T7)', { timeToLive: 3600, maxVersions: 1 }],
      ['negative max time deviation (T9)', { timeToLive: -1, maxVersions: 1, maxTimeDeviation: -5 }],
    ];
    for (const [label, opts] of cases) {
      it(`CreateTable: ${label}`, async () => {
        const name = uniqueName('bad');
        await expectOtsError(createTable(client, name, opts), 400, 'OTSParameterInvalid');
        const names = (await client.listTable({})).tableNames;
        assert.ok(!names.includes(name), 'a refused CreateTable must not create the table');
      });
    }

    it('CreateTable: TTL exactly 86400 and -1 are accepted', async () => {
      await createTable(client, uniqueName('okttl'), { timeToLive: 86400, maxVersions: 1 });
      await createTable(client, uniqueName('okttl'), { timeToLive: -1, maxVersions: 1 });
    });

    const updateCases = [
      ['maxVersions 0', { maxVersions: 0 }],
      ['maxVersions -3', { maxVersions: -3 }],
      ['TTL 0', { timeToLive: 0 }],
      ['TTL -7', { timeToLive: -7 }],
      ['TTL 100 under the minimum', { timeToLive: 100 }],
    ];
    for (const [label, opts] of updateCases) {
      it(`UpdateTable: ${label} leaves the options unchanged`, async () => {
        const name = uniqueName('badupd');
        await createTable(client, name, { timeToLive: 172800, maxVersions: 2 });
        await expectOtsError(updateOptions(client, name, opts), 400, 'OTSParameterInvalid');
        const d = await client.describeTable({ tableName: name });
        assert.deepEqual(optionsOf(d.tableOptions), {
          timeToLive: 172800, maxVersions: 2, deviationCellVersionInSec: 86400, allowUpdate: true,
        });
      });
    }
  });
});
