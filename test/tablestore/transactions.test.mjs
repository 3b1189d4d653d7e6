// Local transactions through the official SDK (docs/tablestore.md, "Local transactions"):
// StartLocalTransaction / CommitTransaction / AbortTransaction and the row operations carrying a
// transactionId: read-your-writes inside, invisibility outside before the commit, abort and
// expiry discard, the partition key locked for writes from outside, every error with its code
// and message, concurrent writers inside and outside transactions, and kill -9 before a commit
// (with RocksDB the transaction dies with the process; on PostgreSQL it outlives it).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import {
  E2E_PG, Long, Server, TableStore, condition, createTable, expectOtsError, getRow, pkOf, sleep,
  uniqueName, values,
} from './helpers.mjs';

const { INF_MIN, INF_MAX, Direction } = TableStore;

const SESSION_NOT_EXIST = 'Session not exist or may be timeout.';
const CONFLICT = 'Data is being modified by the other request.';

const key = (s, n) => [{ pk1: s }, { pk2: Long.fromNumber(n) }];

async function start(client, tableName, partition) {
  const data = await client.startLocalTransaction({ tableName, primaryKey: [{ pk1: partition }] });
  assert.match(data.transactionId, /^[0-9a-f]{32}$/);
  return data.transactionId;
}

function put(client, tableName, k, attributeColumns, transactionId) {
  return client.putRow({
    tableName, condition: condition('IGNORE'), primaryKey: k, attributeColumns, transactionId,
  });
}

async function rangeOf(client, tableName, partition, transactionId, direction = Direction.FORWARD) {
  const forward = direction === Direction.FORWARD;
  const data = await client.getRange({
    tableName, direction, transactionId,
    inclusiveStartPrimaryKey: [{ pk1: partition }, { pk2: forward ? INF_MIN : INF_MAX }],
    exclusiveEndPrimaryKey: [{ pk1: partition }, { pk2: forward ? INF_MAX : INF_MIN }],
  });
  return data.rows.map((r) => [Number(pkOf(r)[1][1]), values(r)]);
}

