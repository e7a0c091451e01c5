// A crash never loses a committed webhook and never invents one: the server is killed with SIGKILL
// while deliveries are under way (the receiver is not answering) and payments are still arriving;
// after a restart every committed event arrives with its original webhookId, and every event that
// arrives reports a change that was committed.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCorridor, stopCorridor, call, launch, anotherProcess, metricsText } from './lib/harness.mjs';
import { startReceiver, stopReceiver } from './lib/receiver.mjs';
import { newCustomer, accountsOf, fund, eventually } from './lib/money.mjs';

let server;
let receiver;
let other;
after(async () => {
  if (other) await stopCorridor(other, { keepFiles: true });
  if (server) await stopCorridor(server);
  if (receiver) await stopReceiver(receiver);
});
const onPostgres = Boolean(process.env.CORRIDOR_TEST_POSTGRES_URL_FILE);

test('SIGKILL with deliveries pending: after a restart every committed event is delivered, nothing else', async () => {
  receiver = await startReceiver(() => null);  // hold every request open: deliveries stay in flight
  server = await startCorridor({
    platforms: 1,
    config: {
      outbound: { allow_private_addresses: true },
      webhooks: { connect_timeout_ms: 500, response_timeout_ms: 3000, retry_initial_interval_ms: 100,
        retry_interval_max_ms: 500, poll_interval_ms: 20 },
    },
  });
  const credentials = server.platforms[0].sandbox;
  assert.equal((await call(server, credentials, 'PATCH', '/config', { webhookEndpoint: receiver.url })).status, 200);
  const customer = await newCustomer(server, credentials);
  const account = (await accountsOf(server, credentials, customer.id)).USD;
  const committed = 12;
  for (let i = 1; i <= committed; i++) await fund(server, credentials, account.id, i);
  await eventually(() => receiver.requests.length >= 4 || undefined);
  const seenBeforeKill = new Set(receiver.requests.map((e) => e.body.webhookId));
  // Payments still arriving when the process dies: committed or not, never half.
  const racing = [];
  for (let i = 0; i < 6; i++) {
    racing.push(call(server, credentials, 'POST', `/sandbox/internal-accounts/${account.id}/fund`, { amount: 1000 + i }).catch(() => null));
  }
  server.process.kill('SIGKILL');
  const exit = await server.exited;
  assert.equal(exit.signal, 'SIGKILL');
  await Promise.all(racing);

  receiver.respond = () => ({ status: 200 });
  const restartedAt = Date.now();
  await launch(server);
  const deposits = await call(server, credentials, 'GET', `/transactions?type=INCOMING&limit=100&customerId=${customer.id}`);
  assert.equal(deposits.status, 200, deposits.text);
  const depositIds = new Set(deposits.body.data.map((t) => t.id));
  assert.ok(depositIds.size >= committed && depositIds.size <= committed + 6, `${depositIds.size} deposits`);
  // Each committed deposit has an INCOMING_PAYMENT and an ACCOUNT_STATUS event.
  const expected = 2 * depositIds.size;
  const delivered = () => {
    const ids = new Map();
    for (const entry of receiver.requests) {
      if (entry.at < restartedAt) continue;
      ids.set(entry.body.webhookId, entry.body);
    }
    return ids;
  };
  await eventually(() => delivered().size >= expected || undefined, { timeoutMs: 30000 });
  const after = delivered();
  assert.equal(after.size, expected, 'events delivered after the restart');
  const incoming = [...after.values()].filter((b) => b.type === 'INCOMING_PAYMENT');
  assert.deepEqual(new Set(incoming.map((b) => b.transaction.id)), depositIds);
  const balances = [...after.values()].filter((b) => b.type === 'ACCOUNT_STATUS');
  assert.equal(balances.length, depositIds.size);
  assert.ok(balances.every((b) => b.accountId === account.id));
  // Every event first sent before the kill came again with its original webhookId.
  for (const id of seenBeforeKill) assert.ok(after.has(id), `${id} was not delivered after the restart`);
  // And every delivery, before or after, names a committed deposit.
  for (const entry of receiver.requests) {
    if (entry.body.type === 'INCOMING_PAYMENT') assert.ok(depositIds.has(entry.body.transaction.id));
  }
});

