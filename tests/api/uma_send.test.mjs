// Sending UMA payments: GET /receiver/uma/{address} -> POST /quotes (destination UMA_ADDRESS) ->
// execute -> the receiver's invoice is paid through the Lightning rail (spark) -> COMPLETED, and
// the receiver's provider gets its post-transaction callback. The receiving provider is played by
// the official SDK (tests/interop/lib/uma_provider.mjs), which checks every signature we make.
// The sending platform works in its sandbox environment (funded by the sandbox route), reached as
// 127.0.0.1:<port>; the spark rail is the only rail loaded, so it pays sandbox invoices too.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCorridor, startOnOwnPort, stopCorridor, call } from './lib/harness.mjs';
import { startReceiver, stopReceiver } from './lib/receiver.mjs';
import { accountsOf, assertError, eventually, expectedPrice, fund, idempotencyKey, sleep } from './lib/money.mjs';
import { decodeInvoice, startUmaProvider, stopUmaProvider } from '../interop/lib/uma_provider.mjs';

const sparkSettings = {
  network: 'regtest',
  node_private_key_hex: 'e126f68f7eafcc8b74f54d269fe206be715000f94dac067d1c04a8ca3b2db734',
};
// Harness-only post-transaction timings (defaults: 500 ms, 5 s, 8 attempts): short and few, so a
// callback the receiver keeps refusing is given up within a test instead of after hours.
const umaConfig = {
  proxy_host: 'uma.corridor.localhost',
  lookup_ttl_seconds: 600,
  post_transaction_poll_interval_ms: 20,
  post_transaction_retry_initial_interval_ms: 50,
  post_transaction_attempts_max: 3,
};

let corridor, sandbox, otherSandbox, provider, webhooks, domain;

before(async () => {
  provider = await startUmaProvider();
  webhooks = await startReceiver();
  corridor = await startCorridor({
    platforms: 2,
    plugins: { rails: ['spark'], settings: { spark: sparkSettings } },
    config: {
      outbound: { allow_private_addresses: true, timeout_ms: 1500 },
      uma: umaConfig,
      webhooks: { poll_interval_ms: 20, retry_initial_interval_ms: 50, connect_timeout_ms: 1000, response_timeout_ms: 2000 },
      rails: { call_timeout_ms: 10000, settlement_timeout_ms: 259200000, drive_interval_ms: 20 },
    },
  });
  sandbox = corridor.platforms[0].sandbox;
  otherSandbox = corridor.platforms[1].sandbox;
  const port = new URL(corridor.baseUrl).port;
  domain = `127.0.0.1:${port}`;
  let patched = await call(corridor, sandbox, 'PATCH', '/config', { umaDomain: domain, webhookEndpoint: webhooks.url });
  assert.equal(patched.status, 200, patched.text);
  patched = await call(corridor, otherSandbox, 'PATCH', '/config', { umaDomain: `localhost:${port}` });
  assert.equal(patched.status, 200, patched.text);
});

after(async () => {
  if (corridor) await stopCorridor(corridor);
  if (provider) await stopUmaProvider(provider);
  if (webhooks) await stopReceiver(webhooks);
});

let serial = 0;

// A customer of the sending platform with `usd` cents in its USD account.
async function sender(usd = 100_000, credentials = sandbox, senderDomain = domain) {
  serial += 1;
  const created = await call(corridor, credentials, 'POST', '/customers', {
    customerType: 'INDIVIDUAL', umaAddress: `$alice${serial}@${senderDomain}`, fullName: `Alice ${serial}`,
  });
  assert.equal(created.status, 201, created.text);
  const accounts = await accountsOf(corridor, credentials, created.body.id);
  if (usd > 0) await fund(corridor, credentials, accounts.USD.id, usd);
  return { customer: created.body, usd: accounts.USD };
}

async function lookup(customer, user = 'bob', credentials = sandbox) {
  const address = encodeURIComponent(provider.address(user));
  const found = await call(corridor, credentials, 'GET', `/receiver/uma/${address}?customerId=${encodeURIComponent(customer.id)}`);
  assert.equal(found.status, 200, found.text);
  return found.body;
}

function umaQuote(source, found, amount, extra = {}) {
  return {
    source: { sourceType: 'ACCOUNT', accountId: source.id },
    destination: { destinationType: 'UMA_ADDRESS', umaAddress: found.receiverUmaAddress, currency: 'EUR' },
    lookupId: found.lookupId,
    lockedCurrencySide: 'SENDING',
    lockedCurrencyAmount: amount,
    senderCustomerInfo: { FULL_NAME: 'Alice Sender' },
    ...extra,
  };
}

