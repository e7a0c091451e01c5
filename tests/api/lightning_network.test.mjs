// Two Corridor instances on loopback whose spark rails share one sandbox Lightning network (a
// folder), each with its own node key: instance B's funding invoices (an internal account's, a
// REALTIME_FUNDING quote's) are paid by instance A's transfer-out to a LIGHTNING external account,
// and B credits them exactly once, with its INCOMING_PAYMENT and ACCOUNT_STATUS events; paying an
// invoice twice fails on A with a refund; a restarted B credits nothing again. The invoice B's UMA
// pay-request callback signs (same node key as its rail) is paid the same way and settles B's UMA
// payment once B's platform approved it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, sign } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCorridor, stopCorridor, launch, call, runCli } from './lib/harness.mjs';
import { newCustomer, accountsOf, platformAccounts, fund, eventually, idempotencyKey, sleep } from './lib/money.mjs';
import { outboxEvents, queryRows } from './lib/database.mjs';
import { startReceiver, stopReceiver } from './lib/receiver.mjs';
import { keyPair, startKeyServer } from './lib/uma_sender.mjs';

let network;  // the shared sandbox network folder
let keys;     // where each instance keeps its node key
let a;        // the paying instance
let b;        // the receiving instance
let aSandbox;
let bSandbox;
let approvals;  // B's platform webhook endpoint: approves every incoming payment
let sender;     // a sending UMA provider stub that publishes its keys

function settings(name) {
  return {
    spark: {
      network: 'regtest',
      node_private_key_file: join(keys, `${name}.key`),
      sandbox_network_dir: network,
    },
  };
}

async function instance(name) {
  return startCorridor({
    platforms: 1,
    plugins: { rails: ['sandbox', 'spark'], settings: settings(name) },
    config: {
      outbound: { allow_private_addresses: true },
      external_accounts: { screening_delay_ms: 100 },
      rails: { call_timeout_ms: 1000, settlement_timeout_ms: 60000, drive_interval_ms: 20 },
    },
  });
}

before(async () => {
  network = mkdtempSync(join(tmpdir(), 'corridor-ln-network-'));
  keys = mkdtempSync(join(tmpdir(), 'corridor-ln-keys-'));
  a = await instance('a');
  b = await instance('b');
  aSandbox = a.platforms[0].sandbox;
  bSandbox = b.platforms[0].sandbox;
  approvals = await startReceiver(() => ({ status: 200 }));
  const patched = await call(b, bSandbox, 'PATCH', '/config', { webhookEndpoint: approvals.url });
  assert.equal(patched.status, 200, patched.text);
  sender = await startSender();
});
after(async () => {
  if (a) await stopCorridor(a);
  if (b) await stopCorridor(b);
  if (approvals) await stopReceiver(approvals);
  if (sender) {
    sender.server.closeAllConnections?.();
    sender.server.close();
  }
  rmSync(network, { recursive: true, force: true });
  rmSync(keys, { recursive: true, force: true });
});

function invoiceOf(instructions) {
  assert.equal(instructions.length, 1, JSON.stringify(instructions));
  const info = instructions[0].accountOrWalletInfo;
  assert.equal(info.accountType, 'SPARK_WALLET');
  assert.match(info.address, /^sparkrt1/);
  assert.match(info.invoice, /^lnbcrt/);
  return info;
}

// A's payer: a customer whose BTC account holds `amount` satoshis.
async function fundedPayer(amount) {
  const customer = await newCustomer(a, aSandbox);
  const btc = (await accountsOf(a, aSandbox, customer.id)).BTC;
  await fund(a, aSandbox, btc.id, amount);
  return { customer, btc };
}

async function lightningAccount(customerId, invoice) {
  const created = await call(a, aSandbox, 'POST', '/customers/external-accounts', {
    customerId, currency: 'BTC', accountInfo: { accountType: 'LIGHTNING', invoice },
  });
  assert.equal(created.status, 201, created.text);
  return eventually(async () => {
    const found = await call(a, aSandbox, 'GET', `/customers/external-accounts/${created.body.id}`);
    return found.body?.status === 'ACTIVE' ? found.body : null;
  });
}

