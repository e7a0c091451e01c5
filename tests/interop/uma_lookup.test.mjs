// UMA interop, sending side: a running corridor looks up a receiver whose provider is played by the
// official SDK (@uma-sdk/core). The SDK verifies corridor's signed lnurlp request with the keys
// corridor publishes; corridor verifies the SDK's answer. The provider can also misbehave: sign with
// another key, answer about another user, replay an answer, refuse versions, answer garbage.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import {
  Currency, InMemoryNonceValidator, InMemoryPublicKeyCache, KycStatus, fetchPublicKeyForVasp,
  getLnurlpResponse, parseLnurlpRequest, verifyUmaLnurlpQuerySignature,
} from '@uma-sdk/core';
import { startCorridor, stopCorridor, call } from '../api/lib/harness.mjs';
import { keyPair } from './lib/uma_provider.mjs';

// The receiving provider. `mode` says how it answers the next lookups.
function startProvider() {
  const keys = keyPair();
  const other = keyPair();
  const provider = { mode: 'ok', requests: [], lastBody: undefined, keys };
  const nonces = new InMemoryNonceValidator(Date.now() - 60_000);
  provider.server = createServer(async (request, response) => {
    const send = (status, body) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(typeof body === 'string' ? body : JSON.stringify(body));
    };
    try {
      if (request.url === '/.well-known/lnurlpubkey') {
        return send(200, { signingPubKey: keys.pubHex, encryptionPubKey: keys.pubHex });
      }
      if (!request.url.startsWith('/.well-known/lnurlp/')) return send(404, { status: 'ERROR', reason: 'no' });
      const query = parseLnurlpRequest(new URL(request.url, `http://${request.headers.host}`));
      const senderKeys = await fetchPublicKeyForVasp({ cache: new InMemoryPublicKeyCache(), vaspDomain: query.vaspDomain });
      const verified = await verifyUmaLnurlpQuerySignature(query, senderKeys, nonces);
      provider.requests.push({ query, verified });
      const mode = provider.mode;
      if (mode === 'never') return;  // the connection stays open, unanswered
      if (mode === 'garbage') return send(200, '<html>not json</html>');
      if (mode === 'replay' && provider.lastBody) return send(200, provider.lastBody);
      if (mode === 'v0only' && query.umaVersion.startsWith('1.')) {
        return send(412, { status: 'ERROR', code: 'UNSUPPORTED_UMA_VERSION', supportedMajorVersions: [0], unsupportedVersion: query.umaVersion });
      }
      if (mode === 'v2only') return send(412, { supportedMajorVersions: [2], unsupportedVersion: query.umaVersion });
      if (mode === 'unknown') return send(404, { status: 'ERROR', reason: 'no such user', code: 'USER_NOT_FOUND' });
      if (!verified) return send(401, { status: 'ERROR', reason: 'bad signature', code: 'INVALID_SIGNATURE' });
      if (mode === 'wrongid') query.receiverAddress = query.receiverAddress.replace('$bob', '$eve');
      const lnurlp = await getLnurlpResponse({
        request: query,
        callback: `http://${request.headers.host}/payreq/bob`,
        encodedMetadata: JSON.stringify([['text/plain', 'Pay bob']]),
        minSendableSats: 1,
        maxSendableSats: 10_000_000,
        privateKeyBytes: mode === 'badsig' ? other.secret : keys.secret,
        requiresTravelRuleInfo: true,
        payerDataOptions: { name: { mandatory: true }, email: { mandatory: false } },
        currencyOptions: [new Currency('EUR', 'Euro', '€', 1_100_000, 100, 500_000, 2), new Currency('ZZZ', 'Unknown', 'z', 5, 1, 9, 2)],
        receiverKycStatus: KycStatus.Verified,
      });
      provider.lastBody = lnurlp.toJsonString();
      return send(200, provider.lastBody);
    } catch (error) {
      return send(500, { status: 'ERROR', reason: String(error) });
    }
  });
  return new Promise((resolve) => provider.server.listen(0, '127.0.0.1', () => {
    provider.domain = `127.0.0.1:${provider.server.address().port}`;
    resolve(provider);
  }));
}

