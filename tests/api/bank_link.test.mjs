// The bank-link flow: link tokens for a platform's customer, the hosted page (plain HTML, no
// external assets) where a person picks a test bank account and gets a public token, the callback
// that creates a PENDING account which turns ACTIVE with an ACCOUNT_STATUS event, and the refusals:
// unknown, expired and reused tokens, wrong public tokens, another tenant's customers.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCorridor, stopCorridor, call } from './lib/harness.mjs';
import { newCustomer, assertError, eventually, sleep } from './lib/money.mjs';
import { outboxRows, queryRows } from './lib/database.mjs';
import { expectWrongTypes } from './lib/wrong_types.mjs';

let server;
let sandbox;
let production;
let other;

before(async () => {
  server = await startCorridor({
    platforms: 2,
    config: {
      public_base_url: 'https://pay.example.test/',
      quotes: { ttl_seconds: 300, sweep_interval_ms: 50 },
      external_accounts: { screening_delay_ms: 200 },
    },
  });
  sandbox = server.platforms[0].sandbox;
  production = server.platforms[0].production;
  other = server.platforms[1].sandbox;
});
after(async () => { if (server) await stopCorridor(server); });

async function linkToken(credentials, customerId) {
  const response = await call(server, credentials, 'POST', '/bank-link/link-tokens', { customerId });
  assert.equal(response.status, 200, response.text);
  return response.body;
}

// The hosted page lives at the link's path on this server (public_base_url is only what is shown).
function pagePath(link) {
  return new URL(link.linkUrl).pathname;
}

async function getPage(link) {
  return call(server, null, 'GET', pagePath(link), undefined, { raw: true });
}

// Picks an account on the hosted page as a browser would; returns the page and its public token.
async function pick(link, choice) {
  const response = await call(server, null, 'POST', pagePath(link), `account=${encodeURIComponent(choice)}`,
    { raw: true, 'content-type': 'application/x-www-form-urlencoded' });
  const token = response.text.match(/name="publicToken" value="([^"]+)"/)?.[1];
  return { response, publicToken: token };
}

async function callback(link, body, credentials = null) {
  return call(server, credentials, 'POST', `/bank-link/callback/${link.linkToken}`, body);
}

test('a link token names its expiry, the callback URL and the hosted page', async () => {
  const customer = await newCustomer(server, sandbox);
  const before = Date.now();
  const link = await linkToken(sandbox, customer.id);
  assert.match(link.linkToken, /^link-sandbox-[0-9a-f]{64}$/);
  const expiration = Date.parse(link.expiration);
  assert.ok(expiration >= before + 4 * 3600 * 1000 - 5000 && expiration <= Date.now() + 4 * 3600 * 1000 + 5000, link.expiration);
  assert.equal(link.callbackUrl, `https://pay.example.test/2025-10-13/bank-link/callback/${link.linkToken}`);
  assert.equal(link.linkUrl, `https://pay.example.test/bank-link/${link.linkToken}`);
  const again = await linkToken(sandbox, customer.id);
  assert.notEqual(again.linkToken, link.linkToken);
  const productionCustomer = await newCustomer(server, production);
  assert.match((await linkToken(production, productionCustomer.id)).linkToken, /^link-production-/);
  // Only hashes are stored.
  const stored = queryRows(server, `SELECT COUNT(*) AS n FROM bank_link_tokens WHERE token_hash = '${link.linkToken}'`);
  assert.equal(Number(stored[0].n), 0);
});

