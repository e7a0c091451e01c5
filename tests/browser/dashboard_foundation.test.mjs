// The dashboard's foundation in a real browser at phone size: the operator's setup link, the admin
// signing in and inviting a developer, the developer creating an API token and using it against
// the API, revoking it (the API then answers 401), wiring the webhook endpoint and verifying a
// delivered webhook with the key copied from the page, a viewer who sees no token control and whose
// forged request is refused, the audit log, and sign-out. Every page passes axe-core and is
// screenshotted into the build folder.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { verify } from 'node:crypto';
import { stopCorridor, call } from '../api/lib/harness.mjs';
import { startReceiver, stopReceiver, signatureOf } from '../api/lib/receiver.mjs';
import { platformAccounts, fund, eventually } from '../api/lib/money.mjs';
import { launchBrowser, screenshot, startPagesServer, assertScreenshots } from './lib/browser.mjs';
import { signIn, assertAccessible, createUser, userCli, textOf, totpCode, currentStep } from './lib/dashboard.mjs';

const suite = 'dashboard_foundation';
const password = 'violet-anchor-tuesday-42';
let server;
let browser;
let developerBrowser;
let receiver;
let platformId;
let developerPage;
let tokenSecret;
let tokenClientId;

before(async () => {
  server = await startPagesServer({ config: { outbound: { allow_private_addresses: true } } });
  platformId = server.platforms[0].platformId;
  browser = await launchBrowser();
  receiver = await startReceiver();
});

after(async () => {
  if (browser) await browser.close();
  if (developerBrowser) await developerBrowser.close();
  if (receiver) await stopReceiver(receiver);
  if (server) await stopCorridor(server);
});

async function noOverflow(page) {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `page is ${overflow}px wider than the phone`);
}

test('the first admin sets a password from the setup link, signs in and invites a developer', async () => {
  const run = userCli(server, ['create', '--platform', platformId, '--email', 'admin@acme.test', '--role', 'admin', '--json']);
  assert.equal(run.code, 0, run.stderr);
  const { setupUrl } = JSON.parse(run.stdout);
  const page = await browser.context.newPage();
  await page.goto(setupUrl);
  assert.match(await page.title(), /^Set your password/);
  await assertAccessible(page, 'setup');
  await screenshot(page, suite, '01-setup');
  await page.getByLabel('New password', { exact: true }).fill('password1234');
  await page.getByLabel('The same password again').fill('password1234');
  await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Set password' }).click()]);
  assert.match(await page.getByRole('alert').innerText(), /most common passwords/);
  await page.getByLabel('New password', { exact: true }).fill(password);
  await page.getByLabel('The same password again').fill(password);
  await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Set password' }).click()]);
  assert.match(await page.getByRole('status').innerText(), /password is set/);
  await assertAccessible(page, 'sign-in');
  await screenshot(page, suite, '02-sign-in');

  await signIn(page, server, 'admin@acme.test', password, '/dashboard/users');
  assert.match(await page.locator('header').innerText(), /Platform 0/);
  assert.match(await page.locator('header').innerText(), /sandbox/);
  await noOverflow(page);
  await page.getByLabel('E-mail').fill('dev@acme.test');
  await page.getByLabel('Role').selectOption('developer');
  await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Invite' }).click()]);
  const link = await textOf(page, '#setup-link');
  assert.match(link, /\/dashboard\/setup\/setup-[0-9a-f]{64}$/);
  await assertAccessible(page, 'users');
  await screenshot(page, suite, '03-users-invited');

  // The developer, in a browser of their own.
  developerBrowser = await launchBrowser();
  developerPage = await developerBrowser.context.newPage();
  await developerPage.goto(link);
  await developerPage.getByLabel('New password', { exact: true }).fill(password);
  await developerPage.getByLabel('The same password again').fill(password);
  await Promise.all([developerPage.waitForNavigation(), developerPage.getByRole('button', { name: 'Set password' }).click()]);
  await signIn(developerPage, server, 'dev@acme.test', password);
});

