// HTTP Basic authentication, permissions per route, token deletion taking effect at once, and the
// separation of environments and platforms.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCorridor, stopCorridor, call } from './lib/harness.mjs';
import { expectError, expectStatus, createToken, createCustomer } from './lib/expect.mjs';

let server;
let sandbox;      // platform 0, sandbox, all permissions
let production;   // platform 0, production, all permissions
let other;        // platform 1, sandbox, all permissions

before(async () => {
  server = await startCorridor({ platforms: 2 });
  sandbox = server.platforms[0].sandbox;
  production = server.platforms[0].production;
  other = server.platforms[1].sandbox;
});
after(async () => { if (server) await stopCorridor(server); });

function withAuthorization(value) {
  return value === undefined ? {} : { authorization: value };
}

function expectUnauthorized(response) {
  expectError(response, 401, 'UNAUTHORIZED');
  assert.match(response.headers.get('www-authenticate') ?? '', /^Basic realm=/);
}

const b64 = (text) => Buffer.from(text, 'latin1').toString('base64');

test('a missing or malformed Authorization header is 401 with WWW-Authenticate', async () => {
  const headers = [
    undefined,
    '',
    'Bearer abc.def.ghi',
    'Digest username="x"',
    'Basic',
    'Basic ',
    'Basic !!!not-base64!!!',
    'Basic abc',                                   // not a multiple of 4
    `Basic ${b64(`${sandbox.clientId}${sandbox.clientSecret}`)}`,  // no colon
    `Basic ${b64(`:${sandbox.clientSecret}`)}`,   // empty clientId
    `Basic ${b64(`${sandbox.clientId}:`)}`,       // empty secret
    `Basic ${b64('x'.repeat(2000))}`,             // far too long
    `${b64(`${sandbox.clientId}:${sandbox.clientSecret}`)}`,  // no scheme at all
  ];
  for (const value of headers) {
    for (const [method, path, body] of [['GET', '/config'], ['GET', '/customers'], ['POST', '/customers', { customerType: 'INDIVIDUAL' }], ['PATCH', '/config', {}], ['GET', '/tokens']]) {
      const response = await call(server, null, method, path, body, withAuthorization(value));
      expectUnauthorized(response);
    }
  }
  // Nothing was created by the refused POSTs.
  const list = expectStatus(await call(server, sandbox, 'GET', '/customers'), 200);
  assert.equal(list.totalCount, 0);
});

test('a wrong credential is 401, also right after the right one was cached', async () => {
  // Warm the credential cache with the right secret first.
  for (let i = 0; i < 3; i++) expectStatus(await call(server, sandbox, 'GET', '/config'), 200);
  const wrong = [
    { clientId: sandbox.clientId, clientSecret: `${sandbox.clientSecret}x` },
    { clientId: sandbox.clientId, clientSecret: sandbox.clientSecret.slice(0, -1) },
    { clientId: sandbox.clientId, clientSecret: production.clientSecret },
    { clientId: production.clientId, clientSecret: sandbox.clientSecret },
    { clientId: 'sbx_00000000000000000000000000000000', clientSecret: sandbox.clientSecret },
    { clientId: sandbox.clientId.toUpperCase(), clientSecret: sandbox.clientSecret },
  ];
  for (const credentials of wrong) {
    expectUnauthorized(await call(server, credentials, 'GET', '/config'));
    expectUnauthorized(await call(server, credentials, 'GET', '/customers'));
  }
  // The right one still works afterwards, and the scheme name is case-insensitive.
  expectStatus(await call(server, sandbox, 'GET', '/config'), 200);
  const lower = `basic ${b64(`${sandbox.clientId}:${sandbox.clientSecret}`)}`;
  expectStatus(await call(server, null, 'GET', '/customers', undefined, { authorization: lower }), 200);
});

test('health endpoints need no credentials', async () => {
  expectStatus(await call(server, null, 'GET', '/healthz', undefined, { raw: true }), 200);
  expectStatus(await call(server, null, 'GET', '/readyz', undefined, { raw: true }), 200);
});

