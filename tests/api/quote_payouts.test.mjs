// Quotes whose destination is an external account (destinationType ACCOUNT with an ExternalAccount
// id): priced like any quote, executed by converting, holding the receiving amount and paying it out
// through the sandbox rail; a failed payout refunds the source in the sending currency and fails
// both the quote and its OUTGOING transaction. Refusals name the field and write nothing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCorridor, stopCorridor, call } from './lib/harness.mjs';
import {
  newCustomer, accountsOf, balanceOf, fund, quoteBody, expectedPrice, eventually, idempotencyKey,
} from './lib/money.mjs';
import { expectError } from './lib/expect.mjs';

let server;
let sandbox;
let alice;
let eur;  // alice's EUR internal account, the source of every payout here

before(async () => {
  server = await startCorridor({
    platforms: 1,
    config: {
      external_accounts: { screening_delay_ms: 100 },
      sandbox: { timeout_seconds: 1 },
      rails: { call_timeout_ms: 1000, settlement_timeout_ms: 60000, drive_interval_ms: 20 },
    },
  });
  sandbox = server.platforms[0].sandbox;
  alice = await newCustomer(server, sandbox);
  eur = (await accountsOf(server, sandbox, alice.id)).EUR;
  await fund(server, sandbox, eur.id, 10_000_000);
});
after(async () => { if (server) await stopCorridor(server); });

const beneficiary = { beneficiaryType: 'INDIVIDUAL', fullName: 'Alice Payee', birthDate: '1990-04-01', nationality: 'US' };

async function usAccount(customerId, accountNumber, { active = true } = {}) {
  const response = await call(server, sandbox, 'POST', '/customers/external-accounts', {
    customerId,
    currency: 'USD',
    accountInfo: { accountType: 'US_ACCOUNT', accountNumber, routingNumber: '021000021', accountCategory: 'CHECKING', beneficiary },
  });
  assert.equal(response.status, 201, response.text);
  if (!active) return response.body;
  return eventually(async () => {
    const found = await call(server, sandbox, 'GET', `/customers/external-accounts/${response.body.id}`);
    return found.body?.status === 'ACTIVE' ? found.body : null;
  });
}

async function settled(path, field = 'status', finals = ['COMPLETED', 'FAILED']) {
  return eventually(async () => {
    const found = await call(server, sandbox, 'GET', path);
    assert.equal(found.status, 200, found.text);
    return finals.includes(found.body[field]) ? found.body : null;
  });
}

test('a quote to an external account is priced like any quote and pays out when executed', async () => {
  const external = await usAccount(alice.id, '123456789');
  const created = await call(server, sandbox, 'POST', '/quotes', quoteBody(eur.id, external.id, 10000),
    { 'idempotency-key': idempotencyKey() });
  assert.equal(created.status, 201, created.text);
  const quote = created.body;
  const expected = expectedPrice('EUR', 'USD', 'SENDING', 10000);
  assert.equal(quote.status, 'PENDING');
  assert.deepEqual(quote.destination, { destinationType: 'ACCOUNT', accountId: external.id });
  assert.equal(quote.receivingCurrency.code, 'USD');
  assert.equal(quote.totalSendingAmount, expected.totalSendingAmount);
  assert.equal(quote.totalReceivingAmount, expected.totalReceivingAmount);
  assert.equal(quote.feesIncluded, expected.feesIncluded);

  const before = await balanceOf(server, sandbox, eur);
  const executed = await call(server, sandbox, 'POST', `/quotes/${quote.id}/execute`, undefined,
    { 'idempotency-key': idempotencyKey() });
  assert.equal(executed.status, 200, executed.text);
  assert.ok(['PROCESSING', 'COMPLETED'].includes(executed.body.status), executed.body.status);
  assert.equal(await balanceOf(server, sandbox, eur), before - quote.totalSendingAmount);

  const transaction = await settled(`/transactions/${quote.transactionId}`);
  assert.equal(transaction.status, 'COMPLETED');
  assert.equal(transaction.type, 'OUTGOING');
  assert.equal(transaction.quoteId, quote.id);
  assert.equal(transaction.destination.destinationType, 'EXTERNAL_ACCOUNT');
  assert.equal(transaction.destination.accountId, external.id);
  assert.equal(transaction.sentAmount.amount, quote.totalSendingAmount);
  assert.equal(transaction.receivedAmount.amount, quote.totalReceivingAmount);
  assert.equal(transaction.receivedAmount.currency.code, 'USD');
  assert.equal(transaction.failureReason, undefined);
  assert.equal(transaction.refund, undefined);
  assert.equal((await settled(`/quotes/${quote.id}`)).status, 'COMPLETED');
  assert.equal(await balanceOf(server, sandbox, eur), before - quote.totalSendingAmount);
  // No INCOMING transaction: the money left the book.
  const incoming = await call(server, sandbox, 'GET', `/transactions?type=INCOMING&receiverAccountIdentifier=${encodeURIComponent(external.id)}`);
  assert.equal(incoming.status, 200, incoming.text);
  assert.equal(incoming.body.data.length, 0);
});