const postQuote = (body, headers, credentials = sandbox) => call(corridor, credentials, 'POST', '/quotes', body, headers);
const get = async (path, credentials = sandbox) => {
  const response = await call(corridor, credentials, 'GET', path);
  assert.equal(response.status, 200, response.text);
  return response.body;
};
const balance = async (account) => (await get(`/customers/internal-accounts?customerId=${encodeURIComponent(account.customerId)}&currency=USD`)).data[0].balance.amount;
const settled = (transactionId) => eventually(async () => {
  const transaction = await get(`/transactions/${transactionId}`);
  return transaction.status === 'PENDING' ? undefined : transaction;
});
const quoteCount = async (customer) => (await get(`/quotes?customerId=${encodeURIComponent(customer.id)}`)).totalCount;
const transactionCount = async (customer) => (await get(`/transactions?customerId=${encodeURIComponent(customer.id)}`)).totalCount;

// The webhook bodies of one transaction, in the order they arrived.
const eventsOf = (transactionId) => webhooks.requests
  .filter((entry) => entry.body?.transaction?.id === transactionId)
  .map((entry) => entry.body);

test('a lookup, a sender-locked quote and its execution pay the receiver (UMA 1.0)', async () => {
  provider.reset();
  const { customer, usd } = await sender(100_000);
  const found = await lookup(customer);
  assert.ok(found.requiredPayerDataFields.some((field) => field.name === 'FULL_NAME' && field.mandatory));
  const created = await postQuote(umaQuote(usd, found, 10_000, { description: 'dinner' }));
  assert.equal(created.status, 201, created.text);
  const quote = created.body;

  // One pay request, signed by us and verified by the SDK, asking for what 10000 cents buy.
  assert.equal(provider.payRequests.length, 1);
  const [payreq] = provider.payRequests;
  assert.equal(payreq.verified, true);
  const budgetSats = expectedPrice('USD', 'BTC', 'SENDING', 10_000).totalReceivingAmount;
  assert.equal(payreq.parsed.amount, budgetSats * 1000);
  assert.equal(payreq.parsed.sendingAmountCurrencyCode, undefined);  // millisatoshis
  assert.equal(payreq.parsed.receivingCurrencyCode, 'EUR');
  assert.equal(payreq.parsed.payerData.identifier, customer.umaAddress);
  assert.equal(payreq.parsed.payerData.name, 'Alice Sender');
  assert.equal(payreq.parsed.payerData.compliance.kycStatus, 'VERIFIED');
  assert.deepEqual(JSON.parse(payreq.travelRule), { name: 'Alice Sender', identifier: customer.umaAddress });
  const invoice = decodeInvoice(payreq.invoice);
  assert.equal(invoice.millisatoshis, budgetSats * 1000);

  // The quote: exactly the locked amount, delivering what the receiver converted.
  const converted = payreq.response.converted;
  const btcLeg = expectedPrice('USD', 'BTC', 'RECEIVING', budgetSats);
  assert.equal(quote.status, 'PENDING');
  assert.deepEqual(quote.destination, { destinationType: 'UMA_ADDRESS', umaAddress: provider.address('bob'), currency: 'EUR' });
  assert.equal(quote.sendingCurrency.code, 'USD');
  assert.equal(quote.receivingCurrency.code, 'EUR');
  assert.equal(quote.totalSendingAmount, 10_000);
  assert.equal(quote.totalReceivingAmount, converted.amount);
  assert.equal(converted.amount, Math.round((budgetSats * 1000 - provider.feeMsats) / provider.currencies.EUR.multiplier));
  assert.equal(quote.feesIncluded, 10_000 - btcLeg.netSendingAmount);
  assert.ok(Math.abs(quote.exchangeRate - btcLeg.netSendingAmount / converted.amount) < 1e-9, JSON.stringify(quote));
  assert.equal(quote.rateDetails.serviceApiFixedFee, btcLeg.rateDetails.serviceApiFixedFee);
  assert.ok(Date.parse(quote.expiresAt) <= invoice.expiresAt * 1000);
  assert.equal(quote.description, 'dinner');

  let transaction = await get(`/transactions/${quote.transactionId}`);
  assert.equal(transaction.type, 'OUTGOING');
  assert.equal(transaction.status, 'PENDING');
  assert.deepEqual(transaction.destination, { destinationType: 'UMA_ADDRESS', currency: 'EUR', umaAddress: provider.address('bob') });
  assert.deepEqual(transaction.sentAmount, { amount: 10_000, currency: quote.sendingCurrency });
  assert.deepEqual(transaction.receivedAmount, { amount: converted.amount, currency: quote.receivingCurrency });
  assert.equal(transaction.fees, quote.feesIncluded);
  assert.equal(transaction.quoteId, quote.id);
  assert.equal(transaction.customerId, customer.id);

  const executed = await call(corridor, sandbox, 'POST', `/quotes/${quote.id}/execute`, undefined, { 'idempotency-key': idempotencyKey() });
  assert.equal(executed.status, 200, executed.text);
  assert.ok(['PROCESSING', 'COMPLETED'].includes(executed.body.status), executed.text);
  assert.equal(await balance(usd), 90_000);

  transaction = await settled(quote.transactionId);
  assert.equal(transaction.status, 'COMPLETED', JSON.stringify(transaction));
  assert.ok(transaction.settledAt);
  assert.equal(transaction.failureReason, undefined);
  assert.equal((await get(`/quotes/${quote.id}`)).status, 'COMPLETED');
  assert.equal(await balance(usd), 90_000);

  // The receiver hears of it, signed with the key we publish.
  await eventually(() => provider.callbacks.length === 1);
  const [callback] = provider.callbacks;
  assert.equal(callback.verified, true);
  assert.equal(callback.url, `/utxo/${encodeURIComponent('$bob')}`);
  assert.equal(callback.callback.vaspDomain, domain);

  // A webhook per status change, and the balance change of the source.
  await eventually(() => eventsOf(quote.transactionId).length >= 2);
  await sleep(200);
  assert.deepEqual(eventsOf(quote.transactionId).map((event) => [event.type, event.transaction.status]),
    [['OUTGOING_PAYMENT', 'PENDING'], ['OUTGOING_PAYMENT', 'COMPLETED']]);
  const balanceMoves = () => webhooks.requests
    .filter((entry) => entry.body?.type === 'ACCOUNT_STATUS' && entry.body.accountId === usd.id)
    .map((entry) => [entry.body.oldBalance.amount, entry.body.newBalance.amount]);
  await eventually(() => balanceMoves().length >= 2);
  await sleep(200);
  assert.deepEqual(balanceMoves(), [[0, 100_000], [100_000, 90_000]]);

  // Listed by the receiver's address.
  const listed = await get(`/quotes?receivingUmaAddress=${encodeURIComponent(provider.address('bob'))}&customerId=${encodeURIComponent(customer.id)}`);
  assert.deepEqual(listed.data.map((item) => item.id), [quote.id]);
  const byReceiver = await get(`/transactions?receiverAccountIdentifier=${encodeURIComponent(provider.address('bob'))}&customerId=${encodeURIComponent(customer.id)}`);
  assert.deepEqual(byReceiver.data.map((item) => item.id), [quote.transactionId]);
});

