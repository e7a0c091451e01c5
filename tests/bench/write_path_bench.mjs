// The write path in one run: quote-and-execute over HTTP (64 connections, USD -> EUR internal
// accounts, group commit: ledger batches of up to 512 commands) on SQLite (synchronous=FULL) and on
// a durable PostgreSQL that this program starts itself (fsync and synchronous_commit on), once with
// one Corridor process and once with two processes on the same database sharing the connections;
// with pgbench TPC-B on that same PostgreSQL as the reference. Prints one table (payments/s,
// p50/p99, the ledger writer thread's CPU per payment, database round trips per payment when the
// server counts them, bytes per payment) and the ratios, and, for the two processes, lock waits
// sampled from pg_stat_activity, deadlocks from pg_stat_database and the writers' retried commands.
// Balances are checked after every run; a mismatch fails the run (exit status 1).
//   node tests/bench/write_path_bench.mjs BUILD_DIR [seconds] [--plans | --plans-only | --sqlite-only]
// --plans adds the plan-stability step (plan_stability.mjs) on the same PostgreSQL. --sqlite-only
// runs the SQLite row alone (no PostgreSQL, no pgbench): a short run while tuning that path.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

import { anotherProcess, launch, stopCorridor } from '../api/lib/harness.mjs';
import {
  api, cpuPerOperation, endWithBenchmark, formatStorage, fundedCustomers, metrics, runWrk, startBenchServer, stopBenchServer, storagePerPayment, threadCpuMs,
  verifyBalances,
} from './lib/bench.mjs';
import {
  durableSettings, openSession, postgresCpuMs, psql, startDurablePostgres,
} from './lib/postgres.mjs';

const args = process.argv.slice(2);
const flags = new Set(args.filter((a) => a.startsWith('--')));
const positional = args.filter((a) => !a.startsWith('--'));
for (const flag of flags) {
  if (!['--plans', '--plans-only', '--sqlite-only'].includes(flag)) {
    console.error(`unknown option ${flag}; usage: write_path_bench.mjs BUILD_DIR [seconds] [--plans | --plans-only | --sqlite-only]`);
    process.exit(2);
  }
}
const buildDir = resolve(positional[0] || 'build');
const seconds = Number(positional[1] || 15);
if (!Number.isInteger(seconds) || seconds < 1 || seconds > 3600) {
  console.error(`seconds must be a whole number from 1 to 3600, got ${positional[1]}`);
  process.exit(2);
}
const withPlans = flags.has('--plans') || flags.has('--plans-only');
const throughput = !flags.has('--plans-only');
const sqliteOnly = flags.has('--sqlite-only');
if (sqliteOnly && withPlans) {
  console.error('--sqlite-only runs no PostgreSQL: it does not go with --plans');
  process.exit(2);
}

const connections = 64;
const pairsCount = 32;
const initialBalance = 100000000000;
const warmupSeconds = 3;
const batchMax = 512;
// Only the sandbox rail: the payments move between internal accounts.
const plugins = { rails: ['sandbox'] };

// The whole run is bounded: set-up, four measured runs and the plan step each get a generous share.
const limitS = 240 + (throughput ? 4 * (seconds + warmupSeconds + 90) : 0) + (withPlans ? 1200 : 0);
setTimeout(() => {
  console.error(`write-path benchmark: still running after ${limitS} s; stopping`);
  process.exit(1);  // the exit handlers stop PostgreSQL; the Corridor children die with their pipes
}, limitS * 1000).unref();

const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));

