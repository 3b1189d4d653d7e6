// Shared by the Tablestore benchmarks that run their own server: start `ttlstore serve` on a
// fresh data dir (127.0.0.1, a free port), an SDK client for it, and the server's CPU time and
// I/O counters from /proc. The SDK is the one the tests pin: `npm ci --prefix test/tablestore`.
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, readdirSync, rmSync, closeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';

const require = createRequire(new URL('../test/tablestore/package.json', import.meta.url));
export const TableStore = require('tablestore');

export function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Starts the server; resolves once it logged its port. `args`: extra flags.
export async function startServer(bin, args = []) {
  const root = mkdtempSync(path.join(tmpdir(), 'ttlstore-bench-'));
  const dataDir = path.join(root, 'data');
  const logPath = path.join(root, 'server.log');
  const fd = openSync(logPath, 'a');
  const child = spawn(bin, ['serve', '--host', '127.0.0.1', '--port', '0', '--data-dir', dataDir,
    ...args], { stdio: ['ignore', fd, fd] });
  closeSync(fd);
  let exited = false;
  child.on('exit', () => { exited = true; });
  // A benchmark that dies (or is timed out) must not leave its server running.
  process.on('exit', () => { if (!exited) child.kill('SIGKILL'); });
  const deadline = Date.now() + 20000;
  while (Date.now() < deadline) {
    if (exited) throw new Error(`ttlstore exited before listening:\n${readFileSync(logPath, 'utf8')}`);
    const m = /event=listening address=http:\/\/127\.0\.0\.1:(\d+)/.exec(readFileSync(logPath, 'utf8'));
    if (m) {
      const endpoint = `http://127.0.0.1:${m[1]}`;
      const client = new TableStore.Client({
        accessKeyId: 'local', secretAccessKey: 'local', endpoint, instancename: 'bench', maxRetries: 0,
      });
      return {
        child, pid: child.pid, root, dataDir, logPath, endpoint, client,
        log: () => readFileSync(logPath, 'utf8'),
        call: (fn, params) => new Promise((resolve, reject) =>
          client[fn](params, (err, data) => (err ? reject(err) : resolve(data)))),
        async stop() {
          if (!exited) {
            const done = new Promise((resolve) => child.once('exit', resolve));
            process.kill(child.pid, 'SIGTERM');
            await done;
          }
          rmSync(root, { recursive: true, force: true });
        },
        async metric(name) {
          const res = await fetch(`${endpoint}/metrics`);
          const text = await res.text();
          const m2 = new RegExp(`^${name}\\s+([0-9.eE+-]+)`, 'm').exec(text);
          return m2 ? Number(m2[1]) : NaN;
        },
      };
    }
    await sleep(20);
  }
  child.kill('SIGKILL');
  throw new Error('ttlstore did not log its port within 20 s');
}

// utime + stime of the whole process (request and RocksDB threads), in seconds.
export function cpuSeconds(pid) {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

// utime + stime of the process's threads whose name matches `re` (/proc/<pid>/task/*/stat), in
// seconds: the work of the background threads alone, without the idle ticks of the others.
export function threadCpuSeconds(pid, re) {
  let total = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      if (!re.test(name)) continue;
      const f = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
      total += (Number(f[11]) + Number(f[12])) / 100;
    } catch { /* the thread ended */ }
  }
  return total;
}

// /proc/<pid>/io: rchar/wchar (bytes through read/write calls, page cache included) and
// read_bytes/write_bytes (bytes that reached the block device).
export function io(pid) {
  const out = {};
  for (const line of readFileSync(`/proc/${pid}/io`, 'utf8').trim().split('\n')) {
    const [k, v] = line.split(':');
    out[k.trim()] = Number(v);
  }
  return out;
}

export function duBytes(dir) {
  return Number(execFileSync('du', ['-sb', dir], { encoding: 'utf8' }).split('\t')[0]);
}

export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

export const mb = (b) => (b / 1048576).toFixed(1);
