// POST /quotes/{id}/execute and immediatelyExecute: money moves exactly once and exactly as quoted,
// refusals move nothing, quotes expire, and Idempotency-Key replays instead of repeating.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCorridor, stopCorridor, call } from './lib/harness.mjs';
import {
  newCustomer, accountsOf, balanceOf, fund, payer, quoteBody, createQuote, assertError,
  idempotencyKey, eventually, sleep,
} from './lib/money.mjs';

let server;
let sandbox;
let other;

before(async () => {
  server = await startCorridor({ platforms: 2 });
  sandbox = server.platforms[0].sandbox;
  other = server.platforms[1].sandbox;
});
after(async () => { if (server) await stopCorridor(server); });

const execute = (quoteId, headers, credentials = sandbox) =>
  call(server, credentials, 'POST', `/quotes/${quoteId}/execute`, undefined, headers);

async function balances(...accounts) {
  return Promise.all(accounts.map((account) => balanceOf(server, sandbox, account)));
}

async function quoteStatus(quoteId) {
  const response = await call(server, sandbox, 'GET', `/quotes/${quoteId}`);
  assert.equal(response.status, 200, response.text);
  return response.body.status;
}

async function transactionOf(id) {
  const response = await call(server, sandbox, 'GET', `/transactions/${id}`);
  assert.equal(response.status, 200, response.text);
  return response.body;
}

test('execute moves exactly totalSendingAmount out and totalReceivingAmount in', async () => {
  const { sender, receiver, source, destination } = await payer(server, sandbox, 'USD', 'EUR', 100000);
  const quote = await createQuote(server, sandbox, quoteBody(source.id, destination.id, 12345));
  const response = await execute(quote.id);
  assert.equal(response.status, 200, response.text);
  assert.equal(response.body.id, quote.id);
  assert.equal(response.body.status, 'COMPLETED');
  assert.equal(response.headers.get('idempotent-replayed'), null);
  for (const key of ['totalSendingAmount', 'totalReceivingAmount', 'feesIncluded', 'exchangeRate', 'transactionId', 'createdAt', 'expiresAt']) {
    assert.deepEqual(response.body[key], quote[key], key);
  }
  assert.deepEqual(await balances(source, destination), [100000 - quote.totalSendingAmount, quote.totalReceivingAmount]);
  assert.equal(await quoteStatus(quote.id), 'COMPLETED');

  const outgoing = await transactionOf(quote.transactionId);
  assert.equal(outgoing.type, 'OUTGOING');
  assert.equal(outgoing.status, 'COMPLETED');
  assert.equal(outgoing.quoteId, quote.id);
  assert.equal(outgoing.customerId, sender.id);
  assert.equal(outgoing.sentAmount.amount, quote.totalSendingAmount);
  assert.equal(outgoing.receivedAmount.amount, quote.totalReceivingAmount);
  assert.equal(outgoing.fees, quote.feesIncluded);
  assert.ok(outgoing.settledAt, 'a completed payment has settledAt');

  const incoming = await call(server, sandbox, 'GET', `/transactions?type=INCOMING&receiverAccountIdentifier=${destination.id}`);
  assert.equal(incoming.status, 200, incoming.text);
  assert.equal(incoming.body.data.length, 1, incoming.text);
  const [credit] = incoming.body.data;
  assert.equal(credit.status, 'COMPLETED');
  assert.equal(credit.quoteId, quote.id);
  assert.equal(credit.customerId, receiver.id);
  assert.equal(credit.platformCustomerId, receiver.platformCustomerId);
  assert.equal(credit.receivedAmount.amount, quote.totalReceivingAmount);
  assert.equal(credit.receivedAmount.currency.code, 'EUR');
  assert.notEqual(credit.id, outgoing.id);
});

