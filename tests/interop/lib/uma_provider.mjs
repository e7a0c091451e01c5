// A receiving UMA provider played by the official SDK (@uma-sdk/core), for tests where corridor
// sends: it answers lookups, pay requests and post-transaction callbacks on 127.0.0.1 the way an
// SDK-based provider does, checking every signature corridor makes with the keys corridor
// publishes. It can also misbehave, per lookup (`lookupMode`) and per pay request (`payMode`).
// Its invoices are BOLT #11 on regtest, signed with its own node key.
//
// API tests import it too: modules resolve packages from their own folder, so this one finds the
// SDK in tests/interop/node_modules wherever its importer lives.
import { createServer } from 'node:http';
import { createHash, randomBytes } from 'node:crypto';
import bolt11 from 'bolt11';
import { decrypt } from 'eciesjs';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import {
  Currency, InMemoryNonceValidator, InMemoryPublicKeyCache, KycStatus, PayRequest,
  fetchPublicKeyForVasp, getLnurlpResponse, getPayReqResponse, parseLnurlpRequest,
  parsePostTransactionCallback, verifyPayReqSignature, verifyPostTransactionCallbackSignature,
  verifyUmaLnurlpQuerySignature,
} from '@uma-sdk/core';

const regtest = { bech32: 'bcrt', pubKeyHash: 0x6f, scriptHash: 0xc4, validWitnessVersions: [0, 1] };

// A secp256k1 key pair as the SDK takes it: the secret as bytes (and hex), the public key as UMA
// publishes it (uncompressed SEC1, hex).
export function keyPair() {
  const secret = new Uint8Array(randomBytes(32));
  const pubHex = Buffer.from(secp256k1.getPublicKey(secret, false)).toString('hex');
  return { secret, secretHex: Buffer.from(secret).toString('hex'), pubHex };
}

// The provider's currencies: code -> {name, symbol, multiplier (msats per smallest unit), min, max,
// decimals}. EUR and MXN by default.
export const defaultCurrencies = {
  EUR: { name: 'Euro', symbol: '€', multiplier: 11_400, min: 100, max: 5_000_000, decimals: 2 },
  MXN: { name: 'Mexican Peso', symbol: '$', multiplier: 620, min: 100, max: 50_000_000, decimals: 2 },
};