test('a VIEW-only token reads but cannot change anything (403 FORBIDDEN)', async () => {
  const viewer = await createToken(server, sandbox, 'viewer', ['VIEW']);
  const customer = await createCustomer(server, sandbox, { fullName: 'Viewed Person' });
  const token = await createToken(server, sandbox, 'victim', ['VIEW']);
  const configBefore = expectStatus(await call(server, viewer, 'GET', '/config'), 200);
  expectStatus(await call(server, viewer, 'GET', '/customers'), 200);
  expectStatus(await call(server, viewer, 'GET', `/customers/${encodeURIComponent(customer.id)}`), 200);
  expectStatus(await call(server, viewer, 'GET', '/tokens'), 200);

  const refused = [
    ['PATCH', '/config', { webhookEndpoint: 'https://viewer.example/hook' }],
    ['POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Not Created' }],
    ['PATCH', `/customers/${encodeURIComponent(customer.id)}`, { customerType: 'INDIVIDUAL', fullName: 'Changed' }],
    ['DELETE', `/customers/${encodeURIComponent(customer.id)}`],
    ['POST', '/tokens', { name: 'escalate', permissions: ['VIEW'] }],
    ['DELETE', `/tokens/${encodeURIComponent(token.id)}`],
  ];
  for (const [method, path, body] of refused) {
    const response = await call(server, viewer, method, path, body);
    expectError(response, 403, 'FORBIDDEN');
    assert.equal(response.headers.get('www-authenticate'), null);
  }
  // Nothing changed.
  assert.deepEqual(expectStatus(await call(server, sandbox, 'GET', '/config'), 200), configBefore);
  const after = expectStatus(await call(server, sandbox, 'GET', `/customers/${encodeURIComponent(customer.id)}`), 200);
  assert.equal(after.fullName, 'Viewed Person');
  assert.equal(after.isDeleted, false);
  const names = expectStatus(await call(server, sandbox, 'GET', '/customers?limit=100'), 200).data.map((c) => c.fullName);
  assert.ok(!names.includes('Not Created'));
  expectStatus(await call(server, token, 'GET', '/config'), 200);
  assert.equal(expectStatus(await call(server, sandbox, 'GET', '/tokens?name=escalate'), 200).totalCount, 0);
});

test('a token without VIEW cannot read (403), but can do what its permissions allow', async () => {
  const manager = await createToken(server, sandbox, 'manager-only', ['MANAGE']);
  const transactor = await createToken(server, sandbox, 'transact-only', ['TRANSACT']);
  const customer = await createCustomer(server, sandbox);
  for (const credentials of [manager, transactor]) {
    for (const path of ['/config', '/customers', `/customers/${encodeURIComponent(customer.id)}`, '/tokens', `/tokens/${encodeURIComponent(manager.id)}`]) {
      expectError(await call(server, credentials, 'GET', path), 403, 'FORBIDDEN');
    }
  }
  // GET /config twice: the second would be answered from the config cache if the check were skipped.
  expectStatus(await call(server, sandbox, 'GET', '/config'), 200);
  expectError(await call(server, manager, 'GET', '/config'), 403, 'FORBIDDEN');
  // MANAGE alone may change configuration and customers.
  expectStatus(await call(server, manager, 'POST', '/customers', { customerType: 'INDIVIDUAL' }), 201);
  expectError(await call(server, transactor, 'POST', '/customers', { customerType: 'INDIVIDUAL' }), 403, 'FORBIDDEN');
});

