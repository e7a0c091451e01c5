// Quote-and-execute throughput over HTTP at 64 connections, USD internal account to EUR internal
// account, with durable commits (SQLite synchronous=FULL). Runs the same workload twice in one
// session: group commit on (ledger.batch_commands_max 512) and off (1), and prints executed
// payments/s, latency, the ledger batch-size distribution, the server's CPU per payment and the
// ratio. Afterwards it checks that the balances moved by exactly the executed payments, and prints
// the SQLite database's bytes per payment after a WAL checkpoint, split by table. With
// --database-url it runs on that PostgreSQL instead (a fresh database made on it for each run), and
// prints the ledger writer's database round trips and statements per payment on either backend.
//   node tests/bench/quote_execute_bench.mjs BUILD_DIR [seconds] [--database-url postgresql://...]
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';

import {
  api, cpuPerOperation, formatStorage, fundedCustomers, metrics, runWrk, startBenchServer, stopBenchServer,
  storagePerPayment, threadCpuMs, verifyBalances,
} from './lib/bench.mjs';

const urlFlag = process.argv.indexOf('--database-url');
const databaseUrl = urlFlag > 0 ? process.argv[urlFlag + 1] : null;
const positional = process.argv.slice(2).filter((_, i, all) => all[i] !== '--database-url' && all[i - 1] !== '--database-url');
const buildDir = resolve(positional[0] || 'build');
const seconds = Number(positional[1] || 15);
const connections = 64;
const pairsCount = 32;
const initialBalance = 100000000000;

async function batchHistogram(server) {
  const text = await metrics(server);
  const buckets = [...text.matchAll(/corridor_ledger_batch_size_bucket\{le="([^"]+)"\} (\d+)/g)].map((m) => [m[1], Number(m[2])]);
  const sum = Number(text.match(/corridor_ledger_batch_size_sum (\d+)/)[1]);
  const count = Number(text.match(/corridor_ledger_batch_size_count (\d+)/)[1]);
  let previous = 0;
  const distribution = buckets.map(([le, cumulative]) => { const n = cumulative - previous; previous = cumulative; return `<=${le}:${n}`; });
  return { mean: count ? sum / count : 0, distribution: distribution.join(' ') };
}

// A new database on the PostgreSQL of --database-url, or undefined (a SQLite file).
function freshDatabase() {
  if (!databaseUrl) return undefined;
  const name = `corridor_bench_${randomBytes(6).toString('hex')}`;
  execFileSync('psql', [databaseUrl, '-q', '-c', `CREATE DATABASE ${name}`]);
  return databaseUrl.replace(/\/[^/]*$/, `/${name}`);
}

// The writer's counters: commands applied, database round trips and statements it made.
async function writerCounters(server) {
  const text = await metrics(server);
  const counter = (name) => { const m = text.match(new RegExp(`^${name} (\\d+)`, 'm')); return m ? Number(m[1]) : NaN; };
  return {
    commands: counter('corridor_ledger_batch_size_sum'),
    roundTrips: counter('corridor_ledger_round_trips_total'),
    statements: counter('corridor_ledger_statements_total'),
  };
}

async function measure(batchMax) {
  const server = await startBenchServer(buildDir, { config: { ledger: { batch_commands_max: batchMax } }, database: freshDatabase() });
  try {
    const customers = await fundedCustomers(server, pairsCount, ['USD', 'EUR'], initialBalance);
    const pairs = customers.map((c) => c.accounts);
    await runWrk(server, { mode: 'quote', pairs, seconds: 3, connections });  // warm-up
    const cpuBefore = threadCpuMs(server.process.pid);
    const countersBefore = await writerCounters(server);
    const result = await runWrk(server, { mode: 'quote', pairs, seconds, connections });
    const cpuAfter = threadCpuMs(server.process.pid);
    // Requests wrk had in flight when it stopped still complete; count once the writer is idle.
    for (let i = 0; i < 100; i++) {
      if (/corridor_ledger_queue_depth 0\b/.test(await metrics(server))) break;
      await new Promise((ok) => setTimeout(ok, 50));
    }
    await new Promise((ok) => setTimeout(ok, 200));
    result.batches = await batchHistogram(server);
    const countersAfter = await writerCounters(server);
    const commands = countersAfter.commands - countersBefore.commands;
    result.roundTrips = (countersAfter.roundTrips - countersBefore.roundTrips) / commands;
    result.statements = (countersAfter.statements - countersBefore.statements) / commands;
    const completed = (await api(server, 'GET', '/transactions?type=OUTGOING&status=COMPLETED&limit=1')).totalCount;
    result.balances = await verifyBalances(server, customers, completed, initialBalance);
    result.cpu = cpuPerOperation(cpuBefore, cpuAfter, result.requests - result.non2xx);
    // Everything the database holds (warm-up and set-up included) over every payment it holds,
    // webhook events included (no endpoint is set, so they are closed at once and kept for the
    // retention like delivered ones).
    result.storage = await storagePerPayment(server, completed);
    return result;
  } finally {
    await stopBenchServer(server);
  }
}

function report(name, r) {
  console.log(`${name}: ${r.perSecond.toFixed(0)} executed payments/s, p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms, ` +
    `${r.requests} requests, ${r.non2xx} non-2xx${r.socketErrors ? `, socket errors ${r.socketErrors}` : ''}`);
  console.log(`  ledger batches: mean ${r.batches.mean.toFixed(1)} commands; distribution ${r.batches.distribution}`);
  console.log(`  server CPU per payment: ${r.cpu}`);
  console.log(`  ledger writer per payment: ${r.roundTrips.toFixed(2)} database round trips, ${r.statements.toFixed(2)} statements`);
  console.log(`  storage: ${formatStorage(r.storage)}; goal <= 3000 bytes: ${r.storage && r.storage.total <= 3000 ? 'met' : 'NOT met'}`);
  console.log(`  balances: ${r.balances}`);
}

const grouped = await measure(512);
const single = await measure(1);
console.log(`quote-and-execute, ${connections} connections, ${seconds} s, durable commits, USD -> EUR internal accounts, ` +
  (databaseUrl ? 'PostgreSQL' : 'SQLite'));
report('group commit (batch <= 512)', grouped);
report('group commit off (batch 1) ', single);
const ratio = grouped.perSecond / single.perSecond;
console.log(`ratio: ${ratio.toFixed(2)}x; goal >= 5000 payments/s and >= 3x: ${grouped.perSecond >= 5000 && ratio >= 3 ? 'met' : 'NOT met'}`);