async function handedOver(of) {
  const found = (await metricsText(of)).match(/^corridor_webhook_handed_over_total (\d+)$/m);
  assert.ok(found, 'no handed-over counter in /metrics');
  return Number(found[1]);
}

// An event handed to delivery at its commit is written leased to its process: if that process dies
// before sending it, another process (PostgreSQL), or the same one restarted (SQLite), sends it when
// the lease runs out, and not before.
test('SIGKILL before a handed-over event is sent: it is delivered after its lease, by another process', async () => {
  if (server) await stopCorridor(server);
  if (receiver) await stopReceiver(receiver);
  receiver = await startReceiver(() => null);  // the first delivery holds the only slot
  const connectMs = 300, responseMs = 1000;
  // webhook_retry_policy's lease, plus the 2 s a claim may wait in the queue.
  const leaseMs = 2 * connectMs + responseMs + 5000 + 2000;
  server = await startCorridor({
    platforms: 1,
    config: {
      outbound: { allow_private_addresses: true },
      webhooks: { connect_timeout_ms: connectMs, response_timeout_ms: responseMs, in_flight_max: 1,
        poll_interval_ms: 20 },
    },
  });
  const credentials = server.platforms[0].sandbox;
  assert.equal((await call(server, credentials, 'PATCH', '/config', { webhookEndpoint: receiver.url })).status, 200);
  const customer = await newCustomer(server, credentials);
  const account = (await accountsOf(server, credentials, customer.id)).USD;
  if (onPostgres) {
    other = anotherProcess(server);
    await launch(other);
  }
  const handedBefore = await handedOver(server);
  const committedAt = Date.now();
  await fund(server, credentials, account.id, 4242);  // INCOMING_PAYMENT and ACCOUNT_STATUS
  await eventually(() => receiver.requests.length >= 1 || undefined);
  assert.equal(await handedOver(server) - handedBefore, 2, 'both events were handed over at the commit');
  // One is under way (held by the receiver); the other waits in the queue, leased, never sent.
  server.process.kill('SIGKILL');
  assert.equal((await server.exited).signal, 'SIGKILL');
  const sentBeforeKill = new Set(receiver.requests.map((e) => e.body.webhookId));
  assert.equal(sentBeforeKill.size, 1, 'only one delivery could be under way');
  receiver.respond = () => ({ status: 200 });
  if (!onPostgres) await launch(server);
  const deliverer = onPostgres ? other : server;
  const events = async () => {
    const listed = await call(deliverer, credentials, 'GET', '/webhooks/deliveries?limit=100');
    assert.equal(listed.status, 200, listed.text);
    return listed.body.data;
  };
  const arrivals = () => receiver.requests.filter((e) => e.at >= committedAt);
  await eventually(() => new Set(arrivals().map((e) => e.body.webhookId)).size >= 2 || undefined,
    { timeoutMs: leaseMs + 15000 });
  const neverSent = arrivals().find((e) => !sentBeforeKill.has(e.body.webhookId));
  assert.ok(neverSent, 'the event never sent before the kill arrived');
  assert.ok(neverSent.at - committedAt >= leaseMs - 1000,
    `sent ${neverSent.at - committedAt} ms after its commit, inside the ${leaseMs} ms lease`);
  assert.ok(['INCOMING_PAYMENT', 'ACCOUNT_STATUS'].includes(neverSent.body.type));
  // Both are recorded as delivered by the process that sent them.
  await eventually(async () => {
    const ok = (await events()).filter((a) => a.outcome === 'SUCCEEDED' && a.attemptedAt >= new Date(committedAt).toISOString());
    return ok.length >= 2 || undefined;
  }, { timeoutMs: 10000 });
});
