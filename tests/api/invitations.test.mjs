// UMA invitations: create (201), read, claim, cancel; the statuses PENDING -> CLAIMED | CANCELLED
// and EXPIRED past expiresAt; claims and cancels refused in every other status; bad input named;
// another platform's or environment's code not found, except cancel by another platform (403);
// permissions; the INVITATION_CLAIMED event written with the claim; the hosted page at the url.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCorridor, stopCorridor, call, runCli } from './lib/harness.mjs';
import { newCustomer, assertError, sleep } from './lib/money.mjs';
import { outboxRows, queryRows } from './lib/database.mjs';
import { expectWrongTypes } from './lib/wrong_types.mjs';

let server;
let sandbox;     // platform 0, sandbox
let production;  // platform 0, production
let other;       // platform 1, sandbox
let viewOnly;    // platform 0, sandbox, VIEW only
let inviter;     // a customer of platform 0 sandbox

before(async () => {
  server = await startCorridor({ platforms: 2, config: { public_base_url: 'https://pay.example.test/' } });
  sandbox = server.platforms[0].sandbox;
  production = server.platforms[0].production;
  other = server.platforms[1].sandbox;
  viewOnly = JSON.parse(runCli(server, ['token', 'create', '--platform', server.platforms[0].platformId,
    '--environment', 'sandbox', '--name', 'viewer', '--permissions', 'VIEW', '--json']));
  inviter = await newCustomer(server, sandbox);
});

after(async () => {
  if (server) await stopCorridor(server);
});

async function invite(body = {}, credentials = sandbox) {
  const response = await call(server, credentials, 'POST', '/invitations', { inviterUma: inviter.umaAddress, ...body });
  assert.equal(response.status, 201, response.text);
  return response.body;
}

function claimedEvents(code) {
  return outboxRows(server, 'platform_id, environment', "type = 'INVITATION_CLAIMED'", code);
}

test('an invitation is created PENDING with an unguessable code and a url under public_base_url', async () => {
  const before = Date.now();
  const created = await invite({ firstName: 'Maria', amountToSend: 12550 });
  assert.equal(created.status, 'PENDING');
  assert.equal(created.inviterUma, inviter.umaAddress);
  assert.equal(created.firstName, 'Maria');
  assert.deepEqual(created.amountToSend, { amount: 12550, currency: { code: 'USD', name: 'United States Dollar', symbol: '$', decimals: 2 } });
  assert.match(created.code, /^[a-z2-7]{26}$/);
  assert.equal(created.url, `https://pay.example.test/invite/${created.code}`);
  assert.ok(Date.parse(created.createdAt) >= before - 1000);
  for (const absent of ['claimedAt', 'inviteeUma', 'expiresAt']) assert.ok(!(absent in created), absent);

  const read = await call(server, sandbox, 'GET', `/invitations/${created.code}`);
  assert.equal(read.status, 200, read.text);
  assert.deepEqual(read.body, created);

  // Codes differ every time.
  const codes = new Set([created.code]);
  for (let i = 0; i < 5; i++) codes.add((await invite()).code);
  assert.equal(codes.size, 6);
});

test('only inviterUma is required; the amount may name another enabled currency', async () => {
  const bare = await invite();
  assert.ok(!('firstName' in bare) && !('amountToSend' in bare));
  const euros = await invite({ amountToSend: 500, amountToSendCurrency: 'EUR' });
  assert.equal(euros.amountToSend.currency.code, 'EUR');
  assert.equal(euros.amountToSend.amount, 500);
  const later = new Date(Date.now() + 3600_000).toISOString();
  const expiring = await invite({ expiresAt: later });
  assert.equal(Date.parse(expiring.expiresAt), Date.parse(later));
  // The address is read case-insensitively and answered in its stored spelling.
  const upper = await invite({ inviterUma: inviter.umaAddress.toUpperCase() });
  assert.equal(upper.inviterUma, inviter.umaAddress);
});