test('a RECEIVING lock delivers exactly the locked amount; paying the whole balance leaves zero', async () => {
  const { source, destination } = await payer(server, sandbox, 'GBP', 'MXN');
  const quote = await createQuote(server, sandbox, quoteBody(source.id, destination.id, 250000, 'RECEIVING'));
  assert.equal(quote.totalReceivingAmount, 250000);
  await fund(server, sandbox, source.id, quote.totalSendingAmount);
  const response = await execute(quote.id);
  assert.equal(response.status, 200, response.text);
  assert.deepEqual(await balances(source, destination), [0, 250000]);
});

test('executing twice is 409 QUOTE_NOT_PENDING and moves nothing more', async () => {
  const { source, destination } = await payer(server, sandbox, 'USD', 'GBP', 50000);
  const quote = await createQuote(server, sandbox, quoteBody(source.id, destination.id, 10000));
  assert.equal((await execute(quote.id)).status, 200);
  const after = await balances(source, destination);
  assertError(await execute(quote.id), 409, 'QUOTE_NOT_PENDING');
  assertError(await execute(quote.id), 409, 'QUOTE_NOT_PENDING');
  assert.deepEqual(await balances(source, destination), after);
  assert.equal(await quoteStatus(quote.id), 'COMPLETED');
});

test('money never moves to or from a deleted customer', async () => {
  const { source, destination } = await payer(server, sandbox, 'USD', 'EUR', 50000);
  const receiver = await newCustomer(server, sandbox);
  const receiverAccounts = await accountsOf(server, sandbox, receiver.id);
  // A quote made before the receiver was deleted cannot be executed after.
  const earlier = await createQuote(server, sandbox, quoteBody(source.id, receiverAccounts.EUR.id, 10000));
  assert.equal((await call(server, sandbox, 'DELETE', `/customers/${receiver.id}`)).status, 200);
  assertError(await execute(earlier.id), 410, 'CUSTOMER_DELETED');
  assert.equal(await quoteStatus(earlier.id), 'PENDING');
  // New quotes to or from a deleted customer's accounts are refused, naming the field.
  const toDeleted = await call(server, sandbox, 'POST', '/quotes', quoteBody(source.id, receiverAccounts.EUR.id, 10000));
  assertError(toDeleted, 410, 'CUSTOMER_DELETED');
  assert.equal(toDeleted.body.details.field, 'destination.accountId');
  const fromDeleted = await call(server, sandbox, 'POST', '/quotes', quoteBody(receiverAccounts.USD.id, destination.id, 10000));
  assertError(fromDeleted, 410, 'CUSTOMER_DELETED');
  assert.equal(fromDeleted.body.details.field, 'source.accountId');
  assert.deepEqual(await balances(source, destination), [50000, 0]);
});

test('insufficient balance is 400 INSUFFICIENT_BALANCE and moves nothing', async () => {
  const { sender, source, destination } = await payer(server, sandbox, 'USD', 'EUR', 9999);
  const quote = await createQuote(server, sandbox, quoteBody(source.id, destination.id, 10000));
  const transactionsBefore = await call(server, sandbox, 'GET', `/transactions?customerId=${sender.id}`);
  const refused = await execute(quote.id);
  assertError(refused, 400, 'INSUFFICIENT_BALANCE');
  assert.deepEqual(await balances(source, destination), [9999, 0]);
  assert.equal(await quoteStatus(quote.id), 'PENDING');
  assert.equal((await transactionOf(quote.transactionId)).status, 'PENDING');
  const transactionsAfter = await call(server, sandbox, 'GET', `/transactions?customerId=${sender.id}`);
  assert.deepEqual(transactionsAfter.body, transactionsBefore.body, 'a refused execute writes no transaction');
  // One more cent makes it payable, to the last cent.
  await fund(server, sandbox, source.id, 1);
  const paid = await execute(quote.id);
  assert.equal(paid.status, 200, paid.text);
  assert.deepEqual(await balances(source, destination), [0, quote.totalReceivingAmount]);
});

