// Helpers shared by the money suites: customers and their internal accounts, sandbox funding, and an
// independent implementation of the pricing formula (the one written in the header of the pricing
// code) in exact BigInt arithmetic, read from the same conf/rates.json the server loads.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import assert from 'node:assert/strict';
import { call } from './harness.mjs';

// ---------------------------------------------------------------------------------------------
// Customers and accounts

let customerSerial = 0;

export async function newCustomer(server, credentials, platformCustomerId) {
  const id = platformCustomerId ?? `cust-${process.pid}-${++customerSerial}-${randomUUID().slice(0, 8)}`;
  const response = await call(server, credentials, 'POST', '/customers', {
    customerType: 'INDIVIDUAL', platformCustomerId: id, fullName: `Customer ${id}`,
  });
  assert.equal(response.status, 201, response.text);
  return response.body;
}

// The customer's internal accounts keyed by currency code.
export async function accountsOf(server, credentials, customerId) {
  const response = await call(server, credentials, 'GET', `/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}&limit=100`);
  assert.equal(response.status, 200, response.text);
  const byCurrency = {};
  for (const account of response.body.data) {
    const code = account.balance.currency.code;
    assert.equal(byCurrency[code], undefined, `two ${code} accounts for ${customerId}`);
    byCurrency[code] = account;
  }
  return byCurrency;
}

export async function platformAccounts(server, credentials) {
  const response = await call(server, credentials, 'GET', '/platform/internal-accounts');
  assert.equal(response.status, 200, response.text);
  const byCurrency = {};
  for (const account of response.body.data) byCurrency[account.balance.currency.code] = account;
  return byCurrency;
}

// Current balance of one internal account (customer or platform).
export async function balanceOf(server, credentials, account) {
  const accounts = account.customerId
    ? await accountsOf(server, credentials, account.customerId)
    : await platformAccounts(server, credentials);
  const found = Object.values(accounts).find((item) => item.id === account.id);
  assert.ok(found, `account ${account.id} not listed`);
  return found.balance.amount;
}

export async function fund(server, credentials, accountId, amount) {
  const response = await call(server, credentials, 'POST', `/sandbox/internal-accounts/${accountId}/fund`, { amount });
  assert.equal(response.status, 200, response.text);
  return response.body;
}

// A customer with a funded account in `from` and its own account in `to`, plus a second customer to
// receive; returns { sender, receiver, source, destination }.
export async function payer(server, credentials, from, to, amount) {
  const sender = await newCustomer(server, credentials);
  const receiver = await newCustomer(server, credentials);
  const source = (await accountsOf(server, credentials, sender.id))[from];
  const destination = (await accountsOf(server, credentials, receiver.id))[to];
  if (amount) await fund(server, credentials, source.id, amount);
  return { sender, receiver, source, destination };
}

export function quoteBody(sourceAccountId, destinationAccountId, amount, side = 'SENDING', extra = {}) {
  return {
    source: { sourceType: 'ACCOUNT', accountId: sourceAccountId },
    destination: { destinationType: 'ACCOUNT', accountId: destinationAccountId },
    lockedCurrencySide: side,
    lockedCurrencyAmount: amount,
    ...extra,
  };
}

export async function createQuote(server, credentials, body, headers) {
  const response = await call(server, credentials, 'POST', '/quotes', body, headers);
  assert.equal(response.status, 201, response.text);
  return response.body;
}

export function idempotencyKey() {
  return randomUUID();
}

export function assertError(response, status, code) {
  assert.equal(response.status, status, `expected ${status} ${code}, got ${response.status} ${response.text}`);
  assert.equal(response.body?.code, code, response.text);
  assert.equal(response.body.status, status);
  assert.equal(typeof response.body.message, 'string');
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Polls `probe` until it returns a truthy value or the time is up.
export async function eventually(probe, { timeoutMs = 10000, intervalMs = 50 } = {}) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await sleep(intervalMs);
  }
}

// ---------------------------------------------------------------------------------------------
// Exact rationals over BigInt

function gcd(a, b) {
  while (b !== 0n) [a, b] = [b, a % b];
  return a < 0n ? -a : a;
}

export function ratio(n, d = 1n) {
  n = BigInt(n);
  d = BigInt(d);
  if (d === 0n) throw new Error('zero denominator');
  if (d < 0n) { n = -n; d = -d; }
  const g = gcd(n, d) || 1n;
  return { n: n / g, d: d / g };
}

export const mul = (a, b) => ratio(a.n * b.n, a.d * b.d);
export const div = (a, b) => ratio(a.n * b.d, a.d * b.n);

