// POST /quotes priced exactly as the written formula says (recomputed here in BigInt from
// conf/rates.json), its refusals, just-in-time funding instructions, and GET /quotes with its
// filters and pages.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCorridor, stopCorridor, call, walkPages } from './lib/harness.mjs';
import {
  newCustomer, accountsOf, fund, quoteBody, createQuote, expectedPrice, assertError,
} from './lib/money.mjs';

let server;
let sandbox;
let production;
let other;
let alice;
let bob;
let aliceAccounts;
let bobAccounts;

before(async () => {
  server = await startCorridor({ platforms: 2 });
  sandbox = server.platforms[0].sandbox;
  production = server.platforms[0].production;
  other = server.platforms[1].sandbox;
  alice = await newCustomer(server, sandbox);
  bob = await newCustomer(server, sandbox);
  aliceAccounts = await accountsOf(server, sandbox, alice.id);
  bobAccounts = await accountsOf(server, sandbox, bob.id);
});
after(async () => { if (server) await stopCorridor(server); });

function assertPriced(quote, from, to, side, amount) {
  const expected = expectedPrice(from, to, side, amount);
  const label = `${from}->${to} ${side} ${amount}`;
  assert.ok(!expected.tooSmall, `${label}: the test picked an amount too small to price`);
  assert.equal(quote.sendingCurrency.code, from, label);
  assert.equal(quote.receivingCurrency.code, to, label);
  assert.equal(quote.totalSendingAmount, expected.totalSendingAmount, `${label}: totalSendingAmount`);
  assert.equal(quote.totalReceivingAmount, expected.totalReceivingAmount, `${label}: totalReceivingAmount`);
  assert.equal(quote.feesIncluded, expected.feesIncluded, `${label}: feesIncluded`);
  assert.equal(quote.totalSendingAmount, expected.netSendingAmount + quote.feesIncluded, `${label}: total = net + fees`);
  assert.equal(quote.exchangeRate, expected.exchangeRate, `${label}: exchangeRate`);
  assert.deepEqual(quote.rateDetails, expected.rateDetails, `${label}: rateDetails`);
  if (side === 'SENDING') assert.equal(quote.totalSendingAmount, amount, `${label}: the locked sending amount is what is paid`);
  else assert.equal(quote.totalReceivingAmount, amount, `${label}: the locked receiving amount is what arrives`);
  assert.ok(quote.feesIncluded >= 0 && quote.rateDetails.serviceApiVariableFeeAmount >= 0);
}

test('POST /quotes prices SENDING and RECEIVING locks exactly as the formula says', async () => {
  const pairs = [['USD', 'EUR'], ['USD', 'MXN'], ['EUR', 'GBP'], ['GBP', 'INR'], ['USD', 'BTC'], ['BTC', 'USD'], ['INR', 'BRL'], ['MXN', 'USD']];
  const amounts = [1000, 10000, 12345, 999983, 123456789];
  const cases = [];
  for (const [from, to] of pairs) {
    for (const side of ['SENDING', 'RECEIVING']) {
      for (const amount of amounts) cases.push({ from, to, side, amount });
    }
  }
  const responses = await Promise.all(cases.map(({ from, to, side, amount }) =>
    call(server, sandbox, 'POST', '/quotes', quoteBody(aliceAccounts[from].id, bobAccounts[to].id, amount, side))));
  const config = await call(server, sandbox, 'GET', '/config');
  const limits = Object.fromEntries(config.body.supportedCurrencies.map((c) => [c.currencyCode, c]));
  const within = (code, amount) => amount >= limits[code].minAmount && amount <= limits[code].maxAmount;
  let priced = 0;
  let outOfRange = 0;
  responses.forEach((response, i) => {
    const { from, to, side, amount } = cases[i];
    const expected = expectedPrice(from, to, side, amount);
    if (expected.tooSmall || !within(from, expected.totalSendingAmount) || !within(to, expected.totalReceivingAmount)) {
      assertError(response, 400, 'AMOUNT_OUT_OF_RANGE');
      outOfRange++;
      return;
    }
    assert.equal(response.status, 201, `${from}->${to} ${side} ${amount}: ${response.text}`);
    assertPriced(response.body, from, to, side, amount);
    priced++;
  });
  assert.ok(priced >= cases.length - 8, `only ${priced} of ${cases.length} cases priced`);
  assert.ok(outOfRange >= 1, 'some case crosses a limit');
});