test('a REALTIME_FUNDING quote is not executable; unknown and foreign quotes are not found', async () => {
  const { sender, destination } = await payer(server, sandbox, 'USD', 'EUR');
  const funded = await createQuote(server, sandbox, {
    source: { sourceType: 'REALTIME_FUNDING', currency: 'USD', customerId: sender.id },
    destination: { destinationType: 'ACCOUNT', accountId: destination.id },
    lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 10000,
  });
  assertError(await execute(funded.id), 400, 'QUOTE_NOT_EXECUTABLE');
  assert.equal(await quoteStatus(funded.id), 'PENDING');
  assert.equal(await balanceOf(server, sandbox, destination), 0);

  assertError(await execute('Quote:00000000-0000-7000-8000-000000000000'), 404, 'QUOTE_NOT_FOUND');
  const mine = await payer(server, sandbox, 'USD', 'EUR', 20000);
  const quote = await createQuote(server, sandbox, quoteBody(mine.source.id, mine.destination.id, 10000));
  assertError(await execute(quote.id, {}, other), 404, 'QUOTE_NOT_FOUND');
  assertError(await execute(quote.id, {}, server.platforms[0].production), 404, 'QUOTE_NOT_FOUND');
  // Stored as 16 bytes: what is no quote's id is not found (never a 500), and executes nothing.
  const upper = `Quote:${quote.id.slice('Quote:'.length).toUpperCase()}`;
  assert.notEqual(upper, quote.id);
  for (const notOne of ['Quote:nope', 'nope', quote.transactionId, upper]) {
    assertError(await execute(encodeURIComponent(notOne)), 404, 'QUOTE_NOT_FOUND');
  }
  assert.equal(await quoteStatus(quote.id), 'PENDING');
  assert.deepEqual(await balances(mine.source, mine.destination), [20000, 0]);
});

test('immediatelyExecute creates and executes in one call', async () => {
  const { sender, source, destination } = await payer(server, sandbox, 'EUR', 'USD', 40000);
  const response = await call(server, sandbox, 'POST', '/quotes', quoteBody(source.id, destination.id, 30000, 'SENDING', { immediatelyExecute: true }));
  assert.equal(response.status, 201, response.text);
  assert.equal(response.body.status, 'COMPLETED');
  assert.deepEqual(await balances(source, destination), [10000, response.body.totalReceivingAmount]);
  assert.equal((await transactionOf(response.body.transactionId)).status, 'COMPLETED');
  const listed = await call(server, sandbox, 'GET', `/quotes?customerId=${sender.id}`);
  assert.deepEqual(listed.body.data.map((q) => q.id), [response.body.id]);
});

test('immediatelyExecute with a short balance keeps nothing at all', async () => {
  const { sender, receiver, source, destination } = await payer(server, sandbox, 'EUR', 'USD', 20000);
  const response = await call(server, sandbox, 'POST', '/quotes', quoteBody(source.id, destination.id, 30000, 'SENDING', { immediatelyExecute: true }));
  assertError(response, 400, 'INSUFFICIENT_BALANCE');
  assert.deepEqual(await balances(source, destination), [20000, 0]);
  const quotes = await call(server, sandbox, 'GET', `/quotes?customerId=${sender.id}`);
  assert.deepEqual(quotes.body.data, []);
  assert.equal(quotes.body.totalCount, 0);
  const sent = await call(server, sandbox, 'GET', `/transactions?customerId=${sender.id}&type=OUTGOING`);
  assert.deepEqual(sent.body.data, [], 'no OUTGOING transaction is left behind');
  const received = await call(server, sandbox, 'GET', `/transactions?customerId=${receiver.id}`);
  assert.deepEqual(received.body.data, []);
});

test('Idempotency-Key: the same execute replays the first response byte for byte and pays once', async () => {
  const { source, destination } = await payer(server, sandbox, 'USD', 'EUR', 100000);
  const quote = await createQuote(server, sandbox, quoteBody(source.id, destination.id, 20000));
  const key = idempotencyKey();
  const first = await execute(quote.id, { 'idempotency-key': key });
  assert.equal(first.status, 200, first.text);
  assert.equal(first.headers.get('idempotent-replayed'), null);
  const paid = await balances(source, destination);
  assert.deepEqual(paid, [80000, quote.totalReceivingAmount]);
  for (let i = 0; i < 2; i++) {
    const replay = await execute(quote.id, { 'idempotency-key': key });
    assert.equal(replay.status, 200);
    assert.equal(replay.text, first.text);
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
  }
  assert.deepEqual(await balances(source, destination), paid);
  // Without the key the request runs again and is refused as not pending.
  assertError(await execute(quote.id), 409, 'QUOTE_NOT_PENDING');
});

