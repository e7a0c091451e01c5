// Commits whose outcome is unknown, on PostgreSQL (this suite runs only there): a ledger batch whose
// COMMIT loses its connection is looked up by its marker after a reconnect, so every client hears
// the true outcome. A payment answered 2xx is in the ledger exactly once; one answered 503 carries
// Retry-After and is absent; nothing is ever a 500. Corridor talks to PostgreSQL through a proxy
// (lib/pg_proxy.mjs) that cuts connections at COMMIT or refuses them for an outage. A last case
// kills one of two processes with SIGKILL under load.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import {
  startCorridor, stopCorridor, call, launch, anotherProcess, runCli, metricsText,
} from './lib/harness.mjs';
import { startPgProxy } from './lib/pg_proxy.mjs';
import { newCustomer, accountsOf, fund, quoteBody, sleep } from './lib/money.mjs';

const urlFile = process.env.CORRIDOR_TEST_POSTGRES_URL_FILE;
if (!urlFile) throw new Error('commit_outcome runs on PostgreSQL only: CORRIDOR_TEST_POSTGRES_URL_FILE is not set');
const baseUrl = readFileSync(urlFile, 'utf8').trim();

function freshDatabase() {
  const name = `corridor_${randomBytes(6).toString('hex')}`;
  execFileSync('psql', [baseUrl, '-q', '-c', `CREATE DATABASE ${name}`]);
  return baseUrl.replace(/\/[^/]*$/, `/${name}`);
}