test('a created quote has the interface shape and reads back identically', async () => {
  const before = Date.now();
  const response = await call(server, sandbox, 'POST', '/quotes', quoteBody(aliceAccounts.USD.id, bobAccounts.EUR.id, 25000, 'SENDING', {
    description: 'rent for March', purposeOfPayment: 'GIFT',
  }));
  assert.equal(response.status, 201, response.text);
  const quote = response.body;
  assert.match(quote.id, /^Quote:/);
  assert.match(quote.transactionId, /^Transaction:/);
  assert.equal(quote.status, 'PENDING');
  assert.deepEqual(quote.source, { sourceType: 'ACCOUNT', accountId: aliceAccounts.USD.id, customerId: alice.id });
  assert.deepEqual(quote.destination, { destinationType: 'ACCOUNT', accountId: bobAccounts.EUR.id });
  assert.deepEqual(quote.sendingCurrency, { code: 'USD', name: 'United States Dollar', symbol: '$', decimals: 2 });
  assert.equal(quote.receivingCurrency.code, 'EUR');
  assert.equal(quote.description, 'rent for March');
  assert.equal(quote.purposeOfPayment, 'GIFT');
  assert.equal(quote.paymentInstructions, undefined, 'an internal-account source needs no instructions');
  const created = Date.parse(quote.createdAt);
  assert.ok(created >= before - 1000 && created <= Date.now() + 1000);
  assert.equal(Date.parse(quote.expiresAt) - created, 300 * 1000, 'expiresAt = createdAt + quotes.ttl_seconds');
  assertPriced(quote, 'USD', 'EUR', 'SENDING', 25000);
  const read = await call(server, sandbox, 'GET', `/quotes/${quote.id}`);
  assert.equal(read.status, 200, read.text);
  assert.deepEqual(read.body, quote);
  // Its OUTGOING transaction exists, PENDING.
  const transaction = await call(server, sandbox, 'GET', `/transactions/${quote.transactionId}`);
  assert.equal(transaction.status, 200, transaction.text);
  assert.equal(transaction.body.type, 'OUTGOING');
  assert.equal(transaction.body.status, 'PENDING');
  assert.equal(transaction.body.quoteId, quote.id);
});

test('the source customerId must own the source account', async () => {
  const owned = await call(server, sandbox, 'POST', '/quotes', {
    ...quoteBody(aliceAccounts.USD.id, bobAccounts.EUR.id, 5000), source: { sourceType: 'ACCOUNT', accountId: aliceAccounts.USD.id, customerId: alice.id },
  });
  assert.equal(owned.status, 201, owned.text);
  const mismatch = await call(server, sandbox, 'POST', '/quotes', {
    ...quoteBody(aliceAccounts.USD.id, bobAccounts.EUR.id, 5000), source: { sourceType: 'ACCOUNT', accountId: aliceAccounts.USD.id, customerId: bob.id },
  });
  assertError(mismatch, 400, 'INVALID_INPUT');
});

test('a same-currency pair is refused with SAME_CURRENCY', async () => {
  const response = await call(server, sandbox, 'POST', '/quotes', quoteBody(aliceAccounts.USD.id, bobAccounts.USD.id, 5000));
  assertError(response, 400, 'SAME_CURRENCY');
  const own = await call(server, sandbox, 'POST', '/quotes', quoteBody(aliceAccounts.EUR.id, aliceAccounts.EUR.id, 5000, 'RECEIVING'));
  assertError(own, 400, 'SAME_CURRENCY');
});

