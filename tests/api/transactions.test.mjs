// GET /transactions with every filter of the interface, both sort orders and page walks without
// duplicates or gaps; the fields of OUTGOING and INCOMING transactions; tenancy of GET by id.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCorridor, stopCorridor, call, walkPages } from './lib/harness.mjs';
import { newCustomer, accountsOf, fund, quoteBody, createQuote, assertError } from './lib/money.mjs';
import { expectWrongTypes } from './lib/wrong_types.mjs';
import { packedIdLiteral, queryRows } from './lib/database.mjs';

let server;
let sandbox;
let other;
let alice;
let bob;
let aliceAccounts;
let bobAccounts;
const quotes = {};
let all;

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

async function executed(body) {
  const quote = await createQuote(server, sandbox, body);
  const response = await call(server, sandbox, 'POST', `/quotes/${quote.id}/execute`);
  assert.equal(response.status, 200, response.text);
  return response.body;
}

before(async () => {
  server = await startCorridor({ platforms: 2 });
  sandbox = server.platforms[0].sandbox;
  other = server.platforms[1].sandbox;
  alice = await newCustomer(server, sandbox, 'tx-alice');
  bob = await newCustomer(server, sandbox, 'tx-bob');
  aliceAccounts = await accountsOf(server, sandbox, alice.id);
  bobAccounts = await accountsOf(server, sandbox, bob.id);
  await fund(server, sandbox, aliceAccounts.USD.id, 1000000);
  quotes.toBob = [];
  for (const amount of [10000, 20000, 30000]) {
    quotes.toBob.push(await executed(quoteBody(aliceAccounts.USD.id, bobAccounts.EUR.id, amount, 'SENDING', { description: `invoice ${amount}` })));
  }
  quotes.toSelf = await executed(quoteBody(aliceAccounts.USD.id, aliceAccounts.GBP.id, 5000, 'RECEIVING'));
  quotes.pending = await createQuote(server, sandbox, quoteBody(aliceAccounts.USD.id, bobAccounts.MXN.id, 7000));
  const instant = {
    source: { sourceType: 'REALTIME_FUNDING', currency: 'USD', customerId: bob.id },
    destination: { destinationType: 'ACCOUNT', accountId: aliceAccounts.EUR.id },
    lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 12000,
  };
  quotes.funded = await createQuote(server, sandbox, instant);
  const sent = await call(server, sandbox, 'POST', '/sandbox/send', { quoteId: quotes.funded.id, currencyCode: 'USD', currencyAmount: quotes.funded.totalSendingAmount });
  assert.equal(sent.status, 200, sent.text);
  quotes.mismatched = await createQuote(server, sandbox, instant);
  const wrong = await call(server, sandbox, 'POST', '/sandbox/send', { quoteId: quotes.mismatched.id, currencyCode: 'USD', currencyAmount: 1 });
  assert.equal(wrong.status, 200, wrong.text);
  await fund(server, sandbox, bobAccounts.EUR.id, 4242);
  all = (await walkPages(server, sandbox, '/transactions', 100)).items;
});
after(async () => { if (server) await stopCorridor(server); });

const byIdDesc = (list) => [...list].sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
const ids = (list) => list.map((t) => t.id);

async function filtered(query, limit = 3) {
  const result = await walkPages(server, sandbox, `/transactions?${query}`, limit);
  assert.equal(new Set(ids(result.items)).size, result.items.length, `${query}: duplicates`);
  assert.ok(result.totals.every((t) => t === result.items.length), `${query}: totalCount ${result.totals} for ${result.items.length}`);
  return result.items;
}

async function expectFilter(query, predicate, { nonEmpty = true } = {}) {
  const got = await filtered(query);
  const expected = byIdDesc(all.filter(predicate));
  if (nonEmpty) assert.ok(expected.length > 0, `${query}: the fixture should match something`);
  assert.deepEqual(ids(got), ids(expected), query);
  assert.ok(expected.length < all.length || query === '', `${query}: the filter should exclude something`);
  return got;
}

