// POST /transfer-out and POST /transfer-in: input validation, permissions and idempotency. Moving
// money needs an external-account store, which this build does not wire yet: the routes say so
// with 501 after validating the request.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCorridor, stopCorridor, call } from './lib/harness.mjs';
import { expectError } from './lib/expect.mjs';

let server;
let sandbox;

before(async () => {
  server = await startCorridor({ platforms: 1 });
  sandbox = server.platforms[0].sandbox;
});
after(async () => { if (server) await stopCorridor(server); });

const body = (overrides = {}) => ({
  source: { accountId: 'InternalAccount:00000000-0000-7000-8000-000000000000' },
  destination: { accountId: 'ExternalAccount:00000000-0000-7000-8000-000000000000' },
  amount: 1000,
  ...overrides,
});

for (const path of ['/transfer-out', '/transfer-in']) {
  test(`${path} names the field that is wrong`, async () => {
    expectError(await call(server, sandbox, 'POST', path, body({ source: undefined })), 400, 'INVALID_INPUT', 'source');
    expectError(await call(server, sandbox, 'POST', path, body({ destination: {} })), 400, 'INVALID_INPUT',
      'destination.accountId');
    expectError(await call(server, sandbox, 'POST', path, body({ amount: 0 })), 400, 'INVALID_INPUT', 'amount');
    expectError(await call(server, sandbox, 'POST', path, body({ amount: '10' })), 400, 'INVALID_INPUT', 'amount');
  });

  test(`${path} needs credentials`, async () => {
    const response = await call(server, undefined, 'POST', path, body());
    assert.equal(response.status, 401);
  });

  test(`${path} answers 501 until external accounts are wired; a 5xx is not kept for replay`, async () => {
    const headers = { 'idempotency-key': `k-${path}` };
    const first = await call(server, sandbox, 'POST', path, body(), headers);
    assert.equal(first.status, 501, first.text);
    assert.equal(first.body.code, 'NOT_IMPLEMENTED');
    // A different body under the same key is processed again (422 would mean the 501 was stored).
    const again = await call(server, sandbox, 'POST', path, body({ amount: 5 }), headers);
    assert.equal(again.status, 501, again.text);
  });
}