// A metric's value, summed over its series when it has labels; null when the server has no such
// metric.
function metricValue(text, name) {
  const series = [...text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.e+-]+)$`, 'gm'))];
  return series.length ? series.reduce((sum, m) => sum + Number(m[1]), 0) : null;
}

// The counters read before and after a timed window, summed over the processes.
async function counters(servers, pg) {
  const out = { retried: 0, commands: 0, roundTrips: 0, roundTripsKnown: true, statements: 0, writerMs: 0,
    databaseMs: pg ? postgresCpuMs(pg) : null };
  for (const server of servers) {
    const text = await metrics(server);
    out.retried += metricValue(text, 'corridor_ledger_commands_retried_total') ?? 0;
    out.commands += metricValue(text, 'corridor_ledger_batch_size_sum') ?? 0;
    out.batches = (out.batches ?? 0) + (metricValue(text, 'corridor_ledger_batch_size_count') ?? 0);
    const trips = metricValue(text, 'corridor_ledger_round_trips_total');
    if (trips === null) out.roundTripsKnown = false; else out.roundTrips += trips;
    out.statements += metricValue(text, 'corridor_ledger_statements_total') ?? 0;
    const roles = threadCpuMs(server.process.pid);
    out.writerMs += roles['ledger-writer'] || 0;
    out.roles ??= roles;  // the first process's threads by role
  }
  return out;
}

// Requests wrk had in flight when it stopped still complete; wait until every writer is idle.
async function drained(servers) {
  for (let i = 0; i < 200; i++) {
    const depths = await Promise.all(servers.map(async (s) => metricValue(await metrics(s), 'corridor_ledger_queue_depth')));
    if (depths.every((d) => d === 0)) break;
    await sleep(50);
  }
  await sleep(200);
}

// Lock waits on PostgreSQL during a run: every 250 ms, the backends of the database waiting on a
// lock and the lock requests not granted.
function startLockSampler(pg, database) {
  const session = openSession(pg.url);
  const samples = [];
  let stopped = false;
  const done = (async () => {
    while (!stopped) {
      const [[waiting, ungranted]] = await session.query(
        `SELECT (SELECT count(*) FROM pg_stat_activity WHERE datname = '${database}' AND wait_event_type = 'Lock'), ` +
        '(SELECT count(*) FROM pg_locks WHERE NOT granted)');
      samples.push({ waiting: Number(waiting), ungranted: Number(ungranted) });
      await sleep(250);
    }
    session.close();
  })();
  return async () => {
    stopped = true;
    await done;
    const n = samples.length || 1;
    return {
      samples: samples.length,
      meanWaiting: samples.reduce((s, x) => s + x.waiting, 0) / n,
      maxWaiting: Math.max(0, ...samples.map((x) => x.waiting)),
      withWaiters: samples.filter((x) => x.waiting > 0).length / n,
      maxUngranted: Math.max(0, ...samples.map((x) => x.ungranted)),
    };
  };
}

async function deadlocks(pg, database) {
  return Number(await psql(pg.url, `SELECT deadlocks FROM pg_stat_database WHERE datname = '${database}'`));
}

// Bytes per payment on PostgreSQL: the Corridor tables after a VACUUM, each split into its rows
// (the main fork with its free space and visibility maps), its indexes and its TOAST table, over
// the payments the database holds (set-up and warm-up included, as on SQLite).
async function postgresStoragePerPayment(url, payments) {
  await psql(url, 'VACUUM');
  await psql(url, 'CHECKPOINT');
  const rows = (await psql(url,
    'SELECT c.relname, pg_table_size(c.oid) - COALESCE(pg_total_relation_size(NULLIF(c.reltoastrelid, 0)), 0), ' +
    'pg_indexes_size(c.oid), COALESCE(pg_total_relation_size(NULLIF(c.reltoastrelid, 0)), 0) ' +
    "FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind = 'r' " +
    'ORDER BY pg_total_relation_size(c.oid) DESC')).split('\n').map((l) => l.split('|'));
  const tables = rows.map(([name, main, indexes, toast]) => ({
    name, perPayment: (Number(main) + Number(indexes) + Number(toast)) / payments, rowsPerPayment: Number(main) / payments,
    indexesPerPayment: Number(indexes) / payments, toastPerPayment: Number(toast) / payments,
  }));
  return { total: tables.reduce((s, t) => s + t.perPayment, 0), tables };
}

// One measured run of the quote-and-execute workload: `processes` Corridor processes on one
// database (SQLite when `pg` is not given), the 64 connections split between them.
async function measureCorridor(name, { pg, processes = 1 }) {
  const database = pg ? `corridor_bench_${name.toLowerCase().replace(/\W+/g, '_')}` : null;
  if (pg) await psql(pg.url, `CREATE DATABASE ${database}`);
  const servers = [];
  try {
    servers.push(await startBenchServer(buildDir, {
      database: pg ? pg.urlOf(database) : undefined, plugins, config: { ledger: { batch_commands_max: batchMax } },
    }));
    for (let i = 1; i < processes; i++) {
      const other = anotherProcess(servers[0]);
      await launch(other);
      endWithBenchmark(other.process);
      servers.push(other);
    }
    const customers = await fundedCustomers(servers[0], pairsCount, ['USD', 'EUR'], initialBalance);
    // Each process pays between its own customers: what they share is the service accounts.
    const share = (i) => customers.filter((_, k) => k % processes === i).map((c) => c.accounts);
    const wrkAll = (secs) => Promise.all(servers.map((server, i) =>
      runWrk(server, { mode: 'quote', pairs: share(i), seconds: secs, connections: connections / processes })));
    await wrkAll(warmupSeconds);
    await drained(servers);

    const before = await counters(servers, pg);
    const deadlocksBefore = pg ? await deadlocks(pg, database) : 0;
    const stopSampler = pg ? startLockSampler(pg, database) : null;
    const runs = await wrkAll(seconds);
    const locks = stopSampler ? await stopSampler() : null;
    await drained(servers);
    const after = await counters(servers, pg);

    const payments = runs.reduce((s, r) => s + r.requests - r.non2xx, 0);
    const completed = (await api(servers[0], 'GET', '/transactions?type=OUTGOING&status=COMPLETED&limit=1')).totalCount;
    const balances = await verifyBalances(servers[0], customers, completed, initialBalance);
    const storage = pg ? await postgresStoragePerPayment(pg.urlOf(database), completed)
      : await storagePerPayment(servers[0], completed);
    return {
      name, processes, payments, completed, balances, storage, locks,
      perSecond: runs.reduce((s, r) => s + r.perSecond, 0),
      perProcess: runs.map((r) => r.perSecond),
      requests: runs.reduce((s, r) => s + r.requests, 0),
      non2xx: runs.reduce((s, r) => s + r.non2xx, 0),
      socketErrors: runs.map((r) => r.socketErrors).filter(Boolean).join('; '),
      // Two wrk runs give two distributions: the worse of each percentile is shown.
      p50: Math.max(...runs.map((r) => r.p50)), p99: Math.max(...runs.map((r) => r.p99)),
      writerUs: payments ? (after.writerMs - before.writerMs) * 1000 / payments : NaN,
      serverCpu: processes === 1 && payments ? cpuPerOperation(before.roles, after.roles, payments) : null,
      databaseUs: pg && payments ? (after.databaseMs - before.databaseMs) * 1000 / payments : null,
      roundTrips: after.roundTripsKnown && before.roundTripsKnown && payments ? (after.roundTrips - before.roundTrips) / payments : null,
      statements: payments ? (after.statements - before.statements) / payments : null,
      retried: after.retried - before.retried,
      commands: after.commands - before.commands,
      batches: after.batches - before.batches,
      deadlocks: pg ? (await deadlocks(pg, database)) - deadlocksBefore : 0,
    };
  } finally {
    for (const server of servers.slice(1)) await stopCorridor(server, { keepFiles: true });  // shares the first's folder
    if (servers[0]) await stopBenchServer(servers[0]);
    if (pg) await psql(pg.url, `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(() => {});
  }
}