test('link tokens are refused for bad input, unknown or foreign customers, and without MANAGE', async () => {
  const customer = await newCustomer(server, sandbox);
  assertError(await call(server, sandbox, 'POST', '/bank-link/link-tokens', {}), 400, 'INVALID_INPUT');
  assertError(await call(server, sandbox, 'POST', '/bank-link/link-tokens', { customerId: 5 }), 400, 'INVALID_INPUT');
  assertError(await call(server, sandbox, 'POST', '/bank-link/link-tokens', { customerId: 'Customer:0190d9d0-0000-7000-8000-000000000000' }), 404, 'USER_NOT_FOUND');
  assertError(await call(server, other, 'POST', '/bank-link/link-tokens', { customerId: customer.id }), 404, 'USER_NOT_FOUND');
  assertError(await call(server, production, 'POST', '/bank-link/link-tokens', { customerId: customer.id }), 404, 'USER_NOT_FOUND');
  assertError(await call(server, null, 'POST', '/bank-link/link-tokens', { customerId: customer.id }), 401, 'UNAUTHORIZED');
  const viewer = await call(server, sandbox, 'POST', '/tokens', { name: 'viewer', permissions: ['VIEW'] });
  assertError(await call(server, viewer.body, 'POST', '/bank-link/link-tokens', { customerId: customer.id }), 403, 'FORBIDDEN');
  const gone = await newCustomer(server, sandbox);
  await call(server, sandbox, 'DELETE', `/customers/${gone.id}`);
  assertError(await call(server, sandbox, 'POST', '/bank-link/link-tokens', { customerId: gone.id }), 410, 'CUSTOMER_DELETED');
});

