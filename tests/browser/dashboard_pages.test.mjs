// The dashboard's data pages in a real browser: a sandbox payment made through the API is found in
// Transactions with its ledger postings, rail operation and webhook deliveries; customers, quotes,
// the overview, configuration and the sandbox tools; roles enforced on the server (a viewer sees no
// control and a forged POST is refused); another platform's ids are not found; the environment
// switch shows one environment's data; axe-core finds no serious or critical violation on any page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { stopCorridor, call } from '../api/lib/harness.mjs';
import { newCustomer, accountsOf, fund, quoteBody, eventually, idempotencyKey } from '../api/lib/money.mjs';
import { startReceiver, stopReceiver } from '../api/lib/receiver.mjs';
import { launchBrowser, screenshot, startPagesServer, assertScreenshots } from './lib/browser.mjs';
import { createUser, signIn, assertAccessible } from './lib/dashboard.mjs';

const suite = 'dashboard_pages';
let server;
let browser;
let page;
let receiver;
let sandbox;  // platform 0's sandbox credentials
let other;    // platform 1's
let users;    // platform 0's admin, developer and viewer
let payment;  // {customer, account, quote, transaction}
const shots = [];

async function shot(name) {
  await screenshot(page, suite, name);
  shots.push(name);
}

// The rows of the table captioned `caption`, as arrays of cell texts (heading cell first).
async function tableRows(caption) {
  return page.evaluate((wanted) => {
    const table = [...document.querySelectorAll('table')]
      .find((t) => t.caption && t.caption.textContent.trim() === wanted);
    if (!table) return null;
    return [...table.tBodies[0].rows].map((row) => [...row.cells].map((cell) => cell.textContent.trim()));
  }, caption);
}

async function as(role, next = '/dashboard/') {
  await browser.context.clearCookies();
  await signIn(page, server, users[role].email, users[role].password, next);
}

// A POST such as the page's own forms make, with the session's cookie and CSRF token, from the
// dashboard's origin: only the role can refuse it.
async function forgedPost(path, fields) {
  const csrf = await page.locator('input[name=csrf]').first().inputValue();
  const response = await page.request.post(`${server.baseUrl}${path}`, {
    form: { csrf, ...fields }, headers: { origin: server.baseUrl }, maxRedirects: 0,
  });
  return response.status();
}

