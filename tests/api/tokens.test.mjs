// API tokens: creation with a secret shown once, GET by id, filters, pagination and deletion.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCorridor, stopCorridor, call, walkPages } from './lib/harness.mjs';
import { expectError, expectStatus, createToken, inBatches, assertCompleteWalk, ISO_TIMESTAMP } from './lib/expect.mjs';
import { expectWrongTypes } from './lib/wrong_types.mjs';

let server;
let sandbox;  // platform 0 sandbox: most tests
let walker;   // platform 1 production: holds only its operator token and the pagination set

before(async () => {
  server = await startCorridor({ platforms: 2 });
  sandbox = server.platforms[0].sandbox;
  walker = server.platforms[1].production;
});
after(async () => { if (server) await stopCorridor(server); });

const tokenPath = (id) => `/tokens/${encodeURIComponent(id)}`;
const listAll = async (credentials, query = '') => {
  const walk = await walkPages(server, credentials, `/tokens${query}`, 100);
  return walk.items;
};

test('POST /tokens is 201 with the secret shown once, and the new credential works', async () => {
  const response = await call(server, sandbox, 'POST', '/tokens', { name: 'ci deploy', permissions: ['MANAGE', 'VIEW'] });
  const created = expectStatus(response, 201);
  assert.match(created.id, /^Token:[0-9a-f-]{36}$/);
  assert.equal(created.name, 'ci deploy');
  assert.deepEqual([...created.permissions].sort(), ['MANAGE', 'VIEW']);
  assert.equal(typeof created.clientId, 'string');
  assert.equal(typeof created.clientSecret, 'string');
  assert.ok(created.clientSecret.length >= 40, 'a 32-byte secret encodes to at least 43 characters');
  assert.match(created.createdAt, ISO_TIMESTAMP);
  assert.match(created.updatedAt, ISO_TIMESTAMP);

  const credentials = { clientId: created.clientId, clientSecret: created.clientSecret };
  expectStatus(await call(server, credentials, 'GET', '/config'), 200);
  expectStatus(await call(server, credentials, 'POST', '/customers', { customerType: 'INDIVIDUAL' }), 201);

  const fetched = await call(server, sandbox, 'GET', tokenPath(created.id));
  const { clientSecret, ...shown } = created;
  assert.deepEqual(expectStatus(fetched, 200), shown);
  assert.ok(!fetched.text.includes(clientSecret));
  assert.ok(!fetched.text.includes('clientSecret'));
  const list = await call(server, sandbox, 'GET', '/tokens?limit=100');
  expectStatus(list, 200);
  assert.ok(!list.text.includes(clientSecret));
  assert.ok(list.body.data.every((token) => !('clientSecret' in token)));
  assert.deepEqual(list.body.data.find((token) => token.id === created.id), shown);

  // Every token has its own id, clientId and secret.
  const more = await inBatches(6, 3, (i) => createToken(server, sandbox, `unique-${i}`, ['VIEW']));
  const all = [created, ...more.map((t) => t.body)];
  for (const key of ['id', 'clientId', 'clientSecret']) {
    assert.equal(new Set(all.map((t) => t[key])).size, all.length, `${key} repeated`);
  }
});

