// The hosted invitation page in a real browser at phone size: a person opens the invitation's url,
// sees who invites them and the amount, types their UMA address and accepts; the platform then
// reads the invitation CLAIMED with that address.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { stopCorridor, call } from '../api/lib/harness.mjs';
import { launchBrowser, screenshot, startPagesServer, assertScreenshots } from './lib/browser.mjs';

const suite = 'invitation_claim_page';
let server;
let credentials;
let browser;

before(async () => {
  server = await startPagesServer();
  credentials = server.credentials;
  browser = await launchBrowser();
});

after(async () => {
  if (browser) await browser.close();
  if (server) await stopCorridor(server);
});

test('a person opens an invitation on a phone, sees the inviter and the amount, and accepts', async () => {
  const customer = await call(server, credentials, 'POST', '/customers', {
    customerType: 'INDIVIDUAL', platformCustomerId: `inviter-${process.pid}`, umaAddress: '$joana@platform0.example.test',
  });
  assert.equal(customer.status, 201, customer.text);
  const created = await call(server, credentials, 'POST', '/invitations', {
    inviterUma: customer.body.umaAddress, firstName: 'Maria', amountToSend: 12550,
    expiresAt: new Date(Date.now() + 86400_000).toISOString(),
  });
  assert.equal(created.status, 201, created.text);

  const page = await browser.context.newPage();
  const requests = [];
  page.on('request', (request) => requests.push(request.url()));
  await page.goto(created.body.url);
  assert.equal(await page.title(), 'Maria, you are invited');
  assert.equal(await page.locator('#inviter').innerText(), '$joana@platform0.example.test');
  assert.equal(await page.locator('#amount').innerText(), '$125.50 USD');
  assert.ok(await page.locator('#amount').isVisible());
  // Laid out for the phone: nothing wider than the screen, text large enough to read.
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `page is ${overflow}px wider than the phone`);
  const amountSize = await page.locator('#amount').evaluate((el) => parseFloat(getComputedStyle(el).fontSize));
  assert.ok(amountSize >= 24, `amount is ${amountSize}px`);
  await screenshot(page, suite, '1-opened');

  // A malformed address is refused on the page, which keeps what was typed.
  await page.getByLabel('Your UMA address').fill('maria@wallet');
  await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Accept the invitation' }).tap()]);
  assert.match(await page.getByRole('alert').innerText(), /Enter an UMA address/);
  assert.equal(await page.getByLabel('Your UMA address').inputValue(), 'maria@wallet');
  await screenshot(page, suite, '2-refused');

  await page.getByLabel('Your UMA address').fill('$maria@wallet.example');
  await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Accept the invitation' }).tap()]);
  assert.equal(await page.title(), 'Invitation accepted');
  await screenshot(page, suite, '3-accepted');

  const read = await call(server, credentials, 'GET', `/invitations/${created.body.code}`);
  assert.equal(read.body.status, 'CLAIMED');
  assert.equal(read.body.inviteeUma, '$maria@wallet.example');

  // Opened again, the page says it was accepted.
  await page.goto(created.body.url);
  assert.equal(await page.title(), 'Invitation already accepted');
  await screenshot(page, suite, '4-reopened');

  // Nothing was fetched from anywhere but Corridor.
  const origin = new URL(created.body.url).origin;
  assert.deepEqual(requests.filter((url) => !url.startsWith(origin)), []);
  assertScreenshots(suite, ['1-opened', '2-refused', '3-accepted', '4-reopened']);
  await page.close();
});
