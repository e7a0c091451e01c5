// Webhooks end to end against a receiver on loopback: every event signed over its exact bytes and
// verifiable with the PEM the CLI prints, payment events on every status change, retries with the
// same webhookId, no retry after a 409 or for TEST, redirects not followed, POST /webhooks/test and
// its errors, the attempts list, /metrics, key rotation, the refusal of private addresses, and the
// approval routes' refusals.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createVerify } from 'node:crypto';
import { startCorridor, stopCorridor, call, runCli, metricsText } from './lib/harness.mjs';
import { startReceiver, stopReceiver, signatureOf } from './lib/receiver.mjs';
import { newCustomer, accountsOf, fund, payer, quoteBody, createQuote, eventually, sleep } from './lib/money.mjs';
import { expectError } from './lib/expect.mjs';
import { outboxWithTenant, queryRows } from './lib/database.mjs';

let server;
let receiver;
let sandbox;
let production;
let other;

const fastRetries = {
  outbound: { allow_private_addresses: true },
  webhooks: {
    approval_timeout_ms: 5000, connect_timeout_ms: 1000, response_timeout_ms: 1000,
    retry_initial_interval_ms: 100, retry_interval_max_ms: 400, retry_max_age_hours: 168,
    poll_interval_ms: 20, in_flight_max: 64,
  },
};

before(async () => {
  receiver = await startReceiver();
  server = await startCorridor({ platforms: 2, config: fastRetries });
  sandbox = server.platforms[0].sandbox;
  production = server.platforms[0].production;
  other = server.platforms[1].sandbox;
  const patched = await call(server, sandbox, 'PATCH', '/config', { webhookEndpoint: receiver.url });
  assert.equal(patched.status, 200, patched.text);
});
after(async () => {
  if (server) await stopCorridor(server);
  if (receiver) await stopReceiver(receiver);
});

function publicKey(platform = server.platforms[0], environment = 'sandbox') {
  return runCli(server, ['webhook-key', 'show', '--platform', platform.platformId, '--environment', environment]);
}

function verifies(pem, raw, signature) {
  const verifier = createVerify('SHA256');
  verifier.update(raw);
  return verifier.verify(pem, signature, 'base64');
}

function deliveriesOf(predicate) {
  return receiver.requests.filter((entry) => entry.body && predicate(entry.body));
}

async function waitFor(predicate, count = 1, timeoutMs = 10000) {
  await eventually(() => deliveriesOf(predicate).length >= count || undefined, { timeoutMs });
  return deliveriesOf(predicate);
}

test('the CLI prints one stable P-256 public key per environment', () => {
  const pem = publicKey();
  assert.match(pem, /^-----BEGIN PUBLIC KEY-----\n[A-Za-z0-9+/=\n]+-----END PUBLIC KEY-----\n$/);
  assert.equal(publicKey(), pem);
  assert.notEqual(publicKey(server.platforms[0], 'production'), pem);
  assert.notEqual(publicKey(server.platforms[1]), pem);
  assert.throws(() => runCli(server, ['webhook-key', 'show', '--platform', 'PlatformConfig:nope', '--environment', 'sandbox']));
  assert.throws(() => runCli(server, ['webhook-key', 'show', '--platform', server.platforms[0].platformId, '--environment', 'staging']));
});