const hostPort = (url) => {
  const match = /@([^:/]+):(\d+)\//.exec(url);
  return { host: match[1], port: Number(match[2]) };
};
const viaPort = (url, port) => url.replace(/@[^/]+\//, `@127.0.0.1:${port}/`);

const servers = [];
let proxy;
after(async () => {
  for (const server of servers.reverse()) await stopCorridor(server, { keepFiles: server.keep });
  if (proxy) await proxy.close();
});

// A read that may meet a pooled session the outage killed: that answers 503 with Retry-After
// (and the pool replaces the session), so it is asked again.
async function settledRead(server, credentials, path) {
  for (let attempt = 0; ; attempt++) {
    const response = await call(server, credentials, 'GET', path);
    if (response.status === 200) return response.body;
    assert.equal(response.status, 503, `GET ${path}: ${response.status} ${response.text}`);
    assert.ok(response.headers.get('retry-after'), 'a 503 carries Retry-After');
    assert.ok(attempt < 20, `GET ${path} still 503`);
    await sleep(100);
  }
}

// Sent amounts of the OUTGOING transactions from `source`, each with how many times it occurs.
async function ledgerAmounts(server, credentials, source) {
  const counts = new Map();
  const received = new Map();
  let cursor;
  for (;;) {
    const page = await settledRead(server, credentials,
      `/transactions?type=OUTGOING&senderAccountIdentifier=${source.id}&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    for (const t of page.data) {
      assert.equal(t.status, 'COMPLETED', JSON.stringify(t));
      counts.set(t.sentAmount.amount, (counts.get(t.sentAmount.amount) ?? 0) + 1);
      received.set(t.sentAmount.amount, t.receivedAmount.amount);
    }
    if (!page.hasMore) return { counts, received };
    cursor = page.nextCursor;
  }
}

async function balance(server, credentials, account) {
  const page = await settledRead(server, credentials, `/customers/internal-accounts?customerId=${account.customerId}&limit=100`);
  return page.data.find((a) => a.id === account.id).balance.amount;
}

// Payments of distinct amounts (so each is recognisable in the ledger), `concurrency` at a time,
// until `running()` says stop or `count` were sent. `serverOf(i)` picks the process.
async function payments({ serverOf, credentials, source, destination, firstAmount, count = Infinity,
  running = () => true, concurrency = 16, results = [] }) {
  let next = 0;
  const worker = async () => {
    while (next < count && running()) {
      const i = next++;
      const amount = firstAmount + i;
      const server = serverOf(i);
      let response;
      try {
        response = await call(server, credentials, 'POST', '/quotes',
          quoteBody(source.id, destination.id, amount, 'SENDING', { immediatelyExecute: true }));
      } catch (error) {
        response = { status: 0, error };  // the process died with the request in flight
      }
      results.push({ amount, server, response });
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return results;
}

// What every case checks: no 500 (nor any other status), each 2xx once in the ledger, each 503
// with Retry-After and absent, the balances the acknowledged payments make. Requests that got no
// answer at all (`unanswered`: the process was killed) may be in the ledger, at most once.
async function checkLedger({ server, credentials, source, destination, funded, results, allowUnknown = false }) {
  const acknowledged = results.filter((r) => r.response.status === 201);
  const unavailable = results.filter((r) => r.response.status === 503);
  const unanswered = results.filter((r) => r.response.status === 0);
  const other = results.filter((r) => ![0, 201, 503].includes(r.response.status));
  assert.deepEqual(other.map((r) => `${r.response.status} ${r.response.text}`), [], 'only 201 and 503 answers');
  for (const r of unavailable) {
    assert.equal(r.response.body.code, 'SERVICE_UNAVAILABLE', r.response.text);
    assert.ok(Number(r.response.headers.get('retry-after')) >= 1, `503 without Retry-After: ${r.response.text}`);
    if (!allowUnknown) assert.notEqual(r.response.body.details?.outcome, 'UNKNOWN', r.response.text);
  }
  for (const r of acknowledged) assert.equal(r.response.body.status, 'COMPLETED');

  const { counts, received } = await ledgerAmounts(server, credentials, source);
  for (const r of acknowledged) assert.equal(counts.get(r.amount), 1, `acknowledged payment of ${r.amount} in the ledger once`);
  for (const r of unavailable) {
    if (r.response.body.details?.outcome === 'UNKNOWN') continue;
    assert.equal(counts.get(r.amount), undefined, `payment of ${r.amount} answered 503 is absent`);
  }
  const unansweredAmounts = new Set(unanswered.map((r) => r.amount));
  const acknowledgedAmounts = new Set(acknowledged.map((r) => r.amount));
  for (const [amount, count] of counts) {
    assert.equal(count, 1, `payment of ${amount} recorded ${count} times`);
    assert.ok(acknowledgedAmounts.has(amount) || unansweredAmounts.has(amount) || allowUnknown,
      `payment of ${amount} in the ledger was never acknowledged nor left unanswered`);
  }
  for (const r of acknowledged) assert.equal(received.get(r.amount), r.response.body.totalReceivingAmount);

  let sent = 0;
  let got = 0;
  for (const [amount] of counts) {
    sent += amount;
    got += received.get(amount);
  }
  assert.equal(await balance(server, credentials, source), funded - sent);
  assert.equal(await balance(server, credentials, destination), got);
  return { acknowledged: acknowledged.length, unavailable: unavailable.length, unanswered: unanswered.length };
}

async function lostCommits(server) {
  const text = await metricsText(server);
  const value = (outcome) => Number(new RegExp(`corridor_ledger_lost_commits_total\\{outcome="${outcome}"\\} (\\d+)`).exec(text)[1]);
  return { committed: value('committed'), notCommitted: value('not_committed'), unknown: value('unknown') };
}

let server;
let credentials;
before(async () => {
  const direct = freshDatabase();
  proxy = await startPgProxy(hostPort(direct));
  server = await startCorridor({ platforms: 1, database: viaPort(direct, proxy.port) });
  servers.push(server);
  credentials = server.platforms[0].sandbox;
});

async function payerPair(amount) {
  const sender = await newCustomer(server, credentials);
  const receiver = await newCustomer(server, credentials);
  const source = (await accountsOf(server, credentials, sender.id)).USD;
  const destination = (await accountsOf(server, credentials, receiver.id)).EUR;
  await fund(server, credentials, source.id, amount);
  return { source, destination };
}

test('COMMITs cut under concurrent payments: each client hears the true outcome', async () => {
  const funded = 100_000_000;
  const { source, destination } = await payerPair(funded);
  const before = await lostCommits(server);
  // Every third COMMIT of a batch that moved money is cut, alternately after reaching the server
  // and before.
  await proxy.cutCommits({ every: 3, modes: ['after', 'before'], max: 12 });
  const results = await payments({ serverOf: () => server, credentials, source, destination,
    firstAmount: 10_000, count: 300, concurrency: 24 });
  await proxy.stopCutting();
  const { cuts } = await proxy.stats();
  assert.ok(cuts.after >= 2 && cuts.before >= 2, JSON.stringify(cuts));
  const seen = await checkLedger({ server, credentials, source, destination, funded, results });
  // Batches cut after the COMMIT reached the server were learnt as committed: their payments were
  // answered 201. The ones cut before were learnt as not committed.
  const lost = await lostCommits(server);
  assert.equal(lost.committed - before.committed, cuts.after, JSON.stringify({ lost, cuts }));
  assert.equal(lost.notCommitted - before.notCommitted, cuts.before);
  assert.equal(lost.unknown, before.unknown);
  assert.ok(seen.unavailable >= 1, 'a batch cut before its COMMIT answers 503');
  assert.ok(seen.acknowledged > seen.unavailable, JSON.stringify(seen));
  assert.match(server.stderr, /COMMIT lost its connection had committed/);
});

// The load of the next cases runs for a time, not a count: funded with the sandbox's largest
// deposit so that no payment is refused for its balance however fast they go (a few thousand a
// second of ever larger amounts).
const fundedForTime = 100_000_000_000;

test('PostgreSQL out of reach for 2 s under load: no 500, acknowledged payments present', async () => {
  const funded = fundedForTime;
  const { source, destination } = await payerPair(funded);
  let loading = true;
  const load = payments({ serverOf: () => server, credentials, source, destination,
    firstAmount: 20_000, running: () => loading, concurrency: 16 });
  await sleep(500);
  await proxy.outage(2000);  // every connection closed, new ones refused
  await sleep(1000);
  loading = false;
  const results = await load;
  const seen = await checkLedger({ server, credentials, source, destination, funded, results });
  assert.ok(seen.unavailable >= 1, `the outage showed as 503s: ${JSON.stringify(seen)}`);
  assert.ok(seen.acknowledged >= 1, JSON.stringify(seen));
  // After the outage the service is whole again: a payment goes through (a pooled session the
  // outage killed answers 503 once, and is replaced).
  for (let attempt = 0; ; attempt++) {
    const again = await call(server, credentials, 'POST', '/quotes',
      quoteBody(source.id, destination.id, 90_000 + attempt, 'SENDING', { immediatelyExecute: true }));
    if (again.status === 201) break;
    assert.equal(again.status, 503, again.text);
    assert.ok(attempt < 20, 'payments still refused after the outage');
  }
});

test('SIGKILL of one of two processes under load: acknowledged payments present once, book balanced', async () => {
  const first = await startCorridor({ platforms: 1 });
  servers.push(first);
  const second = anotherProcess(first);
  await launch(second);
  second.keep = true;
  servers.push(second);
  const owner = first.platforms[0].sandbox;
  const sender = await newCustomer(first, owner);
  const receiver = await newCustomer(first, owner);
  const source = (await accountsOf(first, owner, sender.id)).USD;
  const destination = (await accountsOf(first, owner, receiver.id)).EUR;
  const funded = fundedForTime;
  await fund(first, owner, source.id, funded);

  let loading = true;
  let firstUp = true;  // new requests go to the survivor while the killed process is down
  const sent = [];
  const load = payments({ serverOf: (i) => (i % 2 && firstUp ? first : second), credentials: owner, source,
    destination, firstAmount: 30_000, running: () => loading, concurrency: 16, results: sent });
  // Commits are quick, so a kill can land while none of its requests is in flight (every answer
  // already written to its socket): kill again, at most five times, until one is cut off.
  const cutOff = () => sent.some((r) => r.server === first && r.response.status === 0);
  for (let round = 0; round < 5 && !cutOff(); round++) {
    await sleep(800);
    firstUp = false;
    first.process.kill('SIGKILL');
    assert.equal((await first.exited).signal, 'SIGKILL');
    await sleep(800);
    await launch(first);
    firstUp = true;
  }
  await sleep(800);
  loading = false;
  const results = await load;
  // The survivor answered everything it was sent: never a 500, never a dropped request.
  assert.deepEqual(results.filter((r) => r.server === second && r.response.status !== 201)
    .map((r) => `${r.response.status} ${r.response.text}`), []);
  const seen = await checkLedger({ server: second, credentials: owner, source, destination, funded, results });
  assert.ok(seen.unanswered >= 1, `the kill left requests unanswered: ${JSON.stringify(seen)}`);
  const audit = JSON.parse(runCli(first, ['audit', '--json']));
  assert.equal(audit.clean, true, JSON.stringify(audit.findings));
  assert.ok(audit.transfers > 0);
});