test('POST /tokens cannot grant a permission the caller lacks', async () => {
  const limited = await createToken(server, sandbox, 'limited', ['VIEW', 'MANAGE']);
  for (const permissions of [['TRANSACT'], ['VIEW', 'TRANSACT'], ['VIEW', 'TRANSACT', 'MANAGE']]) {
    const response = await call(server, limited, 'POST', '/tokens', { name: 'granted', permissions });
    expectError(response, 403, 'FORBIDDEN');
  }
  assert.equal(expectStatus(await call(server, sandbox, 'GET', '/tokens?name=granted'), 200).totalCount, 0);
  // A subset of its own permissions is fine.
  const subset = await createToken(server, limited, 'subset', ['VIEW']);
  assert.deepEqual(subset.body.permissions, ['VIEW']);
  const full = await createToken(server, sandbox, 'full', ['VIEW', 'TRANSACT', 'MANAGE']);
  assert.deepEqual(full.body.permissions, ['VIEW', 'TRANSACT', 'MANAGE']);
});

test('a deleted token stops working on the very next request, cached or not', async () => {
  for (let round = 0; round < 6; round++) {
    const doomed = await createToken(server, sandbox, `doomed-${round}`, ['VIEW', 'MANAGE']);
    // Several authenticated requests, in parallel so that more than one connection (and core)
    // has seen the credential: the fast GET /config path and database paths alike.
    const warm = [];
    for (let i = 0; i < 4; i++) {
      warm.push(call(server, doomed, 'GET', '/config'));
      warm.push(call(server, doomed, 'GET', '/customers?limit=1'));
    }
    for (const response of await Promise.all(warm)) expectStatus(response, 200);
    expectStatus(await call(server, doomed, 'GET', '/config'), 200);

    const deleter = round % 2 === 0 ? sandbox : doomed;  // another token, or the token itself
    const deleted = await call(server, deleter, 'DELETE', `/tokens/${encodeURIComponent(doomed.id)}`);
    assert.equal(deleted.status, 204, deleted.text);

    const afterwards = await Promise.all([
      call(server, doomed, 'GET', '/config'),
      call(server, doomed, 'GET', '/config'),
      call(server, doomed, 'GET', '/customers'),
      call(server, doomed, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'By A Ghost' }),
      call(server, doomed, 'GET', '/tokens'),
    ]);
    for (const response of afterwards) expectUnauthorized(response);
    expectUnauthorized(await call(server, doomed, 'GET', '/config'));
  }
  const ghosts = expectStatus(await call(server, sandbox, 'GET', '/customers?limit=100'), 200).data
    .filter((c) => c.fullName === 'By A Ghost');
  assert.equal(ghosts.length, 0);
  // The token that deleted the others is unaffected.
  expectStatus(await call(server, sandbox, 'GET', '/config'), 200);
});