test('every delivery is signed over its exact bytes; a tampered body fails verification', async () => {
  const customer = await newCustomer(server, sandbox);
  const account = (await accountsOf(server, sandbox, customer.id)).USD;
  await fund(server, sandbox, account.id, 2500);
  const [incoming] = await waitFor((b) => b.type === 'INCOMING_PAYMENT' && b.transaction?.destination?.accountId === account.id);
  const [balance] = await waitFor((b) => b.type === 'ACCOUNT_STATUS' && b.accountId === account.id);
  const pem = publicKey();
  for (const entry of [incoming, balance]) {
    assert.equal(entry.method, 'POST');
    assert.match(entry.headers['content-type'], /^application\/json/);
    const signature = signatureOf(entry);
    assert.deepEqual(Object.keys(signature).sort(), ['s', 'v']);
    assert.equal(signature.v, '1');
    assert.ok(verifies(pem, entry.raw, signature.s), 'signature does not verify');
    const tampered = Buffer.from(entry.raw);
    tampered[tampered.length - 2] ^= 1;
    assert.equal(verifies(pem, tampered, signature.s), false);
    assert.equal(verifies(publicKey(server.platforms[1]), entry.raw, signature.s), false);
    assert.match(entry.body.webhookId, /^Webhook:[0-9a-f-]{36}$/);
    assert.match(entry.body.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
  }
  assert.equal(incoming.body.transaction.status, 'COMPLETED');
  assert.equal(incoming.body.transaction.type, 'INCOMING');
  assert.equal(incoming.body.transaction.receivedAmount.amount, 2500);
  assert.equal(incoming.body.transaction.customerId, customer.id);
  assert.equal(balance.body.oldBalance.amount, 0);
  assert.equal(balance.body.newBalance.amount, 2500);
  assert.equal(balance.body.newBalance.currency.code, 'USD');
  assert.equal(balance.body.customerId, customer.id);
  assert.equal(balance.body.platformCustomerId, customer.platformCustomerId);
});

test('a payment sends one event per state it commits, and the receiver gets each once', async () => {
  const { source, destination } = await payer(server, sandbox, 'USD', 'EUR', 100000);
  // Created and executed at once: the command commits COMPLETED, so its PENDING state is never
  // seen and sends no event (README, Webhooks).
  const quote = await createQuote(server, sandbox, quoteBody(source.id, destination.id, 5000, 'SENDING', { immediatelyExecute: true }));
  await waitFor((b) => b.type === 'OUTGOING_PAYMENT' && b.transaction?.id === quote.transactionId);
  await waitFor((b) => b.type === 'INCOMING_PAYMENT' && b.transaction?.destination?.accountId === destination.id);
  await waitFor((b) => b.type === 'ACCOUNT_STATUS' && b.accountId === source.id && b.newBalance.amount === 95000);
  // Created, then executed by a second request: both states committed, both are sent.
  const kept = await createQuote(server, sandbox, quoteBody(source.id, destination.id, 3000, 'SENDING'));
  const pending = await waitFor((b) => b.type === 'OUTGOING_PAYMENT' && b.transaction?.id === kept.transactionId);
  assert.deepEqual(pending.map((e) => e.body.transaction.status), ['PENDING']);
  const executed = await call(server, sandbox, 'POST', `/quotes/${kept.id}/execute`);
  assert.equal(executed.status, 200, executed.text);
  const both = await waitFor((b) => b.type === 'OUTGOING_PAYMENT' && b.transaction?.id === kept.transactionId, 2);
  // Several events are sent at once, so they may arrive in any order (README, Webhooks).
  assert.deepEqual(both.map((e) => e.body.transaction.status).sort(), ['COMPLETED', 'PENDING']);
  await sleep(300);
  const once = deliveriesOf((b) => b.type === 'OUTGOING_PAYMENT' && b.transaction?.id === quote.transactionId);
  assert.deepEqual(once.map((e) => e.body.transaction.status), ['COMPLETED']);
  const ids = receiver.requests.map((e) => e.body?.webhookId);
  assert.equal(new Set(ids).size, ids.length, 'a webhook was delivered twice after a 200');
});

test('a failing endpoint is retried with the same webhookId until it answers 2xx', async () => {
  const seen = new Map();
  receiver.respond = (entry) => {
    if (entry.body?.type !== 'ACCOUNT_STATUS') return { status: 200 };
    const count = (seen.get(entry.body.webhookId) ?? 0) + 1;
    seen.set(entry.body.webhookId, count);
    return { status: count < 3 ? 503 : 200, body: 'busy' };
  };
  try {
    const customer = await newCustomer(server, sandbox);
    const account = (await accountsOf(server, sandbox, customer.id)).USD;
    await fund(server, sandbox, account.id, 700);
    const tries = await waitFor((b) => b.type === 'ACCOUNT_STATUS' && b.accountId === account.id, 3);
    const webhookId = tries[0].body.webhookId;
    assert.ok(tries.every((e) => e.body.webhookId === webhookId));
    assert.ok(tries[1].at - tries[0].at >= 90, 'the first retry came before the backoff');
    const pem = publicKey();
    for (const entry of tries) assert.ok(verifies(pem, entry.raw, signatureOf(entry).s));
    const listed = await eventually(async () => {
      const response = await call(server, sandbox, 'GET', `/webhooks/deliveries?webhookId=${encodeURIComponent(webhookId)}`);
      return response.body?.totalCount === 3 ? response : undefined;
    });
    assert.deepEqual(listed.body.data.map((a) => [a.attempt, a.outcome, a.responseStatus]),
      [[3, 'SUCCEEDED', 200], [2, 'RETRY_SCHEDULED', 503], [1, 'RETRY_SCHEDULED', 503]]);
    const first = listed.body.data[2];
    assert.equal(first.webhookId, webhookId);
    assert.equal(first.type, 'ACCOUNT_STATUS');
    assert.equal(first.url, receiver.url);
    assert.equal(first.responseExcerpt, 'busy');
    assert.equal(typeof first.latencyMs, 'number');
    assert.match(first.nextAttemptAt, /Z$/);
    await sleep(500);
    assert.equal(deliveriesOf((b) => b.webhookId === webhookId).length, 3);
  } finally {
    receiver.respond = () => ({ status: 200 });
  }
});

test('a 409 answer stops the retries; a redirect is not followed', async () => {
  receiver.respond = (entry) => {
    if (entry.body?.type === 'ACCOUNT_STATUS') return { status: 409 };
    if (entry.body?.type === 'INCOMING_PAYMENT') return { status: 302, headers: { location: '/elsewhere' } };
    return { status: 200 };
  };
  try {
    const customer = await newCustomer(server, sandbox);
    const account = (await accountsOf(server, sandbox, customer.id)).USD;
    await fund(server, sandbox, account.id, 800);
    await waitFor((b) => b.type === 'INCOMING_PAYMENT' && b.transaction?.destination?.accountId === account.id, 2);
    await sleep(600);
    assert.equal(deliveriesOf((b) => b.type === 'ACCOUNT_STATUS' && b.accountId === account.id).length, 1);
    assert.equal(receiver.requests.filter((e) => e.url !== '/hooks').length, 0, 'a redirect was followed');
    const conflicts = await call(server, sandbox, 'GET', '/webhooks/deliveries?type=ACCOUNT_STATUS&outcome=GAVE_UP');
    assert.equal(conflicts.status, 200, conflicts.text);
    assert.ok(conflicts.body.data.some((a) => a.responseStatus === 409));
    const redirects = await call(server, sandbox, 'GET', '/webhooks/deliveries?type=INCOMING_PAYMENT&outcome=RETRY_SCHEDULED');
    assert.ok(redirects.body.data.some((a) => a.responseStatus === 302 && a.error === 'redirect not followed'));
  } finally {
    receiver.respond = () => ({ status: 200 });
  }
});

test('POST /webhooks/test delivers a TEST event at once and reports the answer; TEST is sent once', async () => {
  receiver.respond = (entry) => (entry.body?.type === 'TEST' ? { status: 500, body: 'not today' } : { status: 200 });
  try {
    const response = await call(server, sandbox, 'POST', '/webhooks/test');
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.body, { url: receiver.url, response_status: 500, response_body: 'not today' });
    const tests = deliveriesOf((b) => b.type === 'TEST');
    assert.equal(tests.length, 1);
    assert.deepEqual(Object.keys(tests[0].body).sort(), ['test', 'timestamp', 'type', 'webhookId']);
    assert.equal(tests[0].body.test, true);
    assert.ok(verifies(publicKey(), tests[0].raw, signatureOf(tests[0]).s));
    await sleep(600);
    assert.equal(deliveriesOf((b) => b.type === 'TEST').length, 1, 'TEST was retried');
    const listed = await call(server, sandbox, 'GET', `/webhooks/deliveries?webhookId=${tests[0].body.webhookId}`);
    assert.deepEqual(listed.body.data.map((a) => [a.outcome, a.responseStatus]), [['GAVE_UP', 500]]);
  } finally {
    receiver.respond = () => ({ status: 200 });
  }
  const ok = await call(server, sandbox, 'POST', '/webhooks/test');
  assert.equal(ok.status, 200, ok.text);
  assert.equal(ok.body.response_status, 200);
});

