// Hosted KYC: the link (input checks, single use, expiry), the page (plain HTML, no external assets,
// form validation), the sandbox review and its KYC_STATUS events, the gate that keeps customers
// of unregulated platforms from moving money until approved, and the link that onboards someone who
// is not a customer yet (created once, however many completions race).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCorridor, stopCorridor, call } from './lib/harness.mjs';
import { expectError, expectStatus } from './lib/expect.mjs';
import { newCustomer, accountsOf, fund, quoteBody, idempotencyKey, eventually } from './lib/money.mjs';
import { outboxEvents, queryRows, runStatement } from './lib/database.mjs';

let server;
let unregulated;  // platform 0, sandbox
let regulated;    // platform 1, sandbox
const publicBase = 'https://pay.example.test';

before(async () => {
  server = await startCorridor({
    platforms: 2,
    regulated: [false, true],
    config: { public_base_url: publicBase, kyc: { link_ttl_seconds: 600, sandbox_review_delay_ms: 300 } },
  });
  unregulated = server.platforms[0].sandbox;
  regulated = server.platforms[1].sandbox;
});
after(async () => { if (server) await stopCorridor(server); });

async function kycLink(platformCustomerId, redirectUri, credentials = unregulated) {
  const query = new URLSearchParams({ platformCustomerId });
  if (redirectUri) query.set('redirectUri', redirectUri);
  return call(server, credentials, 'GET', `/customers/kyc-link?${query}`);
}

// The page is served at the link's path on this test server (public_base_url names another host).
function pageUrl(kycUrl) {
  assert.ok(kycUrl.startsWith(`${publicBase}/kyc/`), kycUrl);
  return `${server.baseUrl}${new URL(kycUrl).pathname}`;
}

const completeForm = (fullName = 'Maria Silva') => new URLSearchParams({
  fullName, birthDate: '1990-04-12', nationality: 'BR', line1: 'Rua A, 10', city: 'São Paulo',
  state: 'SP', postalCode: '01000-000', country: 'BR',
});

function submit(url, form) {
  return fetch(url, {
    method: 'POST', redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString(),
  });
}

async function status(customerId, credentials = unregulated) {
  return expectStatus(await call(server, credentials, 'GET', `/customers/${encodeURIComponent(customerId)}`), 200).kycStatus;
}

test('the link names the customer and is refused for bad input, unknown and approved customers', async () => {
  const customer = await newCustomer(server, unregulated);
  const response = expectStatus(await kycLink(customer.platformCustomerId, 'https://platform.example/done?x=1'), 200);
  assert.deepEqual(Object.keys(response).sort(), ['customerId', 'kycUrl', 'platformCustomerId']);
  assert.equal(response.customerId, customer.id);
  assert.equal(response.platformCustomerId, customer.platformCustomerId);
  assert.match(response.kycUrl, /^https:\/\/pay\.example\.test\/kyc\/[A-Za-z0-9_-]{43}$/);
  const second = expectStatus(await kycLink(customer.platformCustomerId), 200);
  assert.notEqual(second.kycUrl, response.kycUrl, 'each call issues a new link');

  expectError(await call(server, unregulated, 'GET', '/customers/kyc-link'), 400, 'INVALID_INPUT', 'platformCustomerId');
  expectError(await kycLink(customer.platformCustomerId, 'javascript:alert(1)'), 400, 'INVALID_INPUT', 'redirectUri');
  expectError(await kycLink(customer.platformCustomerId, '/relative'), 400, 'INVALID_INPUT', 'redirectUri');
  expectError(await kycLink('x'.repeat(257)), 400, 'INVALID_INPUT', 'platformCustomerId');
  // Someone who is not a customer gets a link that onboards them (no customerId yet); another
  // platform's customer is someone new to this one.
  const fresh = expectStatus(await kycLink('no-such-customer'), 200);
  assert.deepEqual(Object.keys(fresh).sort(), ['kycUrl', 'platformCustomerId']);
  assert.equal(fresh.platformCustomerId, 'no-such-customer');
  assert.deepEqual(Object.keys(expectStatus(await kycLink(customer.platformCustomerId, undefined, regulated), 200)).sort(),
    ['kycUrl', 'platformCustomerId']);
  // A regulated platform's customers start APPROVED: there is nothing to verify.
  const approved = await newCustomer(server, regulated);
  assert.equal(approved.kycStatus, 'APPROVED');
  expectError(await kycLink(approved.platformCustomerId, undefined, regulated), 409, 'CONFLICT');
});