test('the hosted page is self-contained HTML listing the test banks', async () => {
  const customer = await newCustomer(server, sandbox);
  const link = await linkToken(sandbox, customer.id);
  const page = await getPage(link);
  assert.equal(page.status, 200);
  assert.match(page.headers.get('content-type'), /^text\/html/);
  assert.equal(page.headers.get('cache-control'), 'no-store');
  assert.equal(page.headers.get('referrer-policy'), 'no-referrer');
  assert.match(page.headers.get('content-security-policy'), /default-src 'none'/);
  const html = page.text;
  assert.match(html, /^<!doctype html>/);
  assert.match(html, /<meta name="viewport" content="width=device-width,initial-scale=1">/);
  assert.match(html, /<style>/);
  assert.doesNotMatch(html, /<script|<link |<img|src=|https?:\/\//i);
  for (const bank of ['Corridor Test Bank', 'Sandbox Federal Credit Union', 'Example Savings Bank']) assert.ok(html.includes(bank), bank);
  assert.match(html, /value="corridor-test-bank:checking"/);
  assert.match(html, /Sandbox/);
  // Full account numbers never appear; only their last digits.
  assert.ok(!html.includes('1100220031'));
  assert.ok(html.includes('0031'));

  const unknown = await call(server, null, 'GET', '/bank-link/link-sandbox-' + 'a'.repeat(64), undefined, { raw: true });
  assert.equal(unknown.status, 404);
  assert.match(unknown.headers.get('content-type'), /^text\/html/);
  assert.match(unknown.text, /expired/);
  assert.equal((await call(server, null, 'GET', '/bank-link/nonsense', undefined, { raw: true })).status, 404);
});

test('pick on the page, post the public token: a PENDING account that turns ACTIVE with its event', async () => {
  const customer = await newCustomer(server, sandbox);
  const link = await linkToken(sandbox, customer.id);
  // Before any pick, no public token is valid.
  assertError(await callback(link, { publicToken: 'public-sandbox-' + 'b'.repeat(64) }), 400, 'INVALID_INPUT');
  const { response, publicToken } = await pick(link, 'sandbox-credit-union:checking');
  assert.equal(response.status, 200, response.text);
  assert.match(publicToken, /^public-sandbox-[0-9a-f]{64}$/);
  assert.ok(response.text.includes(`action="/2025-10-13/bank-link/callback/${link.linkToken}"`));

  assertError(await callback(link, {}), 400, 'INVALID_INPUT');
  assertError(await callback(link, { publicToken: 12 }), 400, 'INVALID_INPUT');
  assertError(await callback(link, { publicToken: publicToken.replace(/.$/, (c) => (c === '0' ? '1' : '0')) }), 400, 'INVALID_INPUT');
  assertError(await callback(link, { publicToken, accountId: 'no-such-account' }), 400, 'INVALID_INPUT');

  const linked = await callback(link, { publicToken });
  assert.equal(linked.status, 202, linked.text);
  const account = linked.body;
  assert.match(account.id, /^ExternalAccount:/);
  assert.equal(account.status, 'PENDING');
  assert.equal(account.customerId, customer.id);
  assert.equal(account.currency, 'USD');
  assert.equal(account.accountInfo.accountType, 'US_ACCOUNT');
  assert.equal(account.accountInfo.routingNumber, '231380104');
  assert.equal(account.accountInfo.accountNumber, '7700880011');
  assert.equal(account.accountInfo.accountCategory, 'CHECKING');
  assert.equal(account.accountInfo.bankName, 'Sandbox Federal Credit Union');
  assert.deepEqual(account.accountInfo.paymentRails, ['ACH']);
  assert.equal(account.beneficiary.fullName, customer.fullName);
  assert.equal(account.beneficiaryVerificationStatus, 'PENDING');

  const active = await eventually(async () => {
    const read = await call(server, sandbox, 'GET', `/customers/external-accounts/${account.id}`);
    return read.body.status === 'ACTIVE' ? read.body : null;
  });
  assert.equal(active.beneficiaryVerificationStatus, 'MATCHED');
  const events = outboxRows(server, 'id', "type = 'ACCOUNT_STATUS'", account.id);
  assert.equal(events.length, 1);
  const payload = JSON.parse(events[0].payload);
  assert.equal(payload.status, 'ACTIVE');
  assert.equal(payload.customerId, customer.id);
  assert.equal(payload.account.accountInfo.accountNumber, '7700880011');

  // Used up: the callback, the page and a new pick all refuse it.
  assertError(await callback(link, { publicToken }), 409, 'LINK_TOKEN_ALREADY_USED');
  assertError(await callback(link, { publicToken }, sandbox), 409, 'LINK_TOKEN_ALREADY_USED');
  assert.equal((await getPage(link)).status, 409);
  assert.equal((await pick(link, 'corridor-test-bank:checking')).response.status, 409);
  const listed = await call(server, sandbox, 'GET', `/customers/external-accounts?customerId=${customer.id}`);
  assert.equal(listed.body.totalCount, 1);
});

test('the page\'s own form posts to the callback; accountId picks another account of the login', async () => {
  const customer = await newCustomer(server, sandbox);
  const link = await linkToken(sandbox, customer.id);
  const { publicToken } = await pick(link, 'corridor-test-bank:checking');
  const form = await call(server, null, 'POST', `/bank-link/callback/${link.linkToken}`,
    `publicToken=${publicToken}&accountId=timeout`, { 'content-type': 'application/x-www-form-urlencoded' });
  assert.equal(form.status, 202, form.text);
  assert.match(form.headers.get('content-type'), /^text\/html/);
  assert.match(form.text, /Account linked/);
  const accountId = form.text.match(/ExternalAccount:[0-9a-f-]{36}/)[0];
  const read = await call(server, sandbox, 'GET', `/customers/external-accounts/${accountId}`);
  assert.equal(read.status, 200);
  assert.equal(read.body.accountInfo.accountNumber, '4400550005');
  const reused = await call(server, null, 'POST', `/bank-link/callback/${link.linkToken}`,
    `publicToken=${publicToken}`, { 'content-type': 'application/x-www-form-urlencoded' });
  assert.equal(reused.status, 409);
  assert.match(reused.text, /already been used/);

  // The same bank account again for the same customer is a duplicate, and the new token stays usable.
  const second = await linkToken(sandbox, customer.id);
  const again = await pick(second, 'corridor-test-bank:timeout');
  assertError(await callback(second, { publicToken: again.publicToken }), 409, 'EXTERNAL_ACCOUNT_EXISTS');
  const savings = await callback(second, { publicToken: again.publicToken, accountId: 'savings' });
  assert.equal(savings.status, 202, savings.text);
  assert.equal(savings.body.accountInfo.accountNumber, '1100220048');
  // A bad pick on the page is refused there.
  const third = await linkToken(sandbox, customer.id);
  assert.equal((await pick(third, 'corridor-test-bank:nope')).response.status, 400);
  assert.equal((await pick(third, 'nonsense')).response.status, 400);
});

test('unknown tokens are 404; a token belongs to its tenant whatever credentials come along', async () => {
  assertError(await call(server, null, 'POST', `/bank-link/callback/link-sandbox-${'c'.repeat(64)}`, { publicToken: 'x' }), 404, 'LINK_TOKEN_NOT_FOUND');
  assertError(await call(server, null, 'POST', '/bank-link/callback/whatever', { publicToken: 'x' }), 404, 'LINK_TOKEN_NOT_FOUND');
  const customer = await newCustomer(server, sandbox);
  const link = await linkToken(sandbox, customer.id);
  const { publicToken } = await pick(link, 'example-savings-bank:savings');
  const linked = await callback(link, { publicToken }, other);
  assert.equal(linked.status, 202, linked.text);
  assertError(await call(server, other, 'GET', `/customers/external-accounts/${linked.body.id}`), 404, 'ACCOUNT_NOT_FOUND');
  assert.equal((await call(server, sandbox, 'GET', `/customers/external-accounts/${linked.body.id}`)).status, 200);
});

test('expired link tokens are 404 on the page and the callback', async () => {
  const short = await startCorridor({ platforms: 1, config: { bank_link: { token_ttl_seconds: 1 } } });
  try {
    const credentials = short.platforms[0].sandbox;
    const customer = await newCustomer(short, credentials);
    const issued = await call(short, credentials, 'POST', '/bank-link/link-tokens', { customerId: customer.id });
    assert.equal(issued.status, 200, issued.text);
    const link = issued.body;
    const path = new URL(link.linkUrl).pathname;
    const picked = await call(short, null, 'POST', path, 'account=corridor-test-bank%3Achecking',
      { raw: true, 'content-type': 'application/x-www-form-urlencoded' });
    assert.equal(picked.status, 200, picked.text);
    const publicToken = picked.text.match(/name="publicToken" value="([^"]+)"/)[1];
    await sleep(Date.parse(link.expiration) - Date.now() + 100);
    assertError(await call(short, null, 'POST', `/bank-link/callback/${link.linkToken}`, { publicToken }), 404, 'LINK_TOKEN_NOT_FOUND');
    assert.equal((await call(short, null, 'GET', path, undefined, { raw: true })).status, 404);
    const listed = await call(short, credentials, 'GET', `/customers/external-accounts?customerId=${customer.id}`);
    assert.equal(listed.body.totalCount, 0);
  } finally {
    await stopCorridor(short);
  }
});