test('events recorded while an environment has no endpoint are closed at once; those after PATCH /config are sent', async () => {
  // `other` has no endpoint yet (the test after this one gives it one).
  const platformId = server.platforms[1].platformId;
  const customer = await newCustomer(server, other);
  const account = (await accountsOf(server, other, customer.id)).USD;
  await fund(server, other, account.id, 700);
  // Recorded closed (NO_ENDPOINT) with their change: never claimed, no attempt, none in the log.
  const closed = queryRows(server, `SELECT id, state, attempts, finished_at_ms, created_at_ms FROM ${outboxWithTenant(server)}
    WHERE platform_id = '${platformId}' AND environment = 'sandbox'`);
  assert.ok(closed.length >= 2, JSON.stringify(closed));
  for (const event of closed) {
    assert.equal(event.state, 'NO_ENDPOINT', JSON.stringify(event));
    assert.equal(Number(event.attempts), 0);
    assert.equal(Number(event.finished_at_ms), Number(event.created_at_ms));
  }
  const log = await call(server, other, 'GET', '/webhooks/deliveries');
  assert.equal(log.status, 200, log.text);
  assert.equal(log.body.totalCount, 0);
  const patched = await call(server, other, 'PATCH', '/config', { webhookEndpoint: receiver.url });
  assert.equal(patched.status, 200, patched.text);
  await fund(server, other, account.id, 800);
  await waitFor((b) => b.type === 'ACCOUNT_STATUS' && b.accountId === account.id && b.newBalance.amount === 1500);
  await sleep(300);  // a round of delivery after the one that sent it: the closed ones stay unsent
  const ids = new Set(closed.map((event) => event.id));
  assert.equal(deliveriesOf((b) => ids.has(b.webhookId)).length, 0);
  assert.equal(deliveriesOf((b) => b.type === 'ACCOUNT_STATUS' && b.accountId === account.id && b.newBalance.amount === 700).length, 0);
});