test('Idempotency-Key: a stored 4xx is replayed, not retried', async () => {
  const { source, destination } = await payer(server, sandbox, 'USD', 'EUR', 1000);
  const quote = await createQuote(server, sandbox, quoteBody(source.id, destination.id, 20000));
  const key = idempotencyKey();
  const first = await execute(quote.id, { 'idempotency-key': key });
  assertError(first, 400, 'INSUFFICIENT_BALANCE');
  await fund(server, sandbox, source.id, 50000);
  const replay = await execute(quote.id, { 'idempotency-key': key });
  assert.equal(replay.status, 400);
  assert.equal(replay.text, first.text);
  assert.equal(replay.headers.get('idempotent-replayed'), 'true');
  assert.deepEqual(await balances(source, destination), [51000, 0], 'the replay moved nothing');
  assert.equal(await quoteStatus(quote.id), 'PENDING');
  // A new key is a new request.
  const fresh = await execute(quote.id, { 'idempotency-key': idempotencyKey() });
  assert.equal(fresh.status, 200, fresh.text);
  assert.deepEqual(await balances(source, destination), [51000 - 20000, quote.totalReceivingAmount]);
});

test('Idempotency-Key on POST /quotes with immediatelyExecute creates and pays once', async () => {
  const { sender, source, destination } = await payer(server, sandbox, 'GBP', 'INR', 100000);
  const body = quoteBody(source.id, destination.id, 30000, 'SENDING', { immediatelyExecute: true });
  const key = idempotencyKey();
  const first = await call(server, sandbox, 'POST', '/quotes', body, { 'idempotency-key': key });
  assert.equal(first.status, 201, first.text);
  const replay = await call(server, sandbox, 'POST', '/quotes', body, { 'idempotency-key': key });
  assert.equal(replay.status, 201);
  assert.equal(replay.text, first.text);
  assert.equal(replay.headers.get('idempotent-replayed'), 'true');
  assert.deepEqual(await balances(source, destination), [70000, first.body.totalReceivingAmount]);
  const listed = await call(server, sandbox, 'GET', `/quotes?customerId=${sender.id}`);
  assert.equal(listed.body.totalCount, 1);
});

test('a retry sent as soon as the response arrives is replayed, never refused as still in use', async () => {
  // Design section 4: 409 only while the first request is in flight. Once its response has been
  // received the request is over, and the same key must replay at once.
  // The window is short, so the check is repeated; it stops at the first few refusals.
  const { source } = await payer(server, sandbox, 'USD', 'EUR', 1000);
  const refusals = [];
  let attempts = 0;
  for (; attempts < 200 && refusals.length < 3; attempts++) {
    const key = idempotencyKey();
    const first = await call(server, sandbox, 'POST', `/sandbox/internal-accounts/${source.id}/fund`, { amount: 1 }, { 'idempotency-key': key });
    assert.equal(first.status, 200, first.text);
    const retry = await call(server, sandbox, 'POST', `/sandbox/internal-accounts/${source.id}/fund`, { amount: 1 }, { 'idempotency-key': key });
    if (retry.status !== 200) refusals.push(`${retry.status} ${retry.text}`);
    else assert.equal(retry.text, first.text);
  }
  assert.equal(await balanceOf(server, sandbox, source), 1000 + attempts, 'each key deposited once');
  assert.deepEqual(refusals, [], `${refusals.length} of ${attempts} immediate retries were refused`);
});

