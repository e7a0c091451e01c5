// UMA interop: Corridor's uma/ library against the official SDK (@uma-sdk/core, pinned).
// (a) what Corridor signs or encrypts, the SDK verifies or decrypts; (b) what the SDK signs or
// encrypts, Corridor verifies or decrypts (through the corridor_uma_tool program); (c) a running
// corridor answers an UMA lookup that the SDK verifies with the keys the corridor publishes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes, X509Certificate } from 'node:crypto';
import bolt11 from 'bolt11';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { decrypt as eciesDecrypt } from 'eciesjs';
import {
  InMemoryNonceValidator, KycStatus, LnurlpResponse, PayReqResponse, PayRequest, PubKeyResponse,
  Currency, getLnurlpResponse, getPayRequest, getPayReqResponse, getPostTransactionCallback,
  getSignedLnurlpRequestUrl, parseLnurlpRequest, parsePostTransactionCallback, signPayload,
  verifyPayReqResponseSignature, verifyPayReqSignature, verifyPostTransactionCallbackSignature,
  verifyUmaLnurlpQuerySignature, verifyUmaLnurlpResponseSignature,
} from '@uma-sdk/core';

const toolPath = process.env.CORRIDOR_UMA_TOOL;
if (!toolPath) throw new Error('CORRIDOR_UMA_TOOL is not set; run the interop tests through ctest');

// Runs the tool; returns {status, out}. A check that fails exits 1 with the UMA error on stdout.
function tool(args, input) {
  try {
    const out = execFileSync(toolPath, args, { encoding: 'utf8', input: input ?? '' });
    return { status: 0, out: out.trim() };
  } catch (error) {
    if (error.status === 2) throw new Error(`tool usage: ${error.stderr}`);
    return { status: error.status, out: String(error.stdout).trim() };
  }
}

function keyPair() {
  const secret = new Uint8Array(randomBytes(32));
  const pub = secp256k1.getPublicKey(secret, false);
  return { secret, secretHex: Buffer.from(secret).toString('hex'), pub, pubHex: Buffer.from(pub).toString('hex') };
}

const rawKeys = (pair) => new PubKeyResponse(undefined, undefined, pair.pubHex, pair.pubHex, undefined);
const freshNonces = () => new InMemoryNonceValidator(Date.now() - 60_000);
const tamperHex = (hex, at) => hex.slice(0, at) + (hex[at] === '0' ? '1' : '0') + hex.slice(at + 1);

// --- (a) Corridor signs, the SDK verifies ---------------------------------------------------

test('signatures are identical to the SDK signPayload for random keys and payloads', async () => {
  for (let i = 0; i < 20; i++) {
    const pair = keyPair();
    const payload = `$user${i}@vasp${i}.example:80${i}|${randomBytes(4).readUInt32BE()}|${1700000000 + i}`;
    assert.equal(tool(['sign', pair.secretHex, payload]).out, await signPayload(payload, pair.secret));
    assert.equal(tool(['public-key', pair.secretHex]).out, pair.pubHex);
  }
});

test('our certificate gives the SDK our key', () => {
  const pair = keyPair();
  const der = tool(['certificate', pair.secretHex, 'vasp.example:8080']).out;
  const certificate = new X509Certificate(Buffer.from(der, 'hex'));
  assert.equal(certificate.publicKey.asymmetricKeyType, 'ec');
  assert.equal(certificate.publicKey.asymmetricKeyDetails.namedCurve, 'secp256k1');
  assert.equal(certificate.checkIssued(certificate), true);
  assert.equal(certificate.verify(certificate.publicKey), true);
  const keys = PubKeyResponse.fromJson(JSON.stringify({ signingCertChain: [der], encryptionCertChain: [der] }));
  assert.equal(Buffer.from(keys.getSigningPubKey()).toString('hex'), pair.pubHex);
  assert.equal(Buffer.from(keys.getEncryptionPubKey()).toString('hex'), pair.pubHex);
});

test('the SDK verifies our lnurlp request, and refuses it tampered', async () => {
  const sender = keyPair();
  const url = tool(['lnurlp-request-url', sender.secretHex, '$bob@127.0.0.1:8080', 'sender.example:9090', '1.0']).out;
  const query = parseLnurlpRequest(new URL(url));
  assert.equal(query.receiverAddress, '$bob@127.0.0.1:8080');
  assert.equal(query.vaspDomain, 'sender.example:9090');
  assert.equal(await verifyUmaLnurlpQuerySignature(query, rawKeys(sender), freshNonces()), true);
  const other = keyPair();
  assert.equal(await verifyUmaLnurlpQuerySignature(query, rawKeys(other), freshNonces()), false);
  const forged = parseLnurlpRequest(new URL(url.replace('$bob', '$eve')));
  assert.equal(await verifyUmaLnurlpQuerySignature(forged, rawKeys(sender), freshNonces()), false);
});

