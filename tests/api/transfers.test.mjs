// POST /transfer-out and POST /transfer-in through the sandbox rail: money held and completed,
// failure patterns refunded with their failureReason, the 005 timeout, pulls credited only when
// they settle, validation naming the field, idempotency. (Accounts that are not ACTIVE yet are
// refused by the engine; tests/rails covers that without racing the screening.)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCorridor, stopCorridor, call } from './lib/harness.mjs';
import { platformAccounts, balanceOf, fund, eventually, idempotencyKey } from './lib/money.mjs';
import { expectError } from './lib/expect.mjs';

let server;
let sandbox;
let usd;  // the platform's USD internal account

before(async () => {
  server = await startCorridor({
    platforms: 1,
    config: {
      quotes: { ttl_seconds: 300, sweep_interval_ms: 50 },
      external_accounts: { screening_delay_ms: 100 },
      sandbox: { timeout_seconds: 1 },
      rails: { call_timeout_ms: 1000, settlement_timeout_ms: 60000, drive_interval_ms: 20 },
    },
  });
  sandbox = server.platforms[0].sandbox;
  usd = (await platformAccounts(server, sandbox)).USD;
  await fund(server, sandbox, usd.id, 1000000);
});
after(async () => { if (server) await stopCorridor(server); });

const beneficiary = { beneficiaryType: 'INDIVIDUAL', fullName: 'Ana Souza', birthDate: '1990-04-01', nationality: 'US' };

async function externalAccount(accountNumber) {
  const response = await call(server, sandbox, 'POST', '/platform/external-accounts', {
    currency: 'USD',
    accountInfo: { accountType: 'US_ACCOUNT', accountNumber, routingNumber: '021000021', accountCategory: 'CHECKING', beneficiary },
  });
  assert.equal(response.status, 201, response.text);
  return eventually(async () => {
    const found = await call(server, sandbox, 'GET', `/platform/external-accounts/${response.body.id}`);
    return found.body?.status === 'ACTIVE' ? found.body : null;
  });
}

const outBody = (externalId, amount, extra = {}) => ({
  source: { accountId: usd.id }, destination: { accountId: externalId }, amount, ...extra,
});
const inBody = (externalId, amount) => ({
  source: { accountId: externalId }, destination: { accountId: usd.id }, amount,
});

async function finalState(transactionId) {
  return eventually(async () => {
    const found = await call(server, sandbox, 'GET', `/transactions/${transactionId}`);
    assert.equal(found.status, 200, found.text);
    return ['COMPLETED', 'FAILED', 'REFUNDED'].includes(found.body.status) ? found.body : null;
  });
}

test('a transfer-out is held at once and completes through the sandbox rail', async () => {
  const external = await externalAccount('123456789');
  const before = await balanceOf(server, sandbox, usd);
  const response = await call(server, sandbox, 'POST', '/transfer-out', outBody(external.id, 2500, { description: 'rent' }),
    { 'idempotency-key': idempotencyKey() });
  assert.equal(response.status, 201, response.text);
  assert.equal(response.body.status, 'PENDING');
  assert.equal(response.body.type, 'OUTGOING');
  assert.equal(response.body.destination.destinationType, 'EXTERNAL_ACCOUNT');
  assert.equal(response.body.destination.accountId, external.id);
  assert.equal(response.body.sentAmount.amount, 2500);
  assert.equal(await balanceOf(server, sandbox, usd), before - 2500);
  const done = await finalState(response.body.id);
  assert.equal(done.status, 'COMPLETED');
  assert.equal(done.failureReason, undefined);
  assert.equal(await balanceOf(server, sandbox, usd), before - 2500);
});

test('failure patterns fail the transfer-out and refund it', async () => {
  for (const number of ['5550002', '5550003', '5550004']) {
    const external = await externalAccount(number);
    const before = await balanceOf(server, sandbox, usd);
    const response = await call(server, sandbox, 'POST', '/transfer-out', outBody(external.id, 700));
    assert.equal(response.status, 201, response.text);
    const done = await finalState(response.body.id);
    assert.equal(done.status, 'FAILED', number);
    assert.equal(done.failureReason, 'QUOTE_EXECUTION_FAILED', number);
    assert.match(done.refund.reference, /^RailOperation:/);
    assert.equal(await balanceOf(server, sandbox, usd), before, `${number} refunded`);
  }
});

test('005 stays pending for sandbox.timeout_seconds, then fails with TIMEOUT and a refund', async () => {
  const external = await externalAccount('5550005');
  const before = await balanceOf(server, sandbox, usd);
  const started = Date.now();
  const response = await call(server, sandbox, 'POST', '/transfer-out', outBody(external.id, 900));
  assert.equal(response.status, 201, response.text);
  const done = await finalState(response.body.id);
  assert.ok(Date.now() - started >= 900, 'failed before the sandbox timeout');
  assert.equal(done.status, 'FAILED');
  assert.equal(done.failureReason, 'TIMEOUT');
  assert.equal(await balanceOf(server, sandbox, usd), before);
});

