// UMA interop, paying: a running corridor looks up, quotes and pays a receiver whose provider is the
// official SDK (@uma-sdk/core 1.5.0, lib/uma_provider.mjs). What crosses the wire is read back with
// the SDK's own parsers and verifiers: our pay request (shape, signature, travel-rule data
// encrypted to the provider's key), the invoice the SDK made (what the payment paid), and our
// post-transaction callback (signature checked with the keys the SDK fetched from our
// /.well-known/lnurlpubkey).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  InMemoryNonceValidator, InMemoryPublicKeyCache, PayRequest, fetchPublicKeyForVasp,
  parsePostTransactionCallback, verifyPostTransactionCallbackSignature,
} from '@uma-sdk/core';
import { startCorridor, stopCorridor, call } from '../api/lib/harness.mjs';
import { decodeInvoice, startUmaProvider, stopUmaProvider } from './lib/uma_provider.mjs';

let corridor, sandbox, provider, domain;

before(async () => {
  provider = await startUmaProvider({ payerData: { name: { mandatory: true }, countryOfResidence: { mandatory: true }, email: { mandatory: false } } });
  corridor = await startCorridor({
    platforms: 1,
    plugins: { rails: ['spark'], settings: { spark: { network: 'regtest', node_private_key_hex: 'e126f68f7eafcc8b74f54d269fe206be715000f94dac067d1c04a8ca3b2db734' } } },
    config: {
      outbound: { allow_private_addresses: true, timeout_ms: 2000 },
      uma: { proxy_host: 'uma.corridor.localhost', post_transaction_poll_interval_ms: 20 },
      rails: { call_timeout_ms: 10000, settlement_timeout_ms: 259200000, drive_interval_ms: 20 },
    },
  });
  sandbox = corridor.platforms[0].sandbox;
  domain = new URL(corridor.baseUrl).host;
  const patched = await call(corridor, sandbox, 'PATCH', '/config', { umaDomain: domain });
  assert.equal(patched.status, 200, patched.text);
});

after(async () => {
  if (corridor) await stopCorridor(corridor);
  if (provider) await stopUmaProvider(provider);
});

async function fundedSender(user, cents) {
  const created = await call(corridor, sandbox, 'POST', '/customers', { customerType: 'INDIVIDUAL', umaAddress: `$${user}@${domain}`, fullName: user });
  assert.equal(created.status, 201, created.text);
  const accounts = await call(corridor, sandbox, 'GET', `/customers/internal-accounts?customerId=${encodeURIComponent(created.body.id)}&currency=USD`);
  const usd = accounts.body.data[0];
  const funded = await call(corridor, sandbox, 'POST', `/sandbox/internal-accounts/${usd.id}/fund`, { amount: cents });
  assert.equal(funded.status, 200, funded.text);
  return { customer: created.body, usd };
}

async function pay(customer, usd, side, amount) {
  const found = await call(corridor, sandbox, 'GET', `/receiver/uma/${encodeURIComponent(provider.address('bob'))}?customerId=${encodeURIComponent(customer.id)}`);
  assert.equal(found.status, 200, found.text);
  const quote = await call(corridor, sandbox, 'POST', '/quotes', {
    source: { sourceType: 'ACCOUNT', accountId: usd.id },
    destination: { destinationType: 'UMA_ADDRESS', umaAddress: found.body.receiverUmaAddress, currency: 'MXN' },
    lookupId: found.body.lookupId,
    lockedCurrencySide: side,
    lockedCurrencyAmount: amount,
    senderCustomerInfo: { FULL_NAME: 'Ana Remitente', COUNTRY_OF_RESIDENCE: 'US', EMAIL: 'ana@example.com' },
    immediatelyExecute: true,
  });
  assert.equal(quote.status, 201, quote.text);
  for (let i = 0; i < 200; i++) {
    const transaction = await call(corridor, sandbox, 'GET', `/transactions/${quote.body.transactionId}`);
    if (transaction.body.status !== 'PENDING') return { quote: quote.body, transaction: transaction.body };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the payment did not settle');
}

async function callbackVerified() {
  for (let i = 0; i < 200 && provider.callbacks.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 25));
  assert.equal(provider.callbacks.length, 1);
  const { body } = provider.callbacks[0];
  // Independently of the provider: parse with the SDK, fetch our keys as any SDK user would.
  const callback = parsePostTransactionCallback(JSON.stringify(body));
  const keys = await fetchPublicKeyForVasp({ cache: new InMemoryPublicKeyCache(), vaspDomain: callback.vaspDomain });
  assert.equal(callback.vaspDomain, domain);
  assert.equal(await verifyPostTransactionCallbackSignature(callback, keys, new InMemoryNonceValidator(Date.now() - 60_000)), true);
}