function percentile(sorted, q) {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : NaN;
}

// pgbench TPC-B at scale 10 with the same clients and duration, on the same server. Latency
// percentiles from its per-transaction log.
async function measurePgbench(pg) {
  await psql(pg.url, 'CREATE DATABASE pgbench');
  const url = pg.urlOf('pgbench');
  const pgbench = join(pg.bin, 'pgbench');
  const run = promisify(execFile);
  const logDir = mkdtempSync(join(tmpdir(), 'corridor-bench-pgbench-'));
  try {
    await run(pgbench, ['-i', '-q', '-s', '10', url], { timeout: 300000 });
    const cpuBefore = postgresCpuMs(pg);
    const { stdout } = await run(pgbench, ['-c', String(connections), '-j', '2', '-T', String(seconds), '-l',
      '--log-prefix', join(logDir, 'tx'), url], { encoding: 'utf8', timeout: (seconds + 120) * 1000, cwd: logDir });
    const databaseMs = postgresCpuMs(pg) - cpuBefore;
    const tps = Number(stdout.match(/tps = ([\d.]+) \(without initial connection time\)/)[1]);
    const transactions = Number((stdout.match(/number of transactions actually processed: (\d+)/) || [0, 0])[1]);
    const failed = Number((stdout.match(/number of failed transactions: (\d+)/) || [0, 0])[1]);
    const latencies = [];
    for (const file of readdirSync(logDir)) {
      for (const line of readFileSync(join(logDir, file), 'utf8').split('\n')) {
        const fields = line.split(' ');
        if (fields.length >= 3) latencies.push(Number(fields[2]) / 1000);
      }
    }
    latencies.sort((a, b) => a - b);
    return { name: 'pgbench TPC-B -s 10', perSecond: tps, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99), failed,
      databaseUs: transactions ? databaseMs * 1000 / transactions : null };
  } finally {
    rmSync(logDir, { recursive: true, force: true });
    await psql(pg.url, 'DROP DATABASE IF EXISTS pgbench WITH (FORCE)').catch(() => {});
  }
}

