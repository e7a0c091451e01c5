// The UMA pay-request callback (/uma/payreq/{customerId}) over HTTP, against sending providers
// played by loopback stubs that publish their keys at /.well-known/lnurlpubkey: the sender's keys are
// fetched and its signature and nonce checked before the ledger writer runs, so a slow sending
// provider holds up no other payment; replays (even racing ones), stale timestamps, forgeries,
// unknown receivers and missing payer data are refused and write nothing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, sign } from 'node:crypto';
import { startCorridor, stopCorridor, call } from './lib/harness.mjs';
import { startReceiver, stopReceiver } from './lib/receiver.mjs';
import { keyPair, startKeyServer } from './lib/uma_sender.mjs';
import { newCustomer, accountsOf, balanceOf } from './lib/money.mjs';

let server;
let sandbox;
let webhooks;
const stubs = [];

before(async () => {
  server = await startCorridor({
    platforms: 1,
    config: { outbound: { allow_private_addresses: true, timeout_ms: 20000 } },
  });
  sandbox = server.platforms[0].sandbox;
  // The platform approves every incoming payment; the invoices stay unpaid, so payments stay PENDING.
  webhooks = await startReceiver(() => ({ status: 200 }));
  const patched = await call(server, sandbox, 'PATCH', '/config', { webhookEndpoint: webhooks.url });
  assert.equal(patched.status, 200, patched.text);
});
after(async () => {
  for (const stub of stubs) {
    stub.release();
    stub.server.closeAllConnections?.();
    stub.server.close();
  }
  if (server) await stopCorridor(server);
  if (webhooks) await stopReceiver(webhooks);
});

