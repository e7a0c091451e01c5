// Our BOLT #11 invoices checked by the `bolt11` npm package (decode, payee, signature) and by an
// independent ECDSA verification with @noble/curves; and invoices signed by `bolt11` decoded by us.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import bolt11 from 'bolt11';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { runToolJson, runToolLines } from './lib/formats_tool.mjs';

const networks = {
  mainnet: undefined,
  testnet: { bech32: 'tb', pubKeyHash: 0x6f, scriptHash: 0xc4, validWitnessVersions: [0, 1] },
  signet: { bech32: 'tbs', pubKeyHash: 0x6f, scriptHash: 0xc4, validWitnessVersions: [0, 1] },
  regtest: { bech32: 'bcrt', pubKeyHash: 0x6f, scriptHash: 0xc4, validWitnessVersions: [0, 1] },
};
const testKey = 'e126f68f7eafcc8b74f54d269fe206be715000f94dac067d1c04a8ca3b2db734';
const testPayee = '03e7156ae33b0a208d0744199163177e909e80176e55d97a2f221ede0f934dd9ad';

function tag(decoded, name) {
  const found = decoded.tags.filter((t) => t.tagName === name);
  assert.ok(found.length <= 1, `${name} appears more than once`);
  return found.length ? found[0].data : undefined;
}

// The signed message of BOLT #11: hrp bytes || data words without the signature, 5->8 bits with
// zero padding at the end.
// (bolt11 has already checked the bech32 checksum; this only maps characters to 5-bit words.)
function signingHash(invoice) {
  const charset = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
  const lower = invoice.toLowerCase();
  const separator = lower.lastIndexOf('1');
  const prefix = lower.slice(0, separator);
  const words = [...lower.slice(separator + 1, -6)].map((c) => charset.indexOf(c));
  const data = words.slice(0, words.length - 104);
  const bytes = [];
  let accumulator = 0;
  let bits = 0;
  for (const word of data) {
    accumulator = (accumulator << 5) | word;
    bits += 5;
    while (bits >= 8) {
      bits -= 8;
      bytes.push((accumulator >> bits) & 0xff);
    }
    accumulator &= (1 << bits) - 1;
  }
  if (bits > 0) bytes.push((accumulator << (8 - bits)) & 0xff);
  return createHash('sha256').update(Buffer.concat([Buffer.from(prefix, 'utf8'), Buffer.from(bytes)])).digest();
}

test('bolt11 decodes every invoice we sign, with the same fields and payee', () => {
  const samples = runToolJson(['bolt11-sample']);
  assert.ok(samples.length >= 20);
  for (const sample of samples) {
    const decoded = bolt11.decode(sample.invoice, networks[sample.network]);
    assert.equal(decoded.complete, true);
    assert.equal(decoded.payeeNodeKey, testPayee, sample.invoice);
    assert.equal(decoded.timestamp, sample.timestamp);
    if (sample.amountMsat === undefined) {
      assert.equal(decoded.millisatoshis, null);
    } else {
      assert.equal(decoded.millisatoshis, sample.amountMsat);
    }
    assert.equal(tag(decoded, 'payment_hash'), sample.paymentHash);
    assert.equal(tag(decoded, 'payment_secret'), sample.paymentSecret);
    assert.equal(tag(decoded, 'description'), sample.description);
    assert.equal(tag(decoded, 'purpose_commit_hash'), sample.descriptionHash);
    assert.equal(tag(decoded, 'expire_time') ?? 3600, sample.expirySeconds);
    assert.equal(tag(decoded, 'min_final_cltv_expiry') ?? 18, sample.minFinalCltvExpiryDelta);
    assert.equal(tag(decoded, 'payee_node_key'), sample.explicitPayee ? testPayee : undefined);
    const features = tag(decoded, 'feature_bits');
    assert.equal(features.var_onion_optin.required, true);
    assert.equal(features.payment_secret.required, true);
    const routes = tag(decoded, 'routing_info');
    assert.equal((routes ?? []).length, sample.routes.flat().length);
    for (const [i, hop] of (routes ?? []).entries()) {
      const expected = sample.routes.flat()[i];
      assert.equal(hop.pubkey, expected.pubkey);
      assert.equal(BigInt('0x' + hop.short_channel_id).toString(), expected.shortChannelId);
      assert.equal(hop.fee_base_msat, expected.feeBaseMsat);
      assert.equal(hop.fee_proportional_millionths, expected.feeProportionalMillionths);
      assert.equal(hop.cltv_expiry_delta, expected.cltvExpiryDelta);
    }
  }
});

