// Filters (GetRow, GetRange, BatchGetRow), column conditions (PutRow, UpdateRow, DeleteRow,
// BatchWriteRow) and start/end column through the official SDK: every comparator,
// passIfMissing, latestVersionOnly over versions (and versions hidden by max versions, the TTL,
// the read's time range and max versions), composite nesting, ColumnPaginationFilter, paging
// past filtered-out rows, and every refusal with its code and message. Rules and their sources:
// docs/tablestore.md, "Filters and column conditions".
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import {
  Long, Server, TableStore, cells, condition, createTable, expectOtsError, getRow, pkOf, putVersions,
  sleep, uniqueName, values,
} from './helpers.mjs';

const { INF_MIN, INF_MAX, Direction, ComparatorType: CT, LogicalOperator: LO } = TableStore;

const single = (col, value, cmp, passIfMissing = true, latestVersionOnly = true) =>
  new TableStore.SingleColumnCondition(col, value, cmp, passIfMissing, latestVersionOnly);
const composite = (op, ...subs) => {
  const c = new TableStore.CompositeCondition(op);
  for (const s of subs) c.addSubCondition(s);
  return c;
};
const withColumns = (kind, columnCondition) =>
  new TableStore.Condition(TableStore.RowExistenceExpectation[kind], columnCondition);
const L = (n) => Long.fromNumber(n);
const CHECK_FAILED = 'Condition check failed.';