test('Idempotency-Key reused with a different request is 422 IDEMPOTENCY_KEY_MISMATCH', async () => {
  const { sender, source, destination } = await payer(server, sandbox, 'USD', 'EUR', 100000);
  const key = idempotencyKey();
  const first = await call(server, sandbox, 'POST', '/quotes', quoteBody(source.id, destination.id, 10000), { 'idempotency-key': key });
  assert.equal(first.status, 201, first.text);
  const changed = await call(server, sandbox, 'POST', '/quotes', quoteBody(source.id, destination.id, 10001), { 'idempotency-key': key });
  assertError(changed, 422, 'IDEMPOTENCY_KEY_MISMATCH');
  // The same key on another operation is a different request too.
  assertError(await execute(first.body.id, { 'idempotency-key': key }), 422, 'IDEMPOTENCY_KEY_MISMATCH');
  assertError(await call(server, sandbox, 'POST', `/sandbox/internal-accounts/${source.id}/fund`, { amount: 5 }, { 'idempotency-key': key }), 422, 'IDEMPOTENCY_KEY_MISMATCH');
  assert.equal((await call(server, sandbox, 'GET', `/quotes?customerId=${sender.id}`)).body.totalCount, 1);
  assert.equal(await quoteStatus(first.body.id), 'PENDING');
  assert.deepEqual(await balances(source, destination), [100000, 0]);
  // Keys belong to their tenant: the other platform may use the same key for its own request.
  const theirs = await newCustomer(server, other);
  const theirAccounts = await accountsOf(server, other, theirs.id);
  const reused = await call(server, other, 'POST', '/quotes', quoteBody(theirAccounts.USD.id, theirAccounts.EUR.id, 10000), { 'idempotency-key': key });
  assert.equal(reused.status, 201, reused.text);
  assert.equal(reused.headers.get('idempotent-replayed'), null);
});

test('concurrent requests with one Idempotency-Key never run twice', async () => {
  const { sender, source, destination } = await payer(server, sandbox, 'USD', 'EUR', 1000000);
  const body = quoteBody(source.id, destination.id, 10000, 'SENDING', { immediatelyExecute: true });
  const key = idempotencyKey();
  const responses = await Promise.all(Array.from({ length: 12 }, () =>
    call(server, sandbox, 'POST', '/quotes', body, { 'idempotency-key': key })));
  const originals = responses.filter((r) => r.status === 201 && r.headers.get('idempotent-replayed') !== 'true');
  const replays = responses.filter((r) => r.status === 201 && r.headers.get('idempotent-replayed') === 'true');
  const inUse = responses.filter((r) => r.status === 409);
  assert.equal(originals.length, 1, responses.map((r) => `${r.status} ${r.text}`).join('\n'));
  assert.equal(originals.length + replays.length + inUse.length, responses.length, responses.map((r) => r.status).join(','));
  for (const replay of replays) assert.equal(replay.text, originals[0].text);
  for (const refused of inUse) assertError(refused, 409, 'IDEMPOTENCY_KEY_IN_USE');
  const quote = originals[0].body;
  assert.deepEqual(await balances(source, destination), [1000000 - quote.totalSendingAmount, quote.totalReceivingAmount]);
  assert.equal((await call(server, sandbox, 'GET', `/quotes?customerId=${sender.id}`)).body.totalCount, 1);
  // After the first finished, the key only replays.
  const later = await call(server, sandbox, 'POST', '/quotes', body, { 'idempotency-key': key });
  assert.equal(later.text, originals[0].text);

  // The same for execute and for the sandbox deposit.
  const pending = await createQuote(server, sandbox, quoteBody(source.id, destination.id, 10000));
  const executeKey = idempotencyKey();
  const executes = await Promise.all(Array.from({ length: 12 }, () => execute(pending.id, { 'idempotency-key': executeKey })));
  assert.ok(executes.every((r) => r.status === 200 || (r.status === 409 && r.body.code === 'IDEMPOTENCY_KEY_IN_USE')), executes.map((r) => r.text).join('\n'));
  assert.equal(executes.filter((r) => r.status === 200 && r.headers.get('idempotent-replayed') !== 'true').length, 1);
  assert.deepEqual(await balances(source, destination),
    [1000000 - quote.totalSendingAmount - pending.totalSendingAmount, quote.totalReceivingAmount + pending.totalReceivingAmount]);

  const fundKey = idempotencyKey();
  const before = await balanceOf(server, sandbox, destination);
  const deposits = await Promise.all(Array.from({ length: 12 }, () =>
    call(server, sandbox, 'POST', `/sandbox/internal-accounts/${destination.id}/fund`, { amount: 777 }, { 'idempotency-key': fundKey })));
  assert.ok(deposits.every((r) => r.status === 200 || (r.status === 409 && r.body.code === 'IDEMPOTENCY_KEY_IN_USE')), deposits.map((r) => r.text).join('\n'));
  assert.equal(await balanceOf(server, sandbox, destination), before + 777);
});

