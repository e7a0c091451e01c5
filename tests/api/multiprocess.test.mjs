// Two corridor processes on one database (SQLite file or PostgreSQL) race for one balance: the
// guard lives in the database, so exactly as many executes succeed as the balance covers, whichever
// process serves them. A token deleted through one process stops working in the other within the
// cache TTL.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCorridor, stopCorridor, launch, call, anotherProcess } from './lib/harness.mjs';

let first;
let second;
before(async () => {
  first = await startCorridor({ platforms: 1, config: { cache: { ttl_ms: 300 } } });
  second = anotherProcess(first);
  await launch(second);
});
after(async () => {
  if (second) await stopCorridor(second, { keepFiles: true });
  if (first) await stopCorridor(first);
});

async function accountsOf(server, credentials, customerId) {
  const list = await call(server, credentials, 'GET', `/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}`);
  assert.equal(list.status, 200);
  return Object.fromEntries(list.body.data.map((a) => [a.balance.currency.code, a]));
}

test('executes split across two processes never overdraw the source', async () => {
  const credentials = first.platforms[0].sandbox;
  const customer = await call(first, credentials, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Racer' });
  assert.equal(customer.status, 201);
  const accounts = await accountsOf(first, credentials, customer.body.id);
  const quotes = [];
  for (let i = 0; i < 30; i++) {
    const server = i % 2 ? second : first;
    const quote = await call(server, credentials, 'POST', '/quotes', {
      source: { sourceType: 'ACCOUNT', accountId: accounts.USD.id },
      destination: { destinationType: 'ACCOUNT', accountId: accounts.EUR.id },
      lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 1000,
    });
    assert.equal(quote.status, 201, quote.text);
    quotes.push(quote.body);
  }
  const covered = 7;
  const funded = await call(second, credentials, 'POST', `/sandbox/internal-accounts/${encodeURIComponent(accounts.USD.id)}/fund`,
    { amount: covered * 1000 });
  assert.equal(funded.status, 200);

  const results = await Promise.all(quotes.map((quote, i) =>
    call(i % 2 ? first : second, credentials, 'POST', `/quotes/${encodeURIComponent(quote.id)}/execute`)));
  const succeeded = results.filter((r) => r.status === 200);
  const refused = results.filter((r) => r.status === 400 && r.body.code === 'INSUFFICIENT_BALANCE');
  assert.equal(succeeded.length, covered, results.map((r) => r.status).join(','));
  const other = results.filter((r) => r.status !== 200 && !(r.status === 400 && r.body.code === 'INSUFFICIENT_BALANCE'));
  assert.deepEqual(other.map((r) => r.text), [], first.stderr + second.stderr);
  assert.equal(refused.length, quotes.length - covered);

  const after = await accountsOf(second, credentials, customer.body.id);
  assert.equal(after.USD.balance.amount, 0);
  const received = succeeded.reduce((sum, r) => sum + r.body.totalReceivingAmount, 0);
  assert.equal(after.EUR.balance.amount, received);
});

test('a token deleted in one process stops working in the other within the cache TTL', async () => {
  const manager = first.platforms[0].sandbox;
  const created = await call(first, manager, 'POST', '/tokens', { name: 'short-lived', permissions: ['VIEW'] });
  assert.equal(created.status, 201);
  const token = { clientId: created.body.clientId, clientSecret: created.body.clientSecret };
  // Warm the second process's cache with the token.
  assert.equal((await call(second, token, 'GET', '/config')).status, 200);
  assert.equal((await call(first, manager, 'DELETE', `/tokens/${encodeURIComponent(created.body.id)}`)).status, 204);
  assert.equal((await call(first, token, 'GET', '/config')).status, 401, 'the deleting process refuses at once');
  await new Promise((ok) => setTimeout(ok, 400));  // cache.ttl_ms is 300 in this suite
  assert.equal((await call(second, token, 'GET', '/config')).status, 401, 'the other process refuses after the TTL');
});

test('opposite payments through both processes at once all complete (deadlocks are retried)', async () => {
  // Each payment locks the shared liquidity accounts of both currencies, in opposite orders for
  // the two directions: on PostgreSQL two writers can deadlock, and the loser is run again.
  const credentials = first.platforms[0].sandbox;
  const alice = await call(first, credentials, 'POST', '/customers', { customerType: 'INDIVIDUAL' });
  const bob = await call(second, credentials, 'POST', '/customers', { customerType: 'INDIVIDUAL' });
  const a = await accountsOf(first, credentials, alice.body.id);
  const b = await accountsOf(second, credentials, bob.body.id);
  for (const account of [a.USD, b.EUR]) {
    const funded = await call(first, credentials, 'POST', `/sandbox/internal-accounts/${encodeURIComponent(account.id)}/fund`, { amount: 10000000 });
    assert.equal(funded.status, 200);
  }
  const pay = (server, from, to) => call(server, credentials, 'POST', '/quotes', {
    source: { sourceType: 'ACCOUNT', accountId: from.id },
    destination: { destinationType: 'ACCOUNT', accountId: to.id },
    lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 1000, immediatelyExecute: true,
  });
  const requests = [];
  const rounds = 60;
  for (let i = 0; i < rounds; i++) {
    requests.push(pay(i % 2 ? first : second, a.USD, b.EUR));
    requests.push(pay(i % 2 ? second : first, b.EUR, a.USD));
  }
  const results = await Promise.all(requests);
  const failed = results.filter((r) => r.status !== 201);
  // On failure: the answers, then what the processes said beyond their request log.
  const said = (first.stderr + second.stderr).split('\n').filter((line) => !line.includes('"level":"info"'));
  assert.deepEqual(failed.map((r) => `${r.status} ${r.text}`), [], said.join('\n'));
  const afterA = await accountsOf(first, credentials, alice.body.id);
  const afterB = await accountsOf(second, credentials, bob.body.id);
  const moved = (from, to) => results
    .filter((r) => r.body.source.accountId === from.id && r.body.destination.accountId === to.id)
    .reduce((sum, r) => ({ out: sum.out + r.body.totalSendingAmount, in: sum.in + r.body.totalReceivingAmount }), { out: 0, in: 0 });
  const aToB = moved(a.USD, b.EUR);
  const bToA = moved(b.EUR, a.USD);
  assert.equal(aToB.out, rounds * 1000);
  assert.equal(bToA.out, rounds * 1000);
  assert.equal(afterA.USD.balance.amount, 10000000 - aToB.out + bToA.in);
  assert.equal(afterB.EUR.balance.amount, 10000000 - bToA.out + aToB.in);
});
