// Two Corridor instances on loopback, one platform each, sharing a sandbox Lightning network (a
// folder the spark rail of both writes and scans): a customer of A pays a customer of B by UMA
// address. A looks B's customer up at B's .well-known endpoints, quotes, and pays B's invoice over
// the network; B credits its customer once its platform approved. Both balances, both
// transactions and both platforms' webhooks are checked.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startOnOwnPort, stopCorridor, call } from './lib/harness.mjs';
import { startReceiver, stopReceiver } from './lib/receiver.mjs';
import { accountsOf, eventually, fund, sleep } from './lib/money.mjs';

const initialUsd = 50_000;
let network, a, b, hooksA, hooksB;

// One instance whose platform's UMA domain is its own loopback address, with its webhooks at
// `hooks` (B's platform approves incoming payments there with a 200).
async function instance(hooks) {
  const server = await startOnOwnPort({
    platforms: 1,
    plugins: { rails: ['spark'], settings: {
      // Each instance is its own Lightning node: the network tells their invoices apart by payee.
      spark: { network: 'regtest', node_private_key_hex: randomBytes(32).toString('hex'), sandbox_network_dir: network },
    } },
    config: {
      outbound: { allow_private_addresses: true, timeout_ms: 3000 },
      webhooks: { poll_interval_ms: 20, connect_timeout_ms: 1000, response_timeout_ms: 2000 },
      rails: { call_timeout_ms: 10000, settlement_timeout_ms: 259200000, drive_interval_ms: 20 },
      uma: { post_transaction_poll_interval_ms: 20 },
    },
  });
  server.domain = server.address;
  server.credentials = server.platforms[0].sandbox;
  const patched = await call(server, server.credentials, 'PATCH', '/config', { umaDomain: server.domain, webhookEndpoint: hooks.url });
  assert.equal(patched.status, 200, patched.text);
  return server;
}

before(async () => {
  network = mkdtempSync(join(tmpdir(), 'corridor-lightning-'));
  hooksA = await startReceiver();
  hooksB = await startReceiver(() => ({ status: 200 }));
  a = await instance(hooksA);
  b = await instance(hooksB);
});

after(async () => {
  for (const server of [a, b]) if (server) await stopCorridor(server);
  for (const hooks of [hooksA, hooksB]) if (hooks) await stopReceiver(hooks);
  rmSync(network, { recursive: true, force: true });
});

async function customer(server, name) {
  const created = await call(server, server.credentials, 'POST', '/customers', {
    customerType: 'INDIVIDUAL', umaAddress: `$${name}@${server.domain}`, fullName: name,
  });
  assert.equal(created.status, 201, created.text);
  return { ...created.body, accounts: await accountsOf(server, server.credentials, created.body.id) };
}

async function transaction(server, id) {
  const found = await call(server, server.credentials, 'GET', `/transactions/${encodeURIComponent(id)}`);
  assert.equal(found.status, 200, found.text);
  return found.body;
}

// [type, status] of the payment webhooks one platform received for a transaction, in order.
const paymentEvents = (hooks, transactionId) => hooks.requests
  .filter((entry) => entry.body?.transaction?.id === transactionId)
  .map((entry) => [entry.body.type, entry.body.transaction.status]);

test('a customer of one instance pays a customer of another by UMA address', async () => {
  const alice = await customer(a, 'alice');
  const bob = await customer(b, 'bob');
  await fund(a, a.credentials, alice.accounts.USD.id, initialUsd);

  // The lookup crosses to B: its answer is signed with B's key and names B's currencies.
  const found = await call(a, a.credentials, 'GET', `/receiver/uma/${encodeURIComponent(bob.umaAddress)}?customerId=${encodeURIComponent(alice.id)}`);
  assert.equal(found.status, 200, found.text);
  assert.equal(found.body.receiverUmaAddress, bob.umaAddress);
  assert.ok(found.body.supportedCurrencies.some((currency) => currency.currency.code === 'EUR'), found.text);

  const quote = await call(a, a.credentials, 'POST', '/quotes', {
    source: { sourceType: 'ACCOUNT', accountId: alice.accounts.USD.id },
    destination: { destinationType: 'UMA_ADDRESS', umaAddress: bob.umaAddress, currency: 'EUR' },
    lookupId: found.body.lookupId,
    lockedCurrencySide: 'SENDING',
    lockedCurrencyAmount: 5_000,
    immediatelyExecute: true,
  });
  assert.equal(quote.status, 201, quote.text);
  assert.equal(quote.body.totalSendingAmount, 5_000);
  assert.ok(quote.body.totalReceivingAmount > 0, quote.text);

  // A's side: the payment completes once B's invoice is paid on the network.
  const sent = await eventually(async () => {
    const current = await transaction(a, quote.body.transactionId);
    return current.status === 'PENDING' ? undefined : current;
  });
  assert.equal(sent.status, 'COMPLETED', JSON.stringify(sent));
  assert.equal(sent.type, 'OUTGOING');
  assert.equal(sent.sentAmount.amount, 5_000);
  assert.equal(sent.sentAmount.currency.code, 'USD');

  // B's side: one INCOMING payment for Bob, from Alice's address, for what A quoted.
  const incoming = await eventually(async () => {
    const listed = await call(b, b.credentials, 'GET', `/transactions?type=INCOMING&customerId=${encodeURIComponent(bob.id)}`);
    assert.equal(listed.status, 200, listed.text);
    return listed.body.data.length === 1 && listed.body.data[0].status === 'COMPLETED' ? listed.body.data : undefined;
  });
  const [received] = incoming;
  assert.equal(received.receivedAmount.amount, quote.body.totalReceivingAmount);
  assert.equal(received.receivedAmount.currency.code, 'EUR');

  // Money moved exactly once on each side.
  assert.equal((await accountsOf(a, a.credentials, alice.id)).USD.balance.amount, initialUsd - 5_000);
  assert.equal((await accountsOf(b, b.credentials, bob.id)).EUR.balance.amount, quote.body.totalReceivingAmount);

  // Each platform heard of its own payment, every status change, and nothing of the other's.
  await eventually(() => paymentEvents(hooksA, sent.id).length >= 2 && paymentEvents(hooksB, received.id).length >= 2);
  await sleep(200);
  assert.deepEqual(paymentEvents(hooksA, sent.id), [['OUTGOING_PAYMENT', 'PENDING'], ['OUTGOING_PAYMENT', 'COMPLETED']]);
  const incomingEvents = paymentEvents(hooksB, received.id);
  assert.deepEqual(incomingEvents.at(-1), ['INCOMING_PAYMENT', 'COMPLETED']);
  assert.ok(incomingEvents.slice(0, -1).every(([type, status]) => type === 'INCOMING_PAYMENT' && status === 'PENDING'), JSON.stringify(incomingEvents));
  assert.deepEqual(paymentEvents(hooksA, received.id), []);
  assert.deepEqual(paymentEvents(hooksB, sent.id), []);
});