describe('tablestore local transactions', () => {
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

  async function table(prefix) {
    const name = uniqueName(prefix);
    await createTable(client, name, { pk: [['pk1', 'STRING'], ['pk2', 'INTEGER']] });
    return name;
  }

  it('commit makes every write visible at once; before it only the transaction sees them', async () => {
    const t = await table('commit');
    await put(client, t, key('p', 1), [{ v: 'old' }]);
    const id = await start(client, t, 'p');
    await put(client, t, key('p', 1), [{ v: 'new' }], id);
    await client.updateRow({
      tableName: t, condition: condition('IGNORE'), primaryKey: key('p', 2), transactionId: id,
      updateOfAttributeColumns: [{ PUT: [{ v: 'two' }] }],
    });
    await client.batchWriteRow({
      transactionId: id,
      tables: [{ tableName: t, rows: [
        { type: 'PUT', condition: condition('IGNORE'), primaryKey: key('p', 3), attributeColumns: [{ v: 'three' }] },
        { type: 'PUT', condition: condition('IGNORE'), primaryKey: key('p', 4), attributeColumns: [{ v: 'four' }] },
      ] }],
    });
    await client.deleteRow({ tableName: t, condition: condition('IGNORE'), primaryKey: key('p', 4), transactionId: id });

    // Inside: its own writes, by GetRow and by GetRange both ways.
    assert.deepEqual(values(await getRow(client, t, key('p', 1), { transactionId: id })), [['v', 'new']]);
    assert.deepEqual(values(await getRow(client, t, key('p', 2), { transactionId: id })), [['v', 'two']]);
    const inside = [[1, [['v', 'new']]], [2, [['v', 'two']]], [3, [['v', 'three']]]];
    assert.deepEqual(await rangeOf(client, t, 'p', id), inside);
    assert.deepEqual(await rangeOf(client, t, 'p', id, Direction.BACKWARD), [...inside].reverse());
    // Outside: as last committed.
    assert.deepEqual(values(await getRow(client, t, key('p', 1))), [['v', 'old']]);
    assert.deepEqual(await getRow(client, t, key('p', 2)), {});
    assert.deepEqual(await rangeOf(client, t, 'p'), [[1, [['v', 'old']]]]);

    await client.commitTransaction({ transactionId: id });
    assert.deepEqual(await rangeOf(client, t, 'p'), inside);
  });

  it('abort discards every write', async () => {
    const t = await table('abort');
    await put(client, t, key('p', 1), [{ v: 'kept' }]);
    const id = await start(client, t, 'p');
    await put(client, t, key('p', 1), [{ v: 'dropped' }], id);
    await put(client, t, key('p', 2), [{ v: 'dropped' }], id);
    await client.abortTransaction({ transactionId: id });
    assert.deepEqual(await rangeOf(client, t, 'p'), [[1, [['v', 'kept']]]]);
    // The partition key is free again.
    await put(client, t, key('p', 3), [{ v: 'after' }]);
  });

  it('the partition key is locked for writes from outside, not for reads or other keys', async () => {
    const t = await table('lock');
    await put(client, t, key('p', 1), [{ v: 'a' }]);
    const id = await start(client, t, 'p');
    await expectOtsError(put(client, t, key('p', 1), [{ v: 'x' }]), 409, 'OTSRowOperationConflict', CONFLICT);
    await expectOtsError(client.deleteRow({ tableName: t, condition: condition('IGNORE'), primaryKey: key('p', 9) }),
      409, 'OTSRowOperationConflict', CONFLICT);
    const batch = await client.batchWriteRow({ tables: [{ tableName: t, rows: [
      { type: 'PUT', condition: condition('IGNORE'), primaryKey: key('p', 5), attributeColumns: [{ v: 'x' }] },
      { type: 'PUT', condition: condition('IGNORE'), primaryKey: key('q', 5), attributeColumns: [{ v: 'y' }] },
    ] }] });
    assert.deepEqual(batch.tables.map((r) => [r.isOk, r.errorCode, r.errorMessage]),
      [[false, 'OTSRowOperationConflict', CONFLICT], [true, null, null]]);
    // A second transaction on the same partition key.
    await expectOtsError(client.startLocalTransaction({ tableName: t, primaryKey: [{ pk1: 'p' }] }),
      409, 'OTSRowOperationConflict', CONFLICT);
    // Reads are not locked.
    assert.deepEqual(values(await getRow(client, t, key('p', 1))), [['v', 'a']]);
    await client.commitTransaction({ transactionId: id });
    await put(client, t, key('p', 1), [{ v: 'b' }]);
    assert.deepEqual(values(await getRow(client, t, key('p', 1))), [['v', 'b']]);
  });

  it('conditions inside a transaction see its own writes', async () => {
    const t = await table('cond');
    const id = await start(client, t, 'p');
    await put(client, t, key('p', 1), [{ v: 'a' }], id);
    await expectOtsError(client.putRow({
      tableName: t, condition: condition('EXPECT_NOT_EXIST'), primaryKey: key('p', 1),
      attributeColumns: [{ v: 'b' }], transactionId: id,
    }), 403, 'OTSConditionCheckFail', 'Condition check failed.');
    const inc = await client.updateRow({
      tableName: t, condition: condition('EXPECT_EXIST'), primaryKey: key('p', 1), transactionId: id,
      updateOfAttributeColumns: [{ INCREMENT: [{ n: Long.fromNumber(5) }] }],
      returnContent: { returnType: TableStore.ReturnType.AfterModify, returnColumns: ['n'] },
    });
    assert.equal(Number(inc.row.attributes[0].columnValue.toNumber()), 5);
    // The rejected write did not end the transaction.
    await client.commitTransaction({ transactionId: id });
    assert.deepEqual(values(await getRow(client, t, key('p', 1))), [['n', 5n], ['v', 'a']]);
  });

  it('rows of another partition key or table are out of the transaction\'s scope', async () => {
    const t = await table('scope');
    const other = await table('scope2');
    const id = await start(client, t, 'p');
    const out = 'Data out of scope of transaction. Transaction PartKey:p. Data PartKey:q';
    await expectOtsError(put(client, t, key('q', 1), [{ v: 'x' }], id), 400, 'OTSDataOutOfRange', out);
    await expectOtsError(getRow(client, t, key('q', 1), { transactionId: id }), 400, 'OTSDataOutOfRange', out);
    await expectOtsError(client.getRange({
      tableName: t, direction: Direction.FORWARD, transactionId: id,
      inclusiveStartPrimaryKey: [{ pk1: 'p' }, { pk2: INF_MIN }],
      exclusiveEndPrimaryKey: [{ pk1: 'q' }, { pk2: INF_MIN }],
    }), 400, 'OTSDataOutOfRange', out);
    await expectOtsError(put(client, other, key('p', 1), [{ v: 'x' }], id), 400, 'OTSDataOutOfRange',
      'Data out of scope of transaction. Transaction PartKey:p. Data PartKey:p');
    const batch = await client.batchWriteRow({ transactionId: id, tables: [{ tableName: t, rows: [
      { type: 'PUT', condition: condition('IGNORE'), primaryKey: key('p', 1), attributeColumns: [{ v: 'in' }] },
      { type: 'PUT', condition: condition('IGNORE'), primaryKey: key('q', 1), attributeColumns: [{ v: 'out' }] },
    ] }] });
    assert.deepEqual(batch.tables.map((r) => [r.isOk, r.errorCode, r.errorMessage]),
      [[true, null, null], [false, 'OTSDataOutOfRange', out]]);
    await client.commitTransaction({ transactionId: id });
    assert.deepEqual(await rangeOf(client, t, 'p'), [[1, [['v', 'in']]]]);
    assert.deepEqual(await rangeOf(client, t, 'q'), []);
  });

  it('StartLocalTransaction errors: a key of two columns, a wrong type, a missing table', async () => {
    const t = await table('starterr');
    await expectOtsError(client.startLocalTransaction({ tableName: t, primaryKey: key('p', 1) }),
      400, 'OTSParameterInvalid', 'StartLocalTransaction support only one primary key.');
    await expectOtsError(client.startLocalTransaction({ tableName: t, primaryKey: [{ pk1: Long.fromNumber(1) }] }),
      400, 'OTSInvalidPK');
    await expectOtsError(client.startLocalTransaction({ tableName: uniqueName('nosuch'), primaryKey: [{ pk1: 'p' }] }),
      404, 'OTSObjectNotExist', 'Requested table does not exist.');
  });

  it('unknown, committed and aborted transaction ids: OTSSessionNotExist; malformed: TransactionID is invalid', async () => {
    const t = await table('ids');
    const unknown = '0123456789abcdef0123456789abcdef';
    await expectOtsError(client.commitTransaction({ transactionId: unknown }), 404, 'OTSSessionNotExist', SESSION_NOT_EXIST);
    await expectOtsError(client.abortTransaction({ transactionId: unknown }), 404, 'OTSSessionNotExist', SESSION_NOT_EXIST);
    await expectOtsError(put(client, t, key('p', 1), [{ v: 'x' }], unknown), 404, 'OTSSessionNotExist', SESSION_NOT_EXIST);
    await expectOtsError(client.commitTransaction({ transactionId: 'fake_transaction_id' }),
      400, 'OTSParameterInvalid', 'TransactionID is invalid.');
    await expectOtsError(getRow(client, t, key('p', 1), { transactionId: 'fake_transaction_id' }),
      400, 'OTSParameterInvalid', 'TransactionID is invalid.');

    const committed = await start(client, t, 'p');
    await client.commitTransaction({ transactionId: committed });
    await expectOtsError(client.commitTransaction({ transactionId: committed }), 404, 'OTSSessionNotExist', SESSION_NOT_EXIST);
    await expectOtsError(getRow(client, t, key('p', 1), { transactionId: committed }), 404, 'OTSSessionNotExist', SESSION_NOT_EXIST);

    const aborted = await start(client, t, 'p');
    await client.abortTransaction({ transactionId: aborted });
    await expectOtsError(client.abortTransaction({ transactionId: aborted }), 404, 'OTSSessionNotExist', SESSION_NOT_EXIST);
    await expectOtsError(put(client, t, key('p', 1), [{ v: 'x' }], aborted), 404, 'OTSSessionNotExist', SESSION_NOT_EXIST);
  });

  it('concurrent writers inside and outside transactions lose no increment, and commits are atomic', async () => {
    const t = await table('conc');
    await put(client, t, key('c', 0), [{ in: Long.fromNumber(0) }, { out: Long.fromNumber(0) }]);
    await put(client, t, key('c', 1), [{ in: Long.fromNumber(0) }]);
    const TXN_WRITERS = 3;
    const OUT_WRITERS = 3;
    const ROUNDS = 8;
    const isConflict = (e) => String(e.message).includes('OTSRowOperationConflict');
    const retry = async (fn) => {
      for (let attempt = 0; ; attempt++) {
        try { return await fn(); } catch (e) {
          if (!isConflict(e) || attempt > 2000) throw e;
          await sleep(1 + Math.floor(Math.random() * 5));
        }
      }
    };
    const num = (row, col) => Number(row.attributes.find((a) => a.columnName === col).columnValue.toNumber());

    // Each round: read `in` inside a transaction and write in+1 to both rows (a read-modify-write
    // that only the partition key's lock keeps from losing updates).
    const txnWriter = async () => {
      const c = server.client();
      for (let i = 0; i < ROUNDS; i++) {
        const id = await retry(() => start(c, t, 'c'));
        const row = await getRow(c, t, key('c', 0), { transactionId: id });
        const next = num(row, 'in') + 1;
        for (const n of [0, 1]) {
          await c.updateRow({
            tableName: t, condition: condition('IGNORE'), primaryKey: key('c', n), transactionId: id,
            updateOfAttributeColumns: [{ PUT: [{ in: Long.fromNumber(next) }] }],
          });
        }
        await c.commitTransaction({ transactionId: id });
      }
    };
    // Increments from outside any transaction, retried while a transaction holds the key.
    const outWriter = async () => {
      const c = server.client();
      for (let i = 0; i < ROUNDS; i++) {
        await retry(() => c.updateRow({
          tableName: t, condition: condition('IGNORE'), primaryKey: key('c', 0),
          updateOfAttributeColumns: [{ INCREMENT: [{ out: Long.fromNumber(1) }] }],
        }));
      }
    };
    // A reader outside: a GetRange is one snapshot, so both rows always show the same `in`.
    let done = false;
    let reads = 0;
    const reader = async () => {
      const c = server.client();
      while (!done) {
        const rows = await rangeOf(c, t, 'c');
        const ins = rows.map(([, cols]) => cols.find(([n]) => n === 'in')[1]);
        assert.equal(ins[0], ins[1], `a commit was seen half done: ${JSON.stringify(rows, (k, v) => (typeof v === 'bigint' ? String(v) : v))}`);
        reads++;
        await sleep(2);
      }
    };
    const readerDone = reader();
    await Promise.all([
      ...Array.from({ length: TXN_WRITERS }, txnWriter),
      ...Array.from({ length: OUT_WRITERS }, outWriter),
    ]);
    done = true;
    await readerDone;
    assert.ok(reads > 0);
    const row0 = await getRow(client, t, key('c', 0));
    const row1 = await getRow(client, t, key('c', 1));
    assert.equal(num(row0, 'in'), TXN_WRITERS * ROUNDS, 'no transactional increment lost');
    assert.equal(num(row1, 'in'), TXN_WRITERS * ROUNDS);
    assert.equal(num(row0, 'out'), OUT_WRITERS * ROUNDS, 'no outside increment lost');
  });
});