test('POST /tokens validates name and permissions, and a refusal creates nothing', async () => {
  const before = (await listAll(sandbox)).length;
  const cases = [
    [{ permissions: ['VIEW'] }, 'name'],
    [{ name: '', permissions: ['VIEW'] }, 'name'],
    [{ name: 5, permissions: ['VIEW'] }, 'name'],
    [{ name: null, permissions: ['VIEW'] }, 'name'],
    [{ name: 'x'.repeat(257), permissions: ['VIEW'] }, 'name'],
    [{ name: 'n' }, 'permissions'],
    [{ name: 'n', permissions: [] }, 'permissions'],
    [{ name: 'n', permissions: 'VIEW' }, 'permissions'],
    [{ name: 'n', permissions: ['ADMIN'] }, 'permissions[0]'],
    [{ name: 'n', permissions: ['view'] }, 'permissions[0]'],
    [{ name: 'n', permissions: ['VIEW', 7] }, 'permissions[1]'],
    [{ name: 'n', permissions: ['VIEW', 'VIEW'] }, 'permissions[1]'],
  ];
  for (const [body, field] of cases) {
    expectError(await call(server, sandbox, 'POST', '/tokens', body), 400, 'INVALID_INPUT', field);
  }
  assert.equal((await listAll(sandbox)).length, before);
  // The longest allowed name is fine.
  expectStatus(await call(server, sandbox, 'POST', '/tokens', { name: 'x'.repeat(256), permissions: ['VIEW'] }), 201);
});

test('POST /tokens: a field of the wrong type is 400 naming its path; unknown fields are ignored', async () => {
  const before = (await listAll(sandbox)).length;
  await expectWrongTypes((body) => call(server, sandbox, 'POST', '/tokens', body), { name: 'typed', permissions: ['VIEW', 'MANAGE'] }, [
    ['name', 1], ['name', ['n']], ['name', true], ['permissions', 'VIEW'], ['permissions', { VIEW: true }],
    ['permissions[0]', 1], ['permissions[1]', null], ['permissions[1]', ['MANAGE']],
  ]);
  assert.equal((await listAll(sandbox)).length, before);
  const created = expectStatus(await call(server, sandbox, 'POST', '/tokens', { name: 'typed', permissions: ['VIEW'], expiresAt: 5 }), 201);
  assert.equal(created.name, 'typed');
});

test('GET /tokens/{id} returns the token; unknown ids are 404 TOKEN_NOT_FOUND', async () => {
  const token = await createToken(server, sandbox, 'lookup', ['VIEW', 'TRANSACT']);
  const fetched = expectStatus(await call(server, sandbox, 'GET', tokenPath(token.id)), 200);
  assert.equal(fetched.id, token.id);
  assert.equal(fetched.name, 'lookup');
  assert.deepEqual(fetched.permissions, ['VIEW', 'TRANSACT']);
  assert.equal(fetched.clientId, token.clientId);
  for (const id of ['Token:01900000-0000-7000-8000-000000000000', 'nonsense', token.id.replace('Token:', 'Customer:'), `${token.id}x`, token.id.toUpperCase()]) {
    expectError(await call(server, sandbox, 'GET', tokenPath(id)), 404, 'TOKEN_NOT_FOUND');
  }
});

test('DELETE /tokens/{id} is 204, then 404 TOKEN_NOT_FOUND, and the credential stops working', async () => {
  const token = await createToken(server, sandbox, 'short-lived', ['VIEW']);
  expectStatus(await call(server, token, 'GET', '/config'), 200);
  const deleted = await call(server, sandbox, 'DELETE', tokenPath(token.id));
  assert.equal(deleted.status, 204);
  assert.equal(deleted.text, '');
  expectError(await call(server, sandbox, 'GET', tokenPath(token.id)), 404, 'TOKEN_NOT_FOUND');
  expectError(await call(server, sandbox, 'DELETE', tokenPath(token.id)), 404, 'TOKEN_NOT_FOUND');
  expectError(await call(server, token, 'GET', '/config'), 401, 'UNAUTHORIZED');
  assert.ok(!(await listAll(sandbox)).some((t) => t.id === token.id));
  expectError(await call(server, sandbox, 'DELETE', tokenPath('Token:01900000-0000-7000-8000-000000000000')), 404, 'TOKEN_NOT_FOUND');
});