// A sending provider on its own port (so its keys are not in the receiver's cache). With
// `holdKeys`, its key document is withheld until release() or, as a bound, after holdMs.
async function startSender({ holdKeys = false, holdMs = 5000 } = {}) {
  const stub = { pair: keyPair(), keyRequests: 0 };
  let release;
  const released = new Promise((resolve) => { release = resolve; });
  stub.release = release;
  let keysAsked;
  stub.keysAsked = new Promise((resolve) => { keysAsked = resolve; });
  Object.assign(stub, await startKeyServer(stub.pair.pubHex, async () => {
    stub.keyRequests += 1;
    keysAsked();
    if (holdKeys) {
      const bound = setTimeout(release, holdMs);
      await released;
      clearTimeout(bound);
    }
  }));
  stubs.push(stub);
  return stub;
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

// A UMA v1 pay request from $alice at the stub's domain, signed over identifier|nonce|timestamp.
function payRequest(stub, overrides = {}) {
  const identifier = overrides.identifier ?? `$alice@${stub.domain}`;
  const nonce = overrides.nonce ?? randomBytes(8).readBigUInt64BE().toString();
  const timestamp = overrides.timestamp ?? nowSeconds();
  const signer = overrides.signer ?? stub.pair.privateKey;
  const signature = sign('sha256', Buffer.from(`${identifier}|${nonce}|${timestamp}`),
    { key: signer, dsaEncoding: 'der' }).toString('hex');
  const payerData = {
    identifier, name: 'Alice Sender',
    compliance: { kycStatus: 'VERIFIED', signature, signatureNonce: nonce, signatureTimestamp: timestamp },
    ...(overrides.payerData ?? {}),
  };
  if (overrides.withoutIdentifier) delete payerData.identifier;
  return JSON.stringify({ amount: `${overrides.amount ?? 250}.USD`, convert: 'USD', payerData });
}

async function post(customerId, body) {
  const response = await fetch(`${server.baseUrl}/uma/payreq/${encodeURIComponent(customerId)}`,
    { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  const text = await response.text();
  let parsed;
  try { parsed = JSON.parse(text); } catch { parsed = undefined; }
  return { status: response.status, body: parsed, text };
}

function assertUmaError(response, status, code) {
  assert.equal(response.status, status, `expected ${status} ${code}, got ${response.status} ${response.text}`);
  assert.equal(response.body?.status, 'ERROR', response.text);
  assert.equal(response.body.code, code, response.text);
  assert.equal(typeof response.body.reason, 'string');
}

async function incomingCount(customerId) {
  const listed = await call(server, sandbox, 'GET', `/transactions?customerId=${customerId}&type=INCOMING`);
  assert.equal(listed.status, 200, listed.text);
  return listed.body.totalCount;
}

test('a pay request is answered with an invoice and leaves a PENDING incoming payment', async () => {
  const stub = await startSender();
  const receiver = await newCustomer(server, sandbox);
  const paid = await post(receiver.id, payRequest(stub));
  assert.equal(paid.status, 200, paid.text);
  assert.match(paid.body.pr, /^lnbcrt/);
  assert.equal(paid.body.converted.amount, 250);
  assert.equal(paid.body.converted.currencyCode, 'USD');
  assert.equal(typeof paid.body.payeeData.compliance.signature, 'string');
  const listed = await call(server, sandbox, 'GET', `/transactions?customerId=${receiver.id}&type=INCOMING`);
  assert.equal(listed.body.data.length, 1);
  assert.equal(listed.body.data[0].status, 'PENDING');
  assert.equal(listed.body.data[0].receivedAmount.amount, 250);
});

test('a slow sending provider holds up no other payment: a fund completes while its keys are awaited', async () => {
  const stub = await startSender({ holdKeys: true });
  const receiver = await newCustomer(server, sandbox);
  const other = await newCustomer(server, sandbox);
  const account = (await accountsOf(server, sandbox, other.id)).USD;
  const finished = [];

  const paying = post(receiver.id, payRequest(stub)).then((response) => { finished.push('pay'); return response; });
  // The pay request is now waiting for the sender's keys.
  await stub.keysAsked;
  const funded = await call(server, sandbox, 'POST', `/sandbox/internal-accounts/${account.id}/fund`, { amount: 4321 });
  finished.push('fund');
  assert.equal(funded.status, 200, funded.text);
  stub.release();
  const paid = await paying;

  assert.deepEqual(finished, ['fund', 'pay'], 'the fund waited for the slow sending provider');
  assert.equal(paid.status, 200, paid.text);
  assert.equal(await balanceOf(server, sandbox, account), 4321);
  assert.equal(await incomingCount(receiver.id), 1);
});

test('two racing copies of one signed pay request make one payment; the other is INVALID_NONCE', async () => {
  const stub = await startSender();
  const receiver = await newCustomer(server, sandbox);
  const body = payRequest(stub);
  const answers = await Promise.all([post(receiver.id, body), post(receiver.id, body), post(receiver.id, body)]);
  const statuses = answers.map((answer) => answer.status).sort();
  assert.deepEqual(statuses, [200, 400, 400], answers.map((answer) => answer.text).join('\n'));
  for (const refused of answers.filter((answer) => answer.status === 400)) assertUmaError(refused, 400, 'INVALID_NONCE');
  assert.equal(await incomingCount(receiver.id), 1);
  // Sent again later, it is still a replay.
  assertUmaError(await post(receiver.id, body), 400, 'INVALID_NONCE');
  assert.equal(await incomingCount(receiver.id), 1);
});

test('a timestamp outside the accepted window is INVALID_NONCE and writes nothing', async () => {
  const stub = await startSender();
  const receiver = await newCustomer(server, sandbox);
  const twoDaysAndAnHour = 2 * 24 * 3600 + 3600;
  assertUmaError(await post(receiver.id, payRequest(stub, { timestamp: nowSeconds() - twoDaysAndAnHour })), 400, 'INVALID_NONCE');
  assertUmaError(await post(receiver.id, payRequest(stub, { timestamp: nowSeconds() + twoDaysAndAnHour })), 400, 'INVALID_NONCE');
  assert.equal(await incomingCount(receiver.id), 0);
});

test('a signature by another key is 401 INVALID_SIGNATURE and writes nothing, not even its nonce', async () => {
  const stub = await startSender();
  const receiver = await newCustomer(server, sandbox);
  const nonce = randomBytes(8).readBigUInt64BE().toString();
  const forged = await post(receiver.id, payRequest(stub, { signer: keyPair().privateKey, nonce }));
  assertUmaError(forged, 401, 'INVALID_SIGNATURE');
  // Signed for another payer than the one named.
  const misnamed = payRequest(stub).replace(`$alice@${stub.domain}`, `$mallory@${stub.domain}`);
  assertUmaError(await post(receiver.id, misnamed), 401, 'INVALID_SIGNATURE');
  assert.equal(await incomingCount(receiver.id), 0);
  // The forgery did not spend the nonce it carried: the sender's genuine request with it is paid.
  const genuine = await post(receiver.id, payRequest(stub, { nonce }));
  assert.equal(genuine.status, 200, genuine.text);
  assert.equal(await incomingCount(receiver.id), 1);
});

test('sender keys that cannot be fetched are 424 COUNTERPARTY_PUBKEY_FETCH_ERROR', async () => {
  const stub = await startSender();
  const receiver = await newCustomer(server, sandbox);
  const unreachable = payRequest(stub, { identifier: '$alice@127.0.0.1:1' });
  assertUmaError(await post(receiver.id, unreachable), 424, 'COUNTERPARTY_PUBKEY_FETCH_ERROR');
  assert.equal(await incomingCount(receiver.id), 0);
});

test('an unknown or deleted receiver is 404 USER_NOT_FOUND and asks the sender nothing', async () => {
  const stub = await startSender();
  assertUmaError(await post('Customer:0190c2a0-0000-7000-8000-000000000000', payRequest(stub)), 404, 'USER_NOT_FOUND');
  assertUmaError(await post('nonsense', payRequest(stub)), 404, 'USER_NOT_FOUND');
  const gone = await newCustomer(server, sandbox);
  const deleted = await call(server, sandbox, 'DELETE', `/customers/${gone.id}`);
  assert.equal(deleted.status, 200, deleted.text);
  assertUmaError(await post(gone.id, payRequest(stub)), 404, 'USER_NOT_FOUND');
  assert.equal(stub.keyRequests, 0);
});

test('missing mandatory payer data is 400 MISSING_MANDATORY_PAYER_DATA and writes nothing', async () => {
  const stub = await startSender();
  const receiver = await newCustomer(server, sandbox);
  assertUmaError(await post(receiver.id, payRequest(stub, { withoutIdentifier: true })), 400, 'MISSING_MANDATORY_PAYER_DATA');
  assertUmaError(await post(receiver.id, payRequest(stub, { identifier: 'alice-without-domain' })), 400, 'MISSING_MANDATORY_PAYER_DATA');
  assert.equal(await incomingCount(receiver.id), 0);
});

test('bad bodies are PARSE_PAYREQ_REQUEST_ERROR; amounts out of range are refused', async () => {
  const stub = await startSender();
  const receiver = await newCustomer(server, sandbox);
  assertUmaError(await post(receiver.id, '{'), 400, 'PARSE_PAYREQ_REQUEST_ERROR');
  assertUmaError(await post(receiver.id, '{"convert":"USD"}'), 400, 'PARSE_PAYREQ_REQUEST_ERROR');
  assertUmaError(await post(receiver.id, payRequest(stub, { amount: 0 })), 400, 'AMOUNT_OUT_OF_RANGE');
  assert.equal(await incomingCount(receiver.id), 0);
});