test('the SDK verifies our lnurlp response (keys from our certificate)', async () => {
  const sender = keyPair();
  const receiver = keyPair();
  const requestUrl = await getSignedLnurlpRequestUrl({
    isSubjectToTravelRule: true, receiverAddress: '$bob@vasp2.example', senderVaspDomain: 'vasp1.example',
    signingPrivateKey: sender.secret,
  });
  const json = tool(['lnurlp-response', receiver.secretHex, requestUrl.toString(), 'https://vasp2.example/cb']).out;
  const response = LnurlpResponse.fromJson(json);
  assert.equal(response.isUma(), true);
  assert.equal(response.compliance.receiverIdentifier, '$bob@vasp2.example');
  assert.equal(response.umaVersion, '1.0');
  assert.equal(response.currencies[0].code, 'USD');
  const der = tool(['certificate', receiver.secretHex, 'vasp2.example']).out;
  const keys = PubKeyResponse.fromJson(JSON.stringify({ signingCertChain: [der], encryptionCertChain: [der] }));
  assert.equal(await verifyUmaLnurlpResponseSignature(response, keys, freshNonces()), true);
  const tampered = LnurlpResponse.fromJson(json.replace('$bob@vasp2.example"', '$eve@vasp2.example"'));
  assert.equal(await verifyUmaLnurlpResponseSignature(tampered, keys, freshNonces()), false);
});

test('the SDK verifies our pay request and decrypts its travel-rule data', async () => {
  const sender = keyPair();
  const receiverEncryption = keyPair();
  const trInfo = JSON.stringify({ name: 'Alice Ödegaard', accountNumber: '12345678' });
  const json = tool(['pay-request', sender.secretHex, receiverEncryption.pubHex, '$alice@vasp1.example', trInfo]).out;
  const request = PayRequest.fromJson(json);
  assert.equal(request.isUma(), true);
  assert.equal(request.amount, 1000);
  assert.equal(request.sendingAmountCurrencyCode, 'USD');
  assert.equal(await verifyPayReqSignature(request, rawKeys(sender), freshNonces()), true);
  assert.equal(await verifyPayReqSignature(request, rawKeys(receiverEncryption), freshNonces()), false);
  const encrypted = Buffer.from(request.payerData.compliance.encryptedTravelRuleInfo, 'hex');
  assert.equal(eciesDecrypt(receiverEncryption.secretHex, encrypted).toString('utf8'), trInfo);
});

test('the SDK verifies our pay response and post-transaction callback', async () => {
  const receiver = keyPair();
  const json = tool(['pay-response', receiver.secretHex, '$alice@vasp1.example', '$bob@vasp2.example']).out;
  const response = PayReqResponse.fromJson(json);
  assert.equal(response.isUma(), true);
  assert.equal(await verifyPayReqResponseSignature(response, '$alice@vasp1.example', '$bob@vasp2.example',
    rawKeys(receiver), freshNonces()), true);
  assert.equal(await verifyPayReqResponseSignature(response, '$alice@vasp1.example', '$eve@vasp2.example',
    rawKeys(receiver), freshNonces()), false);

  const callback = parsePostTransactionCallback(tool(['post-transaction', receiver.secretHex, 'vasp2.example']).out);
  assert.equal(callback.vaspDomain, 'vasp2.example');
  assert.equal(await verifyPostTransactionCallbackSignature(callback, rawKeys(receiver), freshNonces()), true);
  callback.signatureNonce = `${callback.signatureNonce}0`;
  assert.equal(await verifyPostTransactionCallbackSignature(callback, rawKeys(receiver), freshNonces()), false);
});

// --- (b) the SDK signs, Corridor verifies --------------------------------------------------

