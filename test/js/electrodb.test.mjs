// ElectroDB, unchanged, against a fresh ttlstore: entities with composite keys in one table
// (single-table design), put/create/get/query/update/patch/delete, a GSI shared by two entities
// as a Service collection, and a TTL attribute that ttlstore's sweeper honours.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import {
  CreateTableCommand, GetItemCommand, UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { Entity, Service } from 'electrodb';

import { Server, epochSeconds, rejection, waitFor } from './helpers.mjs';

const TABLE = 'electro';

let server;
let client;
let Task;
let Note;
let TaskApp;

before(async () => {
  server = await Server.start();
  client = server.client();
  // ElectroDB does not create tables: the usual single-table layout, made with the SDK.
  await client.send(new CreateTableCommand({
    TableName: TABLE,
    AttributeDefinitions: ['pk', 'sk', 'gsi1pk', 'gsi1sk'].map((AttributeName) => ({ AttributeName, AttributeType: 'S' })),
    KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }, { AttributeName: 'sk', KeyType: 'RANGE' }],
    GlobalSecondaryIndexes: [{
      IndexName: 'gsi1pk-gsi1sk-index',
      KeySchema: [{ AttributeName: 'gsi1pk', KeyType: 'HASH' }, { AttributeName: 'gsi1sk', KeyType: 'RANGE' }],
      Projection: { ProjectionType: 'ALL' },
    }],
    BillingMode: 'PAY_PER_REQUEST',
  }));
  await client.send(new UpdateTimeToLiveCommand({
    TableName: TABLE, TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
  }));

  const config = { client, table: TABLE };
  Task = new Entity({
    model: { entity: 'task', version: '1', service: 'taskapp' },
    attributes: {
      project: { type: 'string', required: true },
      taskId: { type: 'string', required: true },
      employee: { type: 'string', required: true },
      title: { type: 'string', required: true },
      status: { type: ['open', 'in-progress', 'done'], default: 'open' },
      points: { type: 'number', default: 0 },
      labels: { type: 'set', items: 'string' },
      expiresAt: { type: 'number' }, // epoch seconds: the table's TTL attribute
    },
    indexes: {
      byProject: {
        pk: { field: 'pk', composite: ['project'] },
        sk: { field: 'sk', composite: ['taskId'] },
      },
      byEmployee: {
        index: 'gsi1pk-gsi1sk-index',
        collection: 'assignments',
        pk: { field: 'gsi1pk', composite: ['employee'] },
        sk: { field: 'gsi1sk', composite: ['status', 'taskId'] },
      },
    },
  }, config);
  Note = new Entity({
    model: { entity: 'note', version: '1', service: 'taskapp' },
    attributes: {
      employee: { type: 'string', required: true },
      noteId: { type: 'string', required: true },
      text: { type: 'string' },
    },
    indexes: {
      primary: {
        pk: { field: 'pk', composite: ['employee'] },
        sk: { field: 'sk', composite: ['noteId'] },
      },
      byEmployee: {
        index: 'gsi1pk-gsi1sk-index',
        collection: 'assignments',
        pk: { field: 'gsi1pk', composite: ['employee'] },
        sk: { field: 'gsi1sk', composite: ['noteId'] },
      },
    },
  }, config);
  TaskApp = new Service({ task: Task, note: Note }, config);
});

after(async () => {
  client?.destroy();
  await server?.stop();
});