test('POST /webhooks/test: 400 without an endpoint, 400 when the endpoint cannot be reached', async () => {
  expectError(await call(server, production, 'POST', '/webhooks/test'), 400, 'WEBHOOK_ENDPOINT_NOT_SET');
  const closed = await startReceiver();
  const closedUrl = closed.url;
  await stopReceiver(closed);
  const patched = await call(server, other, 'PATCH', '/config', { webhookEndpoint: closedUrl });
  assert.equal(patched.status, 200, patched.text);
  const failed = await call(server, other, 'POST', '/webhooks/test');
  expectError(failed, 400, 'WEBHOOK_DELIVERY_ERROR');
  assert.equal(failed.body.details.url, closedUrl);
  const listed = await call(server, other, 'GET', '/webhooks/deliveries?type=TEST');
  assert.equal(listed.body.totalCount, 1);
  assert.equal(listed.body.data[0].responseStatus, null);
  assert.match(listed.body.data[0].error, /connect/);
});

test('the attempts list is the tenant\'s own, validates its filters, and /metrics counts attempts', async () => {
  const mine = await call(server, sandbox, 'GET', '/webhooks/deliveries?limit=5');
  assert.equal(mine.status, 200, mine.text);
  assert.equal(mine.body.data.length, 5);
  assert.equal(mine.body.hasMore, true);
  const next = await call(server, sandbox, 'GET', `/webhooks/deliveries?limit=5&cursor=${encodeURIComponent(mine.body.nextCursor)}`);
  assert.equal(next.status, 200, next.text);
  assert.ok(next.body.data.every((a) => !mine.body.data.some((b) => b.id === a.id)));
  const theirs = await call(server, other, 'GET', '/webhooks/deliveries?limit=100');
  assert.ok(theirs.body.data.every((a) => !mine.body.data.some((b) => b.id === a.id)));
  const byOtherTenant = await call(server, other, 'GET', `/webhooks/deliveries?webhookId=${mine.body.data[0].webhookId}`);
  assert.equal(byOtherTenant.body.totalCount, 0);
  expectError(await call(server, sandbox, 'GET', '/webhooks/deliveries?webhookId=nope'), 400, 'INVALID_INPUT', 'webhookId');
  // Ids are stored as 16 bytes: one that is not an id, or a cursor of another list, is refused
  // before the database sees it.
  expectError(await call(server, sandbox, 'GET', '/webhooks/deliveries?webhookId=Webhook:nope'), 400, 'INVALID_INPUT', 'webhookId');
  // An id's text in upper case was never an id (ids are made lower case): it finds nothing.
  const upper = await call(server, sandbox, 'GET', `/webhooks/deliveries?webhookId=Webhook:${mine.body.data[0].webhookId.slice(8).toUpperCase()}`);
  assert.equal(upper.status, 200, upper.text);
  assert.equal(upper.body.totalCount, 0);
  const quotesCursor = Buffer.from(Buffer.from(mine.body.nextCursor, 'base64url').toString('utf8')
    .replace(/WebhookAttempt:/, 'Quote:')).toString('base64url');
  expectError(await call(server, sandbox, 'GET', `/webhooks/deliveries?cursor=${quotesCursor}`), 400, 'INVALID_INPUT', 'cursor');
  // A page in ascending order after a cursor: the rest, none repeated.
  const first = await call(server, sandbox, 'GET', '/webhooks/deliveries?limit=3&sortOrder=asc');
  const rest = await call(server, sandbox, 'GET', `/webhooks/deliveries?limit=100&sortOrder=asc&cursor=${encodeURIComponent(first.body.nextCursor)}`);
  assert.equal(rest.status, 200, rest.text);
  assert.equal(rest.body.data.length, Math.min(100, first.body.totalCount - 3));
  assert.ok(rest.body.data.every((a) => !first.body.data.some((b) => b.id === a.id)));
  assert.ok(rest.body.data.every((a, i) => i === 0 || rest.body.data[i - 1].id < a.id));
  expectError(await call(server, sandbox, 'GET', '/webhooks/deliveries?outcome=MAYBE'), 400, 'INVALID_INPUT', 'outcome');
  expectError(await call(server, sandbox, 'GET', '/webhooks/deliveries?type=NOPE'), 400, 'INVALID_INPUT', 'type');
  const metrics = await metricsText(server);
  const succeeded = Number(metrics.match(/corridor_webhook_attempts_total\{outcome="SUCCEEDED"\} (\d+)/)?.[1]);
  assert.ok(succeeded >= 5, metrics);
  assert.match(metrics, /corridor_webhook_queue_depth \d+/);
  assert.match(metrics, /corridor_webhook_delivery_lag_seconds_count [1-9]/);
});