test('our signatures verify as low-S ECDSA over the BOLT #11 message (@noble/curves)', () => {
  for (const sample of runToolJson(['bolt11-sample'])) {
    const decoded = bolt11.decode(sample.invoice, networks[sample.network]);
    const signature = Buffer.from(decoded.signature, 'hex');
    const hash = signingHash(sample.invoice);
    const ok = secp256k1.verify(signature, hash, Buffer.from(testPayee, 'hex'), {
      prehash: false,
      lowS: true,
      format: 'compact',
    });
    assert.equal(ok, true, sample.invoice);
    // A different message must not verify.
    hash[0] ^= 1;
    assert.equal(
      secp256k1.verify(signature, hash, Buffer.from(testPayee, 'hex'), { prehash: false, format: 'compact' }),
      false,
    );
  }
});

test('bolt11 refuses our invoice once a character changes (checksum)', () => {
  const [sample] = runToolJson(['bolt11-sample']);
  const at = 30;
  const changed = sample.invoice.slice(0, at) + (sample.invoice[at] === 'q' ? 'p' : 'q') + sample.invoice.slice(at + 1);
  assert.throws(() => bolt11.decode(changed));
});

test('we decode invoices signed by bolt11, with the same fields and payee', () => {
  const cases = [];
  for (const [i, network] of ['mainnet', 'testnet', 'regtest'].entries()) {
    for (const millisatoshis of [null, '1000', '250000000', '967878534']) {
      const tags = [
        { tagName: 'payment_hash', data: createHash('sha256').update(`preimage ${i} ${millisatoshis}`).digest('hex') },
        { tagName: 'payment_secret', data: '11'.repeat(32) },
        { tagName: 'description', data: `bolt11 npm invoice ${i} ${millisatoshis}` },
        { tagName: 'expire_time', data: 600 + i },
        { tagName: 'min_final_cltv_expiry', data: 40 },
        { tagName: 'feature_bits', data: { var_onion_optin: { required: true }, payment_secret: { required: true } } },
      ];
      const encoded = bolt11.encode({
        network: networks[network],
        timestamp: 1773151200 + i,
        ...(millisatoshis === null ? {} : { millisatoshis }),
        tags,
      });
      const signed = bolt11.sign(encoded, testKey);
      cases.push({ network, millisatoshis, invoice: signed.paymentRequest, tags });
    }
  }
  const results = runToolLines(['bolt11-decode'], cases.map((c) => c.invoice));
  assert.equal(results.length, cases.length);
  for (const [i, result] of results.entries()) {
    const expected = cases[i];
    assert.equal(result.ok, true, `${expected.invoice}: ${result.message}`);
    assert.equal(result.payee, testPayee);
    assert.equal(result.fields.network, expected.network);
    assert.equal(result.fields.amountMsat ?? null, expected.millisatoshis);
    assert.equal(result.fields.paymentHash, expected.tags[0].data);
    assert.equal(result.fields.description, expected.tags[2].data);
    assert.equal(result.fields.expirySeconds, expected.tags[3].data);
    assert.equal(result.fields.minFinalCltvExpiryDelta, 40);
    assert.deepEqual(result.fields.featureBits, [8, 14]);
  }
});

test('we refuse what bolt11 signs without a payment secret or with a stray feature bit', () => {
  const base = {
    timestamp: 1773151200,
    millisatoshis: '1000',
    tags: [
      { tagName: 'payment_hash', data: '00'.repeat(32) },
      { tagName: 'description', data: 'no secret' },
    ],
  };
  const noSecret = bolt11.sign(bolt11.encode(base), testKey).paymentRequest;
  const unknownEven = bolt11.sign(
    bolt11.encode({
      ...base,
      tags: [
        ...base.tags,
        { tagName: 'payment_secret', data: '11'.repeat(32) },
        { tagName: 'feature_bits', data: { word_length: 21, var_onion_optin: { required: true },
          payment_secret: { required: true }, extra_bits: { start_bit: 100, bits: [true], has_required: true } } },
      ],
    }),
    testKey,
  ).paymentRequest;
  const [first, second] = runToolLines(['bolt11-decode'], [noSecret, unknownEven]);
  assert.equal(first.ok, false);
  assert.equal(first.code, 'missing_payment_secret');
  assert.equal(second.ok, false);
  assert.equal(second.code, 'unknown_required_feature');
});