test('immediatelyExecute pays out in the same request, RECEIVING-locked amounts arrive exactly', async () => {
  const external = await usAccount(alice.id, '223344556');
  const before = await balanceOf(server, sandbox, eur);
  const response = await call(server, sandbox, 'POST', '/quotes',
    quoteBody(eur.id, external.id, 5000, 'RECEIVING', { immediatelyExecute: true }));
  assert.equal(response.status, 201, response.text);
  assert.equal(response.body.totalReceivingAmount, 5000);
  assert.ok(['PROCESSING', 'COMPLETED'].includes(response.body.status), response.body.status);
  assert.equal(await balanceOf(server, sandbox, eur), before - response.body.totalSendingAmount);
  const transaction = await settled(`/transactions/${response.body.transactionId}`);
  assert.equal(transaction.status, 'COMPLETED');
  assert.equal(transaction.receivedAmount.amount, 5000);
});

test('sandbox failure patterns fail the payout and refund the source in the sending currency', async () => {
  const cases = [
    ['9990002', 'QUOTE_EXECUTION_FAILED', false],
    ['9990003', 'QUOTE_EXECUTION_FAILED', false],
    ['9990004', 'QUOTE_EXECUTION_FAILED', true],
    ['9990005', 'TIMEOUT', false],
  ];
  const before = await balanceOf(server, sandbox, eur);
  await Promise.all(cases.map(async ([number, reason, immediately]) => {
    const external = await usAccount(alice.id, number);
    const body = quoteBody(eur.id, external.id, 7000, 'SENDING', immediately ? { immediatelyExecute: true } : {});
    const created = await call(server, sandbox, 'POST', '/quotes', body);
    assert.equal(created.status, 201, created.text);
    if (!immediately) {
      const executed = await call(server, sandbox, 'POST', `/quotes/${created.body.id}/execute`);
      assert.equal(executed.status, 200, executed.text);
    }
    const transaction = await settled(`/transactions/${created.body.transactionId}`);
    assert.equal(transaction.status, 'FAILED', number);
    assert.equal(transaction.failureReason, reason, number);
    assert.match(transaction.refund.reference, /^RailOperation:/, number);
    assert.equal((await settled(`/quotes/${created.body.id}`)).status, 'FAILED', number);
  }));
  // Every payout above was refunded whole (fees included): the balance is back where it started.
  assert.equal(await balanceOf(server, sandbox, eur), before);
});

test('refusals name the field and write nothing', async () => {
  const bob = await newCustomer(server, sandbox);
  const bobsAccount = await usAccount(bob.id, '334455667');
  const aliceUsd = (await accountsOf(server, sandbox, alice.id)).USD;
  const own = await usAccount(alice.id, '445566778');
  const before = await balanceOf(server, sandbox, eur);
  const count = (await call(server, sandbox, 'GET', '/quotes?limit=1')).body.totalCount;

  expectError(await call(server, sandbox, 'POST', '/quotes', quoteBody(eur.id, 'ExternalAccount:00000000-0000-7000-8000-000000000000', 1000)),
    404, 'ACCOUNT_NOT_FOUND', 'destination.accountId');
  expectError(await call(server, sandbox, 'POST', '/quotes', quoteBody(eur.id, bobsAccount.id, 1000)),
    400, 'INVALID_INPUT', 'destination.accountId');
  expectError(await call(server, sandbox, 'POST', '/quotes', quoteBody(aliceUsd.id, own.id, 1000)), 400, 'SAME_CURRENCY');
  expectError(await call(server, sandbox, 'POST', '/quotes', quoteBody(eur.id, own.id, 1)), 400, 'AMOUNT_OUT_OF_RANGE', 'lockedCurrencyAmount');
  expectError(await call(server, sandbox, 'POST', '/quotes', quoteBody(eur.id, own.id, before + 1, 'SENDING', { immediatelyExecute: true })),
    400, 'INSUFFICIENT_BALANCE');
  const pending = await usAccount(alice.id, '556677889', { active: false });
  expectError(await call(server, sandbox, 'POST', '/quotes', quoteBody(eur.id, pending.id, 1000)), 400, 'INVALID_INPUT', 'destination.accountId');

  assert.equal((await call(server, sandbox, 'GET', '/quotes?limit=1')).body.totalCount, count);
  assert.equal(await balanceOf(server, sandbox, eur), before);
});

test('an unfunded payout quote is refused at execution and stays PENDING', async () => {
  const other = await newCustomer(server, sandbox);
  const otherEur = (await accountsOf(server, sandbox, other.id)).EUR;
  const theirs = await usAccount(other.id, '778899001');
  const unfunded = await call(server, sandbox, 'POST', '/quotes', quoteBody(otherEur.id, theirs.id, 2000));
  assert.equal(unfunded.status, 201, unfunded.text);
  expectError(await call(server, sandbox, 'POST', `/quotes/${unfunded.body.id}/execute`), 400, 'INSUFFICIENT_BALANCE');
  assert.equal((await call(server, sandbox, 'GET', `/quotes/${unfunded.body.id}`)).body.status, 'PENDING');
  assert.equal((await call(server, sandbox, 'GET', `/transactions/${unfunded.body.transactionId}`)).body.status, 'PENDING');
});