test('bad input is refused naming the field, and nothing is created', async () => {
  const countBefore = queryRows(server, 'SELECT COUNT(*) AS n FROM invitations')[0].n;
  const cases = [
    [{}, 400, 'INVALID_INPUT', 'inviterUma'],
    [{ inviterUma: 42 }, 400, 'INVALID_INPUT', 'inviterUma'],
    [{ inviterUma: 'not-an-address' }, 400, 'INVALID_UMA_ADDRESS', 'inviterUma'],
    [{ inviterUma: '$nobody@platform0.example.test' }, 400, 'INVALID_UMA_ADDRESS', 'inviterUma'],
    [{ inviterUma: inviter.umaAddress, firstName: 7 }, 400, 'INVALID_INPUT', 'firstName'],
    [{ inviterUma: inviter.umaAddress, firstName: '   ' }, 400, 'INVALID_INPUT', 'firstName'],
    [{ inviterUma: inviter.umaAddress, firstName: 'x'.repeat(101) }, 400, 'INVALID_INPUT', 'firstName'],
    [{ inviterUma: inviter.umaAddress, amountToSend: 0 }, 400, 'INVALID_INPUT', 'amountToSend'],
    [{ inviterUma: inviter.umaAddress, amountToSend: -5 }, 400, 'INVALID_INPUT', 'amountToSend'],
    [{ inviterUma: inviter.umaAddress, amountToSend: 1.5 }, 400, 'INVALID_INPUT', 'amountToSend'],
    [{ inviterUma: inviter.umaAddress, amountToSend: '100' }, 400, 'INVALID_INPUT', 'amountToSend'],
    [{ inviterUma: inviter.umaAddress, amountToSend: 2_000_000_000 }, 400, 'AMOUNT_OUT_OF_RANGE', 'amountToSend'],
    [{ inviterUma: inviter.umaAddress, amountToSend: 100, amountToSendCurrency: 'XYZ' }, 400, 'INVALID_CURRENCY', 'amountToSendCurrency'],
    // Type-checked even without an amount, which is when the currency is not read.
    [{ inviterUma: inviter.umaAddress, amountToSendCurrency: 5 }, 400, 'INVALID_INPUT', 'amountToSendCurrency'],
    [{ inviterUma: inviter.umaAddress, expiresAt: 20991231 }, 400, 'INVALID_INPUT', 'expiresAt'],
    [{ inviterUma: inviter.umaAddress, amountToSend: 100, amountToSendCurrency: 'JPY' }, 400, 'CURRENCY_NOT_ENABLED', 'amountToSendCurrency'],
    [{ inviterUma: inviter.umaAddress, expiresAt: 'tomorrow' }, 400, 'INVALID_INPUT', 'expiresAt'],
    [{ inviterUma: inviter.umaAddress, expiresAt: '2020-01-01T00:00:00Z' }, 400, 'INVALID_INPUT', 'expiresAt'],
    [{ inviterUma: inviter.umaAddress, expiresAt: '2099-01-01T00:00:00Z' }, 400, 'INVALID_INPUT', 'expiresAt'],
  ];
  for (const [body, status, code, field] of cases) {
    const response = await call(server, sandbox, 'POST', '/invitations', body);
    assertError(response, status, code);
    assert.equal(response.body.details?.field, field, JSON.stringify(body));
  }
  assertError(await call(server, sandbox, 'POST', '/invitations', '{"inviterUma":'), 400, 'INVALID_INPUT');
  // A deleted customer invites no one.
  const leaving = await newCustomer(server, sandbox);
  assert.equal((await call(server, sandbox, 'DELETE', `/customers/${leaving.id}`)).status, 200);
  assertError(await call(server, sandbox, 'POST', '/invitations', { inviterUma: leaving.umaAddress }), 400, 'INVALID_UMA_ADDRESS');
  // Another platform's customer is not this platform's inviter.
  const foreign = await newCustomer(server, other);
  assertError(await call(server, sandbox, 'POST', '/invitations', { inviterUma: foreign.umaAddress }), 400, 'INVALID_UMA_ADDRESS');
  assert.equal(queryRows(server, 'SELECT COUNT(*) AS n FROM invitations')[0].n, countBefore);
});

