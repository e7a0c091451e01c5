// Two Corridor instances on loopback, one platform each, sharing a sandbox Lightning network (a
// folder the spark rail of both writes and scans): a customer of A pays a customer of B by UMA
// address. Each instance is started the way the quick start starts one: its platform created with
// its own address as UMA domain (both environments share it), and only sandbox credentials used.
// A looks B's customer up at B's .well-known endpoints by the address B gave it, quotes, and pays
// B's invoice over the network; B credits its customer once its platform approved. Both balances,
// both transactions and both platforms' webhooks are checked.
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
    ownUmaDomain: true,
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
  server.production = server.platforms[0].production;
  const config = await call(server, server.credentials, 'GET', '/config');
  assert.equal(config.body.umaDomain, server.domain, 'the sandbox shares the platform\'s UMA domain');
  const patched = await call(server, server.credentials, 'PATCH', '/config', { webhookEndpoint: hooks.url });
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

// A customer with the address `$name@<domain>`, or the one Corridor gives it without a name.
async function customer(server, name, credentials = server.credentials) {
  const created = await call(server, credentials, 'POST', '/customers', {
    customerType: 'INDIVIDUAL', fullName: name ?? 'Given Address',
    ...(name ? { umaAddress: `$${name}@${server.domain}` } : {}),
  });
  assert.equal(created.status, 201, created.text);
  return { ...created.body, accounts: await accountsOf(server, credentials, created.body.id) };
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

test('a sandbox customer of one instance pays a sandbox customer of another by UMA address', async () => {
  const alice = await customer(a, 'alice');
  const bob = await customer(b);  // the address B gives it
  assert.ok(bob.umaAddress.endsWith(`@${b.domain}`), bob.umaAddress);
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

// GET <domain>/.well-known/lnurlp/<user> as a plain LNURL-pay client asks it.
async function lnurlp(server, address) {
  const user = address.slice(1, address.indexOf('@'));
  const response = await fetch(`${server.baseUrl}/.well-known/lnurlp/${encodeURIComponent(user)}`);
  return { status: response.status, body: await response.json() };
}

test('an address has one owner across both environments of a domain, and resolves to it there', async () => {
  // Production narrows what it receives, so that each answer shows whose terms it carries.
  const narrowed = await call(a, a.production, 'PATCH', '/config', { supportedCurrencies: [
    { currencyCode: 'USD', minAmount: 100, maxAmount: 77_700, enabledTransactionTypes: ['OUTGOING', 'INCOMING'], requiredCounterpartyFields: [] },
  ] });
  assert.equal(narrowed.status, 200, narrowed.text);
  const live = await customer(a, 'carol', a.production);
  const test = await customer(a, 'dave');

  // Either environment's customer is answered at the domain, with its own environment's terms.
  const liveAnswer = await lnurlp(a, live.umaAddress);
  assert.equal(liveAnswer.status, 200, JSON.stringify(liveAnswer.body));
  assert.ok(liveAnswer.body.callback.endsWith(`/uma/payreq/${live.id}`), liveAnswer.body.callback);
  const testAnswer = await lnurlp(a, test.umaAddress);
  assert.equal(testAnswer.status, 200, JSON.stringify(testAnswer.body));
  assert.ok(testAnswer.body.callback.endsWith(`/uma/payreq/${test.id}`), testAnswer.body.callback);
  assert.ok(testAnswer.body.maxSendable > liveAnswer.body.maxSendable, 'the sandbox answers with its own currencies');

  // The other environment cannot take an address, on creation or by a change.
  const taken = await call(a, a.credentials, 'POST', '/customers', {
    customerType: 'INDIVIDUAL', fullName: 'Copy', umaAddress: live.umaAddress,
  });
  assert.equal(taken.status, 409, taken.text);
  assert.equal(taken.body.code, 'UMA_ADDRESS_EXISTS');
  const moved = await call(a, a.production, 'PATCH', `/customers/${encodeURIComponent(live.id)}`, {
    customerType: 'INDIVIDUAL', umaAddress: test.umaAddress,
  });
  assert.equal(moved.status, 409, moved.text);
  assert.equal(moved.body.code, 'UMA_ADDRESS_EXISTS');
  const unchanged = await lnurlp(a, test.umaAddress);
  assert.ok(unchanged.body.callback.endsWith(`/uma/payreq/${test.id}`), unchanged.body.callback);

  // The sandbox's proxy subdomain still answers for the sandbox customer only.
  const config = await call(a, a.credentials, 'GET', '/config');
  const proxied = `${config.body.proxyUmaSubdomain}.uma.corridor.localhost`;
  const user = test.umaAddress.slice(1, test.umaAddress.indexOf('@'));
  const viaProxy = await fetch(`${a.baseUrl}/.well-known/lnurlp/${user}`, { headers: { 'x-forwarded-host': proxied } });
  assert.equal(viaProxy.status, 200, await viaProxy.clone().text());
  assert.ok((await viaProxy.json()).callback.endsWith(`/uma/payreq/${test.id}`));
  const liveUser = live.umaAddress.slice(1, live.umaAddress.indexOf('@'));
  const notViaProxy = await fetch(`${a.baseUrl}/.well-known/lnurlp/${liveUser}`, { headers: { 'x-forwarded-host': proxied } });
  assert.equal(notViaProxy.status, 404);
});
