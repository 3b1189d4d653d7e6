// Shared helpers for the Tablestore end-to-end tests (issue 6).
//
// Everything here talks to a real `ttlstore serve` child process on 127.0.0.1: starting it on a
// free port with a fresh data dir and a credentials file, stopping it by PID, building official
// SDK clients (npm `tablestore` 5.6.5, no retries), raw signed HTTP calls, and small assertion
// helpers for the shapes the SDK returns.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import TableStore from 'tablestore';

import { E2E_PG, pgStorageArgs } from '../pg_storage.mjs';

export { TableStore };
export const Long = TableStore.Long;

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const TTLSTORE_BIN = process.env.TTLSTORE_BIN
  ? path.resolve(process.env.TTLSTORE_BIN)
  : path.resolve(HERE, '../../build/ttlstore');

// TTLSTORE_E2E_PG: servers on the PostgreSQL backend (test/pg_storage.mjs).
export { E2E_PG, pgStorageArgs };

// The threads' stacks of a server that does not stop, when gdb is installed (it is not among the
// project's dependencies: on a machine without it this says so and the log tail stands alone).
function threadStacks(pid) {
  const r = spawnSync('gdb', ['-p', String(pid), '-batch', '-ex', 'thread apply all bt 30'],
                      { encoding: 'utf8', timeout: 60000 });
  if (r.error) return `(no thread stacks: ${r.error.message})`;
  if (!/^Thread/m.test(r.stdout)) return `(no thread stacks: ${(r.stdout + r.stderr).slice(-2000)})`;
  return `thread stacks:\n${r.stdout.split('\n').filter((l) => /^(Thread|#)/.test(l)).join('\n')}`;
}

export const ACCESS_KEY = 'testKey';
export const SECRET = 'testSecret';
export const OTHER_KEY = 'otherKey';
export const OTHER_SECRET = 'otherSecret';
export const INSTANCE = 'e2e-inst';

const STARTUP_TIMEOUT_MS = 15000;
const LISTENING_RE = /event=listening address=http:\/\/127\.0\.0\.1:(\d+)/;

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Children still running when this test process exits (a crash or an assertion in a hook) are
// killed by their own PID so that no server outlives the suite.
const liveChildren = new Set();
process.on('exit', () => {
  for (const child of liveChildren) {
    try { process.kill(child.pid, 'SIGKILL'); } catch { /* already gone */ }
  }
});

let nameCounter = 0;
// A table name no other test uses. Tablestore names are [A-Za-z_][A-Za-z0-9_]*.
export function uniqueName(prefix = 't') {
  nameCounter += 1;
  return `${prefix}_${process.pid}_${Date.now() % 100000}_${nameCounter}`;
}

