// A crash never loses a committed webhook and never invents one: the server is killed with SIGKILL
// while deliveries are under way (the receiver is not answering) and payments are still arriving;
// after a restart every committed event arrives with its original webhookId, and every event that
// arrives reports a change that was committed.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCorridor, stopCorridor, call, launch } from './lib/harness.mjs';
import { startReceiver, stopReceiver } from './lib/receiver.mjs';
import { newCustomer, accountsOf, fund, eventually } from './lib/money.mjs';

let server;
let receiver;
after(async () => {
  if (server) await stopCorridor(server);
  if (receiver) await stopReceiver(receiver);
});

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
