// Finished webhook events are pruned after the retention: delivered events and their delivery
// attempts disappear, events still being retried stay with their attempts, and the transaction an
// event announced is untouched. The retention is webhooks.retention_days (whole days) for
// operators; this suite sets the harness-only webhooks.retention_ms so that it can watch a prune
// happen within seconds, and a short quotes.sweep_interval_ms so that the upkeep runs often.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCorridor, stopCorridor, call, runCli } from './lib/harness.mjs';
import { startReceiver, stopReceiver } from './lib/receiver.mjs';
import { newCustomer, accountsOf, fund, payer, quoteBody, createQuote, eventually } from './lib/money.mjs';
import { outboxRows, packedIdLiteral, queryRows } from './lib/database.mjs';

const retentionMs = 3000;
let server;
let receiver;
let sandbox;
let failingAccount;  // the receiver refuses this account's ACCOUNT_STATUS events, so they stay PENDING

before(async () => {
  receiver = await startReceiver((entry) => (
    entry.body?.type === 'ACCOUNT_STATUS' && entry.body.accountId === failingAccount ? { status: 503 } : { status: 200 }));
  server = await startCorridor({
    platforms: 1,
    config: {
      outbound: { allow_private_addresses: true },
      quotes: { sweep_interval_ms: 100 },
      webhooks: { retention_ms: retentionMs, retry_initial_interval_ms: 200, retry_interval_max_ms: 400, poll_interval_ms: 20 },
    },
  });
  sandbox = server.platforms[0].sandbox;
  const patched = await call(server, sandbox, 'PATCH', '/config', { webhookEndpoint: receiver.url });
  assert.equal(patched.status, 200, patched.text);
});
after(async () => {
  if (server) await stopCorridor(server);
  if (receiver) await stopReceiver(receiver);
});

const eventsMentioning = (text, type = '%') => outboxRows(server, 'id, type, state', `type LIKE '${type}'`, text);

async function attemptsOf(webhookId) {
  const listed = await call(server, sandbox, 'GET', `/webhooks/deliveries?webhookId=${encodeURIComponent(webhookId)}`);
  assert.equal(listed.status, 200, listed.text);
  return listed.body.data;
}

test('delivered events and their attempts are pruned after the retention; retried ones stay; the transaction is untouched', async () => {
  const failing = await newCustomer(server, sandbox);
  failingAccount = (await accountsOf(server, sandbox, failing.id)).USD.id;
  await fund(server, sandbox, failingAccount, 900);

  const { source, destination } = await payer(server, sandbox, 'USD', 'EUR', 100000);
  const quote = await createQuote(server, sandbox, quoteBody(source.id, destination.id, 5000, 'SENDING', { immediatelyExecute: true }));
  const transactionId = quote.transactionId;
  // Its one committed state delivered (COMPLETED: executed at once, it never committed PENDING),
  // recorded with its attempt.
  const delivered = await eventually(() => {
    const rows = eventsMentioning(transactionId).filter((e) => e.type === 'OUTGOING_PAYMENT');
    return rows.length === 1 && rows.every((e) => e.state === 'DELIVERED') ? rows : undefined;
  });
  const before = await call(server, sandbox, 'GET', `/transactions/${encodeURIComponent(transactionId)}`);
  assert.equal(before.status, 200, before.text);
  assert.equal(before.body.status, 'COMPLETED');
  for (const event of delivered) assert.equal((await attemptsOf(event.id)).length, 1);
  const failingEvent = await eventually(() => {
    const [row] = eventsMentioning(failingAccount, 'ACCOUNT_STATUS');
    return row && (queryRows(server, `SELECT attempts FROM outbox_events WHERE id = ${packedIdLiteral(server, row.id)}`)[0].attempts >= 2) ? row : undefined;
  });
  assert.equal(failingEvent.state, 'PENDING');

  // Gone after the retention (plus an upkeep run): the events and their attempts.
  await eventually(() => eventsMentioning(transactionId).length === 0 || undefined, { timeoutMs: 15000 });
  for (const event of delivered) assert.deepEqual(await attemptsOf(event.id), []);
  assert.deepEqual(queryRows(server, `SELECT id FROM webhook_attempts WHERE event_id IN (${delivered.map((e) => packedIdLiteral(server, e.id)).join(', ')})`), []);

  // The event still being retried is older than the retention but not finished: it stays, with
  // every attempt made, and is still being tried.
  const [stillThere] = eventsMentioning(failingAccount, 'ACCOUNT_STATUS');
  assert.equal(stillThere?.id, failingEvent.id);
  assert.equal(stillThere.state, 'PENDING');
  const attemptsNow = (await attemptsOf(failingEvent.id)).length;
  assert.ok(attemptsNow >= 2, `attempts of the retried event: ${attemptsNow}`);
  await eventually(async () => (await attemptsOf(failingEvent.id)).length > attemptsNow || undefined);

  // The transaction the pruned events announced reads exactly as before, postings included.
  const afterPrune = await call(server, sandbox, 'GET', `/transactions/${encodeURIComponent(transactionId)}`);
  assert.deepEqual(afterPrune.body, before.body);
  const shown = JSON.parse(runCli(server, ['payment', 'show', transactionId, '--json']));
  assert.equal(shown.transaction.id, transactionId);
  assert.ok(shown.postings.length > 0, 'postings of the pruned events\' transaction are gone');
  assert.deepEqual(shown.webhookEvents, []);
});