export function makeTempDir(prefix = 'ttlstore-ts-') {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

// One `ttlstore serve` process. Use `await Server.start({...})`.
export class Server {
  constructor({ dataDir, root, credentials, extraArgs, ownsRoot }) {
    this.dataDir = dataDir;
    this.root = root;
    this.credentials = credentials;
    this.extraArgs = extraArgs;
    this.ownsRoot = ownsRoot;
    this.child = null;
    this.port = null;
    this.exitCode = undefined;
    this.spawnedAt = 0;   // Date.now() just before spawn
    this.readyAt = 0;     // Date.now() when GET /health first answered 200
  }

  // options:
  //   dataDir     reuse this data dir (restart tests); default: a fresh one in a fresh temp root
  //   credentials true (default) writes a credentials file with testKey/otherKey;
  //               false starts the server without --credentials
  //   args        extra flags, e.g. ['--tablestore-min-ttl', '1']
  static async start({ dataDir, credentials = true, args = [] } = {}) {
    const root = makeTempDir();
    let credFile = null;
    if (credentials) {
      credFile = path.join(root, 'credentials');
      fs.writeFileSync(credFile, [
        '# access key id, secret',
        `${ACCESS_KEY} ${SECRET}`,
        '',
        `${OTHER_KEY} ${OTHER_SECRET}`,
        '',
      ].join('\n'));
    }
    const srv = new Server({
      dataDir: dataDir ?? path.join(root, 'data'),
      root,
      credentials: credFile,
      extraArgs: args,
      ownsRoot: dataDir === undefined,
    });
    await srv._spawn();
    return srv;
  }

  get endpoint() {
    return `http://127.0.0.1:${this.port}`;
  }

  get logPath() {
    return path.join(this.root, 'ttlstore.log');
  }

  log() {
    try { return fs.readFileSync(this.logPath, 'utf8'); } catch { return ''; }
  }

  async _spawn() {
    if (!fs.existsSync(TTLSTORE_BIN)) {
      throw new Error(`ttlstore binary not found at ${TTLSTORE_BIN}; build it or set TTLSTORE_BIN`);
    }
    const args = ['serve', '--host', '127.0.0.1', '--port', '0', '--data-dir', this.dataDir,
      ...pgStorageArgs(this.dataDir)];
    if (this.credentials) args.push('--credentials', this.credentials);
    args.push(...this.extraArgs);
    const logFd = fs.openSync(this.logPath, 'a');
    const logStart = fs.fstatSync(logFd).size;
    this.spawnedAt = Date.now();
    const child = spawn(TTLSTORE_BIN, args, { stdio: ['ignore', logFd, logFd] });
    fs.closeSync(logFd);
    this.child = child;
    this.exitCode = undefined;
    liveChildren.add(child);
    child.on('exit', (code, signal) => {
      this.exitCode = code ?? signal;
      liveChildren.delete(child);
    });

    // --port 0: the kernel picks a free port and the server logs it (race-free, unlike probing).
    const deadline = Date.now() + STARTUP_TIMEOUT_MS;
    while (Date.now() < deadline) {
      if (this.exitCode !== undefined) {
        throw new Error(`ttlstore exited (${this.exitCode}) before listening; args ${args.join(' ')}\n` +
                        this.log().slice(logStart));
      }
      const m = LISTENING_RE.exec(this.log().slice(logStart));
      if (m) {
        this.port = Number(m[1]);
        break;
      }
      await sleep(20);
    }
    if (this.port === null) {
      await this.stop();
      throw new Error(`ttlstore did not log its port within ${STARTUP_TIMEOUT_MS} ms\n${this.log()}`);
    }
    while (Date.now() < deadline) {
      try {
        const res = await rawHttp({ port: this.port, method: 'GET', path: '/health' });
        if (res.status === 200) {
          this.readyAt = Date.now();
          return;
        }
      } catch { /* not yet */ }
      await sleep(20);
    }
    await this.stop();
    throw new Error(`ttlstore did not answer GET /health within ${STARTUP_TIMEOUT_MS} ms\n${this.log()}`);
  }

  // SIGTERM by PID, wait for exit (SIGKILL after timeoutMs). Returns the exit code.
  async stop({ timeoutMs = 10000, removeDir = false } = {}) {
    const child = this.child;
    if (child && this.exitCode === undefined) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      process.kill(child.pid, 'SIGTERM');
      let timer;
      const timedOut = new Promise((resolve) => { timer = setTimeout(() => resolve('timeout'), timeoutMs); });
      const outcome = await Promise.race([exited, timedOut]);
      clearTimeout(timer);  // a pending timer would keep the test process alive
      if (outcome === 'timeout') {
        const stacks = threadStacks(child.pid);
        process.kill(child.pid, 'SIGKILL');
        await exited;
        throw new Error(`ttlstore (pid ${child.pid}) ignored SIGTERM for ${timeoutMs} ms\n` +
                        `log (last 4000 characters):\n${this.log().slice(-4000)}\n${stacks}`);
      }
    }
    if (removeDir && this.ownsRoot) {
      fs.rmSync(this.root, { recursive: true, force: true });
    }
    return this.exitCode;
  }

  // Restart on the same data dir (and credentials file); a new port.
  async restart() {
    const code = await this.stop();
    this.port = null;
    await this._spawn();
    return code;
  }

  client(opts = {}) {
    return makeClient(this.endpoint, opts);
  }

  async metrics() {
    const res = await rawHttp({ port: this.port, method: 'GET', path: '/metrics' });
    assert.equal(res.status, 200, 'GET /metrics');
    return res.body.toString('utf8');
  }

  // Sum of all samples of a counter (with or without labels); 0 when absent.
  async metric(name) {
    const text = await this.metrics();
    let total = 0;
    const re = new RegExp(`^${name}(?:\\{[^}]*\\})?\\s+([0-9.eE+-]+)\\s*$`, 'gm');
    for (const m of text.matchAll(re)) total += Number(m[1]);
    return total;
  }
}