before(async () => {
  server = await startPagesServer({
    platforms: 2,
    config: {
      external_accounts: { screening_delay_ms: 100 },
      rails: { call_timeout_ms: 1000, settlement_timeout_ms: 60000, drive_interval_ms: 20 },
      outbound: { allow_private_addresses: true },
    },
  });
  sandbox = server.platforms[0].sandbox;
  other = server.platforms[1].sandbox;
  receiver = await startReceiver();
  const patched = await call(server, sandbox, 'PATCH', '/config', { webhookEndpoint: receiver.url });
  assert.equal(patched.status, 200, patched.text);
  const platformId = server.platforms[0].platformId;
  users = {};
  for (const role of ['admin', 'developer', 'viewer']) {
    users[role] = { email: `${role}@platform0.example.test`, password: `pages-${role}-long-passphrase` };
    createUser(server, platformId, users[role].email, role, users[role].password);
  }
  browser = await launchBrowser();
  page = await browser.context.newPage();

  // A sandbox payment through the API: EUR from a customer's internal account to a US bank account.
  const customer = await newCustomer(server, sandbox);
  const account = (await accountsOf(server, sandbox, customer.id)).EUR;
  await fund(server, sandbox, account.id, 1_000_000);
  const external = await call(server, sandbox, 'POST', '/customers/external-accounts', {
    customerId: customer.id, currency: 'USD',
    accountInfo: { accountType: 'US_ACCOUNT', accountNumber: '123456789', routingNumber: '021000021', accountCategory: 'CHECKING',
      beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Pat Payee', birthDate: '1990-04-01', nationality: 'US' } },
  });
  assert.equal(external.status, 201, external.text);
  await eventually(async () => {
    const found = await call(server, sandbox, 'GET', `/customers/external-accounts/${external.body.id}`);
    return found.body?.status === 'ACTIVE';
  });
  const quote = await call(server, sandbox, 'POST', '/quotes',
    quoteBody(account.id, external.body.id, 10000, 'SENDING', { immediatelyExecute: true }),
    { 'idempotency-key': idempotencyKey() });
  assert.equal(quote.status, 201, quote.text);
  const transaction = await eventually(async () => {
    const found = await call(server, sandbox, 'GET', `/transactions/${quote.body.transactionId}`);
    return found.body?.status === 'COMPLETED' ? found.body : null;
  });
  // Its webhook events reach the receiver before the pages are looked at.
  await eventually(() => receiver.requests.some((entry) =>
    JSON.stringify(entry.body ?? {}).includes(transaction.id)));
  payment = { customer, account, quote: quote.body, transaction };
});

after(async () => {
  if (browser) await browser.close();
  if (receiver) await stopReceiver(receiver);
  if (server) await stopCorridor(server);
});

test('a sandbox payment made through the API is in Transactions with postings, rail operation and deliveries', async () => {
  await as('developer', '/dashboard/transactions');
  assert.match(await page.locator('header').textContent(), /Platform 0/);
  assert.match(await page.locator('header').textContent(), /sandbox/);
  let rows = await tableRows('Transactions, newest first');
  assert.ok(rows.some((row) => row[0] === payment.transaction.id), JSON.stringify(rows));
  await shot('transactions');

  // The interface's filters, through the form.
  await page.getByLabel('Status', { exact: true }).selectOption('FAILED');
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await page.waitForURL(/status=FAILED/);
  assert.equal(await tableRows('Transactions, newest first'), null);
  assert.match(await page.content(), /No transaction matches these filters/);
  await page.getByLabel('Status', { exact: true }).selectOption('COMPLETED');
  await page.getByLabel('Direction').selectOption('OUTGOING');
  await page.getByLabel('Customer id', { exact: true }).fill(payment.customer.id);
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await page.waitForURL(/type=OUTGOING/);
  rows = await tableRows('Transactions, newest first');
  assert.deepEqual(rows.map((row) => row[0]), [payment.transaction.id]);
  assert.match(await page.content(), /1 transaction match/);

  // A bad filter is the API's 400 naming the parameter.
  const bad = await page.goto(`${server.baseUrl}/dashboard/transactions?startDate=yesterday`);
  assert.equal(bad.status(), 400);
  assert.match(await page.locator('[role=alert]').textContent(), /startDate/);

  await page.goto(`${server.baseUrl}/dashboard/transactions?customerId=${encodeURIComponent(payment.customer.id)}`);
  await page.getByRole('link', { name: payment.transaction.id }).click();
  await page.waitForURL(/\/dashboard\/transactions\/Transaction/);
  const postings = await tableRows('Ledger postings of this transaction');
  assert.ok(postings && postings.length >= 2, JSON.stringify(postings));
  assert.ok(postings.some((row) => row.includes(payment.account.id)), 'the source account is debited');
  assert.ok(postings.some((row) => row.some((cell) => cell === '100.00 EUR')), JSON.stringify(postings));
  const operations = await tableRows('Rail operations of this transaction');
  assert.ok(operations && operations.length >= 1);
  assert.equal(operations[0][1], 'sandbox');
  assert.equal(operations[0][3], 'SETTLED');
  const events = await tableRows('Webhook events carrying this transaction');
  assert.ok(events && events.length >= 1, 'webhook events listed');
  const attempts = await tableRows('Delivery attempts');
  assert.ok(attempts.some((row) => row[2] === receiver.url && row[3] === '200'), JSON.stringify(attempts));
  await shot('transaction');

  // A delivered event is sent once more from here, through the Webhooks page's resend.
  const delivered = events.find((row) => row[2] === 'DELIVERED');
  assert.ok(delivered, JSON.stringify(events));
  const sentBefore = receiver.requests.filter((entry) => entry.body?.webhookId === delivered[0]).length;
  assert.ok(sentBefore >= 1);
  const transactionUrl = page.url();
  await page.getByRole('button', { name: `Resend ${delivered[1]} ${delivered[0]}` }).click();
  await page.waitForURL(/\/dashboard\/webhooks\?resent=1/);
  await eventually(() => receiver.requests.filter((entry) => entry.body?.webhookId === delivered[0]).length > sentBefore);
  await page.goto(transactionUrl);

  await page.getByRole('link', { name: payment.quote.id }).click();
  await page.waitForURL(/\/dashboard\/quotes\/Quote/);
  assert.match(await page.content(), new RegExp(payment.transaction.id));
  await shot('quote');
  await page.goto(`${server.baseUrl}/dashboard/quotes?status=COMPLETED`);
  assert.ok((await tableRows('Quotes, newest first')).some((row) => row[0] === payment.quote.id));
  await shot('quotes');
});

test('customers: search, and a customer with accounts, KYC state and transactions', async () => {
  await page.goto(`${server.baseUrl}/dashboard/customers`);
  await page.getByLabel('Platform customer id').fill(payment.customer.platformCustomerId);
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await page.waitForURL(/platformCustomerId=/);
  const rows = await tableRows('Customers, newest first');
  assert.deepEqual(rows.map((row) => row[0]), [payment.customer.id]);
  await shot('customers');
  await page.getByRole('link', { name: payment.customer.id }).click();
  await page.waitForURL(/\/dashboard\/customers\/Customer/);
  assert.match(await page.locator('dl').textContent(), new RegExp(payment.customer.kycStatus));
  const internal = await tableRows('Internal accounts');
  const eur = internal.find((row) => row[0] === payment.account.id);
  assert.ok(eur, JSON.stringify(internal));
  assert.equal(eur[2], formatEur(1_000_000 - payment.quote.totalSendingAmount));
  const external = await tableRows('External accounts');
  assert.ok(external.some((row) => row[1] === 'US_ACCOUNT' && row[3] === '…6789' && row[5] === 'ACTIVE'), JSON.stringify(external));
  assert.ok((await tableRows('Latest transactions')).some((row) => row[0] === payment.transaction.id));
  await shot('customer');
});

function formatEur(minor) {
  const whole = Math.floor(minor / 100).toLocaleString('en-US');
  return `${whole}.${String(minor % 100).padStart(2, '0')} EUR`;
}

test('the overview: balances, payments of the last 24 hours, webhook health, rails', async () => {
  await page.goto(`${server.baseUrl}/dashboard/`);
  const balances = await tableRows('Balances by currency');
  const eur = balances.find((row) => row[0] === 'EUR');
  assert.equal(eur[2], formatEur(1_000_000 - payment.quote.totalSendingAmount));
  const payments = await tableRows('Payments in the last 24 hours by status');
  assert.ok(payments.some((row) => row[0] === 'COMPLETED' && Number(row[1]) >= 1), JSON.stringify(payments));
  assert.match(await page.content(), /Events waiting for delivery/);
  const rails = await tableRows('Rails moving money in this environment');
  assert.ok(rails.some((row) => row[0] === 'sandbox'), JSON.stringify(rails));
  await shot('overview');
});

test('the environment switch shows only that environment\'s data', async () => {
  await page.goto(`${server.baseUrl}/dashboard/transactions`);
  await page.getByRole('button', { name: 'Switch to production' }).click();
  await page.waitForLoadState();
  assert.match(await page.locator('header').textContent(), /production/);
  await page.goto(`${server.baseUrl}/dashboard/transactions`);
  assert.equal(await tableRows('Transactions, newest first'), null);
  const hidden = await page.goto(`${server.baseUrl}/dashboard/transactions/${encodeURIComponent(payment.transaction.id)}`);
  assert.equal(hidden.status(), 404);
  const sandboxTools = await page.goto(`${server.baseUrl}/dashboard/sandbox`);
  assert.equal(sandboxTools.status(), 403);
  await page.goto(`${server.baseUrl}/dashboard/transactions`);
  await shot('transactions-production');
  await page.getByRole('button', { name: 'Switch to sandbox' }).click();
  await page.waitForLoadState();
  await page.goto(`${server.baseUrl}/dashboard/transactions`);
  assert.ok((await tableRows('Transactions, newest first')).some((row) => row[0] === payment.transaction.id));
});

test('another platform\'s transaction, quote or customer id is not found', async () => {
  const stranger = await newCustomer(server, other);
  const account = (await accountsOf(server, other, stranger.id)).EUR;
  await fund(server, other, account.id, 100_000);
  const target = await newCustomer(server, other);
  const targetAccount = (await accountsOf(server, other, target.id)).USD;
  const quote = await call(server, other, 'POST', '/quotes',
    quoteBody(account.id, targetAccount.id, 1000, 'SENDING', { immediatelyExecute: true }),
    { 'idempotency-key': idempotencyKey() });
  assert.equal(quote.status, 201, quote.text);
  for (const path of [`/dashboard/customers/${encodeURIComponent(stranger.id)}`,
    `/dashboard/quotes/${encodeURIComponent(quote.body.id)}`,
    `/dashboard/transactions/${encodeURIComponent(quote.body.transactionId)}`]) {
    const response = await page.goto(`${server.baseUrl}${path}`);
    assert.equal(response.status(), 404, path);
    assert.doesNotMatch(await page.content(), new RegExp(stranger.platformCustomerId));
  }
  await shot('not-found');
});

test('sandbox tools: fund an account, simulate an incoming UMA payment, link a test bank account', async () => {
  // From the customer's page: the account's link fills the fund form in.
  await page.goto(`${server.baseUrl}/dashboard/customers/${encodeURIComponent(payment.customer.id)}`);
  await page.getByRole('link', { name: 'Fund the USD account' }).click();
  await page.waitForURL(/\/dashboard\/sandbox\?accountId=/);
  await shot('sandbox');
  const usd = (await accountsOf(server, sandbox, payment.customer.id)).USD;
  assert.equal(await page.getByLabel('Internal account id').inputValue(), usd.id);
  await page.getByLabel('Amount', { exact: true }).fill('2500');
  await page.getByRole('button', { name: 'Fund the account' }).click();
  await page.waitForURL(/funded=/);
  assert.match(await page.locator('[role=status]').textContent(), /25\.00 USD/);
  assert.equal((await accountsOf(server, sandbox, payment.customer.id)).USD.balance.amount, 2500);

  // A refusal is the API's, naming the field, and moves nothing.
  await page.getByLabel('Internal account id').fill(usd.id);
  await page.getByLabel('Amount', { exact: true }).fill('-5');
  await page.getByRole('button', { name: 'Fund the account' }).click();
  await page.waitForLoadState();
  assert.match(await page.locator('[role=alert]').textContent(), /amount/);
  assert.equal((await accountsOf(server, sandbox, payment.customer.id)).USD.balance.amount, 2500);

  await page.getByLabel('Receiving customer id').fill(payment.customer.id);
  await page.getByLabel('Amount received').fill('1500');
  await page.getByRole('button', { name: 'Simulate the payment' }).click();
  await page.waitForURL(/\/dashboard\/transactions\/Transaction/);
  const summary = await page.locator('dl').textContent();
  assert.match(summary, /INCOMING/);
  assert.match(summary, /15\.00 USD/);

  await page.goto(`${server.baseUrl}/dashboard/sandbox`);
  await page.getByLabel('Customer id', { exact: true }).fill(payment.customer.id);
  await page.getByRole('button', { name: 'Link the account' }).click();
  await page.waitForURL(/\/dashboard\/customers\/Customer/);
  const external = await tableRows('External accounts');
  assert.ok(external.some((row) => row[6] === 'BANK_LINK'), JSON.stringify(external));
  await shot('sandbox-linked');
});

test('configuration: an admin changes limits through the API\'s validation', async () => {
  await as('admin');
  await page.goto(`${server.baseUrl}/dashboard/configuration`);
  await shot('configuration');
  const before = (await call(server, sandbox, 'GET', '/config')).body;
  const first = before.supportedCurrencies[0];
  // A minimum above the maximum: the API's message, naming the field; nothing saved.
  await page.locator('#f-currency0\\.min').fill(String(first.maxAmount + 1));
  await page.getByRole('button', { name: 'Save configuration' }).click();
  await page.waitForLoadState();
  assert.match(await page.locator('[role=alert]').textContent(), /supportedCurrencies\[0\]\.minAmount/);
  assert.deepEqual((await call(server, sandbox, 'GET', '/config')).body.supportedCurrencies, before.supportedCurrencies);

  await page.goto(`${server.baseUrl}/dashboard/configuration`);
  await page.locator('#f-currency0\\.min').fill(String(first.minAmount + 7));
  await page.getByRole('button', { name: 'Save configuration' }).click();
  await page.waitForURL(/saved=1/);
  const after = (await call(server, sandbox, 'GET', '/config')).body;
  assert.equal(after.supportedCurrencies[0].minAmount, first.minAmount + 7);
  assert.equal(after.supportedCurrencies[0].maxAmount, first.maxAmount);
  assert.deepEqual(after.supportedCurrencies.slice(1), before.supportedCurrencies.slice(1));
  assert.equal(after.umaDomain, before.umaDomain);
});

test('a viewer sees no sandbox or configuration control, and a forged POST is refused', async () => {
  await as('viewer');
  await page.goto(`${server.baseUrl}/dashboard/configuration`);
  assert.equal(await page.getByRole('button', { name: 'Save configuration' }).count(), 0);
  assert.equal(await page.getByRole('link', { name: 'Sandbox tools' }).count(), 0);
  await shot('configuration-viewer');
  const before = (await call(server, sandbox, 'GET', '/config')).body;
  assert.equal(await forgedPost('/dashboard/configuration', { umaDomain: 'forged.example.test' }), 403);
  assert.equal((await call(server, sandbox, 'GET', '/config')).body.umaDomain, before.umaDomain);
  const eur = (await accountsOf(server, sandbox, payment.customer.id)).EUR;
  assert.equal(await forgedPost('/dashboard/sandbox/fund', { accountId: eur.id, amount: '100' }), 403);
  assert.equal((await accountsOf(server, sandbox, payment.customer.id)).EUR.balance.amount, eur.balance.amount);
  const tools = await page.goto(`${server.baseUrl}/dashboard/sandbox`);
  assert.equal(tools.status(), 403);
});

test('every page has no serious or critical accessibility violation', async () => {
  await as('admin');
  const paths = ['/dashboard/', '/dashboard/transactions', `/dashboard/transactions/${encodeURIComponent(payment.transaction.id)}`,
    '/dashboard/quotes', `/dashboard/quotes/${encodeURIComponent(payment.quote.id)}`, '/dashboard/customers',
    `/dashboard/customers/${encodeURIComponent(payment.customer.id)}`, '/dashboard/configuration', '/dashboard/sandbox'];
  for (const path of paths) {
    const response = await page.goto(`${server.baseUrl}${path}`);
    assert.equal(response.status(), 200, path);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `${path} is ${overflow}px wider than the phone`);
    await assertAccessible(page, path);
  }
  assertScreenshots(suite, shots);
});