test('the developer creates a token, uses it against the API, revokes it and the API answers 401', async () => {
  const page = developerPage;
  await page.getByLabel('Name').fill('ci deploys');
  await page.getByLabel('MANAGE (configuration, tokens, customers)').check();
  await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Create token' }).click()]);
  tokenClientId = await textOf(page, '#new-client-id');
  tokenSecret = await textOf(page, '#new-client-secret');
  assert.match(tokenSecret, /^cs_/);
  // The copy button is an enhancement the script reveals; the secret is on the page regardless.
  assert.ok(await page.getByRole('button', { name: 'Copy secret' }).isVisible());
  await assertAccessible(page, 'tokens (created)');
  await screenshot(page, suite, '04-token-created');

  const credentials = { clientId: tokenClientId, clientSecret: tokenSecret };
  const listed = await call(server, credentials, 'GET', '/tokens');
  assert.equal(listed.status, 200, listed.text);
  assert.ok(listed.body.data.some((t) => t.name === 'ci deploys' && t.permissions.join() === 'VIEW,MANAGE'));
  // Shown once: reloading the page does not show it again.
  await page.goto(`${server.baseUrl}/dashboard/tokens`);
  assert.ok(!(await page.content()).includes(tokenSecret));
  assert.equal(await page.locator('#new-client-secret').count(), 0);

  await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Revoke ci deploys' }).click()]);
  assert.match(await page.getByRole('status').innerText(), /revoked/);
  const after = await call(server, credentials, 'GET', '/tokens');
  assert.equal(after.status, 401);
  await screenshot(page, suite, '05-token-revoked');
});

test('the developer wires the webhook endpoint and verifies a delivered webhook with the key from the page', async () => {
  const page = developerPage;
  await page.goto(`${server.baseUrl}/dashboard/webhooks`);
  await page.getByLabel('Endpoint URL').fill(receiver.url);
  await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Save endpoint' }).click()]);
  assert.match(await page.getByRole('status').innerText(), /endpoint is saved/);
  const pem = await textOf(page, '#webhook-key');
  assert.match(pem, /^-----BEGIN PUBLIC KEY-----/);
  assert.ok(await page.getByRole('button', { name: 'Copy public key' }).isVisible());
  // The key on the page is the one the operator's command shows.
  const shown = (await import('node:child_process')).execFileSync(server.bin,
    ['webhook-key', 'show', '--platform', platformId, '--environment', 'sandbox', '--config', server.configPath], { encoding: 'utf8' });
  assert.equal(pem.trim(), shown.trim());

  await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Send a test event' }).click()]);
  assert.match(await page.getByRole('status').innerText(), /the endpoint answered 200/);
  const delivered = receiver.requests.find((r) => r.body?.type === 'TEST');
  assert.ok(delivered, 'no TEST webhook arrived');
  const { v, s } = signatureOf(delivered);
  assert.equal(v, '1');
  assert.ok(verify('sha256', delivered.raw, pem, Buffer.from(s, 'base64')), 'signature does not verify with the page key');
  assert.ok(!verify('sha256', Buffer.concat([delivered.raw, Buffer.from(' ')]), pem, Buffer.from(s, 'base64')));
  // The delivery log lists it with its status.
  await page.goto(`${server.baseUrl}/dashboard/webhooks`);
  const log = await page.locator('table').innerText();
  assert.match(log, /TEST/);
  assert.match(log, /200/);
  assert.match(log, /SUCCEEDED/);
  await noOverflow(page);
  await assertAccessible(page, 'webhooks');
  await screenshot(page, suite, '06-webhooks');

  // A payment's event, delivered, then resent from the log: the same webhookId arrives again,
  // signed with the same key.
  const usd = (await platformAccounts(server, server.credentials)).USD;
  await fund(server, server.credentials, usd.id, 2500);
  const incoming = await eventually(async () => receiver.requests.find((r) => r.body?.type === 'INCOMING_PAYMENT'));
  await eventually(async () => {
    await page.goto(`${server.baseUrl}/dashboard/webhooks`);
    return (await page.locator('table').innerText()).includes('INCOMING_PAYMENT');
  });
  await Promise.all([page.waitForNavigation(),
    page.getByRole('button', { name: `Resend INCOMING_PAYMENT ${incoming.body.webhookId}` }).click()]);
  assert.match(await page.getByRole('status').innerText(), /queued to be sent again/);
  const again = await eventually(async () => receiver.requests.filter((r) => r.body?.webhookId === incoming.body.webhookId)[1]);
  assert.ok(verify('sha256', again.raw, pem, Buffer.from(signatureOf(again).s, 'base64')));
  await eventually(async () => {
    await page.goto(`${server.baseUrl}/dashboard/webhooks`);
    return (await page.locator('table').innerText()).match(/INCOMING_PAYMENT/g)?.length === 2;
  });
});