// --- the sandbox's stand-in for the page ---------------------------------------------------

const sandboxPublicToken = (body, credentials = sandbox) =>
  call(server, credentials, 'POST', '/sandbox/bank-link/public-token', body);

test('the sandbox gives a public token without a browser, and the callback links with it', async () => {
  const customer = await newCustomer(server, sandbox);
  const link = await linkToken(sandbox, customer.id);
  // Defaults: the first test bank's checking account.
  const issued = await sandboxPublicToken({ linkToken: link.linkToken });
  assert.equal(issued.status, 200, issued.text);
  assert.deepEqual(Object.keys(issued.body).sort(), ['accountId', 'bankId', 'callbackUrl', 'publicToken']);
  assert.equal(issued.body.bankId, 'corridor-test-bank');
  assert.equal(issued.body.accountId, 'checking');
  assert.equal(issued.body.callbackUrl, link.callbackUrl);
  assert.match(issued.body.publicToken, /^\S{20,}$/);

  const linked = await callback(link, { publicToken: issued.body.publicToken });
  assert.equal(linked.status, 202, linked.text);
  assert.equal(linked.body.status, 'PENDING');
  assert.equal(linked.body.customerId, customer.id);
  assert.equal(linked.body.accountInfo.accountNumber, '1100220031');
  assert.equal(linked.body.accountInfo.bankName, 'Corridor Test Bank');
  // The link is used up: no second token for it.
  assertError(await sandboxPublicToken({ linkToken: link.linkToken }), 409, 'LINK_TOKEN_ALREADY_USED');
});

