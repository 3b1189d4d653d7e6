// Requests as each official Tablestore SDK puts them on the wire, for what the Node SDK cannot
// send: protobuf bodies encoded from ttlstore's own message definitions (src/tablestore/*.proto,
// whose field numbers are the SDKs'), rows in PlainBuffer through the Node SDK's own encoder and
// decoder, and the headers spelled, dated and signed the way the Go, Java, Python and Node SDKs
// do it (docs/tablestore.md, "What each SDK sends"). Responses can be checked as the Java and
// Python SDKs check them.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import protobuf from 'protobufjs';

import { ACCESS_KEY, INSTANCE, SECRET, TableStore, hmacSha1Base64, md5Base64, rawHttp,
  decodeOtsError } from './helpers.mjs';

const require = createRequire(import.meta.url);
const HERE = path.dirname(fileURLToPath(import.meta.url));
const PROTO_DIR = path.resolve(HERE, '../../src/tablestore');
const root = protobuf.loadSync([path.join(PROTO_DIR, 'tablestore.proto'),
  path.join(PROTO_DIR, 'search.proto')]);

function lookup(name) {
  return root.lookupType(name.includes('.') ? `ttlstore.${name}` : `ttlstore.otspb.${name}`);
}

// The bytes of message `name` (e.g. 'PutRowRequest', 'otssearchpb.SearchRequest') holding `obj`
// (field names in camelCase, as protobufjs names them). `verify: false` lets a test send what
// the message does not allow, e.g. an enum value it does not list.
export function encode(name, obj, { verify = true } = {}) {
  const type = lookup(name);
  const problem = verify ? type.verify(obj) : null;
  if (problem) throw new Error(`${name}: ${problem}`);
  return Buffer.from(type.encode(type.create(obj)).finish());
}

// Message `name` decoded from `buf`, as a plain object (int64 as strings, bytes as Buffers;
// `options` are protobufjs toObject's, e.g. { longs: Number, arrays: true }).
export function decode(name, buf, options = {}) {
  const type = lookup(name);
  return type.toObject(type.decode(buf), { longs: String, bytes: Buffer, defaults: false, ...options });
}

// PlainBuffer, through the Node SDK's encoder: `pk` is [{ name: value }, ...] as the SDK takes it.
export const pbKey = (pk) => Buffer.from(TableStore.PlainBufferBuilder.serializePrimaryKey(pk));
export const pbPutRow = (pk, cols) =>
  Buffer.from(TableStore.PlainBufferBuilder.serializeForPutRow(pk, cols));
export const pbUpdateRow = (pk, changes) =>
  Buffer.from(TableStore.PlainBufferBuilder.serializeForUpdateRow(pk, changes));

// A PlainBuffer row read by the Node SDK's decoder: { primaryKey, attributes }.
export function readRow(buf) {
  const input = new TableStore.PlainBufferInputStream(buf);
  return new TableStore.PlainBufferCodedInputStream(input).readRow();
}

// ------------------------------------------------------------------------------------------------
// Headers as each SDK writes them
// ------------------------------------------------------------------------------------------------

const pad = (n, w = 2) => String(n).padStart(w, '0');