export function makeClient(endpoint, { accessKeyId = ACCESS_KEY, secret = SECRET } = {}) {
  return new TableStore.Client({
    accessKeyId,
    secretAccessKey: secret,
    endpoint,
    instancename: INSTANCE,
    // Global in the SDK: no retries, so errors surface at once and tests stay fast.
    maxRetries: 0,
  });
}

// ------------------------------------------------------------------------------------------------
// Raw HTTP (for what the SDK cannot send: unknown actions, bad MD5, GET, response headers)
// ------------------------------------------------------------------------------------------------

export function rawHttp({ port, method = 'POST', path: urlPath, headers = {}, body = Buffer.alloc(0) }) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path: urlPath, headers, agent: false },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          // The timeout timer would otherwise keep the test process alive for its full length.
          req.setTimeout(0);
          resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) });
        });
        res.on('error', reject);
      });
    req.on('error', reject);
    req.setTimeout(10000, () => req.destroy(new Error('raw request timed out')));
    req.end(body);
  });
}

export function md5Base64(buf) {
  return crypto.createHash('md5').update(buf).digest('base64');
}

export function hmacSha1Base64(secret, text) {
  return crypto.createHmac('sha1', secret).update(text, 'utf8').digest('base64');
}

// V2 request signature (protocol notes 1.2): "/Action\nPOST\n\n" + sorted "x-ots-*:value\n".
export function signRequest(action, headers, secret) {
  const lines = Object.keys(headers)
    .map((k) => k.toLowerCase())
    .filter((k) => k.startsWith('x-ots-') && k !== 'x-ots-signature')
    .sort()
    .map((k) => `${k}:${String(headers[k]).trim()}\n`);
  return hmacSha1Base64(secret, `/${action}\nPOST\n\n${lines.join('')}`);
}

// A POST /<action> signed like the SDK does. `md5` overrides the content MD5 header.
export async function signedPost(port, action, body = Buffer.alloc(0),
                                 { accessKeyId = ACCESS_KEY, secret = SECRET, md5 } = {}) {
  const headers = {
    'x-ots-date': new Date().toISOString(),
    'x-ots-apiversion': '2015-12-31',
    'x-ots-accesskeyid': accessKeyId,
    'x-ots-instancename': INSTANCE,
    'x-ots-contentmd5': md5 ?? md5Base64(body),
  };
  headers['x-ots-signature'] = signRequest(action, headers, secret);
  headers['content-length'] = String(body.length);
  return rawHttp({ port, method: 'POST', path: `/${action}`, headers, body });
}

// Minimal protobuf reader for the `Error` message: 1 code (string), 2 message (string).
export function decodeOtsError(buf) {
  const out = {};
  let i = 0;
  const varint = () => {
    let result = 0;
    let shift = 0;
    for (;;) {
      if (i >= buf.length) throw new Error('truncated varint');
      const b = buf[i++];
      result += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) return result;
      shift += 7;
    }
  };
  while (i < buf.length) {
    const key = varint();
    const field = Math.floor(key / 8);
    const wire = key & 7;
    if (wire === 2) {
      const len = varint();
      const bytes = buf.subarray(i, i + len);
      i += len;
      if (field === 1) out.code = bytes.toString('utf8');
      if (field === 2) out.message = bytes.toString('utf8');
    } else if (wire === 0) {
      varint();
    } else {
      throw new Error(`unexpected wire type ${wire} in Error body`);
    }
  }
  return out;
}

// ------------------------------------------------------------------------------------------------
// SDK shapes
// ------------------------------------------------------------------------------------------------

// int64 values come back as int64-buffer Int64LE (row cells) or `long` Long (protobuf fields).
export function num(x) {
  if (x === null || x === undefined) return x;
  if (typeof x === 'number') return x;
  if (typeof x === 'string') return Number(x);
  if (typeof x.toNumber === 'function') return x.toNumber();
  return Number(x);
}

function isInt64(v) {
  return v !== null && typeof v === 'object' && !Buffer.isBuffer(v) &&
    typeof v.toBuffer === 'function' && typeof v.toNumber === 'function';
}

// Cell value in a comparable form: INTEGER -> BigInt, BLOB -> Buffer, others as the SDK gives.
export function norm(v) {
  if (isInt64(v)) return BigInt(v.toString());
  return v;
}

