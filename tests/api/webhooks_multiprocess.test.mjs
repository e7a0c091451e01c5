// Two corridor processes deliver webhooks from one database (SQLite file or PostgreSQL): each claims
// deliveries in the database, so every event is sent exactly once while the receiver answers 2xx,
// whichever process committed it and whichever sends it.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCorridor, stopCorridor, launch, call, anotherProcess } from './lib/harness.mjs';
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

test('two processes sharing the outbox send each event once', async () => {
  // A slow receiver keeps deliveries in flight, so both processes look at due events meanwhile.
  receiver = await startReceiver(async () => { await sleep(30); return { status: 200 }; });
  const config = { outbound: { allow_private_addresses: true }, webhooks: { poll_interval_ms: 5, in_flight_max: 8 } };
  first = await startCorridor({ platforms: 1, config });
  second = anotherProcess(first);
  await launch(second);
  const credentials = first.platforms[0].sandbox;
  assert.equal((await call(first, credentials, 'PATCH', '/config', { webhookEndpoint: receiver.url })).status, 200);
  const customer = await newCustomer(first, credentials);
  const account = (await accountsOf(first, credentials, customer.id)).USD;
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