// Sets the requiredCounterpartyFields of the sending platform's USD; returns what to restore.
async function requireCounterpartyFields(fields) {
  const strip = ({ currencyCode, minAmount, maxAmount, enabledTransactionTypes, requiredCounterpartyFields }) =>
    ({ currencyCode, minAmount, maxAmount, enabledTransactionTypes, requiredCounterpartyFields });
  const original = (await get('/config')).supportedCurrencies.map(strip);
  const supportedCurrencies = original.map((item) => (item.currencyCode === 'USD' ? { ...item, requiredCounterpartyFields: fields } : item));
  const patched = await call(corridor, sandbox, 'PATCH', '/config', { supportedCurrencies });
  assert.equal(patched.status, 200, patched.text);
  return async () => {
    const restored = await call(corridor, sandbox, 'PATCH', '/config', { supportedCurrencies: original });
    assert.equal(restored.status, 200, restored.text);
  };
}

test('the pay request asks for the counterparty fields the platform requires; the payee data returned is the transaction\'s counterpartyInformation', async (t) => {
  provider.reset();
  t.after(await requireCounterpartyFields([
    { name: 'FULL_NAME', mandatory: true }, { name: 'EMAIL', mandatory: false }, { name: 'BIRTH_DATE', mandatory: false },
  ]));
  const { customer, usd } = await sender(20_000);
  const found = await lookup(customer);
  const created = await postQuote(umaQuote(usd, found, 3_000));
  assert.equal(created.status, 201, created.text);
  const quote = created.body;

  // Asked in the SDK's keys, with the platform's mandatory flags.
  const [payreq] = provider.payRequests;
  assert.deepEqual(payreq.body.payeeData, { name: { mandatory: true }, email: { mandatory: false }, birthDate: { mandatory: false } });
  // The provider answers what it has of them (no birth date) and its user's identifier.
  const returned = payreq.response.payeeData;
  assert.equal(returned.name, provider.payeeValues.name);
  assert.equal(returned.email, provider.payeeValues.email);
  assert.equal(returned.birthDate, undefined);
  assert.equal(returned.identifier, provider.address('bob'));
  const expected = { FULL_NAME: returned.name, EMAIL: returned.email };

  let transaction = await get(`/transactions/${quote.transactionId}`);
  assert.deepEqual(transaction.counterpartyInformation, expected);
  // Listed: the outgoing payment shows it; the deposit that funded the sender is no UMA payment.
  const listed = await get(`/transactions?customerId=${encodeURIComponent(customer.id)}`);
  assert.deepEqual(listed.data.map((item) => [item.type, item.counterpartyInformation]).sort(),
    [['INCOMING', undefined], ['OUTGOING', expected]]);

  const executed = await call(corridor, sandbox, 'POST', `/quotes/${quote.id}/execute`, undefined, { 'idempotency-key': idempotencyKey() });
  assert.equal(executed.status, 200, executed.text);
  transaction = await settled(quote.transactionId);
  assert.equal(transaction.status, 'COMPLETED', JSON.stringify(transaction));
  assert.deepEqual(transaction.counterpartyInformation, expected);

  // Every OUTGOING_PAYMENT event of it carries the same.
  await eventually(() => eventsOf(quote.transactionId).length >= 2);
  await sleep(200);
  const events = eventsOf(quote.transactionId);
  assert.deepEqual(events.map((event) => event.transaction.status).sort(), ['COMPLETED', 'PENDING']);  // any arrival order
  for (const event of events) assert.deepEqual(event.transaction.counterpartyInformation, expected);
});

