// TableOptions.update_full_row (docs/tablestore.md, "Update full row"): CreateTable takes it and
// DescribeTable reports it, false by default (the Go SDK's TestCreateTable); UpdateTable refuses
// it, true or false, with a message containing "contain updateFullRow" (its
// TestUpdateAndDescribeTable); an UpdateRow on such a table stamps every column of the row with
// its time (and its stream record says so); and it lets a search index have a TTL while the
// table allows updates. The Node SDK cannot send or read the option: table calls are raw
// protobuf (sdk_wire.mjs rawCall), signed as the SDKs sign; rows go through the SDK.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import {
  Server, TableStore, condition, expectOtsError, num, uniqueName,
} from './helpers.mjs';
import { createTableMessage, expectRawError, rawCall } from './sdk_wire.mjs';
import { readAll } from './stream_helpers.mjs';

describe('tablestore update_full_row', () => {
  let server;
  let client;

  before(async () => {
    server = await Server.start({ args: ['--tablestore-min-ttl', '1'] });
    client = server.client();
  });
  after(async () => { await server?.stop({ removeDir: true }); });

  const options = async (t) => {
    const res = await rawCall(server.port, 'DescribeTable', { tableName: t });
    assert.equal(res.status, 200, JSON.stringify(res.error));
    return res.body.tableOptions;
  };
  const create = async (t, tableOptions, streamSpec) => {
    const res = await rawCall(server.port, 'CreateTable', createTableMessage(t, { tableOptions, streamSpec }));
    assert.equal(res.status, 200, JSON.stringify(res.error));
  };

  it('CreateTable takes it, DescribeTable reports it, false by default (Go TestCreateTable)', async () => {
    for (let i = 0; i < 4; i += 1) {
      const t = uniqueName('ufr');
      await create(t, { timeToLive: i === 0 ? -1 : 86400 + i, maxVersions: i + 1,
                        allowUpdate: i % 2 === 0, updateFullRow: i % 3 === 0 });
      const o = await options(t);
      assert.equal(o.updateFullRow, i % 3 === 0, `table ${i}`);
      assert.equal(o.allowUpdate, i % 2 === 0);
      assert.equal(o.maxVersions, i + 1);
    }
    const t = uniqueName('ufr_default');
    await create(t, {});
    assert.equal((await options(t)).updateFullRow, false);
    await server.restart();
    client = server.client();
    assert.equal((await options(t)).updateFullRow, false);
  });

  it('UpdateTable refuses it, true or false (Go TestUpdateAndDescribeTable); the table is unchanged', async () => {
    const t = uniqueName('ufr_upd');
    await create(t, { updateFullRow: true, maxVersions: 3 });
    for (const updateFullRow of [true, false]) {
      await expectRawError(rawCall(server.port, 'UpdateTable', {
        tableName: t, tableOptions: { timeToLive: -1, maxVersions: 5, updateFullRow } }),
        400, 'OTSParameterInvalid', /contain updateFullRow/);
    }
    const o = await options(t);
    assert.equal(o.maxVersions, 3);
    assert.equal(o.updateFullRow, true);
    // Survives a restart.
    await server.restart();
    client = server.client();
    assert.equal((await options(t)).updateFullRow, true);
  });

  it('an UpdateRow stamps every column of the row with its time; the stream record lists them', async () => {
    const t = uniqueName('ufr_rows');
    await create(t, { maxVersions: 2, updateFullRow: true }, { enableStream: true, expirationTime: 1 });
    const plain = uniqueName('ufr_plain');
    await create(plain, { maxVersions: 2 });
    const old = Date.now() - 60_000;
    for (const name of [t, plain]) {
      await client.putRow({ tableName: name, condition: condition('IGNORE'), primaryKey: [{ pk: 'r' }],
                            attributeColumns: [{ a: 'a0', timestamp: old }, { b: 'b0', timestamp: old }] });
    }
    const t0 = Date.now();
    for (const name of [t, plain]) {
      await client.updateRow({ tableName: name, condition: condition('IGNORE'), primaryKey: [{ pk: 'r' }],
                               updateOfAttributeColumns: [{ PUT: [{ a: 'a1' }] }] });
    }
    const t1 = Date.now();
    const versionsOf = async (name) => {
      const { row } = await client.getRow({ tableName: name, primaryKey: [{ pk: 'r' }], maxVersions: 2 });
      const out = {};
      for (const c of row.attributes) (out[c.columnName] ??= []).push([c.columnValue, num(c.timestamp)]);
      return out;
    };
    // Without the option, b keeps its one version.
    assert.deepEqual((await versionsOf(plain)).b, [['b0', old]]);
    // With it, b's value is put again at the update's time: the row's columns share that time.
    const full = await versionsOf(t);
    assert.equal(full.b.length, 2);
    assert.equal(full.b[0][0], 'b0');
    assert.ok(full.b[0][1] >= t0 - 1000 && full.b[0][1] <= t1 + 1000, `b restamped at ${full.b[0][1]}`);
    assert.deepEqual(full.b[1], ['b0', old]);
    assert.equal(full.a[0][0], 'a1');
    assert.equal(full.a[0][1], full.b[0][1]);
    const d = await client.describeTable({ tableName: t });
    const records = await readAll(client, d.streamDetails.streamId);
    assert.deepEqual(records[1].columns.map((c) => [c.name, c.value, c.op, c.ts]), [
      ['a', 'a1', 'PUT', full.a[0][1]], ['b', 'b0', 'PUT', full.b[0][1]],
    ]);
  });

  it('lets a search index have a TTL while the table allows updates', async () => {
    const schema = { fieldSchemas: [{ fieldName: 'k', fieldType: TableStore.FieldType.KEYWORD }] };
    const plain = uniqueName('ufr_si_plain');
    await create(plain, {});
    await expectOtsError(client.createSearchIndex({ tableName: plain, indexName: 'ix', timeToLive: 86400, schema }),
                         400, 'OTSParameterInvalid',
                         "The time to live of a search index can be set only when the table's allow_update is false or its update_full_row is true.");
    const t = uniqueName('ufr_si');
    await create(t, { updateFullRow: true });
    await client.createSearchIndex({ tableName: t, indexName: 'ix', timeToLive: 86400, schema });
    const desc = await client.describeSearchIndex({ tableName: t, indexName: 'ix' });
    assert.equal(num(desc.timeToLive), 86400);
    await client.updateSearchIndex({ tableName: t, indexName: 'ix', timeToLive: 172800 });
  });
});