describe('tablestore local transactions: expiry', () => {
  let server;
  let client;

  before(async () => {
    server = await Server.start({ args: ['--tablestore-transaction-timeout-seconds', '1'] });
    client = server.client();
  });

  after(async () => {
    await server?.stop({ removeDir: true });
  });

  it('an expired transaction is aborted: its writes vanish, its id is gone, its key is free', async () => {
    const t = uniqueName('expiry');
    await createTable(client, t, { pk: [['pk1', 'STRING'], ['pk2', 'INTEGER']] });
    const id = await start(client, t, 'p');
    await put(client, t, key('p', 1), [{ v: 'x' }], id);
    await sleep(1300);
    await expectOtsError(put(client, t, key('p', 2), [{ v: 'y' }], id), 404, 'OTSSessionNotExist', SESSION_NOT_EXIST);
    await expectOtsError(client.commitTransaction({ transactionId: id }), 404, 'OTSSessionNotExist', SESSION_NOT_EXIST);
    assert.deepEqual(await getRow(client, t, key('p', 1)), {});
    await put(client, t, key('p', 3), [{ v: 'free' }]);
    assert.equal(await server.metric('ttlstore_tablestore_expired_transactions_total'), 1);
  });

  it('a transaction in use still ends at its lifetime', async () => {
    const t = uniqueName('lifetime');
    await createTable(client, t, { pk: [['pk1', 'STRING'], ['pk2', 'INTEGER']] });
    const id = await start(client, t, 'p');
    for (let i = 0; i < 4; i++) {
      await sleep(300);
      try {
        await put(client, t, key('p', i), [{ v: 'x' }], id);
      } catch (e) {
        // Past one second from its start the transaction is gone, however busy.
        assert.ok(String(e.message).includes('OTSSessionNotExist'), e.message);
        return;
      }
    }
    assert.fail('the transaction outlived its lifetime');
  });
});