test('we verify the SDK lnurlp request, and refuse it tampered or with a wrong key', async () => {
  const sender = keyPair();
  const url = (await getSignedLnurlpRequestUrl({
    isSubjectToTravelRule: true, receiverAddress: '$bob@127.0.0.1:8080', senderVaspDomain: 'sender.example',
    signingPrivateKey: sender.secret,
  })).toString();
  assert.deepEqual(tool(['check-lnurlp-request', sender.pubHex, url]), { status: 0, out: 'valid' });
  const wrongKey = tool(['check-lnurlp-request', keyPair().pubHex, url]);
  assert.equal(wrongKey.status, 1);
  assert.equal(JSON.parse(wrongKey.out).code, 'INVALID_SIGNATURE');
  const tampered = tool(['check-lnurlp-request', sender.pubHex, url.replace('$bob', '$eve')]);
  assert.equal(JSON.parse(tampered.out).code, 'INVALID_SIGNATURE');
  const signature = new URL(url).searchParams.get('signature');
  const damaged = tool(['check-lnurlp-request', sender.pubHex, url.replace(signature, tamperHex(signature, 30))]);
  assert.equal(JSON.parse(damaged.out).code, 'INVALID_SIGNATURE');
});

test('we verify the SDK lnurlp response', async () => {
  const sender = keyPair();
  const receiver = keyPair();
  const requestUrl = await getSignedLnurlpRequestUrl({
    isSubjectToTravelRule: true, receiverAddress: '$bob@vasp2.example', senderVaspDomain: 'vasp1.example',
    signingPrivateKey: sender.secret,
  });
  const response = await getLnurlpResponse({
    request: parseLnurlpRequest(requestUrl), privateKeyBytes: receiver.secret, requiresTravelRuleInfo: true,
    callback: 'https://vasp2.example/cb', encodedMetadata: '[["text/plain","Pay"]]', minSendableSats: 1,
    maxSendableSats: 10000, payerDataOptions: { name: { mandatory: false } },
    currencyOptions: [new Currency('USD', 'US Dollar', '$', 34150, 1, 10000000, 2)],
    receiverKycStatus: KycStatus.Verified,
  });
  const json = response.toJsonString();
  assert.deepEqual(tool(['check-lnurlp-response', receiver.pubHex], json), { status: 0, out: 'valid' });
  const wrong = tool(['check-lnurlp-response', sender.pubHex], json);
  assert.equal(JSON.parse(wrong.out).code, 'INVALID_SIGNATURE');
});

for (const umaMajorVersion of [1, 0]) {
  test(`we verify an SDK v${umaMajorVersion} pay request and decrypt its travel-rule data`, async () => {
    const sender = keyPair();
    const receiverEncryption = keyPair();
    const trInfo = JSON.stringify({ name: 'Alice', birthDate: '1990-01-01', note: 'ü €' });
    const request = await getPayRequest({
      receiverEncryptionPubKey: receiverEncryption.pub, sendingVaspPrivateKey: sender.secret,
      receivingCurrencyCode: 'USD', amount: 1234, isAmountInReceivingCurrency: true,
      payerIdentifier: '$alice@vasp1.example', payerName: 'Alice', trInfo, travelRuleFormat: 'ivms@101.2023',
      payerKycStatus: KycStatus.Verified, umaMajorVersion, utxoCallback: 'https://vasp1.example/utxo',
    });
    const result = tool(['check-pay-request', sender.pubHex, receiverEncryption.secretHex], request.toJsonString());
    assert.equal(result.status, 0, result.out);
    const seen = JSON.parse(result.out);
    assert.equal(seen.payerIdentifier, '$alice@vasp1.example');
    assert.equal(seen.amount, 1234);
    assert.equal(seen.receivingCurrency, 'USD');
    assert.equal(seen.majorVersion, umaMajorVersion);
    assert.equal(seen.travelRuleInfo, trInfo);
    const wrong = tool(['check-pay-request', receiverEncryption.pubHex, receiverEncryption.secretHex], request.toJsonString());
    assert.equal(JSON.parse(wrong.out).code, 'INVALID_SIGNATURE');
    const undecryptable = tool(['check-pay-request', sender.pubHex, sender.secretHex], request.toJsonString());
    assert.equal(undecryptable.status, 1);
  });
}

