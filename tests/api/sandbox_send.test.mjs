// POST /sandbox/send: funds arriving for a REALTIME_FUNDING quote complete it when the amount is
// right and fail it (refunded, nothing credited) when it is not. GET /exchange-rates: the corridors
// with the same figures a quote would give.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCorridor, stopCorridor, call } from './lib/harness.mjs';
import { expectWrongTypes } from './lib/wrong_types.mjs';
import {
  newCustomer, accountsOf, balanceOf, fund, quoteBody, createQuote, assertError, expectedPrice,
  corridorTerms, idempotencyKey,
} from './lib/money.mjs';

let server;
let sandbox;
let production;
let other;
let payerCustomer;
let payerAccounts;

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

before(async () => {
  server = await startCorridor({ platforms: 2 });
  sandbox = server.platforms[0].sandbox;
  production = server.platforms[0].production;
  other = server.platforms[1].sandbox;
  payerCustomer = await newCustomer(server, sandbox);
  payerAccounts = await accountsOf(server, sandbox, payerCustomer.id);
});
after(async () => { if (server) await stopCorridor(server); });

async function instantQuote(to = 'EUR', amount = 25000, side = 'SENDING') {
  const receiver = await newCustomer(server, sandbox);
  const destination = (await accountsOf(server, sandbox, receiver.id))[to];
  const quote = await createQuote(server, sandbox, {
    source: { sourceType: 'REALTIME_FUNDING', currency: 'USD', customerId: payerCustomer.id },
    destination: { destinationType: 'ACCOUNT', accountId: destination.id },
    lockedCurrencySide: side, lockedCurrencyAmount: amount,
  });
  return { receiver, destination, quote };
}

const send = (body, headers, credentials = sandbox) => call(server, credentials, 'POST', '/sandbox/send', body, headers);

async function statusOf(quoteId) {
  return (await call(server, sandbox, 'GET', `/quotes/${quoteId}`)).body.status;
}

test('the right amount completes the quote and credits the receiver', async () => {
  const { receiver, destination, quote } = await instantQuote('EUR', 25000);
  const response = await send({ quoteId: quote.id, currencyCode: 'USD', currencyAmount: quote.totalSendingAmount });
  assert.equal(response.status, 200, response.text);
  const t = response.body;
  assert.equal(t.id, quote.transactionId);
  assert.equal(t.type, 'OUTGOING');
  assert.equal(t.status, 'COMPLETED');
  assert.equal(t.quoteId, quote.id);
  assert.equal(t.customerId, payerCustomer.id);
  assert.deepEqual(t.source, { sourceType: 'REALTIME_FUNDING', currency: 'USD' });
  assert.equal(t.sentAmount.amount, quote.totalSendingAmount);
  assert.equal(t.receivedAmount.amount, quote.totalReceivingAmount);
  assert.equal(t.fees, quote.feesIncluded);
  assert.match(t.settledAt, ISO);
  assert.equal(t.failureReason, undefined);
  assert.equal(t.refund, undefined);
  assert.deepEqual(t.paymentInstructions, quote.paymentInstructions, 'the OUTGOING transaction of a funded quote carries its payment instructions');
  assert.equal(await statusOf(quote.id), 'COMPLETED');
  assert.equal(await balanceOf(server, sandbox, destination), quote.totalReceivingAmount);
  assert.equal(await balanceOf(server, sandbox, payerAccounts.USD), 0, 'the payer\'s internal account plays no part');
  const incoming = await call(server, sandbox, 'GET', `/transactions?type=INCOMING&customerId=${receiver.id}`);
  assert.equal(incoming.body.data.length, 1);
  assert.equal(incoming.body.data[0].quoteId, quote.id);
  assert.equal(incoming.body.data[0].receivedAmount.amount, quote.totalReceivingAmount);
  assert.equal(incoming.body.data[0].reconciliationInstructions.reference, quote.paymentInstructions[0].accountOrWalletInfo.reference);
  // Funds arriving again for the completed quote are refused and credit nothing more.
  assertError(await send({ quoteId: quote.id, currencyCode: 'USD' }), 409, 'QUOTE_NOT_PENDING');
  assert.equal(await balanceOf(server, sandbox, destination), quote.totalReceivingAmount);
});

