// A durable PostgreSQL for the benchmarks: its own temporary folder, 127.0.0.1 on a free port,
// fsync and synchronous_commit on (unlike the test suites' server, which runs with fsync off), and
// stopped by stop() or, if the program is interrupted, by the exit handlers installed here. Under
// root the server runs as the "postgres" user, as tests/pg/postgres.sh does.
// Also: a long-lived psql session for sampling (one process, not one per query), and helpers.
import { execFile, execFileSync, spawn } from 'node:child_process';
import { appendFileSync, chownSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { freePort } from '../../api/lib/harness.mjs';

export function postgresBinDir() {
  const root = '/usr/lib/postgresql';
  let versions = [];
  try { versions = readdirSync(root).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(a) - Number(b)); } catch { /* none */ }
  if (!versions.length) throw new Error('PostgreSQL server binaries not found (scripts/install-deps.sh installs postgresql)');
  return join(root, versions.at(-1), 'bin');
}

const asRoot = () => process.getuid && process.getuid() === 0;

// argv run as the server's owner: "postgres" under root, the caller otherwise.
function ownerArgv(argv) {
  return asRoot() ? ['runuser', ['-u', 'postgres', '--', ...argv]] : [argv[0], argv.slice(1)];
}

// Settings the benchmark's server starts with, printed with the results. Durability as a
// production server has it; max_connections leaves room for pgbench's 64 clients and two Corridor
// processes' pools; the log names the database on each line (the plan step reads statements from it).
export const durableSettings = {
  fsync: 'on', synchronous_commit: 'on', full_page_writes: 'on', max_connections: '300',
  listen_addresses: '127.0.0.1', log_line_prefix: '%m [%p] db=%d ', log_min_messages: 'warning',
};

const running = new Set();

function stopNow(pg) {
  if (!running.has(pg)) return;
  running.delete(pg);
  try {
    const [cmd, args] = ownerArgv([join(pg.bin, 'pg_ctl'), '-D', pg.dataDir, '-m', 'fast', '-w', '-t', '30', 'stop']);
    execFileSync(cmd, args, { stdio: 'ignore', timeout: 40000 });
  } catch { /* already gone */ }
  if (!pg.keepFiles) rmSync(pg.dir, { recursive: true, force: true });
}

// Whatever ends the program (an error, Ctrl-C, SIGTERM, the watchdog's exit) stops the servers.
let handlersInstalled = false;
function installExitHandlers() {
  if (handlersInstalled) return;
  handlersInstalled = true;
  process.on('exit', () => { for (const pg of [...running]) stopNow(pg); });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => {
      process.stderr.write(`\n${signal}: stopping the benchmark's PostgreSQL\n`);
      process.exit(128 + (signal === 'SIGINT' ? 2 : signal === 'SIGTERM' ? 15 : 1));
    });
  }
}

// CPU of a server started by startDurablePostgres, in ms: the postmaster and every process it
// started (backends, WAL writer, checkpointer), those that ended included (their time is added to
// the postmaster's children).
export function postgresCpuMs(pg) {
  const postmaster = Number(readFileSync(join(pg.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const fieldsOf = (pid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    } catch { return null; }
  };
  const own = fieldsOf(postmaster);
  let ticks = Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14]);
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const fields = fieldsOf(pid);
    if (fields && Number(fields[1]) === postmaster) ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks * 10;  // USER_HZ is 100 on Linux
}

export async function startDurablePostgres({ startTimeoutS = 60 } = {}) {
  installExitHandlers();
  const bin = postgresBinDir();
  const dir = mkdtempSync(join(tmpdir(), 'corridor-bench-pg-'));
  if (asRoot()) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
  }
  const pg = { bin, dir, dataDir: join(dir, 'data'), logFile: join(dir, 'server.log') };
  running.add(pg);
  const run = (argv, timeout) => {
    const [cmd, args] = ownerArgv(argv);
    return promisify(execFile)(cmd, args, { encoding: 'utf8', timeout: timeout * 1000 });
  };
  await run([join(bin, 'initdb'), '-D', pg.dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-locale'], 120);
  pg.port = await freePort();
  appendFileSync(join(pg.dataDir, 'postgresql.conf'), `\n# the benchmark's settings\nport = ${pg.port}\n` +
    `unix_socket_directories = '${dir}'\n` +
    Object.entries(durableSettings).map(([k, v]) => `${k} = '${v}'\n`).join(''));
  await run([join(bin, 'pg_ctl'), '-D', pg.dataDir, '-l', pg.logFile, '-w', '-t', String(startTimeoutS), 'start'],
    startTimeoutS + 10);
  pg.url = `postgresql://postgres@127.0.0.1:${pg.port}/postgres`;
  pg.urlOf = (database) => `postgresql://postgres@127.0.0.1:${pg.port}/${database}`;
  pg.stop = () => stopNow(pg);
  return pg;
}

// psql -At on `url`; the output's text. Throws on an SQL error.
export async function psql(url, sql, { timeoutS = 600 } = {}) {
  const { stdout } = await promisify(execFile)('psql', ['-X', '-At', '-v', 'ON_ERROR_STOP=1', '-q', url, '-c', sql],
    { encoding: 'utf8', timeout: timeoutS * 1000, maxBuffer: 64 * 1024 * 1024 });
  return stdout.trim();
}

// One psql process kept open for repeated small queries (sampling during a run): each query's
// rows come back as arrays of fields. Queries are answered one at a time, in order.
export function openSession(url) {
  const child = spawn('psql', ['-X', '-At', '-q', '-F', '\t', url], { stdio: ['pipe', 'pipe', 'pipe'] });
  let buffer = '';
  let waiting = [];
  const marker = '__corridor_bench_done__';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => {
    buffer += chunk;
    let end;
    while ((end = buffer.indexOf(`${marker}\n`)) >= 0) {
      const text = buffer.slice(0, end);
      buffer = buffer.slice(end + marker.length + 1);
      const next = waiting.shift();
      if (next) next.ok(text.split('\n').filter((l) => l).map((l) => l.split('\t')));
    }
  });
  let errors = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk) => { errors += chunk; });
  child.on('exit', () => { for (const w of waiting) w.fail(new Error(`psql session ended: ${errors}`)); waiting = []; });
  return {
    query(sql) {
      return new Promise((ok, fail) => {
        waiting.push({ ok, fail });
        child.stdin.write(`${sql.replace(/;\s*$/, '')};\n\\echo ${marker}\n`);
      });
    },
    close() { child.stdin.end(); },
  };
}

// A psql script (SQL and backslash commands) fed on stdin; its output. Throws on the first error.
export function psqlScript(url, script, { timeoutS = 600 } = {}) {
  return new Promise((ok, fail) => {
    const child = spawn('psql', ['-X', '-At', '-q', '-v', 'ON_ERROR_STOP=1', url], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '', err = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutS * 1000);
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (c) => { out += c; });
    child.stderr.on('data', (c) => { err += c; });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) ok(out.trim()); else fail(new Error(`psql ${signal || code}: ${err}`));
    });
    child.stdin.end(script);
  });
}