test('the fixture produced every kind of transaction', () => {
  // 2 deposits, 4 executed quotes (outgoing + incoming each), 1 pending, 1 funded (+ incoming), 1 failed.
  assert.equal(all.length, 2 + 4 * 2 + 1 + 2 + 1);
  assert.deepEqual(ids(all), ids(byIdDesc(all)), 'newest first by default');
  const kinds = new Set(all.map((t) => `${t.type}/${t.status}`));
  for (const kind of ['INCOMING/COMPLETED', 'OUTGOING/COMPLETED', 'OUTGOING/PENDING', 'OUTGOING/FAILED']) assert.ok(kinds.has(kind), kind);
});

test('filters: customerId and platformCustomerId', async () => {
  const mine = await expectFilter(`customerId=${alice.id}`, (t) => t.customerId === alice.id);
  // The sender owns the OUTGOING side, the receiver the INCOMING side.
  assert.ok(mine.some((t) => t.type === 'OUTGOING' && t.quoteId === quotes.toBob[0].id));
  assert.ok(!mine.some((t) => t.type === 'INCOMING' && t.quoteId === quotes.toBob[0].id));
  assert.ok(mine.some((t) => t.type === 'INCOMING' && t.quoteId === quotes.toSelf.id));
  const byPlatformId = await filtered('platformCustomerId=tx-alice');
  assert.deepEqual(ids(byPlatformId), ids(mine));
  await expectFilter(`customerId=${bob.id}`, (t) => t.customerId === bob.id);
  await expectFilter('platformCustomerId=tx-bob', (t) => t.customerId === bob.id);
  assert.deepEqual(await filtered('platformCustomerId=nobody'), []);
});

test('filters: senderAccountIdentifier and receiverAccountIdentifier', async () => {
  await expectFilter(`senderAccountIdentifier=${aliceAccounts.USD.id}`, (t) => t.source.accountId === aliceAccounts.USD.id);
  const toBob = await expectFilter(`receiverAccountIdentifier=${bobAccounts.EUR.id}`, (t) => t.destination.accountId === bobAccounts.EUR.id);
  // Three payments arrive (each seen as its OUTGOING and its INCOMING side) and one deposit.
  assert.equal(toBob.length, 3 * 2 + 1);
  await expectFilter(`senderAccountIdentifier=${aliceAccounts.USD.id}&receiverAccountIdentifier=${bobAccounts.EUR.id}`,
    (t) => t.source.accountId === aliceAccounts.USD.id && t.destination.accountId === bobAccounts.EUR.id);
});

test('filters: status, type, reference', async () => {
  for (const status of ['COMPLETED', 'PENDING', 'FAILED']) await expectFilter(`status=${status}`, (t) => t.status === status);
  assert.deepEqual(await filtered('status=EXPIRED'), []);
  for (const type of ['INCOMING', 'OUTGOING']) await expectFilter(`type=${type}`, (t) => t.type === type);
  await expectFilter(`type=OUTGOING&status=COMPLETED&customerId=${alice.id}`,
    (t) => t.type === 'OUTGOING' && t.status === 'COMPLETED' && t.customerId === alice.id);

  // An account's reference finds its deposits; a quote's reference finds both sides of its payment.
  const accountReference = aliceAccounts.USD.fundingPaymentInstructions[0].accountOrWalletInfo.reference;
  const deposits = await filtered(`reference=${accountReference}`);
  assert.equal(deposits.length, 1);
  assert.equal(deposits[0].destination.accountId, aliceAccounts.USD.id);
  assert.equal(deposits[0].reconciliationInstructions.reference, accountReference);
  const quoteReference = quotes.funded.paymentInstructions[0].accountOrWalletInfo.reference;
  const payment = await filtered(`reference=${quoteReference}`);
  assert.deepEqual(payment.map((t) => t.type).sort(), ['INCOMING', 'OUTGOING']);
  assert.ok(payment.every((t) => t.quoteId === quotes.funded.id));
  // The rows keep no copy of the quote's reference: read back from the quote, by id and in lists.
  const incoming = payment.find((t) => t.type === 'INCOMING');
  assert.equal(incoming.reconciliationInstructions.reference, quoteReference);
  const byId = await call(server, sandbox, 'GET', `/transactions/${incoming.id}`);
  assert.equal(byId.body.reconciliationInstructions.reference, quoteReference);
  const stored = queryRows(server, `SELECT reference FROM transactions WHERE quote_id = ${packedIdLiteral(server, quotes.funded.id)}`);
  assert.deepEqual(stored.map((r) => r.reference), ['', '']);
  assert.deepEqual(await filtered('reference=NO-SUCH-REFERENCE'), []);
});