test('UMA 1.0: the SDK reads our pay request, invoices it, and hears that it was paid', async () => {
  provider.reset();
  const { customer, usd } = await fundedSender('ana', 50_000);
  const { quote, transaction } = await pay(customer, usd, 'SENDING', 20_000);
  assert.equal(transaction.status, 'COMPLETED', JSON.stringify(transaction));
  assert.equal(provider.payRequests.length, 1);
  const { body, verified, travelRule, invoiceMsats, response } = provider.payRequests[0];
  assert.equal(verified, true);
  // The body round-trips through the SDK's parser unchanged in meaning.
  const parsed = PayRequest.fromJson(JSON.stringify(body));
  assert.equal(parsed.isUma(), true);
  assert.equal(parsed.umaMajorVersion, 1);
  assert.equal(parsed.receivingCurrencyCode, 'MXN');
  assert.equal(parsed.sendingAmountCurrencyCode, undefined);
  assert.equal(typeof body.amount, 'string');
  assert.equal(parsed.amount, invoiceMsats);
  assert.deepEqual(Object.keys(body.payerData).sort(), ['compliance', 'countryOfResidence', 'email', 'identifier', 'name']);
  assert.equal(body.payerData.countryOfResidence, 'US');
  assert.equal(body.payerData.compliance.kycStatus, 'VERIFIED');
  assert.ok(Math.abs(body.payerData.compliance.signatureTimestamp - Date.now() / 1000) < 60);
  assert.deepEqual(JSON.parse(travelRule), {
    name: 'Ana Remitente', countryOfResidence: 'US', email: 'ana@example.com', identifier: customer.umaAddress,
  });
  // What was paid is what the SDK invoiced; what the receiver gets is what the SDK converted.
  assert.equal(decodeInvoice(provider.payRequests[0].invoice).millisatoshis, invoiceMsats);
  assert.equal(quote.totalReceivingAmount, response.converted.amount);
  assert.equal(transaction.receivedAmount.amount, response.converted.amount);
  assert.equal(transaction.receivedAmount.currency.code, 'MXN');
  assert.equal(quote.totalSendingAmount, 20_000);
  await callbackVerified();
});

test('UMA 0.3: a receiver-locked payment in the v0 shapes', async () => {
  provider.reset();
  provider.lookupMode = 'v0only';
  const { customer, usd } = await fundedSender('beto', 50_000);
  const { quote, transaction } = await pay(customer, usd, 'RECEIVING', 150_000);
  assert.equal(transaction.status, 'COMPLETED', JSON.stringify(transaction));
  const { body, verified, response, invoiceMsats } = provider.payRequests[0];
  assert.equal(verified, true);
  assert.deepEqual(Object.keys(body).filter((key) => ['currency', 'convert', 'amount'].includes(key)).sort(), ['amount', 'currency']);
  assert.equal(body.amount, 150_000);
  assert.equal(body.currency, 'MXN');
  assert.ok(response.paymentInfo && !response.converted, JSON.stringify(response));
  assert.equal(invoiceMsats, Math.round(150_000 * provider.currencies.MXN.multiplier + provider.feeMsats));
  assert.equal(quote.totalReceivingAmount, 150_000);
  await callbackVerified();
});
