// The dashboard's data pages over HTTP, on SQLite and on PostgreSQL: a payment's page with its
// ledger postings, the overview's balances summed in the database, the list filters read as the
// API reads them, another platform's and the other environment's ids not found, and the sandbox
// tools and configuration forms: refused by role, refused in production, and refused with the
// API's own message when the input is wrong (nothing written then).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startOnOwnPort, stopCorridor, call } from './lib/harness.mjs';
import { newCustomer, accountsOf, fund, quoteBody, idempotencyKey, eventually } from './lib/money.mjs';
import { DashboardClient, field, createUser } from './lib/dashboard_client.mjs';

let server;
let sandbox;
let payment;
const password = 'lantern-harbour-orchid-17';
const clients = {};

async function signedIn(email) {
  const client = new DashboardClient(server);
  const answer = await client.signIn(email, password);
  assert.equal(answer.status, 303, answer.text);
  return client;
}

// The cell texts of the table captioned `caption` (tags stripped), one array per body row.
function tableRows(html, caption) {
  const at = html.indexOf(`<caption>${caption}</caption>`);
  if (at < 0) return null;
  const body = html.slice(html.indexOf('<tbody>', at), html.indexOf('</tbody>', at));
  return [...body.matchAll(/<tr>(.*?)<\/tr>/g)].map((row) =>
    [...row[1].matchAll(/<t[hd][^>]*>(.*?)<\/t[hd]>/g)].map((cell) => cell[1].replace(/<[^>]+>/g, '')));
}

before(async () => {
  server = await startOnOwnPort({ platforms: 2 });
  sandbox = server.platforms[0].sandbox;
  for (const role of ['admin', 'developer', 'viewer']) {
    createUser(server, server.platforms[0].platformId, `${role}@zero.test`, role, password);
    clients[role] = await signedIn(`${role}@zero.test`);
  }
  const payer = await newCustomer(server, sandbox);
  const payee = await newCustomer(server, sandbox);
  const source = (await accountsOf(server, sandbox, payer.id)).EUR;
  const destination = (await accountsOf(server, sandbox, payee.id)).USD;
  await fund(server, sandbox, source.id, 500_000);
  const quote = await call(server, sandbox, 'POST', '/quotes',
    quoteBody(source.id, destination.id, 20_000, 'SENDING', { immediatelyExecute: true }),
    { 'idempotency-key': idempotencyKey() });
  assert.equal(quote.status, 201, quote.text);
  const transaction = await eventually(async () => {
    const found = await call(server, sandbox, 'GET', `/transactions/${quote.body.transactionId}`);
    return found.body?.status === 'COMPLETED' ? found.body : null;
  });
  payment = { payer, payee, source, destination, quote: quote.body, transaction };
});
after(async () => { if (server) await stopCorridor(server); });

test('a transaction\'s page lists its ledger postings; the list filters as GET /transactions', async () => {
  const page = await clients.viewer.get(`/dashboard/transactions/${encodeURIComponent(payment.transaction.id)}`);
  assert.equal(page.status, 200, page.text);
  const postings = tableRows(page.text, 'Ledger postings of this transaction');
  assert.ok(postings.length >= 2, JSON.stringify(postings));
  assert.ok(postings.some((row) => row[2] === payment.source.id), 'the payer is debited');
  assert.ok(postings.some((row) => row[3] === payment.destination.id), 'the receiver is credited');

  const filtered = await clients.viewer.get(`/dashboard/transactions?type=OUTGOING&status=&customerId=${encodeURIComponent(payment.payer.id)}`);
  assert.equal(filtered.status, 200);
  assert.deepEqual(tableRows(filtered.text, 'Transactions, newest first').map((row) => row[0]), [payment.transaction.id]);
  const bad = await clients.viewer.get('/dashboard/transactions?status=LOST');
  assert.equal(bad.status, 400);
  assert.match(bad.text, /role="alert">INVALID_INPUT: status/);
});