test('lockedCurrencyAmount must be an integer from 1 to 9000000000000000', async () => {
  const bodies = [0, -1, 9000000000000001, 1.5, '1000', null, true];
  for (const amount of bodies) {
    const response = await call(server, sandbox, 'POST', '/quotes', quoteBody(aliceAccounts.USD.id, bobAccounts.EUR.id, amount));
    assertError(response, 400, 'INVALID_INPUT');
    assert.equal(response.body.details.field, 'lockedCurrencyAmount', `${amount}: ${response.text}`);
  }
  const missing = quoteBody(aliceAccounts.USD.id, bobAccounts.EUR.id, 1000);
  delete missing.lockedCurrencyAmount;
  const response = await call(server, sandbox, 'POST', '/quotes', missing);
  assertError(response, 400, 'INVALID_INPUT');
  assert.equal(response.body.details.field, 'lockedCurrencyAmount');
  // The upper bound itself is a valid input; it is the currency's maxAmount that refuses it.
  assertError(await call(server, sandbox, 'POST', '/quotes', quoteBody(aliceAccounts.USD.id, bobAccounts.EUR.id, 9000000000000000)), 400, 'AMOUNT_OUT_OF_RANGE');
  // Other malformed requests name their field.
  for (const [body, field] of [
    [{ ...quoteBody(aliceAccounts.USD.id, bobAccounts.EUR.id, 1000), lockedCurrencySide: 'BOTH' }, 'lockedCurrencySide'],
    [{ ...quoteBody(aliceAccounts.USD.id, bobAccounts.EUR.id, 1000), source: undefined }, 'source'],
    [{ ...quoteBody(aliceAccounts.USD.id, bobAccounts.EUR.id, 1000), purposeOfPayment: 'BRIBE' }, 'purposeOfPayment'],
  ]) {
    const refused = await call(server, sandbox, 'POST', '/quotes', body);
    assertError(refused, 400, 'INVALID_INPUT');
    assert.equal(refused.body.details.field, field, refused.text);
  }
});

test('a too small amount that cannot cover the fixed fee is AMOUNT_OUT_OF_RANGE', async () => {
  const expected = expectedPrice('USD', 'EUR', 'SENDING', 5);
  assert.ok(expected.tooSmall);
  assertError(await call(server, sandbox, 'POST', '/quotes', quoteBody(aliceAccounts.USD.id, bobAccounts.EUR.id, 5)), 400, 'AMOUNT_OUT_OF_RANGE');
});

test('unknown and foreign accounts are not found', async () => {
  const stranger = await newCustomer(server, other);
  const foreign = await accountsOf(server, other, stranger.id);
  const livePlatform = await call(server, production, 'GET', '/platform/internal-accounts');
  const live = Object.fromEntries(livePlatform.body.data.map((a) => [a.balance.currency.code, a]));
  const missing = 'InternalAccount:00000000-0000-7000-8000-000000000000';
  for (const [source, destination, field] of [
    [missing, bobAccounts.EUR.id, 'source.accountId'],
    [aliceAccounts.USD.id, missing, 'destination.accountId'],
    [foreign.USD.id, bobAccounts.EUR.id, 'source.accountId'],
    [aliceAccounts.USD.id, foreign.EUR.id, 'destination.accountId'],
    [live.USD.id, bobAccounts.EUR.id, 'source.accountId'],
    [aliceAccounts.USD.id, live.EUR.id, 'destination.accountId'],
  ]) {
    const response = await call(server, sandbox, 'POST', '/quotes', quoteBody(source, destination, 5000));
    assertError(response, 404, 'ACCOUNT_NOT_FOUND');
    assert.equal(response.body.details.field, field, response.text);
  }
  // A REALTIME_FUNDING quote on behalf of another tenant's customer.
  const onBehalf = await call(server, sandbox, 'POST', '/quotes', {
    source: { sourceType: 'REALTIME_FUNDING', currency: 'USD', customerId: stranger.id },
    destination: { destinationType: 'ACCOUNT', accountId: bobAccounts.EUR.id },
    lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 5000,
  });
  assertError(onBehalf, 404, 'USER_NOT_FOUND');
});

