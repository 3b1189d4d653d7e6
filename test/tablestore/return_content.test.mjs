// ReturnContent on writes: RT_PK returns the primary key; RT_AFTER_MODIFY returns the named
// columns as they are after the write (how an INCREMENT reads its result), single and batch.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { Long, Server, TableStore, condition, createTable, num, uniqueName } from './helpers.mjs';

describe('tablestore ReturnContent', () => {
  let server;
  let client;

  before(async () => {
    server = await Server.start();
    client = server.client();
  });

  after(async () => {
    await server?.stop({ removeDir: true });
  });

  it('UpdateRow INCREMENT with AfterModify returns the new counter value', async () => {
    const name = uniqueName('rc');
    await createTable(client, name);
    const inc = (delta) => client.updateRow({
      tableName: name, condition: condition(), primaryKey: [{ pk: 'a' }],
      updateOfAttributeColumns: [{ INCREMENT: [{ cnt: Long.fromNumber(delta) }] }, { PUT: [{ other: 'x' }] }],
      returnContent: { returnType: TableStore.ReturnType.AfterModify, returnColumns: ['cnt'] },
    });
    let r = await inc(5);
    assert.deepEqual(r.row.primaryKey, [{ name: 'pk', value: 'a' }]);
    assert.equal(r.row.attributes.length, 1);
    assert.equal(r.row.attributes[0].columnName, 'cnt');
    assert.equal(num(r.row.attributes[0].columnValue), 5);
    r = await inc(-7);
    assert.equal(num(r.row.attributes[0].columnValue), -2);
  });

  it('BatchWriteRow returns the primary key (RT_PK) and modified columns (AfterModify) per row', async () => {
    const name = uniqueName('rc');
    await createTable(client, name);
    const r = await client.batchWriteRow({
      tables: [{
        tableName: name,
        rows: [
          { type: 'PUT', condition: condition(), primaryKey: [{ pk: 'p' }], attributeColumns: [{ a: 'x' }],
            returnContent: { returnType: TableStore.ReturnType.Primarykey } },
          { type: 'UPDATE', condition: condition(), primaryKey: [{ pk: 'u' }],
            attributeColumns: [{ INCREMENT: [{ n: Long.fromNumber(3) }] }],
            returnContent: { returnType: TableStore.ReturnType.AfterModify, returnColumns: ['n'] } },
        ],
      }],
    });
    assert.equal(r.tables.length, 2);
    assert.ok(r.tables.every((row) => row.isOk));
    assert.deepEqual(r.tables[0].primaryKey, [{ name: 'pk', value: 'p' }]);
    assert.deepEqual(r.tables[1].primaryKey, [{ name: 'pk', value: 'u' }]);
    assert.equal(num(r.tables[1].attributes[0].columnValue), 3);
  });
});
