// POST /sandbox/uma/receive: incoming UMA payments from the sandbox senders, through the approval
// webhook (answered by a loopback receiver) to the customer's internal account.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCorridor, stopCorridor, call, metricsText } from './lib/harness.mjs';
import { startReceiver, stopReceiver } from './lib/receiver.mjs';
import { newCustomer, accountsOf, balanceOf, assertError, eventually, sleep } from './lib/money.mjs';
import { expectWrongTypes } from './lib/wrong_types.mjs';

let server;
let receiver;
let sandbox;
let production;
// destination account id -> how the platform answers that payment's approval question
const verdicts = new Map();

before(async () => {
  receiver = await startReceiver((entry) => {
    const transaction = entry.body?.transaction;
    if (entry.body?.type !== 'INCOMING_PAYMENT' || transaction?.status !== 'PENDING') return { status: 200 };
    return verdicts.get(transaction.destination?.accountId) ?? { status: 200 };
  });
  server = await startCorridor({
    config: {
      outbound: { allow_private_addresses: true },
      quotes: { ttl_seconds: 300, sweep_interval_ms: 50 },
      webhooks: { approval_timeout_ms: 300, connect_timeout_ms: 1000, response_timeout_ms: 2000, poll_interval_ms: 20 },
    },
  });
  sandbox = server.platforms[0].sandbox;
  production = server.platforms[0].production;
  const patched = await call(server, sandbox, 'PATCH', '/config', { webhookEndpoint: receiver.url });
  assert.equal(patched.status, 200, patched.text);
});
after(async () => {
  if (server) await stopCorridor(server);
  if (receiver) await stopReceiver(receiver);
});

const receive = (body, credentials = sandbox) => call(server, credentials, 'POST', '/sandbox/uma/receive', body);

async function customerWithVerdict(verdict, currency = 'USD') {
  const customer = await newCustomer(server, sandbox);
  const account = (await accountsOf(server, sandbox, customer.id))[currency];
  if (verdict) verdicts.set(account.id, verdict);
  return { customer, account };
}

async function transactionOf(id) {
  const response = await call(server, sandbox, 'GET', `/transactions/${id}`);
  assert.equal(response.status, 200, response.text);
  return response.body;
}

async function settledStatus(id, timeoutMs = 10000) {
  return eventually(async () => {
    const transaction = await transactionOf(id);
    return transaction.status === 'PENDING' ? undefined : transaction;
  }, { timeoutMs });
}

function approvalQuestions(transactionId) {
  return receiver.requests.filter((entry) => entry.body?.type === 'INCOMING_PAYMENT'
    && entry.body.transaction?.id === transactionId && entry.body.transaction.status === 'PENDING');
}

async function writerRounds() {
  const found = (await metricsText(server)).match(/^corridor_webhook_rounds_total\{connection="writer"\} (\d+)$/m);
  assert.ok(found, 'no writer round counter in /metrics');
  return Number(found[1]);
}

test('$success completes once the platform approves, crediting the customer', async () => {
  const { customer, account } = await customerWithVerdict({ status: 200 });
  const roundsBefore = await writerRounds();
  const response = await receive({
    senderUmaAddress: '$success.usd@sandbox.uma.money', customerId: customer.id,
    receivingCurrencyCode: 'USD', receivingCurrencyAmount: 1234,
  });
  assert.equal(response.status, 200, response.text);
  assert.equal(response.body.type, 'INCOMING');
  assert.equal(response.body.status, 'PENDING');
  assert.equal(response.body.destination.accountId, account.id);
  const done = await settledStatus(response.body.id);
  assert.equal(done.status, 'COMPLETED', JSON.stringify(done));
  assert.equal(await balanceOf(server, sandbox, account), 1234);
  const [question] = approvalQuestions(response.body.id);
  assert.ok(question, 'the platform was asked to approve');
  assert.equal(question.body.transaction.source.umaAddress, '$success.usd@sandbox.uma.money');
  // The answer decides a payment: its round is the ledger writer's, even where other rounds run on
  // delivery's own connection (PostgreSQL).
  assert.ok(await writerRounds() > roundsBefore, 'the approval answer was not recorded on the writer');
});

