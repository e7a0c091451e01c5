// What every benchmark shares: the server it measures (started by the API test harness from a
// build directory, one io thread per core, access log on as operators run it), calls that throw on
// failure, funded customer accounts, wrk runs, and the server's CPU time per thread role.
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { basic, call, metricsText, startCorridor, stopCorridor } from '../../api/lib/harness.mjs';

export const benchDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const confDir = resolve(benchDir, '../../conf');

// A regulated platform (its customers may move money at once) on a fresh database: SQLite in the
// server's folder unless `database` names another. `plugins` overrides keys of the plugins setting
// (e.g. the rails to load).
export async function startBenchServer(buildDir, { config = {}, database, plugins } = {}) {
  const server = await startCorridor({
    bin: join(buildDir, 'corridor'), confDir, database, platforms: 1,  // rails load from buildDir/plugins
    config: { threads: 0, ...config }, plugins,
  });
  endWithBenchmark(server.process, server.dir);
  server.credentials = server.platforms[0].sandbox;
  server.auth = basic(server.credentials);
  return server;
}

export const stopBenchServer = (server) => stopCorridor(server);

// Servers (and other children) that must not outlive the benchmark when it ends early (an error,
// a signal, a time limit): killed, and their folders removed, when the Node process exits.
const leftovers = new Set();
let exitHookInstalled = false;
export function endWithBenchmark(child, dir) {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', () => {
      for (const { child: c, dir: d } of leftovers) {
        if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
        if (d) rmSync(d, { recursive: true, force: true });
      }
    });
  }
  leftovers.add({ child, dir });
}

export async function api(server, method, path, body) {
  const response = await call(server, server.credentials, method, path, body);
  if (response.status >= 300) throw new Error(`${method} ${path} -> ${response.status} ${response.text}`);
  return response.body;
}

export async function metrics(server) {
  return metricsText(server);  // from the admin listener
}

// `count` customers, each with its internal accounts in `currencies` and the first one funded.
export async function fundedCustomers(server, count, currencies, amount) {
  const customers = [];
  for (let i = 0; i < count; i++) {
    const customer = await api(server, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: `Bench ${i}` });
    const accounts = await api(server, 'GET', `/customers/internal-accounts?customerId=${encodeURIComponent(customer.id)}`);
    const ids = currencies.map((code) => accounts.data.find((a) => a.balance.currency.code === code).id);
    await api(server, 'POST', `/sandbox/internal-accounts/${encodeURIComponent(ids[0])}/fund`, { amount });
    customers.push({ customer: customer.id, accounts: ids });
  }
  return customers;
}

// Checks that the customers' balances moved by exactly `executed` payments of 1000 minor units
// each (the payments.lua workload) from accounts funded with `initialBalance`: "ok (...)" or
// "MISMATCH: ...".
export async function verifyBalances(server, customers, executed, initialBalance) {
  let usdSpent = 0, eurReceived = 0;
  for (const { customer, accounts: [usd, eur] } of customers) {
    const listed = (await api(server, 'GET', `/customers/internal-accounts?limit=100&customerId=${encodeURIComponent(customer)}`)).data;
    usdSpent += initialBalance - listed.find((a) => a.id === usd).balance.amount;
    eurReceived += listed.find((a) => a.id === eur).balance.amount;
  }
  return usdSpent === executed * 1000 ? `ok (${executed} payments, ${usdSpent} USD cents out, ${eurReceived} EUR cents in)` :
    `MISMATCH: ${usdSpent} cents out for ${executed} payments`;
}

// wrk at `connections` for `seconds` with tests/bench/payments.lua in `mode` over `pairs`
// ([source, destination] ids). Returns requests, non-2xx, successes per second, p50 and p99 in ms.
// Asynchronous on purpose: the caller's event loop keeps draining the server's access log.
export async function runWrk(server, { mode, pairs, seconds, connections = 64 }) {
  const { stdout: output } = await promisify(execFile)('wrk', ['-t2', `-c${connections}`, `-d${seconds}s`, '--latency',
    '-s', join(benchDir, 'payments.lua'), server.baseUrl], {
    encoding: 'utf8',
    env: { ...process.env, BENCH_AUTH: server.auth, BENCH_MODE: mode, BENCH_PAIRS: pairs.map((p) => p.join('>')).join(',') },
  });
  const number = (re) => { const m = output.match(re); return m ? m[1] : null; };
  const toMs = (text) => {
    if (!text) throw new Error(`wrk completed no request:\n${output}`);
    const m = text.match(/([\d.]+)(us|ms|s)/);
    return Number(m[1]) * (m[2] === 'us' ? 0.001 : m[2] === 's' ? 1000 : 1);
  };
  const requests = Number(number(/(\d+) requests in/));
  const non2xx = Number(number(/Non-2xx or 3xx responses: (\d+)/) || 0);
  return {
    requests, non2xx, socketErrors: number(/Socket errors: (.*)/),
    perSecond: (requests - non2xx) / seconds,
    p50: toMs(number(/^\s+50%\s+(\S+)/m)), p99: toMs(number(/^\s+99%\s+(\S+)/m)),
  };
}