test('we verify the SDK pay response and post-transaction callback', async () => {
  const sender = keyPair();
  const receiver = keyPair();
  const request = await getPayRequest({
    receiverEncryptionPubKey: receiver.pub, sendingVaspPrivateKey: sender.secret, receivingCurrencyCode: 'USD',
    amount: 1000, isAmountInReceivingCurrency: true, payerIdentifier: '$alice@vasp1.example',
    payerKycStatus: KycStatus.Verified, umaMajorVersion: 1,
  });
  const response = await getPayReqResponse({
    request, metadata: '[["text/plain","Pay"]]',
    invoiceCreator: { createUmaInvoice: async () => 'lnbc1000n1test' },
    conversionRate: 34150, receivingCurrencyCode: 'USD', receivingCurrencyDecimals: 2,
    receiverChannelUtxos: [], receiverFeesMillisats: 2000, receivingVaspPrivateKey: receiver.secret,
    payeeIdentifier: '$bob@vasp2.example',
  });
  const json = response.toJsonString();
  assert.deepEqual(tool(['check-pay-response', receiver.pubHex, '$alice@vasp1.example', '$bob@vasp2.example'], json),
    { status: 0, out: 'valid' });
  const wrong = tool(['check-pay-response', receiver.pubHex, '$alice@vasp1.example', '$eve@vasp2.example'], json);
  assert.equal(JSON.parse(wrong.out).code, 'INVALID_SIGNATURE');

  const callback = await getPostTransactionCallback({
    utxos: [{ utxo: 'abcd:0', amountMsats: 1000 }], vaspDomain: 'vasp2.example', signingPrivateKey: receiver.secret,
  });
  assert.deepEqual(tool(['check-post-transaction', receiver.pubHex], JSON.stringify(callback)), { status: 0, out: 'valid' });
  assert.equal(tool(['check-post-transaction', sender.pubHex], JSON.stringify(callback)).status, 1);
});

// --- (c) a running corridor answers SDK lookups --------------------------------------------

import { startKeyServer } from '../api/lib/uma_sender.mjs';
import { InMemoryPublicKeyCache, fetchPublicKeyForVasp, selectHighestSupportedVersion } from '@uma-sdk/core';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCorridor, startOnOwnPort, stopCorridor, call } from '../api/lib/harness.mjs';
import { startReceiver, stopReceiver } from '../api/lib/receiver.mjs';

// A sending VASP played by the SDK: it serves its own keys at /.well-known/lnurlpubkey, where
// Corridor fetches them to check the lookup's signature.
const startSender = (pair) => startKeyServer(pair.pubHex);

