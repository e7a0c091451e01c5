// Webhook delivery is woken by commits, not found by polling: with the poll set to a minute, an
// event still arrives at once after the commit that recorded it, in the same process and, on
// PostgreSQL, when another process (psql, or a second Corridor process) commits the event and sends
// NOTIFY. The wake-ups are counted by source in /metrics.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCorridor, stopCorridor, call, anotherProcess, launch, metricsText } from './lib/harness.mjs';
import { startReceiver, stopReceiver } from './lib/receiver.mjs';
import { platformAccounts, fund, eventually } from './lib/money.mjs';
import { packedIdLiteral, runStatement } from './lib/database.mjs';

let server;
let receiver;
let sandbox;

before(async () => {
  receiver = await startReceiver();
  server = await startCorridor({
    platforms: 1,
    config: {
      outbound: { allow_private_addresses: true },  // the receiver is on loopback
      // Harness-only: a poll this slow means that only the commit's wake-up can deliver in time.
      webhooks: { poll_interval_ms: 60000 },
    },
  });
  sandbox = server.platforms[0].sandbox;
  const patched = await call(server, sandbox, 'PATCH', '/config', { webhookEndpoint: receiver.url });
  assert.equal(patched.status, 200, patched.text);
  // Let the first poll round (at start) pass, so that what follows is not delivered by it.
  await new Promise((resolve) => setTimeout(resolve, 300));
});
const onPostgres = Boolean(process.env.CORRIDOR_TEST_POSTGRES_URL_FILE);

async function wakeups(of, source) {
  const text = await metricsText(of);
  const found = text.match(new RegExp(`^corridor_webhook_wakeups_total\\{source="${source}"\\} (\\d+)$`, 'm'));
  assert.ok(found, `no ${source} wake-up counter in /metrics`);
  return Number(found[1]);
}

after(async () => {
  if (server) await stopCorridor(server);
  if (receiver) await stopReceiver(receiver);
});

test('an event is delivered right after the commit that recorded it', async () => {
  const accounts = await platformAccounts(server, sandbox);
  const before = receiver.requests.length;
  const woken = await wakeups(server, 'commit');
  await fund(server, sandbox, accounts.USD.id, 5000);
  // Within 5 s, while the next poll is a minute away: only the commit's wake-up delivers it.
  await eventually(() => receiver.requests.length > before || undefined, { timeoutMs: 5000 });
  assert.ok(await wakeups(server, 'commit') > woken, 'the commit did not wake delivery');
});

test('on PostgreSQL another process\'s commit wakes delivery through NOTIFY',
  { skip: !onPostgres && 'NOTIFY is PostgreSQL\'s; the SQLite run has one process' },
  async () => {
    const id = `Webhook:${crypto.randomUUID()}`;
    const now = Date.now();
    runStatement(server, `INSERT INTO outbox_events (id, tenant_key, type, payload, state, attempts,
      next_attempt_at_ms, created_at_ms, purpose) VALUES (${packedIdLiteral(server, id)}, (SELECT tenant_key FROM platform_configs
      WHERE platform_id = '${server.platforms[0].platformId}' AND environment = 'sandbox'),
      'TEST', '{"test":true}', 'PENDING', 0, ${now}, ${now}, 'TEST'); NOTIFY corridor_outbox`);
    const entry = await eventually(() => receiver.requests.find((request) => request.body?.webhookId === id), { timeoutMs: 5000 });
    assert.equal(entry.body.type, 'TEST');
  });

test('on PostgreSQL a payment committed by another Corridor process wakes this one',
  { skip: !onPostgres && 'NOTIFY is PostgreSQL\'s; the SQLite run has one process' },
  async () => {
    const other = anotherProcess(server);
    await launch(other);
    try {
      const byNotification = await wakeups(server, 'notification');
      const byOwnCommit = await wakeups(server, 'commit');
      const before = receiver.requests.length;
      const accounts = await platformAccounts(other, sandbox);
      await fund(other, sandbox, accounts.USD.id, 700);  // the other process's ledger writer commits
      await eventually(async () => (await wakeups(server, 'notification')) > byNotification || undefined,
        { timeoutMs: 5000 });
      assert.equal(await wakeups(server, 'commit'), byOwnCommit, 'this process committed events itself');
      await eventually(() => receiver.requests.length > before || undefined, { timeoutMs: 5000 });
    } finally {
      await stopCorridor(other, { keepFiles: true });
    }
  });

async function rounds(of, connection) {
  const text = await metricsText(of);
  const found = text.match(new RegExp(`^corridor_webhook_rounds_total\\{connection="${connection}"\\} (\\d+)$`, 'm'));
  assert.ok(found, `no ${connection} round counter in /metrics`);
  return Number(found[1]);
}

test('delivery rounds run on a connection of their own on PostgreSQL, on the ledger writer on SQLite', async () => {
  const accounts = await platformAccounts(server, sandbox);
  const before = receiver.requests.length;
  const own = await rounds(server, 'delivery');
  const onWriter = await rounds(server, 'writer');
  await fund(server, sandbox, accounts.USD.id, 300);
  await eventually(() => receiver.requests.length > before || undefined, { timeoutMs: 5000 });
  // The attempt is recorded by a later round: wait for it in the delivery log.
  const id = receiver.requests.at(-1).body.webhookId;
  await eventually(async () => {
    const listed = await call(server, sandbox, 'GET', `/webhooks/deliveries?webhookId=${encodeURIComponent(id)}`);
    assert.equal(listed.status, 200, listed.text);
    return listed.body.data.length > 0 || undefined;
  }, { timeoutMs: 5000 });
  if (onPostgres) {
    assert.ok(await rounds(server, 'delivery') > own, 'no round ran on the delivery connection');
    assert.equal(await rounds(server, 'writer'), onWriter, 'a round without an approval answer ran on the writer');
  } else {
    assert.equal(await rounds(server, 'delivery'), 0, 'SQLite has no delivery connection');
    assert.ok(await rounds(server, 'writer') > onWriter, 'no round ran on the writer');
  }
});
