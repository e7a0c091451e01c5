// Webhook key rotation with an overlap: `webhook-key rotate --next` publishes the next key while
// the current one keeps signing; `--activate`, or reaching `--at`, makes the next key the only one
// that signs; `show --next` without a staged key is a clear error; the next private key is sealed at
// rest like the current one; a plain rotate still switches at once.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createVerify } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { startCorridor, stopCorridor, call, runCli } from './lib/harness.mjs';
import { startReceiver, stopReceiver, signatureOf } from './lib/receiver.mjs';
import { queryRows } from './lib/database.mjs';
import { sleep } from './lib/money.mjs';

let server;
let receiver;
let sandbox;
let platformId;

before(async () => {
  receiver = await startReceiver();
  server = await startCorridor({
    platforms: 1,
    config: { outbound: { allow_private_addresses: true }, webhooks: { poll_interval_ms: 20 } },
  });
  sandbox = server.platforms[0].sandbox;
  platformId = server.platforms[0].platformId;
  const patched = await call(server, sandbox, 'PATCH', '/config', { webhookEndpoint: receiver.url });
  assert.equal(patched.status, 200, patched.text);
});
after(async () => {
  if (server) await stopCorridor(server);
  if (receiver) await stopReceiver(receiver);
});

function keyCli(action, ...extra) {
  return runCli(server, ['webhook-key', action, '--platform', platformId, '--environment', 'sandbox', ...extra]);
}

// The CLI run to its end whatever its exit code: {status, stdout, stderr}.
function keyCliResult(action, ...extra) {
  return spawnSync(server.bin, ['webhook-key', action, '--platform', platformId, '--environment', 'sandbox',
    ...extra, '--config', server.configPath], { encoding: 'utf8' });
}

function verifies(pem, delivery) {
  const verifier = createVerify('SHA256');
  verifier.update(delivery.raw);
  return verifier.verify(pem, signatureOf(delivery).s, 'base64');
}

// Sends a TEST event and returns the delivery the receiver got for it.
async function testDelivery() {
  const before = receiver.requests.length;
  const response = await call(server, sandbox, 'POST', '/webhooks/test');
  assert.equal(response.status, 200, response.text);
  const delivered = receiver.requests.slice(before).filter((entry) => entry.body?.type === 'TEST');
  assert.equal(delivered.length, 1);
  return delivered[0];
}

function storedRow() {
  const rows = queryRows(server, `SELECT private_key_pem, public_key_pem, next_private_key_pem, next_public_key_pem,
    previous_public_key_pem FROM webhook_keys WHERE platform_id = '${platformId}' AND environment = 'sandbox'`);
  assert.equal(rows.length, 1);
  return rows[0];
}

// Exit 1 for a refusal of the request, 2 for a usage error (with the usage text).
function expectCliError(result, pattern, status = 1) {
  assert.equal(result.status, status, result.stderr);
  assert.equal(result.stdout, '');
  assert.match(result.stderr, pattern);
}

test('show --next without a staged key is a clear error', () => {
  expectCliError(keyCliResult('show', '--next'), /no next webhook key is staged for .*\(sandbox\).*rotate --next/);
  expectCliError(keyCliResult('rotate', '--activate'), /no next webhook key is staged/);
});

test('bad flag combinations and times are refused, changing nothing', () => {
  const before = storedRow();
  expectCliError(keyCliResult('rotate', '--next', '--activate'), /--next .*--activate/, 2);
  expectCliError(keyCliResult('rotate', '--at', '2099-01-01T00:00:00Z'), /--at needs --next/, 2);
  expectCliError(keyCliResult('rotate', '--next', '--at', 'tomorrow'), /--at must be an RFC 3339 time/, 2);
  expectCliError(keyCliResult('rotate', '--next', '--at', '2001-01-01T00:00:00Z'), /not in the future/, 2);
  expectCliError(keyCliResult('show', '--activate'), /--at and --activate belong to webhook-key rotate/, 2);
  assert.deepEqual(storedRow(), before);
});

test('a published next key does not sign until --activate; then it alone signs', async () => {
  const current = keyCli('show');
  const next = keyCli('rotate', '--next');
  assert.match(next, /^-----BEGIN PUBLIC KEY-----\n[A-Za-z0-9+/=\n]+-----END PUBLIC KEY-----\n$/);
  assert.notEqual(next, current);
  assert.equal(keyCli('show', '--next'), next);
  assert.equal(keyCli('show'), current, 'staging a next key changed the current one');

  const during = await testDelivery();
  assert.ok(verifies(current, during), 'a delivery during the overlap does not verify with the current key');
  assert.equal(verifies(next, during), false, 'the next key signed before it was activated');

  // At rest the next private key is sealed exactly as the current one: never the PEM.
  const row = storedRow();
  assert.equal(row.next_public_key_pem, next);
  for (const sealed of [row.private_key_pem, row.next_private_key_pem]) {
    assert.match(sealed, /^sealed1:[0-9a-f]+$/);
    assert.ok(!sealed.includes('PRIVATE KEY'));
  }

  const activated = keyCli('rotate', '--activate');
  assert.equal(activated, next);
  assert.equal(keyCli('show'), next);
  expectCliError(keyCliResult('show', '--next'), /no next webhook key is staged/);
  const afterwards = await testDelivery();
  assert.ok(verifies(next, afterwards), 'a delivery after --activate does not verify with the new key');
  assert.equal(verifies(current, afterwards), false, 'the old key still signs after --activate');
  const promoted = storedRow();
  assert.equal(promoted.previous_public_key_pem, current);
  assert.equal(promoted.private_key_pem, row.next_private_key_pem, 'the sealed next key was not kept as it was');
  assert.equal(promoted.next_private_key_pem, null);
});

test('a next key with --at takes over when that time comes', async () => {
  const current = keyCli('show');
  const at = new Date(Date.now() + 2000);
  const next = keyCli('rotate', '--next', '--at', at.toISOString());
  assert.notEqual(next, current);
  // Staging again replaces the staged key: only the last one published takes over.
  const replaced = keyCli('rotate', '--next', '--at', at.toISOString());
  assert.notEqual(replaced, next);
  assert.equal(keyCli('show', '--next'), replaced);

  const during = await testDelivery();
  assert.ok(Date.now() < at.getTime(), 'the overlap ended before its delivery was checked; the machine is too slow');
  assert.ok(verifies(current, during));
  assert.equal(verifies(replaced, during), false);

  await sleep(Math.max(0, at.getTime() - Date.now()) + 200);
  const afterwards = await testDelivery();
  assert.ok(verifies(replaced, afterwards), 'a delivery after --at does not verify with the new key');
  assert.equal(verifies(current, afterwards), false, 'the old key still signs after --at');
  assert.equal(verifies(next, afterwards), false, 'a replaced next key signed');
  assert.equal(keyCli('show'), replaced);
  expectCliError(keyCliResult('show', '--next'), /no next webhook key is staged/);
  assert.equal(storedRow().previous_public_key_pem, current);
});

test('a plain rotate still switches at once and discards a staged next key', async () => {
  const current = keyCli('show');
  const staged = keyCli('rotate', '--next');
  const rotated = keyCli('rotate');
  assert.notEqual(rotated, current);
  assert.notEqual(rotated, staged);
  assert.equal(keyCli('show'), rotated);
  expectCliError(keyCliResult('show', '--next'), /no next webhook key is staged/);
  const delivery = await testDelivery();
  assert.ok(verifies(rotated, delivery));
  assert.equal(verifies(current, delivery), false);
  assert.equal(verifies(staged, delivery), false);
});