test('GET /tokens filters by name and by created/updated time, bounds inclusive', async () => {
  const alphas = [await createToken(server, sandbox, 'alpha', ['VIEW'])];
  await createToken(server, sandbox, 'beta', ['VIEW']);
  alphas.push(await createToken(server, sandbox, 'alpha', ['MANAGE']));
  await createToken(server, sandbox, 'Alpha', ['VIEW']);
  const byName = expectStatus(await call(server, sandbox, 'GET', '/tokens?name=alpha'), 200);
  assert.equal(byName.totalCount, 2);
  assert.deepEqual(byName.data.map((t) => t.id).sort(), alphas.map((t) => t.id).sort());
  assert.equal(expectStatus(await call(server, sandbox, 'GET', '/tokens?name=alp'), 200).totalCount, 0);
  assert.equal(expectStatus(await call(server, sandbox, 'GET', `/tokens?name=${encodeURIComponent('ci deploy')}`), 200).totalCount, 1);

  // Spread creation over a few milliseconds so that the bounds cut the set.
  for (let i = 0; i < 6; i++) {
    await createToken(server, sandbox, `timed-${i}`, ['VIEW']);
    await new Promise((resolve) => setTimeout(resolve, 3));
  }
  const all = await listAll(sandbox);
  const times = [...new Set(all.map((t) => t.createdAt))].sort();
  assert.ok(times.length >= 4, 'tokens created at distinct milliseconds');
  const pivot = times[Math.floor(times.length / 2)];
  const at = Date.parse(pivot);
  const select = (predicate) => all.filter(predicate).map((t) => t.id).sort();
  const ids = async (query) => {
    const items = await listAll(sandbox, query);
    const body = expectStatus(await call(server, sandbox, 'GET', `/tokens${query}&limit=1`), 200);
    assert.equal(body.totalCount, items.length, `totalCount of ${query}`);
    return items.map((t) => t.id).sort();
  };
  const q = encodeURIComponent;
  assert.deepEqual(await ids(`?createdAfter=${q(pivot)}`), select((t) => Date.parse(t.createdAt) >= at));
  assert.deepEqual(await ids(`?createdBefore=${q(pivot)}`), select((t) => Date.parse(t.createdAt) <= at));
  assert.deepEqual(await ids(`?createdAfter=${q(pivot)}&createdBefore=${q(pivot)}`), select((t) => Date.parse(t.createdAt) === at));
  assert.ok((await ids(`?createdAfter=${q(pivot)}&createdBefore=${q(pivot)}`)).length >= 1);
  assert.deepEqual(await ids(`?updatedAfter=${q(pivot)}`), select((t) => Date.parse(t.updatedAt) >= at));
  assert.deepEqual(await ids(`?updatedBefore=${q(pivot)}`), select((t) => Date.parse(t.updatedAt) <= at));
  const later = new Date(at + 1).toISOString();
  assert.deepEqual(await ids(`?createdAfter=${q(later)}`), select((t) => Date.parse(t.createdAt) > at));
  // The same instant written with an offset selects the same set.
  const shifted = new Date(at + 2 * 3600 * 1000).toISOString().replace('Z', '+02:00');
  assert.deepEqual(await ids(`?createdAfter=${q(shifted)}`), select((t) => Date.parse(t.createdAt) >= at));
  // Filters combine.
  assert.deepEqual(await ids(`?name=alpha&createdAfter=${q(later)}`), select((t) => t.name === 'alpha' && Date.parse(t.createdAt) > at));
  assert.deepEqual(await ids(`?name=alpha&createdBefore=${q(pivot)}`), select((t) => t.name === 'alpha' && Date.parse(t.createdAt) <= at));
  const lastAlpha = alphas[1].body.createdAt;
  assert.deepEqual(await ids(`?name=alpha&createdBefore=${q(lastAlpha)}`), alphas.map((t) => t.id).sort());
  assert.deepEqual(await ids(`?name=alpha&createdAfter=${q(new Date(Date.parse(lastAlpha) + 1).toISOString())}`), []);

  for (const name of ['createdAfter', 'createdBefore', 'updatedAfter', 'updatedBefore']) {
    for (const value of ['yesterday', '2025-13-01T00:00:00Z', '2025-10-13T25:00:00Z', '2025-10-13 00:00:00', '']) {
      expectError(await call(server, sandbox, 'GET', `/tokens?${name}=${q(value)}`), 400, 'INVALID_INPUT', name);
    }
  }
  expectError(await call(server, sandbox, 'GET', '/tokens?name=a&name=b'), 400, 'INVALID_INPUT', 'name');
});