let corridor, platform, alice, provider, domain;

before(async () => {
  corridor = await startCorridor({ platforms: 1, config: { outbound: { allow_private_addresses: true, timeout_ms: 1500 } } });
  platform = corridor.platforms[0];
  domain = new URL(corridor.baseUrl).host;
  const patched = await call(corridor, platform.production, 'PATCH', '/config', { umaDomain: domain });
  assert.equal(patched.status, 200, patched.text);
  const created = await call(corridor, platform.production, 'POST', '/customers',
    { customerType: 'INDIVIDUAL', umaAddress: `$alice@${domain}`, fullName: 'Alice' });
  assert.equal(created.status, 201, created.text);
  alice = created.body;
  provider = await startProvider();
});

after(async () => {
  provider.server.closeAllConnections();
  provider.server.close();
  await stopCorridor(corridor);
});

async function lookup(mode) {
  provider.mode = mode;
  provider.requests = [];
  const address = encodeURIComponent(`$bob@${provider.domain}`);
  return call(corridor, platform.production, 'GET', `/receiver/uma/${address}?customerId=${encodeURIComponent(alice.id)}&sendingCurrency=USD`);
}

test('the SDK verifies our signed request and we verify its answer', async () => {
  const reply = await lookup('ok');
  assert.equal(reply.status, 200, reply.text);
  assert.equal(provider.requests.length, 1);
  const { query, verified } = provider.requests[0];
  assert.equal(verified, true);
  assert.equal(query.vaspDomain, domain);
  assert.equal(query.umaVersion, '1.0');
  assert.equal(query.isSubjectToTravelRule, true);
  assert.equal(reply.body.receiverUmaAddress, `$bob@${provider.domain}`);
  // ZZZ is no currency of ours: only EUR is offered, with the provider's range.
  assert.deepEqual(reply.body.supportedCurrencies.map((item) => item.currency.code), ['EUR']);
  const [eur] = reply.body.supportedCurrencies;
  assert.equal(eur.min, 100);
  assert.equal(eur.max, 500_000);
  assert.ok(eur.estimatedExchangeRate > 0);
  assert.deepEqual(reply.body.requiredPayerDataFields,
    [{ name: 'FULL_NAME', mandatory: true }, { name: 'EMAIL', mandatory: false }]);
});

test('a provider that only speaks v0 is asked again in 0.3', async () => {
  const reply = await lookup('v0only');
  assert.equal(reply.status, 200, reply.text);
  assert.deepEqual(provider.requests.map((item) => item.query.umaVersion), ['1.0', '0.3']);
  assert.ok(provider.requests.every((item) => item.verified));
});

test('misbehaving providers fail the lookup with the interface codes', async () => {
  const cases = [
    ['badsig', 424, 'LNURLP_REQUEST_FAILED', 'INVALID_SIGNATURE'],
    ['wrongid', 424, 'LNURLP_REQUEST_FAILED', 'INVALID_SIGNATURE'],
    ['garbage', 400, 'PARSE_LNURLP_RESPONSE_ERROR'],
    ['v2only', 424, 'NO_COMPATIBLE_UMA_VERSION'],
    ['unknown', 404, 'USER_NOT_FOUND'],
    ['never', 424, 'LNURLP_REQUEST_FAILED'],
  ];
  for (const [mode, status, code, umaCode] of cases) {
    const reply = await lookup(mode);
    assert.equal(reply.status, status, `${mode}: ${reply.text}`);
    assert.equal(reply.body.code, code, mode);
    if (umaCode) assert.equal(reply.body.details.umaCode, umaCode, mode);
  }
});

test('a replayed answer (same nonce) is refused', async () => {
  const first = await lookup('ok');
  assert.equal(first.status, 200, first.text);
  const replayed = await lookup('replay');
  assert.equal(replayed.status, 424, replayed.text);
  assert.equal(replayed.body.code, 'LNURLP_REQUEST_FAILED');
  assert.equal(replayed.body.details.umaCode, 'INVALID_NONCE');
});