test('REALTIME_FUNDING quotes carry payment instructions with the quote\'s own reference', async () => {
  const body = {
    source: { sourceType: 'REALTIME_FUNDING', currency: 'USD', customerId: alice.id },
    destination: { destinationType: 'ACCOUNT', accountId: bobAccounts.MXN.id },
    lockedCurrencySide: 'RECEIVING', lockedCurrencyAmount: 170000,
  };
  const first = await createQuote(server, sandbox, body);
  const second = await createQuote(server, sandbox, body);
  assert.deepEqual(first.source, { sourceType: 'REALTIME_FUNDING', currency: 'USD', customerId: alice.id });
  assertPriced(first, 'USD', 'MXN', 'RECEIVING', 170000);
  const references = [];
  for (const quote of [first, second]) {
    assert.ok(Array.isArray(quote.paymentInstructions) && quote.paymentInstructions.length >= 1, JSON.stringify(quote));
    const [instruction] = quote.paymentInstructions;
    const reference = instruction.accountOrWalletInfo.reference;
    assert.equal(typeof reference, 'string');
    assert.ok(reference.length >= 6);
    assert.equal(typeof instruction.accountOrWalletInfo.accountType, 'string');
    assert.ok(instruction.instructionsNotes.includes(reference));
    assert.ok(instruction.instructionsNotes.includes(String(quote.totalSendingAmount)), instruction.instructionsNotes);
    references.push(reference);
    // The reference finds this quote's transaction and nothing else.
    const found = await call(server, sandbox, 'GET', `/transactions?reference=${reference}`);
    assert.equal(found.status, 200, found.text);
    assert.deepEqual(found.body.data.map((t) => t.id), [quote.transactionId]);
  }
  assert.notEqual(references[0], references[1], 'each quote has its own reference');
  // Accounts' references are not quotes' references.
  const accountReference = aliceAccounts.USD.fundingPaymentInstructions[0].accountOrWalletInfo.reference;
  assert.ok(!references.includes(accountReference));

  // Platform-funded (no customerId) works too, and BTC is funded to the sandbox rail's Spark wallet
  // (a currency without any funding details is refused: funding_instructions.test.mjs).
  const platformQuote = await createQuote(server, sandbox, { ...body, source: { sourceType: 'REALTIME_FUNDING', currency: 'EUR' } });
  assert.equal(platformQuote.source.customerId, undefined);
  assert.ok(platformQuote.paymentInstructions.length >= 1);
  const btc = await createQuote(server, sandbox, { ...body, source: { sourceType: 'REALTIME_FUNDING', currency: 'BTC' } });
  assert.equal(btc.paymentInstructions[0].accountOrWalletInfo.accountType, 'SPARK_WALLET');
  assertError(await call(server, sandbox, 'POST', '/quotes', { ...body, source: { sourceType: 'REALTIME_FUNDING', currency: 'XYZ' } }), 400, 'INVALID_CURRENCY');
  // immediatelyExecute cannot apply to a quote paid by instructions.
  assertError(await call(server, sandbox, 'POST', '/quotes', { ...body, immediatelyExecute: true }), 400, 'QUOTE_NOT_EXECUTABLE');
});

test('GET /quotes/{id} is not found for another tenant or an unknown id', async () => {
  const quote = await createQuote(server, sandbox, quoteBody(aliceAccounts.USD.id, bobAccounts.GBP.id, 7000));
  assertError(await call(server, other, 'GET', `/quotes/${quote.id}`), 404, 'QUOTE_NOT_FOUND');
  assertError(await call(server, production, 'GET', `/quotes/${quote.id}`), 404, 'QUOTE_NOT_FOUND');
  assertError(await call(server, sandbox, 'GET', '/quotes/Quote:00000000-0000-7000-8000-000000000000'), 404, 'QUOTE_NOT_FOUND');
  // Ids are stored as 16 bytes: what is no quote's id (malformed, a bare word, another type's,
  // its uuid in upper case) is not found, as an unknown one, on both backends, never a 500.
  const upper = `Quote:${quote.id.slice('Quote:'.length).toUpperCase()}`;
  assert.notEqual(upper, quote.id);
  for (const notOne of ['Quote:nope', 'nope', quote.transactionId, upper, `${quote.id}0`, `Transaction:${quote.id.slice('Quote:'.length)}`]) {
    assertError(await call(server, sandbox, 'GET', `/quotes/${encodeURIComponent(notOne)}`), 404, 'QUOTE_NOT_FOUND');
  }
  const theirs = await call(server, other, 'GET', '/quotes');
  assert.equal(theirs.status, 200);
  assert.ok(!theirs.body.data.some((q) => q.id === quote.id));
});