test('a viewer sees no token control, and a forged token request is refused', async () => {
  createUser(server, platformId, 'viewer@acme.test', 'viewer', password);
  const viewerBrowser = await launchBrowser();
  const page = await viewerBrowser.context.newPage();
  await signIn(page, server, 'viewer@acme.test', password);
  assert.equal(await page.getByRole('button', { name: 'Create token' }).count(), 0);
  assert.equal(await page.getByRole('button', { name: /^Revoke/ }).count(), 0);
  assert.equal(await page.getByRole('link', { name: 'Users' }).count(), 0);
  await assertAccessible(page, 'tokens (viewer)');
  await screenshot(page, suite, '07-viewer-tokens');
  const csrf = await page.locator('input[name=csrf]').first().getAttribute('value');
  const forged = await page.request.post(`${server.baseUrl}/dashboard/tokens`, {
    form: { csrf, name: 'forged', view: '1', manage: '1' }, maxRedirects: 0,
  });
  assert.equal(forged.status(), 403);
  const tokens = await call(server, server.platforms[0].sandbox, 'GET', '/tokens');
  assert.ok(!tokens.body.data.some((t) => t.name === 'forged'));
  await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Sign out' }).click()]);
  await viewerBrowser.close();
});

test('the admin reads the audit log and the security page, then signs out', async () => {
  const page = await browser.context.newPage();
  await browser.context.clearCookies();
  await signIn(page, server, 'admin@acme.test', password, '/dashboard/audit');
  const log = await page.locator('table').innerText();
  for (const action of ['user invited', 'token created', 'token revoked', 'webhook endpoint set', 'test webhook sent', 'signed in']) {
    assert.ok(log.includes(action), `no "${action}" in the audit log`);
  }
  assert.match(log, /dev@acme\.test/);
  assert.match(log, /127\.0\.0\.1/);
  await assertAccessible(page, 'audit');
  await screenshot(page, suite, '08-audit');

  await page.getByRole('link', { name: 'Security' }).click();
  await page.waitForURL(/\/dashboard\/security$/);
  assert.match(await page.locator('#totp-secret').innerText(), /^[A-Z2-7]{32}$/);
  await assertAccessible(page, 'security');
  await screenshot(page, suite, '09-security');

  // The environment switch: production is named on every page once chosen.
  await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Switch to production' }).click()]);
  assert.match(await page.locator('header').innerText(), /production/);
  await screenshot(page, suite, '10-production');

  await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Sign out' }).click()]);
  assert.match(await page.getByRole('status').innerText(), /signed out/);
  await page.goto(`${server.baseUrl}/dashboard/audit`);
  assert.match(new URL(page.url()).pathname, /^\/dashboard\/sign-in$/);
  await screenshot(page, suite, '11-signed-out');
});

test('the developer turns on two-step verification and then signs in with a code', async () => {
  const page = developerPage;
  await page.goto(`${server.baseUrl}/dashboard/security`);
  const secret = await textOf(page, '#totp-secret');
  await page.getByLabel('Code from the app').fill(totpCode(secret, currentStep()));
  await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Turn on two-step verification' }).click()]);
  assert.match(await page.getByRole('status').innerText(), /Saved/);
  assert.match(await page.locator('main').innerText(), /On: signing in asks for a code/);
  await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Sign out' }).click()]);

  await page.goto(`${server.baseUrl}/dashboard/webhooks`);
  await page.getByLabel('E-mail').fill('dev@acme.test');
  await page.getByLabel('Password').fill(password);
  await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Sign in' }).click()]);
  assert.equal(new URL(page.url()).pathname, '/dashboard/sign-in/code');
  await assertAccessible(page, 'code');
  await screenshot(page, suite, '12-code');
  // The step used to enrol is spent; the next one (one step ahead is allowed) signs in.
  await page.getByLabel('Code').fill(totpCode(secret, currentStep() + 1));
  await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Verify' }).click()]);
  assert.equal(new URL(page.url()).pathname, '/dashboard/webhooks');
  assertScreenshots(suite, ['01-setup', '02-sign-in', '03-users-invited', '04-token-created', '05-token-revoked',
    '06-webhooks', '07-viewer-tokens', '08-audit', '09-security', '10-production', '11-signed-out', '12-code']);
});