test('without required counterparty fields no payee data is asked, and only what names a field is shown', async () => {
  provider.reset();
  const { customer, usd } = await sender(10_000);
  const found = await lookup(customer);
  const created = await postQuote(umaQuote(usd, found, 2_000));
  assert.equal(created.status, 201, created.text);
  const [payreq] = provider.payRequests;
  assert.equal(payreq.body.payeeData, undefined);
  // The identifier the provider still returns is no UserInfoFieldName.
  assert.deepEqual(Object.keys(payreq.response.payeeData).sort(), ['compliance', 'identifier']);
  assert.deepEqual((await get(`/transactions/${created.body.transactionId}`)).counterpartyInformation, {});
});

test('a receiver-locked quote asks for the receiving amount and immediatelyExecute pays at once', async () => {
  provider.reset();
  const { customer, usd } = await sender(50_000);
  const found = await lookup(customer);
  const created = await postQuote(umaQuote(usd, found, 2_500, { lockedCurrencySide: 'RECEIVING', immediatelyExecute: true }));
  assert.equal(created.status, 201, created.text);
  const quote = created.body;
  const [payreq] = provider.payRequests;
  assert.equal(payreq.parsed.amount, 2_500);
  assert.equal(payreq.parsed.sendingAmountCurrencyCode, 'EUR');
  const invoice = decodeInvoice(payreq.invoice);
  assert.equal(invoice.millisatoshis, Math.round(2_500 * provider.currencies.EUR.multiplier + provider.feeMsats));
  const expected = expectedPrice('USD', 'BTC', 'RECEIVING', Math.ceil(invoice.millisatoshis / 1000));
  assert.equal(quote.totalReceivingAmount, 2_500);
  assert.equal(quote.totalSendingAmount, expected.totalSendingAmount);
  assert.equal(quote.feesIncluded, expected.feesIncluded);
  assert.ok(['PROCESSING', 'COMPLETED'].includes(quote.status), created.text);
  const transaction = await settled(quote.transactionId);
  assert.equal(transaction.status, 'COMPLETED');
  assert.equal(await balance(usd), 50_000 - expected.totalSendingAmount);
  await eventually(() => provider.callbacks.length === 1);
});