function floorDiv(n, d) {
  const q = n / d;
  return (n % d !== 0n && (n < 0n) !== (d < 0n)) ? q - 1n : q;
}
export const floor = (r) => floorDiv(r.n, r.d);
export const ceil = (r) => -floorDiv(-r.n, r.d);

export function parseDecimal(text) {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match) throw new Error(`not a decimal: ${text}`);
  const fraction = match[2] ?? '';
  return ratio(BigInt(match[1] + fraction), 10n ** BigInt(fraction.length));
}

export function pow10(exponent) {
  return exponent >= 0 ? ratio(10n ** BigInt(exponent)) : ratio(1n, 10n ** BigInt(-exponent));
}

// The double nearest to the rational: a 40-digit decimal expansion, rounded by the JS parser.
export function toDouble(r) {
  if (r.n === 0n) return 0;
  let k = 0n;
  while ((r.n * 10n ** k) / r.d < 10n ** 40n) k += 1n;
  return Number(`${(r.n * 10n ** k) / r.d}e-${k}`);
}

// ---------------------------------------------------------------------------------------------
// The pricing formula

function confDir() {
  const dir = process.env.CORRIDOR_CONF_DIR;
  if (!dir) throw new Error('CORRIDOR_CONF_DIR is not set; run the API tests through ctest');
  return dir;
}

let loaded;
function tables() {
  if (!loaded) {
    const rates = JSON.parse(readFileSync(join(confDir(), 'rates.json'), 'utf8'));
    const currencies = JSON.parse(readFileSync(join(confDir(), 'currencies.json'), 'utf8')).currencies;
    loaded = { rates, decimals: Object.fromEntries(currencies.map((c) => [c.code, c.decimals])) };
  }
  return loaded;
}

export function corridorTerms(from, to) {
  const { rates } = tables();
  const pricing = rates.pricing ?? {};
  const override = rates.corridors?.[`${from}:${to}`] ?? {};
  const mid = div(parseDecimal(rates.rates[to]), parseDecimal(rates.rates[from]));
  return {
    mid,
    spreadBps: BigInt(override.spread_bps ?? pricing.spread_bps ?? 0),
    variableBps: BigInt(override.variable_fee_bps ?? pricing.variable_fee_bps ?? 0),
    serviceFixedFee: BigInt(override.fixed_fee ?? pricing.fixed_fee?.[from] ?? 0),
    counterpartyFixedFee: BigInt(pricing.counterparty_fixed_fee ?? 0),
    rail: rates.payment_rails?.[to] ?? 'INTERNAL',
  };
}

// Expected quote figures for `amount` locked on `side`, or { tooSmall: true } when no whole unit
// would convert. Amounts are returned as Numbers (all far below 2^53 in these tests).
export function expectedPrice(from, to, side, amount) {
  const { decimals } = tables();
  const terms = corridorTerms(from, to);
  const multiplier = ratio(10000n - terms.spreadBps, 10000n);
  const variable = ratio(terms.variableBps, 10000n);
  const minorRate = mul(mul(terms.mid, multiplier), pow10(decimals[to] - decimals[from]));
  const fixed = terms.serviceFixedFee + terms.counterpartyFixedFee;
  const gross = (n) => n + fixed + ceil(mul(ratio(n), variable));
  let net;
  let total;
  let received;
  const locked = BigInt(amount);
  if (side === 'SENDING') {
    if (locked <= fixed) return { tooSmall: true };
    total = locked;
    net = floorDiv((locked - fixed) * 10000n, 10000n + terms.variableBps);
    while (net > 0n && gross(net) > locked) net -= 1n;
    while (gross(net + 1n) <= locked) net += 1n;
    received = floor(mul(ratio(net), minorRate));
  } else {
    received = locked;
    net = ceil(div(ratio(locked), minorRate));
    total = gross(net);
  }
  if (net <= 0n || received <= 0n) return { tooSmall: true };
  const fees = total - net;
  return {
    totalSendingAmount: Number(total),
    netSendingAmount: Number(net),
    feesIncluded: Number(fees),
    totalReceivingAmount: Number(received),
    exchangeRate: toDouble(div(ratio(1n), mul(terms.mid, multiplier))),
    rateDetails: {
      counterpartyMultiplier: toDouble(terms.mid),
      counterpartyFixedFee: Number(terms.counterpartyFixedFee),
      serviceApiMultiplier: toDouble(multiplier),
      serviceApiFixedFee: Number(terms.serviceFixedFee),
      serviceApiVariableFeeRate: toDouble(variable),
      serviceApiVariableFeeAmount: Number(fees - terms.serviceFixedFee - terms.counterpartyFixedFee),
    },
    fixedFee: Number(fixed),
    rail: terms.rail,
  };
}