test('a transfer-in credits the account only when the pull settles', async () => {
  const good = await externalAccount('44556677');
  const broke = await externalAccount('44556002');
  const before = await balanceOf(server, sandbox, usd);
  const pulled = await call(server, sandbox, 'POST', '/transfer-in', inBody(good.id, 1200));
  assert.equal(pulled.status, 201, pulled.text);
  assert.equal(pulled.body.type, 'INCOMING');
  assert.equal(pulled.body.status, 'PENDING');
  assert.equal((await finalState(pulled.body.id)).status, 'COMPLETED');
  assert.equal(await balanceOf(server, sandbox, usd), before + 1200);
  const refused = await call(server, sandbox, 'POST', '/transfer-in', inBody(broke.id, 1200));
  assert.equal(refused.status, 201, refused.text);
  const failed = await finalState(refused.body.id);
  assert.equal(failed.status, 'FAILED');
  assert.equal(failed.failureReason, 'QUOTE_EXECUTION_FAILED');
  assert.equal(await balanceOf(server, sandbox, usd), before + 1200);
});

test('refusals name the problem and write nothing', async () => {
  const external = await externalAccount('987654321');
  const before = await balanceOf(server, sandbox, usd);
  for (const path of ['/transfer-out', '/transfer-in']) {
    expectError(await call(server, sandbox, 'POST', path, { destination: { accountId: usd.id }, amount: 1 }), 400, 'INVALID_INPUT', 'source');
    expectError(await call(server, sandbox, 'POST', path, { source: { accountId: usd.id }, destination: {}, amount: 1 }), 400, 'INVALID_INPUT', 'destination.accountId');
  }
  expectError(await call(server, sandbox, 'POST', '/transfer-out', outBody(external.id, 0)), 400, 'INVALID_INPUT', 'amount');
  expectError(await call(server, sandbox, 'POST', '/transfer-out', outBody(external.id, '10')), 400, 'INVALID_INPUT', 'amount');
  expectError(await call(server, sandbox, 'POST', '/transfer-out', outBody(external.id, before + 1)), 400, 'INSUFFICIENT_BALANCE', 'source.accountId');
  expectError(await call(server, sandbox, 'POST', '/transfer-out', outBody('ExternalAccount:00000000-0000-7000-8000-000000000000', 1)), 404, 'ACCOUNT_NOT_FOUND', 'destination.accountId');
  expectError(await call(server, sandbox, 'POST', '/transfer-out', { ...outBody(external.id, 1), source: { accountId: 'InternalAccount:00000000-0000-7000-8000-000000000000' } }), 404, 'ACCOUNT_NOT_FOUND', 'source.accountId');
  const eur = (await platformAccounts(server, sandbox)).EUR;
  expectError(await call(server, sandbox, 'POST', '/transfer-out', { ...outBody(external.id, 1), source: { accountId: eur.id } }), 400, 'INVALID_CURRENCY', 'source.accountId');
  assert.equal(await balanceOf(server, sandbox, usd), before);
  assert.equal((await call(server, undefined, 'POST', '/transfer-out', outBody(external.id, 1))).status, 401);
});

test('a repeated Idempotency-Key replays the transfer instead of paying twice', async () => {
  const external = await externalAccount('246813579');
  const before = await balanceOf(server, sandbox, usd);
  const headers = { 'idempotency-key': idempotencyKey() };
  const first = await call(server, sandbox, 'POST', '/transfer-out', outBody(external.id, 300), headers);
  assert.equal(first.status, 201, first.text);
  const replay = await call(server, sandbox, 'POST', '/transfer-out', outBody(external.id, 300), headers);
  assert.equal(replay.status, 201);
  assert.equal(replay.headers.get('idempotent-replayed'), 'true');
  assert.equal(replay.body.id, first.body.id);
  const different = await call(server, sandbox, 'POST', '/transfer-out', outBody(external.id, 301), headers);
  assert.equal(different.status, 422, different.text);
  await finalState(first.body.id);
  assert.equal(await balanceOf(server, sandbox, usd), before - 300);
});

test('every defined field of the transfer bodies is type-checked: 400 naming it, nothing moves', async () => {
  const external = await externalAccount('987650001');
  const before = await balanceOf(server, sandbox, usd);
  const wrong = [
    ['source', 'x'], ['source.accountId', 5], ['source.currency', 840], ['destination', 1],
    ['destination.accountId', false], ['destination.currency', ['USD']], ['amount', '1'],
    ['amount', 1.5], ['description', 9],
  ];
  for (const [route, valid] of [['/transfer-out', outBody(external.id, 1)], ['/transfer-in', inBody(external.id, 1)]]) {
    for (const [path, value] of wrong) {
      const body = structuredClone(valid);
      const [head, tail] = path.split('.');
      if (tail) body[head][tail] = value; else body[head] = value;
      const response = await call(server, sandbox, 'POST', route, body, { 'idempotency-key': idempotencyKey() });
      expectError(response, 400, 'INVALID_INPUT', path);
      assert.ok(response.body.message.startsWith(`${path}: must be`), response.text);
    }
  }
  assert.equal(await balanceOf(server, sandbox, usd), before);
});
