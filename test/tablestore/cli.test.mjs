// The command line of rule T13: `ttlstore alter -t mytable --ttl 86400 --version 1` and
// `ttlstore describe -t mytable` against a running server, checked through the SDK.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, it } from 'node:test';

import {
  ACCESS_KEY, SECRET, Server, TTLSTORE_BIN, TableStore, createTable, optionsOf, uniqueName,
} from './helpers.mjs';

function ttlstore(args, env = {}) {
  return new Promise((resolve) => {
    execFile(TTLSTORE_BIN, args, { env: { ...process.env, ...env }, timeout: 30000 },
      (error, stdout, stderr) => resolve({ code: error ? error.code : 0, stdout, stderr }));
  });
}

describe('ttlstore alter / describe (T13)', () => {
  let server;
  let client;
  let keys;

  before(async () => {
    server = await Server.start();
    client = server.client();
    keys = ['--endpoint', server.endpoint, '--access-key-id', ACCESS_KEY, '--access-key-secret', SECRET];
  });

  after(async () => {
    await server?.stop({ removeDir: true });
  });

  it('alter sets TTL to one day and max versions to 1, as the seed example', async () => {
    const name = uniqueName('cli');
    await createTable(client, name, { timeToLive: -1, maxVersions: 5 });
    const r = await ttlstore(['alter', '-t', name, '--ttl', '86400', '--version', '1', ...keys]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /time_to_live: 86400 seconds/);
    assert.match(r.stdout, /max_versions: 1/);
    const opts = optionsOf((await client.describeTable({ tableName: name })).tableOptions);
    assert.equal(opts.timeToLive, 86400);
    assert.equal(opts.maxVersions, 1);
  });

  it('alter changes deviation and allow-update, leaving the rest alone', async () => {
    const name = uniqueName('cli');
    await createTable(client, name, { timeToLive: 172800, maxVersions: 3 });
    const r = await ttlstore(['alter', '-t', name, '--deviation', '3600', '--allow-update', 'false', ...keys]);
    assert.equal(r.code, 0, r.stderr);
    const opts = optionsOf((await client.describeTable({ tableName: name })).tableOptions);
    assert.equal(opts.timeToLive, 172800);
    assert.equal(opts.maxVersions, 3);
    assert.equal(opts.deviationCellVersionInSec, 3600);
    assert.equal(opts.allowUpdate, false);
  });

  it('describe prints the primary key and the options', async () => {
    const name = uniqueName('cli');
    await createTable(client, name, { pk: [['gid', 'INTEGER'], ['uid', 'STRING']], timeToLive: -1, maxVersions: 2 });
    const r = await ttlstore(['describe', '-t', name, ...keys]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`table: ${name}`));
    assert.match(r.stdout, /primary key: gid \(INTEGER\) uid \(STRING\)/);
    assert.match(r.stdout, /time_to_live: -1 \(never expires\)/);
    assert.match(r.stdout, /max_versions: 2/);
    assert.match(r.stdout, /allow_update: true/);
  });

  it('describe shows and alter --search-index changes a search index TTL (T11, T13)', async () => {
    const name = uniqueName('cli');
    await createTable(client, name, { timeToLive: -1, maxVersions: 1 });
    await client.updateTable({ tableName: name, tableOptions: { allowUpdate: false } });
    await client.createSearchIndex({ tableName: name, indexName: 'six', timeToLive: 172800,
      schema: { fieldSchemas: [{ fieldName: 'k', fieldType: TableStore.FieldType.KEYWORD }],
        indexSetting: { routingFields: ['pk'] } } });
    let r = await ttlstore(['describe', '-t', name, ...keys]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /search index: six time_to_live: 172800 seconds \((building|ready), \d+ rows\) fields: k routing_fields: pk\n/);
    r = await ttlstore(['alter', '-t', name, '--search-index', 'six', '--ttl', '86400', ...keys]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /search index: six time_to_live: 86400 seconds/);
    const d = await client.describeSearchIndex({ tableName: name, indexName: 'six' });
    assert.equal(d.timeToLive, 86400);
    await ttlstore(['alter', '-t', name, '--ttl', '86400', ...keys]);
    r = await ttlstore(['alter', '-t', name, '--search-index', 'six', '--ttl', '172800', ...keys]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /OTSParameterInvalid \(HTTP 400\): \[table ttl\] must be bigger than or equal search index ttl/);
    r = await ttlstore(['alter', '-t', name, '--search-index', 'six', '--version', '1', ...keys]);
    assert.equal(r.code, 2);
  });

  it('errors are the service codes and exit 1; credentials come from the environment', async () => {
    const name = uniqueName('cli');
    await createTable(client, name);
    let r = await ttlstore(['alter', '-t', name, '--ttl', '0', ...keys]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /OTSParameterInvalid \(HTTP 400\): TimeToLive cannot be 0 or less than -1\./);
    r = await ttlstore(['describe', '-t', uniqueName('missing'), ...keys]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /OTSObjectNotExist \(HTTP 404\)/);
    r = await ttlstore(['describe', '-t', name, '--endpoint', server.endpoint],
      { TTLSTORE_ACCESS_KEY_ID: ACCESS_KEY, TTLSTORE_ACCESS_KEY_SECRET: 'wrong' });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /OTSAuthFailed \(HTTP 403\): Signature mismatch\./);
    r = await ttlstore(['describe', '-t', name, '--endpoint', server.endpoint],
      { TTLSTORE_ACCESS_KEY_ID: ACCESS_KEY, TTLSTORE_ACCESS_KEY_SECRET: SECRET });
    assert.equal(r.code, 0, r.stderr);
    r = await ttlstore(['alter', '-t', name, ...keys]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /nothing to change/);
  });
});
