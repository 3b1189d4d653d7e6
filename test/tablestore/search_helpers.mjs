// Shared helpers for the search-index end-to-end tests (search*.test.mjs): query builders in
// the SDK's shapes, waiting for the near-real-time index, and reading every hit of a query
// (Search with next_token paging, or ComputeSplits + ParallelScan over every parallel id)
// while checking that no row comes twice.
import assert from 'node:assert/strict';

import { Long, TableStore, num, sleep } from './helpers.mjs';

const QT = TableStore.QueryType;

export const Q = {
  all: () => ({ queryType: QT.MATCH_ALL_QUERY, query: {} }),
  term: (fieldName, term) => ({ queryType: QT.TERM_QUERY, query: { fieldName, term } }),
  terms: (fieldName, terms) => ({ queryType: QT.TERMS_QUERY, query: { fieldName, terms } }),
  range: (fieldName, from, to, includeLower = true, includeUpper = false) => ({
    queryType: QT.RANGE_QUERY,
    query: { fieldName, rangeFrom: from, rangeTo: to, includeLower, includeUpper },
  }),
  prefix: (fieldName, prefix) => ({ queryType: QT.PREFIX_QUERY, query: { fieldName, prefix } }),
  wildcard: (fieldName, value) => ({ queryType: QT.WILDCARD_QUERY, query: { fieldName, value } }),
  exists: (fieldName) => ({ queryType: QT.EXISTS_QUERY, query: { fieldName } }),
  match: (fieldName, text, extra = {}) => ({ queryType: QT.MATCH_QUERY, query: { fieldName, text, ...extra } }),
  phrase: (fieldName, text) => ({ queryType: QT.MATCH_PHRASE_QUERY, query: { fieldName, text } }),
  bool: ({ must, mustNot, filter, should, minimumShouldMatch }) => ({
    queryType: QT.BOOL_QUERY,
    query: {
      mustQueries: must, mustNotQueries: mustNot, filterQueries: filter, shouldQueries: should,
      minimumShouldMatch: should ? (minimumShouldMatch ?? 1) : undefined,
    },
  }),
};

export const RT = TableStore.ColumnReturnType;

// The integer primary-key column `id` of a returned row.
export const idOf = (row) => num(row.primaryKey[0].value);

// One Search call.
export function search(client, tableName, indexName, query, {
  limit = 100, offset, sort, token, getTotalCount = false, columns = { returnType: RT.RETURN_NONE },
} = {}) {
  const searchQuery = { query, limit, getTotalCount };
  if (offset !== undefined) searchQuery.offset = offset;
  if (sort) searchQuery.sort = { sorters: sort };
  if (token) searchQuery.token = token;
  return client.search({ tableName, indexName, searchQuery, columnToGet: columns });
}

// Every hit of `query`, page by page through next_token; asserts no id comes twice.
export async function searchIds(client, tableName, indexName, query, { limit = 100, sort } = {}) {
  const ids = [];
  const seen = new Set();
  let token;
  for (let page = 0; page < 100000; page++) {
    const r = await search(client, tableName, indexName, query, { limit, sort, token });
    for (const row of r.rows) {
      const id = idOf(row);
      assert.ok(!seen.has(id), `row ${id} returned twice`);
      seen.add(id);
      ids.push(id);
    }
    if (!r.nextToken || r.nextToken.length === 0) return ids;
    token = r.nextToken;
  }
  throw new Error('too many pages');
}

// The total count of `query`.
export async function totalOf(client, tableName, indexName, query = Q.all()) {
  const r = await search(client, tableName, indexName, query, { limit: 0, getTotalCount: true });
  return Number(r.totalCounts);
}

// Polls until the index's count of `query` is `n` (the index is near-real-time).
export async function waitCount(client, tableName, indexName, n, { query = Q.all(), timeoutMs = 10000 } = {}) {
  const deadline = Date.now() + timeoutMs;
  let last;
  while (Date.now() < deadline) {
    last = await totalOf(client, tableName, indexName, query);
    if (last === n) return;
    await sleep(100);
  }
  throw new Error(`search count stayed ${last}, expected ${n} after ${timeoutMs} ms`);
}

// Every row of the index through ComputeSplits + ParallelScan over every parallel id; asserts
// each row comes once.
export async function parallelScanIds(client, tableName, indexName, query = Q.all(), { limit = 100 } = {}) {
  const splits = await client.computeSplits({ tableName, searchIndexSplitsOptions: { indexName } });
  const maxParallel = splits.splitsSize;
  assert.ok(maxParallel >= 1, `splitsSize ${maxParallel}`);
  const seen = new Set();
  for (let p = 0; p < maxParallel; p++) {
    let token;
    for (;;) {
      const r = await client.parallelScan({
        tableName, indexName, sessionId: splits.sessionId,
        columnToGet: { returnType: RT.RETURN_NONE },
        scanQuery: { query, limit, maxParallel, currentParallelId: p, token, aliveTime: 60 },
      });
      for (const row of r.rows) {
        const id = idOf(row);
        assert.ok(!seen.has(id), `row ${id} scanned twice`);
        seen.add(id);
      }
      if (!r.nextToken || r.nextToken.length === 0) break;
      token = r.nextToken;
    }
  }
  return { ids: seen, splits: maxParallel };
}

export const sorted = (ids) => [...ids].sort((a, b) => a - b);
export const long = (n) => Long.fromNumber(n);