async function transferOut(sourceId, destinationId, amount) {
  const response = await call(a, aSandbox, 'POST', '/transfer-out',
    { source: { accountId: sourceId }, destination: { accountId: destinationId }, amount },
    { 'idempotency-key': idempotencyKey() });
  assert.equal(response.status, 201, response.text);
  return eventually(async () => {
    const found = await call(a, aSandbox, 'GET', `/transactions/${response.body.id}`);
    return ['COMPLETED', 'FAILED'].includes(found.body?.status) ? found.body : null;
  });
}

async function balance(server, credentials, customerId, currency) {
  return (await accountsOf(server, credentials, customerId))[currency].balance.amount;
}

test('the spark rail says it runs the sandbox itself', () => {
  const listed = JSON.parse(runCli(b, ['plugins', 'list', '--json']));
  const spark = listed.rails.find((rail) => rail.name === 'spark');
  assert.ok(spark, JSON.stringify(listed));
  assert.equal(spark.abi, '1.3');
  assert.deepEqual(spark.capabilities, ['PAYOUT', 'SANDBOX']);
  assert.deepEqual(listed.rails.find((rail) => rail.name === 'sandbox').capabilities, ['PAYOUT', 'PULL']);
});

test('A pays the invoice of B\'s internal account and B credits it exactly once', async () => {
  const receiver = await newCustomer(b, bSandbox);
  const account = (await accountsOf(b, bSandbox, receiver.id)).BTC;
  const info = invoiceOf(account.fundingPaymentInstructions);
  assert.equal(info.reference.length > 0, true);

  const { customer, btc } = await fundedPayer(100000);
  const destination = await lightningAccount(customer.id, info.invoice);
  const sent = await transferOut(btc.id, destination.id, 2500);
  assert.equal(sent.status, 'COMPLETED', JSON.stringify(sent));
  assert.equal(await balance(a, aSandbox, customer.id, 'BTC'), 100000 - 2500);
  assert.equal(readdirSync(join(network, 'payments')).filter((name) => name.endsWith('.json')).length, 1);

  const credited = await eventually(async () => {
    const amount = await balance(b, bSandbox, receiver.id, 'BTC');
    return amount > 0 ? amount : null;
  });
  assert.equal(credited, 2500);

  // B's transaction and events: one INCOMING payment into that account, one balance change.
  const incoming = await call(b, bSandbox, 'GET', `/transactions?receiverAccountIdentifier=${encodeURIComponent(account.id)}`);
  assert.equal(incoming.status, 200, incoming.text);
  const received = incoming.body.data.filter((t) => t.type === 'INCOMING');
  assert.equal(received.length, 1, incoming.text);
  assert.equal(received[0].status, 'COMPLETED');
  assert.equal(received[0].receivedAmount.amount, 2500);
  assert.equal(received[0].receivedAmount.currency.code, 'BTC');
  const payments = outboxEvents(b, 'INCOMING_PAYMENT').filter((e) => e.transaction.destination?.accountId === account.id);
  assert.equal(payments.length, 1, JSON.stringify(payments));
  assert.equal(payments[0].transaction.status, 'COMPLETED');
  const statuses = outboxEvents(b, 'ACCOUNT_STATUS').filter((e) => e.accountId === account.id);
  assert.equal(statuses.length, 1, JSON.stringify(statuses));
  assert.equal(statuses[0].oldBalance.amount, 0);
  assert.equal(statuses[0].newBalance.amount, 2500);
  // A's side: its payout completed, and A received nothing (the invoice is B's node's).
  const outgoing = outboxEvents(a, 'OUTGOING_PAYMENT').filter((e) => e.transaction.id === sent.id);
  assert.ok(outgoing.some((e) => e.transaction.status === 'COMPLETED'), JSON.stringify(outgoing));
  assert.equal(queryRows(a, 'SELECT rail FROM rail_incoming_payments').length, 0);
  const recorded = queryRows(b, 'SELECT status, routed_to, amount_minor, amount_milli_minor FROM rail_incoming_payments');
  assert.deepEqual(recorded.map((r) => [r.status, r.routed_to, Number(r.amount_minor), Number(r.amount_milli_minor)]),
    [['CREDITED', account.id, 2500, 2500000]]);

  // Paying the same invoice again fails on A's rail and A gets its money back; B gets nothing.
  const platformBtc = (await platformAccounts(a, aSandbox)).BTC;
  await fund(a, aSandbox, platformBtc.id, 5000);
  const again = await call(a, aSandbox, 'POST', '/platform/external-accounts', {
    currency: 'BTC', accountInfo: { accountType: 'LIGHTNING', invoice: info.invoice },
  });
  assert.equal(again.status, 201, again.text);
  await eventually(async () => (await call(a, aSandbox, 'GET', `/platform/external-accounts/${again.body.id}`)).body?.status === 'ACTIVE');
  const refused = await transferOut(platformBtc.id, again.body.id, 2500);
  assert.equal(refused.status, 'FAILED');
  assert.equal(refused.failureReason, 'LIGHTNING_PAYMENT_FAILED');
  assert.ok(refused.refund, JSON.stringify(refused));
  assert.equal((await platformAccounts(a, aSandbox)).BTC.balance.amount, 5000);
  await sleep(1500);  // more than one tick of B's rail
  assert.equal(await balance(b, bSandbox, receiver.id, 'BTC'), 2500);

  // B restarts: its rail reports the payment again, and B records and credits it once.
  b.process.kill('SIGTERM');
  assert.equal((await b.exited).code, 0);
  await launch(b);
  // A payment made after the restart is credited by a scan that also read the first one again:
  // once it arrives, the restarted rail has seen both.
  const later = await newCustomer(b, bSandbox);
  const laterInfo = invoiceOf((await accountsOf(b, bSandbox, later.id)).BTC.fundingPaymentInstructions);
  const laterDestination = await lightningAccount(customer.id, laterInfo.invoice);
  assert.equal((await transferOut(btc.id, laterDestination.id, 1000)).status, 'COMPLETED');
  assert.equal(await eventually(async () => {
    const amount = await balance(b, bSandbox, later.id, 'BTC');
    return amount > 0 ? amount : null;
  }), 1000);
  assert.equal(await balance(b, bSandbox, receiver.id, 'BTC'), 2500);
  assert.equal(queryRows(b, 'SELECT rail FROM rail_incoming_payments').length, 2);
  assert.equal(outboxEvents(b, 'ACCOUNT_STATUS').filter((e) => e.accountId === account.id).length, 1);
});

