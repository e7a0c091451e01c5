// Transfer-out throughput over HTTP at 64 connections through the sandbox rail plugin, with durable
// commits (SQLite synchronous=FULL). In one session against one server it measures the reference
// first, a sandbox deposit (a money-moving ledger command without a rail), then POST /transfer-out
// (hold the money, record the transaction and the rail operation), waits until the payment engine
// has driven every transfer to COMPLETED, and prints accepted transfers/s, latency, how long the
// engine took to settle them all, the ratio to the reference, and a balance check.
//   node tests/bench/transfer_out_bench.mjs BUILD_DIR [seconds]
import { spawn, execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const confDir = resolve(here, '../../conf');
const buildDir = resolve(process.argv[2] || 'build');
const seconds = Number(process.argv[3] || 15);
const bin = join(buildDir, 'corridor');
const connections = 64;
const accountsCount = 32;
const initialBalance = 100000000000;

async function startServer() {
  const dir = mkdtempSync(join(tmpdir(), 'corridor-bench-'));
  const base = JSON.parse(readFileSync(join(confDir, 'corridor.json'), 'utf8'));
  const config = {
    ...base, listen: '127.0.0.1:0', database: `sqlite:${join(dir, 'bench.db')}`, threads: 0,
    currencies_file: join(confDir, 'currencies.json'), rates_file: join(confDir, 'rates.json'),
    funding_file: join(confDir, 'funding.json'),
    uma_providers_file: join(confDir, 'uma-providers.json'),
    plugins: { ...base.plugins, dir: join(buildDir, 'plugins'), rails: ['sandbox'] },
    external_accounts: { screening_delay_ms: 100 },
    quotes: { ...base.quotes, sweep_interval_ms: 50 },
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
  child.stdout.on('data', () => {});  // the access log stays on and is drained
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

// One customer per pair, each with a funded USD account and an ACTIVE external US account.
async function preparePairs(server) {
  const pairs = [];
  for (let i = 0; i < accountsCount; i++) {
    const customer = await api(server, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: `Bench ${i}` });
    const accounts = await api(server, 'GET', `/customers/internal-accounts?customerId=${encodeURIComponent(customer.id)}`);
    const usd = accounts.data.find((a) => a.balance.currency.code === 'USD').id;
    await api(server, 'POST', `/sandbox/internal-accounts/${encodeURIComponent(usd)}/fund`, { amount: initialBalance });
    const external = await api(server, 'POST', '/customers/external-accounts', {
      customerId: customer.id, currency: 'USD',
      accountInfo: { accountType: 'US_ACCOUNT', accountNumber: `${100000001 + i * 10}`, routingNumber: '021000021',
        accountCategory: 'CHECKING', beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: `Bench ${i}`, birthDate: '1990-04-01', nationality: 'US' } },
    });
    pairs.push({ customer: customer.id, usd, external: external.id });
  }
  for (const pair of pairs) {
    for (let i = 0; ; i++) {
      if ((await api(server, 'GET', `/customers/external-accounts/${pair.external}`)).status === 'ACTIVE') break;
      if (i > 200) throw new Error(`external account ${pair.external} never turned ACTIVE`);
      await new Promise((ok) => setTimeout(ok, 50));
    }
  }
  return pairs;
}

async function runWrk(server, pairs, duration, mode) {
  const { stdout: output } = await promisify(execFile)('wrk', ['-t2', `-c${connections}`, `-d${duration}s`, '--latency',
    '-s', join(here, 'transfer_out.lua'), server.url], {
    encoding: 'utf8',
    env: { ...process.env, BENCH_AUTH: server.auth, BENCH_MODE: mode,
      BENCH_PAIRS: pairs.map((p) => `${p.usd}>${p.external}`).join(',') },
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
    requests, non2xx, perSecond: (requests - non2xx) / duration,
    p50: toMs(number(/^\s+50%\s+(\S+)/m)), p99: toMs(number(/^\s+99%\s+(\S+)/m)),
  };
}

async function countTransactions(server, query) {
  return (await api(server, 'GET', `/transactions?limit=1&${query}`)).totalCount;
}

const server = await startServer();
try {
  const pairs = await preparePairs(server);
  await runWrk(server, pairs, 2, 'fund');  // warm-up
  const fundResult = await runWrk(server, pairs, seconds, 'fund');
  const started = Date.now();
  const transferResult = await runWrk(server, pairs, seconds, 'transfer');
  let pending = 1;
  while (pending > 0) {
    pending = await countTransactions(server, 'type=OUTGOING&status=PENDING');
    if (pending > 0) await new Promise((ok) => setTimeout(ok, 100));
  }
  const settledAfterMs = Date.now() - started;
  // Counted once everything settled: requests in flight when wrk stopped are included.
  const accepted = await countTransactions(server, 'type=OUTGOING');
  const completed = await countTransactions(server, 'type=OUTGOING&status=COMPLETED');
  // Every completed transfer took exactly 1000 cents out of one of the accounts.
  let out = 0;
  for (const pair of pairs) {
    const accounts = await api(server, 'GET', `/customers/internal-accounts?limit=100&customerId=${encodeURIComponent(pair.customer)}`);
    out += accounts.data.find((a) => a.id === pair.usd).balance.amount;
  }
  const metrics = await (await fetch(`${server.url}/metrics`)).text();
  const initiate = metrics.match(/corridor_rail_calls_total\{rail="sandbox",hook="initiate"\} (\d+)/)?.[1];
  console.log(`transfer-out through the sandbox rail, ${connections} connections, ${seconds} s, durable commits`);
  console.log(`reference (sandbox deposit, no rail): ${fundResult.perSecond.toFixed(0)} commands/s, p50 ${fundResult.p50.toFixed(2)} ms, p99 ${fundResult.p99.toFixed(2)} ms, ${fundResult.non2xx} non-2xx`);
  console.log(`transfer-out: ${transferResult.perSecond.toFixed(0)} accepted/s, p50 ${transferResult.p50.toFixed(2)} ms, p99 ${transferResult.p99.toFixed(2)} ms, ${transferResult.non2xx} non-2xx`);
  console.log(`  ${accepted} transfers accepted, ${completed} COMPLETED, all settled ${(settledAfterMs / 1000).toFixed(1)} s after the load began (${(completed * 1000 / settledAfterMs).toFixed(0)} settled/s); sandbox initiate calls ${initiate}`);
  console.log(`ratio transfer-out / reference: ${(transferResult.perSecond / fundResult.perSecond).toFixed(2)}x`);
  const balanceSum = out;
  const balanceCheck = await (async () => {
    // Sum of balances = initial + every deposit (warm-up included) - completed transfers.
    const deposits = await countTransactions(server, 'type=INCOMING');
    const expectedSum = accountsCount * initialBalance + (deposits - accountsCount) * 1000 - completed * 1000;
    return balanceSum === expectedSum ? `ok (${balanceSum} cents)` : `MISMATCH: ${balanceSum} vs ${expectedSum}`;
  })();
  console.log(`balances: ${balanceCheck}`);
} finally {
  server.child.kill('SIGTERM');
  await new Promise((ok) => server.child.on('exit', ok));
  rmSync(server.dir, { recursive: true, force: true });
}