describe('tablestore local transactions: kill -9', () => {
  let server;

  after(async () => {
    await server?.stop({ removeDir: true });
  });

  it('uncommitted writes vanish with the process; committed ones stay whole', async () => {
    server = await Server.start();
    let client = server.client();
    const t = uniqueName('crash');
    await createTable(client, t, { pk: [['pk1', 'STRING'], ['pk2', 'INTEGER']] });
    const done = await start(client, t, 'done');
    for (let i = 0; i < 20; i++) await put(client, t, key('done', i), [{ v: `c${i}` }], done);
    await client.commitTransaction({ transactionId: done });
    const open = await start(client, t, 'open');
    for (let i = 0; i < 20; i++) await put(client, t, key('open', i), [{ v: `u${i}` }], open);

    const child = server.child;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    process.kill(child.pid, 'SIGKILL');
    await exited;
    server.port = null;
    await server.restart();
    client = server.client();

    const committed = await rangeOf(client, t, 'done');
    assert.equal(committed.length, 20);
    assert.deepEqual(committed[19], [19, [['v', 'c19']]]);
    assert.deepEqual(await rangeOf(client, t, 'open'), []);
    if (E2E_PG) {
      // On PostgreSQL the transaction is in the database, where other processes may be using
      // it: it outlives the process. Still locked, still invisible, then committed whole.
      await expectOtsError(put(client, t, key('open', 1), [{ v: 'x' }]), 409, 'OTSRowOperationConflict', CONFLICT);
      assert.deepEqual((await rangeOf(client, t, 'open', open)).length, 20);
      await client.commitTransaction({ transactionId: open });
      const all = await rangeOf(client, t, 'open');
      assert.equal(all.length, 20);
      assert.deepEqual(all[19], [19, [['v', 'u19']]]);
    } else {
      // The transaction died with the process; its partition key is free.
      await expectOtsError(client.commitTransaction({ transactionId: open }), 404, 'OTSSessionNotExist', SESSION_NOT_EXIST);
    }
    await put(client, t, key('open', 1), [{ v: 'after' }]);
    const again = await start(client, t, 'open');
    await client.abortTransaction({ transactionId: again });
  });
});
