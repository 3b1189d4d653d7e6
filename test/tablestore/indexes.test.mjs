// Secondary indexes are not served, but CreateTable with one first applies T12's option checks
// (max versions 1; a TTL needs allow_update false) and then refuses, creating nothing.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { Server, expectOtsError, uniqueName } from './helpers.mjs';

describe('tablestore indexes (T11, T12)', () => {
  let server;
  let client;

  before(async () => {
    server = await Server.start();
    client = server.client();
  });

  after(async () => {
    await server?.stop({ removeDir: true });
  });

  const create = (name, tableOptions) => client.createTable({
    tableMeta: {
      tableName: name,
      primaryKey: [{ name: 'pk', type: 'STRING' }],
      definedColumn: [{ name: 'col', type: TableStore_DCT_STRING }],
    },
    reservedThroughput: { capacityUnit: { read: 0, write: 0 } },
    tableOptions,
    indexMetas: [{ name: 'idx', primaryKey: ['col'], definedColumn: [] }],
  });
  const TableStore_DCT_STRING = 4;

  it('refuses max versions other than 1, then a TTL with allow_update, then the index itself', async () => {
    await expectOtsError(create(uniqueName('ix'), { timeToLive: -1, maxVersions: 2 }),
      400, 'OTSParameterInvalid', 'The max versions of a table with indexes must be 1.');
    await expectOtsError(create(uniqueName('ix'), { timeToLive: 86400, maxVersions: 1 }),
      400, 'OTSParameterInvalid', 'must set allow_update to false');
    const name = uniqueName('ix');
    await expectOtsError(create(name, { timeToLive: 86400, maxVersions: 1, allowUpdate: false }),
      400, 'OTSParameterInvalid', 'Secondary indexes are not supported by ttlstore.');
    const list = await client.listTable({});
    assert.ok(!list.tableNames.includes(name));
  });
});
