// Shared by the dashboard's browser suites: signing in through the form, the accessibility check
// (axe-core from the lockfile: no serious or critical violation) and users made by the operator.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

import { createUser, userCli, totpCode, currentStep } from '../../api/lib/dashboard_client.mjs';

export { createUser, userCli, totpCode, currentStep };

const require = createRequire(import.meta.url);
const axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

// Opens `next` signed out (which leads to the sign-in form), signs in, and waits for `next`.
export async function signIn(page, server, email, password, next = '/dashboard/tokens') {
  await page.goto(`${server.baseUrl}${next}`);
  assert.match(new URL(page.url()).pathname, /^\/dashboard\/sign-in/);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Sign in' }).click()]);
  assert.equal(new URL(page.url()).pathname, next);
}

// Runs axe-core on the page as it is; fails on any serious or critical violation. axe is evaluated
// through the debugging protocol, which the pages' CSP (no inline scripts) does not govern.
export async function assertAccessible(page, label) {
  await page.evaluate(axeSource);
  const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
  const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(bad.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`), [],
    `accessibility violations on ${label}`);
}

// The secret text of an element (a key, a token secret, a link).
export async function textOf(page, selector) {
  return (await page.locator(selector).innerText()).trim();
}
