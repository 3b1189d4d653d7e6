// Three ttlstore processes on one PostgreSQL database (issue 34), driven by the official Node
// SDK: UpdateRow INCREMENTs of one hot counter and conditional updates of another (a column
// condition on the value the client last read), each client sending to the three processes in
// turn, add up exactly to what was acknowledged. A read-modify-write serialized only inside each
// process would let two clients at different processes apply against the same old value (the
// storage's read-modify-write locks the key in the database: docs/storage.md).
//
// Starts its own PostgreSQL 15 cluster, so it runs with the other Tablestore suites on RocksDB;
// under TTLSTORE_E2E_PG it has nothing to add and is skipped.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';

import { Long, Server, TableStore, condition, createTable, num, uniqueName } from './helpers.mjs';
import { E2E_PG } from '../pg_storage.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const PROCESSES = 3;
const CLIENTS = 6;
const PER_CLIENT = 20;

function pgScript(...args) {
  const r = spawnSync('bash', [path.join(REPO, 'scripts/pg-server.sh'), ...args],
    { encoding: 'utf8' });
  assert.equal(r.status, 0, `pg-server.sh ${args[0]} failed: ${r.stderr}`);
  return r.stdout;
}

describe('tablestore rows through three processes on one PostgreSQL', { skip: E2E_PG !== '' }, () => {
  let pgDir;
  let conninfo;
  const servers = [];
  let table;

  before(async () => {
    const out = pgScript('start');
    conninfo = /TTLSTORE_TEST_PG='([^']*)'/.exec(out)[1];
    pgDir = /TTLSTORE_PG_DIR='([^']*)'/.exec(out)[1];
    servers.push(await Server.start({ args: ['--storage', conninfo] }));
    table = uniqueName('hot');
    await createTable(servers[0].client(), table);
    // Started after the table exists: a process reads the catalog at start (issue 34).
    for (let i = 1; i < PROCESSES; i += 1) {
      servers.push(await Server.start({ args: ['--storage', conninfo] }));
    }
  });

  after(async () => {
    for (const s of servers) await s.stop({ removeDir: true }).catch(() => {});
    if (pgDir) pgScript('stop', pgDir);
  });

  async function readCounter(client, pk) {
    const r = await client.getRow({ tableName: table, primaryKey: [{ pk }], maxVersions: 1 });
    const col = r.row?.attributes?.find((a) => a.columnName === 'n');
    return col === undefined ? null : num(col.columnValue);
  }

  it('INCREMENTs sent to every process add up', async () => {
    const clients = servers.map((s) => s.client());
    let acknowledged = 0;
    await Promise.all(Array.from({ length: CLIENTS }, async (_, c) => {
      for (let i = 0; i < PER_CLIENT; i += 1) {
        await clients[(c + i) % PROCESSES].updateRow({
          tableName: table, condition: condition(), primaryKey: [{ pk: 'inc' }],
          updateOfAttributeColumns: [{ INCREMENT: [{ n: Long.fromNumber(1) }] }],
        });
        acknowledged += 1;
      }
    }));
    assert.equal(acknowledged, CLIENTS * PER_CLIENT);
    for (const client of clients) assert.equal(await readCounter(client, 'inc'), acknowledged);
  });

  it('conditional updates on the last value read add up, and did race', async () => {
    const clients = servers.map((s) => s.client());
    let acknowledged = 0;
    let failedConditions = 0;
    await Promise.all(Array.from({ length: CLIENTS }, async (_, c) => {
      let done = 0;
      let turn = c;
      while (done < PER_CLIENT) {
        const client = clients[turn % PROCESSES];
        turn += 1;
        const old = await readCounter(client, 'cond');
        const cond = old === null
          ? new TableStore.Condition(TableStore.RowExistenceExpectation.EXPECT_NOT_EXIST, null)
          : new TableStore.Condition(TableStore.RowExistenceExpectation.EXPECT_EXIST,
            new TableStore.SingleColumnCondition('n', Long.fromNumber(old),
              TableStore.ComparatorType.EQUAL));
        try {
          await client.updateRow({
            tableName: table, condition: cond, primaryKey: [{ pk: 'cond' }],
            updateOfAttributeColumns: [{ PUT: [{ n: Long.fromNumber((old ?? 0) + 1) }] }],
          });
        } catch (e) {
          assert.match(String(e.message), /OTSConditionCheckFail/, String(e.message));
          failedConditions += 1;
          continue;
        }
        done += 1;
        acknowledged += 1;
      }
    }));
    for (const client of clients) assert.equal(await readCounter(client, 'cond'), acknowledged);
    console.log(`acknowledged=${acknowledged} condition_failures=${failedConditions}`);
    assert.ok(failedConditions > 0, 'the clients never raced');
  });
});