describe('ElectroDB', () => {
  test('put, get, query by composite key, update, patch, delete', async () => {
    const put = await Task.put({
      project: 'ttlstore', taskId: 't1', employee: 'ada', title: 'write the sweeper', labels: ['ttl'],
    }).go();
    assert.equal(put.data.status, 'open');
    await Task.create({ project: 'ttlstore', taskId: 't2', employee: 'ada', title: 'write docs', points: 2 }).go();
    await Task.create({ project: 'ttlstore', taskId: 't3', employee: 'bob', title: 'benchmarks', points: 5 }).go();
    await Task.create({ project: 'other', taskId: 't1', employee: 'bob', title: 'elsewhere' }).go();

    // The keys ElectroDB built, as stored.
    const raw = await client.send(new GetItemCommand({
      TableName: TABLE, Key: { pk: { S: '$taskapp#project_ttlstore' }, sk: { S: '$task_1#taskid_t1' } },
    }));
    assert.ok(raw.Item, 'stored under the composite key ElectroDB builds');
    assert.equal(raw.Item.gsi1pk.S, '$taskapp#employee_ada');

    const got = await Task.get({ project: 'ttlstore', taskId: 't1' }).go();
    assert.equal(got.data.title, 'write the sweeper');
    assert.deepEqual(got.data.labels, ['ttl']);
    assert.equal((await Task.get({ project: 'ttlstore', taskId: 'nope' }).go()).data, null);

    // create refuses an existing key (attribute_not_exists under the hood).
    const dup = await rejection(Task.create({ project: 'ttlstore', taskId: 't1', employee: 'x', title: 'dup' }).go());
    assert.match(dup.message, /conditional request failed/i);

    const inProject = await Task.query.byProject({ project: 'ttlstore' }).go();
    assert.deepEqual(inProject.data.map((t) => t.taskId), ['t1', 't2', 't3']);
    const later = await Task.query.byProject({ project: 'ttlstore' }).gt({ taskId: 't1' }).go();
    assert.deepEqual(later.data.map((t) => t.taskId), ['t2', 't3']);
    const filtered = await Task.query.byProject({ project: 'ttlstore' })
      .where(({ points }, { gte }) => gte(points, 2)).go();
    assert.deepEqual(filtered.data.map((t) => t.taskId), ['t2', 't3']);

    // Paging with ElectroDB's cursor.
    const first = await Task.query.byProject({ project: 'ttlstore' }).go({ limit: 2 });
    assert.equal(first.data.length, 2);
    assert.ok(first.cursor);
    const second = await Task.query.byProject({ project: 'ttlstore' }).go({ cursor: first.cursor, limit: 2 });
    assert.deepEqual(second.data.map((t) => t.taskId), ['t3']);

    const updated = await Task.update({ project: 'ttlstore', taskId: 't1' })
      .set({ status: 'in-progress' }).add({ points: 3, labels: ['core'] })
      .go({ response: 'all_new' });
    assert.equal(updated.data.status, 'in-progress');
    assert.equal(updated.data.points, 3);
    assert.deepEqual(updated.data.labels.sort(), ['core', 'ttl']);

    // The GSI key moved with the status (ElectroDB rewrites gsi1sk on update).
    const adaOpen = await Task.query.byEmployee({ employee: 'ada', status: 'open' }).go();
    assert.deepEqual(adaOpen.data.map((t) => t.taskId), ['t2']);

    // patch requires the item to exist.
    const missing = await rejection(Task.patch({ project: 'ttlstore', taskId: 'ghost' }).set({ points: 1 }).go());
    assert.match(missing.message, /conditional request failed/i);

    await Task.delete({ project: 'ttlstore', taskId: 't2' }).go();
    assert.equal((await Task.get({ project: 'ttlstore', taskId: 't2' }).go()).data, null);
    const remove = await rejection(Task.remove({ project: 'ttlstore', taskId: 't2' }).go());
    assert.match(remove.message, /conditional request failed/i);
  });

  test('upsert, scan and a response projection', async () => {
    const key = { project: 'ups', taskId: 'u1' };
    const first = await Task.upsert({ ...key, employee: 'gil', title: 'first' }).go({ response: 'all_new' });
    assert.equal(first.data.title, 'first');
    assert.equal(first.data.status, 'open');
    const second = await Task.upsert({ ...key, employee: 'gil', title: 'second' }).add({ points: 4 }).go({ response: 'all_new' });
    assert.equal(second.data.title, 'second');
    assert.equal(second.data.points, 4);

    const scanned = await Task.scan.where(({ employee }, { eq }) => eq(employee, 'gil')).go();
    assert.deepEqual(scanned.data.map((t) => t.taskId), ['u1']);
    const slim = await Task.get(key).go({ attributes: ['title', 'points'] });
    assert.deepEqual(slim.data, { title: 'second', points: 4 });
  });

  test('a collection reads two entities from one GSI partition', async () => {
    await Task.create({ project: 'p', taskId: 'c1', employee: 'cy', title: 'a' }).go();
    await Task.create({ project: 'q', taskId: 'c2', employee: 'cy', title: 'b', status: 'done' }).go();
    await Note.create({ employee: 'cy', noteId: 'n1', text: 'remember the milk' }).go();
    await Note.create({ employee: 'dee', noteId: 'n2', text: 'not cy' }).go();

    const { data } = await TaskApp.collections.assignments({ employee: 'cy' }).go();
    assert.deepEqual(data.task.map((t) => t.taskId).sort(), ['c1', 'c2']);
    assert.deepEqual(data.note.map((n) => n.text), ['remember the milk']);
  });

  test('batch put and get, and a cancelled transaction with its reasons', async () => {
    const tasks = Array.from({ length: 30 }, (_, i) => ({
      project: 'batch', taskId: `b${String(i).padStart(2, '0')}`, employee: 'fay', title: `task ${i}`,
    }));
    const put = await Task.put(tasks).go();
    assert.deepEqual(put.unprocessed, []);
    const got = await Task.get([{ project: 'batch', taskId: 'b03' }, { project: 'batch', taskId: 'b29' },
      { project: 'batch', taskId: 'none' }]).go();
    assert.deepEqual(got.data.map((t) => t.title).sort(), ['task 29', 'task 3']);
    assert.deepEqual(got.unprocessed, []);

    // The second write's condition fails: nothing is written, and ElectroDB reports why per item.
    const tx = await TaskApp.transaction.write(({ task, note }) => [
      note.create({ employee: 'fay', noteId: 'tx1', text: 'should not appear' }).commit(),
      task.patch({ project: 'batch', taskId: 'b00' }).set({ title: 'x' })
        .where(({ points }, { gt }) => gt(points, 100)).commit(),
    ]).go();
    assert.equal(tx.canceled, true);
    assert.deepEqual(tx.data.map((r) => [r.rejected, r.code]), [[false, 'None'], [true, 'ConditionalCheckFailed']]);
    assert.equal((await Note.get({ employee: 'fay', noteId: 'tx1' }).go()).data, null);

    const ok = await TaskApp.transaction.write(({ task, note }) => [
      note.create({ employee: 'fay', noteId: 'tx1', text: 'written' }).commit(),
      task.patch({ project: 'batch', taskId: 'b00' }).set({ title: 'renamed' }).commit(),
    ]).go();
    assert.equal(ok.canceled, false);
    assert.equal((await Note.get({ employee: 'fay', noteId: 'tx1' }).go()).data.text, 'written');
    assert.equal((await Task.get({ project: 'batch', taskId: 'b00' }).go()).data.title, 'renamed');
  });

  test('a TTL attribute: the item is gone after its expiry', async () => {
    const key = { project: 'ttl', taskId: 'soon' };
    await Task.put({ ...key, employee: 'eve', title: 'short-lived', expiresAt: epochSeconds(2) }).go();
    await Task.put({ project: 'ttl', taskId: 'later', employee: 'eve', title: 'stays', expiresAt: epochSeconds(3600) }).go();
    assert.ok((await Task.get(key).go()).data, 'there before it expires');
    await waitFor('the expired task to be deleted', async () => (await Task.get(key).go()).data === null,
      { timeoutMs: 8000, intervalMs: 200 });
    const left = await Task.query.byProject({ project: 'ttl' }).go();
    assert.deepEqual(left.data.map((t) => t.taskId), ['later']);
    // Its GSI entry went with it.
    const eve = await Task.query.byEmployee({ employee: 'eve' }).go();
    assert.deepEqual(eve.data.map((t) => t.taskId), ['later']);
  });
});