test('filters: startDate and endDate are inclusive', async () => {
  const pivot = all.find((t) => t.quoteId === quotes.toSelf.id && t.type === 'OUTGOING').createdAt;
  const after = await filtered(`startDate=${pivot}`);
  assert.deepEqual(ids(after), ids(byIdDesc(all.filter((t) => t.createdAt >= pivot))));
  const before = await filtered(`endDate=${pivot}`);
  assert.deepEqual(ids(before), ids(byIdDesc(all.filter((t) => t.createdAt <= pivot))));
  const exact = await filtered(`startDate=${pivot}&endDate=${pivot}`);
  assert.ok(exact.length >= 1);
  assert.deepEqual(ids(exact), ids(byIdDesc(all.filter((t) => t.createdAt === pivot))));
  assert.ok(after.length < all.length && before.length < all.length);
  assert.deepEqual(await filtered('startDate=2100-01-01T00:00:00Z'), []);
  assert.equal((await filtered('endDate=2100-01-01T00:00:00Z')).length, all.length);
});

test('sortOrder asc and desc, and page walks in both orders without duplicates or gaps', async () => {
  const desc = byIdDesc(all);
  const asc = [...desc].reverse();
  const explicitDesc = await call(server, sandbox, 'GET', '/transactions?sortOrder=desc&limit=100');
  assert.deepEqual(ids(explicitDesc.body.data), ids(desc));
  const ascending = await call(server, sandbox, 'GET', '/transactions?sortOrder=asc&limit=100');
  assert.deepEqual(ids(ascending.body.data), ids(asc));
  for (const limit of [1, 2, 5]) {
    assert.deepEqual(ids(await filtered(`sortOrder=asc`, limit)), ids(asc), `asc, limit ${limit}`);
    assert.deepEqual(ids(await filtered(`sortOrder=desc`, limit)), ids(desc), `desc, limit ${limit}`);
  }
  // Filters and order combine.
  assert.deepEqual(ids(await filtered(`sortOrder=asc&customerId=${bob.id}`, 2)), ids(asc.filter((t) => t.customerId === bob.id)));
  // Created in order: ascending ids are ascending creation times.
  for (let i = 1; i < asc.length; i++) assert.ok(asc[i - 1].createdAt <= asc[i].createdAt);
});

test('malformed filters are 400 INVALID_INPUT', async () => {
  for (const query of ['status=DONE', 'type=SIDEWAYS', 'sortOrder=up', 'startDate=yesterday', 'endDate=2025-13-45T00:00:00Z', 'limit=0', 'limit=101', 'cursor=%21%21']) {
    assertError(await call(server, sandbox, 'GET', `/transactions?${query}`), 400, 'INVALID_INPUT');
  }
});

function assertCurrencyAmount(value, code, amount) {
  assert.equal(value.amount, amount);
  assert.equal(value.currency.code, code);
  for (const key of ['name', 'symbol']) assert.equal(typeof value.currency[key], 'string');
  assert.equal(typeof value.currency.decimals, 'number');
}

