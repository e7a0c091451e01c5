// Quote-and-execute throughput over HTTP at 64 connections, USD internal account to EUR internal
// account, with durable commits (SQLite synchronous=FULL). Runs the same workload twice in one
// session: group commit on (ledger.batch_commands_max 512) and off (1), and prints executed
// payments/s, latency, the ledger batch-size distribution and the ratio. Afterwards it checks that
// the balances moved by exactly the executed payments.
//   node tests/bench/quote_execute_bench.mjs BUILD_DIR [seconds]
import { spawn, execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const confDir = resolve(here, '../../conf');
const buildDir = resolve(process.argv[2] || 'build');
const seconds = Number(process.argv[3] || 15);
const bin = join(buildDir, 'corridor');
const connections = 64;
const pairsCount = 32;

async function startServer(batchMax) {
  const dir = mkdtempSync(join(tmpdir(), 'corridor-bench-'));
  const base = JSON.parse(readFileSync(join(confDir, 'corridor.json'), 'utf8'));
  const config = {
    ...base, listen: '127.0.0.1:0', database: `sqlite:${join(dir, 'bench.db')}`, threads: 0,
    currencies_file: join(confDir, 'currencies.json'), rates_file: join(confDir, 'rates.json'),
    funding_file: join(confDir, 'funding.json'), plugins: { ...base.plugins, dir: join(buildDir, 'plugins') },
    uma_providers_file: join(confDir, 'uma-providers.json'),
    ledger: { ...base.ledger, batch_commands_max: batchMax },
    bulk_import: { ...base.bulk_import, dir: join(dir, 'bulk-imports') },
  };
  const configPath = join(dir, 'corridor.json');
  writeFileSync(configPath, JSON.stringify(config));
  const platform = JSON.parse(execFileSync(bin, ['platform', 'create', '--name', 'Bench',
    '--uma-domain', 'bench.example', '--regulated', '--json', '--config', configPath], { encoding: 'utf8' }));
  const child = spawn(bin, ['serve', '--config', configPath], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise((ok, fail) => {
    let out = '';
    const onData = (chunk) => {
      out += chunk;
      const match = out.match(/listening on (http:\/\/\S+)/);
      if (match) { child.stdout.off('data', onData); ok(match[1]); }
    };
    child.stdout.on('data', onData);
    child.on('exit', (code) => fail(new Error(`server exited ${code}`)));
  });
  // The access log stays on, as operators run it; its lines go to a pipe that is drained.
  child.stdout.on('data', () => {});
  const credentials = platform.sandbox;
  const auth = 'Basic ' + Buffer.from(`${credentials.clientId}:${credentials.clientSecret}`).toString('base64');
  return { dir, child, url, auth };
}

async function api(server, method, path, body) {
  const response = await fetch(`${server.url}/2025-10-13${path}`, {
    method, headers: { authorization: server.auth, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${path} -> ${response.status} ${text}`);
  return JSON.parse(text);
}

async function prepareAccounts(server) {
  const pairs = [];
  for (let i = 0; i < pairsCount; i++) {
    const customer = await api(server, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: `Bench ${i}` });
    const accounts = await api(server, 'GET', `/customers/internal-accounts?customerId=${encodeURIComponent(customer.id)}`);
    const usd = accounts.data.find((a) => a.balance.currency.code === 'USD').id;
    const eur = accounts.data.find((a) => a.balance.currency.code === 'EUR').id;
    await api(server, 'POST', `/sandbox/internal-accounts/${encodeURIComponent(usd)}/fund`, { amount: 100000000000 });
    pairs.push({ customer: customer.id, usd, eur });
  }
  return pairs;
}

// Asynchronous on purpose: the event loop must keep draining the server's access log meanwhile.
async function runWrk(server, pairs, duration) {
  const { stdout: output } = await promisify(execFile)('wrk', ['-t2', `-c${connections}`, `-d${duration}s`, '--latency',
    '-s', join(here, 'quote_execute.lua'), server.url], {
    encoding: 'utf8',
    env: { ...process.env, BENCH_AUTH: server.auth, BENCH_PAIRS: pairs.map((p) => `${p.usd}>${p.eur}`).join(',') },
  });
  const number = (re) => { const m = output.match(re); return m ? m[1] : null; };
  const toMs = (text) => {
    if (!text) throw new Error(`wrk completed no request:\n${output}`);
    const m = text.match(/([\d.]+)(us|ms|s)/);
    return Number(m[1]) * (m[2] === 'us' ? 0.001 : m[2] === 's' ? 1000 : 1);
  };
  const requests = Number(number(/(\d+) requests in/));
  const non2xx = Number(number(/Non-2xx or 3xx responses: (\d+)/) || 0);
  const socketErrors = number(/Socket errors: (.*)/);
  return {
    requests, non2xx, socketErrors,
    executedPerSecond: (requests - non2xx) / duration,
    p50: toMs(number(/^\s+50%\s+(\S+)/m)), p99: toMs(number(/^\s+99%\s+(\S+)/m)),
  };
}

// CPU time of the server's threads by role (io-N, db-N, ledger-writer, wal-checkpoint), in ms, from
// /proc: with the machine shared by the load generator, CPU per payment is the steadier figure.
function threadCpuMs(pid) {
  const tick = 10;  // USER_HZ is 100 on Linux
  const roles = {};
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let stat;
    try { stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8'); } catch { continue; }
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const role = name.replace(/-\d+$/, '');
    roles[role] = (roles[role] || 0) + (Number(fields[11]) + Number(fields[12])) * tick;
  }
  return roles;
}

function cpuPerPayment(before, after, payments) {
  const parts = Object.keys(after).map((role) => [role, (after[role] - (before[role] || 0)) * 1000 / payments])
    .filter(([, us]) => us >= 1).sort((a, b) => b[1] - a[1]);
  const total = parts.reduce((sum, [, us]) => sum + us, 0);
  return `${total.toFixed(0)} us (` + parts.map(([role, us]) => `${role} ${us.toFixed(0)}`).join(', ') + ')';
}

async function batchHistogram(server) {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const buckets = [...text.matchAll(/corridor_ledger_batch_size_bucket\{le="([^"]+)"\} (\d+)/g)].map((m) => [m[1], Number(m[2])]);
  const sum = Number(text.match(/corridor_ledger_batch_size_sum (\d+)/)[1]);
  const count = Number(text.match(/corridor_ledger_batch_size_count (\d+)/)[1]);
  let previous = 0;
  const distribution = buckets.map(([le, cumulative]) => { const n = cumulative - previous; previous = cumulative; return `<=${le}:${n}`; });
  return { mean: count ? sum / count : 0, count, distribution: distribution.join(' ') };
}

async function verifyBalances(server, pairs, executed) {
  let usdSpent = 0, eurReceived = 0;
  for (const pair of pairs) {
    for (const id of [pair.usd, pair.eur]) {
      const account = (await api(server, 'GET', `/customers/internal-accounts?limit=100&customerId=${encodeURIComponent(pair.customer)}`))
        .data.find((a) => a.id === id);
      if (id === pair.usd) usdSpent += 100000000000 - account.balance.amount;
      else eurReceived += account.balance.amount;
    }
  }
  // Every executed payment sent exactly 1000 cents.
  return usdSpent === executed * 1000 ? `ok (${executed} payments, ${usdSpent} USD cents out, ${eurReceived} EUR cents in)` :
    `MISMATCH: ${usdSpent} cents out for ${executed} payments`;
}

async function measure(batchMax) {
  const server = await startServer(batchMax);
  try {
    const pairs = await prepareAccounts(server);
    await runWrk(server, pairs, 3);  // warm-up
    const before = await batchHistogram(server);
    const warmRequests = (await api(server, 'GET', '/transactions?type=OUTGOING&status=COMPLETED&limit=1')).totalCount;
    const cpuBefore = threadCpuMs(server.child.pid);
    const result = await runWrk(server, pairs, seconds);
    const cpuAfter = threadCpuMs(server.child.pid);
    // Requests wrk had in flight when it stopped still complete; count once the writer is idle.
    for (let i = 0; i < 100; i++) {
      const metrics = await (await fetch(`${server.url}/metrics`)).text();
      if (/corridor_ledger_queue_depth 0\b/.test(metrics)) break;
      await new Promise((ok) => setTimeout(ok, 50));
    }
    await new Promise((ok) => setTimeout(ok, 200));
    const after = await batchHistogram(server);
    const completed = (await api(server, 'GET', '/transactions?type=OUTGOING&status=COMPLETED&limit=1')).totalCount;
    result.batches = after;
    result.batchesInRun = after.count - before.count;
    result.balances = await verifyBalances(server, pairs, completed);
    result.completedInRun = completed - warmRequests;
    result.cpu = cpuPerPayment(cpuBefore, cpuAfter, result.requests - result.non2xx);
    return result;
  } finally {
    server.child.kill('SIGTERM');
    await new Promise((ok) => server.child.on('exit', ok));
    rmSync(server.dir, { recursive: true, force: true });
  }
}

function report(name, r) {
  console.log(`${name}: ${r.executedPerSecond.toFixed(0)} executed payments/s, p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms, ` +
    `${r.requests} requests, ${r.non2xx} non-2xx${r.socketErrors ? `, socket errors ${r.socketErrors}` : ''}`);
  console.log(`  ledger batches: mean ${r.batches.mean.toFixed(1)} commands; distribution ${r.batches.distribution}`);
  console.log(`  server CPU per payment: ${r.cpu}`);
  console.log(`  balances: ${r.balances}`);
}

const grouped = await measure(512);
const single = await measure(1);
console.log(`quote-and-execute, ${connections} connections, ${seconds} s, durable commits, USD -> EUR internal accounts`);
report('group commit (batch <= 512)', grouped);
report('group commit off (batch 1) ', single);
const ratio = grouped.executedPerSecond / single.executedPerSecond;
console.log(`ratio: ${ratio.toFixed(2)}x; goal >= 5000 payments/s and >= 3x: ${grouped.executedPerSecond >= 5000 && ratio >= 3 ? 'met' : 'NOT met'}`);