test('A pays the invoice of B\'s REALTIME_FUNDING quote and the quote completes', async () => {
  const receiver = await newCustomer(b, bSandbox);
  const usd = (await accountsOf(b, bSandbox, receiver.id)).USD;
  const created = await call(b, bSandbox, 'POST', '/quotes', {
    source: { sourceType: 'REALTIME_FUNDING', currency: 'BTC' },
    destination: { destinationType: 'ACCOUNT', accountId: usd.id },
    lockedCurrencySide: 'RECEIVING', lockedCurrencyAmount: 1000,
  });
  assert.equal(created.status, 201, created.text);
  const quote = created.body;
  const info = invoiceOf(quote.paymentInstructions);
  assert.equal(info.reference, quote.paymentInstructions[0].accountOrWalletInfo.reference);

  const { customer, btc } = await fundedPayer(quote.totalSendingAmount + 10000);
  const destination = await lightningAccount(customer.id, info.invoice);
  // The invoice carries the amount: a payout of another amount is refused by A's rail up front.
  const wrong = await transferOut(btc.id, destination.id, quote.totalSendingAmount + 1);
  assert.equal(wrong.status, 'FAILED');
  const sent = await transferOut(btc.id, destination.id, quote.totalSendingAmount);
  assert.equal(sent.status, 'COMPLETED', JSON.stringify(sent));

  const done = await eventually(async () => {
    const found = await call(b, bSandbox, 'GET', `/quotes/${quote.id}`);
    return found.body?.status === 'COMPLETED' ? found.body : null;
  });
  assert.equal(done.id, quote.id);
  assert.equal(await balance(b, bSandbox, receiver.id, 'USD'), 1000);
  const transaction = await call(b, bSandbox, 'GET', `/transactions/${quote.transactionId}`);
  assert.equal(transaction.body.status, 'COMPLETED', transaction.text);
  const recorded = queryRows(b, `SELECT status, routed_to FROM rail_incoming_payments WHERE routed_to = '${quote.id}'`);
  assert.deepEqual(recorded, [{ status: 'CREDITED', routed_to: quote.id }]);
});