test('GET /quotes filters by customer, accounts, status and creation time, and pages without gaps', async () => {
  const carol = await newCustomer(server, sandbox);
  const dave = await newCustomer(server, sandbox);
  const carolAccounts = await accountsOf(server, sandbox, carol.id);
  const daveAccounts = await accountsOf(server, sandbox, dave.id);
  await fund(server, sandbox, carolAccounts.USD.id, 1000000);
  const made = [];
  for (let i = 0; i < 9; i++) {
    const source = i % 3 === 2 ? carolAccounts.GBP : carolAccounts.USD;
    const destination = i % 2 === 0 ? daveAccounts.EUR : daveAccounts.MXN;
    made.push(await createQuote(server, sandbox, quoteBody(source.id, destination.id, 10000 + i)));
  }
  const fromDave = await createQuote(server, sandbox, quoteBody(daveAccounts.EUR.id, carolAccounts.USD.id, 10000));
  const executed = await call(server, sandbox, 'POST', `/quotes/${made[0].id}/execute`);
  assert.equal(executed.status, 200, executed.text);
  made[0] = executed.body;

  const walk = async (query, limit = 4) => {
    const result = await walkPages(server, sandbox, `/quotes?${query}`, limit);
    assert.equal(new Set(result.items.map((q) => q.id)).size, result.items.length, `${query}: duplicates`);
    assert.ok(result.totals.every((t) => t === result.items.length), `${query}: totalCount ${result.totals} vs ${result.items.length}`);
    return result.items;
  };
  const ids = (list) => list.map((q) => q.id).sort();
  const newestFirst = (list) => [...list].sort((a, b) => (a.id < b.id ? 1 : -1)).map((q) => q.id);

  const carols = await walk(`customerId=${carol.id}`, 2);
  assert.deepEqual(carols.map((q) => q.id), newestFirst(made), 'customerId: every quote of Carol, newest first');
  assert.deepEqual(ids(await walk(`customerId=${dave.id}`)), [fromDave.id]);
  assert.deepEqual(ids(await walk(`sendingAccountId=${carolAccounts.GBP.id}`)), ids(made.filter((q) => q.source.accountId === carolAccounts.GBP.id)));
  assert.deepEqual(ids(await walk(`receivingAccountId=${daveAccounts.MXN.id}`)), ids(made.filter((q) => q.destination.accountId === daveAccounts.MXN.id)));
  assert.deepEqual(ids(await walk(`customerId=${carol.id}&status=COMPLETED`)), [made[0].id]);
  assert.deepEqual(ids(await walk(`customerId=${carol.id}&status=PENDING`)), ids(made.slice(1)));
  assert.deepEqual(await walk(`customerId=${carol.id}&status=EXPIRED`), []);
  assert.deepEqual(ids(await walk(`sendingAccountId=${carolAccounts.USD.id}&receivingAccountId=${daveAccounts.EUR.id}`)),
    ids(made.filter((q) => q.source.accountId === carolAccounts.USD.id && q.destination.accountId === daveAccounts.EUR.id)));

  // createdAfter / createdBefore are inclusive.
  const pivot = made[4].createdAt;
  assert.deepEqual(ids(await walk(`customerId=${carol.id}&createdAfter=${pivot}`)), ids(made.filter((q) => q.createdAt >= pivot)));
  assert.deepEqual(ids(await walk(`customerId=${carol.id}&createdBefore=${pivot}`)), ids(made.filter((q) => q.createdAt <= pivot)));
  const exact = await walk(`customerId=${carol.id}&createdAfter=${pivot}&createdBefore=${pivot}`);
  assert.ok(exact.some((q) => q.id === made[4].id));
  assert.deepEqual(ids(exact), ids(made.filter((q) => q.createdAt === pivot)));
  assert.deepEqual(await walk(`customerId=${carol.id}&createdAfter=2100-01-01T00:00:00Z`), []);
  // The customer id is stored as 16 bytes: one that is no customer id (malformed, of another
  // type, unknown) finds nothing, as before, on both backends.
  for (const notCarol of ['Customer:nope', 'nope', made[0].id, carolAccounts.USD.id, carol.id.replace(/.$/, (c) => (c === '0' ? '1' : '0'))]) {
    assert.deepEqual(await walk(`customerId=${encodeURIComponent(notCarol)}`), [], notCarol);
  }

  // The unfiltered walk holds every quote exactly once, whatever the page size.
  const all = await walk('', 100);
  for (const limit of [1, 3, 7]) assert.deepEqual((await walk('', limit)).map((q) => q.id), all.map((q) => q.id));
  for (const quote of [...made, fromDave]) assert.ok(all.some((q) => q.id === quote.id));
  // Listed quotes render exactly as GET /quotes/{id}.
  assert.deepEqual(carols.find((q) => q.id === made[0].id), made[0]);

  // The UMA address filters match the sending and the receiving customer's address (any case).
  const enc = encodeURIComponent;
  assert.deepEqual(ids(await walk(`sendingUmaAddress=${enc(carol.umaAddress)}`)), ids(made));
  assert.deepEqual(ids(await walk(`sendingUmaAddress=${enc(dave.umaAddress.toUpperCase())}`)), [fromDave.id]);
  assert.deepEqual(ids(await walk(`receivingUmaAddress=${enc(carol.umaAddress)}`)), [fromDave.id]);
  assert.deepEqual(ids(await walk(`receivingUmaAddress=${enc(dave.umaAddress)}&sendingUmaAddress=${enc(carol.umaAddress)}`)), ids(made));
  assert.deepEqual(await walk(`sendingUmaAddress=${enc('$nobody@example.test')}`), []);
  assertError(await call(server, sandbox, 'GET', '/quotes?sendingUmaAddress=carol'), 400, 'INVALID_UMA_ADDRESS');

  assertError(await call(server, sandbox, 'GET', '/quotes?status=DONE'), 400, 'INVALID_INPUT');
  assertError(await call(server, sandbox, 'GET', '/quotes?createdAfter=yesterday'), 400, 'INVALID_INPUT');
});

