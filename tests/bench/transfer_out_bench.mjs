// Transfer-out throughput over HTTP at 64 connections through the sandbox rail plugin, with durable
// commits (SQLite synchronous=FULL). In one session against one server it measures the reference
// first, a sandbox deposit (a money-moving ledger command without a rail), then POST /transfer-out
// (hold the money, record the transaction and the rail operation), waits until the payment engine
// has driven every transfer to COMPLETED, and prints accepted transfers/s, latency, how long the
// engine took to settle them all, the ratio to the reference, and a balance check.
//   node tests/bench/transfer_out_bench.mjs BUILD_DIR [seconds]
import { resolve } from 'node:path';

import { api, fundedCustomers, metrics, runWrk, startBenchServer, stopBenchServer } from './lib/bench.mjs';

const buildDir = resolve(process.argv[2] || 'build');
const seconds = Number(process.argv[3] || 15);
const connections = 64;
const accountsCount = 32;
const initialBalance = 100000000000;

// One customer per pair, each with a funded USD account and an ACTIVE external US account.
async function preparePairs(server) {
  const pairs = [];
  const customers = await fundedCustomers(server, accountsCount, ['USD'], initialBalance);
  for (const [i, { customer, accounts: [usd] }] of customers.entries()) {
    const external = await api(server, 'POST', '/customers/external-accounts', {
      customerId: customer, currency: 'USD',
      accountInfo: { accountType: 'US_ACCOUNT', accountNumber: `${100000001 + i * 10}`, routingNumber: '021000021',
        accountCategory: 'CHECKING', beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: `Bench ${i}`, birthDate: '1990-04-01', nationality: 'US' } },
    });
    pairs.push({ customer, usd, external: external.id });
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

const wrkPairs = (pairs) => pairs.map((p) => [p.usd, p.external]);

async function countTransactions(server, query) {
  return (await api(server, 'GET', `/transactions?limit=1&${query}`)).totalCount;
}

const server = await startBenchServer(buildDir, {
  config: { external_accounts: { screening_delay_ms: 100 }, quotes: { sweep_interval_ms: 50 } },
});
try {
  const pairs = await preparePairs(server);
  await runWrk(server, { mode: 'fund', pairs: wrkPairs(pairs), seconds: 2, connections });  // warm-up
  const fundResult = await runWrk(server, { mode: 'fund', pairs: wrkPairs(pairs), seconds, connections });
  const started = Date.now();
  const transferResult = await runWrk(server, { mode: 'transfer', pairs: wrkPairs(pairs), seconds, connections });
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
  const initiate = (await metrics(server)).match(/corridor_rail_calls_total\{rail="sandbox",hook="initiate"\} (\d+)/)?.[1];
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
  await stopBenchServer(server);
}
