// Search sorts and pages as the service answers them (issue 31): FieldSort missing_field (a row
// without the field sorts by another field's value), the "_first" / "_last" missing values of
// the Java and Go SDKs, a next_token that carries its sort (the next page is sent without one, as
// the Java SDK does), DisableDefaultPkSorter (the Go SDK's TestQuerySortDisableDefaultPkSorter),
// the Java SDK's trackTotalCount and SearchFilter, and string values on numeric fields (the
// Python SDK's search_index_test). The Node SDK sends what it can; the rest is raw
// (search_raw.mjs), decoded by the SDK's own Search decoder.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { Long, Server, TableStore, condition, expectOtsError, uniqueName } from './helpers.mjs';
import { Q, RT, idOf, search, waitCount } from './search_helpers.mjs';
import { fieldSorter, fields, matchAll, msg, pbBytes, pbVarint, rawSearch, strValue, term } from './search_raw.mjs';

const FT = TableStore.FieldType;
const ASC = TableStore.SortOrder.SORT_ORDER_ASC;
const DESC = TableStore.SortOrder.SORT_ORDER_DESC;
const N = 20;
// Rows without `n`: every fourth. `m` is 100 - i on every row; `same` is one value for all.
const hasN = (i) => i % 4 !== 0;

describe('search sorts and pages as the service answers them', () => {
  let server;
  let client;
  const t = uniqueName('sorts');
  const ix = 'ix';

  // Every id of `query` under `sort`, page by page; the token alone carries the sort after the
  // first page when `sortOnce`.
  const pages = async (query, sort, { limit = 7, sortOnce = false } = {}) => {
    const out = [];
    let token;
    for (let page = 0; page < 100; page++) {
      const r = await search(client, t, ix, query, { limit, sort: token && sortOnce ? undefined : sort, token });
      out.push(...r.rows.map(idOf));
      if (!r.nextToken || r.nextToken.length === 0) return out;
      token = r.nextToken;
    }
    throw new Error('too many pages');
  };

  before(async () => {
    server = await Server.start();
    client = server.client();
    await client.createTable({
      tableMeta: { tableName: t, primaryKey: [{ name: 'id', type: 'INTEGER' }] },
      reservedThroughput: { capacityUnit: { read: 0, write: 0 } },
      tableOptions: { timeToLive: -1, maxVersions: 1 },
    });
    await client.createSearchIndex({ tableName: t, indexName: ix, schema: { fieldSchemas: [
      { fieldName: 'n', fieldType: FT.LONG, index: true, enableSortAndAgg: true },
      { fieldName: 'm', fieldType: FT.LONG, index: true, enableSortAndAgg: true },
      { fieldName: 'same', fieldType: FT.KEYWORD, index: true, enableSortAndAgg: true },
      { fieldName: 'k', fieldType: FT.KEYWORD, index: true, enableSortAndAgg: true },
    ] } });
    const rows = [];
    for (let i = 0; i < N; i++) {
      const cols = [{ m: Long.fromNumber(100 - i) }, { same: '6' }, { k: `k${i % 3}` }];
      if (hasN(i)) cols.push({ n: Long.fromNumber(i) });
      rows.push({ type: 'PUT', condition: condition('IGNORE'), primaryKey: [{ id: Long.fromNumber(i) }], attributeColumns: cols });
    }
    const r = await client.batchWriteRow({ tables: [{ tableName: t, rows }] });
    assert.ok(r.tables.every((x) => x.isOk));
    await waitCount(client, t, ix, N);
  });

  after(async () => {
    await server?.stop({ removeDir: true });
  });

  const all = [...Array(N).keys()];
  const withN = all.filter(hasN);
  const withoutN = all.filter((i) => !hasN(i));

  it('FieldSort missing_field: a row without the field sorts by the other field', async () => {
    // Without n, a row sorts by m = 100 - i: above every n.
    const byM = [...withoutN].sort((a, b) => (100 - a) - (100 - b));
    assert.deepEqual(await pages(Q.all(), [{ fieldSort: { fieldName: 'n', order: ASC, missingField: 'm' } }]),
      [...withN, ...byM]);
    assert.deepEqual(await pages(Q.all(), [{ fieldSort: { fieldName: 'n', order: DESC, missingField: 'm' } }], { sortOnce: true }),
      [...byM.reverse(), ...[...withN].reverse()]);
    // Without missing_field, rows without the field are last in either order.
    assert.deepEqual(await pages(Q.all(), [{ fieldSort: { fieldName: 'n', order: DESC } }]),
      [...[...withN].reverse(), ...withoutN]);
    await expectOtsError(search(client, t, ix, Q.all(), { sort: [{ fieldSort: { fieldName: 'n', missingField: 'same' } }] }),
      400, 'OTSParameterInvalid', 'missing_field:same type:KEYWORD does not match field:n type:LONG');
    await expectOtsError(search(client, t, ix, Q.all(), { sort: [{ fieldSort: { fieldName: 'n', missingField: 'nope' } }] }),
      400, 'OTSParameterInvalid', 'field:nope is not found in index schema');
  });

  it('missing values "_first" and "_last" are positions (FieldSort.FIRST_WHEN_MISSING)', async () => {
    assert.deepEqual(await pages(Q.all(), [{ fieldSort: { fieldName: 'n', order: ASC, missingValue: '_first' } }]),
      [...withoutN, ...withN]);
    assert.deepEqual(await pages(Q.all(), [{ fieldSort: { fieldName: 'n', order: DESC, missingValue: '_first' } }]),
      [...withoutN, ...[...withN].reverse()]);
    assert.deepEqual(await pages(Q.all(), [{ fieldSort: { fieldName: 'n', order: DESC, missingValue: '_last' } }]),
      [...[...withN].reverse(), ...withoutN]);
    // A value is still a value: rows without n sort as 10 (ties by primary key).
    const got = await pages(Q.all(), [{ fieldSort: { fieldName: 'n', order: ASC, missingValue: Long.fromNumber(10) } }]);
    const asTen = (i) => (hasN(i) ? i : 10);
    assert.deepEqual(got, [...all].sort((a, b) => asTen(a) - asTen(b) || a - b));
  });

  it('a next_token carries its sort: the next page is sent without one', async () => {
    const sort = [{ fieldSort: { fieldName: 'k', order: DESC } }, { fieldSort: { fieldName: 'm', order: ASC } }];
    const want = [...all].sort((a, b) => (b % 3) - (a % 3) || (100 - a) - (100 - b));
    assert.deepEqual(await pages(Q.all(), sort, { limit: 3, sortOnce: true }), want);
  });

  it('DisableDefaultPkSorter: no tie-break, so a next page skips the ties (raw Sort field 2)', async () => {
    // SearchQuery { 4 query, 2 limit, 6 Sort { 1 sorter, 2 disable_default_pk_sorter }, 9 token }.
    const first = (disable) => msg(pbBytes(4, matchAll()), pbVarint(2, 6),
      pbBytes(6, msg(fieldSorter('same'), pbVarint(2, disable ? 1 : 0))));
    const next = (token) => msg(pbBytes(4, matchAll()), pbVarint(2, 6), pbBytes(9, token));
    const count = async (disable) => {
      let r = await rawSearch(server, t, ix, first(disable));
      assert.equal(r.status, 200, JSON.stringify(r.error));
      let total = r.rows.length;
      for (let i = 0; i < 10 && r.nextToken && r.nextToken.length > 0; i++) {
        r = await rawSearch(server, t, ix, next(r.nextToken));
        assert.equal(r.status, 200, JSON.stringify(r.error));
        total += r.rows.length;
      }
      return total;
    };
    // Every row has the same value: after the first page nothing sorts after its last hit.
    assert.equal(await count(true), 6);
    assert.equal(await count(false), N);
  });

  it("the Java SDK's trackTotalCount and SearchFilter (raw SearchQuery fields 13 and 14)", async () => {
    const total = async (track) => {
      const r = await rawSearch(server, t, ix, msg(pbBytes(4, matchAll()), pbVarint(2, 1), pbVarint(13, track)));
      assert.equal(r.status, 200, JSON.stringify(r.error));
      return r.totalCounts;
    };
    assert.equal(await total(2147483647), String(N));  // SearchQuery.TRACK_TOTAL_COUNT
    assert.equal(await total(-1), undefined);            // TRACK_TOTAL_COUNT_DISABLED: -1 answered
    assert.equal(await total(5), '5');                   // at most 5 counted
    const bad = await rawSearch(server, t, ix, msg(pbBytes(4, matchAll()), pbVarint(13, -2)));
    assert.equal(bad.status, 400);
    // SearchFilter { 1 query }: the hits match the filter too.
    const filtered = await rawSearch(server, t, ix, msg(pbBytes(4, matchAll()), pbVarint(2, 100),
      pbBytes(14, pbBytes(1, term('k', strValue('k1'))))));
    assert.equal(filtered.status, 200, JSON.stringify(filtered.error));
    assert.deepEqual(filtered.rows.map(idOf).sort((a, b) => a - b), all.filter((i) => i % 3 === 1));
    // One SearchHit (field 5) per row, as the Java SDK pairs them by position.
    assert.equal(fields(filtered.body).filter((f) => f.field === 5).length, filtered.rows.length);
  });

  it('string values on a Long field match as numbers', async () => {
    assert.deepEqual(await pages(Q.term('n', '7'), undefined), [7]);
    assert.deepEqual(await pages(Q.terms('n', ['5', '6', '8']), undefined), [5, 6]);
    assert.deepEqual(await pages(Q.range('n', '5', '9'), undefined), [5, 6, 7]);
    await expectOtsError(search(client, t, ix, Q.term('n', 'seven')), 400, 'OTSParameterInvalid',
      'the value type of the query does not match the field type');
    const r = await search(client, t, ix, Q.all(), { limit: 1, columns: { returnType: RT.RETURN_NONE } });
    assert.equal(r.rows.length, 1);
  });
});
