// UMA key rotation with an overlap, driven through the CLI the way an operator does it, against an
// instance started as the quick start starts one (the platform's UMA domain is its own address,
// shared by both environments). `uma-key rotate --next --at T` stages a signing and an encryption
// key: before T the current keys sign and /.well-known/lnurlpubkey publishes them with
// expirationTimestamp T, so counterparties refetch then; from T the new keys sign and are
// published; travel-rule data encrypted to the replaced encryption key still decrypts for
// uma.previous_key_overlap_seconds, and is refused after.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, sign } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { startOnOwnPort, stopCorridor, call, runCli } from './lib/harness.mjs';
import { startReceiver, stopReceiver } from './lib/receiver.mjs';
import { keyPair, startKeyServer } from './lib/uma_sender.mjs';
import { eciesEncrypt, verifiesWith } from './lib/uma_keys.mjs';
import { queryRows } from './lib/database.mjs';
import { newCustomer, sleep } from './lib/money.mjs';

const overlapSeconds = 6;
let server;
let sandbox;
let platformId;
let webhooks;
let sender;

before(async () => {
  server = await startOnOwnPort({
    platforms: 1,
    ownUmaDomain: true,
    config: {
      outbound: { allow_private_addresses: true, timeout_ms: 20000 },
      uma: { previous_key_overlap_seconds: overlapSeconds },
    },
  });
  sandbox = server.platforms[0].sandbox;
  platformId = server.platforms[0].platformId;
  webhooks = await startReceiver(() => ({ status: 200 }));
  const patched = await call(server, sandbox, 'PATCH', '/config', { webhookEndpoint: webhooks.url });
  assert.equal(patched.status, 200, patched.text);
  sender = { pair: keyPair() };
  Object.assign(sender, await startKeyServer(sender.pair.pubHex));
});
after(async () => {
  if (sender?.server) {
    sender.server.closeAllConnections?.();
    sender.server.close();
  }
  if (server) await stopCorridor(server);
  if (webhooks) await stopReceiver(webhooks);
});

const umaKey = (action, ...extra) => JSON.parse(runCli(server, ['uma-key', action, '--platform', platformId, ...extra]));

// The CLI run to its end whatever its exit code: {status, stdout, stderr}.
function umaKeyResult(action, ...extra) {
  return spawnSync(server.bin, ['uma-key', action, '--platform', platformId, ...extra, '--config', server.configPath],
    { encoding: 'utf8' });
}

async function published() {
  const response = await fetch(`${server.baseUrl}/.well-known/lnurlpubkey`);
  assert.equal(response.status, 200);
  return response.json();
}

