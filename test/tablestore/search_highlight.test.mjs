// Search highlighting (issue 32) through the official Node SDK: the Python SDK's
// full_text_search_test answers (max_word titles, a FunctionScoreQuery by pv, fragment_size 18,
// <b> tags: the fragments the service returned), its refusal of a field without
// enable_highlighting ("highlighting is not supported for field[author]"), enable_highlighting
// only on Text fields and shown back by DescribeSearchIndex, fragments cut by fragment_size and
// number_of_fragments in TEXT_SEQUENCE and SCORE order, the HTML encoder, and hits that match
// nothing in the highlighted field.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { Long, Server, TableStore, condition, expectOtsError, uniqueName } from './helpers.mjs';
import { Q, RT, idOf, waitCount } from './search_helpers.mjs';

const FT = TableStore.FieldType;
const QT = TableStore.QueryType;
const HFO = TableStore.HighlightFragmentOrder;
const HE = TableStore.HighlightEncoder;
const DESC = TableStore.SortOrder.SORT_ORDER_DESC;

// The fragments of each hit: [{ field: [fragments] }], from the SDK's decoded highlightResultItem.
const fragmentsOf = (r) => r.searchHits.map((h) => {
  const out = {};
  for (const [field, v] of h.highlightResultItem?.highlightFields ?? new Map()) out[field] = v.fragments;
  return out;
});

// A fragment without its tags.
const untag = (s, pre = '<b>', post = '</b>') => s.split(pre).join('').split(post).join('');

