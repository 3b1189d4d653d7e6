// dynamoose, unchanged, against a fresh ttlstore: the getting-started flow (a model, a table it
// creates, save/get/update/query/scan/delete, batches, a transaction) and its TTL support, the
// `expires` table setting: the attribute is written in epoch seconds, dynamoose enables TTL on
// the table it creates, ttlstore's sweeper deletes the item, and `returnExpired: false` hides an
// expired item that is still stored.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

// helpers.mjs first: dynamoose makes a default client as it loads, and helpers sets the
// environment that client reads.
import { CREDENTIALS, REGION, Server, epochSeconds, rejection, waitFor } from './helpers.mjs';

import dynamoose from 'dynamoose';
import {
  CreateTableCommand, DescribeTableCommand, DescribeTimeToLiveCommand, GetItemCommand, PutItemCommand,
} from '@aws-sdk/client-dynamodb';

let server;
let client;

// Table settings for every dynamoose table here: on-demand, and a quick readiness poll.
const TABLE_SETTINGS = {
  throughput: 'ON_DEMAND',
  initialize: false,
  waitForActive: { enabled: true, check: { timeout: 10000, frequency: 100 } },
};

before(async () => {
  server = await Server.start();
  client = server.client();
  dynamoose.aws.ddb.set(new dynamoose.aws.ddb.DynamoDB({
    endpoint: server.endpoint, region: REGION, credentials: CREDENTIALS, maxAttempts: 1,
  }));
});

after(async () => {
  client?.destroy();
  await server?.stop();
});