test('a receiver that speaks only UMA 0.3 is paid with v0 messages', async () => {
  provider.reset();
  provider.lookupMode = 'v0only';
  const { customer, usd } = await sender(20_000);
  const found = await lookup(customer);
  assert.deepEqual(provider.lookups.map((item) => item.query.umaVersion), ['1.0', '0.3']);
  const created = await postQuote(umaQuote(usd, found, 5_000));
  assert.equal(created.status, 201, created.text);
  const [payreq] = provider.payRequests;
  assert.equal(payreq.verified, true);
  assert.equal(payreq.parsed.umaMajorVersion, 0);
  assert.ok('currency' in payreq.body && !('convert' in payreq.body), JSON.stringify(payreq.body));
  // v0 names the receiving amount: what 5000 cents' bitcoin converts to, rounded down.
  const budgetSats = expectedPrice('USD', 'BTC', 'SENDING', 5_000).totalReceivingAmount;
  const asked = Math.floor(budgetSats * 1000 / provider.currencies.EUR.multiplier);
  assert.equal(payreq.parsed.amount, asked);
  assert.ok(payreq.response.paymentInfo, 'a v0 pay response');
  const invoice = decodeInvoice(payreq.invoice);
  const payout = Math.ceil(invoice.millisatoshis / 1000);
  const priced = expectedPrice('USD', 'BTC', 'RECEIVING', payout).totalSendingAmount;
  const quote = created.body;
  assert.equal(quote.totalReceivingAmount, asked);
  // The receiver's own fee can make it dearer than the lock; never cheaper.
  assert.equal(quote.totalSendingAmount, Math.max(priced, 5_000));
  const executed = await call(corridor, sandbox, 'POST', `/quotes/${quote.id}/execute`);
  assert.equal(executed.status, 200, executed.text);
  assert.equal((await settled(quote.transactionId)).status, 'COMPLETED');
  assert.equal(await balance(usd), 20_000 - quote.totalSendingAmount);
  await eventually(() => provider.callbacks.length === 1);
  assert.equal(provider.callbacks[0].verified, true);

  // A v0 receiver that reads the amount as millisatoshis (as @uma-sdk/core 1.5.0 does) would
  // deliver next to nothing: its invoice is refused and nothing is written.
  provider.reset();
  provider.lookupMode = 'v0only';
  provider.payMode = 'v0msats';
  const again = await lookup(customer);
  const refused = await postQuote(umaQuote(usd, again, 5_000));
  assertError(refused, 400, 'INVALID_PAYREQ_RESPONSE');
  assert.equal(provider.payRequests.length, 1);
  assert.equal(await quoteCount(customer), 1);
});

test('a quote without a usable lookup is refused before anything is asked', async () => {
  provider.reset();
  const { customer, usd } = await sender(10_000);
  const found = await lookup(customer);
  const body = umaQuote(usd, found, 1_000);
  const { lookupId, ...noLookup } = body;
  let reply = await postQuote(noLookup);
  assertError(reply, 400, 'INVALID_INPUT');
  assert.equal(reply.body.details.field, 'lookupId');
  reply = await postQuote({ ...body, lookupId: 'Lookup:00000000-0000-7000-8000-000000000000' });
  assertError(reply, 400, 'INVALID_INPUT');
  assert.equal(reply.body.details.field, 'lookupId');
  // Another platform's lookup reads as unknown.
  const stranger = await sender(0, otherSandbox, `localhost:${new URL(corridor.baseUrl).port}`);
  const theirs = await lookup(stranger.customer, 'bob', otherSandbox);
  reply = await postQuote({ ...body, lookupId: theirs.lookupId });
  assertError(reply, 400, 'INVALID_INPUT');
  assert.equal(reply.body.details.field, 'lookupId');
  // The lookup is about another receiver.
  reply = await postQuote({ ...body, destination: { ...body.destination, umaAddress: provider.address('carol') } });
  assertError(reply, 400, 'INVALID_INPUT');
  assert.equal(reply.body.details.field, 'destination.umaAddress');
  reply = await postQuote({ ...body, destination: { destinationType: 'UMA_ADDRESS' } });
  assertError(reply, 400, 'INVALID_INPUT');
  // The source must be the looked-up sender's.
  const someoneElse = await sender(10_000);
  reply = await postQuote({ ...body, source: { sourceType: 'ACCOUNT', accountId: someoneElse.usd.id } });
  assertError(reply, 400, 'INVALID_INPUT');
  assert.equal(reply.body.details.field, 'source.accountId');
  reply = await postQuote({ ...body, source: { sourceType: 'REALTIME_FUNDING', currency: 'USD' } });
  assertError(reply, 400, 'INVALID_INPUT');
  // A currency the receiver does not take.
  reply = await postQuote({ ...body, destination: { ...body.destination, currency: 'GBP' } });
  assertError(reply, 400, 'INVALID_CURRENCY');
  assert.equal(reply.body.details.field, 'destination.currency');
  // The receiver asked for the sender's name.
  reply = await postQuote({ ...body, senderCustomerInfo: { EMAIL: 'alice@example.com' } });
  assertError(reply, 400, 'MISSING_MANDATORY_USER_INFO');
  assert.deepEqual(reply.body.details.missingFields, ['FULL_NAME']);
  const { senderCustomerInfo, ...noInfo } = body;
  reply = await postQuote(noInfo);
  assertError(reply, 400, 'MISSING_MANDATORY_USER_INFO');
  reply = await postQuote({ ...body, senderCustomerInfo: { FULL_NAME: '' } });
  assertError(reply, 400, 'MISSING_MANDATORY_USER_INFO');
  reply = await postQuote({ ...body, senderCustomerInfo: { fullName: 'Alice' } });
  assertError(reply, 400, 'INVALID_INPUT');

  assert.equal(provider.payRequests.length, 0);
  assert.equal(await quoteCount(customer), 0);
  assert.equal(await transactionCount(customer), 1);  // the funding only
});