// These change the platform configuration, so they come last.
test('amounts outside the currency\'s minAmount/maxAmount are AMOUNT_OUT_OF_RANGE', async () => {
  const config = await call(server, sandbox, 'GET', '/config');
  const original = config.body.supportedCurrencies.map(({ currencyCode, minAmount, maxAmount, enabledTransactionTypes, requiredCounterpartyFields }) =>
    ({ currencyCode, minAmount, maxAmount, enabledTransactionTypes, requiredCounterpartyFields }));
  const narrowed = original.map((item) => {
    if (item.currencyCode === 'USD') return { ...item, minAmount: 1000, maxAmount: 500000 };
    if (item.currencyCode === 'EUR') return { ...item, minAmount: 2000, maxAmount: 300000 };
    return item;
  });
  const patched = await call(server, sandbox, 'PATCH', '/config', { supportedCurrencies: narrowed });
  assert.equal(patched.status, 200, patched.text);

  const usdToGbp = (amount, side = 'SENDING') => call(server, sandbox, 'POST', '/quotes', quoteBody(aliceAccounts.USD.id, bobAccounts.GBP.id, amount, side));
  assert.equal((await usdToGbp(1000)).status, 201, 'the minimum itself is allowed');
  assert.equal((await usdToGbp(500000)).status, 201, 'the maximum itself is allowed');
  assertError(await usdToGbp(999), 400, 'AMOUNT_OUT_OF_RANGE');
  assertError(await usdToGbp(500001), 400, 'AMOUNT_OUT_OF_RANGE');
  // A RECEIVING lock whose sending total exceeds the sending currency's maximum.
  const tooMuch = expectedPrice('USD', 'GBP', 'RECEIVING', 400000);
  assert.ok(tooMuch.totalSendingAmount > 500000);
  assertError(await usdToGbp(400000, 'RECEIVING'), 400, 'AMOUNT_OUT_OF_RANGE');
  // The receiving currency's limits apply to the receiving total.
  const toEur = (amount, side) => call(server, sandbox, 'POST', '/quotes', quoteBody(aliceAccounts.GBP.id, bobAccounts.EUR.id, amount, side));
  assertError(await toEur(1999, 'RECEIVING'), 400, 'AMOUNT_OUT_OF_RANGE');
  assertError(await toEur(300001, 'RECEIVING'), 400, 'AMOUNT_OUT_OF_RANGE');
  assert.equal((await toEur(2000, 'RECEIVING')).status, 201);
  const smallGbp = 1500;  // converts to fewer than 2000 euro cents
  assert.ok(expectedPrice('GBP', 'EUR', 'SENDING', smallGbp).totalReceivingAmount < 2000);
  assertError(await toEur(smallGbp, 'SENDING'), 400, 'AMOUNT_OUT_OF_RANGE');

  const restored = await call(server, sandbox, 'PATCH', '/config', { supportedCurrencies: original });
  assert.equal(restored.status, 200, restored.text);
  assert.equal((await usdToGbp(999)).status, 201);
});