test('every data page answers for its role and lists what the API lists', async () => {
  const pages = {
    '/dashboard/': 'Balances by currency',
    '/dashboard/transactions?sortOrder=asc': 'Transactions, oldest first',
    '/dashboard/quotes?status=COMPLETED': 'Quotes, newest first',
    [`/dashboard/quotes/${encodeURIComponent(payment.quote.id)}`]: null,
    '/dashboard/customers?customerType=INDIVIDUAL': 'Customers, newest first',
    [`/dashboard/customers/${encodeURIComponent(payment.payee.id)}`]: 'Internal accounts',
    '/dashboard/configuration': 'Supported currencies',
  };
  for (const [path, caption] of Object.entries(pages)) {
    const page = await clients.viewer.get(path);
    assert.equal(page.status, 200, `${path}: ${page.text}`);
    assert.match(page.headers.get('content-security-policy'), /default-src 'none'/);
    if (caption) assert.ok(tableRows(page.text, caption)?.length > 0, `${path}: ${caption}`);
  }
  const quotes = tableRows((await clients.viewer.get('/dashboard/quotes?status=COMPLETED')).text, 'Quotes, newest first');
  assert.ok(quotes.some((row) => row[0] === payment.quote.id));
  const customers = tableRows((await clients.viewer.get('/dashboard/customers')).text, 'Customers, newest first');
  assert.ok(customers.some((row) => row[0] === payment.payee.id));
  assert.equal((await clients.viewer.get('/dashboard/sandbox')).status, 403);
  assert.equal((await clients.developer.get('/dashboard/sandbox')).status, 200);
  assert.equal((await new DashboardClient(server).get('/dashboard/transactions')).status, 303);
});

test('the overview sums balances per currency in the database', async () => {
  const page = await clients.viewer.get('/dashboard/');
  assert.equal(page.status, 200, page.text);
  const balances = tableRows(page.text, 'Balances by currency');
  const usd = balances.find((row) => row[0] === 'USD');
  const expected = payment.quote.totalReceivingAmount;
  assert.equal(usd[2], `${Math.floor(expected / 100).toLocaleString('en-US')}.${String(expected % 100).padStart(2, '0')} USD`);
  const eur = balances.find((row) => row[0] === 'EUR');
  const left = 500_000 - payment.quote.totalSendingAmount;
  assert.equal(eur[2], `${Math.floor(left / 100).toLocaleString('en-US')}.${String(left % 100).padStart(2, '0')} EUR`);
});

test('another platform\'s ids and the other environment\'s are not found', async () => {
  const other = server.platforms[1].sandbox;
  const stranger = await newCustomer(server, other);
  for (const path of [`/dashboard/customers/${encodeURIComponent(stranger.id)}`,
    `/dashboard/transactions/${encodeURIComponent('Transaction:01a21681-0000-7000-8000-000000000000')}`,
    // Not a transaction's id (ids are stored as 16 bytes): not found either, never a 500.
    `/dashboard/transactions/${encodeURIComponent('Transaction:nope')}`, '/dashboard/transactions/nope',
    `/dashboard/transactions/${encodeURIComponent(payment.transaction.id.toUpperCase().replace(/^TRANSACTION/, 'Transaction'))}`,
    `/dashboard/quotes/${encodeURIComponent('Quote:nope')}`, '/dashboard/quotes/nope',
    `/dashboard/quotes/${encodeURIComponent(payment.quote.id.toUpperCase().replace(/^QUOTE/, 'Quote'))}`]) {
    assert.equal((await clients.viewer.get(path)).status, 404, path);
  }
  const own = await clients.viewer.get(`/dashboard/customers/${encodeURIComponent(payment.payer.id)}`);
  assert.equal(own.status, 200);
  const switcher = new DashboardClient(server);
  assert.equal((await switcher.signIn('viewer@zero.test', password)).status, 303);
  const csrf = await switcher.csrf('/dashboard/');
  const switched = await switcher.post('/dashboard/environment', { csrf, environment: 'production', back: '/dashboard/' });
  assert.equal(switched.status, 303, switched.text);
  const hidden = await switcher.get(`/dashboard/transactions/${encodeURIComponent(payment.transaction.id)}`);
  assert.equal(hidden.status, 404);
});

