// AddDefinedColumn and DeleteDefinedColumn (predefined columns after creation). The Node SDK has
// no call for them (the Java, Go and Python SDKs do), so the requests are encoded here from the
// protocol's messages and signed as the SDK signs; DescribeTable through the SDK shows the result.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { Server, TableStore, decodeOtsError, signedPost, uniqueName } from './helpers.mjs';
import { encode } from './sdk_wire.mjs';

const DCT = { INTEGER: 1, DOUBLE: 2, BOOLEAN: 3, STRING: 4, BLOB: 7 };

// verify false: some cases send a type the enum does not list.
const addBody = (table, cols) => encode('AddDefinedColumnRequest', {
  tableName: table, columns: cols.map(([name, type]) => ({ name, type })),
}, { verify: false });
const deleteBody = (table, names) => encode('DeleteDefinedColumnRequest', { tableName: table, columns: names });

describe('tablestore AddDefinedColumn / DeleteDefinedColumn', () => {
  let server;
  let client;
  before(async () => {
    server = await Server.start();
    client = server.client();
  });
  after(async () => { await server?.stop({ removeDir: true }); });

  const create = (name, definedColumn = []) => client.createTable({
    tableMeta: { tableName: name, primaryKey: [{ name: 'pk', type: 'STRING' }], definedColumn },
    reservedThroughput: { capacityUnit: { read: 0, write: 0 } },
    tableOptions: { timeToLive: -1, maxVersions: 1 },
  });
  const defined = async (name) => {
    const d = await client.describeTable({ tableName: name });
    return (d.tableMeta.definedColumn ?? []).map((c) => [c.name, c.type]);
  };
  const expectError = async (res, code, message, status = 400) => {
    assert.equal(res.status, status, `status of ${JSON.stringify(decodeOtsError(res.body))}`);
    assert.deepEqual(decodeOtsError(res.body), { code, message });
  };

  it('adds columns after creation and deletes them; DescribeTable shows each step', async () => {
    const t = uniqueName('dc');
    await create(t, [{ name: 'a', type: DCT.STRING }]);
    let res = await signedPost(server.port, 'AddDefinedColumn',
      addBody(t, [['b', DCT.INTEGER], ['c', DCT.DOUBLE], ['d', DCT.BOOLEAN], ['e', DCT.BLOB]]));
    assert.equal(res.status, 200);
    assert.equal(res.body.length, 0);  // AddDefinedColumnResponse has no fields
    assert.deepEqual(await defined(t), [['a', 4], ['b', 1], ['c', 2], ['d', 3], ['e', 7]]);
    res = await signedPost(server.port, 'DeleteDefinedColumn', deleteBody(t, ['a', 'c']));
    assert.equal(res.status, 200);
    assert.deepEqual(await defined(t), [['b', 1], ['d', 3], ['e', 7]]);
    // A column added later can key a secondary index.
    await client.createIndex({
      mainTableName: t, indexMeta: { name: `${t}_ix`, primaryKey: ['b'], definedColumn: ['d'] },
    });
  });

  it('refuses duplicates, primary-key names, bad types and names, and more than 32 columns; nothing is half-applied', async () => {
    const t = uniqueName('dcr');
    await create(t, [{ name: 'a', type: DCT.STRING }]);
    await expectError(await signedPost(server.port, 'AddDefinedColumn', addBody(t, [['x', 1], ['a', 1]])),
      'OTSParameterInvalid', "Duplicated column name: 'a'.");
    await expectError(await signedPost(server.port, 'AddDefinedColumn', addBody(t, [['pk', 4]])),
      'OTSParameterInvalid', "Duplicated column name: 'pk'.");
    await expectError(await signedPost(server.port, 'AddDefinedColumn', addBody(t, [['y', 5]])),
      'OTSParameterInvalid', "Invalid defined column type of 'y'.");
    await expectError(await signedPost(server.port, 'AddDefinedColumn', addBody(t, [['9z', 1]])),
      'OTSParameterInvalid', "Invalid column name: '9z'.");
    await expectError(await signedPost(server.port, 'AddDefinedColumn', addBody(t, [])),
      'OTSParameterInvalid', 'No defined column is specified.');
    const many = Array.from({ length: 32 }, (_, i) => [`c${i}`, 1]);
    await expectError(await signedPost(server.port, 'AddDefinedColumn', addBody(t, many)),
      'OTSParameterInvalid', 'The number of defined columns must be in range: [0, 32].');
    assert.deepEqual(await defined(t), [['a', 4]]);
    await expectError(await signedPost(server.port, 'AddDefinedColumn', addBody('no_such_table', [['x', 1]])),
      'OTSObjectNotExist', 'Requested table does not exist.', 404);
  });

  it('refuses to delete a missing column or one an index uses', async () => {
    const t = uniqueName('dcd');
    await create(t, [{ name: 'a', type: DCT.STRING }, { name: 'b', type: DCT.STRING }]);
    await client.createIndex({
      mainTableName: t, indexMeta: { name: `${t}_ix`, primaryKey: ['a'], definedColumn: ['b'] },
    });
    await expectError(await signedPost(server.port, 'DeleteDefinedColumn', deleteBody(t, ['zz'])),
      'OTSParameterInvalid', "Defined column 'zz' does not exist.");
    await expectError(await signedPost(server.port, 'DeleteDefinedColumn', deleteBody(t, ['b'])),
      'OTSParameterInvalid', `Defined column 'b' is used by index '${t}_ix'.`);
    await client.dropIndex({ mainTableName: t, indexName: `${t}_ix` });
    const res = await signedPost(server.port, 'DeleteDefinedColumn', deleteBody(t, ['a', 'b']));
    assert.equal(res.status, 200);
    assert.deepEqual(await defined(t), []);
  });

  it('keeps added columns across a restart', async () => {
    const t = uniqueName('dcp');
    await create(t);
    assert.equal((await signedPost(server.port, 'AddDefinedColumn', addBody(t, [['k', DCT.STRING]]))).status, 200);
    await server.restart();
    client = server.client();
    assert.deepEqual(await defined(t), [['k', 4]]);
  });
});