test('the receiver may be named by its UMA address', async () => {
  const { customer, account } = await customerWithVerdict({ status: 200 }, 'EUR');
  const response = await receive({
    senderUmaAddress: '$success.mxn@sandbox.uma.money', receiverUmaAddress: customer.umaAddress,
    receivingCurrencyCode: 'EUR', receivingCurrencyAmount: 500,
  });
  assert.equal(response.status, 200, response.text);
  assert.equal((await settledStatus(response.body.id)).status, 'COMPLETED');
  assert.equal(await balanceOf(server, sandbox, account), 500);
});

test('a rejected approval leaves the payment REJECTED and nothing credited', async () => {
  const { customer, account } = await customerWithVerdict({ status: 403, body: { reason: 'not today' } });
  const response = await receive({
    senderUmaAddress: '$success.usd@sandbox.uma.money', customerId: customer.id,
    receivingCurrencyCode: 'USD', receivingCurrencyAmount: 700,
  });
  assert.equal(response.status, 200, response.text);
  assert.equal((await settledStatus(response.body.id)).status, 'REJECTED');
  await sleep(200);
  assert.equal(await balanceOf(server, sandbox, account), 0);
});

test('an approval deferred and never decided times out: FAILED PAYMENT_APPROVAL_TIMED_OUT', async () => {
  const { customer, account } = await customerWithVerdict({ status: 202 });
  const response = await receive({
    senderUmaAddress: '$success.usd@sandbox.uma.money', customerId: customer.id,
    receivingCurrencyCode: 'USD', receivingCurrencyAmount: 900,
  });
  assert.equal(response.status, 200, response.text);
  const done = await settledStatus(response.body.id);
  assert.equal(done.status, 'FAILED');
  assert.equal(done.failureReason, 'PAYMENT_APPROVAL_TIMED_OUT');
  assert.equal(await balanceOf(server, sandbox, account), 0);
});

test('$pending.long stays PENDING even when approved, and credits nothing', async () => {
  const { customer, account } = await customerWithVerdict({ status: 200 });
  const response = await receive({
    senderUmaAddress: '$pending.long.eur@sandbox.uma.money', customerId: customer.id,
    receivingCurrencyCode: 'USD', receivingCurrencyAmount: 300,
  });
  assert.equal(response.status, 200, response.text);
  await eventually(() => approvalQuestions(response.body.id).length > 0 || undefined);
  await sleep(500);
  assert.equal((await transactionOf(response.body.id)).status, 'PENDING');
  assert.equal(await balanceOf(server, sandbox, account), 0);
});

test('$fail.compliance fails at once with PAY_REQUEST_FAILED and credits nothing', async () => {
  const { customer, account } = await customerWithVerdict({ status: 200 });
  const response = await receive({
    senderUmaAddress: '$fail.compliance.usd@sandbox.uma.money', customerId: customer.id,
    receivingCurrencyCode: 'USD', receivingCurrencyAmount: 300,
  });
  assert.equal(response.status, 200, response.text);
  assert.equal(response.body.status, 'FAILED');
  assert.equal(response.body.failureReason, 'PAY_REQUEST_FAILED');
  await sleep(300);
  assert.equal((await transactionOf(response.body.id)).status, 'FAILED');
  assert.equal(await balanceOf(server, sandbox, account), 0);
});

test('$non.existent is 404 USER_NOT_FOUND and writes nothing', async () => {
  const { customer } = await customerWithVerdict();
  const before = await call(server, sandbox, 'GET', `/transactions?customerId=${customer.id}&type=INCOMING`);
  const response = await receive({
    senderUmaAddress: '$non.existent.usd@sandbox.uma.money', customerId: customer.id,
    receivingCurrencyCode: 'USD', receivingCurrencyAmount: 300,
  });
  assertError(response, 404, 'USER_NOT_FOUND');
  const after = await call(server, sandbox, 'GET', `/transactions?customerId=${customer.id}&type=INCOMING`);
  assert.equal(after.body.totalCount, before.body.totalCount);
});