test('sandbox tools: a viewer is refused, a developer funds, a wrong amount writes nothing', async () => {
  const account = payment.payee;
  const usd = (await accountsOf(server, sandbox, account.id)).USD;
  const refused = await clients.viewer.post('/dashboard/sandbox/fund',
    { csrf: await clients.viewer.csrf('/dashboard/'), accountId: usd.id, amount: '100' });
  assert.equal(refused.status, 403);
  const csrf = await clients.developer.csrf('/dashboard/sandbox');
  assert.ok(csrf);
  const wrong = await clients.developer.post('/dashboard/sandbox/fund', { csrf, accountId: usd.id, amount: '1.5' });
  assert.equal(wrong.status, 400);
  assert.match(wrong.text, /amount/);
  const missing = await clients.developer.post('/dashboard/sandbox/fund', { csrf, accountId: 'InternalAccount:nope', amount: '100' });
  assert.equal(missing.status, 404, missing.text);
  assert.equal((await accountsOf(server, sandbox, account.id)).USD.balance.amount, usd.balance.amount);
  const funded = await clients.developer.post('/dashboard/sandbox/fund', { csrf, accountId: usd.id, amount: '250' });
  assert.equal(funded.status, 303, funded.text);
  assert.equal(funded.location, `/dashboard/sandbox?funded=${encodeURIComponent(usd.id)}`);
  assert.equal((await accountsOf(server, sandbox, account.id)).USD.balance.amount, usd.balance.amount + 250);
  const noCsrf = await clients.developer.post('/dashboard/sandbox/fund', { accountId: usd.id, amount: '250' });
  assert.equal(noCsrf.status, 403);
  assert.equal((await accountsOf(server, sandbox, account.id)).USD.balance.amount, usd.balance.amount + 250);
});

test('configuration: only an admin saves, through PATCH /config\'s reader', async () => {
  const before = (await call(server, sandbox, 'GET', '/config')).body;
  const page = await clients.admin.get('/dashboard/configuration');
  const csrf = field(page.text, 'csrf');
  const form = { csrf, umaDomain: before.umaDomain };
  before.supportedCurrencies.forEach((item, i) => {
    Object.assign(form, { [`currency${i}.code`]: item.currencyCode, [`currency${i}.keep`]: '1',
      [`currency${i}.min`]: String(item.minAmount), [`currency${i}.max`]: String(item.maxAmount) });
    if (item.enabledTransactionTypes.includes('INCOMING')) form[`currency${i}.incoming`] = '1';
    if (item.enabledTransactionTypes.includes('OUTGOING')) form[`currency${i}.outgoing`] = '1';
    for (const f of item.requiredCounterpartyFields) form[`currency${i}.field.${f.name}`] = f.mandatory ? 'mandatory' : 'optional';
  });
  const bad = await clients.admin.post('/dashboard/configuration', { ...form, 'currency0.max': 'lots' });
  assert.equal(bad.status, 400);
  assert.match(bad.text, /supportedCurrencies\[0\]\.maxAmount/);
  assert.equal((await clients.developer.post('/dashboard/configuration',
    { ...form, csrf: await clients.developer.csrf('/dashboard/') })).status, 403);
  assert.deepEqual((await call(server, sandbox, 'GET', '/config')).body.supportedCurrencies, before.supportedCurrencies);
  const saved = await clients.admin.post('/dashboard/configuration', { ...form, umaDomain: 'renamed.zero.test' });
  assert.equal(saved.status, 303, saved.text);
  const after = (await call(server, sandbox, 'GET', '/config')).body;
  assert.equal(after.umaDomain, 'renamed.zero.test');
  assert.deepEqual(after.supportedCurrencies, before.supportedCurrencies);

  // Both changes are in the audit log, by whom; the refused ones are not.
  const audit = await clients.admin.get('/dashboard/audit');
  assert.equal(audit.status, 200);
  const rows = [...audit.text.matchAll(/<tr>(.*?)<\/tr>/g)].map((row) => row[1]);
  const saves = rows.filter((row) => row.includes('configuration.update'));
  assert.equal(saves.length, 1, 'one saved configuration');
  assert.match(saves[0], /admin@zero\.test/);
  assert.match(saves[0], /renamed\.zero\.test/);
  const funds = rows.filter((row) => row.includes('sandbox.fund'));
  assert.equal(funds.length, 1, 'one funding');
  assert.match(funds[0], /developer@zero\.test/);
});