test('an OUTGOING transaction carries every field of the interface', async () => {
  const quote = quotes.toBob[1];
  const response = await call(server, sandbox, 'GET', `/transactions/${quote.transactionId}`);
  assert.equal(response.status, 200, response.text);
  const t = response.body;
  assert.deepEqual(all.find((item) => item.id === t.id), t, 'listed and fetched alike');
  assert.equal(t.id, quote.transactionId);
  assert.equal(t.type, 'OUTGOING');
  assert.equal(t.status, 'COMPLETED');
  assert.deepEqual(t.source, { sourceType: 'ACCOUNT', accountId: aliceAccounts.USD.id, currency: 'USD' });
  assert.deepEqual(t.destination, { destinationType: 'ACCOUNT', accountId: bobAccounts.EUR.id, currency: 'EUR' });
  assert.equal(t.customerId, alice.id);
  assert.equal(t.platformCustomerId, 'tx-alice');
  assertCurrencyAmount(t.sentAmount, 'USD', quote.totalSendingAmount);
  assertCurrencyAmount(t.receivedAmount, 'EUR', quote.totalReceivingAmount);
  assert.equal(t.exchangeRate, quote.exchangeRate);
  assert.equal(t.fees, quote.feesIncluded);
  assert.equal(t.quoteId, quote.id);
  assert.deepEqual(t.rateDetails, quote.rateDetails);
  assert.deepEqual(Object.keys(t.rateDetails).sort(), ['counterpartyFixedFee', 'counterpartyMultiplier', 'serviceApiFixedFee',
    'serviceApiMultiplier', 'serviceApiVariableFeeAmount', 'serviceApiVariableFeeRate']);
  // Read back from the quote's columns: the payment's rows keep no copy of them.
  const stored = queryRows(server, `SELECT type, rate_details FROM transactions WHERE quote_id = ${packedIdLiteral(server, quote.id)} ORDER BY type`);
  assert.deepEqual(stored, [{ type: 'INCOMING', rate_details: '' }, { type: 'OUTGOING', rate_details: '' }]);
  assert.match(t.settledAt, ISO);
  assert.match(t.createdAt, ISO);
  assert.match(t.updatedAt, ISO);
  assert.ok(t.createdAt <= t.settledAt && t.settledAt <= t.updatedAt);
  assert.equal(t.description, 'invoice 20000');
  assert.equal(t.failureReason, undefined);
  assert.equal(t.refund, undefined);
  assert.equal(t.reconciliationInstructions, undefined);

  const pending = await call(server, sandbox, 'GET', `/transactions/${quotes.pending.transactionId}`);
  assert.equal(pending.body.status, 'PENDING');
  assertCurrencyAmount(pending.body.sentAmount, 'USD', quotes.pending.totalSendingAmount);
  assertCurrencyAmount(pending.body.receivedAmount, 'MXN', quotes.pending.totalReceivingAmount);
  assert.equal(pending.body.quoteId, quotes.pending.id);

  const failed = await call(server, sandbox, 'GET', `/transactions/${quotes.mismatched.transactionId}`);
  assert.equal(failed.body.status, 'FAILED');
  assert.equal(failed.body.failureReason, 'FUNDING_AMOUNT_MISMATCH');
  assert.deepEqual(failed.body.source, { sourceType: 'REALTIME_FUNDING', currency: 'USD' });
  assert.equal(failed.body.customerId, bob.id);
  assert.equal(failed.body.refund.amount, 1);
  assert.match(failed.body.refund.initiatedAt, ISO);
});