describe('tablestore filters, column conditions and column ranges', () => {
  let server;
  let client;

  before(async () => {
    server = await Server.start({ args: ['--tablestore-min-ttl', '1'] });
    client = server.client();
  });

  after(async () => {
    const code = await server?.stop({ removeDir: true });
    assert.equal(code, 0, 'ttlstore exit code after SIGTERM');
  });

  async function table(prefix, opts = {}) {
    const name = uniqueName(prefix);
    await createTable(client, name, { pk: [['id', 'STRING']], ...opts });
    return name;
  }
  async function ids(t, columnFilter, extra = {}) {
    const data = await client.getRange({
      tableName: t, direction: Direction.FORWARD, maxVersions: 1, columnFilter,
      inclusiveStartPrimaryKey: [{ id: INF_MIN }], exclusiveEndPrimaryKey: [{ id: INF_MAX }], ...extra,
    });
    return data.rows.map((r) => r.primaryKey[0].value);
  }
  const present = (row) => row && Array.isArray(row.primaryKey);

  describe('filters on reads', () => {
    let t;
    before(async () => {
      t = await table('flt', { maxVersions: 3 });
      await putVersions(client, t, [{ id: 'r1' }], [['a', L(1)], ['s', 'abc'], ['b', true], ['d', 1.5],
                                                   ['bin', Buffer.from([1, 2])]]);
      await putVersions(client, t, [{ id: 'r2' }], [['a', L(5)], ['s', 'abd'], ['b', false]]);
      await putVersions(client, t, [{ id: 'r3' }], [['s', 'abb']]);
    });

    it('every comparator, with passIfMissing false and true (GetRange)', async () => {
      const cases = [
        [CT.EQUAL, ['r2']], [CT.NOT_EQUAL, ['r1']], [CT.GREATER_THAN, []],
        [CT.GREATER_EQUAL, ['r2']], [CT.LESS_THAN, ['r1']], [CT.LESS_EQUAL, ['r1', 'r2']],
      ];
      for (const [cmp, expected] of cases) {
        assert.deepEqual(await ids(t, single('a', L(5), cmp, false)), expected, `comparator ${cmp}`);
        assert.deepEqual(await ids(t, single('a', L(5), cmp, true)), [...expected, 'r3'].sort(),
                         `comparator ${cmp}, passIfMissing`);
      }
      // Strings compare bytewise; booleans, doubles and binaries by value.
      assert.deepEqual(await ids(t, single('s', 'abc', CT.GREATER_EQUAL)), ['r1', 'r2']);
      assert.deepEqual(await ids(t, single('b', false, CT.EQUAL, false)), ['r2']);
      assert.deepEqual(await ids(t, single('d', 1.0, CT.GREATER_THAN, false)), ['r1']);
      assert.deepEqual(await ids(t, single('bin', Buffer.from([1, 2]), CT.EQUAL, false)), ['r1']);
      // The primary key is seen too.
      assert.deepEqual(await ids(t, single('id', 'r2', CT.LESS_EQUAL)), ['r1', 'r2']);
    });

    it('a value of another type never matches, whatever the comparator', async () => {
      for (const cmp of [CT.EQUAL, CT.NOT_EQUAL, CT.GREATER_THAN, CT.LESS_THAN]) {
        assert.deepEqual(await ids(t, single('a', 'x', cmp, false)), [], `comparator ${cmp}`);
        assert.deepEqual(await ids(t, single('a', 5.0, cmp, false)), [], `double vs integer ${cmp}`);
      }
    });

    it('GetRow and BatchGetRow return only rows that pass', async () => {
      assert.deepEqual(values((await client.getRow({ tableName: t, primaryKey: [{ id: 'r1' }], maxVersions: 1,
        columnFilter: single('a', L(1), CT.EQUAL) })).row).map(([n]) => n), ['a', 'b', 'bin', 'd', 's']);
      assert.deepEqual((await client.getRow({ tableName: t, primaryKey: [{ id: 'r1' }], maxVersions: 1,
        columnFilter: single('a', L(2), CT.EQUAL) })).row, {});
      const data = await client.batchGetRow({ tables: [{
        tableName: t, maxVersions: 1, primaryKey: [[{ id: 'r1' }], [{ id: 'r2' }], [{ id: 'r3' }]],
        columnFilter: single('a', L(5), CT.GREATER_EQUAL, false),
      }] });
      const rows = data.tables[0];
      assert.ok(rows.every((r) => r.isOk));
      assert.deepEqual(rows.map((r) => (r.primaryKey ? pkOf(r)[0][1] : null)), [null, 'r2', null]);
    });

    it('the filter sees only the columns the read returns (columnsToGet)', async () => {
      // "a" is not read: it is missing for the filter.
      assert.deepEqual(await ids(t, single('a', L(1), CT.EQUAL, false), { columnsToGet: ['id', 's'] }), []);
      assert.deepEqual(await ids(t, single('a', L(1), CT.EQUAL, true), { columnsToGet: ['id', 's'] }),
                       ['r1', 'r2', 'r3']);
    });

    it('composite filters: NOT, AND, OR, nested', async () => {
      // r3 has no "a": the single filter passes it (passIfMissing), so NOT drops it.
      assert.deepEqual(await ids(t, composite(LO.NOT, single('a', L(1), CT.EQUAL))), ['r2']);
      assert.deepEqual(await ids(t, composite(LO.NOT, single('a', L(1), CT.EQUAL, false))), ['r2', 'r3']);
      assert.deepEqual(await ids(t, composite(LO.AND, single('s', 'abc', CT.GREATER_EQUAL),
                                              single('b', true, CT.EQUAL))), ['r1']);
      assert.deepEqual(await ids(t, composite(LO.OR, single('s', 'abb', CT.EQUAL),
                                              single('a', L(5), CT.EQUAL, false))), ['r2', 'r3']);
      const nested = composite(LO.AND,
        single('s', 'ab', CT.GREATER_THAN),
        composite(LO.OR,
          composite(LO.NOT, single('b', true, CT.EQUAL, false)),
          composite(LO.AND, single('a', L(0), CT.GREATER_THAN, false), single('d', 2.0, CT.LESS_THAN, false))));
      assert.deepEqual(await ids(t, nested), ['r1', 'r2', 'r3']);
      assert.deepEqual(await ids(t, composite(LO.NOT, nested)), []);
    });
  });

  describe('versions seen by a filter', () => {
    it('latestVersionOnly, versions hidden by max versions, the read\'s max versions and time range', async () => {
      const t = await table('fver', { maxVersions: 3 });
      const base = Date.now() - 60000;
      // v: 0 (hidden by max versions 3), 1, 2, 3 (newest).
      for (let v = 0; v <= 3; v += 1) await putVersions(client, t, [{ id: 'r' }], [['v', L(v), base + v]]);
      const get = (f, extra = {}) => getRow(client, t, [{ id: 'r' }], { maxVersions: 3, columnFilter: f, ...extra });
      assert.ok(present(await get(single('v', L(3), CT.EQUAL))));
      assert.ok(!present(await get(single('v', L(1), CT.EQUAL))), 'latest only: 1 is not the newest');
      assert.ok(present(await get(single('v', L(1), CT.EQUAL, true, false))), 'any version: 1 is visible');
      assert.ok(!present(await get(single('v', L(0), CT.EQUAL, true, false))), '0 is hidden by max versions');
      assert.ok(!present(await get(single('v', L(1), CT.EQUAL, true, false), { maxVersions: 1 })),
                'the read returns only the newest version');
      const range = { timeRange: { startTime: base + 1, endTime: base + 2 }, maxVersions: undefined };
      assert.ok(present(await get(single('v', L(1), CT.EQUAL), range)), 'in the time range 1 is the newest');
      assert.ok(!present(await get(single('v', L(3), CT.EQUAL, false), range)));
    });

    it('versions and rows aged out by the table TTL are not seen', async () => {
      const t = await table('fttl', { timeToLive: 10, maxVersions: 5 });
      const now = Date.now();
      await putVersions(client, t, [{ id: 'r' }], [['c', 'old', now - 9000], ['k', 'keep', now]]);
      await putVersions(client, t, [{ id: 'gone' }], [['c', 'old', now - 9000]]);
      await sleep(1500);  // 'old' is now past the 10 s TTL
      assert.deepEqual(await ids(t, single('c', 'old', CT.EQUAL, true, false)), ['r'],
                       'missing (passes) on r; the row whose every cell aged out is absent');
      assert.deepEqual(await ids(t, single('c', 'old', CT.EQUAL, false, false)), []);
      assert.deepEqual(await ids(t, single('k', 'keep', CT.EQUAL, false)), ['r']);
    });
  });

  describe('ColumnPaginationFilter and start/end column', () => {
    let t;
    const base = Date.now() - 60000;
    before(async () => {
      t = await table('fcol', { maxVersions: 3 });
      const puts = [];
      for (let i = 0; i < 10; i += 1) {
        for (let v = 0; v < 3; v += 1) puts.push([`c${i}`, `v${i}.${v}`, base + v]);
      }
      await putVersions(client, t, [{ id: 'w' }], puts);
    });
    const names = (row) => values(row).map(([n]) => n);

    it('offset and limit over the columns, from startColumn', async () => {
      const row = await getRow(client, t, [{ id: 'w' }], { maxVersions: 1,
        columnFilter: new TableStore.ColumnPaginationFilter(3, 2) });
      assert.deepEqual(names(row), ['c2', 'c3', 'c4']);
      const from = await getRow(client, t, [{ id: 'w' }], { maxVersions: 1, startColumn: 'c5',
        columnFilter: new TableStore.ColumnPaginationFilter(3, 2) });
      assert.deepEqual(names(from), ['c7', 'c8', 'c9']);
      const past = await getRow(client, t, [{ id: 'w' }], { maxVersions: 1,
        columnFilter: new TableStore.ColumnPaginationFilter(5, 20) });
      assert.deepEqual(pkOf(past), [['id', 'w']]);
      assert.deepEqual(past.attributes, []);
      const range = await client.getRange({ tableName: t, direction: Direction.FORWARD, maxVersions: 1,
        inclusiveStartPrimaryKey: [{ id: INF_MIN }], exclusiveEndPrimaryKey: [{ id: INF_MAX }],
        columnFilter: new TableStore.ColumnPaginationFilter(2, 8) });
      assert.deepEqual(names(range.rows[0]), ['c8', 'c9']);
    });

    it('start inclusive, end exclusive, with max versions, time range and columnsToGet', async () => {
      const row = await getRow(client, t, [{ id: 'w' }], { maxVersions: 2, startColumn: 'c1', endColumn: 'c3' });
      assert.deepEqual(cells(row), [
        ['c1', 'v1.2', base + 2], ['c1', 'v1.1', base + 1], ['c2', 'v2.2', base + 2], ['c2', 'v2.1', base + 1],
      ]);
      const timed = await getRow(client, t, [{ id: 'w' }], { startColumn: 'c8',
        timeRange: { startTime: base, endTime: base + 1 } });
      assert.deepEqual(cells(timed), [['c8', 'v8.0', base], ['c9', 'v9.0', base]]);
      const picked = await getRow(client, t, [{ id: 'w' }], { maxVersions: 1, startColumn: 'c1', endColumn: 'c5',
        columnsToGet: ['c0', 'c2', 'c7'] });
      assert.deepEqual(values(picked), [['c2', 'v2.2']]);
      const range = await client.getRange({ tableName: t, direction: Direction.FORWARD, maxVersions: 1,
        inclusiveStartPrimaryKey: [{ id: INF_MIN }], exclusiveEndPrimaryKey: [{ id: INF_MAX }],
        startColumn: 'c9' });
      assert.deepEqual(values(range.rows[0]), [['c9', 'v9.2']]);
      const batch = await client.batchGetRow({ tables: [{ tableName: t, primaryKey: [[{ id: 'w' }]],
        maxVersions: 1, endColumn: 'c1' }] });
      assert.deepEqual(values(batch.tables[0][0]), [['c0', 'v0.2']]);
      // The filter sees only the column range: c0 is outside it, hence missing.
      assert.ok(!present(await getRow(client, t, [{ id: 'w' }], { maxVersions: 1, startColumn: 'c1',
        columnFilter: single('c0', 'v0.2', CT.EQUAL, false) })));
    });
  });

  describe('GetRange pages over filtered-out rows', () => {
    it('5000 rows a page are read even when the filter drops them all; next_start_primary_key goes on', async () => {
      const t = await table('fpage');
      const total = 5100;
      for (let start = 0; start < total; start += 200) {
        const rows = [];
        for (let i = start; i < Math.min(total, start + 200); i += 1) {
          rows.push({ type: 'PUT', condition: condition('IGNORE'), primaryKey: [{ id: `k${String(i).padStart(5, '0')}` }],
            attributeColumns: [{ n: L(i) }] });
        }
        await client.batchWriteRow({ tables: [{ tableName: t, rows }] });
      }
      const query = (startKey, f, extra = {}) => client.getRange({ tableName: t, direction: Direction.FORWARD,
        maxVersions: 1, columnFilter: f, inclusiveStartPrimaryKey: startKey,
        exclusiveEndPrimaryKey: [{ id: INF_MAX }], ...extra });
      const none = single('n', L(-1), CT.EQUAL);
      const first = await query([{ id: INF_MIN }], none);
      assert.equal(first.rows.length, 0);
      assert.deepEqual(first.nextStartPrimaryKey.map((c) => [c.name, c.value]), [['id', 'k05000']]);
      const second = await query(first.nextStartPrimaryKey.map((c) => ({ [c.name]: c.value })), none);
      assert.equal(second.rows.length, 0);
      assert.equal(second.nextStartPrimaryKey, null);
      // The last rows pass: the first page holds none of them, the second all.
      const last = single('n', L(5098), CT.GREATER_EQUAL);
      assert.equal((await query([{ id: INF_MIN }], last)).rows.length, 0);
      // limit counts rows returned, not rows read.
      const limited = await query([{ id: INF_MIN }], single('n', L(10), CT.LESS_THAN), { limit: 3 });
      assert.deepEqual(limited.rows.map((r) => r.primaryKey[0].value), ['k00000', 'k00001', 'k00002']);
      assert.deepEqual(limited.nextStartPrimaryKey.map((c) => c.value), ['k00003']);
    });
  });

  describe('column conditions on writes', () => {
    it('PutRow, UpdateRow and DeleteRow: pass or fail with 403 OTSConditionCheckFail', async () => {
      const t = await table('fcond');
      const k = [{ id: 'x' }];
      await client.putRow({ tableName: t, condition: condition('IGNORE'), primaryKey: k,
        attributeColumns: [{ col1: 'Value1' }] });
      const put = (cc, exist = 'IGNORE') => client.putRow({ tableName: t, primaryKey: k,
        condition: withColumns(exist, cc), attributeColumns: [{ col1: 'Value1' }, { col2: 'Value2' }] });
      await expectOtsError(put(single('col1', 'Value1', CT.NOT_EQUAL)), 403, 'OTSConditionCheckFail', CHECK_FAILED);
      await put(single('col1', 'Value1', CT.EQUAL));
      // A missing column: passIfMissing decides.
      await put(single('colX', 'Y', CT.NOT_EQUAL));
      await expectOtsError(put(single('colX', 'Y', CT.NOT_EQUAL, false)), 403, 'OTSConditionCheckFail', CHECK_FAILED);
      // Row existence is checked too: both must hold.
      await expectOtsError(put(single('col1', 'Value1', CT.EQUAL), 'EXPECT_NOT_EXIST'), 403, 'OTSConditionCheckFail',
                           CHECK_FAILED);

      const update = (cc) => client.updateRow({ tableName: t, primaryKey: k, condition: withColumns('EXPECT_EXIST', cc),
        updateOfAttributeColumns: [{ PUT: [{ col3: 'Value3' }] }] });
      await expectOtsError(update(single('col2', 'Value1', CT.LESS_THAN)), 403, 'OTSConditionCheckFail', CHECK_FAILED);
      await update(composite(LO.NOT, single('col1', 'Value2', CT.EQUAL)));
      assert.deepEqual(values(await getRow(client, t, k, { maxVersions: 1 })),
                       [['col1', 'Value1'], ['col2', 'Value2'], ['col3', 'Value3']]);

      const del = (cc) => client.deleteRow({ tableName: t, primaryKey: k, condition: withColumns('IGNORE', cc) });
      await expectOtsError(del(single('col3', 'Value2', CT.LESS_EQUAL)), 403, 'OTSConditionCheckFail', CHECK_FAILED);
      assert.ok(present(await getRow(client, t, k, { maxVersions: 1 })), 'a failed delete deletes nothing');
      await del(composite(LO.OR, single('col1', 'X', CT.EQUAL),
                          composite(LO.AND, single('col2', 'Value2', CT.EQUAL), single('col3', 'Value3', CT.EQUAL))));
      assert.deepEqual(await getRow(client, t, k, { maxVersions: 1 }), {});
      // A missing row: every column is missing.
      await expectOtsError(put(single('col1', 'Value1', CT.EQUAL, false)), 403, 'OTSConditionCheckFail', CHECK_FAILED);
    });

    it('latestVersionOnly on a column of ten versions', async () => {
      const t = await table('fcver', { maxVersions: 100 });
      const k = [{ id: 'r' }];
      const base = Date.now() - 60000;
      await putVersions(client, t, k, Array.from({ length: 10 }, (_, i) => ['col', L(i), base + i]));
      const upd = (cc) => client.updateRow({ tableName: t, primaryKey: k, condition: withColumns('IGNORE', cc),
        updateOfAttributeColumns: [{ PUT: [{ other: L(9) }] }] });
      await expectOtsError(upd(single('col', L(1), CT.EQUAL, true, true)), 403, 'OTSConditionCheckFail', CHECK_FAILED);
      await upd(single('col', L(3), CT.GREATER_THAN, true, true));
      await upd(single('col', L(1), CT.EQUAL, true, false));
    });

    it('BatchWriteRow: only the rows whose condition fails fail', async () => {
      const t = await table('fcbatch');
      for (const n of [20, 21, 22]) {
        await putVersions(client, t, [{ id: `r${n}` }], [['Col1', `Value${n}`]]);
      }
      const data = await client.batchWriteRow({ tables: [{ tableName: t, rows: [
        { type: 'PUT', primaryKey: [{ id: 'r20' }], attributeColumns: [{ Col2: 'Value2' }],
          condition: withColumns('IGNORE', single('Col1', 'Value20', CT.NOT_EQUAL)) },
        { type: 'UPDATE', primaryKey: [{ id: 'r21' }], attributeColumns: [{ PUT: [{ Col3: 'Value3' }] }],
          condition: withColumns('IGNORE', single('Col1', 'Value21', CT.EQUAL)) },
        { type: 'DELETE', primaryKey: [{ id: 'r22' }],
          condition: withColumns('IGNORE', single('Col1', 'Value22', CT.GREATER_THAN)) },
      ] }] });
      assert.deepEqual(data.tables.map((r) => [r.isOk, r.errorCode, r.errorMessage]), [
        [false, 'OTSConditionCheckFail', CHECK_FAILED], [true, null, null],
        [false, 'OTSConditionCheckFail', CHECK_FAILED],
      ]);
      assert.deepEqual(values(await getRow(client, t, [{ id: 'r20' }], { maxVersions: 1 })), [['Col1', 'Value20']]);
      assert.deepEqual(values(await getRow(client, t, [{ id: 'r21' }], { maxVersions: 1 })),
                       [['Col1', 'Value21'], ['Col3', 'Value3']]);
      assert.ok(present(await getRow(client, t, [{ id: 'r22' }], { maxVersions: 1 })));
    });
  });

  describe('refusals', () => {
    let t;
    before(async () => {
      t = await table('fbad');
    });
    const b = single('c', false, CT.EQUAL);
    const wide = (n) => composite(LO.OR, ...Array.from({ length: n - 1 }, (_, i) => single(`c${i}`, 'A', CT.EQUAL)));
    const cases = [
      ['33 filters', wide(33), 'The count of filter exceeds the max: 32.'],
      ['NOT of two', composite(LO.NOT, b, b), 'Invalid NOT operator: the number of sub-filters must be 1.'],
      ['AND of one', composite(LO.AND, b), 'Invalid AND/OR operator: the number of sub-filters must be more than 1.'],
      ['OR of one', composite(LO.OR, b), 'Invalid AND/OR operator: the number of sub-filters must be more than 1.'],
      ['a 2 MiB + 1 value', single('Column', 'a'.repeat(2 * 1024 * 1024 + 1), CT.EQUAL),
       "The length of attribute column: 'Column' exceeds the MaxLength:2097152 with CurrentLength:2097153."],
      ['pagination inside a composite', composite(LO.AND, b, new TableStore.ColumnPaginationFilter(1, 0)),
       'ColumnPaginationFilter cannot be a sub-filter of a composite filter.'],
    ];

    it('32 filters pass', async () => {
      await getRow(client, t, [{ id: 'x' }], { maxVersions: 1, columnFilter: wide(32) });
    });

    for (const [what, f, message] of cases) {
      it(`${what}: 400 OTSParameterInvalid on reads, writes and in batches`, async () => {
        await expectOtsError(client.getRow({ tableName: t, primaryKey: [{ id: 'x' }], maxVersions: 1, columnFilter: f }),
                             400, 'OTSParameterInvalid', message);
        await expectOtsError(client.getRange({ tableName: t, direction: Direction.FORWARD, maxVersions: 1, columnFilter: f,
          inclusiveStartPrimaryKey: [{ id: INF_MIN }], exclusiveEndPrimaryKey: [{ id: INF_MAX }] }),
                             400, 'OTSParameterInvalid', message);
        const batch = await client.batchGetRow({ tables: [{ tableName: t, primaryKey: [[{ id: 'x' }]], maxVersions: 1,
          columnFilter: f }] });
        assert.deepEqual(batch.tables[0].map((r) => [r.isOk, r.errorCode, r.errorMessage]),
                         [[false, 'OTSParameterInvalid', message]]);
        if (what.startsWith('pagination')) return;
        await expectOtsError(client.putRow({ tableName: t, primaryKey: [{ id: 'x' }], attributeColumns: [{ c: 'v' }],
          condition: withColumns('IGNORE', f) }), 400, 'OTSParameterInvalid', message);
        const write = await client.batchWriteRow({ tables: [{ tableName: t, rows: [
          { type: 'PUT', primaryKey: [{ id: 'x' }], attributeColumns: [{ c: 'v' }], condition: withColumns('IGNORE', f) },
          { type: 'PUT', primaryKey: [{ id: 'y' }], attributeColumns: [{ c: 'v' }], condition: condition('IGNORE') },
        ] }] });
        assert.deepEqual(write.tables.map((r) => [r.isOk, r.errorCode, r.errorMessage]),
                         [[false, 'OTSParameterInvalid', message], [true, null, null]]);
        assert.deepEqual(await getRow(client, t, [{ id: 'x' }], { maxVersions: 1 }), {});
      });
    }

    it('a ColumnPaginationFilter as a column condition', async () => {
      await expectOtsError(client.updateRow({ tableName: t, primaryKey: [{ id: 'x' }],
        condition: withColumns('IGNORE', new TableStore.ColumnPaginationFilter(1, 0)),
        updateOfAttributeColumns: [{ PUT: [{ c: 'v' }] }] }),
      400, 'OTSParameterInvalid', 'ColumnPaginationFilter cannot be used as a column condition.');
    });
  });
});
