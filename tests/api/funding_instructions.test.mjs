// Funding instructions come from the rail serving the currency in the tenant's environment: the
// sandbox rail for sandbox tenants (its instructions carry "Sandbox: no real money moves"), the pix
// rail for BRL in production; with no rail serving a currency, conf/funding.json answers. A
// REALTIME_FUNDING quote stores its instructions when it is created, so reads show the same ones.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startCorridor, stopCorridor, call } from './lib/harness.mjs';
import { newCustomer, accountsOf, assertError } from './lib/money.mjs';

const sandboxNote = 'Sandbox: no real money moves';
const configured = JSON.parse(readFileSync(join(process.env.CORRIDOR_CONF_DIR, 'funding.json'), 'utf8'));

const pixSettings = {
  ispb: '12345678', pix_key: '11222333000181', pix_key_type: 'CNPJ', tax_id: '11222333000181',
  merchant_name: 'CORRIDOR TEST', merchant_city: 'SAO PAULO',
};

let railed;   // sandbox and pix rails
let bare;     // no rails: only the configuration answers

before(async () => {
  railed = await startCorridor({ platforms: 1, plugins: { rails: ['sandbox', 'pix'], settings: { pix: pixSettings } } });
  bare = await startCorridor({ platforms: 1, plugins: { rails: [] } });
});
after(async () => {
  if (railed) await stopCorridor(railed);
  if (bare) await stopCorridor(bare);
});

function onlyInstruction(account) {
  assert.equal(account.fundingPaymentInstructions.length, 1, JSON.stringify(account));
  return account.fundingPaymentInstructions[0];
}

test('sandbox accounts get the sandbox rail\'s bank details for every currency', async () => {
  const credentials = railed.platforms[0].sandbox;
  const customer = await newCustomer(railed, credentials);
  const accounts = await accountsOf(railed, credentials, customer.id);
  let checked = 0;
  for (const [code, details] of Object.entries(configured)) {
    const account = accounts[code];
    if (!account) continue;
    const instruction = onlyInstruction(account);
    const info = instruction.accountOrWalletInfo;
    // The same details as the configuration, with the account's own reference.
    assert.deepEqual({ ...info, reference: undefined }, { ...details, reference: undefined }, code);
    assert.equal(typeof info.reference, 'string');
    assert.ok(info.reference.length >= 6, info.reference);
    assert.ok(instruction.instructionsNotes.includes(info.reference), instruction.instructionsNotes);
    assert.ok(instruction.instructionsNotes.includes(sandboxNote), `${code} comes from the rail: ${instruction.instructionsNotes}`);
    assert.equal(instruction.isPlatformAccount, true);
    checked++;
  }
  assert.ok(checked >= 5, `only ${checked} currencies checked`);
  assert.ok(accounts.BTC, JSON.stringify(Object.keys(accounts)));
  const btc = onlyInstruction(accounts.BTC).accountOrWalletInfo;
  assert.equal(btc.accountType, 'SPARK_WALLET');
  assert.match(btc.address, /^spark/);
});

test('a sandbox REALTIME_FUNDING quote stores the rail\'s instructions with its reference', async () => {
  const credentials = railed.platforms[0].sandbox;
  const receiver = await newCustomer(railed, credentials);
  const destination = (await accountsOf(railed, credentials, receiver.id)).MXN;
  for (const currency of ['USD', 'EUR', 'BRL']) {
    const created = await call(railed, credentials, 'POST', '/quotes', {
      source: { sourceType: 'REALTIME_FUNDING', currency },
      destination: { destinationType: 'ACCOUNT', accountId: destination.id },
      lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 10000,
    });
    assert.equal(created.status, 201, created.text);
    const quote = created.body;
    assert.equal(quote.paymentInstructions.length, 1, JSON.stringify(quote));
    const [instruction] = quote.paymentInstructions;
    assert.equal(instruction.accountOrWalletInfo.accountType, configured[currency].accountType);
    const reference = instruction.accountOrWalletInfo.reference;
    assert.ok(instruction.instructionsNotes.includes(reference));
    assert.ok(instruction.instructionsNotes.includes(String(quote.totalSendingAmount)), instruction.instructionsNotes);
    assert.ok(instruction.instructionsNotes.includes(sandboxNote), instruction.instructionsNotes);
    const again = await call(railed, credentials, 'GET', `/quotes/${quote.id}`);
    assert.equal(again.status, 200, again.text);
    assert.deepEqual(again.body.paymentInstructions, quote.paymentInstructions);
  }
});

test('in production the pix rail gives BRL instructions and the configuration the rest', async () => {
  const credentials = railed.platforms[0].production;
  const customer = await newCustomer(railed, credentials);
  const accounts = await accountsOf(railed, credentials, customer.id);
  const brl = onlyInstruction(accounts.BRL);
  assert.equal(brl.accountOrWalletInfo.accountType, 'PIX');
  assert.equal(brl.accountOrWalletInfo.pixKey, pixSettings.pix_key);
  assert.equal(typeof brl.accountOrWalletInfo.brCode, 'string', JSON.stringify(brl));
  assert.ok(brl.instructionsNotes.includes(brl.accountOrWalletInfo.reference));
  const usd = onlyInstruction(accounts.USD);
  assert.equal(usd.accountOrWalletInfo.accountNumber, configured.USD.accountNumber);
  assert.ok(!usd.instructionsNotes.includes(sandboxNote), usd.instructionsNotes);
});

test('without rails the configuration answers, and a currency it lacks cannot be funded by instructions', async () => {
  const credentials = bare.platforms[0].sandbox;
  const customer = await newCustomer(bare, credentials);
  const accounts = await accountsOf(bare, credentials, customer.id);
  const usd = onlyInstruction(accounts.USD);
  assert.deepEqual({ ...usd.accountOrWalletInfo, reference: undefined }, { ...configured.USD, reference: undefined });
  assert.ok(!usd.instructionsNotes.includes(sandboxNote));
  // Every currency gets an account; with no rail and no configured BTC instruction it lists none.
  assert.ok(accounts.BTC, JSON.stringify(Object.keys(accounts)));
  assert.deepEqual(accounts.BTC.fundingPaymentInstructions, []);
  const receiver = await newCustomer(bare, credentials);
  const destination = (await accountsOf(bare, credentials, receiver.id)).USD;
  const refused = await call(bare, credentials, 'POST', '/quotes', {
    source: { sourceType: 'REALTIME_FUNDING', currency: 'BTC' },
    destination: { destinationType: 'ACCOUNT', accountId: destination.id },
    lockedCurrencySide: 'RECEIVING', lockedCurrencyAmount: 1000,
  });
  assertError(refused, 400, 'INVALID_CURRENCY');
  assert.equal(refused.body.details.field, 'source.currency');
});