test('a claim attaches the invitee, writes INVITATION_CLAIMED in its transaction, and happens once', async () => {
  const created = await invite({ firstName: 'Ravi', amountToSend: 2500 });
  assert.equal(claimedEvents(created.code).length, 0);
  const claimed = await call(server, sandbox, 'POST', `/invitations/${created.code}/claim`, { inviteeUma: '$Ravi@OtherWallet.example' });
  assert.equal(claimed.status, 200, claimed.text);
  assert.equal(claimed.body.status, 'CLAIMED');
  assert.equal(claimed.body.inviteeUma, '$ravi@otherwallet.example');
  assert.ok(Date.parse(claimed.body.claimedAt) >= Date.parse(created.createdAt));
  assert.equal(claimed.body.code, created.code);
  assert.deepEqual(claimed.body.amountToSend, created.amountToSend);

  const events = claimedEvents(created.code);
  assert.equal(events.length, 1);
  assert.equal(events[0].platform_id, server.platforms[0].platformId);
  assert.equal(events[0].environment, 'sandbox');
  assert.deepEqual(JSON.parse(events[0].payload), { invitation: claimed.body });

  const read = await call(server, sandbox, 'GET', `/invitations/${created.code}`);
  assert.deepEqual(read.body, claimed.body);

  // A second claim, by the same or another invitee, is refused and writes no second event.
  for (const inviteeUma of ['$ravi@otherwallet.example', '$someone@else.example']) {
    assertError(await call(server, sandbox, 'POST', `/invitations/${created.code}/claim`, { inviteeUma }), 400, 'INVITATION_ALREADY_CLAIMED');
  }
  // A claimed invitation cannot be cancelled either.
  assertError(await call(server, sandbox, 'POST', `/invitations/${created.code}/cancel`), 400, 'INVITATION_ALREADY_CLAIMED');
  assert.equal(claimedEvents(created.code).length, 1);
});

test('concurrent claims: exactly one wins', async () => {
  const created = await invite();
  const results = await Promise.all(Array.from({ length: 8 }, (_, i) =>
    call(server, sandbox, 'POST', `/invitations/${created.code}/claim`, { inviteeUma: `$racer${i}@race.example` })));
  const wins = results.filter((r) => r.status === 200);
  assert.equal(wins.length, 1, results.map((r) => r.status).join(','));
  for (const loss of results.filter((r) => r.status !== 200)) assertError(loss, 400, 'INVITATION_ALREADY_CLAIMED');
  assert.equal(claimedEvents(created.code).length, 1);
  const read = await call(server, sandbox, 'GET', `/invitations/${created.code}`);
  assert.equal(read.body.inviteeUma, wins[0].body.inviteeUma);
});

test('claim input: the invitee must be an UMA address other than the inviter', async () => {
  const created = await invite();
  const cases = [
    [{}, 'INVALID_INPUT'],
    [{ inviteeUma: 12 }, 'INVALID_INPUT'],
    [{ inviteeUma: 'friend@example.com' }, 'INVALID_UMA_ADDRESS'],
    [{ inviteeUma: '$bad user@example.com' }, 'INVALID_UMA_ADDRESS'],
    [{ inviteeUma: inviter.umaAddress }, 'INVALID_INPUT'],
  ];
  for (const [body, code] of cases) {
    const response = await call(server, sandbox, 'POST', `/invitations/${created.code}/claim`, body);
    assertError(response, 400, code);
    assert.equal(response.body.details?.field, 'inviteeUma');
  }
  const read = await call(server, sandbox, 'GET', `/invitations/${created.code}`);
  assert.equal(read.body.status, 'PENDING');
  assert.equal(claimedEvents(created.code).length, 0);
});

