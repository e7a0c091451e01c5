// GET /receiver/uma/{receiverUmaAddress}: a customer of one platform looks up a customer of
// another. Both platforms live in one corridor, one reached as 127.0.0.1:<port> and the other as
// localhost:<port>, so the sending side (signed request, key fetch, verification) talks to the
// real receiving side over HTTP.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { freePort, startCorridor, stopCorridor, call } from './lib/harness.mjs';

let corridor, senderPlatform, receiverPlatform, senderDomain, receiverDomain, alice, bob;

async function createCustomer(credentials, umaAddress, fullName) {
  const created = await call(corridor, credentials, 'POST', '/customers',
    { customerType: 'INDIVIDUAL', umaAddress, fullName });
  assert.equal(created.status, 201, created.text);
  return created.body;
}

before(async () => {
  corridor = await startCorridor({ platforms: 2, config: { outbound: { allow_private_addresses: true, timeout_ms: 1500 } } });
  const port = new URL(corridor.baseUrl).port;
  senderDomain = `127.0.0.1:${port}`;
  receiverDomain = `localhost:${port}`;
  [senderPlatform, receiverPlatform] = corridor.platforms;
  for (const [platform, domain] of [[senderPlatform, senderDomain], [receiverPlatform, receiverDomain]]) {
    const patched = await call(corridor, platform.production, 'PATCH', '/config', { umaDomain: domain });
    assert.equal(patched.status, 200, patched.text);
  }
  alice = await createCustomer(senderPlatform.production, `$alice@${senderDomain}`, 'Alice Sender');
  bob = await createCustomer(receiverPlatform.production, `$bob@${receiverDomain}`, 'Bob Receiver');
});

after(async () => { await stopCorridor(corridor); });

const lookup = (address, query, credentials = senderPlatform.production) =>
  call(corridor, credentials, 'GET', `/receiver/uma/${encodeURIComponent(address)}${query}`);

test('a lookup answers the receiver\'s currencies, priced, with a stored lookupId', async () => {
  const found = await lookup(`$bob@${receiverDomain}`, `?customerId=${encodeURIComponent(alice.id)}`);
  assert.equal(found.status, 200, found.text);
  assert.match(found.body.lookupId, /^Lookup:[0-9a-f-]{36}$/);
  assert.equal(found.body.receiverUmaAddress, `$bob@${receiverDomain}`);
  const currencies = found.body.supportedCurrencies;
  assert.ok(currencies.length >= 2, found.text);
  const codes = currencies.map((item) => item.currency.code);
  assert.ok(codes.includes('USD') && codes.includes('EUR'), found.text);
  for (const item of currencies) {
    assert.ok(item.estimatedExchangeRate > 0, JSON.stringify(item));
    assert.ok(Number.isInteger(item.min) && item.min > 0 && item.max >= item.min, JSON.stringify(item));
    assert.equal(typeof item.currency.decimals, 'number');
  }
  // USD to USD crosses Lightning at the service's BTC price on both sides: close to 1, not 1.
  const usd = currencies.find((item) => item.currency.code === 'USD');
  assert.ok(usd.estimatedExchangeRate > 0.9 && usd.estimatedExchangeRate < 1.1, JSON.stringify(usd));
  const eur = currencies.find((item) => item.currency.code === 'EUR');
  assert.notEqual(eur.estimatedExchangeRate, usd.estimatedExchangeRate);
  assert.ok(Array.isArray(found.body.requiredPayerDataFields));
  assert.ok(!found.body.requiredPayerDataFields.some((field) => field.name === 'IDENTIFIER'));

  // A second lookup is a new lookup (its own nonce and id), by UMA address this time.
  const again = await lookup(`$BOB@${receiverDomain}`, `?senderUmaAddress=${encodeURIComponent(alice.umaAddress)}`);
  assert.equal(again.status, 200, again.text);
  assert.notEqual(again.body.lookupId, found.body.lookupId);
  assert.equal(again.body.receiverUmaAddress, `$bob@${receiverDomain}`);
});

test('the receiver\'s required counterparty fields come back as requiredPayerDataFields', async () => {
  const config = await call(corridor, receiverPlatform.production, 'GET', '/config');
  const supportedCurrencies = config.body.supportedCurrencies.map((item) => (
    item.currencyCode === 'USD'
      ? { ...item, requiredCounterpartyFields: [{ name: 'FULL_NAME', mandatory: true }, { name: 'BIRTH_DATE', mandatory: false }] }
      : item));
  const patched = await call(corridor, receiverPlatform.production, 'PATCH', '/config', { supportedCurrencies });
  assert.equal(patched.status, 200, patched.text);
  const found = await lookup(`$bob@${receiverDomain}`, `?customerId=${encodeURIComponent(alice.id)}`);
  assert.equal(found.status, 200, found.text);
  const fields = Object.fromEntries(found.body.requiredPayerDataFields.map((field) => [field.name, field.mandatory]));
  assert.equal(fields.FULL_NAME, true, found.text);
  assert.equal(fields.BIRTH_DATE, false, found.text);
});