test('the page is plain HTML for a phone with no external assets; a bad form is shown again', async () => {
  const customer = await newCustomer(server, unregulated);
  const link = expectStatus(await kycLink(customer.platformCustomerId), 200);
  const page = await fetch(pageUrl(link.kycUrl));
  assert.equal(page.status, 200);
  assert.match(page.headers.get('content-type'), /^text\/html; charset=utf-8/);
  assert.match(page.headers.get('content-security-policy'), /default-src 'none'/);
  assert.equal(page.headers.get('referrer-policy'), 'no-referrer');
  const html = await page.text();
  assert.match(html, /<meta name="viewport" content="width=device-width, initial-scale=1">/);
  assert.doesNotMatch(html, /<script|<link|<img|src=|https?:\/\//i, 'no scripts and nothing loaded from elsewhere');
  for (const field of ['fullName', 'birthDate', 'nationality', 'line1', 'city', 'postalCode', 'country']) {
    assert.match(html, new RegExp(`name="${field}"`), field);
  }
  assert.match(html, new RegExp(`value="Customer ${customer.platformCustomerId}"`), 'prefilled from the customer');

  const incomplete = completeForm();
  incomplete.delete('birthDate');
  const refused = await submit(pageUrl(link.kycUrl), incomplete);
  assert.equal(refused.status, 400);
  assert.match(await refused.text(), /birthDate: is required/);
  const badDate = completeForm();
  badDate.set('birthDate', '2999-01-01');
  assert.equal((await submit(pageUrl(link.kycUrl), badDate)).status, 400);
  const escaped = completeForm('<b>x</b>');
  escaped.set('country', 'ZZZ');
  const shown = await (await submit(pageUrl(link.kycUrl), escaped)).text();
  assert.ok(shown.includes('&lt;b&gt;x&lt;/b&gt;') && !shown.includes('<b>x</b>'), 'values are escaped');
  assert.equal(await status(customer.id), 'PENDING_REVIEW');
  // A refused form did not use the link up.
  assert.equal((await fetch(pageUrl(link.kycUrl))).status, 200);
});

test('submitting redirects, the sandbox approves, KYC_STATUS is recorded, and the link is used up', async () => {
  const customer = await newCustomer(server, unregulated);
  const link = expectStatus(await kycLink(customer.platformCustomerId, 'https://platform.example/kyc-done?state=abc'), 200);
  const url = pageUrl(link.kycUrl);
  const submitted = await submit(url, completeForm());
  assert.equal(submitted.status, 303);
  assert.equal(submitted.headers.get('location'), 'https://platform.example/kyc-done?state=abc');
  const stored = expectStatus(await call(server, unregulated, 'GET', `/customers/${encodeURIComponent(customer.id)}`), 200);
  assert.equal(stored.kycStatus, 'PENDING_REVIEW');
  assert.equal(stored.fullName, 'Maria Silva');
  assert.equal(stored.nationality, 'BR');
  assert.deepEqual(stored.address, { line1: 'Rua A, 10', city: 'São Paulo', state: 'SP', postalCode: '01000-000', country: 'BR' });

  const reused = await fetch(url);
  assert.equal(reused.status, 410);
  assert.match(await reused.text(), /already been used/);
  assert.equal((await submit(url, completeForm())).status, 410);

  await eventually(async () => (await status(customer.id)) === 'APPROVED');
  const events = outboxEvents(server, 'KYC_STATUS').filter((event) => event.customerId === customer.id);
  assert.deepEqual(events, [{ customerId: customer.id, platformCustomerId: customer.platformCustomerId, kycStatus: 'APPROVED' }]);
});

test('the documented sandbox input leads to REJECTED; no event for PENDING_REVIEW', async () => {
  const customer = await newCustomer(server, unregulated);
  const link = expectStatus(await kycLink(customer.platformCustomerId), 200);
  const submitted = await submit(pageUrl(link.kycUrl), completeForm('Rita Reject'));
  assert.equal(submitted.status, 200, 'without a redirectUri the page thanks the customer');
  assert.match(await submitted.text(), /submitted for review/);
  await eventually(async () => (await status(customer.id)) === 'REJECTED');
  const events = outboxEvents(server, 'KYC_STATUS').filter((event) => event.customerId === customer.id);
  assert.deepEqual(events.map((event) => event.kycStatus), ['REJECTED']);
});

test('an unknown or expired link shows a page, not the form', async () => {
  assert.equal((await fetch(`${server.baseUrl}/kyc/not-a-token`)).status, 404);
  const short = await startCorridor({ platforms: 1, regulated: [false], config: { kyc: { link_ttl_seconds: 1 } } });
  try {
    const credentials = short.platforms[0].sandbox;
    const customer = await newCustomer(short, credentials);
    const link = expectStatus(await call(short, credentials, 'GET', `/customers/kyc-link?platformCustomerId=${customer.platformCustomerId}`), 200);
    const url = `${short.baseUrl}${new URL(link.kycUrl).pathname}`;
    assert.equal((await fetch(url)).status, 200);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const expired = await fetch(url);
    assert.equal(expired.status, 410);
    assert.match(await expired.text(), /expired/);
    assert.equal((await submit(url, completeForm())).status, 410);
    assert.equal((await call(short, credentials, 'GET', `/customers/${encodeURIComponent(customer.id)}`)).body.kycStatus, 'PENDING_REVIEW');
  } finally {
    await stopCorridor(short);
  }
});

test('gating: a customer not yet approved cannot quote, quote from realtime funding, or execute', async () => {
  const sender = await newCustomer(server, unregulated);
  const receiver = await newCustomer(server, unregulated);
  const source = (await accountsOf(server, unregulated, sender.id)).USD;
  const destination = (await accountsOf(server, unregulated, receiver.id)).EUR;
  await fund(server, unregulated, source.id, 100000);
  const quote = (extra) => call(server, unregulated, 'POST', '/quotes', quoteBody(source.id, destination.id, 1000, 'SENDING', extra), { 'idempotency-key': idempotencyKey() });

  expectError(await quote(), 403, 'USER_NOT_READY');
  expectError(await quote({ immediatelyExecute: true }), 403, 'USER_NOT_READY');
  const realtime = await call(server, unregulated, 'POST', '/quotes', {
    source: { sourceType: 'REALTIME_FUNDING', currency: 'USD', customerId: sender.id },
    destination: { destinationType: 'ACCOUNT', accountId: destination.id },
    lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 1000,
  });
  expectError(realtime, 403, 'USER_NOT_READY');
  // Receiving is not gated: an unapproved customer can be paid.
  const platformUsd = expectStatus(await call(server, unregulated, 'GET', '/platform/internal-accounts'), 200).data
    .find((account) => account.balance.currency.code === 'USD');
  await fund(server, unregulated, platformUsd.id, 100000);
  expectStatus(await call(server, unregulated, 'POST', '/quotes', quoteBody(platformUsd.id, destination.id, 1000)), 201);

  // Approved through the hosted flow, the sender can move money.
  const link = expectStatus(await kycLink(sender.platformCustomerId), 200);
  assert.equal((await submit(pageUrl(link.kycUrl), completeForm('Sam Sender'))).status, 200);
  expectError(await quote(), 403, 'USER_NOT_READY');  // PENDING_REVIEW still blocks
  await eventually(async () => (await status(sender.id)) === 'APPROVED');
  const created = expectStatus(await quote(), 201);

  // A quote made while approved cannot be executed once the status no longer allows it.
  runStatement(server, `UPDATE customers SET kyc_status = 'MANUALLY_REJECTED' WHERE id = '${sender.id}'`);
  expectError(await call(server, unregulated, 'POST', `/quotes/${encodeURIComponent(created.id)}/execute`, undefined, { 'idempotency-key': idempotencyKey() }), 403, 'USER_NOT_READY');
  runStatement(server, `UPDATE customers SET kyc_status = 'MANUALLY_APPROVED' WHERE id = '${sender.id}'`);
  expectStatus(await call(server, unregulated, 'POST', `/quotes/${encodeURIComponent(created.id)}/execute`, undefined, { 'idempotency-key': idempotencyKey() }), 200);
});

// --- someone who is not a customer yet ------------------------------------------------------

let newPeople = 0;
const newPersonId = () => `new-person-${process.pid}-${++newPeople}`;
const individualForm = (fullName = 'Nadia Novak') => new URLSearchParams({ customerType: 'INDIVIDUAL', ...Object.fromEntries(completeForm(fullName)) });
const businessForm = (legalName = 'Novak Trading Ltd') => new URLSearchParams({
  customerType: 'BUSINESS', legalName, registrationNumber: 'REG-778', taxId: '12-3456789',
  line1: '1 Market St', city: 'Springfield', state: 'IL', postalCode: '62701', country: 'US',
});

async function customersWith(platformCustomerId, credentials) {
  return expectStatus(await call(server, credentials, 'GET', `/customers?platformCustomerId=${encodeURIComponent(platformCustomerId)}`), 200).data;
}

test('a link for someone new: the hosted form creates the customer, its accounts and its review, once', async () => {
  // Production: the review waits for a manual decision, so PENDING_REVIEW stays what it is.
  const production = server.platforms[0].production;
  const id = newPersonId();
  const link = expectStatus(await kycLink(id, 'https://platform.example/welcome', production), 200);
  assert.deepEqual(Object.keys(link).sort(), ['kycUrl', 'platformCustomerId']);
  const url = pageUrl(link.kycUrl);

  // The page asks a person by default and links to the business form; no scripts needed.
  const page = await (await fetch(url)).text();
  assert.match(page, /name="customerType" value="INDIVIDUAL"/);
  assert.match(page, /href="\?type=BUSINESS"/);
  assert.match(page, /name="fullName"/);
  assert.doesNotMatch(page, /<script/i);
  const businessPage = await (await fetch(`${url}?type=BUSINESS`)).text();
  assert.match(businessPage, /name="customerType" value="BUSINESS"/);
  assert.match(businessPage, /name="legalName"/);

  // A bad form creates nothing and leaves the link usable.
  const untyped = individualForm();
  untyped.delete('customerType');
  assert.equal((await submit(url, untyped)).status, 400);
  const incomplete = individualForm();
  incomplete.delete('nationality');
  const refused = await submit(url, incomplete);
  assert.equal(refused.status, 400);
  assert.match(await refused.text(), /nationality: is required/);
  assert.deepEqual(await customersWith(id, production), []);

  const done = await submit(url, individualForm());
  assert.equal(done.status, 303);
  assert.equal(done.headers.get('location'), 'https://platform.example/welcome');
  const [created, ...others] = await customersWith(id, production);
  assert.deepEqual(others, []);
  assert.equal(created.platformCustomerId, id);
  assert.equal(created.customerType, 'INDIVIDUAL');
  assert.equal(created.kycStatus, 'PENDING_REVIEW');
  assert.equal(created.fullName, 'Nadia Novak');
  assert.equal(created.address.country, 'BR');
  // Its internal accounts: one per currency of the platform, as for POST /customers.
  const config = expectStatus(await call(server, production, 'GET', '/config'), 200);
  const accounts = await accountsOf(server, production, created.id);
  assert.deepEqual(Object.keys(accounts).sort(), config.supportedCurrencies.map((item) => item.currencyCode).sort());
  const reviews = queryRows(server, `SELECT customer_id, subject_name FROM kyc_reviews WHERE customer_id = '${created.id}'`);
  assert.deepEqual(reviews, [{ customer_id: created.id, subject_name: 'Nadia Novak' }]);

  // The link cannot create twice; a new link for the id now verifies the existing customer.
  assert.equal((await submit(url, individualForm('Other Person'))).status, 410);
  assert.equal((await fetch(url)).status, 410);
  assert.equal((await customersWith(id, production)).length, 1);
  assert.equal(expectStatus(await kycLink(id, undefined, production), 200).customerId, created.id);
});

test('a business onboarded by the hosted form is reviewed in the sandbox and its KYC_STATUS recorded', async () => {
  const id = newPersonId();
  const link = expectStatus(await kycLink(id), 200);
  const done = await submit(pageUrl(link.kycUrl), businessForm());
  assert.equal(done.status, 200);
  const [created] = await customersWith(id, unregulated);
  assert.equal(created.customerType, 'BUSINESS');
  assert.deepEqual(created.businessInfo, { legalName: 'Novak Trading Ltd', registrationNumber: 'REG-778', taxId: '12-3456789' });
  await eventually(async () => (await status(created.id)) === 'APPROVED');
  const events = outboxEvents(server, 'KYC_STATUS').filter((event) => event.customerId === created.id);
  assert.deepEqual(events, [{ customerId: created.id, platformCustomerId: id, kycStatus: 'APPROVED' }]);
});

test('racing completions create one customer: of one link, and of two links for one person', async () => {
  const production = server.platforms[0].production;
  const id = newPersonId();
  const url = pageUrl(expectStatus(await kycLink(id, undefined, production), 200).kycUrl);
  const statuses = (await Promise.all(Array.from({ length: 8 }, (_, i) => submit(url, individualForm(`Racer ${i}`)))))
    .map((response) => response.status);
  assert.equal(statuses.filter((code) => code === 200).length, 1, String(statuses));
  assert.ok(statuses.every((code) => code === 200 || code === 410), String(statuses));
  assert.equal((await customersWith(id, production)).length, 1);

  const other = newPersonId();
  const urls = await Promise.all([1, 2, 3].map(async () => pageUrl(expectStatus(await kycLink(other, undefined, production), 200).kycUrl)));
  const outcomes = (await Promise.all(urls.map((each, i) => submit(each, individualForm(`Twin ${i}`)))))
    .map((response) => response.status);
  assert.equal(outcomes.filter((code) => code === 200).length, 1, String(outcomes));
  assert.ok(outcomes.every((code) => code === 200 || code === 409), String(outcomes));
  assert.equal((await customersWith(other, production)).length, 1);
});