// [[columnName, value, timestampMs], ...] in the order the server sent them.
export function cells(row) {
  assert.ok(row && Array.isArray(row.attributes), `expected a row with attributes, got ${inspectRow(row)}`);
  return row.attributes.map((a) => [a.columnName, norm(a.columnValue), num(a.timestamp)]);
}

// [[columnName, value], ...] without timestamps.
export function values(row) {
  return cells(row).map(([n, v]) => [n, v]);
}

// [[name, value], ...] of the primary key.
export function pkOf(row) {
  assert.ok(row && Array.isArray(row.primaryKey), `expected a row with a primaryKey, got ${inspectRow(row)}`);
  return row.primaryKey.map((p) => [p.name, norm(p.value)]);
}

export function inspectRow(row) {
  return JSON.stringify(row, (k, v) => (isInt64(v) ? `int64:${v.toString()}` : v));
}

// A read that matched no cell of an existing row: the spec does not say whether the row comes
// back as {} or as its primary key with no attributes, so accept both.
export function assertNoCells(row, message) {
  const ok = row && (Object.keys(row).length === 0 ||
                     (Array.isArray(row.attributes) && row.attributes.length === 0));
  assert.ok(ok, `${message ?? 'expected no cells'}: ${inspectRow(row)}`);
}

export function condition(kind = 'IGNORE') {
  return new TableStore.Condition(TableStore.RowExistenceExpectation[kind], null);
}

// Asserts that `promise` rejects with the SDK's error shape for an OTS error:
// err.code === HTTP status (a number) and err.message containing the OTS code string
// (and `messagePart`, if given).
export async function expectOtsError(promise, status, otsCode, messagePart) {
  let err = null;
  try {
    const data = await promise;
    assert.fail(`expected ${status} ${otsCode}, but the call succeeded: ${inspectRow(data)}`);
  } catch (e) {
    if (e instanceof assert.AssertionError) throw e;
    err = e;
  }
  assert.equal(err.code, status, `HTTP status; message: ${JSON.stringify(err.message)}`);
  assert.ok(String(err.message).includes(otsCode),
            `message should contain ${otsCode}: ${JSON.stringify(err.message)}`);
  if (messagePart) {
    assert.ok(String(err.message).includes(messagePart),
              `message should contain "${messagePart}": ${JSON.stringify(err.message)}`);
  }
  return err;
}

// CreateTable with the usual zero reserved throughput. `pk` is [[name, type], ...].
export async function createTable(client, tableName, {
  pk = [['pk', 'STRING']], timeToLive = -1, maxVersions = 1, maxTimeDeviation, allowUpdate,
} = {}) {
  const tableOptions = { timeToLive, maxVersions };
  if (maxTimeDeviation !== undefined) tableOptions.maxTimeDeviation = maxTimeDeviation;
  if (allowUpdate !== undefined) tableOptions.allowUpdate = allowUpdate;
  return client.createTable({
    tableMeta: { tableName, primaryKey: pk.map(([name, type]) => ({ name, type })) },
    reservedThroughput: { capacityUnit: { read: 0, write: 0 } },
    tableOptions,
  });
}

export async function getRow(client, tableName, primaryKey, extra = {}) {
  const data = await client.getRow({ tableName, primaryKey, ...extra });
  return data.row;
}

// UpdateRow with PUT cells [[name, value, ts?], ...].
export async function putVersions(client, tableName, primaryKey, puts) {
  const PUT = puts.map(([name, value, ts]) => (ts === undefined ? { [name]: value } : { [name]: value, timestamp: ts }));
  return client.updateRow({
    tableName, primaryKey, condition: condition('IGNORE'), updateOfAttributeColumns: [{ PUT }],
  });
}

export async function updateOptions(client, tableName, tableOptions) {
  return client.updateTable({ tableName, tableOptions });
}

export function optionsOf(tableOptions) {
  return {
    timeToLive: num(tableOptions.timeToLive),
    maxVersions: num(tableOptions.maxVersions),
    deviationCellVersionInSec: num(tableOptions.deviationCellVersionInSec),
    allowUpdate: tableOptions.allowUpdate,
  };
}

export async function waitFor(what, fn, { timeoutMs = 20000, intervalMs = 200 } = {}) {
  const deadline = Date.now() + timeoutMs;
  let last;
  while (Date.now() < deadline) {
    last = await fn();
    if (last) return last;
    await sleep(intervalMs);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}