test('create and claim: a defined field of the wrong type is 400 naming it, nothing is created or claimed', async () => {
  const created = await invite();
  await expectWrongTypes((body) => call(server, sandbox, 'POST', '/invitations', body),
    { inviterUma: inviter.umaAddress, firstName: 'Ann', amountToSend: 500, amountToSendCurrency: 'USD', expiresAt: '2099-01-01T00:00:00Z' },
    [['inviterUma', 1], ['firstName', 2], ['amountToSend', '500'], ['amountToSend', 5.5], ['amountToSendCurrency', 840], ['expiresAt', 4102444800]]);
  await expectWrongTypes((body) => call(server, sandbox, 'POST', `/invitations/${created.code}/claim`, body),
    { inviteeUma: '$friend@example.com' }, [['inviteeUma', 1], ['inviteeUma', ['$friend@example.com']], ['inviteeUma', { user: 'friend' }]]);
  assert.equal((await call(server, sandbox, 'GET', `/invitations/${created.code}`)).body.status, 'PENDING');
  assert.equal(claimedEvents(created.code).length, 0);
  const claimed = await call(server, sandbox, 'POST', `/invitations/${created.code}/claim`, { inviteeUma: '$friend@example.com', note: 1 });
  assert.equal(claimed.status, 200, claimed.text);
});

test('cancel: PENDING -> CANCELLED; then neither claim nor cancel', async () => {
  const created = await invite({ firstName: 'Lee' });
  const cancelled = await call(server, sandbox, 'POST', `/invitations/${created.code}/cancel`);
  assert.equal(cancelled.status, 200, cancelled.text);
  assert.equal(cancelled.body.status, 'CANCELLED');
  assert.ok(!('inviteeUma' in cancelled.body) && !('claimedAt' in cancelled.body));
  assertError(await call(server, sandbox, 'POST', `/invitations/${created.code}/claim`, { inviteeUma: '$lee@x.example' }), 400, 'INVITATION_CANCELLED');
  assertError(await call(server, sandbox, 'POST', `/invitations/${created.code}/cancel`), 400, 'INVITATION_CANCELLED');
  assert.equal((await call(server, sandbox, 'GET', `/invitations/${created.code}`)).body.status, 'CANCELLED');
  assert.equal(claimedEvents(created.code).length, 0);
});

test('expiry: past expiresAt the invitation reads EXPIRED and can be neither claimed nor cancelled', async () => {
  const expiresAt = new Date(Date.now() + 1500).toISOString();
  const created = await invite({ expiresAt });
  assert.equal(created.status, 'PENDING');
  await sleep(Math.max(0, Date.parse(expiresAt) - Date.now()) + 300);
  const read = await call(server, sandbox, 'GET', `/invitations/${created.code}`);
  assert.equal(read.body.status, 'EXPIRED');
  assertError(await call(server, sandbox, 'POST', `/invitations/${created.code}/claim`, { inviteeUma: '$late@x.example' }), 400, 'INVITATION_EXPIRED');
  assertError(await call(server, sandbox, 'POST', `/invitations/${created.code}/cancel`), 400, 'INVITATION_EXPIRED');
  assert.equal(claimedEvents(created.code).length, 0);
});

test('tenancy: another platform or environment reads not found; another platform may not cancel', async () => {
  const created = await invite();
  const path = `/invitations/${created.code}`;
  for (const credentials of [other, production]) {
    assertError(await call(server, credentials, 'GET', path), 404, 'INVITATION_NOT_FOUND');
    assertError(await call(server, credentials, 'POST', `${path}/claim`, { inviteeUma: '$x@y.example' }), 404, 'INVITATION_NOT_FOUND');
  }
  assertError(await call(server, other, 'POST', `${path}/cancel`), 403, 'FORBIDDEN');
  assertError(await call(server, production, 'POST', `${path}/cancel`), 404, 'INVITATION_NOT_FOUND');
  // Still PENDING for its owner.
  assert.equal((await call(server, sandbox, 'GET', path)).body.status, 'PENDING');
  // Unknown codes, of any shape.
  for (const code of ['aaaaaaaaaaaaaaaaaaaaaaaaaa', 'nope', 'x'.repeat(200)]) {
    assertError(await call(server, sandbox, 'GET', `/invitations/${code}`), 404, 'INVITATION_NOT_FOUND');
    assertError(await call(server, sandbox, 'POST', `/invitations/${code}/cancel`), 404, 'INVITATION_NOT_FOUND');
  }
});