// x-ots-date as each SDK formats the current UTC time.
export function sdkDate(style, d = new Date()) {
  const base = `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T` +
    `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
  switch (style) {
    // Go formats with the layout "2006-01-02T15:04:05.123Z" (tablestore/util.go): in Go's
    // reference time "1" is the month, "2" the day and "3" the 12-hour clock's hour, each
    // without padding, so the "fraction" is those three numbers run together.
    case 'go': {
      const h12 = d.getUTCHours() % 12 === 0 ? 12 : d.getUTCHours() % 12;
      return `${base}.${d.getUTCMonth() + 1}${d.getUTCDate()}${h12}Z`;
    }
    case 'python': return `${base}.000Z`;  // strftime('%Y-%m-%dT%H:%M:%S.000Z')
    case 'java': return `${base}.${pad(d.getUTCMilliseconds(), 3)}Z`;  // yyyy-MM-dd'T'HH:mm:ss.SSS'Z'
    default: return d.toISOString();  // Node
  }
}

// The name of each x-ots-* header as an SDK spells it on the wire. Go's net/http writes
// canonical MIME names (X-Ots-Date); the others send the lower-case names they set.
function spell(style, name) {
  if (style === 'go') return name.split('-').map((w) => w[0].toUpperCase() + w.slice(1)).join('-');
  if (style === 'upper') return name.toUpperCase();
  return name;
}

const USER_AGENT = {
  go: 'aliyun-tablestore-sdk-golang/4.1.x',
  python: 'aliyun-tablestore-sdk-python/6.1.0(x86_64/Linux/Python-3.11)',
  java: 'aliyun-tablestore-sdk-java/5.17.7(JavaVM/17)',
};

// POST /<action> with `body`, headered, dated and signed as SDK `style` does it
// ('node' | 'go' | 'java' | 'python' | 'upper'). The V2 signature is the same in all SDKs:
// HMAC-SHA1 over "/Action\nPOST\n\n" and the x-ots-* headers by lower-case name.
// `v4: { date, region }` signs as the Java SDK does with a region credential
// (V4SignatureMaker): x-ots-signdate and x-ots-signregion are added and signed, and
// x-ots-signaturev4 is the HMAC-SHA256 under v4SigningKey of the same text salted with "ots".
export async function sdkPost(port, action, body = Buffer.alloc(0), {
  style = 'node', accessKeyId = ACCESS_KEY, secret = SECRET, extra = {}, v4,
} = {}) {
  const ots = {
    'x-ots-date': sdkDate(style),
    'x-ots-apiversion': '2015-12-31',
    'x-ots-accesskeyid': accessKeyId,
    'x-ots-instancename': INSTANCE,
    'x-ots-contentmd5': md5Base64(body),
    ...(v4 ? { 'x-ots-signdate': v4.date, 'x-ots-signregion': v4.region } : {}),
    ...extra,
  };
  const lines = Object.keys(ots).sort().map((k) => `${k}:${String(ots[k]).trim()}\n`).join('');
  if (v4) {
    ots['x-ots-signaturev4'] = crypto.createHmac('sha256', v4SigningKey(secret, v4.date, v4.region))
      .update(`/${action}\nPOST\n\n${lines}ots`, 'utf8').digest('base64');
  } else {
    ots['x-ots-signature'] = hmacSha1Base64(secret, `/${action}\nPOST\n\n${lines}`);
  }
  const headers = {};
  for (const [k, v] of Object.entries(ots)) headers[spell(style, k)] = v;
  if (USER_AGENT[style]) headers['User-Agent'] = USER_AGENT[style];
  if (style === 'go') headers['Accept-Encoding'] = 'gzip';
  headers['Content-Length'] = String(body.length);
  return rawHttp({ port, method: 'POST', path: `/${action}`, headers, body });
}

// The V4 signing key: base64 of HMAC-SHA256 chained over the date (yyyyMMdd, UTC), the region,
// "ots" and "aliyun_v4_request" from the key "aliyun_v4" + secret (the Java SDK's
// CalculateV4SigningKeyUtil). It also stands in for the secret in the response's signature.
export function v4SigningKey(secret, date, region) {
  let key = Buffer.from(`aliyun_v4${secret}`, 'utf8');
  for (const part of [date, region, 'ots', 'aliyun_v4_request']) {
    key = crypto.createHmac('sha256', key).update(part, 'utf8').digest();
  }
  return key.toString('base64');
}

// Checks a response the way the Python SDK (6.1.0, protocol.py) and the Java SDK (5.17,
// response validation on by default) check a 2xx one: the four x-ots-* headers present, the
// body's MD5, the date parseable with microseconds and within 15 minutes, and `authorization`
// the HMAC-SHA1 of the sorted x-ots-* response headers and "/Action" under the caller's secret.
export function checkSignedResponse(res, action, { accessKeyId = ACCESS_KEY, secret = SECRET } = {}) {
  for (const h of ['x-ots-contentmd5', 'x-ots-requestid', 'x-ots-date', 'x-ots-contenttype']) {
    assert.ok(res.headers[h], `${h} is missing in response header`);
  }
  assert.equal(res.headers['x-ots-contentmd5'], md5Base64(res.body), 'MD5 of the response body');
  assert.match(res.headers['x-ots-date'], /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{1,6}Z$/);
  assert.ok(Math.abs(Date.parse(res.headers['x-ots-date']) - Date.now()) < 15 * 60 * 1000);
  const auth = res.headers.authorization;
  assert.ok(auth?.startsWith('OTS '), `authorization: ${auth}`);
  const [id, signature] = auth.slice(4).split(':');
  assert.equal(id, accessKeyId);
  const lines = Object.keys(res.headers).filter((k) => k.startsWith('x-ots-')).sort()
    .map((k) => `${k}:${res.headers[k].trim()}\n`).join('');
  assert.equal(signature, hmacSha1Base64(secret, `${lines}/${action}`), 'response signature');
}

// The protobuf Error of a non-2xx response, with its status: { status, code, message }.
export function errorOf(res) {
  return { status: res.status, ...decodeOtsError(res.body) };
}

// <Action>Request `message` sent as the SDKs send it; the <Action>Response decoded as the Go SDK
// decodes it ({ status: 200, body }: fields absent on the wire stay absent, repeated fields are
// [] when empty), or the Error of any other status ({ status, error: { code, message } }).
export async function rawCall(port, action, message) {
  const res = await sdkPost(port, action, encode(`${action}Request`, message));
  if (res.status !== 200) return { status: res.status, error: decodeOtsError(res.body) };
  return { status: 200, body: decode(`${action}Response`, res.body, { longs: Number, arrays: true }) };
}

// A CreateTableRequest with one STRING key column `pk`, and what else `extra` sets
// (tableOptions, streamSpec).
export function createTableMessage(tableName, extra = {}) {
  return {
    tableMeta: { tableName, primaryKey: [{ name: 'pk', type: 2 }] },
    reservedThroughput: { capacityUnit: { read: 0, write: 0 } },
    tableOptions: { timeToLive: -1, maxVersions: 1, ...(extra.tableOptions ?? {}) },
    ...(extra.streamSpec ? { streamSpec: extra.streamSpec } : {}),
  };
}

// Awaits a rawCall and checks its error (`message` a string or a RegExp).
export async function expectRawError(promise, status, code, message) {
  const res = await promise;
  assert.equal(res.status, status, `status of ${JSON.stringify(res.error ?? res.body)}`);
  assert.equal(res.error.code, code);
  if (message instanceof RegExp) assert.match(res.error.message, message);
  else assert.equal(res.error.message, message);
}

// Lets the Node SDK send BatchWriteRowRequest.is_atomic (field 3, which its 5.6 protocol lacks):
// `client.batchWriteRow({ tables, isAtomic: true })` then still goes through the SDK's pipeline
// (encoder, signing, HTTP, decoder), its encoded request with field 3 appended as the Go and
// Java SDKs' encoders put it. Idempotent; affects this process's SDK.
let isAtomicInstalled = false;
export function sdkSendsIsAtomic() {
  if (isAtomicInstalled) return;
  isAtomicInstalled = true;
  const tsProtos = require('tablestore/lib/protocol/tablestore_compiled_proto.js').main.proto;
  // The SDK's client.js encodes `Object.getPrototypeOf(request).constructor.encode(request)`.
  class AtomicBatchWriteRow {
    constructor(message) { this.message = message; }
    static encode(request) {
      return tsProtos.BatchWriteRowRequest.encode(request.message).uint32((3 << 3) | 0).bool(true);
    }
  }
  const encodeRequest = TableStore.encoder.encode;
  TableStore.encoder.encode = function (operation, params) {
    const message = encodeRequest.call(this, operation, params);
    if (operation !== 'batchWriteRow' || !params.isAtomic) return message;
    return new AtomicBatchWriteRow(message);
  };
}