test('a running corridor answers an SDK UMA lookup that the SDK verifies', async (t) => {
  // The platform's private keys are sealed at rest under an operator key.
  const keyDir = mkdtempSync(join(tmpdir(), 'corridor-uma-'));
  const keyFile = join(keyDir, 'uma.key');
  writeFileSync(keyFile, `${randomBytes(32).toString('hex')}\n`);
  const corridor = await startCorridor({
    platforms: 1,
    config: {
      outbound: { allow_private_addresses: true },
      uma: { proxy_host: 'uma.corridor.localhost', key_encryption_key_file: keyFile },
    },
  });
  t.after(() => rmSync(keyDir, { recursive: true, force: true }));
  const sender = keyPair();
  const senderVasp = await startSender(sender);
  // The platform approves incoming payments, so the unpaid one below stays PENDING (without an
  // endpoint its approval would fail as soon as the webhook is tried).
  const webhooks = await startReceiver(() => ({ status: 200 }));
  t.after(async () => { senderVasp.server.close(); await stopCorridor(corridor); await stopReceiver(webhooks); });

  const platform = corridor.platforms[0];
  const domain = new URL(corridor.baseUrl).host;  // 127.0.0.1:<port>
  const patched = await call(corridor, platform.production, 'PATCH', '/config',
    { umaDomain: domain, webhookEndpoint: webhooks.url });
  assert.equal(patched.status, 200, patched.text);
  const created = await call(corridor, platform.production, 'POST', '/customers',
    { customerType: 'INDIVIDUAL', umaAddress: `$bob@${domain}`, fullName: 'Bob Smith' });
  assert.equal(created.status, 201, created.text);

  const receiverAddress = `$bob@${domain}`;
  const lookup = async (version) => fetch(await getSignedLnurlpRequestUrl({
    isSubjectToTravelRule: true, receiverAddress, senderVaspDomain: senderVasp.domain,
    signingPrivateKey: sender.secret, umaVersionOverride: version,
  }));

  const reply = await lookup();
  const text = await reply.text();
  assert.equal(reply.status, 200, text);
  const response = LnurlpResponse.fromJson(text);
  assert.equal(response.isUma(), true);
  assert.equal(response.umaVersion, '1.0');
  assert.equal(response.compliance.receiverIdentifier, receiverAddress);
  assert.ok(response.currencies.length > 0);
  assert.equal(response.payerData.identifier.mandatory, true);
  assert.match(response.callback, /\/uma\/payreq\/Customer:/);

  const keys = await fetchPublicKeyForVasp({ cache: new InMemoryPublicKeyCache(), vaspDomain: domain });
  assert.ok(keys.signingCertChain.length === 1 && keys.encryptionCertChain.length === 1);
  assert.equal(Buffer.from(keys.getSigningPubKey()).toString('hex'), keys.signingPubKey);
  assert.notEqual(keys.signingPubKey, keys.encryptionPubKey);
  assert.equal(await verifyUmaLnurlpResponseSignature(response, keys, freshNonces()), true);
  // A changed receiver identifier must not verify.
  const tampered = LnurlpResponse.fromJson(text.replace(`"${receiverAddress}"`, `"$eve@${domain}"`));
  assert.equal(await verifyUmaLnurlpResponseSignature(tampered, keys, freshNonces()), false);

  // The SDK's pay request to the callback: everything checkable holds, so the answer is a pay
  // response the SDK parses and verifies, whose invoice Corridor's node signed for the converted
  // amount; the payment waits PENDING for the platform's approval. A replay and a forgery are
  // refused.
  const payRequest = await getPayRequest({
    receiverEncryptionPubKey: keys.getEncryptionPubKey(), sendingVaspPrivateKey: sender.secret,
    receivingCurrencyCode: 'USD', amount: 100, isAmountInReceivingCurrency: true,
    payerIdentifier: `$alice@${senderVasp.domain}`, payerName: 'Alice', trInfo: '{"name":"Alice"}',
    travelRuleFormat: 'ivms@101.2023', payerKycStatus: KycStatus.Verified, umaMajorVersion: 1,
  });
  const callback = `${corridor.baseUrl}${new URL(response.callback).pathname}`;
  const pay = (body) => fetch(callback, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  const paid = await pay(payRequest.toJsonString());
  const paidText = await paid.text();
  assert.equal(paid.status, 200, paidText);
  const payResponse = PayReqResponse.fromJson(paidText);
  assert.equal(await verifyPayReqResponseSignature(payResponse, `$alice@${senderVasp.domain}`,
    receiverAddress, keys, freshNonces()), true);
  assert.equal(await verifyPayReqResponseSignature(payResponse, `$mallory@${senderVasp.domain}`,
    receiverAddress, keys, freshNonces()), false);
  assert.equal(payResponse.converted.amount, 100);
  assert.equal(payResponse.converted.currencyCode, 'USD');
  assert.equal(payResponse.converted.decimals, 2);
  assert.ok(payResponse.converted.multiplier > 0 && payResponse.converted.fee >= 0);
  assert.deepEqual(payResponse.payeeData.compliance.utxos, []);
  const invoice = bolt11.decode(payResponse.pr, { bech32: 'bcrt', pubKeyHash: 0x6f, scriptHash: 0xc4, validWitnessVersions: [0, 1] });
  assert.equal(invoice.complete, true);
  const invoiceMsats = Number(invoice.millisatoshis);
  // The invoice pays the converted amount plus the fee, to within the rounding to whole satoshis.
  const expected = payResponse.converted.amount * payResponse.converted.multiplier + payResponse.converted.fee;
  assert.ok(Math.abs(invoiceMsats - expected) < 2000, `${invoiceMsats} vs ${expected}`);
  const paymentHash = invoice.tags.find((tag) => tag.tagName === 'payment_hash').data;
  assert.match(paymentHash, /^[0-9a-f]{64}$/);
  const incoming = await call(corridor, platform.production, 'GET', `/transactions?customerId=${created.body.id}&type=INCOMING`);
  assert.equal(incoming.status, 200, incoming.text);
  assert.equal(incoming.body.data.length, 1);
  assert.equal(incoming.body.data[0].status, 'PENDING');
  assert.equal(incoming.body.data[0].receivedAmount.amount, 100);
  assert.equal((await (await pay(payRequest.toJsonString())).json()).code, 'INVALID_NONCE');
  const forged = await getPayRequest({
    receiverEncryptionPubKey: keys.getEncryptionPubKey(), sendingVaspPrivateKey: keyPair().secret,
    receivingCurrencyCode: 'USD', amount: 100, isAmountInReceivingCurrency: true,
    payerIdentifier: `$alice@${senderVasp.domain}`, payerName: 'Alice', payerKycStatus: KycStatus.Verified,
    umaMajorVersion: 1,
  });
  const forgedReply = await pay(forged.toJsonString());
  assert.equal(forgedReply.status, 401);
  assert.equal((await forgedReply.json()).code, 'INVALID_SIGNATURE');

  // v0.3 still works; 2.0 is refused with 412 and the majors the SDK picks a version from.
  const old = await lookup('0.3');
  assert.equal(old.status, 200);
  assert.equal(LnurlpResponse.fromJson(await old.text()).umaVersion, '0.3');
  const future = await lookup('2.0');
  assert.equal(future.status, 412);
  const refused = await future.json();
  assert.equal(refused.code, 'UNSUPPORTED_UMA_VERSION');
  assert.equal(selectHighestSupportedVersion(refused.supportedMajorVersions), '1.0');
});

test('a running corridor refuses replays, bad signatures, unknown users and hosts', async (t) => {
  const corridor = await startCorridor({ platforms: 1, config: { outbound: { allow_private_addresses: true } } });
  const sender = keyPair();
  const senderVasp = await startSender(sender);
  t.after(async () => { senderVasp.server.close(); await stopCorridor(corridor); });
  const platform = corridor.platforms[0];
  const domain = new URL(corridor.baseUrl).host;
  assert.equal((await call(corridor, platform.sandbox, 'PATCH', '/config', { umaDomain: domain })).status, 200);
  assert.equal((await call(corridor, platform.sandbox, 'POST', '/customers',
    { customerType: 'INDIVIDUAL', umaAddress: `$carol@${domain}` })).status, 201);

  const url = await getSignedLnurlpRequestUrl({
    isSubjectToTravelRule: false, receiverAddress: `$carol@${domain}`, senderVaspDomain: senderVasp.domain,
    signingPrivateKey: sender.secret,
  });
  assert.equal((await fetch(url)).status, 200);
  const replay = await fetch(url);
  assert.equal(replay.status, 400);
  assert.equal((await replay.json()).code, 'INVALID_NONCE');

  const impostor = keyPair();
  const forged = await getSignedLnurlpRequestUrl({
    isSubjectToTravelRule: false, receiverAddress: `$carol@${domain}`, senderVaspDomain: senderVasp.domain,
    signingPrivateKey: impostor.secret,
  });
  const refused = await fetch(forged);
  assert.equal(refused.status, 401);
  assert.equal((await refused.json()).code, 'INVALID_SIGNATURE');

  const missing = await fetch(`http://${domain}/.well-known/lnurlp/$nobody`);
  assert.equal(missing.status, 404);
  const missingBody = await missing.json();
  assert.equal(missingBody.status, 'ERROR');
  assert.equal(missingBody.code, 'USER_NOT_FOUND');

  const partial = await fetch(`http://${domain}/.well-known/lnurlp/$carol?nonce=1&signature=ab`);
  assert.equal(partial.status, 400);
  assert.equal((await partial.json()).code, 'MISSING_REQUIRED_UMA_PARAMETERS');

  // A plain LUD-16 lookup of carol@domain: unsigned, with the lightning address in the metadata.
  const plain = await fetch(`http://${domain}/.well-known/lnurlp/carol`);
  assert.equal(plain.status, 200);
  const plainBody = await plain.json();
  assert.equal(plainBody.tag, 'payRequest');
  assert.equal(plainBody.compliance, undefined);
  assert.deepEqual(JSON.parse(plainBody.metadata).find(([type]) => type === 'text/identifier'),
    ['text/identifier', `carol@${domain}`]);
  assert.ok(plainBody.minSendable <= plainBody.maxSendable);

  // Another host is not this platform; the platform's proxy subdomain is.
  const elsewhere = await fetch(`http://${domain}/.well-known/lnurlpubkey`, { headers: { 'x-forwarded-host': 'unknown.example' } });
  assert.equal(elsewhere.status, 404);
  const config = (await call(corridor, platform.sandbox, 'GET', '/config')).body;
  const proxied = await fetch(`http://${domain}/.well-known/lnurlp/$carol`,
    { headers: { 'x-forwarded-host': `${config.proxyUmaSubdomain}.uma.corridor.localhost` } });
  assert.equal(proxied.status, 200);
  assert.equal((await proxied.json()).tag, 'payRequest');

  const configuration = await fetch(`http://${domain}/.well-known/uma-configuration`);
  assert.equal(configuration.status, 200);
  const configurationBody = await configuration.json();
  assert.deepEqual(configurationBody.uma_major_versions, [1, 0]);
  assert.equal(configurationBody.name, 'Platform 0');
});

test('the SDK resolves and pays a sandbox customer at the domain both environments share', async (t) => {
  // As the quick start makes it: the platform's UMA domain is the server's own address, for both
  // environments; the sandbox customer gets the address Corridor gives it.
  const corridor = await startOnOwnPort({
    platforms: 1, ownUmaDomain: true, config: { outbound: { allow_private_addresses: true } },
  });
  const sender = keyPair();
  const senderVasp = await startSender(sender);
  const webhooks = await startReceiver(() => ({ status: 200 }));
  t.after(async () => { senderVasp.server.close(); await stopCorridor(corridor); await stopReceiver(webhooks); });
  const platform = corridor.platforms[0];
  const domain = corridor.address;
  assert.equal((await call(corridor, platform.sandbox, 'PATCH', '/config', { webhookEndpoint: webhooks.url })).status, 200);
  const created = await call(corridor, platform.sandbox, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Sandy Box' });
  assert.equal(created.status, 201, created.text);
  const receiverAddress = created.body.umaAddress;
  assert.ok(receiverAddress.endsWith(`@${domain}`), receiverAddress);
  const live = await call(corridor, platform.production, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Pro Duction' });
  assert.equal(live.status, 201, live.text);

  const keys = await fetchPublicKeyForVasp({ cache: new InMemoryPublicKeyCache(), vaspDomain: domain });
  const resolve = async (address) => {
    const reply = await fetch(await getSignedLnurlpRequestUrl({
      isSubjectToTravelRule: true, receiverAddress: address, senderVaspDomain: senderVasp.domain,
      signingPrivateKey: sender.secret,
    }));
    const text = await reply.text();
    assert.equal(reply.status, 200, text);
    const response = LnurlpResponse.fromJson(text);
    assert.equal(response.compliance.receiverIdentifier, address);
    assert.equal(await verifyUmaLnurlpResponseSignature(response, keys, freshNonces()), true);
    return response;
  };
  // Both environments' customers resolve at the domain, each signed with the keys it publishes.
  const response = await resolve(receiverAddress);
  assert.ok(response.callback.endsWith(`/uma/payreq/${created.body.id}`), response.callback);
  const liveResponse = await resolve(live.body.umaAddress);
  assert.ok(liveResponse.callback.endsWith(`/uma/payreq/${live.body.id}`), liveResponse.callback);

  const payRequest = await getPayRequest({
    receiverEncryptionPubKey: keys.getEncryptionPubKey(), sendingVaspPrivateKey: sender.secret,
    receivingCurrencyCode: 'USD', amount: 250, isAmountInReceivingCurrency: true,
    payerIdentifier: `$alice@${senderVasp.domain}`, payerName: 'Alice', trInfo: '{"name":"Alice"}',
    travelRuleFormat: 'ivms@101.2023', payerKycStatus: KycStatus.Verified, umaMajorVersion: 1,
  });
  const paid = await fetch(`${corridor.baseUrl}${new URL(response.callback).pathname}`,
    { method: 'POST', headers: { 'content-type': 'application/json' }, body: payRequest.toJsonString() });
  const paidText = await paid.text();
  assert.equal(paid.status, 200, paidText);
  const payResponse = PayReqResponse.fromJson(paidText);
  assert.equal(await verifyPayReqResponseSignature(payResponse, `$alice@${senderVasp.domain}`,
    receiverAddress, keys, freshNonces()), true);
  assert.equal(payResponse.converted.amount, 250);
  // The payment is the sandbox's, and only the sandbox's.
  const incoming = await call(corridor, platform.sandbox, 'GET', `/transactions?customerId=${created.body.id}&type=INCOMING`);
  assert.equal(incoming.status, 200, incoming.text);
  assert.equal(incoming.body.data.length, 1);
  assert.equal(incoming.body.data[0].receivedAmount.amount, 250);
  const elsewhere = await call(corridor, platform.production, 'GET', `/transactions?type=INCOMING`);
  assert.equal(elsewhere.body.data.length, 0);
});

// UMA key rotation as the SDK sees it: while a switch is staged the published keys carry an
// expirationTimestamp (unix seconds) at the switch; after it the SDK fetches the new signing key,
// which verifies what Corridor signs from then on while the old key no longer does; a pay request
// the SDK encrypted to the replaced encryption key is still accepted during the overlap.
import { runCli } from '../api/lib/harness.mjs';

test('after an uma-key switch the SDK verifies new signatures against the newly fetched key', async (t) => {
  const corridor = await startOnOwnPort({
    platforms: 1, ownUmaDomain: true,
    config: { outbound: { allow_private_addresses: true }, uma: { previous_key_overlap_seconds: 600 } },
  });
  const sender = keyPair();
  const senderVasp = await startSender(sender);
  const webhooks = await startReceiver(() => ({ status: 200 }));
  t.after(async () => { senderVasp.server.close(); await stopCorridor(corridor); await stopReceiver(webhooks); });
  const platform = corridor.platforms[0];
  const domain = corridor.address;
  assert.equal((await call(corridor, platform.sandbox, 'PATCH', '/config', { webhookEndpoint: webhooks.url })).status, 200);
  const created = await call(corridor, platform.sandbox, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Rota Tion' });
  assert.equal(created.status, 201, created.text);
  const receiverAddress = created.body.umaAddress;

  const lookup = async () => {
    const reply = await fetch(await getSignedLnurlpRequestUrl({
      isSubjectToTravelRule: true, receiverAddress, senderVaspDomain: senderVasp.domain, signingPrivateKey: sender.secret,
    }));
    const text = await reply.text();
    assert.equal(reply.status, 200, text);
    return LnurlpResponse.fromJson(text);
  };
  const oldKeys = await fetchPublicKeyForVasp({ cache: new InMemoryPublicKeyCache(), vaspDomain: domain });
  assert.equal(oldKeys.expirationTimestamp, undefined);

  const switchAtMs = Date.now() + 3000;
  const staged = JSON.parse(runCli(corridor, ['uma-key', 'rotate', '--platform', platform.platformId, '--next',
    '--at', new Date(switchAtMs).toISOString()]));
  const stagedKeys = await fetchPublicKeyForVasp({ cache: new InMemoryPublicKeyCache(), vaspDomain: domain });
  assert.equal(stagedKeys.signingPubKey, oldKeys.signingPubKey, 'the staged key is not published before the switch');
  assert.equal(stagedKeys.expirationTimestamp, Math.ceil(switchAtMs / 1000));
  assert.equal(await verifyUmaLnurlpResponseSignature(await lookup(), oldKeys, freshNonces()), true);

  while (Date.now() < switchAtMs + 50) await new Promise((resolve) => setTimeout(resolve, 100));
  const newKeys = await fetchPublicKeyForVasp({ cache: new InMemoryPublicKeyCache(), vaspDomain: domain });
  assert.equal(newKeys.signingPubKey, staged.signingPubKey);
  assert.equal(Buffer.from(newKeys.getSigningPubKey()).toString('hex'), staged.signingPubKey, 'the certificate carries the new key');
  assert.equal(Buffer.from(newKeys.getEncryptionPubKey()).toString('hex'), staged.encryptionPubKey);
  const response = await lookup();
  assert.equal(await verifyUmaLnurlpResponseSignature(response, newKeys, freshNonces()), true);
  assert.equal(await verifyUmaLnurlpResponseSignature(response, oldKeys, freshNonces()), false);

  // A sender that still holds the old keys encrypts to the replaced key: accepted in the overlap,
  // and the answer is signed with the new key.
  const payRequest = await getPayRequest({
    receiverEncryptionPubKey: oldKeys.getEncryptionPubKey(), sendingVaspPrivateKey: sender.secret,
    receivingCurrencyCode: 'USD', amount: 250, isAmountInReceivingCurrency: true,
    payerIdentifier: `$alice@${senderVasp.domain}`, payerName: 'Alice', trInfo: '{"name":"Alice"}',
    travelRuleFormat: 'ivms@101.2023', payerKycStatus: KycStatus.Verified, umaMajorVersion: 1,
  });
  const paid = await fetch(`${corridor.baseUrl}${new URL(response.callback).pathname}`,
    { method: 'POST', headers: { 'content-type': 'application/json' }, body: payRequest.toJsonString() });
  const paidText = await paid.text();
  assert.equal(paid.status, 200, paidText);
  const payResponse = PayReqResponse.fromJson(paidText);
  assert.equal(await verifyPayReqResponseSignature(payResponse, `$alice@${senderVasp.domain}`,
    receiverAddress, newKeys, freshNonces()), true);
  assert.equal(await verifyPayReqResponseSignature(payResponse, `$alice@${senderVasp.domain}`,
    receiverAddress, oldKeys, freshNonces()), false);
});