test('a lookup serves quotes for uma.lookup_ttl_seconds only', async (t) => {
  const short = await startCorridor({
    platforms: 1,
    plugins: { rails: ['spark'], settings: { spark: sparkSettings } },
    config: { outbound: { allow_private_addresses: true, timeout_ms: 1500 }, uma: { ...umaConfig, lookup_ttl_seconds: 10 } },
  });
  t.after(() => stopCorridor(short));
  const credentials = short.platforms[0].sandbox;
  const shortDomain = new URL(short.baseUrl).host;
  const patched = await call(short, credentials, 'PATCH', '/config', { umaDomain: shortDomain });
  assert.equal(patched.status, 200, patched.text);
  const created = await call(short, credentials, 'POST', '/customers', { customerType: 'INDIVIDUAL', umaAddress: `$dave@${shortDomain}`, fullName: 'Dave' });
  assert.equal(created.status, 201, created.text);
  const usd = (await accountsOf(short, credentials, created.body.id)).USD;
  await fund(short, credentials, usd.id, 10_000);
  const found = await call(short, credentials, 'GET', `/receiver/uma/${encodeURIComponent(provider.address('bob'))}?customerId=${encodeURIComponent(created.body.id)}`);
  assert.equal(found.status, 200, found.text);
  provider.reset();
  await sleep(10_500);
  const reply = await call(short, credentials, 'POST', '/quotes', umaQuote(usd, found.body, 1_000));
  assertError(reply, 400, 'INVALID_INPUT');
  assert.equal(reply.body.details.field, 'lookupId');
  assert.match(reply.body.message, /expired/);
  assert.equal(provider.payRequests.length, 0);
});

test('a receiver that misbehaves fails the quote with the interface codes and nothing is written', async () => {
  const { customer, usd } = await sender(10_000);
  const cases = [
    ['garbage', 400, 'PARSE_PAYREQ_RESPONSE_ERROR'],
    ['badsig', 424, 'PAYREQ_REQUEST_FAILED', 'INVALID_SIGNATURE'],
    ['wrongamount', 400, 'INVALID_PAYREQ_RESPONSE'],
    ['reject', 424, 'PAYREQ_REQUEST_FAILED', 'PAYREQ_REQUEST_FAILED'],
    ['never', 424, 'PAYREQ_REQUEST_FAILED', 'PAYREQ_REQUEST_FAILED'],
  ];
  for (const [mode, status, code, umaCode] of cases) {
    provider.reset();
    const found = await lookup(customer);
    provider.payMode = mode;
    const started = Date.now();
    const reply = await postQuote(umaQuote(usd, found, 1_000), { 'idempotency-key': idempotencyKey() });
    assertError(reply, status, code);
    if (umaCode) assert.equal(reply.body.details.umaCode, umaCode, mode);
    if (mode === 'reject') assert.equal(reply.body.details.counterpartyCode, 'SENDER_NOT_ACCEPTED');
    if (mode === 'never') assert.ok(Date.now() - started < 10_000, 'bounded by outbound.timeout_ms');
    assert.equal(provider.payRequests.length, 1, mode);
  }
  assert.equal(await quoteCount(customer), 0);
  assert.equal(await transactionCount(customer), 1);
  assert.equal(await balance(usd), 10_000);
});

test('an unfunded sender: execute is refused and nothing moves', async () => {
  provider.reset();
  const { customer, usd } = await sender(1_000);
  const found = await lookup(customer);
  // immediatelyExecute: the quote is not kept either.
  let reply = await postQuote(umaQuote(usd, found, 5_000, { immediatelyExecute: true }));
  assertError(reply, 400, 'INSUFFICIENT_BALANCE');
  assert.equal(await quoteCount(customer), 0);
  const created = await postQuote(umaQuote(usd, found, 5_000));
  assert.equal(created.status, 201, created.text);
  reply = await call(corridor, sandbox, 'POST', `/quotes/${created.body.id}/execute`);
  assertError(reply, 400, 'INSUFFICIENT_BALANCE');
  assert.equal((await get(`/quotes/${created.body.id}`)).status, 'PENDING');
  assert.equal((await get(`/transactions/${created.body.transactionId}`)).status, 'PENDING');
  assert.equal(await balance(usd), 1_000);
});

test('a keyed POST /quotes asks the receiver once; its replay repeats the first answer', async () => {
  provider.reset();
  const { customer, usd } = await sender(10_000);
  const found = await lookup(customer);
  const key = idempotencyKey();
  const body = umaQuote(usd, found, 3_000);
  const first = await postQuote(body, { 'idempotency-key': key });
  assert.equal(first.status, 201, first.text);
  const second = await postQuote(body, { 'idempotency-key': key });
  assert.equal(second.status, 201, second.text);
  assert.equal(second.headers.get('idempotent-replayed'), 'true');
  assert.equal(second.text, first.text);
  assert.equal(provider.payRequests.length, 1);
  assert.equal(await quoteCount(customer), 1);
  const other = await postQuote({ ...body, lockedCurrencyAmount: 3_001 }, { 'idempotency-key': key });
  assertError(other, 422, 'IDEMPOTENCY_KEY_MISMATCH');
  assert.equal(provider.payRequests.length, 1);
});

