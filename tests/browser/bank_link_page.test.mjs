// The hosted bank-link page in a real browser at phone size: a person picks a bank account, confirms
// it, sees the account linked, and the external account turns ACTIVE after screening.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { stopCorridor, call } from '../api/lib/harness.mjs';
import { launchBrowser, screenshot, startPagesServer, assertScreenshots } from './lib/browser.mjs';

const suite = 'bank_link_page';
let server;
let credentials;
let browser;

before(async () => {
  server = await startPagesServer({
    config: { external_accounts: { screening_delay_ms: 200 }, quotes: { sweep_interval_ms: 100 } },
  });
  credentials = server.credentials;
  browser = await launchBrowser();
});

after(async () => {
  if (browser) await browser.close();
  if (server) await stopCorridor(server);
});

test('a person picks a bank account on a phone and the account turns ACTIVE', async () => {
  const customer = await call(server, credentials, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Bea Banks' });
  assert.equal(customer.status, 201, customer.text);
  const link = await call(server, credentials, 'POST', '/bank-link/link-tokens', { customerId: customer.body.id });
  assert.equal(link.status, 200, link.text);

  const page = await browser.context.newPage();
  const requests = [];
  page.on('request', (request) => requests.push(request.url()));
  await page.goto(link.body.linkUrl);
  assert.equal(await page.title(), 'Link a bank account');
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `page is ${overflow}px wider than the phone`);
  await screenshot(page, suite, '1-banks');

  await page.getByLabel(/High-Yield Savings/).first().check();
  await screenshot(page, suite, '2-picked');
  await page.getByRole('button', { name: 'Continue' }).tap();
  await page.getByRole('button', { name: 'Link this account' }).waitFor();
  assert.match(await page.content(), /Corridor Test Bank, High-Yield Savings/);
  await screenshot(page, suite, '3-confirm');
  await page.getByRole('button', { name: 'Link this account' }).tap();
  await page.getByText('The account is linked').waitFor();
  const accountId = (await page.locator('code').textContent()).trim();
  assert.match(accountId, /^ExternalAccount:/);
  await screenshot(page, suite, '4-linked');

  const origin = new URL(link.body.linkUrl).origin;
  for (const url of requests) assert.ok(url.startsWith(origin), `unexpected request ${url}`);

  let account;
  for (let waited = 0; ; waited += 50) {
    const response = await call(server, credentials, 'GET', `/customers/external-accounts/${encodeURIComponent(accountId)}`);
    assert.equal(response.status, 200, response.text);
    account = response.body;
    if (account.status === 'ACTIVE') break;
    assert.ok(waited < 10000, `account still ${account.status}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.equal(account.customerId, customer.body.id);
  assert.ok(account.accountInfo.accountNumber.endsWith('0048'), JSON.stringify(account.accountInfo));

  // The link is spent: opening it again does not offer the banks.
  const again = await page.goto(link.body.linkUrl);
  assert.ok(again.status() >= 400, `reopened link answered ${again.status()}`);
  await screenshot(page, suite, '5-link-used');
  assertScreenshots(suite, ['1-banks', '2-picked', '3-confirm', '4-linked', '5-link-used']);
  await page.close();
});