const fixed = (v, digits) => (v === null || v === undefined || Number.isNaN(v) ? 'n/a' : v.toFixed(digits));

function printTable(reference, results) {
  const header = ['run', 'payments/s', 'p50 ms', 'p99 ms', 'writer CPU us/payment', 'PostgreSQL CPU us/payment',
    'round trips/payment', 'statements/payment', 'bytes/payment'];
  const rows = reference ? [[reference.name, `${fixed(reference.perSecond, 0)} tps`, fixed(reference.p50, 2), fixed(reference.p99, 2), '-',
    fixed(reference.databaseUs, 0), '-', '-', '-']] : [];
  for (const r of results) {
    rows.push([r.name, fixed(r.perSecond, 0), fixed(r.p50, 2), fixed(r.p99, 2), fixed(r.writerUs, 0),
      r.databaseUs === null ? '-' : fixed(r.databaseUs, 0), r.roundTrips === null ? 'n/a' : fixed(r.roundTrips, 2),
      r.statements === null ? 'n/a' : fixed(r.statements, 1), fixed(r.storage?.total, 0)]);
  }
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const line = (cells) => `| ${cells.map((c, i) => (i ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join(' | ')} |`;
  console.log(line(header));
  console.log(`|${widths.map((w, i) => (i ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|`);
  for (const row of rows) console.log(line(row));
}

// --sqlite-only: the SQLite run alone, its row of the table and its balances.
async function sqliteOnlyMain() {
  const lite = await measureCorridor('SQLite, 1 process', {});
  console.log(`quote-and-execute, ${connections} connections, ${seconds} s after ${warmupSeconds} s warm-up, ` +
    `synchronous=FULL, ledger batches <= ${batchMax}`);
  printTable(null, [lite]);
  console.log(`targets: SQLite >= 10000 payments/s ${lite.perSecond >= 10000 ? 'met' : 'NOT met'}, ` +
    `writer CPU <= 80 us ${lite.writerUs <= 80 ? 'met' : 'NOT met'}`);
  console.log(`${lite.requests} requests, ${lite.non2xx} non-2xx${lite.socketErrors ? `, socket errors ${lite.socketErrors}` : ''}; ` +
    `ledger batches: ${lite.batches}, mean ${fixed(lite.batches ? lite.commands / lite.batches : NaN, 1)} commands`);
  console.log(`  server CPU per payment: ${lite.serverCpu}`);
  console.log(`  storage: ${formatStorage(lite.storage)}`);
  console.log(`  balances: ${lite.balances}`);
  if (!lite.balances.startsWith('ok')) {
    console.error('write-path benchmark FAILED: see the balances above');
    process.exit(1);
  }
}