test('a post-transaction callback the receiver refuses is retried, then given up', async () => {
  provider.reset();
  provider.callbackStatus = 500;
  const { customer, usd } = await sender(10_000);
  const found = await lookup(customer);
  const created = await postQuote(umaQuote(usd, found, 2_000, { immediatelyExecute: true }));
  assert.equal(created.status, 201, created.text);
  assert.equal((await settled(created.body.transactionId)).status, 'COMPLETED');
  await eventually(() => provider.callbacks.length === umaConfig.post_transaction_attempts_max);
  await sleep(500);
  assert.equal(provider.callbacks.length, umaConfig.post_transaction_attempts_max);
  assert.ok(provider.callbacks.every((item) => item.verified));
  // Each attempt is signed afresh.
  assert.equal(new Set(provider.callbacks.map((item) => item.callback.signatureNonce)).size, umaConfig.post_transaction_attempts_max);
  // Given up: the payment settled and stays COMPLETED (nothing is refunded), with the interface's
  // failure reason, and an OUTGOING_PAYMENT event says so.
  const transactionId = created.body.transactionId;
  const transaction = await eventually(async () => {
    const current = await get(`/transactions/${transactionId}`);
    return current.failureReason ? current : undefined;
  });
  assert.equal(transaction.status, 'COMPLETED');
  assert.equal(transaction.failureReason, 'COUNTERPARTY_POST_TX_FAILED');
  assert.ok(Date.parse(transaction.updatedAt) >= Date.parse(transaction.settledAt), JSON.stringify(transaction));
  assert.equal(await balance(usd), 8_000);
  await eventually(() => eventsOf(transactionId).some((event) => event.transaction.failureReason));
  await sleep(300);
  const events = eventsOf(transactionId);
  assert.deepEqual(events.map((event) => [event.type, event.transaction.status, event.transaction.failureReason ?? null]),
    [['OUTGOING_PAYMENT', 'PENDING', null], ['OUTGOING_PAYMENT', 'COMPLETED', null],
      ['OUTGOING_PAYMENT', 'COMPLETED', 'COUNTERPARTY_POST_TX_FAILED']]);
  assert.deepEqual(events.at(-1).transaction, transaction);
});

test('a post-transaction callback delivered after refusals leaves no failure reason', async () => {
  provider.reset();
  provider.callbackStatus = (count) => (count === 1 ? 503 : 200);
  const { usd, customer } = await sender(10_000);
  const found = await lookup(customer);
  const created = await postQuote(umaQuote(usd, found, 1_000, { immediatelyExecute: true }));
  assert.equal(created.status, 201, created.text);
  assert.equal((await settled(created.body.transactionId)).status, 'COMPLETED');
  await eventually(() => provider.callbacks.length === 2);
  await sleep(500);
  assert.equal(provider.callbacks.length, 2);
  const transaction = await get(`/transactions/${created.body.transactionId}`);
  assert.equal(transaction.status, 'COMPLETED');
  assert.equal(transaction.failureReason, undefined);
  assert.ok(eventsOf(created.body.transactionId).every((event) => event.transaction.failureReason === undefined));
});

test('without a rail that pays Lightning invoices, UMA quotes are refused before the receiver is asked', async (t) => {
  // Only the sandbox rail, which pays nothing in production.
  const bare = await startCorridor({
    platforms: 1,
    plugins: { rails: ['sandbox'] },
    config: { outbound: { allow_private_addresses: true, timeout_ms: 1500 } },
  });
  t.after(() => stopCorridor(bare));
  const credentials = bare.platforms[0].production;
  const bareDomain = new URL(bare.baseUrl).host;
  const patched = await call(bare, credentials, 'PATCH', '/config', { umaDomain: bareDomain });
  assert.equal(patched.status, 200, patched.text);
  const created = await call(bare, credentials, 'POST', '/customers', { customerType: 'INDIVIDUAL', umaAddress: `$erin@${bareDomain}`, fullName: 'Erin' });
  assert.equal(created.status, 201, created.text);
  const usd = (await accountsOf(bare, credentials, created.body.id)).USD;
  const found = await call(bare, credentials, 'GET', `/receiver/uma/${encodeURIComponent(provider.address('bob'))}?customerId=${encodeURIComponent(created.body.id)}`);
  assert.equal(found.status, 200, found.text);
  provider.reset();
  const reply = await call(bare, credentials, 'POST', '/quotes', umaQuote(usd, found.body, 1_000));
  assertError(reply, 501, 'NOT_IMPLEMENTED');
  assert.equal(provider.payRequests.length, 0);
});