test('without currencyAmount the quote\'s own amount is sent', async () => {
  const { destination, quote } = await instantQuote('GBP', 150000, 'RECEIVING');
  const response = await send({ quoteId: quote.id, currencyCode: 'USD' });
  assert.equal(response.status, 200, response.text);
  assert.equal(response.body.status, 'COMPLETED');
  assert.equal(await balanceOf(server, sandbox, destination), 150000);
});

test('another amount fails the quote with FUNDING_AMOUNT_MISMATCH, refunds it and credits nothing', async () => {
  for (const delta of [-1, 1]) {
    const { receiver, destination, quote } = await instantQuote('MXN', 40000);
    const amount = quote.totalSendingAmount + delta;
    const response = await send({ quoteId: quote.id, currencyCode: 'USD', currencyAmount: amount });
    assert.equal(response.status, 200, response.text);
    const t = response.body;
    assert.equal(t.id, quote.transactionId);
    assert.equal(t.status, 'FAILED');
    assert.equal(t.failureReason, 'FUNDING_AMOUNT_MISMATCH');
    assert.equal(t.settledAt, undefined, 'a failed payment was never settled');
    assert.equal(typeof t.refund, 'object');
    assert.equal(t.refund.amount, amount, 'what arrived goes back');
    assert.equal(typeof t.refund.reference, 'string');
    assert.match(t.refund.initiatedAt, ISO);
    assert.match(t.refund.settledAt, ISO);
    assert.equal(await statusOf(quote.id), 'FAILED');
    assert.equal(await balanceOf(server, sandbox, destination), 0);
    const incoming = await call(server, sandbox, 'GET', `/transactions?customerId=${receiver.id}`);
    assert.deepEqual(incoming.body.data, []);
    const stored = await call(server, sandbox, 'GET', `/transactions/${quote.transactionId}`);
    assert.deepEqual(stored.body, t);
    // The failed quote takes no more funds.
    assertError(await send({ quoteId: quote.id, currencyCode: 'USD' }), 409, 'QUOTE_NOT_PENDING');
    assert.equal(await balanceOf(server, sandbox, destination), 0);
  }
});

test('a wrong currency, an unknown or foreign quote, and an internal-account quote are refused', async () => {
  const { destination, quote } = await instantQuote('EUR', 20000);
  const wrong = await send({ quoteId: quote.id, currencyCode: 'EUR' });
  assertError(wrong, 400, 'INVALID_CURRENCY');
  assert.equal(wrong.body.details.field, 'currencyCode');
  assert.equal((await send({ quoteId: quote.id, currencyCode: 'XYZ' })).status, 400);
  assertError(await send({ quoteId: 'Quote:00000000-0000-7000-8000-000000000000', currencyCode: 'USD' }), 404, 'QUOTE_NOT_FOUND');
  assertError(await send({ quoteId: quote.id, currencyCode: 'USD' }, {}, other), 404, 'QUOTE_NOT_FOUND');
  // Stored as 16 bytes: what is no quote's id is not found, never a 500.
  for (const quoteId of ['Quote:nope', 'nope', quote.transactionId, `Quote:${quote.id.slice('Quote:'.length).toUpperCase()}`]) {
    assertError(await send({ quoteId, currencyCode: 'USD' }), 404, 'QUOTE_NOT_FOUND');
  }
  for (const body of [{ currencyCode: 'USD' }, { quoteId: quote.id }, { quoteId: quote.id, currencyCode: 'USD', currencyAmount: 0 },
    { quoteId: quote.id, currencyCode: 'USD', currencyAmount: 1.5 }, { quoteId: quote.id, currencyCode: 'USD', currencyAmount: '100' }]) {
    assertError(await send(body), 400, 'INVALID_INPUT');
  }
  assert.equal(await statusOf(quote.id), 'PENDING');
  assert.equal(await balanceOf(server, sandbox, destination), 0);

  const funded = payerAccounts.USD;
  await fund(server, sandbox, funded.id, 50000);
  const accountQuote = await createQuote(server, sandbox, quoteBody(funded.id, destination.id, 10000));
  assertError(await send({ quoteId: accountQuote.id, currencyCode: 'USD' }), 400, 'QUOTE_NOT_EXECUTABLE');
  assert.equal(await statusOf(accountQuote.id), 'PENDING');

  // Still payable after all the refusals.
  const paid = await send({ quoteId: quote.id, currencyCode: 'USD' });
  assert.equal(paid.status, 200, paid.text);
  assert.equal(await balanceOf(server, sandbox, destination), quote.totalReceivingAmount);
});