test('sandbox and production credentials see separate worlds', async () => {
  const inSandbox = await createCustomer(server, sandbox, { fullName: 'Sandbox Person' });
  const inProduction = await createCustomer(server, production, { fullName: 'Production Person' });
  const sandboxPath = `/customers/${encodeURIComponent(inSandbox.id)}`;
  const productionPath = `/customers/${encodeURIComponent(inProduction.id)}`;

  expectError(await call(server, production, 'GET', sandboxPath), 404, 'USER_NOT_FOUND');
  expectError(await call(server, sandbox, 'GET', productionPath), 404, 'USER_NOT_FOUND');
  expectError(await call(server, production, 'PATCH', sandboxPath, { customerType: 'INDIVIDUAL', fullName: 'X' }), 404, 'USER_NOT_FOUND');
  expectError(await call(server, production, 'DELETE', sandboxPath), 404, 'USER_NOT_FOUND');
  const untouched = expectStatus(await call(server, sandbox, 'GET', sandboxPath), 200);
  assert.equal(untouched.fullName, 'Sandbox Person');
  assert.equal(untouched.isDeleted, false);

  const sandboxList = expectStatus(await call(server, sandbox, 'GET', '/customers?limit=100&isIncludingDeleted=true'), 200);
  const productionList = expectStatus(await call(server, production, 'GET', '/customers?limit=100&isIncludingDeleted=true'), 200);
  const sandboxIds = sandboxList.data.map((c) => c.id);
  const productionIds = productionList.data.map((c) => c.id);
  assert.ok(sandboxIds.includes(inSandbox.id));
  assert.ok(!sandboxIds.includes(inProduction.id));
  assert.deepEqual(productionIds, [inProduction.id]);
  assert.equal(productionList.totalCount, 1);
  const byAddress = await call(server, production, 'GET', `/customers?umaAddress=${encodeURIComponent(inSandbox.umaAddress)}`);
  assert.equal(expectStatus(byAddress, 200).totalCount, 0);

  // Tokens and configuration are per environment too.
  const sandboxToken = await createToken(server, sandbox, 'env-check', ['VIEW']);
  expectError(await call(server, production, 'GET', `/tokens/${encodeURIComponent(sandboxToken.id)}`), 404, 'TOKEN_NOT_FOUND');
  expectError(await call(server, production, 'DELETE', `/tokens/${encodeURIComponent(sandboxToken.id)}`), 404, 'TOKEN_NOT_FOUND');
  expectStatus(await call(server, sandboxToken, 'GET', '/config'), 200);
  assert.equal(expectStatus(await call(server, production, 'GET', '/tokens?name=env-check'), 200).totalCount, 0);
  assert.equal(expectStatus(await call(server, sandboxToken, 'GET', `/customers/${encodeURIComponent(inProduction.id)}`), 404).code, 'USER_NOT_FOUND');

  const sandboxConfig = expectStatus(await call(server, sandbox, 'GET', '/config'), 200);
  const productionConfig = expectStatus(await call(server, production, 'GET', '/config'), 200);
  assert.notEqual(sandboxConfig.id, productionConfig.id);
  expectStatus(await call(server, sandbox, 'PATCH', '/config', { webhookEndpoint: 'http://127.0.0.1:9/sandbox-only' }), 200);
  const productionAfter = expectStatus(await call(server, production, 'GET', '/config'), 200);
  assert.deepEqual(productionAfter, productionConfig);
});

test("another platform's ids read as 404", async () => {
  const mine = await createCustomer(server, sandbox, { fullName: 'Mine', platformCustomerId: 'shared-external-id' });
  const myToken = await createToken(server, sandbox, 'mine', ['VIEW']);
  const customerPath = `/customers/${encodeURIComponent(mine.id)}`;
  const tokenPath = `/tokens/${encodeURIComponent(myToken.id)}`;

  expectError(await call(server, other, 'GET', customerPath), 404, 'USER_NOT_FOUND');
  expectError(await call(server, other, 'PATCH', customerPath, { customerType: 'INDIVIDUAL', fullName: 'Stolen' }), 404, 'USER_NOT_FOUND');
  expectError(await call(server, other, 'DELETE', customerPath), 404, 'USER_NOT_FOUND');
  expectError(await call(server, other, 'GET', tokenPath), 404, 'TOKEN_NOT_FOUND');
  expectError(await call(server, other, 'DELETE', tokenPath), 404, 'TOKEN_NOT_FOUND');

  // Still there, unchanged, and the token still works.
  const still = expectStatus(await call(server, sandbox, 'GET', customerPath), 200);
  assert.equal(still.fullName, 'Mine');
  assert.equal(still.isDeleted, false);
  expectStatus(await call(server, myToken, 'GET', '/config'), 200);

  // Lists and filters of the other platform never show it.
  const otherList = expectStatus(await call(server, other, 'GET', '/customers?limit=100&isIncludingDeleted=true'), 200);
  assert.ok(!otherList.data.some((c) => c.id === mine.id));
  assert.equal(expectStatus(await call(server, other, 'GET', '/customers?platformCustomerId=shared-external-id'), 200).totalCount, 0);
  const otherTokens = expectStatus(await call(server, other, 'GET', '/tokens?limit=100'), 200);
  assert.ok(!otherTokens.data.some((t) => t.id === myToken.id));
  // The same platformCustomerId is free on the other platform.
  const theirs = await createCustomer(server, other, { platformCustomerId: 'shared-external-id' });
  assert.notEqual(theirs.id, mine.id);
});
