// The rail template (examples/rail), built out of tree against the installed SDK by the sdk_template
// test, loaded by a running server as the only rail: a sandbox transfer-out completes through it.
// Without a rail that serves the sandbox, a sandbox transfer is refused, never sent to a real-money
// rail. plugins.dir is a list here: the template's folder first, then the build's.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { startCorridor, stopCorridor, call, runCli } from './lib/harness.mjs';
import { platformAccounts, balanceOf, fund, eventually, idempotencyKey } from './lib/money.mjs';

const templateDir = join(process.env.CORRIDOR_BUILD_DIR, 'sdk-test', 'template-build');
const builtPlugins = process.env.CORRIDOR_PLUGIN_DIR || join(dirname(process.env.CORRIDOR_BIN), 'plugins');
// ach's settings as the shipped configuration gives them (the test's plugins.settings replaces all).
const shipped = JSON.parse(readFileSync(join(process.env.CORRIDOR_CONF_DIR, 'corridor.json'), 'utf8'));
const beneficiary = { beneficiaryType: 'INDIVIDUAL', fullName: 'Ana Souza', birthDate: '1990-04-01', nationality: 'US' };

let server;
let sandbox;
let usd;

async function start(rails) {
  const started = await startCorridor({
    platforms: 1,
    plugins: {
      dir: [templateDir, builtPlugins],
      rails,
      settings: { ach: shipped.plugins.settings.ach, example: { settle_after_ms: 200 } },
    },
    config: {
      external_accounts: { screening_delay_ms: 100 },
      rails: { call_timeout_ms: 1000, settlement_timeout_ms: 60000, drive_interval_ms: 20 },
    },
  });
  const credentials = started.platforms[0].sandbox;
  const account = (await platformAccounts(started, credentials)).USD;
  await fund(started, credentials, account.id, 100000);
  return { started, credentials, account };
}

async function externalAccount(target, credentials, accountNumber) {
  const response = await call(target, credentials, 'POST', '/platform/external-accounts', {
    currency: 'USD',
    accountInfo: { accountType: 'US_ACCOUNT', accountNumber, routingNumber: '021000021', accountCategory: 'CHECKING', beneficiary },
  });
  assert.equal(response.status, 201, response.text);
  return eventually(async () => {
    const found = await call(target, credentials, 'GET', `/platform/external-accounts/${response.body.id}`);
    return found.body?.status === 'ACTIVE' ? found.body : null;
  });
}

before(async () => {
  assert.ok(existsSync(join(templateDir, 'example.so')), `the sdk_template test builds ${templateDir}/example.so first`);
  ({ started: server, credentials: sandbox, account: usd } = await start(['example']));
});
after(async () => { if (server) await stopCorridor(server); });

test('plugins list shows the template rail from the first folder of plugins.dir', () => {
  const listed = JSON.parse(runCli(server, ['plugins', 'list', '--json']));
  const example = listed.rails.find((rail) => rail.name === 'example');
  assert.ok(example, JSON.stringify(listed));
  assert.equal(example.file, join(templateDir, 'example.so'));
  assert.deepEqual(example.accountTypes, ['US_ACCOUNT']);
  assert.deepEqual(example.capabilities, ['PAYOUT', 'SANDBOX']);
});

test('a sandbox transfer-out completes through the template rail', async () => {
  const external = await externalAccount(server, sandbox, '123456789');
  const before = await balanceOf(server, sandbox, usd);
  const response = await call(server, sandbox, 'POST', '/transfer-out',
    { source: { accountId: usd.id }, destination: { accountId: external.id }, amount: 2500 },
    { 'idempotency-key': idempotencyKey() });
  assert.equal(response.status, 201, response.text);
  assert.equal(response.body.status, 'PENDING');
  const done = await eventually(async () => {
    const found = await call(server, sandbox, 'GET', `/transactions/${response.body.id}`);
    return ['COMPLETED', 'FAILED'].includes(found.body?.status) ? found.body : null;
  });
  assert.equal(done.status, 'COMPLETED', JSON.stringify(done));
  assert.equal(await balanceOf(server, sandbox, usd), before - 2500);
  // The template's own journal (in the data_dir the host made for it) holds the payout, settled.
  const config = JSON.parse(readFileSync(server.configPath, 'utf8'));
  const railsDir = resolve(dirname(server.configPath), config.rails?.data_dir ?? 'rail-data');
  const journal = readFileSync(join(railsDir, 'example', 'payouts.log'), 'utf8').trim().split('\n');
  assert.equal(journal.filter((line) => line.startsWith('accepted ')).length, 1, journal.join('\n'));
  assert.match(journal.find((line) => line.startsWith('final ')), /^final RailOperation:\S+ 2 0 -$/);
});

test('an account ending in 002 fails through the template rail and is refunded', async () => {
  const external = await externalAccount(server, sandbox, '5550002');
  const before = await balanceOf(server, sandbox, usd);
  const response = await call(server, sandbox, 'POST', '/transfer-out',
    { source: { accountId: usd.id }, destination: { accountId: external.id }, amount: 700 },
    { 'idempotency-key': idempotencyKey() });
  assert.equal(response.status, 201, response.text);
  const done = await eventually(async () => {
    const found = await call(server, sandbox, 'GET', `/transactions/${response.body.id}`);
    return ['COMPLETED', 'FAILED'].includes(found.body?.status) ? found.body : null;
  });
  assert.equal(done.status, 'FAILED');
  assert.equal(await eventually(async () => ((await balanceOf(server, sandbox, usd)) === before ? true : null)), true);
});

test('with no rail serving the sandbox, a sandbox transfer is refused, never sent to a real-money rail', async () => {
  // ach moves real money and does not serve the sandbox; nothing else is loaded.
  const other = await start(['ach']);
  try {
    const external = await externalAccount(other.started, other.credentials, '123456789');
    const before = await balanceOf(other.started, other.credentials, other.account);
    const response = await call(other.started, other.credentials, 'POST', '/transfer-out',
      { source: { accountId: other.account.id }, destination: { accountId: external.id }, amount: 100 },
      { 'idempotency-key': idempotencyKey() });
    assert.equal(response.status, 400, response.text);
    assert.equal(response.body.code, 'INVALID_INPUT');
    assert.match(response.body.message, /no payment rail serves account type US_ACCOUNT in the sandbox/);
    assert.match(response.body.message, /never to a real-money rail/);
    assert.equal(await balanceOf(other.started, other.credentials, other.account), before);
  } finally {
    await stopCorridor(other.started);
  }
});
