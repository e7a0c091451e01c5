// Quote-and-execute throughput over HTTP at 64 connections, USD internal account to EUR internal
// account, with durable commits (SQLite synchronous=FULL). Runs the same workload twice in one
// session: group commit on (ledger.batch_commands_max 512) and off (1), and prints executed
// payments/s, latency, the ledger batch-size distribution, the server's CPU per payment and the
// ratio. Afterwards it checks that the balances moved by exactly the executed payments, and prints
// the SQLite database's bytes per payment after a WAL checkpoint, split by table.
//   node tests/bench/quote_execute_bench.mjs BUILD_DIR [seconds]
import { resolve } from 'node:path';

import {
  api, cpuPerOperation, formatStorage, fundedCustomers, metrics, runWrk, startBenchServer, stopBenchServer,
  storagePerPayment, threadCpuMs, verifyBalances,
} from './lib/bench.mjs';

const buildDir = resolve(process.argv[2] || 'build');
const seconds = Number(process.argv[3] || 15);
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

async function measure(batchMax) {
  const server = await startBenchServer(buildDir, { config: { ledger: { batch_commands_max: batchMax } } });
  try {
    const customers = await fundedCustomers(server, pairsCount, ['USD', 'EUR'], initialBalance);
    const pairs = customers.map((c) => c.accounts);
    await runWrk(server, { mode: 'quote', pairs, seconds: 3, connections });  // warm-up
    const cpuBefore = threadCpuMs(server.process.pid);
    const result = await runWrk(server, { mode: 'quote', pairs, seconds, connections });
    const cpuAfter = threadCpuMs(server.process.pid);
    // Requests wrk had in flight when it stopped still complete; count once the writer is idle.
    for (let i = 0; i < 100; i++) {
      if (/corridor_ledger_queue_depth 0\b/.test(await metrics(server))) break;
      await new Promise((ok) => setTimeout(ok, 50));
    }
    await new Promise((ok) => setTimeout(ok, 200));
    result.batches = await batchHistogram(server);
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
  console.log(`  storage: ${formatStorage(r.storage)}; goal <= 3000 bytes: ${r.storage && r.storage.total <= 3000 ? 'met' : 'NOT met'}`);
  console.log(`  balances: ${r.balances}`);
}

const grouped = await measure(512);
const single = await measure(1);
console.log(`quote-and-execute, ${connections} connections, ${seconds} s, durable commits, USD -> EUR internal accounts`);
report('group commit (batch <= 512)', grouped);
report('group commit off (batch 1) ', single);
const ratio = grouped.perSecond / single.perSecond;
console.log(`ratio: ${ratio.toFixed(2)}x; goal >= 5000 payments/s and >= 3x: ${grouped.perSecond >= 5000 && ratio >= 3 ? 'met' : 'NOT met'}`);