test('an INCOMING transaction carries its received amount and reconciliation reference', async () => {
  const quote = quotes.toBob[2];
  const incoming = all.find((t) => t.type === 'INCOMING' && t.quoteId === quote.id);
  assert.ok(incoming);
  const response = await call(server, sandbox, 'GET', `/transactions/${incoming.id}`);
  assert.equal(response.status, 200, response.text);
  const t = response.body;
  assert.deepEqual(t, incoming);
  assert.equal(t.status, 'COMPLETED');
  assert.equal(t.customerId, bob.id);
  assert.equal(t.platformCustomerId, 'tx-bob');
  assert.equal(t.destination.accountId, bobAccounts.EUR.id);
  assert.equal(t.source.accountId, aliceAccounts.USD.id);
  assertCurrencyAmount(t.receivedAmount, 'EUR', quote.totalReceivingAmount);
  assert.equal(typeof t.reconciliationInstructions.reference, 'string');
  assert.ok(t.reconciliationInstructions.reference.length > 0);
  assert.match(t.settledAt, ISO);
  assert.equal(t.description, 'invoice 30000');
  // Only the service's own four rate details on the incoming side; no sending-side fields.
  assert.deepEqual(t.rateDetails, {
    serviceApiMultiplier: quote.rateDetails.serviceApiMultiplier,
    serviceApiFixedFee: quote.rateDetails.serviceApiFixedFee,
    serviceApiVariableFeeRate: quote.rateDetails.serviceApiVariableFeeRate,
    serviceApiVariableFeeAmount: quote.rateDetails.serviceApiVariableFeeAmount,
  });
  for (const key of ['sentAmount', 'fees', 'exchangeRate', 'failureReason']) assert.equal(t[key], undefined, key);

  // A deposit is INCOMING too, reconciled by the account's reference.
  const deposit = all.find((t2) => t2.type === 'INCOMING' && t2.destination.accountId === bobAccounts.EUR.id && !t2.quoteId);
  assertCurrencyAmount(deposit.receivedAmount, 'EUR', 4242);
  assert.equal(deposit.reconciliationInstructions.reference, bobAccounts.EUR.fundingPaymentInstructions[0].accountOrWalletInfo.reference);
});

test('GET /transactions/{id} is not found for another tenant; lists are per tenant', async () => {
  const id = quotes.toBob[0].transactionId;
  assertError(await call(server, other, 'GET', `/transactions/${id}`), 404, 'TRANSACTION_NOT_FOUND');
  assertError(await call(server, server.platforms[0].production, 'GET', `/transactions/${id}`), 404, 'TRANSACTION_NOT_FOUND');
  assertError(await call(server, sandbox, 'GET', '/transactions/Transaction:00000000-0000-7000-8000-000000000000'), 404, 'TRANSACTION_NOT_FOUND');
  // Ids are stored as 16 bytes: what is no transaction's id (malformed, a bare word, another
  // type's, its uuid in upper case) is not found, as an unknown one, on both backends, never a 500.
  const upper = `Transaction:${id.slice('Transaction:'.length).toUpperCase()}`;
  assert.notEqual(upper, id);
  for (const notOne of ['Transaction:nope', 'nope', quotes.toBob[0].id, upper, `${id}0`, `Quote:${id.slice('Transaction:'.length)}`]) {
    assertError(await call(server, sandbox, 'GET', `/transactions/${encodeURIComponent(notOne)}`), 404, 'TRANSACTION_NOT_FOUND');
    for (const verb of ['approve', 'reject']) {
      const body = verb === 'reject' ? { reason: 'no' } : {};
      assertError(await call(server, sandbox, 'POST', `/transactions/${encodeURIComponent(notOne)}/${verb}`, body), 404, 'TRANSACTION_NOT_FOUND');
    }
  }
  // Likewise the customer filter: nothing, not an error.
  for (const notAlice of ['Customer:nope', 'nope', aliceAccounts.USD.id, alice.id.toUpperCase().replace(/^CUSTOMER/, 'Customer'), id]) {
    assert.deepEqual(await filtered(`customerId=${encodeURIComponent(notAlice)}`), [], notAlice);
  }
  const theirs = await call(server, other, 'GET', `/transactions?customerId=${alice.id}`);
  assert.equal(theirs.status, 200);
  assert.deepEqual(theirs.body.data, []);
  const theirAll = await call(server, other, 'GET', '/transactions');
  assert.ok(!theirAll.body.data.some((t) => all.some((mine) => mine.id === t.id)));
});