test('bad bodies are 400 naming the problem; unknown receivers 404; production tokens 403', async () => {
  const { customer } = await customerWithVerdict();
  const good = {
    senderUmaAddress: '$success.usd@sandbox.uma.money', customerId: customer.id,
    receivingCurrencyCode: 'USD', receivingCurrencyAmount: 100,
  };
  const { senderUmaAddress, ...noSender } = good;
  assertError(await receive(noSender), 400, 'INVALID_INPUT');
  assertError(await receive({ ...good, senderUmaAddress: '$alice@sandbox.uma.money' }), 400, 'INVALID_INPUT');
  assertError(await receive({ ...good, senderUmaAddress: '$success.zzz@sandbox.uma.money' }), 400, 'INVALID_INPUT');
  assertError(await receive({ ...good, senderUmaAddress: 'not an address' }), 400, 'INVALID_INPUT');
  assertError(await receive({ ...good, receivingCurrencyAmount: 0 }), 400, 'INVALID_INPUT');
  assertError(await receive({ ...good, receivingCurrencyAmount: '100' }), 400, 'INVALID_INPUT');
  const { receivingCurrencyCode, ...noCurrency } = good;
  assertError(await receive(noCurrency), 400, 'INVALID_INPUT');
  const { customerId, ...noReceiver } = good;
  assertError(await receive(noReceiver), 400, 'INVALID_INPUT');
  assertError(await receive({ ...good, receivingCurrencyCode: 'JPY' }), 400, 'CURRENCY_NOT_ENABLED');
  assertError(await receive({ ...good, customerId: 'Customer:0190c2a0-0000-7000-8000-000000000000' }), 404, 'USER_NOT_FOUND');
  assertError(await receive({ ...noReceiver, receiverUmaAddress: '$nobody@nowhere.example' }), 404, 'USER_NOT_FOUND');
  assertError(await receive(good, production), 403, 'FORBIDDEN');
  const listed = await call(server, sandbox, 'GET', `/transactions?customerId=${customer.id}&type=INCOMING`);
  assert.equal(listed.body.totalCount, 0);
});

// Every field is checked, including the receiver field the request does not use (customerId when
// the address names the receiver, and the other way round).
test('a defined field of the wrong type is 400 naming it, even where unused, and pays nothing', async () => {
  const { customer, account } = await customerWithVerdict({ status: 200 });
  const valid = {
    senderUmaAddress: '$success.usd@sandbox.uma.money', customerId: customer.id, receiverUmaAddress: customer.umaAddress,
    receivingCurrencyCode: 'USD', receivingCurrencyAmount: 900,
  };
  const count = async () => (await call(server, sandbox, 'GET', '/transactions?limit=1')).body.totalCount;
  const before = await count();
  await expectWrongTypes(receive, valid, [
    ['senderUmaAddress', 1], ['senderUmaAddress', ['$success.usd@sandbox.uma.money']], ['customerId', 5],
    ['receiverUmaAddress', 5], ['receiverUmaAddress', {}], ['receivingCurrencyCode', 840],
    ['receivingCurrencyAmount', '900'], ['receivingCurrencyAmount', 9.5], ['receivingCurrencyAmount', false],
  ]);
  const { customerId, ...byAddress } = valid;
  await expectWrongTypes(receive, { ...byAddress, customerId: null }, [['customerId', 7]]);
  assert.equal(await count(), before, 'nothing was written');
  assert.equal(await balanceOf(server, sandbox, account), 0);
});

test('an Idempotency-Key replays the first answer and makes one payment', async () => {
  const { customer } = await customerWithVerdict({ status: 200 });
  const body = {
    senderUmaAddress: '$pending.long.usd@sandbox.uma.money', customerId: customer.id,
    receivingCurrencyCode: 'USD', receivingCurrencyAmount: 400,
  };
  const key = { 'idempotency-key': `uma-receive-${customer.id}` };
  const first = await call(server, sandbox, 'POST', '/sandbox/uma/receive', body, key);
  assert.equal(first.status, 200, first.text);
  const again = await call(server, sandbox, 'POST', '/sandbox/uma/receive', body, key);
  assert.equal(again.status, 200, again.text);
  assert.equal(again.body.id, first.body.id);
  const other = await call(server, sandbox, 'POST', '/sandbox/uma/receive', { ...body, receivingCurrencyAmount: 401 }, key);
  assert.equal(other.status, 422, other.text);
  const listed = await call(server, sandbox, 'GET', `/transactions?customerId=${customer.id}&type=INCOMING`);
  assert.equal(listed.body.totalCount, 1);
});
