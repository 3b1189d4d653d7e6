// Policies for the Tablestore front end's access keys (issue 7): "ots:<Action>" on
// acs:ots:*:*:instance/<instance>/table/<name>; a denied call is 403 OTSNoPermissionAccess and
// changes nothing; keys the policy file does not list are unrestricted.
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';

import {
  INSTANCE, OTHER_KEY, OTHER_SECRET, Server, condition, createTable, expectOtsError, makeTempDir,
  uniqueName,
} from './helpers.mjs';

describe('tablestore policies', () => {
  let server;
  let admin;
  let reader;
  let dir;
  const table = uniqueName('readable');

  before(async () => {
    dir = makeTempDir('ttlstore-policies-');
    const file = path.join(dir, 'policies.json');
    writeFileSync(file, JSON.stringify({
      [OTHER_KEY]: [
        { Effect: 'Allow', Action: ['ots:GetRow', 'ots:GetRange', 'ots:BatchGetRow', 'ots:DescribeTable'],
          Resource: `acs:ots:*:*:instance/${INSTANCE}/table/readable*` },
        { Effect: 'Deny', Action: 'ots:UpdateTable', Resource: '*' },
      ],
    }));
    server = await Server.start({ args: ['--policies', file] });
    admin = server.client();
    reader = server.client({ accessKeyId: OTHER_KEY, secret: OTHER_SECRET });
    await createTable(admin, table);
    await admin.putRow({ tableName: table, condition: condition(), primaryKey: [{ pk: 'a' }],
      attributeColumns: [{ v: 'x' }] });
  });

  after(async () => {
    await server?.stop({ removeDir: true });
    rmSync(dir, { recursive: true, force: true });
  });

  it('the restricted key reads the tables it is allowed', async () => {
    const r = await reader.getRow({ tableName: table, primaryKey: [{ pk: 'a' }], maxVersions: 1 });
    assert.equal(r.row.attributes[0].columnValue, 'x');
    await reader.describeTable({ tableName: table });
  });

  it('writes, other tables and table changes are refused with 403 OTSNoPermissionAccess', async () => {
    await expectOtsError(reader.putRow({ tableName: table, condition: condition(),
      primaryKey: [{ pk: 'b' }], attributeColumns: [{ v: 'y' }] }), 403, 'OTSNoPermissionAccess');
    await expectOtsError(reader.updateTable({ tableName: table, tableOptions: { maxVersions: 5 } }),
      403, 'OTSNoPermissionAccess');
    await expectOtsError(reader.listTable({}), 403, 'OTSNoPermissionAccess');
    await expectOtsError(reader.createTable({
      tableMeta: { tableName: uniqueName('other'), primaryKey: [{ name: 'pk', type: 'STRING' }] },
      reservedThroughput: { capacityUnit: { read: 0, write: 0 } },
      tableOptions: { timeToLive: -1, maxVersions: 1 },
    }), 403, 'OTSNoPermissionAccess');
    const r = await admin.getRow({ tableName: table, primaryKey: [{ pk: 'b' }], maxVersions: 1 });
    assert.deepEqual(r.row, {});
    const d = await admin.describeTable({ tableName: table });
    assert.equal(Number(d.tableOptions.maxVersions), 1);
  });

  it('in a batch, a denied table fails its rows and the rest succeed', async () => {
    const r = await reader.batchGetRow({ tables: [{ tableName: table, primaryKey: [[{ pk: 'a' }]], maxVersions: 1 }] });
    assert.ok(r.tables[0][0].isOk);
    const w = await reader.batchWriteRow({ tables: [{ tableName: table, rows: [
      { type: 'PUT', condition: condition(), primaryKey: [{ pk: 'c' }], attributeColumns: [{ v: 'z' }] }] }] });
    assert.equal(w.tables[0].isOk, false);
    assert.equal(w.tables[0].errorCode, 'OTSNoPermissionAccess');
  });
});