test('POST /sandbox/send: a defined field of the wrong type is 400 naming it, nothing is paid', async () => {
  const { destination, quote } = await instantQuote('EUR', 15000);
  const valid = { quoteId: quote.id, currencyCode: 'USD', currencyAmount: quote.totalSendingAmount };
  await expectWrongTypes((body) => send(body), valid, [
    ['quoteId', 1], ['quoteId', [quote.id]], ['currencyCode', 840], ['currencyCode', {}],
    ['currencyAmount', '100'], ['currencyAmount', 1.5], ['currencyAmount', true],
  ]);
  assert.equal(await statusOf(quote.id), 'PENDING');
  assert.equal(await balanceOf(server, sandbox, destination), 0);
  const paid = await send({ ...valid, unknownField: 'ignored' });
  assert.equal(paid.status, 200, paid.text);
});

test('production credentials cannot use POST /sandbox/send', async () => {
  const { destination, quote } = await instantQuote('EUR', 20000);
  assertError(await send({ quoteId: quote.id, currencyCode: 'USD' }, {}, production), 403, 'FORBIDDEN');
  assert.equal(await statusOf(quote.id), 'PENDING');
  assert.equal(await balanceOf(server, sandbox, destination), 0);
});

test('Idempotency-Key on POST /sandbox/send replays instead of funding twice', async () => {
  const { destination, quote } = await instantQuote('EUR', 20000);
  const key = idempotencyKey();
  const first = await send({ quoteId: quote.id, currencyCode: 'USD' }, { 'idempotency-key': key });
  assert.equal(first.status, 200, first.text);
  const replay = await send({ quoteId: quote.id, currencyCode: 'USD' }, { 'idempotency-key': key });
  assert.equal(replay.status, 200);
  assert.equal(replay.text, first.text);
  assert.equal(replay.headers.get('idempotent-replayed'), 'true');
  assert.equal(await balanceOf(server, sandbox, destination), quote.totalReceivingAmount);
});

// ---------------------------------------------------------------------------------------------
// GET /exchange-rates

async function supported() {
  const config = await call(server, sandbox, 'GET', '/config');
  return Object.fromEntries(config.body.supportedCurrencies.map((c) => [c.currencyCode, c]));
}

function assertRate(item, from, to, amount, limits) {
  const expected = expectedPrice(from, to, 'SENDING', amount);
  const label = `${from}->${to} ${amount}`;
  assert.equal(item.sourceCurrency.code, from, label);
  assert.equal(item.destinationCurrency.code, to, label);
  assert.equal(typeof item.sourceCurrency.decimals, 'number');
  assert.equal(item.destinationPaymentRail, corridorTerms(from, to).rail, label);
  assert.equal(item.sendingAmount, amount, label);
  assert.equal(item.minSendingAmount, limits[from].minAmount, label);
  assert.equal(item.maxSendingAmount, limits[from].maxAmount, label);
  assert.equal(item.receivingAmount, expected.tooSmall ? 0 : expected.totalReceivingAmount, label);
  if (!expected.tooSmall) {
    assert.equal(item.exchangeRate, expected.exchangeRate, label);
    assert.deepEqual(item.fees, { fixed: expected.fixedFee }, label);
  }
  assert.match(item.updatedAt, ISO);
}