// A sending UMA provider at its own loopback port, publishing one secp256k1 key for both roles.
async function startSender() {
  const { privateKey, pubHex } = keyPair();
  return { privateKey, ...(await startKeyServer(pubHex)) };
}

// A signed UMA v1 pay request of `cents` USD from $alice at the stub's domain.
function payRequest(cents) {
  const identifier = `$alice@${sender.domain}`;
  const nonce = randomBytes(8).readBigUInt64BE().toString();
  const timestamp = Math.floor(Date.now() / 1000);
  const signature = sign('sha256', Buffer.from(`${identifier}|${nonce}|${timestamp}`),
    { key: sender.privateKey, dsaEncoding: 'der' }).toString('hex');
  return JSON.stringify({
    amount: `${cents}.USD`, convert: 'USD',
    payerData: {
      identifier, name: 'Alice Sender',
      compliance: { kycStatus: 'VERIFIED', signature, signatureNonce: nonce, signatureTimestamp: timestamp },
    },
  });
}

test('A pays the invoice of B\'s UMA pay request and B\'s UMA payment completes', async () => {
  const receiver = await newCustomer(b, bSandbox);
  const answered = await fetch(`${b.baseUrl}/uma/payreq/${encodeURIComponent(receiver.id)}`,
    { method: 'POST', headers: { 'content-type': 'application/json' }, body: payRequest(250) });
  const payReq = await answered.json();
  assert.equal(answered.status, 200, JSON.stringify(payReq));
  assert.match(payReq.pr, /^lnbcrt/);
  const pending = await call(b, bSandbox, 'GET', `/transactions?customerId=${receiver.id}&type=INCOMING`);
  assert.equal(pending.body.data.length, 1, pending.text);
  const umaTransaction = pending.body.data[0];
  assert.equal(umaTransaction.status, 'PENDING');

  // The invoice's amount is in millisatoshis: A pays it with the satoshis that cover it.
  const msat = Number(queryRows(b, `SELECT amount_msats FROM uma_invoices WHERE transaction_id = '${umaTransaction.id}'`)[0].amount_msats);
  assert.ok(msat > 0);
  const sats = Math.ceil(msat / 1000);
  const { customer, btc } = await fundedPayer(sats + 1000);
  const destination = await lightningAccount(customer.id, payReq.pr);
  const sent = await transferOut(btc.id, destination.id, sats);
  assert.equal(sent.status, 'COMPLETED', JSON.stringify(sent));

  const done = await eventually(async () => {
    const found = await call(b, bSandbox, 'GET', `/transactions/${umaTransaction.id}`);
    return found.body?.status === 'COMPLETED' ? found.body : null;
  });
  assert.equal(done.receivedAmount.amount, 250);
  assert.equal(await balance(b, bSandbox, receiver.id, 'USD'), 250);
  const recorded = queryRows(b, `SELECT status, routed_to, transaction_id, amount_milli_minor FROM rail_incoming_payments WHERE transaction_id = '${umaTransaction.id}'`);
  assert.deepEqual(recorded.map((r) => [r.status, r.routed_to, Number(r.amount_milli_minor)]), [['CREDITED', 'sink:uma', msat]]);
});