// The decisions' bodies are type-checked before the transaction is looked at: on a transaction
// that is not awaiting approval, a wrong type is 400 naming it where a valid body is 409.
test('approve and reject: a defined field of the wrong type is 400 naming its path, nothing changes', async () => {
  const incoming = all.find((t) => t.type === 'INCOMING');
  assert.ok(incoming, 'the fixture has an incoming transaction');
  const decide = (verb) => (body) => call(server, sandbox, 'POST', `/transactions/${incoming.id}/${verb}`, body);
  const info = {
    fullName: 'Bob', birthDate: '1990-01-01', nationality: 'US', phoneNumber: '+15550100', email: 'b@example.test',
    businessName: 'B', taxId: '1', countryOfResidence: 'US', address: { line1: '1 Main', city: 'X', country: 'US' },
    FULL_NAME: 'Bob', BIRTH_DATE: '1990-01-01', NATIONALITY: 'US', PHONE_NUMBER: '+15550100', EMAIL: 'b@example.test',
    BUSINESS_NAME: 'B', TAX_ID: '1', COUNTRY_OF_RESIDENCE: 'US', ADDRESS: { line1: '1 Main', country: 'US' },
  };
  assertError(await decide('approve')({ receiverCustomerInfo: info, unknownField: 1 }), 409, 'TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL');
  assertError(await decide('reject')({ reason: 'no', unknownField: 1 }), 409, 'TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL');
  await expectWrongTypes(decide('approve'), { receiverCustomerInfo: info }, [
    ['receiverCustomerInfo', 'Bob'], ['receiverCustomerInfo', ['Bob']], ['receiverCustomerInfo.fullName', 1],
    ['receiverCustomerInfo.birthDate', 19900101], ['receiverCustomerInfo.nationality', {}],
    ['receiverCustomerInfo.phoneNumber', 15550100], ['receiverCustomerInfo.email', true],
    ['receiverCustomerInfo.businessName', []], ['receiverCustomerInfo.taxId', 1],
    ['receiverCustomerInfo.countryOfResidence', 1], ['receiverCustomerInfo.address', '1 Main'],
    ['receiverCustomerInfo.address.line1', 1], ['receiverCustomerInfo.address.country', false],
    ['receiverCustomerInfo.FULL_NAME', 1], ['receiverCustomerInfo.ADDRESS', 'x'],
    ['receiverCustomerInfo.ADDRESS.line1', 2], ['receiverCustomerInfo.COUNTRY_OF_RESIDENCE', 3],
  ]);
  await expectWrongTypes(decide('reject'), { reason: 'no' }, [['reason', 7], ['reason', { text: 'no' }], ['reason', false]]);
  const after = await call(server, sandbox, 'GET', `/transactions/${incoming.id}`);
  assert.equal(after.body.status, incoming.status);
});

test('query parameters: a repeated, empty or out-of-range value is 400 naming the parameter', async () => {
  for (const [query, field] of [['limit=', 'limit'], ['limit=abc', 'limit'], ['limit=-1', 'limit'], ['limit=1.5', 'limit'],
    ['status=COMPLETED&status=FAILED', 'status'], ['status=completed', 'status'], ['type=incoming', 'type'],
    ['sortOrder=ASC', 'sortOrder'], ['startDate=1700000000', 'startDate'], ['customerId=a&customerId=b', 'customerId']]) {
    const response = await call(server, sandbox, 'GET', `/transactions?${query}`);
    assertError(response, 400, 'INVALID_INPUT');
    assert.equal(response.body.details.field, field, `${query}: ${response.text}`);
    assert.ok(response.body.message.startsWith(`${field}: `), response.text);
  }
  // Unknown parameters are ignored, like unknown body fields.
  const plain = await call(server, sandbox, 'GET', '/transactions?limit=2');
  const ignored = await call(server, sandbox, 'GET', '/transactions?limit=2&unknownFilter=1');
  assert.equal(ignored.status, 200, ignored.text);
  assert.deepEqual(ignored.body, plain.body);
});