test('GET /exchange-rates lists the source currency\'s corridors with a default sendingAmount of 10000', async () => {
  const limits = await supported();
  const response = await call(server, sandbox, 'GET', '/exchange-rates?sourceCurrency=USD');
  assert.equal(response.status, 200, response.text);
  const destinations = response.body.data.map((item) => item.destinationCurrency.code).sort();
  assert.deepEqual(destinations, Object.keys(limits).filter((code) => code !== 'USD').sort());
  for (const item of response.body.data) assertRate(item, 'USD', item.destinationCurrency.code, 10000, limits);
  assert.equal(response.body.hasMore, undefined, 'not paginated');
  // Without a source every enabled ordered pair is listed.
  const everything = await call(server, sandbox, 'GET', '/exchange-rates');
  const count = Object.keys(limits).length;
  assert.equal(everything.body.data.length, count * (count - 1));
});

test('GET /exchange-rates takes repeated destinationCurrency and a sendingAmount', async () => {
  const limits = await supported();
  const response = await call(server, sandbox, 'GET', '/exchange-rates?sourceCurrency=GBP&destinationCurrency=EUR&destinationCurrency=INR&sendingAmount=123457');
  assert.equal(response.status, 200, response.text);
  assert.deepEqual(response.body.data.map((item) => item.destinationCurrency.code).sort(), ['EUR', 'INR']);
  for (const item of response.body.data) assertRate(item, 'GBP', item.destinationCurrency.code, 123457, limits);
  const one = await call(server, sandbox, 'GET', '/exchange-rates?destinationCurrency=BTC&sendingAmount=500000');
  assert.ok(one.body.data.length >= 2);
  for (const item of one.body.data) {
    assert.equal(item.destinationCurrency.code, 'BTC');
    assertRate(item, item.sourceCurrency.code, 'BTC', 500000, limits);
  }
  const zero = await call(server, sandbox, 'GET', '/exchange-rates?sourceCurrency=USD&destinationCurrency=EUR&sendingAmount=0');
  assert.equal(zero.status, 200, zero.text);
  assert.equal(zero.body.data[0].receivingAmount, 0);
});

test('the receivingAmount of GET /exchange-rates is what a SENDING quote of that amount delivers', async () => {
  const rates = await call(server, sandbox, 'GET', '/exchange-rates?sourceCurrency=USD&sendingAmount=98765');
  assert.equal(rates.status, 200, rates.text);
  const receiver = await newCustomer(server, sandbox);
  const receiving = await accountsOf(server, sandbox, receiver.id);
  for (const item of rates.body.data) {
    const code = item.destinationCurrency.code;
    const quote = await createQuote(server, sandbox, quoteBody(payerAccounts.USD.id, receiving[code].id, 98765));
    assert.equal(item.receivingAmount, quote.totalReceivingAmount, code);
    assert.equal(item.exchangeRate, quote.exchangeRate, code);
    assert.equal(item.fees.fixed, quote.rateDetails.serviceApiFixedFee + quote.rateDetails.counterpartyFixedFee, code);
  }
});

test('GET /exchange-rates refuses unknown currencies and malformed amounts', async () => {
  assertError(await call(server, sandbox, 'GET', '/exchange-rates?sourceCurrency=XYZ'), 400, 'INVALID_CURRENCY');
  assertError(await call(server, sandbox, 'GET', '/exchange-rates?sourceCurrency=USD&destinationCurrency=EUR&destinationCurrency=XYZ'), 400, 'INVALID_CURRENCY');
  for (const amount of ['abc', '-1', '1.5', '9000000000000001', '']) {
    assertError(await call(server, sandbox, 'GET', `/exchange-rates?sendingAmount=${amount}`), 400, 'INVALID_INPUT');
  }
});
