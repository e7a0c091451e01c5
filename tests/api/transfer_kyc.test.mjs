// KYC gating of POST /transfer-out and POST /transfer-in: a customer of an unregulated platform
// moves no money through a rail, in either direction, until the review approves it (403
// USER_NOT_READY, nothing written); a rejected customer stays refused; the platform's own accounts
// and regulated platforms' customers are not gated.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCorridor, stopCorridor, call } from './lib/harness.mjs';
import { expectError, expectStatus } from './lib/expect.mjs';
import { newCustomer, accountsOf, balanceOf, fund, eventually } from './lib/money.mjs';

let server;
let unregulated;  // platform 0, sandbox
let regulated;    // platform 1, sandbox

before(async () => {
  server = await startCorridor({
    platforms: 2,
    regulated: [false, true],
    config: {
      external_accounts: { screening_delay_ms: 100 },
      kyc: { sandbox_review_delay_ms: 100 },
      rails: { drive_interval_ms: 20 },
    },
  });
  unregulated = server.platforms[0].sandbox;
  regulated = server.platforms[1].sandbox;
});
after(async () => { if (server) await stopCorridor(server); });

const beneficiary = { beneficiaryType: 'INDIVIDUAL', fullName: 'Kim Lee', birthDate: '1990-04-01', nationality: 'US' };

async function activeUsAccount(credentials, customerId, accountNumber) {
  const response = await call(server, credentials, 'POST', '/customers/external-accounts', {
    customerId, currency: 'USD',
    accountInfo: { accountType: 'US_ACCOUNT', accountNumber, routingNumber: '021000021', accountCategory: 'CHECKING', beneficiary },
  });
  assert.equal(response.status, 201, response.text);
  return eventually(async () => {
    const found = await call(server, credentials, 'GET', `/customers/external-accounts/${response.body.id}`);
    return found.body?.status === 'ACTIVE' ? found.body : null;
  });
}

// A customer with a funded USD account and an ACTIVE external account of its own.
async function customerWithMoney(credentials) {
  const customer = await newCustomer(server, credentials);
  const usd = (await accountsOf(server, credentials, customer.id)).USD;
  await fund(server, credentials, usd.id, 50000);  // receiving money is not gated
  const external = await activeUsAccount(credentials, customer.id, `77${Date.now() % 1000000}1`);
  return { customer, usd, external };
}

const outBody = (usd, external, amount = 1000) => ({ source: { accountId: usd.id }, destination: { accountId: external.id }, amount });
const inBody = (usd, external, amount = 1000) => ({ source: { accountId: external.id }, destination: { accountId: usd.id }, amount });

// Submits the hosted KYC form; the sandbox review decides by the name.
async function review(customer, fullName) {
  const link = expectStatus(await call(server, unregulated, 'GET',
    `/customers/kyc-link?platformCustomerId=${encodeURIComponent(customer.platformCustomerId)}`), 200);
  const form = new URLSearchParams({
    fullName, birthDate: '1990-04-12', nationality: 'US', line1: '1 Main St', city: 'Austin',
    state: 'TX', postalCode: '78701', country: 'US',
  });
  const page = await fetch(`${server.baseUrl}${new URL(link.kycUrl).pathname}`, {
    method: 'POST', redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString(),
  });
  assert.ok(page.status < 400, `KYC form answered ${page.status}`);
  return eventually(async () => {
    const found = await call(server, unregulated, 'GET', `/customers/${customer.id}`);
    return found.body.kycStatus !== 'PENDING_REVIEW' ? found.body.kycStatus : null;
  });
}

async function transactionCount(credentials) {
  return expectStatus(await call(server, credentials, 'GET', '/transactions?limit=1'), 200).totalCount;
}

test('a customer pending review can neither transfer out nor pull in, and nothing is written', async () => {
  const { customer, usd, external } = await customerWithMoney(unregulated);
  assert.equal(customer.kycStatus, 'PENDING_REVIEW');
  const before = await balanceOf(server, unregulated, usd);
  const count = await transactionCount(unregulated);
  const out = await call(server, unregulated, 'POST', '/transfer-out', outBody(usd, external));
  expectError(out, 403, 'USER_NOT_READY');
  assert.match(out.body.message, /KYC/);
  expectError(await call(server, unregulated, 'POST', '/transfer-in', inBody(usd, external)), 403, 'USER_NOT_READY');
  assert.equal(await balanceOf(server, unregulated, usd), before);
  assert.equal(await transactionCount(unregulated), count);

  // Once approved, the same requests go through.
  assert.equal(await review(customer, 'Kim Lee'), 'APPROVED');
  const sent = await call(server, unregulated, 'POST', '/transfer-out', outBody(usd, external));
  assert.equal(sent.status, 201, sent.text);
  const pulled = await call(server, unregulated, 'POST', '/transfer-in', inBody(usd, external));
  assert.equal(pulled.status, 201, pulled.text);
});

test('a rejected customer stays refused; the platform itself and regulated customers are not gated', async () => {
  const { customer, usd, external } = await customerWithMoney(unregulated);
  assert.equal(await review(customer, 'Rita Reject'), 'REJECTED');
  expectError(await call(server, unregulated, 'POST', '/transfer-out', outBody(usd, external)), 403, 'USER_NOT_READY');
  expectError(await call(server, unregulated, 'POST', '/transfer-in', inBody(usd, external)), 403, 'USER_NOT_READY');

  const platformUsd = (await call(server, unregulated, 'GET', '/platform/internal-accounts')).body.data
    .find((account) => account.balance.currency.code === 'USD');
  await fund(server, unregulated, platformUsd.id, 10000);
  const platformExternal = await call(server, unregulated, 'POST', '/platform/external-accounts', {
    currency: 'USD',
    accountInfo: { accountType: 'US_ACCOUNT', accountNumber: '8877665544', routingNumber: '021000021', accountCategory: 'CHECKING', beneficiary },
  });
  assert.equal(platformExternal.status, 201, platformExternal.text);
  const active = await eventually(async () => {
    const found = await call(server, unregulated, 'GET', `/platform/external-accounts/${platformExternal.body.id}`);
    return found.body?.status === 'ACTIVE' ? found.body : null;
  });
  const platformSent = await call(server, unregulated, 'POST', '/transfer-out', outBody(platformUsd, active));
  assert.equal(platformSent.status, 201, platformSent.text);

  const approved = await customerWithMoney(regulated);
  assert.equal(approved.customer.kycStatus, 'APPROVED');
  const sent = await call(server, regulated, 'POST', '/transfer-out', outBody(approved.usd, approved.external));
  assert.equal(sent.status, 201, sent.text);
});
