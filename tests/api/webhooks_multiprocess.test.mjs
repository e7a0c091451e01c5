// Two corridor processes deliver webhooks from one database (SQLite file or PostgreSQL): each claims
// deliveries in the database, so every event is sent exactly once while the receiver answers 2xx,
// whichever process committed it and whichever sends it.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCorridor, stopCorridor, launch, call, anotherProcess, metricsText } from './lib/harness.mjs';
import { startReceiver, stopReceiver } from './lib/receiver.mjs';
import { newCustomer, accountsOf, eventually, sleep } from './lib/money.mjs';

let first;
let second;
let receiver;
after(async () => {
  if (second) await stopCorridor(second, { keepFiles: true });
  if (first) await stopCorridor(first);
  if (receiver) await stopReceiver(receiver);
});

// Two processes on one database, the platform's endpoint on `receiver`: its credentials and a
// customer's USD account.
async function startTwo(config) {
  first = await startCorridor({ platforms: 1, config });
  second = anotherProcess(first);
  await launch(second);
  const credentials = first.platforms[0].sandbox;
  assert.equal((await call(first, credentials, 'PATCH', '/config', { webhookEndpoint: receiver.url })).status, 200);
  const customer = await newCustomer(first, credentials);
  return { credentials, account: (await accountsOf(first, credentials, customer.id)).USD };
}

test('two processes sharing the outbox send each event once', async () => {
  // A slow receiver keeps deliveries in flight, so both processes look at due events meanwhile.
  receiver = await startReceiver(async () => { await sleep(30); return { status: 200 }; });
  const config = { outbound: { allow_private_addresses: true }, webhooks: { poll_interval_ms: 5, in_flight_max: 8 } };
  const { credentials, account } = await startTwo(config);
  const funds = 40;
  await Promise.all(Array.from({ length: funds }, (_, i) =>
    call(i % 2 ? first : second, credentials, 'POST', `/sandbox/internal-accounts/${account.id}/fund`, { amount: i + 1 })
      .then((r) => assert.equal(r.status, 200, r.text))));
  const expected = 2 * funds;
  await eventually(() => new Set(receiver.requests.map((e) => e.body.webhookId)).size >= expected || undefined, { timeoutMs: 30000 });
  await sleep(500);
  const counts = new Map();
  for (const entry of receiver.requests) counts.set(entry.body.webhookId, (counts.get(entry.body.webhookId) ?? 0) + 1);
  assert.equal(counts.size, expected);
  const repeated = [...counts].filter(([, n]) => n !== 1);
  assert.deepEqual(repeated, [], 'an event was sent more than once');
  const listed = await call(second, credentials, 'GET', '/webhooks/deliveries?limit=1');
  assert.equal(listed.body.totalCount, expected);
});

async function readsBacklog(server) {
  const found = (await metricsText(server)).match(/^corridor_webhook_backlog_reader (\d)$/m);
  assert.ok(found, 'no backlog reader gauge in /metrics');
  return found[1] === '1';
}

// The backlog (events not handed over at their commit, and retries) is read by one process at a
// time, holding its claims in memory: PostgreSQL's advisory lock, or a file lock beside the SQLite
// file. When that process dies with claims held, another takes the lock and sends everything.
test('one process reads the backlog; when it dies another does, and every event arrives', async () => {
  if (second) await stopCorridor(second, { keepFiles: true });
  if (first) await stopCorridor(first);
  if (receiver) await stopReceiver(receiver);
  second = undefined;
  receiver = await startReceiver(() => null);  // holds every request: claims stay held
  const config = {
    outbound: { allow_private_addresses: true },
    // Harness-only: short time-outs and retries so that the held requests come round quickly.
    webhooks: { poll_interval_ms: 5, in_flight_max: 2, connect_timeout_ms: 500, response_timeout_ms: 2000,
      retry_initial_interval_ms: 100, retry_interval_max_ms: 200 },
  };
  const { credentials, account } = await startTwo(config);
  const funds = 30;
  for (let i = 0; i < funds; i++) {
    const r = await call(i % 2 ? first : second, credentials, 'POST', `/sandbox/internal-accounts/${account.id}/fund`, { amount: i + 1 });
    assert.equal(r.status, 200, r.text);
  }
  // Exactly one of the two reads the backlog.
  await eventually(async () => ((await readsBacklog(first)) !== (await readsBacklog(second))) || undefined);
  const [reader, survivor] = (await readsBacklog(first)) ? [first, second] : [second, first];
  assert.equal(await readsBacklog(survivor), false);
  await eventually(() => receiver.requests.length >= 2 || undefined);
  reader.process.kill('SIGKILL');
  assert.equal((await reader.exited).signal, 'SIGKILL');
  receiver.respond = () => ({ status: 200 });
  // The survivor takes the lock and sends every committed event, those the reader held included.
  const expected = 2 * funds;  // each funding's INCOMING_PAYMENT and ACCOUNT_STATUS
  const ids = () => new Set(receiver.requests.filter((e) => e.body.webhookId).map((e) => e.body.webhookId));
  await eventually(() => ids().size >= expected || undefined, { timeoutMs: 30000 });
  assert.equal(ids().size, expected);
  assert.equal(await readsBacklog(survivor), true);
  const listed = await call(survivor, credentials, 'GET', '/webhooks/deliveries?limit=1&outcome=SUCCEEDED');
  assert.equal(listed.status, 200, listed.text);
  assert.equal(listed.body.totalCount, ids().size, 'one successful attempt recorded per event');
});