// A signed UMA v1 pay request from the stub sender to `receiver`, its travel-rule data encrypted to
// `encryptTo` (hex public key) when given. Returns the callback's answer.
async function pay(receiver, encryptTo) {
  const identifier = `$alice@${sender.domain}`;
  const nonce = randomBytes(8).readBigUInt64BE().toString();
  const timestamp = Math.floor(Date.now() / 1000);
  const signature = sign('sha256', Buffer.from(`${identifier}|${nonce}|${timestamp}`),
    { key: sender.pair.privateKey, dsaEncoding: 'der' }).toString('hex');
  const compliance = { kycStatus: 'VERIFIED', signature, signatureNonce: nonce, signatureTimestamp: timestamp };
  if (encryptTo) {
    compliance.encryptedTravelRuleInfo = eciesEncrypt(encryptTo, JSON.stringify({ originator: 'Alice Sender' }));
    compliance.travelRuleFormat = 'ivms@101.2023';
  }
  const body = JSON.stringify({ amount: '250.USD', convert: 'USD', payerData: { identifier, name: 'Alice Sender', compliance } });
  const response = await fetch(`${server.baseUrl}/uma/payreq/${encodeURIComponent(receiver.id)}`,
    { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  const text = await response.text();
  let parsed;
  try { parsed = JSON.parse(text); } catch { parsed = undefined; }
  return { status: response.status, body: parsed, text, identifier };
}

// The signing key of a pay response: which of `keys` (hex) verifies the payee's signature.
function signedBy(paid, receiver, keys) {
  const compliance = paid.body.payeeData.compliance;
  const payee = paid.body.payeeData.identifier ?? receiver.umaAddress;
  const payload = `${paid.identifier}|${payee}|${compliance.signatureNonce}|${compliance.signatureTimestamp}`;
  return keys.filter((key) => verifiesWith(key, payload, compliance.signature));
}

test('uma-key show prints the keys /.well-known/lnurlpubkey publishes, without an expiration', async () => {
  const shown = umaKey('show');
  const document = await published();
  assert.equal(shown.signingPubKey, document.signingPubKey);
  assert.equal(shown.encryptionPubKey, document.encryptionPubKey);
  assert.equal(shown.environment, 'production', 'the shared domain publishes production\'s keys');
  assert.equal(document.expirationTimestamp, undefined);
  assert.equal(shown.next, undefined);
  const none = umaKeyResult('show', '--next');
  assert.equal(none.status, 1, none.stderr);
  assert.match(none.stderr, /no next UMA keys are staged/);
  const past = umaKeyResult('rotate', '--next', '--at', '2020-01-01T00:00:00Z');
  assert.equal(past.status, 2, past.stderr);
  assert.match(past.stderr, /not in the future/);
  const loneAt = umaKeyResult('rotate', '--at', '2099-01-01T00:00:00Z');
  assert.equal(loneAt.status, 2, loneAt.stderr);
});

test('staged keys: not used before the switch, published with the expiration, used after; old encryption key accepted during the overlap, refused after', async () => {
  const receiver = await newCustomer(server, sandbox);
  const old = umaKey('show');
  const switchAtMs = Date.now() + 4000;
  const at = new Date(switchAtMs).toISOString();
  const staged = umaKey('rotate', '--next', '--at', at);
  assert.notEqual(staged.signingPubKey, old.signingPubKey);
  assert.notEqual(staged.encryptionPubKey, old.encryptionPubKey);
  assert.equal(Date.parse(staged.switchAt), Date.parse(at));
  assert.deepEqual(umaKey('show', '--next'), staged);
  // The staged private keys are sealed at rest like the current ones.
  const rows = queryRows(server, `SELECT next_private_key FROM uma_keys WHERE platform_id = '${platformId}' AND environment = 'production'`);
  assert.equal(rows.length, 2);
  for (const row of rows) assert.match(row.next_private_key, /^sealed1:/);

  // Before the switch: the current keys are published, expiring at the switch, and they sign.
  const before = await published();
  assert.equal(before.signingPubKey, old.signingPubKey);
  assert.equal(before.encryptionPubKey, old.encryptionPubKey);
  assert.equal(before.expirationTimestamp, Math.ceil(switchAtMs / 1000));
  const early = await pay(receiver, old.encryptionPubKey);
  assert.equal(early.status, 200, early.text);
  assert.deepEqual(signedBy(early, receiver, [old.signingPubKey, staged.signingPubKey]), [old.signingPubKey]);
  const toStaged = await pay(receiver, staged.encryptionPubKey);
  assert.equal(toStaged.status, 400, 'the staged encryption key does not decrypt before the switch');

  // After the switch: the new keys are published without an expiration, and they sign.
  while (Date.now() < switchAtMs + 50) await sleep(100);
  const afterDocument = await published();
  assert.equal(afterDocument.signingPubKey, staged.signingPubKey);
  assert.equal(afterDocument.encryptionPubKey, staged.encryptionPubKey);
  assert.equal(afterDocument.expirationTimestamp, undefined);
  const current = umaKey('show');
  assert.equal(current.signingPubKey, staged.signingPubKey);
  assert.equal(current.next, undefined);
  const retiredAtMs = Date.parse(current.previousRetiredAt);
  assert.ok(retiredAtMs >= switchAtMs - 5 && retiredAtMs <= Date.now(), current.previousRetiredAt);
  const late = await pay(receiver, staged.encryptionPubKey);
  assert.equal(late.status, 200, late.text);
  assert.deepEqual(signedBy(late, receiver, [old.signingPubKey, staged.signingPubKey]), [staged.signingPubKey]);

  // During the overlap a sender that encrypted to the replaced key is still paid.
  const overlapping = await pay(receiver, old.encryptionPubKey);
  assert.ok(Date.now() < retiredAtMs + overlapSeconds * 1000, 'the overlap check ran too late to mean anything');
  assert.equal(overlapping.status, 200, overlapping.text);
  // Data encrypted to a key that was never ours is refused whatever the overlap.
  assert.equal((await pay(receiver, keyPair().pubHex)).status, 400);

  // After the overlap: the replaced key no longer decrypts; the new one still does.
  while (Date.now() < retiredAtMs + overlapSeconds * 1000 + 200) await sleep(100);
  const refused = await pay(receiver, old.encryptionPubKey);
  assert.equal(refused.status, 400, refused.text);
  assert.equal(refused.body.code, 'INVALID_INPUT');
  assert.match(refused.body.reason, /encryptedTravelRuleInfo/);
  assert.equal((await pay(receiver, staged.encryptionPubKey)).status, 200);
});

test('a next key without a time expires the published keys within minutes and switches on --activate', async () => {
  const old = umaKey('show');
  const staged = umaKey('rotate', '--next');
  assert.equal(staged.switchAt, null);
  const document = await published();
  assert.equal(document.signingPubKey, old.signingPubKey);
  const nowS = Date.now() / 1000;
  assert.ok(document.expirationTimestamp > nowS && document.expirationTimestamp <= nowS + 301, String(document.expirationTimestamp));
  // Staging again replaces the staged keys.
  const restaged = umaKey('rotate', '--next');
  assert.notEqual(restaged.signingPubKey, staged.signingPubKey);
  const activated = umaKey('rotate', '--activate');
  assert.equal(activated.signingPubKey, restaged.signingPubKey);
  assert.equal((await published()).signingPubKey, restaged.signingPubKey);
  const again = umaKeyResult('rotate', '--activate');
  assert.equal(again.status, 1, again.stderr);
  // A plain rotate switches at once.
  const rotated = umaKey('rotate');
  assert.notEqual(rotated.signingPubKey, restaged.signingPubKey);
  assert.equal((await published()).signingPubKey, rotated.signingPubKey);
});
