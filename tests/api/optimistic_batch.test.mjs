// Payments created and executed at once (immediatelyExecute), many at the same moment, so that the
// ledger writer runs them in shared batches. On PostgreSQL a batch's first attempt is optimistic:
// its guarded debits are not waited for and its customers' states ride on the debits as
// conditions; any refusal runs the batch again command by command. Over HTTP, a refused payment
// must get exactly its usual answer while the others of its batch go through, on both backends.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCorridor, stopCorridor, call, metricsText } from './lib/harness.mjs';
import { payer, fund, balanceOf, quoteBody, assertError, accountsOf, newCustomer } from './lib/money.mjs';

const postgres = Boolean(process.env.CORRIDOR_TEST_POSTGRES_URL_FILE);
let server;
let sandbox;

before(async () => {
  server = await startCorridor({ platforms: 1 });
  sandbox = server.platforms[0].sandbox;
});
after(async () => { if (server) await stopCorridor(server); });

const payNow = (source, destination, amount) =>
  call(server, sandbox, 'POST', '/quotes', quoteBody(source.id, destination.id, amount, 'SENDING', { immediatelyExecute: true }));

async function optimisticRefusals() {
  const match = (await metricsText(server)).match(/^corridor_ledger_optimistic_refusals_total (\d+)/m);
  assert.ok(match, 'corridor_ledger_optimistic_refusals_total is exported');
  return Number(match[1]);
}

async function quoteCount(accountId) {
  const found = await call(server, sandbox, 'GET', `/quotes?sendingAccountId=${encodeURIComponent(accountId)}&limit=1`);
  assert.equal(found.status, 200, found.text);
  return found.body.totalCount;
}

test('40 payments at once on a balance covering 10: 10 go through, 30 are refused for the balance', async () => {
  const { source, destination } = await payer(server, sandbox, 'USD', 'EUR');
  // Others pay at the same moment from funded accounts: they share the batches and all go through.
  const others = await Promise.all(Array.from({ length: 4 }, () => payer(server, sandbox, 'USD', 'EUR', 1_000_000)));
  const probe = await payNow(others[0].source, others[0].destination, 1000);
  assert.equal(probe.status, 201, probe.text);
  const cost = probe.body.totalSendingAmount;
  const delivered = probe.body.totalReceivingAmount;
  await fund(server, sandbox, source.id, 10 * cost);
  const refusalsBefore = await optimisticRefusals();

  const mine = Array.from({ length: 40 }, () => payNow(source, destination, 1000));
  const theirs = others.flatMap((o) => Array.from({ length: 5 }, () => payNow(o.source, o.destination, 1000)));
  const [answers, otherAnswers] = await Promise.all([Promise.all(mine), Promise.all(theirs)]);

  const paid = answers.filter((r) => r.status === 201);
  assert.equal(paid.length, 10, answers.map((r) => r.status).join(','));
  for (const response of paid) assert.equal(response.body.status, 'COMPLETED');
  for (const response of answers.filter((r) => r.status !== 201)) assertError(response, 400, 'INSUFFICIENT_BALANCE');
  for (const response of otherAnswers) assert.equal(response.status, 201, response.text);
  assert.equal(await balanceOf(server, sandbox, source), 0);
  assert.equal(await balanceOf(server, sandbox, destination), 10 * delivered);
  // A refused payment leaves no quote and no transaction behind.
  assert.equal(await quoteCount(source.id), 10);
  const outgoing = await call(server, sandbox, 'GET', `/transactions?type=OUTGOING&senderAccountIdentifier=${source.id}&limit=100`);
  assert.equal(outgoing.body.totalCount, 10);
  for (const [i, o] of others.entries()) {
    assert.equal(await balanceOf(server, sandbox, o.source), 1_000_000 - (i === 0 ? 6 : 5) * cost);
  }
  // On PostgreSQL each refusal was met by an optimistic attempt first; SQLite has none.
  const refusals = (await optimisticRefusals()) - refusalsBefore;
  if (postgres) assert.ok(refusals >= 1 && refusals <= 30, `${refusals} optimistic refusals`);
  else assert.equal(refusals, 0);
});

test('a customer deleted after paying is refused as sender and as receiver, others go on', async () => {
  const alice = await newCustomer(server, sandbox);
  const bob = await newCustomer(server, sandbox);
  const a = await accountsOf(server, sandbox, alice.id);
  const b = await accountsOf(server, sandbox, bob.id);
  await fund(server, sandbox, a.USD.id, 1_000_000);
  await fund(server, sandbox, b.USD.id, 1_000_000);
  // Both have paid and been paid: the writer knows them.
  for (const response of await Promise.all([payNow(a.USD, b.EUR, 1000), payNow(b.USD, a.EUR, 1000)])) {
    assert.equal(response.status, 201, response.text);
  }
  // Payments that go through never make a batch run twice.
  const steady = await optimisticRefusals();
  for (const response of await Promise.all(Array.from({ length: 6 }, (_, i) => (i % 2 ? payNow(a.USD, b.EUR, 1000) : payNow(b.USD, a.EUR, 1000))))) {
    assert.equal(response.status, 201, response.text);
  }
  assert.equal(await optimisticRefusals(), steady);
  const deleted = await call(server, sandbox, 'DELETE', `/customers/${bob.id}`);
  assert.equal(deleted.status, 200, deleted.text);
  const aliceBefore = await balanceOf(server, sandbox, a.USD);
  const [toBob, fromBob, toSelf] = await Promise.all([
    payNow(a.USD, b.EUR, 1000), payNow(b.USD, a.EUR, 1000), payNow(a.USD, a.EUR, 1000)]);
  assertError(toBob, 410, 'CUSTOMER_DELETED');
  assert.match(toBob.body.message, /destination/);
  assertError(fromBob, 410, 'CUSTOMER_DELETED');
  assert.match(fromBob.body.message, /source/);
  assert.equal(toSelf.status, 201, toSelf.text);
  assert.equal(await balanceOf(server, sandbox, a.USD), aliceBefore - toSelf.body.totalSendingAmount);

  // The deleted customer's state is checked before the amount, as always: an amount too small for
  // the fees is still refused as a deleted customer's payment.
  const [tooSmall, beside] = await Promise.all([payNow(b.USD, a.EUR, 1), payNow(a.USD, a.EUR, 1000)]);
  assertError(tooSmall, 410, 'CUSTOMER_DELETED');
  assert.equal(beside.status, 201, beside.text);
  assertError(await payNow(a.USD, a.EUR, 1), 400, 'AMOUNT_OUT_OF_RANGE');
});