// Options: currencies, feeMsats (the conversion fee it charges, default 2000), payerData (LUD-18
// options it asks for), travelRule (default true), invoiceExpirySeconds (default 3600),
// payeeValues (what it knows of its users: it answers the payeeData keys asked for that it has,
// and always its user's identifier, as an SDK-based provider does).
export async function startUmaProvider(options = {}) {
  const keys = keyPair();
  const other = keyPair();
  const node = keyPair();
  const provider = {
    keys,
    node,
    currencies: options.currencies ?? defaultCurrencies,
    feeMsats: options.feeMsats ?? 2000,
    payerData: options.payerData ?? { name: { mandatory: true }, email: { mandatory: false } },
    travelRule: options.travelRule ?? true,
    invoiceExpirySeconds: options.invoiceExpirySeconds ?? 3600,
    payeeValues: options.payeeValues ?? { name: 'Bob Receiver', email: 'bob@receiver.example', phoneNumber: '+33612345678' },
    lookupMode: 'ok',   // ok, v0only
    payMode: 'ok',      // ok, garbage, badsig, wrongamount, never, reject, v0msats
    callbackStatus: 200,
    lookups: [],
    payRequests: [],
    callbacks: [],
    invoices: [],
  };
  const nonces = new InMemoryNonceValidator(Date.now() - 60_000);
  const senderKeys = (domain) => fetchPublicKeyForVasp({ cache: new InMemoryPublicKeyCache(), vaspDomain: domain });

  const currencyOptions = (version) => Object.entries(provider.currencies).map(([code, c]) =>
    new Currency(code, c.name, c.symbol, c.multiplier, c.min, c.max, c.decimals, version.startsWith('0.') ? 0 : 1));

  // In the sandbox an invoice ending 002 to 005 is a failure pattern: the provider makes another.
  function invoiceFor(msats, metadata) {
    for (;;) {
      const invoice = signedInvoice(msats, metadata);
      if (!/00[2-5]$/.test(invoice)) return invoice;
    }
  }

  function signedInvoice(msats, metadata) {
    const encoded = bolt11.encode({
      network: regtest,
      timestamp: Math.floor(Date.now() / 1000),
      millisatoshis: String(msats),
      tags: [
        { tagName: 'payment_hash', data: randomBytes(32).toString('hex') },
        { tagName: 'payment_secret', data: randomBytes(32).toString('hex') },
        { tagName: 'purpose_commit_hash', data: createHash('sha256').update(metadata).digest('hex') },
        { tagName: 'expire_time', data: provider.invoiceExpirySeconds },
        { tagName: 'feature_bits', data: { var_onion_optin: { required: true }, payment_secret: { required: true } } },
      ],
    });
    return bolt11.sign(encoded, node.secretHex).paymentRequest;
  }

  async function lnurlp(request, host) {
    const query = parseLnurlpRequest(new URL(request.url, `http://${host}`));
    const verified = await verifyUmaLnurlpQuerySignature(query, await senderKeys(query.vaspDomain), nonces);
    provider.lookups.push({ query, verified });
    if (provider.lookupMode === 'v0only' && query.umaVersion.startsWith('1.')) {
      return [412, { status: 'ERROR', code: 'UNSUPPORTED_UMA_VERSION', supportedMajorVersions: [0], unsupportedVersion: query.umaVersion }];
    }
    if (!verified) return [401, { status: 'ERROR', reason: 'bad signature', code: 'INVALID_SIGNATURE' }];
    const user = query.receiverAddress.split('@')[0];
    const response = await getLnurlpResponse({
      request: query,
      callback: `http://${host}/payreq/${encodeURIComponent(user)}`,
      encodedMetadata: JSON.stringify([['text/plain', `Pay ${user}`], ['text/identifier', query.receiverAddress]]),
      minSendableSats: 1,
      maxSendableSats: 100_000_000,
      privateKeyBytes: keys.secret,
      requiresTravelRuleInfo: provider.travelRule,
      payerDataOptions: provider.payerData,
      currencyOptions: currencyOptions(query.umaVersion),
      receiverKycStatus: KycStatus.Verified,
    });
    return [200, response.toJsonString()];
  }

  async function payreq(request, host, body) {
    const mode = provider.payMode;
    const user = decodeURIComponent(request.url.split('/')[2]);
    const receiverAddress = `${user}@${host}`;
    const parsed = PayRequest.fromJson(body);
    // The payer's domain may carry a port, which the SDK's own address helpers refuse.
    const payerDomain = parsed.payerData.identifier.split('@')[1];
    const verified = await verifyPayReqSignature(parsed, await senderKeys(payerDomain), nonces);
    let travelRule;
    const encrypted = parsed.payerData?.compliance?.encryptedTravelRuleInfo;
    if (encrypted) travelRule = decrypt(keys.secret, Buffer.from(encrypted, 'hex')).toString('utf8');
    const entry = { body: JSON.parse(body), parsed, verified, travelRule, receiverAddress };
    provider.payRequests.push(entry);
    if (mode === 'never') return null;
    if (mode === 'garbage') return [200, '<html>no pay response here</html>'];
    if (mode === 'reject') return [400, { status: 'ERROR', reason: 'sender not accepted', code: 'SENDER_NOT_ACCEPTED' }];
    if (!verified) return [401, { status: 'ERROR', reason: 'bad signature', code: 'INVALID_SIGNATURE' }];
    // UMA 0.3 amounts are in the receiving currency (so the SDK's own v0 sender writes them, and
    // the Python SDK reads them), but JS 1.5.0 reads a v0 amount as millisatoshis: the provider
    // reads it as the protocol means, unless told to behave like the SDK (v0msats).
    let asked = parsed;
    if (parsed.umaMajorVersion === 0 && mode !== 'v0msats') {
      asked = new PayRequest(parsed.amount, parsed.receivingCurrencyCode, parsed.receivingCurrencyCode, 0,
        parsed.payerData, parsed.requestedPayeeData, parsed.comment);
    }
    const code = parsed.receivingCurrencyCode;
    const currency = provider.currencies[code];
    if (!currency) return [400, { status: 'ERROR', reason: `no ${code}`, code: 'INVALID_CURRENCY' }];
    const payeeData = { identifier: receiverAddress };
    for (const key of Object.keys(parsed.requestedPayeeData ?? {})) {
      if (key in provider.payeeValues) payeeData[key] = provider.payeeValues[key];
    }
    const response = await getPayReqResponse({
      request: asked,
      metadata: JSON.stringify([['text/plain', `Pay ${user}`], ['text/identifier', receiverAddress]]),
      invoiceCreator: {
        createUmaInvoice: async (msats, metadata) => {
          const invoice = invoiceFor(mode === 'wrongamount' ? msats + 5000 : msats, metadata);
          entry.invoice = invoice;
          entry.invoiceMsats = mode === 'wrongamount' ? msats + 5000 : msats;
          provider.invoices.push(invoice);
          return invoice;
        },
      },
      conversionRate: currency.multiplier,
      receivingCurrencyCode: code,
      receivingCurrencyDecimals: currency.decimals,
      receiverChannelUtxos: [],
      receiverFeesMillisats: provider.feeMsats,
      receivingVaspPrivateKey: mode === 'badsig' ? other.secret : keys.secret,
      payeeIdentifier: receiverAddress,
      utxoCallback: `http://${host}/utxo/${encodeURIComponent(user)}`,
      payeeData,
    });
    entry.response = JSON.parse(response.toJsonString());
    return [200, response.toJsonString()];
  }

  async function utxoCallback(request, body) {
    const callback = parsePostTransactionCallback(body);
    const verified = await verifyPostTransactionCallbackSignature(callback, await senderKeys(callback.vaspDomain), nonces);
    provider.callbacks.push({ url: request.url, body: JSON.parse(body), callback, verified });
    // callbackStatus: a status, or a function of how many callbacks arrived (this one included).
    const status = typeof provider.callbackStatus === 'function'
      ? provider.callbackStatus(provider.callbacks.length) : provider.callbackStatus;
    return [status, { ok: status < 300 }];
  }

  provider.server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => { body += chunk; });
    request.on('end', async () => {
      const send = (status, payload) => {
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end(typeof payload === 'string' ? payload : JSON.stringify(payload));
      };
      try {
        const host = request.headers.host;
        let answer;
        if (request.url === '/.well-known/lnurlpubkey') {
          answer = [200, { signingPubKey: keys.pubHex, encryptionPubKey: keys.pubHex }];
        } else if (request.url.startsWith('/.well-known/lnurlp/')) {
          answer = await lnurlp(request, host);
        } else if (request.method === 'POST' && request.url.startsWith('/payreq/')) {
          answer = await payreq(request, host, body);
          if (answer === null) return;  // the connection stays open, unanswered
        } else if (request.method === 'POST' && request.url.startsWith('/utxo/')) {
          answer = await utxoCallback(request, body);
        } else {
          answer = [404, { status: 'ERROR', reason: 'no such path', code: 'USER_NOT_FOUND' }];
        }
        send(...answer);
      } catch (error) {
        send(500, { status: 'ERROR', reason: String(error) });
      }
    });
  });
  await new Promise((resolve) => provider.server.listen(0, '127.0.0.1', resolve));
  provider.domain = `127.0.0.1:${provider.server.address().port}`;
  provider.address = (user) => `$${user}@${provider.domain}`;
  provider.reset = () => {
    provider.lookupMode = 'ok';
    provider.payMode = 'ok';
    provider.callbackStatus = 200;
    provider.lookups = [];
    provider.payRequests = [];
    provider.callbacks = [];
  };
  return provider;
}

export async function stopUmaProvider(provider) {
  provider.server.closeAllConnections();
  await new Promise((resolve) => provider.server.close(resolve));
}

// Decodes an invoice this provider made (network regtest): {millisatoshis, paymentHash, expiry}.
export function decodeInvoice(invoice) {
  const decoded = bolt11.decode(invoice, regtest);
  const tag = (name) => decoded.tags.find((t) => t.tagName === name)?.data;
  return {
    millisatoshis: Number(decoded.millisatoshis),
    paymentHash: tag('payment_hash'),
    expiresAt: decoded.timestamp + (tag('expire_time') ?? 3600),
    payee: decoded.payeeNodeKey,
  };
}
