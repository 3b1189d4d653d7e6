// Request signatures, credentials file, response headers and signature, and HTTP-level errors
// (protocol notes sections 1 and 3).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import {
  ACCESS_KEY, OTHER_KEY, OTHER_SECRET, SECRET, Server, createTable, decodeOtsError,
  expectOtsError, hmacSha1Base64, md5Base64, rawHttp, signedPost, uniqueName,
} from './helpers.mjs';

describe('tablestore signatures and HTTP', () => {
  let server;

  before(async () => {
    server = await Server.start();
  });

  after(async () => {
    const code = await server?.stop({ removeDir: true });
    assert.equal(code, 0, 'ttlstore exit code after SIGTERM');
  });

  it('every key of the credentials file works', async () => {
    const name = uniqueName('auth');
    await createTable(server.client(), name);
    const names = (await server.client({ accessKeyId: OTHER_KEY, secret: OTHER_SECRET }).listTable({})).tableNames;
    assert.ok(names.includes(name));
  });

  it('a wrong secret is 403 OTSAuthFailed', async () => {
    const client = server.client({ accessKeyId: ACCESS_KEY, secret: 'notTheSecret' });
    await expectOtsError(client.listTable({}), 403, 'OTSAuthFailed');
    await expectOtsError(createTable(client, uniqueName('nope')), 403, 'OTSAuthFailed');
  });

  it("another key's secret is 403 OTSAuthFailed", async () => {
    const client = server.client({ accessKeyId: ACCESS_KEY, secret: OTHER_SECRET });
    await expectOtsError(client.listTable({}), 403, 'OTSAuthFailed');
  });

  it('an unknown access key is 403 OTSAuthFailed', async () => {
    const client = server.client({ accessKeyId: 'unknownKey', secret: SECRET });
    await expectOtsError(client.listTable({}), 403, 'OTSAuthFailed');
  });

  it('a refused write changes nothing', async () => {
    const name = uniqueName('authw');
    await createTable(server.client({ accessKeyId: ACCESS_KEY, secret: 'bad' }), name).catch(() => {});
    const names = (await server.client().listTable({})).tableNames;
    assert.ok(!names.includes(name));
  });

  it('a body that does not match x-ots-contentmd5 is 403 OTSAuthFailed', async () => {
    const res = await signedPost(server.port, 'ListTable', Buffer.alloc(0), { md5: md5Base64(Buffer.from('x')) });
    assert.equal(res.status, 403);
    assert.equal(decodeOtsError(res.body).code, 'OTSAuthFailed');
  });

  it('a signed ListTable answers 200 with the response headers the SDKs check, signed', async () => {
    const res = await signedPost(server.port, 'ListTable');
    assert.equal(res.status, 200);
    const h = res.headers;
    assert.ok(h['x-ots-requestid'], 'x-ots-requestid');
    assert.equal(h['x-ots-contentmd5'], md5Base64(res.body), 'x-ots-contentmd5 is the MD5 of the body');
    assert.equal(h['x-ots-contenttype'], 'protocol buffer');
    assert.match(h['x-ots-date'], /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z$/, 'x-ots-date with a fraction');
    assert.ok(Math.abs(Date.parse(h['x-ots-date']) - Date.now()) < 60000, 'x-ots-date is now');
    // authorization = "OTS <AccessKeyId>:" + HMAC-SHA1(secret, sorted "x-ots-*:value\n" + "/Action").
    const toSign = Object.keys(h).filter((k) => k.startsWith('x-ots-')).sort()
      .map((k) => `${k}:${h[k].trim()}\n`).join('') + '/ListTable';
    assert.equal(h.authorization, `OTS ${ACCESS_KEY}:${hmacSha1Base64(SECRET, toSign)}`);
  });

  it('an error response carries x-ots-requestid and a protobuf Error body', async () => {
    const res = await signedPost(server.port, 'DescribeTable',
                                 Buffer.concat([Buffer.from([0x0a, 5]), Buffer.from('nope_')]));
    assert.equal(res.status, 404);
    assert.ok(res.headers['x-ots-requestid'], 'x-ots-requestid on errors (Java needs it)');
    assert.equal(decodeOtsError(res.body).code, 'OTSObjectNotExist');
  });

  it('an unknown action (POST /Nope) is 400 OTSParameterInvalid', async () => {
    const res = await signedPost(server.port, 'Nope');
    assert.equal(res.status, 400);
    const err = decodeOtsError(res.body);
    assert.equal(err.code, 'OTSParameterInvalid');
    assert.ok(/Unsupported operation/i.test(err.message ?? ''), `message: ${err.message}`);
  });

  it('an unsigned POST /Nope is still refused (400 or 403)', async () => {
    const res = await rawHttp({ port: server.port, method: 'POST', path: '/Nope' });
    assert.ok(res.status === 400 || res.status === 403, `status ${res.status}`);
    assert.match(decodeOtsError(res.body).code, /^OTS(ParameterInvalid|AuthFailed)$/);
  });

  it('a request without the signature header is refused', async () => {
    const res = await rawHttp({
      port: server.port, method: 'POST', path: '/ListTable',
      headers: {
        'x-ots-date': new Date().toISOString(), 'x-ots-apiversion': '2015-12-31',
        'x-ots-accesskeyid': ACCESS_KEY, 'x-ots-instancename': 'i', 'x-ots-contentmd5': md5Base64(Buffer.alloc(0)),
      },
    });
    assert.ok(res.status === 400 || res.status === 403, `status ${res.status}`);
    assert.match(decodeOtsError(res.body).code, /^OTS(ParameterInvalid|AuthFailed)$/);
  });

  it('GET on an action path is 405 OTSMethodNotAllowed', async () => {
    const res = await rawHttp({ port: server.port, method: 'GET', path: '/ListTable' });
    assert.equal(res.status, 405);
    assert.equal(decodeOtsError(res.body).code, 'OTSMethodNotAllowed');
  });
});

describe('tablestore without a credentials file', () => {
  let server;

  before(async () => {
    server = await Server.start({ credentials: false });
  });

  after(async () => {
    await server?.stop({ removeDir: true });
  });

  it('any access key and secret are accepted', async () => {
    const name = uniqueName('open');
    await createTable(server.client({ accessKeyId: 'anyone', secret: 'whatever' }), name);
    const names = (await server.client({ accessKeyId: 'someoneElse', secret: 'x' }).listTable({})).tableNames;
    assert.ok(names.includes(name));
  });

  it('the content MD5 is still checked', async () => {
    const res = await signedPost(server.port, 'ListTable', Buffer.alloc(0), { md5: md5Base64(Buffer.from('y')) });
    assert.equal(res.status, 403);
    assert.equal(decodeOtsError(res.body).code, 'OTSAuthFailed');
  });
});