// User plus system CPU ticks (USER_HZ) in a /proc stat file (fields 14 and 15, after the name); 0
// when the process or thread has ended meanwhile.
export function cpuTicks(statPath) {
  let stat;
  try { stat = readFileSync(statPath, 'utf8'); } catch { return 0; }
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

// CPU time of a process's threads by role (io-N, db-N, ledger-writer, wal-checkpoint), in ms, from
// /proc: with the machine shared by the load generator, CPU per operation is the steadier figure.
export function threadCpuMs(pid) {
  const tick = 10;  // USER_HZ is 100 on Linux
  const roles = {};
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let name;
    try { name = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim(); } catch { continue; }
    const role = name.replace(/-\d+$/, '');
    roles[role] = (roles[role] || 0) + cpuTicks(`/proc/${pid}/task/${tid}/stat`) * tick;
  }
  return roles;
}

// "total us (role us, ...)" per operation between two threadCpuMs readings.
export function cpuPerOperation(before, after, operations) {
  const parts = Object.keys(after).map((role) => [role, (after[role] - (before[role] || 0)) * 1000 / operations])
    .filter(([, us]) => us >= 1).sort((a, b) => b[1] - a[1]);
  const total = parts.reduce((sum, [, us]) => sum + us, 0);
  return `${total.toFixed(0)} us (` + parts.map(([role, us]) => `${role} ${us.toFixed(0)}`).join(', ') + ')';
}

// Bytes per payment of a SQLite database after a WAL checkpoint: the file's size over `payments`,
// split by table, each table's rows apart from its indexes (the sqlite3 shell's dbstat table; the
// pages on the free list are shown as "(free pages)"). null for PostgreSQL (write_path_bench.mjs
// measures it there after a VACUUM). Uses the sqlite3 shell.
export async function storagePerPayment(server, payments) {
  if (!server.database.startsWith('sqlite:') || payments <= 0) return null;
  const file = server.database.slice('sqlite:'.length);
  const { stdout } = await promisify(execFile)('sqlite3', [file,
    'PRAGMA wal_checkpoint(TRUNCATE);',
    "SELECT coalesce(m.tbl_name, d.name), SUM(CASE WHEN m.type = 'index' THEN 0 ELSE d.pgsize END), " +
      "SUM(CASE WHEN m.type = 'index' THEN d.pgsize ELSE 0 END) FROM dbstat d LEFT JOIN sqlite_schema m " +
      'ON m.name = d.name GROUP BY 1 ORDER BY SUM(d.pgsize) DESC;',
    'PRAGMA page_count;', 'PRAGMA page_size;', 'PRAGMA freelist_count;'], { encoding: 'utf8' });
  const lines = stdout.trim().split('\n').slice(1);  // the checkpoint's own line first
  const free = Number(lines.pop()), pageSize = Number(lines.pop()), pageCount = Number(lines.pop());
  const tables = lines.map((line) => line.split('|')).map(([name, rows, indexes]) => ({
    name, perPayment: (Number(rows) + Number(indexes)) / payments,
    rowsPerPayment: Number(rows) / payments, indexesPerPayment: Number(indexes) / payments,
  }));
  if (free) tables.push({ name: '(free pages)', perPayment: free * pageSize / payments, rowsPerPayment: free * pageSize / payments, indexesPerPayment: 0 });
  return { total: pageCount * pageSize / payments, tables };
}

// "N bytes per payment (table T = rows R + indexes I [+ toast X], ...)" for a storage answer
// (storagePerPayment's or PostgreSQL's); tables under 1% of the total left out.
export function formatStorage(storage) {
  if (!storage) return 'n/a';
  const shown = storage.tables.filter((t) => t.perPayment >= storage.total / 100);
  const part = (t) => `${t.name} ${t.perPayment.toFixed(0)}` + (t.indexesPerPayment || t.toastPerPayment
    ? ` = rows ${t.rowsPerPayment.toFixed(0)} + indexes ${t.indexesPerPayment.toFixed(0)}` +
      (t.toastPerPayment ? ` + toast ${t.toastPerPayment.toFixed(0)}` : '') : '');
  return `${storage.total.toFixed(0)} bytes per payment (` + shown.map(part).join(', ') + ')';
}