test('a platform pays a customer of another platform on this corridor, both sides ours', async (t) => {
  // The receiving side names its callback under public_base_url, so the server needs its port
  // before it starts. Its invoices are signed with the spark rail's node key, and the rail pays
  // sandbox invoices over the sandbox Lightning network (a folder), where it also finds the
  // payments of invoices its own key signed: the receiver's payment settles too.
  const network = mkdtempSync(join(tmpdir(), 'corridor-lightning-'));
  t.after(() => rmSync(network, { recursive: true, force: true }));
  const approvals = await startReceiver(() => ({ status: 200 }));
  t.after(() => stopReceiver(approvals));
  const both = await startOnOwnPort({
    platforms: 2,
    plugins: { rails: ['spark'], settings: { spark: { ...sparkSettings, sandbox_network_dir: network } } },
    config: {
      outbound: { allow_private_addresses: true, timeout_ms: 3000 },
      webhooks: { poll_interval_ms: 20, connect_timeout_ms: 1000, response_timeout_ms: 2000 },
      rails: { call_timeout_ms: 10000, settlement_timeout_ms: 259200000, drive_interval_ms: 20 },
    },
  });
  t.after(() => stopCorridor(both));
  const { port } = both;
  const [payer, payee] = both.platforms.map((item) => item.sandbox);
  for (const [credentials, host, hooks] of [[payer, `127.0.0.1:${port}`, {}], [payee, `localhost:${port}`, { webhookEndpoint: approvals.url }]]) {
    const patched = await call(both, credentials, 'PATCH', '/config', { umaDomain: host, ...hooks });
    assert.equal(patched.status, 200, patched.text);
  }
  const alice = await call(both, payer, 'POST', '/customers', { customerType: 'INDIVIDUAL', umaAddress: `$alice@127.0.0.1:${port}`, fullName: 'Alice' });
  const bob = await call(both, payee, 'POST', '/customers', { customerType: 'INDIVIDUAL', umaAddress: `$bob@localhost:${port}`, fullName: 'Bob' });
  assert.equal(alice.status, 201, alice.text);
  assert.equal(bob.status, 201, bob.text);
  const usd = (await accountsOf(both, payer, alice.body.id)).USD;
  const eur = (await accountsOf(both, payee, bob.body.id)).EUR;
  await fund(both, payer, usd.id, 50_000);
  const found = await call(both, payer, 'GET', `/receiver/uma/${encodeURIComponent(bob.body.umaAddress)}?customerId=${encodeURIComponent(alice.body.id)}`);
  assert.equal(found.status, 200, found.text);
  let received = 0;
  for (const [side, amount] of [['SENDING', 5_000], ['RECEIVING', 4_000]]) {
    const quote = await call(both, payer, 'POST', '/quotes', {
      source: { sourceType: 'ACCOUNT', accountId: usd.id },
      destination: { destinationType: 'UMA_ADDRESS', umaAddress: bob.body.umaAddress, currency: 'EUR' },
      lookupId: found.body.lookupId,
      lockedCurrencySide: side,
      lockedCurrencyAmount: amount,
      immediatelyExecute: true,
    });
    assert.equal(quote.status, 201, quote.text);
    if (side === 'SENDING') assert.equal(quote.body.totalSendingAmount, amount);
    else assert.equal(quote.body.totalReceivingAmount, amount);
    const sent = await eventually(async () => {
      const transaction = await call(both, payer, 'GET', `/transactions/${quote.body.transactionId}`);
      return transaction.body.status === 'PENDING' ? undefined : transaction.body;
    });
    assert.equal(sent.status, 'COMPLETED', JSON.stringify(sent));
    // The receiving platform's payment, for what we quoted, settles once its invoice is paid.
    const incoming = await eventually(async () => {
      const listed = await call(both, payee, 'GET', `/transactions?type=INCOMING&customerId=${encodeURIComponent(bob.body.id)}&limit=1`);
      const [latest] = listed.body.data;
      return latest?.status === 'COMPLETED' ? latest : undefined;
    });
    assert.equal(incoming.receivedAmount.amount, quote.body.totalReceivingAmount);
    assert.equal(incoming.receivedAmount.currency.code, 'EUR');
    received += quote.body.totalReceivingAmount;
    const balance = (await accountsOf(both, payee, bob.body.id)).EUR.balance.amount;
    assert.equal(balance, received);
  }
  assert.equal(eur.balance.amount, 0);
});
