// Atomic batch writes (BatchWriteRowRequest.is_atomic; docs/tablestore.md, "Atomic batch
// writes"): each table's rows written all or none, with one partition key. The cases are the
// Go SDK's TestAtomicBatchWriteRowWithSamePartitionKey / ...WithDiffPartitionKey and the Java
// SDK's OTSAPIBehaviorTest atomic tests (which run against the service), then ours: a failing
// condition, several tables, the stream, secondary indexes, transactions and kill -9.
//
// The Node SDK (5.6) has no is_atomic: sdk_wire.mjs's sdkSendsIsAtomic appends the field to the
// request the SDK encodes, which otherwise goes through the SDK's whole pipeline.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { check, killServer, rng } from './crash_helpers.mjs';
import {
  Long, Server, TableStore, condition, expectOtsError, uniqueName, values,
} from './helpers.mjs';
import { sdkSendsIsAtomic } from './sdk_wire.mjs';
import { readAll } from './stream_helpers.mjs';

sdkSendsIsAtomic();

const INF_MIN = TableStore.INF_MIN;
const INF_MAX = TableStore.INF_MAX;

describe('tablestore atomic batch writes', () => {
  let server;
  let client;

  before(async () => {
    server = await Server.start();
    client = server.client();
  });
  after(async () => { await server?.stop({ removeDir: true }); });

  // A table keyed (pk1 STRING, pk2 STRING), as the Go test's rangetable.
  const table = async (prefix, extra = {}) => {
    const t = uniqueName(prefix);
    await client.createTable({
      tableMeta: { tableName: t, primaryKey: [{ name: 'pk1', type: 'STRING' }, { name: 'pk2', type: 'STRING' }],
                   ...(extra.definedColumn ? { definedColumn: extra.definedColumn } : {}) },
      reservedThroughput: { capacityUnit: { read: 0, write: 0 } },
      tableOptions: { timeToLive: -1, maxVersions: 1 },
      ...(extra.streamSpecification ? { streamSpecification: extra.streamSpecification } : {}),
      ...(extra.indexMetas ? { indexMetas: extra.indexMetas } : {}),
    });
    return t;
  };
  const key = (p1, p2) => [{ pk1: p1 }, { pk2: p2 }];
  const putRow = (p1, p2, value, cond = 'IGNORE') => ({
    type: 'PUT', condition: condition(cond), primaryKey: key(p1, p2), attributeColumns: [{ col1: value }],
  });
  const atomic = (tables) => client.batchWriteRow({ tables, isAtomic: true });
  // Every row of `t`, page after page: [key 'pk1/pk2', [[column, value]]].
  const rowsOf = async (t) => {
    const out = [];
    let start = [{ pk1: INF_MIN }, { pk2: INF_MIN }];
    for (;;) {
      const data = await client.getRange({
        tableName: t, direction: TableStore.Direction.FORWARD, inclusiveStartPrimaryKey: start,
        exclusiveEndPrimaryKey: [{ pk1: INF_MAX }, { pk2: INF_MAX }],
      });
      for (const r of data.rows) out.push([r.primaryKey.map((c) => c.value).join('/'), values(r)]);
      if (!data.nextStartPrimaryKey) return out;
      start = data.nextStartPrimaryKey.map((c) => ({ [c.name]: c.value }));
    }
  };
  const results = (data) => data.tables.map((r) => [r.tableName, r.isOk, r.errorCode, r.errorMessage]);

  it('rows of one partition key: puts, an update and a delete all succeed (Go SamePartitionKey)', async () => {
    const t = await table('atom_same');
    const rows = [];
    for (let i = 0; i < 10; i += 1) rows.push(putRow('atomicPk1', `atomicPk2_${i}`, `colVal1_${i}`));
    rows.push({ type: 'UPDATE', condition: condition('IGNORE'), primaryKey: key('atomicPk1', 'atomicPk2_0'),
                attributeColumns: [{ DELETE_ALL: ['col1'] }, { PUT: [{ col2: Long.fromNumber(77) }, { col3: 'newcol3' }] }] });
    rows.push({ type: 'DELETE', condition: condition('IGNORE'), primaryKey: key('atomicPk1', 'atomicPk2_1') });
    const data = await atomic([{ tableName: t, rows }]);
    assert.equal(data.tables.length, 12);
    for (const r of data.tables) assert.deepEqual([r.tableName, r.isOk, r.errorCode], [t, true, null]);
    const stored = await rowsOf(t);
    assert.equal(stored.length, 9);
    // The update applied to the put before it in the same batch.
    assert.deepEqual(stored[0], ['atomicPk1/atomicPk2_0', [['col2', 77n], ['col3', 'newcol3']]]);
    assert.ok(!stored.some(([k]) => k === 'atomicPk1/atomicPk2_1'), 'the delete ran after its put');
  });

  it('rows of two partition keys: every row fails with the service\'s text, nothing is written (Go DiffPartitionKey, Java)', async () => {
    const t = await table('atom_diff');
    const rows = [];
    for (let i = 0; i < 10; i += 1) rows.push(putRow(String(i < 5 ? 0 : 1), `r${i}`, 'v'));
    const data = await atomic([{ tableName: t, rows }]);
    assert.equal(data.tables.length, 10);
    for (const r of data.tables) {
      assert.deepEqual([r.isOk, r.errorCode, r.errorMessage],
                       [false, 'OTSDataOutOfRange', 'Data out of scope of atomic. Atomic PartKey:0. Data PartKey:1']);
    }
    assert.deepEqual(await rowsOf(t), []);
  });

  it('the same row ten times: all succeed, the last one stays (Java SamePartKey)', async () => {
    const t = await table('atom_dup');
    const rows = Array.from({ length: 10 }, (_, i) => putRow('pk', 'pk', `v${i}`));
    const data = await atomic([{ tableName: t, rows }]);
    assert.ok(data.tables.every((r) => r.isOk));
    assert.deepEqual(await rowsOf(t), [['pk/pk', [['col1', 'v9']]]]);
  });

  it('a failing condition fails every row of its table and writes none; other tables are their own group', async () => {
    const t = await table('atom_cond');
    const other = await table('atom_other');
    await client.putRow({ tableName: t, condition: condition('IGNORE'), primaryKey: key('p', 'exists'),
                          attributeColumns: [{ col1: 'before' }] });
    const data = await atomic([
      { tableName: t, rows: [putRow('p', 'new1', 'x'), putRow('p', 'exists', 'overwritten'),
                             putRow('p', 'exists', 'again', 'EXPECT_NOT_EXIST'), putRow('p', 'new2', 'y')] },
      { tableName: other, rows: [putRow('q', 'a', '1'), putRow('q', 'b', '2')] },
    ]);
    assert.deepEqual(results(data), [
      ...Array(4).fill([t, false, 'OTSConditionCheckFail', 'Condition check failed.']),
      [other, true, null, null], [other, true, null, null],
    ]);
    assert.deepEqual(await rowsOf(t), [['p/exists', [['col1', 'before']]]]);
    assert.deepEqual((await rowsOf(other)).map(([k]) => k), ['q/a', 'q/b']);
    // A row that EXPECT_EXIST passes on a row the batch itself made before it.
    const ok = await atomic([{ tableName: t, rows: [putRow('p', 'n', 'x'), putRow('p', 'n', 'x2', 'EXPECT_EXIST')] }]);
    assert.ok(ok.tables.every((r) => r.isOk));
    // A missing table fails its rows only.
    const missing = await atomic([{ tableName: 'no_such_atomic_table', rows: [putRow('p', 'z', 'x')] },
                                  { tableName: other, rows: [putRow('q', 'c', '3')] }]);
    assert.deepEqual(results(missing).map((r) => r.slice(0, 3)),
                     [['no_such_atomic_table', false, 'OTSObjectNotExist'], [other, true, null]]);
  });

  it('stream records in request order and index rows, in the same batch', async () => {
    const t = await table('atom_stream', {
      definedColumn: [{ name: 'col1', type: TableStore.DefinedColumnType?.DCT_STRING ?? 4 }],
      streamSpecification: { enableStream: true, expirationTime: 24 },
    });
    await client.createIndex({ mainTableName: t, indexMeta: { name: `${t}_ix`, primaryKey: ['col1'], definedColumn: [] } });
    const data = await atomic([{ tableName: t, rows: [putRow('s', 'a', 'va'), putRow('s', 'b', 'vb'),
                                                      { type: 'DELETE', condition: condition('IGNORE'), primaryKey: key('s', 'a') }] }]);
    assert.ok(data.tables.every((r) => r.isOk));
    const d = await client.describeTable({ tableName: t });
    const records = await readAll(client, d.streamDetails.streamId);
    assert.deepEqual(records.map((r) => [r.action, r.pk.map(([, v]) => v).join('/')]),
                     [['PUT_ROW', 's/a'], ['PUT_ROW', 's/b'], ['DELETE_ROW', 's/a']]);
    const ix = await client.getRange({
      tableName: `${t}_ix`, direction: TableStore.Direction.FORWARD,
      inclusiveStartPrimaryKey: [{ col1: INF_MIN }, { pk1: INF_MIN }, { pk2: INF_MIN }],
      exclusiveEndPrimaryKey: [{ col1: INF_MAX }, { pk1: INF_MAX }, { pk2: INF_MAX }],
    });
    assert.deepEqual(ix.rows.map((r) => r.primaryKey.map((c) => c.value).join('/')), ['vb/s/b']);
  });

  it('local transactions: refused while one holds the partition key; inside one, all or none until the commit', async () => {
    const t = await table('atom_txn');
    const { transactionId } = await client.startLocalTransaction({ tableName: t, primaryKey: [{ pk1: 'p' }] });
    const refused = await atomic([{ tableName: t, rows: [putRow('p', 'a', 'x')] }]);
    assert.deepEqual(results(refused).map((r) => r.slice(1, 3)), [[false, 'OTSRowOperationConflict']]);
    const failing = await client.batchWriteRow({ transactionId, isAtomic: true, tables: [{ tableName: t, rows: [
      putRow('p', 'a', 'x'), putRow('p', 'a', 'y', 'EXPECT_NOT_EXIST')] }] });
    assert.deepEqual(results(failing).map((r) => r.slice(1, 3)),
                     [[false, 'OTSConditionCheckFail'], [false, 'OTSConditionCheckFail']]);
    const written = await client.batchWriteRow({ transactionId, isAtomic: true, tables: [{ tableName: t, rows: [
      putRow('p', 'b', 'x'), putRow('p', 'c', 'y')] }] });
    assert.ok(written.tables.every((r) => r.isOk));
    assert.deepEqual(await rowsOf(t), [], 'nothing before the commit');
    await client.commitTransaction({ transactionId });
    assert.deepEqual((await rowsOf(t)).map(([k]) => k), ['p/b', 'p/c']);
  });

  it('refusals of the request as a whole stay: over 200 rows', async () => {
    const t = await table('atom_limit');
    const rows = Array.from({ length: 201 }, (_, i) => putRow('p', `r${i}`, 'x'));
    await expectOtsError(atomic([{ tableName: t, rows }]), 400, 'OTSParameterInvalid', 'Rows count exceeds the upper limit: 200.');
  });

  it('kill -9 amid atomic batches: each batch is all there or not at all', async () => {
    const seed = Number(process.env.TTLSTORE_CRASH_SEED ?? Date.now() % 1_000_000);
    const random = rng(seed);
    const t = await table('atom_kill');
    const size = 20;
    let stop = false;
    const writers = [];
    for (let w = 0; w < 4; w += 1) {
      writers.push((async () => {
        for (let b = 0; !stop; b += 1) {
          const batch = `w${w}b${b}`;
          const rows = Array.from({ length: size }, (_, i) => putRow(batch, `r${String(i).padStart(2, '0')}`, batch));
          try { await atomic([{ tableName: t, rows }]); } catch { return; }  // the server is gone
        }
      })());
    }
    await new Promise((resolve) => setTimeout(resolve, 200 + Math.floor(random() * 600)));
    await killServer(server);
    stop = true;
    await Promise.all(writers);
    check(server.dataDir);
    await server._spawn();
    client = server.client();
    const counts = new Map();
    for (const [k] of await rowsOf(t)) {
      const batch = k.split('/')[0];
      counts.set(batch, (counts.get(batch) ?? 0) + 1);
    }
    assert.ok(counts.size > 0, `some batches committed before the kill (seed ${seed})`);
    for (const [batch, n] of counts) assert.equal(n, size, `batch ${batch} is whole (seed ${seed})`);
  });
});
