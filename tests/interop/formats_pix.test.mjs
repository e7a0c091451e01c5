// Our BR Codes parsed by `pix-utils` (fields and CRC), and BR Codes made by `pix-utils` parsed by us.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { parsePix, hasError, createStaticPix, createDynamicPix } from 'pix-utils';
import { runToolJson, runToolLines } from './lib/formats_tool.mjs';

const require = createRequire(import.meta.url);
const { computeCRC } = require('pix-utils/dist/main/crc.js');

test('pix-utils parses every BR Code we build, with the same fields', () => {
  const samples = runToolJson(['brcode-sample']);
  assert.ok(samples.length >= 20);
  for (const sample of samples) {
    const parsed = parsePix(sample.payload);
    assert.equal(hasError(parsed), false, `${sample.payload}: ${parsed.message}`);
    assert.equal(parsed.merchantName, sample.merchantName);
    assert.equal(parsed.merchantCity, sample.merchantCity);
    assert.equal(parsed.merchantCategoryCode, '0000');
    assert.equal(parsed.transactionCurrency, '986');
    assert.equal(parsed.countryCode, 'BR');
    if (sample.url) {
      assert.equal(parsed.type, 'DYNAMIC');
      assert.equal(parsed.url, sample.url);
    } else {
      assert.equal(parsed.type, 'STATIC');
      assert.equal(parsed.pixKey, sample.pixKey);
      assert.equal(parsed.txid, sample.txid);
      assert.equal(parsed.infoAdicional ?? '', sample.additionalInfo);
      assert.equal(parsed.transactionAmount ?? 0, (sample.amountCents ?? 0) / 100);
    }
  }
});

test('pix-utils computes the same CRC and refuses a changed one', () => {
  for (const sample of runToolJson(['brcode-sample'])) {
    const body = sample.payload.slice(0, -4);
    assert.equal(computeCRC(body), sample.payload.slice(-4));
    const wrong = body + (sample.payload.slice(-4) === '0000' ? '0001' : '0000');
    const parsed = parsePix(wrong);
    assert.equal(hasError(parsed), true);
    assert.match(parsed.message, /crc/i);
  }
});

test('we parse BR Codes created by pix-utils, with the same fields', () => {
  const made = [
    createStaticPix({ merchantName: 'Fulano de Tal', merchantCity: 'SAO PAULO', pixKey: '52998224725',
      infoAdicional: 'Pedido 42', transactionAmount: 12.34, txid: 'ABC123' }),
    createStaticPix({ merchantName: 'Empresa', merchantCity: 'RIO', pixKey: 'pix@corridor.example',
      transactionAmount: 0 }),
    createStaticPix({ merchantName: 'Empresa', merchantCity: 'RIO',
      pixKey: '123e4567-e89b-12d3-a456-426655440000', transactionAmount: 1000.5 }),
    createDynamicPix({ merchantName: 'Empresa', merchantCity: 'RIO',
      url: 'pix.corridor.example/qr/93598be0-1bd0-4997-8318-81776a1d8a99' }),
  ];
  for (const item of made) assert.equal(hasError(item), false);
  const payloads = made.map((item) => item.toBRCode());
  const results = runToolLines(['brcode-parse'], payloads);
  assert.equal(results.length, payloads.length);
  for (const [i, result] of results.entries()) {
    assert.equal(result.ok, true, `${payloads[i]}: ${result.code}`);
    const theirs = parsePix(payloads[i]);
    assert.equal(result.fields.merchantName, theirs.merchantName);
    assert.equal(result.fields.merchantCity, theirs.merchantCity);
    if (theirs.type === 'STATIC') {
      assert.equal(result.fields.pixKey, theirs.pixKey);
      assert.equal((result.fields.amountCents ?? 0) / 100, theirs.transactionAmount ?? 0);
      assert.equal(result.fields.txid, theirs.txid);
    } else {
      assert.equal(result.fields.url, theirs.url);
    }
  }
  // And a broken CRC is refused by us as by them.
  const broken = payloads[0].slice(0, -4) + (payloads[0].endsWith('0000') ? '0001' : '0000');
  const [refused] = runToolLines(['brcode-parse'], [broken]);
  assert.equal(refused.ok, false);
  assert.equal(refused.code, 'bad_crc');
});