test('an expired quote is 409 QUOTE_EXPIRED before and after the sweeper marks it EXPIRED', async () => {
  // Two servers with one-second quotes: one whose sweeper is fast, one whose sweeper never comes
  // round during the test, so that both paths to an expired quote are seen.
  const [swept, unswept] = await Promise.all([
    startCorridor({ platforms: 1, config: { quotes: { ttl_seconds: 1, sweep_interval_ms: 100 } } }),
    startCorridor({ platforms: 1, config: { quotes: { ttl_seconds: 1, sweep_interval_ms: 600000 } } }),
  ]);
  try {
    await Promise.all([unswept, swept].map(async (target) => {
      const credentials = target.platforms[0].sandbox;
      const { sender, source, destination } = await payer(target, credentials, 'USD', 'EUR', 50000);
      const quote = await createQuote(target, credentials, quoteBody(source.id, destination.id, 10000));
      const instant = await createQuote(target, credentials, {
        source: { sourceType: 'REALTIME_FUNDING', currency: 'USD', customerId: sender.id },
        destination: { destinationType: 'ACCOUNT', accountId: destination.id },
        lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 10000,
      });
      assert.equal(Date.parse(quote.expiresAt) - Date.parse(quote.createdAt), 1000);
      const wait = Date.parse(instant.expiresAt) - Date.now() + 50;
      if (wait > 0) await sleep(wait);
      if (target === swept) {
        await eventually(async () => (await call(target, credentials, 'GET', '/quotes?status=EXPIRED')).body.totalCount === 2);
      }
      const refused = await call(target, credentials, 'POST', `/quotes/${quote.id}/execute`);
      assertError(refused, 409, 'QUOTE_EXPIRED');
      const notFunded = await call(target, credentials, 'POST', '/sandbox/send', { quoteId: instant.id, currencyCode: 'USD' });
      assertError(notFunded, 409, 'QUOTE_EXPIRED');
      assert.deepEqual(await Promise.all([source, destination].map((a) => balanceOf(target, credentials, a))), [50000, 0]);
    }));
    // The sweeper marks both quotes and their transactions EXPIRED.
    const credentials = swept.platforms[0].sandbox;
    const quotes = await call(swept, credentials, 'GET', '/quotes');
    assert.equal(quotes.body.data.length, 2);
    for (const quote of quotes.body.data) {
      assert.equal(quote.status, 'EXPIRED');
      const transaction = await call(swept, credentials, 'GET', `/transactions/${quote.transactionId}`);
      assert.equal(transaction.body.status, 'EXPIRED', transaction.text);
      assert.equal(transaction.body.failureReason, 'QUOTE_EXPIRED');
      assert.equal(transaction.body.settledAt, undefined);
    }
    const expired = await call(swept, credentials, 'GET', '/quotes?status=EXPIRED');
    assert.equal(expired.body.totalCount, 2);
    // Without a sweep the quotes stay PENDING in storage, yet still cannot be executed.
    const stale = await call(unswept, unswept.platforms[0].sandbox, 'GET', '/quotes?status=PENDING');
    assert.equal(stale.body.totalCount, 2);
  } finally {
    await Promise.all([stopCorridor(swept), stopCorridor(unswept)]);
  }
});