test('a rotated key signs from then on; the old key no longer verifies', async () => {
  const before = publicKey();
  const rotated = runCli(server, ['webhook-key', 'rotate', '--platform', server.platforms[0].platformId, '--environment', 'sandbox']);
  assert.notEqual(rotated, before);
  assert.equal(publicKey(), rotated);
  const response = await call(server, sandbox, 'POST', '/webhooks/test');
  assert.equal(response.status, 200, response.text);
  const latest = deliveriesOf((b) => b.type === 'TEST').at(-1);
  assert.ok(verifies(rotated, latest.raw, signatureOf(latest).s));
  assert.equal(verifies(before, latest.raw, signatureOf(latest).s), false);
});

test('approve and reject refuse what is not pending platform approval', async () => {
  const customer = await newCustomer(server, sandbox);
  const account = (await accountsOf(server, sandbox, customer.id)).USD;
  const deposit = await fund(server, sandbox, account.id, 100);
  const listed = await call(server, sandbox, 'GET', `/transactions?type=INCOMING&limit=1`);
  const completed = listed.body.data[0].id;
  assert.ok(deposit);
  expectError(await call(server, sandbox, 'POST', `/transactions/${completed}/approve`, {}), 409, 'TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL');
  expectError(await call(server, sandbox, 'POST', `/transactions/${completed}/reject`, { reason: 'no' }), 409, 'TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL');
  expectError(await call(server, sandbox, 'POST', `/transactions/${completed}/reject`), 409, 'TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL');
  expectError(await call(server, other, 'POST', `/transactions/${completed}/approve`), 404, 'TRANSACTION_NOT_FOUND');
  expectError(await call(server, sandbox, 'POST', '/transactions/Transaction:00000000-0000-7000-8000-000000000000/approve'), 404, 'TRANSACTION_NOT_FOUND');
  expectError(await call(server, sandbox, 'POST', `/transactions/${completed}/approve`, { receiverCustomerInfo: 'x' }), 400, 'INVALID_INPUT', 'receiverCustomerInfo');
  expectError(await call(server, sandbox, 'POST', `/transactions/${completed}/reject`, { reason: 7 }), 400, 'INVALID_INPUT', 'reason');
});

test('without outbound.allow_private_addresses, a loopback endpoint is refused', async () => {
  const strict = await startCorridor({ platforms: 1 });
  try {
    const credentials = strict.platforms[0].sandbox;
    const patched = await call(strict, credentials, 'PATCH', '/config', { webhookEndpoint: receiver.url });
    assert.equal(patched.status, 200, patched.text);
    const before = receiver.requests.length;
    const response = await call(strict, credentials, 'POST', '/webhooks/test');
    expectError(response, 400, 'WEBHOOK_DELIVERY_ERROR');
    assert.match(response.body.message, /private, loopback or link-local/);
    const customer = await newCustomer(strict, credentials);
    await fund(strict, credentials, (await accountsOf(strict, credentials, customer.id)).USD.id, 100);
    const refused = await eventually(async () => {
      const listed = await call(strict, credentials, 'GET', '/webhooks/deliveries?type=ACCOUNT_STATUS');
      return listed.body?.totalCount >= 1 ? listed : undefined;
    });
    assert.match(refused.body.data[0].error, /refused/);
    assert.equal(receiver.requests.length, before);
  } finally {
    await stopCorridor(strict);
  }
});