test('permissions: VIEW reads; creating, claiming and cancelling need MANAGE; credentials required', async () => {
  const created = await invite();
  assert.equal((await call(server, viewOnly, 'GET', `/invitations/${created.code}`)).status, 200);
  assertError(await call(server, viewOnly, 'POST', '/invitations', { inviterUma: inviter.umaAddress }), 403, 'FORBIDDEN');
  assertError(await call(server, viewOnly, 'POST', `/invitations/${created.code}/claim`, { inviteeUma: '$v@x.example' }), 403, 'FORBIDDEN');
  assertError(await call(server, viewOnly, 'POST', `/invitations/${created.code}/cancel`), 403, 'FORBIDDEN');
  assertError(await call(server, undefined, 'GET', `/invitations/${created.code}`), 401, 'UNAUTHORIZED');
  assert.equal((await call(server, sandbox, 'GET', `/invitations/${created.code}`)).body.status, 'PENDING');
});

test('the url serves the claim page without credentials; the page claims with the same event', async () => {
  const created = await invite({ firstName: 'Maria', amountToSend: 12550 });
  const pagePath = `/invite/${created.code}`;
  const page = await call(server, undefined, 'GET', pagePath, undefined, { raw: true });
  assert.equal(page.status, 200);
  assert.match(page.headers.get('content-type'), /^text\/html/);
  assert.match(page.headers.get('content-security-policy'), /default-src 'none'/);
  assert.ok(page.text.includes('Maria'));
  assert.ok(page.text.includes(inviter.umaAddress));
  assert.ok(page.text.includes('$125.50 USD'));
  assert.ok(!/<script|https?:\/\/(?!pay\.example)/i.test(page.text.replace(/placeholder="[^"]*"/, '')), 'no scripts or external assets');

  const form = { 'content-type': 'application/x-www-form-urlencoded', raw: true };
  const bad = await call(server, undefined, 'POST', pagePath, 'inviteeUma=not-an-address', form);
  assert.equal(bad.status, 400);
  assert.ok(bad.text.includes('Enter an UMA address'));
  const own = await call(server, undefined, 'POST', pagePath, `inviteeUma=${encodeURIComponent(inviter.umaAddress)}`, form);
  assert.equal(own.status, 400);
  assert.equal(claimedEvents(created.code).length, 0);

  const accepted = await call(server, undefined, 'POST', pagePath, `inviteeUma=${encodeURIComponent('$maria+1@wallet.example')}`, form);
  assert.equal(accepted.status, 200, accepted.text);
  assert.ok(accepted.text.includes('Invitation accepted'));
  const read = await call(server, sandbox, 'GET', `/invitations/${created.code}`);
  assert.equal(read.body.status, 'CLAIMED');
  assert.equal(read.body.inviteeUma, '$maria+1@wallet.example');
  const events = claimedEvents(created.code);
  assert.equal(events.length, 1);
  assert.deepEqual(JSON.parse(events[0].payload), { invitation: read.body });

  // Afterwards the page says so and claims nothing more.
  assert.equal((await call(server, undefined, 'GET', pagePath, undefined, { raw: true })).status, 410);
  assert.equal((await call(server, undefined, 'POST', pagePath, 'inviteeUma=%24z%40z.example', form)).status, 410);
  assert.equal(claimedEvents(created.code).length, 1);
  assert.equal((await call(server, undefined, 'GET', '/invite/unknowncode', undefined, { raw: true })).status, 404);
});
