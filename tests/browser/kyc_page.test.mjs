// The hosted KYC page in a real browser at phone size: a person opens the link, fills the form,
// submits, and lands on the platform's redirect; the sandbox review then approves the customer.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { stopCorridor, call } from '../api/lib/harness.mjs';
import { launchBrowser, screenshot, startPagesServer, assertScreenshots } from './lib/browser.mjs';

const suite = 'kyc_page';
let server;
let credentials;
let browser;
let platformSite;  // the platform's own page that the customer is sent back to
let platformUrl;

before(async () => {
  server = await startPagesServer({ regulated: [false], config: { kyc: { sandbox_review_delay_ms: 200 } } });
  credentials = server.credentials;
  platformSite = createServer((request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(`<!doctype html><title>Back at the platform</title><h1>Welcome back</h1><p id="query">${new URL(request.url, 'http://x').search}</p>`);
  });
  await new Promise((resolve) => platformSite.listen(0, '127.0.0.1', resolve));
  platformUrl = `http://127.0.0.1:${platformSite.address().port}`;
  browser = await launchBrowser();
});

after(async () => {
  if (browser) await browser.close();
  if (platformSite) platformSite.close();
  if (server) await stopCorridor(server);
});

async function newCustomer(platformCustomerId) {
  const response = await call(server, credentials, 'POST', '/customers', { customerType: 'INDIVIDUAL', platformCustomerId });
  assert.equal(response.status, 201, response.text);
  return response.body;
}

async function kycStatus(customerId) {
  const response = await call(server, credentials, 'GET', `/customers/${encodeURIComponent(customerId)}`);
  assert.equal(response.status, 200, response.text);
  return response.body;
}

test('a person fills the KYC page on a phone, lands on the redirect, and is approved', async () => {
  const customer = await newCustomer(`browser-${process.pid}`);
  const redirectUri = `${platformUrl}/onboarding/done?session=42`;
  const link = await call(server, credentials, 'GET', `/customers/kyc-link?platformCustomerId=${encodeURIComponent(customer.platformCustomerId)}&redirectUri=${encodeURIComponent(redirectUri)}`);
  assert.equal(link.status, 200, link.text);

  const page = await browser.context.newPage();
  const requests = [];
  page.on('request', (request) => requests.push(request.url()));
  await page.goto(link.body.kycUrl);
  assert.equal(await page.title(), 'Verify your identity');
  // Laid out for the phone: nothing wider than the screen.
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `page is ${overflow}px wider than the phone`);
  await screenshot(page, suite, '1-opened');

  // Submitting with a required field empty is stopped by the form itself.
  await page.getByLabel('Full legal name').fill('');
  await page.getByRole('button', { name: 'Submit for review' }).tap();
  assert.equal(page.url(), link.body.kycUrl, 'still on the form');

  await page.getByLabel('Full legal name').fill('Ana Pereira');
  await page.getByLabel('Date of birth').fill('1992-07-15');
  await page.getByLabel(/Nationality/).fill('BR');
  await page.getByLabel('Address', { exact: true }).fill('Avenida Paulista, 1000');
  await page.getByLabel('City').fill('São Paulo');
  await page.getByLabel('State or region').fill('SP');
  await page.getByLabel('Postal code').fill('01310-100');
  await page.getByLabel(/Country of residence/).fill('BR');
  await screenshot(page, suite, '2-filled');
  await Promise.all([
    page.waitForURL(`${platformUrl}/onboarding/done?session=42`),
    page.getByRole('button', { name: 'Submit for review' }).tap(),
  ]);
  assert.equal(await page.locator('h1').textContent(), 'Welcome back');
  await screenshot(page, suite, '3-redirected');

  // The page loaded nothing but itself (and then the redirect target).
  const kycOrigin = new URL(link.body.kycUrl).origin;
  for (const url of requests) {
    assert.ok(url.startsWith(kycOrigin) || url.startsWith(platformUrl), `unexpected request ${url}`);
  }

  const submitted = await kycStatus(customer.id);
  assert.equal(submitted.fullName, 'Ana Pereira');
  assert.equal(submitted.address.city, 'São Paulo');
  for (let waited = 0; (await kycStatus(customer.id)).kycStatus !== 'APPROVED'; waited += 50) {
    assert.ok(waited < 10000, 'the sandbox review did not approve');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }

  // The link is spent: opening it again shows that, not the form.
  const again = await page.goto(link.body.kycUrl);
  assert.equal(again.status(), 410);
  assert.equal(await page.locator('h1').textContent(), 'Link already used');
  await screenshot(page, suite, '4-link-used');
  assertScreenshots(suite, ['1-opened', '2-filled', '3-redirected', '4-link-used']);
  await page.close();
});

test('someone new picks the business form, completes it, and becomes a customer in review', async () => {
  const platformCustomerId = `browser-new-${process.pid}`;
  const redirectUri = `${platformUrl}/onboarding/welcome`;
  const link = await call(server, credentials, 'GET', `/customers/kyc-link?platformCustomerId=${encodeURIComponent(platformCustomerId)}&redirectUri=${encodeURIComponent(redirectUri)}`);
  assert.equal(link.status, 200, link.text);
  assert.equal(link.body.customerId, undefined, 'no customer yet');

  const page = await browser.context.newPage();
  await page.goto(link.body.kycUrl);
  assert.equal(await page.title(), 'Verify your identity');
  // The person's form comes first; the link switches to the business form without scripts.
  assert.equal(await page.getByLabel('Full legal name').count(), 1);
  await Promise.all([
    page.waitForURL(`${link.body.kycUrl}?type=BUSINESS`),
    page.getByRole('link', { name: /business form/ }).tap(),
  ]);
  await screenshot(page, suite, '5-new-business');
  await page.getByLabel('Legal name of the business').fill('Pereira Importadora Ltda');
  await page.getByLabel('Registration number').fill('12.345.678/0001-90');
  await page.getByLabel('Address', { exact: true }).fill('Rua Augusta, 500');
  await page.getByLabel('City').fill('São Paulo');
  await page.getByLabel('Postal code').fill('01305-000');
  await page.getByLabel(/Country of residence/).fill('BR');
  await Promise.all([
    page.waitForURL(redirectUri),
    page.getByRole('button', { name: 'Submit for review' }).tap(),
  ]);
  assert.equal(await page.locator('h1').textContent(), 'Welcome back');

  const listed = await call(server, credentials, 'GET', `/customers?platformCustomerId=${encodeURIComponent(platformCustomerId)}`);
  assert.equal(listed.status, 200, listed.text);
  assert.equal(listed.body.data.length, 1);
  const [created] = listed.body.data;
  assert.equal(created.customerType, 'BUSINESS');
  assert.equal(created.businessInfo.legalName, 'Pereira Importadora Ltda');
  assert.ok(['PENDING_REVIEW', 'APPROVED'].includes(created.kycStatus), created.kycStatus);
  for (let waited = 0; (await kycStatus(created.id)).kycStatus !== 'APPROVED'; waited += 50) {
    assert.ok(waited < 10000, 'the sandbox review did not approve');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const again = await page.goto(link.body.kycUrl);
  assert.equal(again.status(), 410);
  assertScreenshots(suite, ['5-new-business']);
  await page.close();
});
