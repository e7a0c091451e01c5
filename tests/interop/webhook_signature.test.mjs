// Webhook signatures checked by an independent ECDSA implementation (@noble/curves, pure
// JavaScript, no OpenSSL): the public key comes from the PEM that `corridor webhook-key show`
// prints, the signature from each delivery's X-Service-Signature header, and the message is the
// exact body bytes received. noble's default rejects high-s signatures, so this also checks that
// Corridor normalises them. A tampered body, or another environment's key, must fail.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { p256 } from '@noble/curves/nist.js';
import { startCorridor, stopCorridor, call, runCli } from '../api/lib/harness.mjs';
import { startReceiver, stopReceiver, signatureOf } from '../api/lib/receiver.mjs';
import { newCustomer, accountsOf, fund, eventually } from '../api/lib/money.mjs';

let server;
let receiver;
before(async () => {
  receiver = await startReceiver();
  server = await startCorridor({ platforms: 1, config: { outbound: { allow_private_addresses: true } } });
});
after(async () => {
  if (server) await stopCorridor(server);
  if (receiver) await stopReceiver(receiver);
});

// The uncompressed point inside a P-256 SubjectPublicKeyInfo, read by hand from the DER.
function pointFromPem(pem) {
  const base64 = pem.replace(/-----(BEGIN|END) PUBLIC KEY-----/g, '').replace(/\s+/g, '');
  const der = Buffer.from(base64, 'base64');
  const idEcPublicKey = Buffer.from('06072a8648ce3d0201', 'hex');
  const prime256v1 = Buffer.from('06082a8648ce3d030107', 'hex');
  assert.ok(der.includes(idEcPublicKey), 'not an EC public key');
  assert.ok(der.includes(prime256v1), 'not a P-256 key');
  assert.equal(der.length, 91);
  assert.deepEqual([...der.subarray(23, 26)], [0x03, 0x42, 0x00]);  // BIT STRING, 66 bytes, no unused bits
  const point = der.subarray(26);
  assert.equal(point[0], 0x04);
  return new Uint8Array(point);
}

function keyOf(environment) {
  return runCli(server, ['webhook-key', 'show', '--platform', server.platforms[0].platformId, '--environment', environment]);
}

test('every delivery verifies with @noble/curves against the PEM the CLI prints', async () => {
  const credentials = server.platforms[0].sandbox;
  assert.equal((await call(server, credentials, 'PATCH', '/config', { webhookEndpoint: receiver.url })).status, 200);
  const customer = await newCustomer(server, credentials);
  const account = (await accountsOf(server, credentials, customer.id)).USD;
  for (let i = 1; i <= 8; i++) await fund(server, credentials, account.id, 100 * i);
  for (let i = 0; i < 4; i++) assert.equal((await call(server, credentials, 'POST', '/webhooks/test')).status, 200);
  await eventually(() => receiver.requests.length >= 20 || undefined);

  const publicKey = pointFromPem(keyOf('sandbox'));
  const otherKey = pointFromPem(keyOf('production'));
  const types = new Set();
  for (const entry of receiver.requests) {
    const header = signatureOf(entry);
    assert.equal(header.v, '1');
    const signature = new Uint8Array(Buffer.from(header.s, 'base64'));
    assert.equal(signature[0], 0x30, 'the signature is not DER');
    const body = new Uint8Array(entry.raw);
    assert.ok(p256.verify(signature, body, publicKey, { format: 'der' }), `${entry.body.type} does not verify`);
    const tampered = body.slice();
    tampered[tampered.length - 2] ^= 0x20;
    assert.equal(p256.verify(signature, tampered, publicKey, { format: 'der' }), false);
    assert.equal(p256.verify(signature, body, otherKey, { format: 'der' }), false);
    types.add(entry.body.type);
  }
  assert.deepEqual([...types].sort(), ['ACCOUNT_STATUS', 'INCOMING_PAYMENT', 'TEST']);
});