test('the sandbox public token names the account asked for; a later one replaces the earlier', async () => {
  const customer = await newCustomer(server, sandbox);
  const link = await linkToken(sandbox, customer.id);
  const first = await sandboxPublicToken({ linkToken: link.linkToken });
  const second = await sandboxPublicToken({ linkToken: link.linkToken, bankId: 'sandbox-credit-union', accountId: 'savings' });
  assert.equal(second.status, 200, second.text);
  assert.notEqual(second.body.publicToken, first.body.publicToken);
  assert.equal((await callback(link, { publicToken: first.body.publicToken })).status, 400, 'the earlier token was replaced');
  const linked = await callback(link, { publicToken: second.body.publicToken });
  assert.equal(linked.status, 202, linked.text);
  assert.equal(linked.body.accountInfo.accountNumber, '7700880029');
});

test('the sandbox public token is refused for bad input, other tenants\' links and production', async () => {
  const customer = await newCustomer(server, sandbox);
  const link = await linkToken(sandbox, customer.id);
  assertError(await sandboxPublicToken({}), 400, 'INVALID_INPUT');
  assertError(await sandboxPublicToken({ linkToken: 42 }), 400, 'INVALID_INPUT');
  assertError(await sandboxPublicToken({ linkToken: link.linkToken, bankId: 'no-bank' }), 400, 'INVALID_INPUT');
  assertError(await sandboxPublicToken({ linkToken: link.linkToken, accountId: 'no-account' }), 400, 'INVALID_INPUT');
  assertError(await sandboxPublicToken({ linkToken: 'not-a-token' }), 404, 'LINK_TOKEN_NOT_FOUND');
  // Another platform's link reads as unknown, and so does a production link.
  assertError(await sandboxPublicToken({ linkToken: link.linkToken }, other), 404, 'LINK_TOKEN_NOT_FOUND');
  const live = await newCustomer(server, production);
  const liveLink = await linkToken(production, live.id);
  assertError(await sandboxPublicToken({ linkToken: liveLink.linkToken }), 404, 'LINK_TOKEN_NOT_FOUND');
  // Production credentials: a sandbox route, as every sandbox operation.
  const refused = await sandboxPublicToken({ linkToken: liveLink.linkToken }, production);
  assert.equal(refused.status, 403, refused.text);
  // Nothing was issued for the production link: its page still offers the banks.
  assert.equal((await getPage(liveLink)).status, 200);
});

// The JSON bodies of the three bank-link routes: every defined field type-checked, even the
// optional ones a request leaves to their defaults; a refused request issues and links nothing.
test('bank-link bodies: a defined field of the wrong type is 400 naming it, nothing is issued or linked', async () => {
  const customer = await newCustomer(server, sandbox);
  await expectWrongTypes((body) => call(server, sandbox, 'POST', '/bank-link/link-tokens', body), { customerId: customer.id },
    [['customerId', 5], ['customerId', [customer.id]], ['customerId', { id: customer.id }]]);
  const link = await linkToken(sandbox, customer.id);
  await expectWrongTypes(sandboxPublicToken, { linkToken: link.linkToken, bankId: 'corridor-test-bank', accountId: 'checking' },
    [['linkToken', 1], ['linkToken', [link.linkToken]], ['bankId', 2], ['bankId', {}], ['accountId', 3], ['accountId', true]]);
  const issued = await sandboxPublicToken({ linkToken: link.linkToken, somethingElse: 1 });
  assert.equal(issued.status, 200, issued.text);
  await expectWrongTypes((body) => callback(link, body), { publicToken: issued.body.publicToken, accountId: 'checking' },
    [['publicToken', 1], ['publicToken', [issued.body.publicToken]], ['accountId', 7], ['accountId', false]]);
  // Still unused after the refusals: the callback links with the same token.
  const linked = await callback(link, { publicToken: issued.body.publicToken, somethingElse: 1 });
  assert.equal(linked.status, 202, linked.text);
});