test('a currency not enabled for the direction is CURRENCY_NOT_ENABLED', async () => {
  const config = await call(server, sandbox, 'GET', '/config');
  const original = config.body.supportedCurrencies.map(({ currencyCode, minAmount, maxAmount, enabledTransactionTypes, requiredCounterpartyFields }) =>
    ({ currencyCode, minAmount, maxAmount, enabledTransactionTypes, requiredCounterpartyFields }));
  const oneWay = original.map((item) => {
    if (item.currencyCode === 'BRL') return { ...item, enabledTransactionTypes: ['INCOMING'] };
    if (item.currencyCode === 'GBP') return { ...item, enabledTransactionTypes: ['OUTGOING'] };
    return item;
  });
  const patched = await call(server, sandbox, 'PATCH', '/config', { supportedCurrencies: oneWay });
  assert.equal(patched.status, 200, patched.text);

  assertError(await call(server, sandbox, 'POST', '/quotes', quoteBody(aliceAccounts.BRL.id, bobAccounts.USD.id, 10000)), 400, 'CURRENCY_NOT_ENABLED');
  assertError(await call(server, sandbox, 'POST', '/quotes', quoteBody(aliceAccounts.USD.id, bobAccounts.GBP.id, 10000)), 400, 'CURRENCY_NOT_ENABLED');
  assertError(await call(server, sandbox, 'POST', '/quotes', {
    source: { sourceType: 'REALTIME_FUNDING', currency: 'BRL' },
    destination: { destinationType: 'ACCOUNT', accountId: bobAccounts.USD.id },
    lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 10000,
  }), 400, 'CURRENCY_NOT_ENABLED');
  // The enabled directions still work.
  assert.equal((await call(server, sandbox, 'POST', '/quotes', quoteBody(aliceAccounts.USD.id, bobAccounts.BRL.id, 10000))).status, 201);
  assert.equal((await call(server, sandbox, 'POST', '/quotes', quoteBody(aliceAccounts.GBP.id, bobAccounts.USD.id, 10000))).status, 201);
  // The other tenant's configuration is its own.
  const theirs = await newCustomer(server, other);
  const theirAccounts = await accountsOf(server, other, theirs.id);
  assert.equal((await call(server, other, 'POST', '/quotes', quoteBody(theirAccounts.BRL.id, theirAccounts.USD.id, 10000))).status, 201);

  const restored = await call(server, sandbox, 'PATCH', '/config', { supportedCurrencies: original });
  assert.equal(restored.status, 200, restored.text);
});

// Every field of POST /quotes the interface defines is type-checked when present, whether or not
// the chosen variant (here an internal-account destination) uses it.
test('a known field of the wrong type is 400 naming it, even where the variant ignores it', async () => {
  await fund(server, sandbox, aliceAccounts.USD.id, 100_000);
  const valid = quoteBody(aliceAccounts.USD.id, bobAccounts.EUR.id, 1000);
  const wrong = [
    ['lookupId', 42], ['senderCustomerInfo', 'name'], ['senderCustomerInfo', []],
    ['description', 7], ['purposeOfPayment', 1], ['immediatelyExecute', 'yes'],
    ['lockedCurrencyAmount', '1000'], ['lockedCurrencyAmount', 10.5], ['lockedCurrencySide', 0],
    ['source', 'ACCOUNT'], ['source.sourceType', 1], ['source.accountId', 5], ['source.customerId', 5],
    ['source.currency', 840], ['destination', []], ['destination.destinationType', true],
    ['destination.accountId', 5], ['destination.umaAddress', 5], ['destination.currency', 978],
  ];
  const count = async () => (await call(server, sandbox, 'GET', '/quotes?limit=1')).body.totalCount;
  const before = await count();
  for (const [path, value] of wrong) {
    const body = structuredClone(valid);
    const [head, tail] = path.split('.');
    if (tail) body[head][tail] = value; else body[head] = value;
    const response = await call(server, sandbox, 'POST', '/quotes', body);
    assert.equal(response.status, 400, `${path}=${JSON.stringify(value)}: ${response.text}`);
    assert.equal(response.body.code, 'INVALID_INPUT');
    assert.equal(response.body.details.field, path, response.text);
    assert.ok(response.body.message.startsWith(`${path}: must be`), response.text);
  }
  assert.equal(await count(), before, 'nothing was written');
  // Null is absence, and unknown fields are ignored: the same body is a quote.
  const accepted = await call(server, sandbox, 'POST', '/quotes', { ...valid, lookupId: null, somethingElse: 5 });
  assert.equal(accepted.status, 201, accepted.text);
});