test('GET /tokens pages through ~30 tokens with no duplicate or gap and a constant totalCount', async () => {
  const created = await inBatches(30, 5, (i) => createToken(server, walker, 'walk', [i % 2 ? 'VIEW' : 'MANAGE']));
  const walkIds = created.map((t) => t.id);
  for (const limit of [1, 4, 7, 29, 30, 31]) {
    const walk = await walkPages(server, walker, '/tokens?name=walk', limit);
    assertCompleteWalk(walk, walkIds);
    assert.equal(walk.totals[0], 30);
    assert.equal(walk.totals.length, Math.max(1, Math.ceil(30 / limit)), `pages at limit ${limit}`);
  }
  // Unfiltered: the 30 and the operator's token.
  const everything = await walkPages(server, walker, '/tokens', 6);
  assertCompleteWalk(everything);
  assert.equal(everything.items.length, 31);
  assert.ok(walkIds.every((id) => everything.items.some((t) => t.id === id)));

  const first = expectStatus(await call(server, walker, 'GET', '/tokens'), 200);
  assert.equal(first.data.length, 20, 'the default page size is 20');
  assert.equal(first.hasMore, true);
  assert.equal(typeof first.nextCursor, 'string');
  const whole = expectStatus(await call(server, walker, 'GET', '/tokens?limit=100'), 200);
  assert.equal(whole.data.length, 31);
  assert.equal(whole.hasMore, false);
  assert.ok(!('nextCursor' in whole));

  // Keyset pages: deleting a token not yet reached shifts nothing.
  const firstPage = expectStatus(await call(server, walker, 'GET', '/tokens?name=walk&limit=5'), 200);
  const seen = firstPage.data.map((t) => t.id);
  const victim = walkIds.find((id) => !seen.includes(id));
  assert.equal((await call(server, walker, 'DELETE', tokenPath(victim))).status, 204);
  let cursor = firstPage.nextCursor;
  while (cursor) {
    const page = expectStatus(await call(server, walker, 'GET', `/tokens?name=walk&limit=5&cursor=${encodeURIComponent(cursor)}`), 200);
    assert.equal(page.totalCount, 29);
    seen.push(...page.data.map((t) => t.id));
    cursor = page.hasMore ? page.nextCursor : undefined;
  }
  assert.deepEqual(seen.sort(), walkIds.filter((id) => id !== victim).sort());
});

test('an invalid limit or a forged cursor is 400', async () => {
  for (const limit of ['0', '101', 'abc', '-1', '1.5', '', '1e1', '1000', ' 5', '0x10']) {
    expectError(await call(server, sandbox, 'GET', `/tokens?limit=${encodeURIComponent(limit)}`), 400, 'INVALID_INPUT', 'limit');
  }
  for (const limit of ['1', '100', '050']) expectStatus(await call(server, sandbox, 'GET', `/tokens?limit=${limit}`), 200);
  const forged = ['abc', '!!!!', 'AAAA', Buffer.from('k2|Token:x').toString('base64url'), Buffer.from("k1|x' OR '1'='1").toString('base64url'),
    Buffer.from('k1|').toString('base64url'), 'x'.repeat(1000), ''];
  for (const cursor of forged) {
    expectError(await call(server, sandbox, 'GET', `/tokens?cursor=${encodeURIComponent(cursor)}`), 400, 'INVALID_INPUT', 'cursor');
  }
});
