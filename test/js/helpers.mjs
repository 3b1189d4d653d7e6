// Shared helpers for the JavaScript-client end-to-end tests (issue 18).
//
// Each test file starts its own `ttlstore serve` child on 127.0.0.1 with a fresh data dir, reads
// the port from the `event=listening` log line (--port 0 lets the kernel pick it), and stops it by
// PID (on the PostgreSQL backend when TTLSTORE_E2E_PG is set: test/pg_storage.mjs). The clients
// under test (AWS SDK v3, dynamoose, ElectroDB, DynamoDB Toolbox) are pointed at
// it unchanged: region us-east-1, any credentials (the server runs without --credentials, so any
// signature is accepted on loopback), and no retries, so that an error surfaces at once.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

import { pgStorageArgs } from '../pg_storage.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const TTLSTORE_BIN = process.env.TTLSTORE_BIN
  ? path.resolve(process.env.TTLSTORE_BIN)
  : path.resolve(HERE, '../../build/ttlstore');

// The SDK warns on every client that its releases after January 2027 need Node 22; the versions
// pinned here run on Node 20, so the notice is only noise in the test output.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

export const REGION = 'us-east-1';
export const CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

const STARTUP_TIMEOUT_MS = 15000;
const STOP_TIMEOUT_MS = 10000;
const LISTENING_RE = /event=listening address=http:\/\/127\.0\.0\.1:(\d+)/;

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Servers still running when the test process exits (a crash, a failed hook) are killed by
// their own PID, so none outlives the run.
const live = new Set();
process.on('exit', () => {
  for (const pid of live) {
    try { process.kill(pid, 'SIGKILL'); } catch { /* already gone */ }
  }
});

// One `ttlstore serve` child with its own temp root (data dir and log file).
export class Server {
  constructor(root) {
    this.root = root;
    this.child = null;
    this.port = null;
    this.exitCode = undefined;
  }

  // `args`: extra serve flags, e.g. ['--ttl-sweep-interval-ms', '100'].
  static async start({ args = [] } = {}) {
    if (!fs.existsSync(TTLSTORE_BIN)) {
      throw new Error(`ttlstore binary not found at ${TTLSTORE_BIN}; build it or set TTLSTORE_BIN`);
    }
    const srv = new Server(fs.mkdtempSync(path.join(os.tmpdir(), 'ttlstore-js-')));
    await srv._spawn(args);
    return srv;
  }

  get endpoint() { return `http://127.0.0.1:${this.port}`; }
  get logPath() { return path.join(this.root, 'ttlstore.log'); }
  log() {
    try { return fs.readFileSync(this.logPath, 'utf8'); } catch { return ''; }
  }

  async _spawn(extra) {
    const dataDir = path.join(this.root, 'data');
    // With TTLSTORE_E2E_PG the server keeps its data in PostgreSQL (test/pg_storage.mjs), unless
    // the test gives a --storage of its own.
    const storage = extra.includes('--storage') ? [] : pgStorageArgs(dataDir);
    const args = ['serve', '--host', '127.0.0.1', '--port', '0', '--data-dir', dataDir,
                  ...storage, ...extra];
    const logFd = fs.openSync(this.logPath, 'a');
    const child = spawn(TTLSTORE_BIN, args, { stdio: ['ignore', logFd, logFd] });
    fs.closeSync(logFd);
    this.child = child;
    live.add(child.pid);
    child.on('exit', (code, signal) => {
      this.exitCode = code ?? signal;
      live.delete(child.pid);
    });
    const deadline = Date.now() + STARTUP_TIMEOUT_MS;
    while (Date.now() < deadline) {
      if (this.exitCode !== undefined) {
        throw new Error(`ttlstore exited (${this.exitCode}) before listening:\n${this.log()}`);
      }
      const m = LISTENING_RE.exec(this.log());
      if (m) {
        this.port = Number(m[1]);
        return;
      }
      await sleep(20);
    }
    await this.stop();
    throw new Error(`ttlstore did not log its port within ${STARTUP_TIMEOUT_MS} ms:\n${this.log()}`);
  }

  // SIGTERM by PID, then wait (SIGKILL after STOP_TIMEOUT_MS); removes the temp root.
  async stop() {
    const child = this.child;
    if (child && this.exitCode === undefined) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      process.kill(child.pid, 'SIGTERM');
      let timer;
      const timedOut = new Promise((resolve) => { timer = setTimeout(() => resolve('timeout'), STOP_TIMEOUT_MS); });
      const outcome = await Promise.race([exited, timedOut]);
      clearTimeout(timer);
      if (outcome === 'timeout') {
        process.kill(child.pid, 'SIGKILL');
        await exited;
      }
    }
    fs.rmSync(this.root, { recursive: true, force: true });
  }

  // The low-level client, configured as a user would for a local endpoint.
  client(extra = {}) {
    return new DynamoDBClient({
      endpoint: this.endpoint, region: REGION, credentials: CREDENTIALS, maxAttempts: 1, ...extra,
    });
  }

  documentClient(translateConfig) {
    return DynamoDBDocumentClient.from(this.client(), translateConfig);
  }
}

// Polls `fn` until it returns something truthy, for at most `timeoutMs`.
export async function waitFor(what, fn, { timeoutMs = 10000, intervalMs = 100 } = {}) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const result = await fn();
    if (result) return result;
    if (Date.now() >= deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(intervalMs);
  }
}

// Unix time in seconds, `deltaSeconds` from now: the unit DynamoDB's TTL attribute takes.
export function epochSeconds(deltaSeconds = 0) {
  return Math.floor(Date.now() / 1000) + deltaSeconds;
}

// Awaits `promise` and returns the error it rejects with; fails if it resolves.
export async function rejection(promise) {
  try {
    const value = await promise;
    throw Object.assign(new Error(`expected a rejection, got ${JSON.stringify(value)}`), { unexpected: true });
  } catch (err) {
    if (err.unexpected) throw err;
    return err;
  }
}