describe('dynamoose', () => {
  test('getting started: model, table, save, get, update, query, scan, delete', async () => {
    const Cat = dynamoose.model('Cat', new dynamoose.Schema({
      id: Number,
      name: { type: String, index: { name: 'nameIndex', type: 'global' } },
      owner: String,
      lives: { type: Number, default: 9 },
      toys: { type: Set, schema: [String] },
      born: Date,
    }, { saveUnknown: false }));
    const table = new dynamoose.Table('Cats', [Cat], TABLE_SETTINGS);
    await table.initialize();

    const { Table } = await client.send(new DescribeTableCommand({ TableName: 'Cats' }));
    assert.equal(Table.TableStatus, 'ACTIVE');
    assert.deepEqual(Table.KeySchema, [{ AttributeName: 'id', KeyType: 'HASH' }]);
    assert.deepEqual(Table.GlobalSecondaryIndexes.map((i) => i.IndexName), ['nameIndex']);

    const born = new Date('2020-02-29T12:00:00Z');
    const garfield = new Cat({ id: 666, name: 'Garfield', owner: 'Jon', toys: new Set(['lasagna']), born });
    await garfield.save();
    await Cat.create({ id: 667, name: 'Nermal', owner: 'Jon' });

    // Stored as DynamoDB types: Date as epoch milliseconds, Set as SS, the default applied.
    const raw = await client.send(new GetItemCommand({ TableName: 'Cats', Key: { id: { N: '666' } } }));
    assert.deepEqual(raw.Item.born, { N: String(born.getTime()) });
    assert.deepEqual(raw.Item.toys, { SS: ['lasagna'] });
    assert.deepEqual(raw.Item.lives, { N: '9' });

    const got = await Cat.get(666);
    assert.equal(got.name, 'Garfield');
    assert.ok(got.born instanceof Date);
    assert.equal(got.born.getTime(), born.getTime());
    assert.deepEqual(got.toys, new Set(['lasagna']));

    // A second create of the same key fails: dynamoose's create uses attribute_not_exists.
    const dup = await rejection(Cat.create({ id: 666, name: 'Impostor' }));
    assert.equal(dup.name, 'ConditionalCheckFailedException');

    const updated = await Cat.update({ id: 666 }, { $SET: { owner: 'Liz' }, $ADD: { lives: -1, toys: ['ball'] } });
    assert.equal(updated.owner, 'Liz');
    assert.equal(updated.lives, 8);
    assert.deepEqual(updated.toys, new Set(['lasagna', 'ball']));

    const byName = await Cat.query('name').eq('Nermal').exec();
    assert.deepEqual(byName.map((c) => c.id), [667]);
    assert.equal(byName.count, 1);

    const jons = await Cat.scan('owner').eq('Jon').exec();
    assert.deepEqual(jons.map((c) => c.id), [667]);
    const all = await Cat.scan().all().exec();
    assert.deepEqual(all.map((c) => c.id).sort(), [666, 667]);

    await Cat.batchPut([{ id: 1, name: 'Tom' }, { id: 2, name: 'Felix' }]);
    const batch = await Cat.batchGet([{ id: 1 }, { id: 2 }, { id: 3 }]);
    assert.deepEqual(batch.map((c) => c.name).sort(), ['Felix', 'Tom']);
    assert.deepEqual(batch.unprocessedKeys, []);

    await garfield.delete();
    assert.equal(await Cat.get(666), undefined);
    await Cat.delete(667);
    assert.equal(await Cat.get(667), undefined);
  });

  test('query pages with limit, lastKey and startAt; counts', async () => {
    const Event = dynamoose.model('Event', new dynamoose.Schema({
      stream: { type: String, hashKey: true },
      seq: { type: Number, rangeKey: true },
      kind: String,
    }));
    await new dynamoose.Table('Events', [Event], TABLE_SETTINGS).initialize();
    await Event.batchPut(Array.from({ length: 10 }, (_, i) => ({ stream: 's', seq: i, kind: i % 2 ? 'odd' : 'even' })));

    const seqs = [];
    let page = await Event.query('stream').eq('s').limit(4).exec();
    let pages = 1;
    seqs.push(...page.map((e) => e.seq));
    while (page.lastKey && pages < 10) {
      page = await Event.query('stream').eq('s').limit(4).startAt(page.lastKey).exec();
      pages += 1;
      seqs.push(...page.map((e) => e.seq));
    }
    assert.deepEqual(seqs, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    assert.ok(pages >= 3);

    const newestFirst = await Event.query('stream').eq('s').where('seq').gt(6).sort('descending').exec();
    assert.deepEqual(newestFirst.map((e) => e.seq), [9, 8, 7]);
    const odd = await Event.query('stream').eq('s').filter('kind').eq('odd').count().exec();
    assert.equal(odd.count, 5);
    const all = await Event.scan().count().exec();
    assert.equal(all.count, 10);
  });

  test('a transaction whose condition fails changes nothing', async () => {
    const Account = dynamoose.model('Account', { id: String, balance: Number });
    const table = new dynamoose.Table('Accounts', [Account], TABLE_SETTINGS);
    await table.initialize();
    await Account.create({ id: 'a', balance: 5 });
    await Account.create({ id: 'b', balance: 0 });

    const err = await rejection(dynamoose.transaction([
      Account.transaction.update({ id: 'a' }, { $ADD: { balance: -10 } }, {
        condition: new dynamoose.Condition('balance').ge(10),
      }),
      Account.transaction.update({ id: 'b' }, { $ADD: { balance: 10 } }),
    ]));
    assert.equal(err.name, 'TransactionCanceledException');
    assert.deepEqual(err.CancellationReasons.map((r) => r.Code), ['ConditionalCheckFailed', 'None']);
    assert.equal((await Account.get('a')).balance, 5);
    assert.equal((await Account.get('b')).balance, 0);

    await dynamoose.transaction([
      Account.transaction.update({ id: 'a' }, { $ADD: { balance: -5 } }),
      Account.transaction.update({ id: 'b' }, { $ADD: { balance: 5 } }),
    ]);
    assert.equal((await Account.get('a')).balance, 0);
    assert.equal((await Account.get('b')).balance, 5);
  });

  test('expires: TTL enabled on the table, attribute in epoch seconds, item deleted by the sweeper', async () => {
    const Session = dynamoose.model('Session', { id: String, user: String });
    const table = new dynamoose.Table('Sessions', [Session], {
      ...TABLE_SETTINGS,
      expires: { ttl: 2000, attribute: 'expiresAt' },
    });
    await table.initialize();

    // dynamoose enables TTL itself when it creates the table.
    const ttl = await client.send(new DescribeTimeToLiveCommand({ TableName: 'Sessions' }));
    assert.deepEqual(ttl.TimeToLiveDescription, { TimeToLiveStatus: 'ENABLED', AttributeName: 'expiresAt' });

    const lowerBound = epochSeconds(0);
    await Session.create({ id: 's1', user: 'ada' });
    const upperBound = epochSeconds(3);

    const raw = await client.send(new GetItemCommand({ TableName: 'Sessions', Key: { id: { S: 's1' } } }));
    const stored = Number(raw.Item.expiresAt.N);
    assert.ok(Number.isInteger(stored), `expiresAt ${raw.Item.expiresAt.N} is whole seconds`);
    assert.ok(stored >= lowerBound + 1 && stored <= upperBound,
      `expiresAt ${stored} is about two seconds after ${lowerBound}, in seconds`);

    const fresh = await Session.get('s1');
    assert.ok(fresh, 'readable before it expires');
    assert.ok(fresh.expiresAt instanceof Date);
    assert.equal(fresh.expiresAt.getTime(), stored * 1000);

    // Gone from the table itself, not only hidden: a raw read finds nothing.
    await waitFor('ttlstore to delete the expired session', async () => {
      const res = await client.send(new GetItemCommand({ TableName: 'Sessions', Key: { id: { S: 's1' } } }));
      return res.Item === undefined;
    }, { timeoutMs: 8000, intervalMs: 200 });
    assert.equal(await Session.get('s1'), undefined);
  });

  test('expires.items.returnExpired: false hides expired items that are still stored', async () => {
    // A table without TTL enabled, so that ttlstore keeps expired items (as DynamoDB does until
    // it gets to them) and only dynamoose's read-time filter decides what is returned.
    await client.send(new CreateTableCommand({
      TableName: 'Tokens',
      AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      BillingMode: 'PAY_PER_REQUEST',
    }));
    const put = (id, expiresAt) => client.send(new PutItemCommand({
      TableName: 'Tokens', Item: { id: { S: id }, expiresAt: { N: String(expiresAt) } },
    }));
    await put('old', epochSeconds(-60));
    await put('new', epochSeconds(3600));

    const Hidden = dynamoose.model('HiddenToken', { id: String });
    await new dynamoose.Table('Tokens', [Hidden], {
      ...TABLE_SETTINGS, create: false, expires: { attribute: 'expiresAt', items: { returnExpired: false } },
    }).initialize();
    assert.equal(await Hidden.get('old'), undefined);
    assert.equal((await Hidden.get('new')).id, 'new');
    assert.deepEqual((await Hidden.scan().exec()).map((t) => t.id), ['new']);
    assert.deepEqual((await Hidden.query('id').eq('old').exec()).map((t) => t.id), []);

    // The default (returnExpired: true) returns them.
    const Shown = dynamoose.model('ShownToken', { id: String });
    await new dynamoose.Table('Tokens', [Shown], {
      ...TABLE_SETTINGS, create: false, expires: { attribute: 'expiresAt' },
    }).initialize();
    assert.equal((await Shown.get('old')).id, 'old');
    assert.deepEqual((await Shown.scan().exec()).map((t) => t.id).sort(), ['new', 'old']);

    // create: false does not enable TTL: the table stays as it was made.
    const ttl = await client.send(new DescribeTimeToLiveCommand({ TableName: 'Tokens' }));
    assert.equal(ttl.TimeToLiveDescription.TimeToLiveStatus, 'DISABLED');
  });
});
