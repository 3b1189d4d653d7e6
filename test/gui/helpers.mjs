// Helpers for the web GUI end-to-end test (issue 18): start and stop child processes (ttlstore,
// dynamodb-admin, Chromium) by PID, each bound to 127.0.0.1 on a port the kernel picks, and an
// AWS SDK client for ttlstore.
//
// Every wait here is bounded: a child that does not print its "listening" line in time is killed
// and the test fails with the child's output.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { DynamoDBClient } from '@aws-sdk/client-dynamodb';

const HERE = path.dirname(fileURLToPath(import.meta.url));

export const TTLSTORE_BIN = process.env.TTLSTORE_BIN
  ? path.resolve(process.env.TTLSTORE_BIN)
  : path.resolve(HERE, '../../build/ttlstore');

// Debian's package (apt `chromium`); puppeteer-core never downloads a browser.
export const CHROMIUM_BIN = process.env.CHROMIUM_BIN ?? '/usr/bin/chromium';

export const DYNAMODB_ADMIN_BIN = path.join(HERE, 'node_modules/dynamodb-admin/dist/dynamodb-admin.js');

// The key ttlstore is started with (--credentials): dynamodb-admin and the test's own client must
// both sign their requests with it, so the GUI's SDK version is checked against SigV4 too.
export const ACCESS_KEY = 'guiKey';
export const SECRET = 'guiSecret';
export const REGION = 'us-east-1';

const STARTUP_TIMEOUT_MS = 15000;
const STOP_TIMEOUT_MS = 10000;

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Children still running when this test process exits (a crash, or an assertion in a hook) are
// killed by their own PID, so that no server outlives the test.
const liveChildren = new Set();
process.on('exit', () => {
  for (const child of liveChildren) {
    try { process.kill(child.pid, 'SIGKILL'); } catch { /* already gone */ }
  }
});

export function makeTempDir(prefix) {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

// One child process whose output goes to a log file. `await Child.start(...)` returns once a line
// matching `readyRe` has been written; `match` holds that match (e.g. the port it logged).
export class Child {
  constructor(name, logPath) {
    this.name = name;
    this.logPath = logPath;
    this.proc = null;
    this.exit = undefined;   // exit code or signal once it has exited
    this.match = null;
  }

  static async start({ name, command, args, env, logPath, readyRe, timeoutMs = STARTUP_TIMEOUT_MS }) {
    const child = new Child(name, logPath);
    const logFd = fs.openSync(logPath, 'a');
    const proc = spawn(command, args, { stdio: ['ignore', logFd, logFd], env: env ?? process.env });
    fs.closeSync(logFd);
    child.proc = proc;
    liveChildren.add(proc);
    proc.on('exit', (code, signal) => {
      child.exit = code ?? signal;
      liveChildren.delete(proc);
    });
    proc.on('error', (err) => {
      child.exit = `spawn error: ${err.message}`;
      liveChildren.delete(proc);
    });

    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (child.exit !== undefined) {
        throw new Error(`${name} exited (${child.exit}) before it was ready: ${command} ${args.join(' ')}\n` +
                        child.log());
      }
      const m = readyRe.exec(child.log());
      if (m) {
        child.match = m;
        return child;
      }
      await sleep(25);
    }
    await child.stop();
    throw new Error(`${name} did not log ${readyRe} within ${timeoutMs} ms\n${child.log()}`);
  }

  get pid() {
    return this.proc?.pid;
  }

  log() {
    try { return fs.readFileSync(this.logPath, 'utf8'); } catch { return ''; }
  }

  // SIGTERM by PID, then SIGKILL by PID if it has not exited within timeoutMs. Returns the exit
  // code (or signal name).
  async stop({ timeoutMs = STOP_TIMEOUT_MS } = {}) {
    const proc = this.proc;
    if (!proc || this.exit !== undefined) return this.exit;
    const exited = new Promise((resolve) => proc.once('exit', resolve));
    try { process.kill(proc.pid, 'SIGTERM'); } catch { /* already gone */ }
    let timer;
    const timedOut = new Promise((resolve) => { timer = setTimeout(() => resolve('timeout'), timeoutMs); });
    const outcome = await Promise.race([exited, timedOut]);
    clearTimeout(timer);  // a pending timer would keep the test process alive
    if (outcome === 'timeout') {
      try { process.kill(proc.pid, 'SIGKILL'); } catch { /* already gone */ }
      await exited;
      throw new Error(`${this.name} (pid ${proc.pid}) ignored SIGTERM for ${timeoutMs} ms`);
    }
    return this.exit;
  }
}

// `ttlstore serve` on 127.0.0.1, a port of the kernel's choosing (--port 0; the log line says
// which), a fresh data dir under `root`, and a credentials file holding ACCESS_KEY.
export async function startTtlstore(root) {
  if (!fs.existsSync(TTLSTORE_BIN)) {
    throw new Error(`ttlstore binary not found at ${TTLSTORE_BIN}; build it or set TTLSTORE_BIN`);
  }
  const credentials = path.join(root, 'credentials');
  fs.writeFileSync(credentials, `${ACCESS_KEY} ${SECRET}\n`);
  const child = await Child.start({
    name: 'ttlstore',
    command: TTLSTORE_BIN,
    args: ['serve', '--host', '127.0.0.1', '--port', '0', '--data-dir', path.join(root, 'data'),
           '--credentials', credentials],
    logPath: path.join(root, 'ttlstore.log'),
    readyRe: /event=listening address=(http:\/\/127\.0\.0\.1:\d+)/,
  });
  child.endpoint = child.match[1];
  return child;
}

// dynamodb-admin's own CLI. Its --host defaults to none, which makes Express listen on every
// interface, so --host 127.0.0.1 is required; --port 0 lets the kernel pick a free port, which it
// prints ("dynamodb-admin listening on http://127.0.0.1:PORT"). It signs with the AWS_* keys.
export async function startDynamodbAdmin(root, ttlstoreEndpoint) {
  const env = {
    PATH: process.env.PATH,
    HOME: root,
    DYNAMO_ENDPOINT: ttlstoreEndpoint,
    AWS_REGION: REGION,
    AWS_ACCESS_KEY_ID: ACCESS_KEY,
    AWS_SECRET_ACCESS_KEY: SECRET,
    // Its default is NODE_ENV unset; "production" makes it refuse to start.
    NODE_ENV: 'test',
    NO_COLOR: '1',
  };
  const child = await Child.start({
    name: 'dynamodb-admin',
    command: process.execPath,
    args: [DYNAMODB_ADMIN_BIN, '--host', '127.0.0.1', '--port', '0',
           '--dynamo-endpoint', ttlstoreEndpoint],
    env,
    logPath: path.join(root, 'dynamodb-admin.log'),
    readyRe: /dynamodb-admin listening on (http:\/\/127\.0\.0\.1:\d+)/,
  });
  child.url = child.match[1];
  return child;
}

export function ddbClient(endpoint) {
  return new DynamoDBClient({
    endpoint,
    region: REGION,
    credentials: { accessKeyId: ACCESS_KEY, secretAccessKey: SECRET },
    maxAttempts: 1,
  });
}