test('bad requests are refused before anything is asked', async () => {
  const aliceQuery = `?customerId=${encodeURIComponent(alice.id)}`;
  let reply = await lookup('bob@nowhere', aliceQuery);
  assert.equal(reply.status, 400, reply.text);
  assert.equal(reply.body.code, 'INVALID_UMA_ADDRESS');
  reply = await lookup(`$bob@${receiverDomain}`, '');
  assert.equal(reply.status, 400, reply.text);
  assert.equal(reply.body.code, 'INVALID_INPUT');
  reply = await lookup(`$bob@${receiverDomain}`, `${aliceQuery}&senderUmaAddress=${encodeURIComponent(alice.umaAddress)}`);
  assert.equal(reply.status, 400, reply.text);
  reply = await lookup(`$bob@${receiverDomain}`, '?customerId=Customer:00000000-0000-7000-8000-000000000000');
  assert.equal(reply.status, 404, reply.text);
  assert.equal(reply.body.code, 'USER_NOT_FOUND');
  reply = await lookup(`$bob@${receiverDomain}`, `?senderUmaAddress=${encodeURIComponent(`$nobody@${senderDomain}`)}`);
  assert.equal(reply.status, 404, reply.text);
  assert.equal(reply.body.details.field, 'senderUmaAddress');
  // Another platform's customer is not a sender here.
  reply = await lookup(`$alice@${senderDomain}`, `?customerId=${encodeURIComponent(bob.id)}`);
  assert.equal(reply.status, 404, reply.text);
  reply = await lookup(alice.umaAddress, aliceQuery);
  assert.equal(reply.status, 400, reply.text);
  assert.equal(reply.body.code, 'SELF_PAYMENT');
  reply = await lookup(`$bob@${receiverDomain}`, `${aliceQuery}&sendingCurrency=XXX`);
  assert.equal(reply.status, 400, reply.text);
  assert.equal(reply.body.code, 'INVALID_CURRENCY');
  reply = await call(corridor, undefined, 'GET', `/receiver/uma/${encodeURIComponent(`$bob@${receiverDomain}`)}${aliceQuery}`);
  assert.equal(reply.status, 401);
});

test('an unknown receiver is 404; a provider that is not there or never answers is 424', async () => {
  const aliceQuery = `?customerId=${encodeURIComponent(alice.id)}`;
  let reply = await lookup(`$nobody@${receiverDomain}`, aliceQuery);
  assert.equal(reply.status, 404, reply.text);
  assert.equal(reply.body.code, 'USER_NOT_FOUND');
  assert.equal(reply.body.details.field, 'receiverUmaAddress');

  // A port nothing listens on.
  const closedPort = await freePort();
  reply = await lookup(`$bob@127.0.0.1:${closedPort}`, aliceQuery);
  assert.equal(reply.status, 424, reply.text);
  assert.equal(reply.body.code, 'LNURLP_REQUEST_FAILED');

  // A provider that accepts the connection and never answers: bounded by outbound.timeout_ms.
  const silent = createServer(() => {});
  await new Promise((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const started = Date.now();
  reply = await lookup(`$bob@127.0.0.1:${silent.address().port}`, aliceQuery);
  silent.close();
  assert.equal(reply.status, 424, reply.text);
  assert.equal(reply.body.code, 'LNURLP_REQUEST_FAILED');
  assert.ok(Date.now() - started < 10000);
});

test('private addresses are refused unless the operator allows them', async (t) => {
  const strict = await startCorridor({ platforms: 1 });
  t.after(() => stopCorridor(strict));
  const platform = strict.platforms[0];
  const customer = await call(strict, platform.production, 'POST', '/customers',
    { customerType: 'INDIVIDUAL', fullName: 'Carol' });
  assert.equal(customer.status, 201, customer.text);
  const query = `?customerId=${encodeURIComponent(customer.body.id)}`;
  for (const address of [`$bob@${receiverDomain}`, `$bob@${senderDomain}`]) {
    const reply = await call(strict, platform.production, 'GET', `/receiver/uma/${encodeURIComponent(address)}${query}`);
    assert.equal(reply.status, 424, reply.text);
    assert.equal(reply.body.code, 'LNURLP_REQUEST_FAILED');
  }
});