async function main() {
  if (sqliteOnly) return sqliteOnlyMain();
  const pg = await startDurablePostgres();
  let failed = false;
  try {
    const settings = await psql(pg.url,
      "SELECT string_agg(name || '=' || current_setting(name), ' ' ORDER BY name) FROM pg_settings WHERE name IN " +
      "('fsync', 'synchronous_commit', 'full_page_writes', 'shared_buffers', 'max_wal_size', 'wal_level', 'server_version')");
    console.log(`PostgreSQL on 127.0.0.1:${pg.port} (${settings})`);
    if (durableSettings.fsync !== 'on' || !/fsync=on/.test(settings) || !/synchronous_commit=on/.test(settings)) {
      throw new Error('the benchmark PostgreSQL is not durable');
    }
    if (throughput) {
      const reference = await measurePgbench(pg);
      console.log(`pgbench: ${reference.perSecond.toFixed(0)} tps, ${reference.failed} failed transactions`);
      const results = [];
      results.push(await measureCorridor('SQLite, 1 process', {}));
      results.push(await measureCorridor('PostgreSQL, 1 process', { pg }));
      results.push(await measureCorridor('PostgreSQL, 2 processes', { pg, processes: 2 }));
      const [lite, one, two] = results;

      console.log(`\nquote-and-execute, ${connections} connections, ${seconds} s after ${warmupSeconds} s warm-up, ` +
        `durable commits, ledger batches <= ${batchMax}; pgbench ${connections} clients, ${seconds} s`);
      printTable(reference, results);
      console.log(`ratios: PostgreSQL (1 process) / pgbench ${(one.perSecond / reference.perSecond).toFixed(2)}x; ` +
        `SQLite / PostgreSQL ${(lite.perSecond / one.perSecond).toFixed(2)}x; ` +
        `2 processes / 1 process ${(two.perSecond / one.perSecond).toFixed(2)}x`);
      const retryShare = (r) => (r.commands ? r.retried / r.commands : 0);
      const verdict = (ok) => (ok ? 'met' : 'NOT met');
      console.log(`targets: PostgreSQL >= 2500 payments/s ${verdict(one.perSecond >= 2500)}, >= 0.65x pgbench ` +
        `${verdict(one.perSecond >= 0.65 * reference.perSecond)}, round trips < 1 per payment ` +
        `${one.roundTrips === null ? 'n/a' : verdict(one.roundTrips < 1)}; SQLite >= 10000 payments/s ` +
        `${verdict(lite.perSecond >= 10000)}, writer CPU <= 80 us ${verdict(lite.writerUs <= 80)}; 2 processes >= 1 process ` +
        `${verdict(two.perSecond >= one.perSecond)}, retries < 0.1% ${verdict(retryShare(two) < 0.001)}; ` +
        `storage <= 3000 bytes per payment ${verdict(results.every((r) => r.storage && r.storage.total <= 3000))}`);
      for (const r of results) {
        const split = r.processes > 1 ? ` (per process: ${r.perProcess.map((v) => v.toFixed(0)).join(' + ')} payments/s)` : '';
        console.log(`${r.name}: ${r.requests} requests${split}, ${r.non2xx} non-2xx${r.socketErrors ? `, socket errors ${r.socketErrors}` : ''}; ` +
          `retried commands ${r.retried} of ${r.commands} (${fixed(r.commands ? 100 * r.retried / r.commands : 0, 3)}%)` +
          (r.locks ? `; deadlocks ${r.deadlocks}; backends waiting on a lock: mean ${r.locks.meanWaiting.toFixed(2)}, ` +
            `max ${r.locks.maxWaiting}, in ${(100 * r.locks.withWaiters).toFixed(0)}% of ${r.locks.samples} samples, ` +
            `about ${(r.locks.meanWaiting * seconds).toFixed(1)} backend-seconds of lock waits in ${seconds} s ` +
            `(max ungranted lock requests ${r.locks.maxUngranted})` : ''));
        if (r.serverCpu) console.log(`  server CPU per payment: ${r.serverCpu}`);
        console.log(`  storage: ${formatStorage(r.storage)}`);
        console.log(`  balances: ${r.balances}`);
        if (!r.balances.startsWith('ok')) failed = true;
      }
    }
    if (withPlans) {
      const { checkPlans } = await import('./plan_stability.mjs');
      const plans = await checkPlans(pg, buildDir, { plugins });
      if (!plans.ok) failed = true;
    }
  } finally {
    pg.stop();
  }
  if (failed) {
    console.error('write-path benchmark FAILED: see the balances and plans above');
    process.exit(1);
  }
}

await main();
