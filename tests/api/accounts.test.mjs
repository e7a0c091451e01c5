// Internal accounts: one per supported currency for every customer and for the platform, opened for
// everyone when a currency is added; the list endpoints with their filters and pages; funding
// instructions that carry the account's reference; the sandbox deposit and its limits.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCorridor, stopCorridor, call, walkPages } from './lib/harness.mjs';
import { newCustomer, accountsOf, platformAccounts, balanceOf, fund, assertError } from './lib/money.mjs';
import { expectWrongTypes } from './lib/wrong_types.mjs';

let server;
let sandbox;
let production;
let other;

before(async () => {
  server = await startCorridor({ platforms: 2 });
  sandbox = server.platforms[0].sandbox;
  production = server.platforms[0].production;
  other = server.platforms[1].sandbox;
});
after(async () => { if (server) await stopCorridor(server); });

async function supportedCodes(credentials) {
  const config = await call(server, credentials, 'GET', '/config');
  assert.equal(config.status, 200, config.text);
  return config.body.supportedCurrencies.map((item) => item.currencyCode).sort();
}

function assertAccountShape(account, code, customerId) {
  assert.match(account.id, /^InternalAccount:/);
  assert.equal(account.balance.currency.code, code);
  assert.equal(typeof account.balance.currency.name, 'string');
  assert.equal(typeof account.balance.currency.decimals, 'number');
  assert.equal(typeof account.balance.amount, 'number');
  assert.ok(Array.isArray(account.fundingPaymentInstructions));
  assert.match(account.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
  assert.match(account.updatedAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
  if (customerId) assert.equal(account.customerId, customerId);
  else assert.equal(account.customerId, undefined);
}

test('a new customer gets exactly one zero-balance internal account per supported currency', async () => {
  const codes = await supportedCodes(sandbox);
  assert.ok(codes.length >= 2);
  const customer = await newCustomer(server, sandbox);
  const listed = await call(server, sandbox, 'GET', `/customers/internal-accounts?customerId=${customer.id}&limit=100`);
  assert.equal(listed.status, 200, listed.text);
  assert.equal(listed.body.totalCount, codes.length);
  assert.equal(listed.body.hasMore, false);
  assert.deepEqual(listed.body.data.map((a) => a.balance.currency.code).sort(), codes);
  for (const account of listed.body.data) {
    assertAccountShape(account, account.balance.currency.code, customer.id);
    assert.equal(account.balance.amount, 0);
  }
});

test('the platform has its own internal account per supported currency, filterable by currency', async () => {
  const codes = await supportedCodes(sandbox);
  const listed = await call(server, sandbox, 'GET', '/platform/internal-accounts');
  assert.equal(listed.status, 200, listed.text);
  assert.deepEqual(listed.body.data.map((a) => a.balance.currency.code).sort(), codes);
  for (const account of listed.body.data) assertAccountShape(account, account.balance.currency.code, undefined);
  const eur = await call(server, sandbox, 'GET', '/platform/internal-accounts?currency=EUR');
  assert.equal(eur.status, 200, eur.text);
  assert.equal(eur.body.data.length, 1);
  assert.equal(eur.body.data[0].balance.currency.code, 'EUR');
  assert.equal(eur.body.data[0].id, listed.body.data.find((a) => a.balance.currency.code === 'EUR').id);
  // Platform accounts are not customer accounts, and the other environment has its own.
  const customerList = await walkPages(server, sandbox, '/customers/internal-accounts', 100);
  const platformIds = new Set(listed.body.data.map((a) => a.id));
  assert.ok(customerList.items.every((a) => !platformIds.has(a.id) && a.customerId));
  const live = await call(server, production, 'GET', '/platform/internal-accounts');
  assert.equal(live.status, 200, live.text);
  assert.equal(live.body.data.length, codes.length);
  assert.ok(live.body.data.every((a) => !platformIds.has(a.id)));
  const unknown = await call(server, sandbox, 'GET', '/platform/internal-accounts?currency=XYZ');
  assertError(unknown, 400, 'INVALID_CURRENCY');
});

test('adding a currency with PATCH /config opens it for existing customers and the platform', async () => {
  const first = await newCustomer(server, sandbox);
  const second = await newCustomer(server, sandbox);
  const config = await call(server, sandbox, 'GET', '/config');
  const current = config.body.supportedCurrencies;
  assert.ok(!current.some((c) => c.currencyCode === 'JPY'), 'JPY must not be supported yet');
  const before = await walkPages(server, sandbox, '/customers/internal-accounts', 100);
  const customerCount = new Set(before.items.map((a) => a.customerId)).size;
  const patched = await call(server, sandbox, 'PATCH', '/config', {
    supportedCurrencies: [
      ...current.map(({ currencyCode, minAmount, maxAmount, enabledTransactionTypes, requiredCounterpartyFields }) =>
        ({ currencyCode, minAmount, maxAmount, enabledTransactionTypes, requiredCounterpartyFields })),
      { currencyCode: 'JPY', minAmount: 1, maxAmount: 100000000, enabledTransactionTypes: ['OUTGOING', 'INCOMING'], requiredCounterpartyFields: [] },
    ],
  });
  assert.equal(patched.status, 200, patched.text);

  for (const customer of [first, second]) {
    const accounts = await accountsOf(server, sandbox, customer.id);
    assert.ok(accounts.JPY, `no JPY account for ${customer.id}`);
    assert.equal(accounts.JPY.balance.amount, 0);
    assert.equal(accounts.JPY.balance.currency.decimals, 0);
    assert.equal(Object.keys(accounts).length, current.length + 1);
  }
  const jpy = await walkPages(server, sandbox, '/customers/internal-accounts?currency=JPY', 100);
  assert.equal(jpy.items.length, customerCount);
  assert.equal(new Set(jpy.items.map((a) => a.customerId)).size, customerCount);
  assert.ok((await platformAccounts(server, sandbox)).JPY);
  // A customer created afterwards gets it too; the other tenant is untouched.
  const later = await newCustomer(server, sandbox);
  assert.ok((await accountsOf(server, sandbox, later.id)).JPY);
  assert.equal((await platformAccounts(server, other)).JPY, undefined);
  // Patching again with the same list opens nothing twice.
  const again = await call(server, sandbox, 'PATCH', '/config', { supportedCurrencies: patched.body.supportedCurrencies.map(
    ({ currencyCode, minAmount, maxAmount, enabledTransactionTypes, requiredCounterpartyFields }) =>
      ({ currencyCode, minAmount, maxAmount, enabledTransactionTypes, requiredCounterpartyFields })) });
  assert.equal(again.status, 200, again.text);
  assert.equal((await walkPages(server, sandbox, '/customers/internal-accounts?currency=JPY', 100)).items.length, customerCount + 1);
});

test('GET /customers/internal-accounts filters by currency and customerId and pages without gaps', async () => {
  const customers = [];
  for (let i = 0; i < 3; i++) customers.push(await newCustomer(server, sandbox));
  const all = await walkPages(server, sandbox, '/customers/internal-accounts', 100);
  assert.equal(new Set(all.items.map((a) => a.id)).size, all.items.length);
  assert.ok(all.totals.every((t) => t === all.items.length));

  for (const limit of [1, 4, 7]) {
    const walked = await walkPages(server, sandbox, '/customers/internal-accounts', limit);
    assert.deepEqual(walked.items.map((a) => a.id), all.items.map((a) => a.id), `limit ${limit}`);
    assert.ok(walked.totals.every((t) => t === all.items.length));
  }

  const eur = await walkPages(server, sandbox, '/customers/internal-accounts?currency=EUR', 2);
  assert.deepEqual(eur.items.map((a) => a.id), all.items.filter((a) => a.balance.currency.code === 'EUR').map((a) => a.id));
  assert.ok(eur.totals.every((t) => t === eur.items.length));

  const target = customers[1];
  const mine = await walkPages(server, sandbox, `/customers/internal-accounts?customerId=${target.id}`, 3);
  assert.deepEqual(mine.items.map((a) => a.id), all.items.filter((a) => a.customerId === target.id).map((a) => a.id));
  assert.ok(mine.items.length >= 2);

  const both = await call(server, sandbox, 'GET', `/customers/internal-accounts?customerId=${target.id}&currency=GBP`);
  assert.equal(both.status, 200, both.text);
  assert.equal(both.body.totalCount, 1);
  assert.equal(both.body.data.length, 1);
  assert.equal(both.body.data[0].customerId, target.id);
  assert.equal(both.body.data[0].balance.currency.code, 'GBP');

  // Another tenant's customer id matches nothing here; its accounts are invisible.
  const stranger = await newCustomer(server, other);
  const foreign = await call(server, sandbox, 'GET', `/customers/internal-accounts?customerId=${stranger.id}`);
  assert.equal(foreign.status, 200, foreign.text);
  assert.deepEqual(foreign.body.data, []);
  assert.equal(foreign.body.totalCount, 0);
  assert.equal(foreign.body.hasMore, false);

  assertError(await call(server, sandbox, 'GET', '/customers/internal-accounts?currency=XYZ'), 400, 'INVALID_CURRENCY');
  assertError(await call(server, sandbox, 'GET', '/customers/internal-accounts?limit=0'), 400, 'INVALID_INPUT');
  assertError(await call(server, sandbox, 'GET', '/customers/internal-accounts?limit=101'), 400, 'INVALID_INPUT');
  assertError(await call(server, sandbox, 'GET', '/customers/internal-accounts?cursor=garbage'), 400, 'INVALID_INPUT');
});

test('funding instructions carry a reference that identifies the account', async () => {
  const customer = await newCustomer(server, sandbox);
  const accounts = await accountsOf(server, sandbox, customer.id);
  const references = new Set();
  const everyone = await walkPages(server, sandbox, '/customers/internal-accounts', 100);
  const platform = await platformAccounts(server, sandbox);
  for (const account of [...everyone.items, ...Object.values(platform)]) {
    for (const instruction of account.fundingPaymentInstructions) {
      const reference = instruction.accountOrWalletInfo.reference;
      assert.equal(typeof reference, 'string');
      assert.ok(reference.length >= 6, reference);
      assert.ok(!references.has(reference), `reference ${reference} is shared by two accounts`);
      references.add(reference);
    }
  }
  for (const code of ['USD', 'EUR', 'GBP', 'MXN', 'BRL']) {
    const account = accounts[code];
    assert.equal(account.fundingPaymentInstructions.length, 1, `${code}: ${JSON.stringify(account)}`);
    const [instruction] = account.fundingPaymentInstructions;
    assert.equal(typeof instruction.accountOrWalletInfo.accountType, 'string');
    assert.equal(typeof instruction.isPlatformAccount, 'boolean');
    assert.ok(instruction.instructionsNotes.includes(instruction.accountOrWalletInfo.reference));
  }
  // The reference is how a deposit finds its account: the sandbox deposit is reconciled by it.
  const usd = accounts.USD;
  const reference = usd.fundingPaymentInstructions[0].accountOrWalletInfo.reference;
  await fund(server, sandbox, usd.id, 1234);
  const deposits = await call(server, sandbox, 'GET', `/transactions?reference=${reference}`);
  assert.equal(deposits.status, 200, deposits.text);
  assert.equal(deposits.body.data.length, 1, deposits.text);
  const [deposit] = deposits.body.data;
  assert.equal(deposit.type, 'INCOMING');
  assert.equal(deposit.status, 'COMPLETED');
  assert.equal(deposit.destination.accountId, usd.id);
  assert.equal(deposit.customerId, customer.id);
  assert.equal(deposit.receivedAmount.amount, 1234);
  assert.equal(deposit.reconciliationInstructions.reference, reference);
  // The same account read again keeps its reference.
  const again = await accountsOf(server, sandbox, customer.id);
  assert.equal(again.USD.fundingPaymentInstructions[0].accountOrWalletInfo.reference, reference);
});

test('sandbox fund credits the account and returns it', async () => {
  const customer = await newCustomer(server, sandbox);
  const { USD: usd, EUR: eur } = await accountsOf(server, sandbox, customer.id);
  const first = await call(server, sandbox, 'POST', `/sandbox/internal-accounts/${usd.id}/fund`, { amount: 5000 });
  assert.equal(first.status, 200, first.text);
  assertAccountShape(first.body, 'USD', customer.id);
  assert.equal(first.body.id, usd.id);
  assert.equal(first.body.balance.amount, 5000);
  const second = await fund(server, sandbox, usd.id, 2500);
  assert.equal(second.balance.amount, 7500);
  assert.equal(await balanceOf(server, sandbox, usd), 7500);
  assert.equal(await balanceOf(server, sandbox, eur), 0, 'another currency of the customer is untouched');
  // The largest allowed deposit.
  const big = await fund(server, sandbox, eur.id, 100000000000);
  assert.equal(big.balance.amount, 100000000000);
  // Platform accounts can be funded too.
  const platformUsd = (await platformAccounts(server, sandbox)).USD;
  const before = platformUsd.balance.amount;
  const funded = await fund(server, sandbox, platformUsd.id, 42);
  assert.equal(funded.balance.amount, before + 42);
  assert.equal(funded.customerId, undefined);
});

test('sandbox fund rejects bad amounts, unknown and foreign accounts, and production tokens', async () => {
  const customer = await newCustomer(server, sandbox);
  const { USD: usd } = await accountsOf(server, sandbox, customer.id);
  const path = `/sandbox/internal-accounts/${usd.id}/fund`;
  for (const body of [{ amount: 0 }, { amount: -5 }, { amount: 100000000001 }, { amount: 1.5 }, { amount: '100' }, {}, { amount: null }]) {
    const response = await call(server, sandbox, 'POST', path, body);
    assertError(response, 400, 'INVALID_INPUT');
    assert.equal(response.body.details.field, 'amount', response.text);
  }
  assert.equal(await balanceOf(server, sandbox, usd), 0, 'a refused deposit credits nothing');

  const foreignCustomer = await newCustomer(server, other);
  const foreign = (await accountsOf(server, other, foreignCustomer.id)).USD;
  assertError(await call(server, sandbox, 'POST', `/sandbox/internal-accounts/${foreign.id}/fund`, { amount: 100 }), 404, 'ACCOUNT_NOT_FOUND');
  assert.equal(await balanceOf(server, other, foreign), 0);
  assertError(await call(server, sandbox, 'POST', '/sandbox/internal-accounts/InternalAccount:00000000-0000-7000-8000-000000000000/fund', { amount: 100 }), 404, 'ACCOUNT_NOT_FOUND');

  // The production environment of the same platform is another tenant.
  const livePlatform = await platformAccounts(server, production);
  assertError(await call(server, sandbox, 'POST', `/sandbox/internal-accounts/${livePlatform.USD.id}/fund`, { amount: 100 }), 404, 'ACCOUNT_NOT_FOUND');

  // Production credentials cannot use sandbox operations at all.
  const forbidden = await call(server, production, 'POST', `/sandbox/internal-accounts/${livePlatform.USD.id}/fund`, { amount: 100 });
  assertError(forbidden, 403, 'FORBIDDEN');
  const forbiddenToo = await call(server, production, 'POST', path, { amount: 100 });
  assertError(forbiddenToo, 403, 'FORBIDDEN');
  assert.equal((await platformAccounts(server, production)).USD.balance.amount, 0);
  assert.equal(await balanceOf(server, sandbox, usd), 0);
});

test('sandbox fund: amount of the wrong type is 400 naming it; unknown fields are ignored', async () => {
  const customer = await newCustomer(server, sandbox);
  const { USD: usd } = await accountsOf(server, sandbox, customer.id);
  const path = `/sandbox/internal-accounts/${usd.id}/fund`;
  await expectWrongTypes((body) => call(server, sandbox, 'POST', path, body), { amount: 100 },
    [['amount', '100'], ['amount', 1.5], ['amount', true], ['amount', [100]], ['amount', { value: 100 }]]);
  assert.equal(await balanceOf(server, sandbox, usd), 0);
  const funded = await call(server, sandbox, 'POST', path, { amount: 100, currency: 'USD', note: 1 });
  assert.equal(funded.status, 200, funded.text);
  assert.equal(await balanceOf(server, sandbox, usd), 100);
});
