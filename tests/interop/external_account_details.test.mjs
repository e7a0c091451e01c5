// External account details against third-party implementations: CPF and CNPJ (numeric and the new
// alphanumeric form) made and judged by cpf-cnpj-validator, and BOLT #11 invoices encoded and signed
// by bolt11 on every network. Corridor must accept what they make and agree with their verdicts.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, randomInt } from 'node:crypto';
import { cpf, cnpj } from 'cpf-cnpj-validator';
import bolt11 from 'bolt11';
import { startCorridor, stopCorridor, call } from '../api/lib/harness.mjs';

let server;
let credentials;
let customerId;

const beneficiary = { beneficiaryType: 'INDIVIDUAL', fullName: 'Ana Souza', birthDate: '1990-04-01', nationality: 'BR' };
// The BOLT #11 specification's test key.
const privateKey = 'e126f68f7eafcc8b74f54d269fe206be715000f94dac067d1c04a8ca3b2db734';

before(async () => {
  // The host's own checks, which take an invoice of any network: without the shipped spark rail,
  // which in the sandbox takes only invoices of its own network (regtest).
  server = await startCorridor({ platforms: 1, plugins: { rails: ['sandbox'] } });
  credentials = server.platforms[0].sandbox;
  const customer = await call(server, credentials, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Ana Souza' });
  assert.equal(customer.status, 201, customer.text);
  customerId = customer.body.id;
});
after(async () => { if (server) await stopCorridor(server); });

function pixAccount(pixKeyType, pixKey, taxId = pixKey) {
  return call(server, credentials, 'POST', '/customers/external-accounts', {
    customerId, currency: 'BRL', accountInfo: { accountType: 'PIX', pixKeyType, pixKey, taxId, beneficiary },
  });
}

// The same string with its last check digit changed.
function breakCheckDigit(text) {
  const last = text.at(-1);
  return text.slice(0, -1) + String((Number(last) + 1 + randomInt(8)) % 10);
}

test('CPFs and CNPJs made by cpf-cnpj-validator are accepted; with a wrong check digit refused', async () => {
  for (let i = 0; i < 30; i++) {
    for (const [type, library] of [['CPF', cpf], ['CNPJ', cnpj]]) {
      const key = library.generate();
      assert.ok(library.isValid(key), key);
      const created = await pixAccount(type, key);
      assert.equal(created.status, 201, `${type} ${key}: ${created.text}`);
      assert.equal(created.body.accountInfo.pixKey, key.toUpperCase());
      const broken = breakCheckDigit(key);
      assert.equal(library.isValid(broken), false, broken);
      const refused = await pixAccount(type, broken, type === 'CPF' ? '29537995593' : '11222333000181');
      assert.equal(refused.status, 400, `${type} ${broken}: ${refused.text}`);
      assert.equal(refused.body.code, 'INVALID_BANK_ACCOUNT');
      assert.equal(refused.body.details.field, 'accountInfo.pixKey');
    }
  }
  // Formatted as people write them.
  const formatted = cpf.format(cpf.generate());
  assert.equal((await pixAccount('CPF', formatted)).status, 201, formatted);
});

test('Corridor and cpf-cnpj-validator agree on random eleven-digit strings', async () => {
  let valid = 0;
  for (let i = 0; i < 300; i++) {
    const digits = Array.from({ length: 11 }, () => randomInt(10)).join('');
    if (/^(\d)\1{10}$/.test(digits) || digits === '12345678909') continue;  // the library's blacklist
    const created = await pixAccount('CPF', digits, '29537995593');
    const expected = cpf.isValid(digits);
    if (expected) valid++;
    assert.equal(created.status, expected ? 201 : 400, `${digits}: library says ${expected}, Corridor ${created.text}`);
  }
  assert.ok(valid < 300);
});

function signedInvoice(network, amount) {
  const tags = [
    { tagName: 'payment_hash', data: randomBytes(32).toString('hex') },
    { tagName: 'payment_secret', data: randomBytes(32).toString('hex') },
    { tagName: 'description', data: `interop ${randomBytes(4).toString('hex')}` },
    { tagName: 'expire_time', data: 600 },
    { tagName: 'feature_bits', data: { word_length: 4, payment_secret: { required: true, supported: true }, var_onion_optin: { required: true, supported: true } } },
  ];
  const encoded = bolt11.encode({ network, ...amount, timestamp: Math.floor(Date.now() / 1000), tags });
  return bolt11.sign(encoded, privateKey).paymentRequest;
}

test('BOLT #11 invoices signed by bolt11 are accepted on every network; a changed character is refused', async () => {
  const networks = [
    undefined,  // mainnet
    { bech32: 'tb', pubKeyHash: 0x6f, scriptHash: 0xc4, validWitnessVersions: [0, 1] },
    { bech32: 'bcrt', pubKeyHash: 0x6f, scriptHash: 0xc4, validWitnessVersions: [0, 1] },
  ];
  const amounts = [{}, { satoshis: 1 }, { satoshis: 2500 }, { millisatoshis: '1234567' }, { satoshis: 2100000000000000 }];
  for (const network of networks) {
    for (const amount of amounts) {
      const invoice = signedInvoice(network, amount);
      assert.ok(bolt11.decode(invoice, network).complete);
      const created = await call(server, credentials, 'POST', '/customers/external-accounts', {
        customerId, currency: 'BTC', accountInfo: { accountType: 'LIGHTNING', invoice },
      });
      assert.equal(created.status, 201, `${invoice}: ${created.text}`);
      assert.equal(created.body.accountInfo.invoice, invoice);

      // One data character changed: the library's checksum fails, and so does Corridor's.
      const at = invoice.length - 10 - randomInt(40);
      const replacement = invoice[at] === 'q' ? 'p' : 'q';
      const broken = invoice.slice(0, at) + replacement + invoice.slice(at + 1);
      assert.throws(() => bolt11.decode(broken, network));
      const refused = await call(server, credentials, 'POST', '/customers/external-accounts', {
        customerId, currency: 'BTC', accountInfo: { accountType: 'LIGHTNING', invoice: broken },
      });
      assert.equal(refused.status, 400, refused.text);
      assert.equal(refused.body.code, 'INVALID_BANK_ACCOUNT');
    }
  }
});