describe('search highlighting', () => {
  let server;
  let client;
  const web = uniqueName('hlweb');
  const doc = uniqueName('hldoc');
  const TEXTS = [
    'Alpha one. Beta two fox. Gamma three. Delta fox fox four. Epsilon five. Zeta fox six.',
    'No animal here, only <html> & "quotes" / slashes.',
    'A fox <b>bold</b> & co.',
  ];

  before(async () => {
    server = await Server.start();
    client = server.client();
    const createTable = (tableName, pk) => client.createTable({
      tableMeta: { tableName, primaryKey: pk },
      reservedThroughput: { capacityUnit: { read: 0, write: 0 } },
      tableOptions: { timeToLive: -1, maxVersions: 1 },
    });
    // The Python SDK's full_text_search_test: table, rows and index.
    await createTable(web, [{ name: 'url', type: 'STRING' }]);
    const rows = [
      ['http://a.com/001.html', 'forum', '求推荐几款菊花茶店铺', 25],
      ['http://b.com/news/001.html', 'news', '秋天最适合饮用的几种花茶', 30],
      ['http://a.com/011.html', 'forum', '苕溪边上有一大片野生菊花', 100],
      ['http://a.com/019.html', 'forum', '菊花茶是一款大部分人都适合的经典花茶', 120],
    ];
    for (const [url, type, title, pv] of rows) {
      await client.putRow({ tableName: web, condition: condition('IGNORE'), primaryKey: [{ url }],
        attributeColumns: [{ type }, { title }, { pv: Long.fromNumber(pv) }] });
    }
    await client.createSearchIndex({ tableName: web, indexName: 'ix', schema: {
      fieldSchemas: [
        { fieldName: 'url', fieldType: FT.KEYWORD, index: true, enableSortAndAgg: true },
        { fieldName: 'title', fieldType: FT.TEXT, index: true, analyzer: 'max_word', enableHighlighting: true },
        { fieldName: 'type', fieldType: FT.KEYWORD, index: true, enableSortAndAgg: true },
        { fieldName: 'pv', fieldType: FT.LONG, index: true, enableSortAndAgg: true },
        { fieldName: 'author', fieldType: FT.TEXT, index: true },
      ],
    } });
    // English texts (single_word), and a second highlighted field.
    await createTable(doc, [{ name: 'id', type: 'INTEGER' }]);
    for (let i = 0; i < TEXTS.length; i++) {
      await client.putRow({ tableName: doc, condition: condition('IGNORE'), primaryKey: [{ id: Long.fromNumber(i) }],
        attributeColumns: [{ body: TEXTS[i] }, { note: i === 1 ? 'a fox note' : 'nothing' }] });
    }
    await client.createSearchIndex({ tableName: doc, indexName: 'ix', schema: { fieldSchemas: [
      { fieldName: 'body', fieldType: FT.TEXT, index: true, enableHighlighting: true },
      { fieldName: 'note', fieldType: FT.TEXT, index: true, enableHighlighting: true },
    ] } });
    await waitCount(client, web, 'ix', 4);
    await waitCount(client, doc, 'ix', TEXTS.length);
  });

  after(async () => {
    await server?.stop({ removeDir: true });
  });

  const functionScore = (query, fieldName) => ({
    queryType: QT.FUNCTION_SCORE_QUERY, query: { query, fieldValueFactor: { fieldName } },
  });

  it('the Python SDK full_text_search_test answers: fragments, tags, order by function score', async () => {
    const r = await client.search({ tableName: web, indexName: 'ix', columnToGet: { returnType: RT.RETURN_SPECIFIED, returnNames: ['title', 'url'] },
      searchQuery: {
        query: functionScore(Q.match('title', '花茶'), 'pv'), limit: 10, getTotalCount: true,
        sort: { sorters: [{ scoreSort: { order: DESC } }] },
        highlight: { highlightEncoder: HE.PLAIN_MODE, highlightParameters: [{
          fieldName: 'title', numberOfFragments: 1, fragmentSize: 18, preTag: '<b>', postTag: '</b>',
          fragmentsOrder: HFO.TEXT_SEQUENCE }] },
      } });
    assert.equal(Number(r.totalCounts), 3);
    assert.deepEqual(r.rows.map((row) => row.primaryKey[0].value),
      ['http://a.com/019.html', 'http://b.com/news/001.html', 'http://a.com/001.html']);
    assert.deepEqual(fragmentsOf(r), [
      { title: ['菊<b>花茶</b>是一款大部分人都适合的经典<b>花茶</b>'] },
      { title: ['秋天最适合饮用的几种<b>花茶</b>'] },
      { title: ['求推荐几款菊<b>花茶</b>店铺'] },
    ]);
    // Scores descending (the service's were 53, 11, 9: BM25 times pv).
    const scores = r.searchHits.map((h) => h.score);
    assert.ok(scores[0] > scores[1] && scores[1] > scores[2], String(scores));
  });

  it('refuses a field without enable_highlighting with the service text', async () => {
    const query = functionScore(Q.match('author', 'wang'), 'pv');
    for (const fieldName of ['author', 'type', 'pv', 'absent']) {
      await expectOtsError(client.search({ tableName: web, indexName: 'ix', columnToGet: { returnType: RT.RETURN_ALL_FROM_INDEX },
        searchQuery: { query, limit: 10, getTotalCount: true, highlight: { highlightParameters: [{
          fieldName, numberOfFragments: 1, fragmentSize: 18, preTag: '<b>', postTag: '</b>' }] } } }),
      400, 'OTSParameterInvalid', `highlighting is not supported for field[${fieldName}]`);
    }
  });

  it('enable_highlighting: Text fields only, shown back by DescribeSearchIndex', async () => {
    await expectOtsError(client.createSearchIndex({ tableName: doc, indexName: 'bad', schema: { fieldSchemas: [
      { fieldName: 'body', fieldType: FT.KEYWORD, index: true, enableHighlighting: true }] } }),
    400, 'OTSParameterInvalid', 'Highlighting can only be enabled on Text fields');
    const d = await client.describeSearchIndex({ tableName: web, indexName: 'ix' });
    const byName = Object.fromEntries(d.schema.fieldSchemas.map((f) => [f.fieldName, f]));
    assert.equal(byName.title.enableHighlighting, true);
    assert.ok(!byName.author.enableHighlighting);
  });

  const highlightDoc = (query, params, extra = {}) => client.search({
    tableName: doc, indexName: 'ix', columnToGet: { returnType: RT.RETURN_NONE },
    searchQuery: { query, limit: 10, sort: { sorters: [{ primaryKeySort: { order: TableStore.SortOrder.SORT_ORDER_ASC } }] },
      highlight: { highlightParameters: params, ...extra } },
  });

  it('fragments: fragment_size, number_of_fragments, TEXT_SEQUENCE and SCORE order', async () => {
    const param = { fieldName: 'body', preTag: '<b>', postTag: '</b>', fragmentSize: 20, numberOfFragments: 2 };
    let r = await highlightDoc(Q.match('body', 'fox'), [{ ...param, fragmentsOrder: HFO.TEXT_SEQUENCE }]);
    assert.deepEqual(r.rows.map(idOf), [0, 2]);
    const seq = fragmentsOf(r)[0].body;
    assert.deepEqual(seq, ['Beta two <b>fox</b>.', 'Delta <b>fox</b> <b>fox</b> four.']);
    r = await highlightDoc(Q.match('body', 'fox'), [{ ...param, fragmentsOrder: HFO.SCORE }]);
    assert.deepEqual(fragmentsOf(r)[0].body, [seq[1], seq[0]]);
    // Every fragment is a piece of the text with each match tagged, and at most the
    // size (plus the rest of a word) long.
    r = await highlightDoc(Q.match('body', 'fox'), [{ ...param, numberOfFragments: 10 }]);
    const all = fragmentsOf(r)[0].body;
    assert.equal(all.length, 3);
    for (const f of all) {
      assert.ok(TEXTS[0].includes(untag(f)), f);
      assert.ok(untag(f).length <= 20, f);
      assert.equal(f.split('<b>fox</b>').length - 1, untag(f).split('fox').length - 1, f);
    }
    // Defaults (the service's: fragment_size 100, <em> tags).
    r = await highlightDoc(Q.match('body', 'fox'), [{ fieldName: 'body' }]);
    assert.deepEqual(fragmentsOf(r)[1].body, ['A <em>fox</em> <b>bold</b> & co.']);
  });

  it('the HTML encoder escapes the text, not the tags', async () => {
    const r = await highlightDoc(Q.match('body', 'fox'), [{ fieldName: 'body', preTag: '<b>', postTag: '</b>' }],
      { highlightEncoder: HE.HTML_MODE });
    assert.deepEqual(fragmentsOf(r)[1].body, ['A <b>fox</b> &lt;b&gt;bold&lt;&#x2F;b&gt; &amp; co.']);
  });

  it('each field its own fragments; a hit with nothing to mark has none', async () => {
    const query = Q.bool({ should: [Q.match('body', 'fox'), Q.match('note', 'fox')] });
    const r = await highlightDoc(query, [{ fieldName: 'body', numberOfFragments: 0 }, { fieldName: 'note' }]);
    assert.deepEqual(r.rows.map(idOf), [0, 1, 2]);
    assert.deepEqual(fragmentsOf(r), [
      { body: [TEXTS[0].replaceAll('fox', '<em>fox</em>')] },
      { note: ['a <em>fox</em> note'] },
      { body: ['A <em>fox</em> <b>bold</b> & co.'] },
    ]);
    // must_not clauses mark nothing.
    const r2 = await highlightDoc(Q.bool({ must: [Q.all()], mustNot: [Q.match('body', 'fox')] }), [{ fieldName: 'body' }]);
    assert.deepEqual(r2.rows.map(idOf), [1]);
    assert.deepEqual(fragmentsOf(r2), [{}]);
  });

  it('refuses bad parameters', async () => {
    await expectOtsError(highlightDoc(Q.match('body', 'fox'), [{ fieldName: 'body', preTag: '<span class=x>' }]),
      400, 'OTSParameterInvalid', 'highlight tag');
    await expectOtsError(highlightDoc(Q.match('body', 'fox'), [{ fieldName: 'body', fragmentSize: -1 }]),
      400, 'OTSParameterInvalid', 'fragment_size');
    await expectOtsError(highlightDoc(Q.match('body', 'fox'), [{ fieldName: 'body' }, { fieldName: 'body' }]),
      400, 'OTSParameterInvalid', 'Duplicated highlight field');
  });

  // The Python SDK's example highlight_query_for_nested (examples/full_text_search.py): a
  // NestedQuery on 'n' matching 'n.nt', its InnerHits highlighting 'n.nt' by full path; the
  // fragments come on each inner hit.
  it('InnerHits highlight the sub-documents of a NestedQuery by full path', async () => {
    const nt = uniqueName('hlnest');
    await client.createTable({
      tableMeta: { tableName: nt, primaryKey: [{ name: 'id', type: 'INTEGER' }] },
      reservedThroughput: { capacityUnit: { read: 0, write: 0 } },
      tableOptions: { timeToLive: -1, maxVersions: 1 },
    });
    const docs = [
      [{ nl: 1, nt: 'this is in nested 1' }, { nl: 2, nt: 'nothing to see' }, { nl: 3, nt: 'nested again, nested twice' }],
      [{ nl: 4, nt: 'plain words' }],
      [{ nl: 5, nt: 'one more nested value' }],
    ];
    for (let i = 0; i < docs.length; i++) {
      await client.putRow({ tableName: nt, condition: condition('IGNORE'), primaryKey: [{ id: Long.fromNumber(i) }],
        attributeColumns: [{ n: JSON.stringify(docs[i]) }] });
    }
    await client.createSearchIndex({ tableName: nt, indexName: 'ix', schema: { fieldSchemas: [
      { fieldName: 'n', fieldType: FT.NESTED, fieldSchemas: [
        { fieldName: 'nl', fieldType: FT.LONG, index: true, enableSortAndAgg: true },
        { fieldName: 'nt', fieldType: FT.TEXT, index: true, enableHighlighting: true },
      ] },
    ] } });
    await waitCount(client, nt, 'ix', docs.length);
    const nestedQ = (highlight, path = 'n', query = Q.match('n.nt', 'nested')) => ({
      queryType: QT.NESTED_QUERY,
      query: { path, query, scoreMode: TableStore.ScoreMode.SCORE_MODE_AVG, innerHits: { offset: 0, limit: 10, highlight } },
    });
    const highlight = { highlightEncoder: HE.PLAIN_MODE, highlightParameters: [{
      fieldName: 'n.nt', numberOfFragments: 1, fragmentSize: 100, preTag: '<b>', postTag: '</b>', fragmentsOrder: HFO.TEXT_SEQUENCE }] };
    const r = await client.search({ tableName: nt, indexName: 'ix', columnToGet: { returnType: RT.RETURN_NONE },
      searchQuery: { query: nestedQ(highlight), limit: 10, getTotalCount: true } });
    assert.equal(Number(r.totalCounts), 2);
    const got = new Map();
    r.rows.forEach((row, i) => {
      const inner = r.searchHits[i].searchInnerHits.get('n');
      assert.ok(!r.searchHits[i].highlightResultItem, 'the row itself has no highlight');
      got.set(idOf(row), inner.subSearchHits.map((h) => [h.nestedDocOffset ?? 0,
        h.highlightResultItem?.highlightFields.get('n.nt')?.fragments]));
    });
    assert.deepEqual(got.get(0), [
      [0, ['this is in <b>nested</b> 1']],
      [2, ['<b>nested</b> again, <b>nested</b> twice']],
    ]);
    assert.deepEqual(got.get(2), [[0, ['one more <b>nested</b> value']]]);
    // Each fragment is its sub-document's own text with the query's words marked.
    for (const [id, hits] of got) {
      for (const [offset, fragments] of hits) assert.equal(untag(fragments[0]), docs[id][offset].nt);
    }
    // Refusals: a top-level highlight cannot name a sub-field; an inner one only its own path's.
    await expectOtsError(client.search({ tableName: nt, indexName: 'ix', columnToGet: { returnType: RT.RETURN_NONE },
      searchQuery: { query: nestedQ(undefined), limit: 10, highlight } }),
    400, 'OTSParameterInvalid', 'through the InnerHits of a NestedQuery');
    const onLong = { highlightParameters: [{ fieldName: 'n.nl' }] };
    await expectOtsError(client.search({ tableName: nt, indexName: 'ix', columnToGet: { returnType: RT.RETURN_NONE },
      searchQuery: { query: nestedQ(onLong), limit: 10 } }), 400, 'OTSParameterInvalid', 'highlighting is not supported for field[n.nl]');
  });
});
