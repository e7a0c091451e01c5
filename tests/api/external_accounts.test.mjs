// External accounts: every account type accepted with valid details and refused with invalid ones
// (the field named), customers' and platform accounts, duplicates, the single default UMA deposit
// account, another tenant's ids, lists with filters and pages, the asynchronous PENDING -> ACTIVE
// screening with its ACCOUNT_STATUS event, and the receiver lookup.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCorridor, stopCorridor, call, walkPages } from './lib/harness.mjs';
import { newCustomer, assertError, eventually } from './lib/money.mjs';
import { outboxRows } from './lib/database.mjs';

let server;
let sandbox;
let production;
let other;

const individual = { beneficiaryType: 'INDIVIDUAL', fullName: 'Ana Souza', birthDate: '1990-04-01', nationality: 'BR' };
const business = { beneficiaryType: 'BUSINESS', legalName: 'Acme Ltda', taxId: '11222333000181' };
// Regtest, like the shipped spark rail, which checks sandbox Lightning and Spark details itself.
const bolt11 = 'lnbcrt15u1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqsp5zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zygsdqhwdskuerzdauzqurp09hh2aqxqrrsscqpj9qrsgq75clrz5vegkysc48jwnt537jlkxa93xy26yf3vv4w45k9j8eatay5lsuuhl8xwr465zscv3lfsjr667qy2wts35ywmfevtmw0smn4pspq0rjan';

// One valid accountInfo per account type (and the newer per-currency names), with its currency.
const valid = [
  ['USD', { accountType: 'US_ACCOUNT', accountNumber: '123456789', routingNumber: '021000021', accountCategory: 'CHECKING', bankName: 'Chase', beneficiary: individual }],
  ['USD', { accountType: 'USD_ACCOUNT', accountNumber: '99887766', routingNumber: '011000015', accountCategory: 'SAVINGS', paymentRails: ['RTP'], beneficiary: business }],
  ['MXN', { accountType: 'CLABE', clabeNumber: '032180000118359719', beneficiary: individual }],
  ['MXN', { accountType: 'MXN_ACCOUNT', clabeNumber: '646180157000000004', beneficiary: business }],
  ['BRL', { accountType: 'PIX', pixKeyType: 'CPF', pixKey: '529.982.247-25', taxId: '52998224725', beneficiary: individual }],
  ['BRL', { accountType: 'PIX', pixKeyType: 'CNPJ', pixKey: '12ABC34501DE35', taxId: '12ABC34501DE35', beneficiary: business }],
  ['BRL', { accountType: 'PIX', pixKeyType: 'EMAIL', pixKey: 'Pix@BCB.gov.br', taxId: '29537995593', beneficiary: individual }],
  ['BRL', { accountType: 'PIX', pixKeyType: 'PHONE', pixKey: '+5511998765432', taxId: '29537995593', beneficiary: individual }],
  ['BRL', { accountType: 'BRL_ACCOUNT', pixKeyType: 'RANDOM', pixKey: '123e4567-e89b-12d3-a456-426655440000', taxId: '54550752000155', beneficiary: business }],
  ['EUR', { accountType: 'IBAN', iban: 'DE89 3704 0044 0532 0130 00', swiftBic: 'DEUTDEFF', beneficiary: individual }],
  ['EUR', { accountType: 'EUR_ACCOUNT', iban: 'FR1420041010050500013M02606', swiftBic: 'BNPAFRPPXXX', paymentRails: ['SEPA_INSTANT'], beneficiary: business }],
  ['INR', { accountType: 'UPI', vpa: '9876543210@paytm', beneficiary: individual }],
  ['INR', { accountType: 'INR_ACCOUNT', vpa: 'name.surname@oksbi', beneficiary: individual }],
  ['NGN', { accountType: 'NGN_ACCOUNT', accountNumber: '0123456789', bankName: 'GTBank', purposeOfPayment: 'GIFT', beneficiary: individual }],
  ['CAD', { accountType: 'CAD_ACCOUNT', bankCode: '001', branchCode: '00011', accountNumber: '1234567', beneficiary: individual }],
  ['GBP', { accountType: 'GBP_ACCOUNT', sortCode: '60-16-13', accountNumber: '31926819', beneficiary: individual }],
  ['PHP', { accountType: 'PHP_ACCOUNT', bankName: 'BDO', accountNumber: '001234567890', beneficiary: individual }],
  ['SGD', { accountType: 'SGD_ACCOUNT', bankName: 'DBS', swiftCode: 'DBSSSGSG', accountNumber: '0721234567', beneficiary: business }],
  ['BTC', { accountType: 'SPARK_WALLET', address: 'sparkrt1pgssy7d7vel0nh9m4326qc54e6rskpczn07dktww9rv4nu5ptvt0s9uc8pt5y4' }],
  ['BTC', { accountType: 'LIGHTNING', invoice: bolt11 }],
  ['BTC', { accountType: 'LIGHTNING', lightningAddress: 'satoshi@example.com' }],
  ['USD', { accountType: 'SOLANA_WALLET', address: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', assetType: 'USDC' }],
  ['USD', { accountType: 'TRON_WALLET', address: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' }],
  ['USD', { accountType: 'POLYGON_WALLET', address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' }],
  ['USD', { accountType: 'BASE_WALLET', address: '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359' }],
];

// Invalid details per type: [currency, accountInfo, status, code, details.field].
const bad = 'INVALID_BANK_ACCOUNT';
const input = 'INVALID_INPUT';
const invalid = [
  ['USD', { ...valid[0][1], routingNumber: '123456789' }, bad, 'accountInfo.routingNumber'],
  ['USD', { ...valid[0][1], routingNumber: '02100002' }, bad, 'accountInfo.routingNumber'],
  ['USD', { ...valid[0][1], accountNumber: '123456789012345678' }, bad, 'accountInfo.accountNumber'],
  ['USD', { ...valid[0][1], accountCategory: 'BROKERAGE' }, input, 'accountInfo.accountCategory'],
  ['USD', { ...valid[0][1], paymentRails: ['PIX'] }, input, 'accountInfo.paymentRails'],
  ['USD', { ...valid[0][1], beneficiary: undefined }, input, 'accountInfo.beneficiary'],
  ['USD', { ...valid[0][1], beneficiary: { ...individual, birthDate: '1990-02-30' } }, input, 'accountInfo.beneficiary.birthDate'],
  ['USD', { ...valid[0][1], beneficiary: { ...individual, fullName: undefined } }, input, 'accountInfo.beneficiary.fullName'],
  ['USD', { ...valid[0][1], beneficiary: { beneficiaryType: 'BUSINESS', fullName: 'X', legalName: 'Y' } }, input, 'accountInfo.beneficiary.fullName'],
  ['USD', { ...valid[0][1], beneficiary: { beneficiaryType: 'BUSINESS' } }, input, 'accountInfo.beneficiary.legalName'],
  ['USD', { ...valid[0][1], beneficiary: { ...individual, nationality: 'XX' } }, input, 'accountInfo.beneficiary.nationality'],
  ['EUR', valid[0][1], input, 'currency'],
  ['MXN', { ...valid[2][1], clabeNumber: '032180000118359718' }, bad, 'accountInfo.clabeNumber'],
  ['MXN', { ...valid[2][1], clabeNumber: '03218000011835971' }, bad, 'accountInfo.clabeNumber'],
  ['BRL', { ...valid[4][1], pixKey: '52998224724' }, bad, 'accountInfo.pixKey'],
  ['BRL', { ...valid[5][1], pixKey: '11222333000180' }, bad, 'accountInfo.pixKey'],
  ['BRL', { ...valid[6][1], pixKey: 'not an email' }, bad, 'accountInfo.pixKey'],
  ['BRL', { ...valid[7][1], pixKey: '+14155550100' }, bad, 'accountInfo.pixKey'],
  ['BRL', { ...valid[8][1], pixKey: '123e4567e89b12d3a456426655440000' }, bad, 'accountInfo.pixKey'],
  ['BRL', { ...valid[4][1], taxId: '11111111111' }, bad, 'accountInfo.taxId'],
  ['BRL', { ...valid[4][1], pixKeyType: 'EVP' }, input, 'accountInfo.pixKeyType'],
  ['EUR', { ...valid[9][1], iban: 'DE89370400440532013001' }, bad, 'accountInfo.iban'],
  ['EUR', { ...valid[9][1], iban: 'DE8937040044053201300' }, bad, 'accountInfo.iban'],
  ['EUR', { ...valid[9][1], swiftBic: 'DEUT1EFF' }, bad, 'accountInfo.swiftBic'],
  ['INR', { ...valid[11][1], vpa: '9876543210' }, bad, 'accountInfo.vpa'],
  ['NGN', { ...valid[13][1], accountNumber: '01234567890' }, bad, 'accountInfo.accountNumber'],
  ['NGN', { ...valid[13][1], purposeOfPayment: undefined }, input, 'accountInfo.purposeOfPayment'],
  ['CAD', { ...valid[14][1], branchCode: '0001' }, bad, 'accountInfo.branchCode'],
  ['CAD', { ...valid[14][1], bankCode: '1' }, bad, 'accountInfo.bankCode'],
  ['GBP', { ...valid[15][1], sortCode: '60161' }, bad, 'accountInfo.sortCode'],
  ['GBP', { ...valid[15][1], accountNumber: '3192681' }, bad, 'accountInfo.accountNumber'],
  ['PHP', { ...valid[16][1], accountNumber: '12-34' }, bad, 'accountInfo.accountNumber'],
  ['SGD', { ...valid[17][1], swiftCode: 'DEUTDEFF' }, bad, 'accountInfo.swiftCode'],
  ['BTC', { ...valid[18][1], address: 'sparkrt1pgssy7d7vel0nh9m4326qc54e6rskpczn07dktww9rv4nu5ptvt0s9uc8pt5y5' }, bad, 'accountInfo.address'],
  ['BTC', { ...valid[18][1], address: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4' }, bad, 'accountInfo.address'],
  ['BTC', { ...valid[18][1], beneficiary: individual }, input, 'accountInfo.beneficiary'],
  ['BTC', { accountType: 'LIGHTNING', invoice: bolt11.slice(0, -1) + 'q' }, bad, 'accountInfo.invoice'],
  ['BTC', { accountType: 'LIGHTNING', invoice: bolt11.toUpperCase().slice(0, 10) + bolt11.slice(10) }, bad, 'accountInfo.invoice'],
  ['BTC', { accountType: 'LIGHTNING', lightningAddress: 'satoshi@localhost' }, bad, 'accountInfo.lightningAddress'],
  ['BTC', { accountType: 'LIGHTNING' }, input, 'accountInfo.invoice'],
  ['USD', { ...valid[21][1], address: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt' }, bad, 'accountInfo.address'],
  ['USD', { ...valid[22][1], address: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u' }, bad, 'accountInfo.address'],
  ['USD', { ...valid[23][1], address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAe' }, bad, 'accountInfo.address'],
  ['USD', { ...valid[24][1], address: 'fB6916095ca1df60bB79Ce92cE3Ea74c37c5d35900' }, bad, 'accountInfo.address'],
  ['USD', { accountType: 'CHEQUE' }, input, 'accountInfo.accountType'],
  ['USD', { accountNumber: '1' }, input, 'accountInfo.accountType'],
];

before(async () => {
  server = await startCorridor({
    platforms: 2,
    config: { quotes: { ttl_seconds: 300, sweep_interval_ms: 50 }, external_accounts: { screening_delay_ms: 300 } },
  });
  sandbox = server.platforms[0].sandbox;
  production = server.platforms[0].production;
  other = server.platforms[1].sandbox;
});
after(async () => { if (server) await stopCorridor(server); });

async function createAccount(credentials, customerId, currency, accountInfo, extra = {}) {
  return call(server, credentials, 'POST', '/customers/external-accounts', { customerId, currency, accountInfo, ...extra });
}

async function waitActive(credentials, account, path = '/customers/external-accounts') {
  return eventually(async () => {
    const response = await call(server, credentials, 'GET', `${path}/${account.id}`);
    assert.equal(response.status, 200, response.text);
    return response.body.status === 'ACTIVE' ? response.body : null;
  });
}

function assertAccountShape(account, currency, customerId) {
  assert.match(account.id, /^ExternalAccount:[0-9a-f-]{36}$/);
  assert.equal(account.currency, currency);
  assert.ok(['PENDING', 'ACTIVE'].includes(account.status));
  assert.equal(typeof account.accountInfo.accountType, 'string');
  assert.ok(Array.isArray(account.accountInfo.paymentRails) && account.accountInfo.paymentRails.length > 0);
  assert.equal(account.customerId, customerId);
  assert.equal(typeof account.defaultUmaDepositAccount, 'boolean');
  assert.ok(['MATCHED', 'PARTIAL_MATCH', 'NOT_MATCHED', 'UNSUPPORTED', 'CHECKED_BY_RECEIVING_FI', 'PENDING'].includes(account.beneficiaryVerificationStatus));
  assert.match(account.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
  assert.match(account.updatedAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
}

test('every account type is accepted with valid details, normalised, and read back', async () => {
  const customer = await newCustomer(server, sandbox);
  for (const [currency, accountInfo] of valid) {
    const created = await createAccount(sandbox, customer.id, currency, accountInfo);
    assert.equal(created.status, 201, `${accountInfo.accountType}: ${created.text}`);
    assertAccountShape(created.body, currency, customer.id);
    assert.equal(created.body.status, 'PENDING');
    assert.equal(created.body.accountInfo.accountType, accountInfo.accountType);
    const selfCustody = !accountInfo.beneficiary;
    assert.equal(created.body.beneficiaryVerificationStatus, selfCustody ? 'UNSUPPORTED' : 'PENDING');
    if (!selfCustody) assert.deepEqual(created.body.beneficiary, created.body.accountInfo.beneficiary);
    const read = await call(server, sandbox, 'GET', `/customers/external-accounts/${created.body.id}`);
    assert.equal(read.status, 200, read.text);
    assert.deepEqual(read.body.accountInfo, created.body.accountInfo);
  }
  const listed = await walkPages(server, sandbox, `/customers/external-accounts?customerId=${customer.id}`, 100);
  assert.equal(listed.items.length, valid.length);
  const byType = Object.fromEntries(listed.items.map((a) => [a.accountInfo.accountType + (a.accountInfo.pixKeyType ?? '') + (a.accountInfo.lightningAddress ? 'LA' : ''), a]));
  assert.equal(byType.IBAN.accountInfo.iban, 'DE89370400440532013000');
  assert.equal(byType.GBP_ACCOUNT.accountInfo.sortCode, '601613');
  assert.equal(byType.PIXCPF.accountInfo.pixKey, '52998224725');
  assert.equal(byType.PIXEMAIL.accountInfo.pixKey, 'pix@bcb.gov.br');
  assert.deepEqual(byType.US_ACCOUNT.accountInfo.paymentRails, ['ACH']);
  assert.deepEqual(byType.EUR_ACCOUNT.accountInfo.paymentRails, ['SEPA_INSTANT']);
  assert.equal(byType.SPARK_WALLET.accountInfo.assetType, 'BTC');
});

test('invalid details of every type are refused naming the field, and nothing is written', async () => {
  const customer = await newCustomer(server, sandbox);
  for (const [currency, accountInfo, code, field] of invalid) {
    const response = await createAccount(sandbox, customer.id, currency, accountInfo);
    assertError(response, 400, code);
    assert.equal(response.body.details.field, field, `${JSON.stringify(accountInfo)}: ${response.text}`);
    assert.ok(response.body.message.startsWith(field), response.body.message);
  }
  const listed = await call(server, sandbox, 'GET', `/customers/external-accounts?customerId=${customer.id}`);
  assert.equal(listed.body.totalCount, 0);
});

test('the request itself: currency, accountInfo, customer, content type, permissions', async () => {
  const customer = await newCustomer(server, sandbox);
  const info = valid[0][1];
  let response = await call(server, sandbox, 'POST', '/customers/external-accounts', { customerId: customer.id, accountInfo: info });
  assertError(response, 400, 'INVALID_INPUT');
  assert.equal(response.body.details.field, 'currency');
  response = await createAccount(sandbox, customer.id, 'XYZ', info);
  assertError(response, 400, 'INVALID_CURRENCY');
  response = await createAccount(sandbox, customer.id, 7, info);
  assertError(response, 400, 'INVALID_INPUT');
  response = await call(server, sandbox, 'POST', '/customers/external-accounts', { customerId: customer.id, currency: 'USD' });
  assertError(response, 400, 'INVALID_INPUT');
  assert.equal(response.body.details.field, 'accountInfo');
  response = await createAccount(sandbox, customer.id, 'USD', 'US_ACCOUNT');
  assertError(response, 400, 'INVALID_INPUT');
  response = await call(server, sandbox, 'POST', '/customers/external-accounts', { currency: 'USD', accountInfo: info });
  assertError(response, 400, 'INVALID_INPUT');
  assert.equal(response.body.details.field, 'customerId');
  response = await createAccount(sandbox, 'Customer:0190d9d0-0000-7000-8000-000000000000', 'USD', info);
  assertError(response, 404, 'USER_NOT_FOUND');
  response = await createAccount(sandbox, customer.id, 'USD', info, { defaultUmaDepositAccount: 'yes' });
  assertError(response, 400, 'INVALID_INPUT');
  response = await createAccount(sandbox, customer.id, 'USD', info, { platformAccountId: '' });
  assertError(response, 400, 'INVALID_INPUT');
  response = await call(server, sandbox, 'POST', '/customers/external-accounts', 'currency=USD', { 'content-type': 'application/x-www-form-urlencoded' });
  assertError(response, 415, 'UNSUPPORTED_MEDIA_TYPE');
  response = await call(server, sandbox, 'POST', '/platform/external-accounts', { currency: 'USD', accountInfo: info, customerId: customer.id });
  assertError(response, 400, 'INVALID_INPUT');
  assert.equal(response.body.details.field, 'customerId');
  response = await call(server, sandbox, 'POST', '/platform/external-accounts', { currency: 'USD', accountInfo: info, defaultUmaDepositAccount: true });
  assertError(response, 400, 'INVALID_INPUT');
  response = await call(server, null, 'GET', '/customers/external-accounts');
  assertError(response, 401, 'UNAUTHORIZED');

  const viewer = await call(server, sandbox, 'POST', '/tokens', { name: 'viewer', permissions: ['VIEW'] });
  assert.equal(viewer.status, 201, viewer.text);
  response = await createAccount(viewer.body, customer.id, 'USD', info);
  assertError(response, 403, 'FORBIDDEN');
  response = await call(server, viewer.body, 'GET', '/customers/external-accounts');
  assert.equal(response.status, 200);

  const gone = await newCustomer(server, sandbox);
  assert.equal((await call(server, sandbox, 'DELETE', `/customers/${gone.id}`)).status, 200);
  response = await createAccount(sandbox, gone.id, 'USD', info);
  assertError(response, 410, 'CUSTOMER_DELETED');
  assert.equal((await call(server, sandbox, 'GET', '/customers/external-accounts?customerId=' + customer.id)).body.totalCount, 0);
});

test('the same destination twice for one owner is 409, also when spelled differently', async () => {
  const customer = await newCustomer(server, sandbox);
  const second = await newCustomer(server, sandbox);
  const iban = { accountType: 'IBAN', iban: 'GB82WEST12345698765432', swiftBic: 'NWBKGB2L', beneficiary: individual };
  assert.equal((await createAccount(sandbox, customer.id, 'EUR', iban)).status, 201);
  let response = await createAccount(sandbox, customer.id, 'EUR', iban);
  assertError(response, 409, 'EXTERNAL_ACCOUNT_EXISTS');
  response = await createAccount(sandbox, customer.id, 'GBP', { ...iban, iban: 'gb82 west 1234 5698 7654 32', accountType: 'EUR_ACCOUNT' });
  assertError(response, 409, 'EXTERNAL_ACCOUNT_EXISTS');
  assert.equal((await createAccount(sandbox, second.id, 'EUR', iban)).status, 201);
  const platformBody = { currency: 'EUR', accountInfo: iban };
  assert.equal((await call(server, sandbox, 'POST', '/platform/external-accounts', platformBody)).status, 201);
  assertError(await call(server, sandbox, 'POST', '/platform/external-accounts', platformBody), 409, 'EXTERNAL_ACCOUNT_EXISTS');
  // Another tenant holds its own accounts: the same details are no duplicate there.
  const foreign = await newCustomer(server, other);
  assert.equal((await createAccount(other, foreign.id, 'EUR', iban)).status, 201);
  const mine = await call(server, sandbox, 'GET', `/customers/external-accounts?customerId=${customer.id}`);
  assert.equal(mine.body.totalCount, 1);
});

test('at most one default UMA deposit account per customer: a new default replaces the old', async () => {
  const customer = await newCustomer(server, sandbox);
  const neighbour = await newCustomer(server, sandbox);
  const first = await createAccount(sandbox, customer.id, 'USD', { ...valid[0][1], accountNumber: '1001' }, { defaultUmaDepositAccount: true });
  assert.equal(first.status, 201, first.text);
  assert.equal(first.body.defaultUmaDepositAccount, true);
  const plain = await createAccount(sandbox, customer.id, 'USD', { ...valid[0][1], accountNumber: '1002' });
  assert.equal(plain.body.defaultUmaDepositAccount, false);
  const theirs = await createAccount(sandbox, neighbour.id, 'USD', { ...valid[0][1], accountNumber: '1001' }, { defaultUmaDepositAccount: true });
  assert.equal(theirs.body.defaultUmaDepositAccount, true);
  const second = await createAccount(sandbox, customer.id, 'MXN', valid[2][1], { defaultUmaDepositAccount: true });
  assert.equal(second.body.defaultUmaDepositAccount, true);

  // Concurrent defaults for one customer: each request wins in turn, exactly one remains.
  const racing = await Promise.all([1, 2, 3, 4, 5].map((n) =>
    createAccount(sandbox, customer.id, 'USD', { ...valid[0][1], accountNumber: `200${n}` }, { defaultUmaDepositAccount: true })));
  for (const response of racing) assert.equal(response.status, 201, response.text);

  const listed = await walkPages(server, sandbox, `/customers/external-accounts?customerId=${customer.id}`, 100);
  const defaults = listed.items.filter((a) => a.defaultUmaDepositAccount);
  assert.equal(defaults.length, 1);
  assert.ok(racing.some((r) => r.body.id === defaults[0].id));
  const firstNow = await call(server, sandbox, 'GET', `/customers/external-accounts/${first.body.id}`);
  assert.equal(firstNow.body.defaultUmaDepositAccount, false);
  const neighbourNow = await call(server, sandbox, 'GET', `/customers/external-accounts/${theirs.body.id}`);
  assert.equal(neighbourNow.body.defaultUmaDepositAccount, true);
});

test('another tenant\'s ids read as not found, on every path', async () => {
  const customer = await newCustomer(server, sandbox);
  const account = (await createAccount(sandbox, customer.id, 'USD', valid[0][1])).body;
  const platformAccount = (await call(server, sandbox, 'POST', '/platform/external-accounts', { currency: 'MXN', accountInfo: valid[2][1] })).body;
  for (const credentials of [other, production]) {
    assertError(await call(server, credentials, 'GET', `/customers/external-accounts/${account.id}`), 404, 'ACCOUNT_NOT_FOUND');
    assertError(await call(server, credentials, 'GET', `/platform/external-accounts/${platformAccount.id}`), 404, 'ACCOUNT_NOT_FOUND');
    assertError(await call(server, credentials, 'GET', `/receiver/external-account/${account.id}`), 404, 'ACCOUNT_NOT_FOUND');
    const listed = await call(server, credentials, 'GET', `/customers/external-accounts?customerId=${customer.id}`);
    assert.equal(listed.body.totalCount, 0);
    assertError(await createAccount(credentials, customer.id, 'USD', valid[0][1]), 404, 'USER_NOT_FOUND');
  }
  // Each path shows its own kind of account.
  assertError(await call(server, sandbox, 'GET', `/customers/external-accounts/${platformAccount.id}`), 404, 'ACCOUNT_NOT_FOUND');
  assertError(await call(server, sandbox, 'GET', `/platform/external-accounts/${account.id}`), 404, 'ACCOUNT_NOT_FOUND');
  assertError(await call(server, sandbox, 'GET', '/customers/external-accounts/ExternalAccount:nope'), 404, 'ACCOUNT_NOT_FOUND');
});

test('lists: customers\' and platform accounts, filters, pages, limits and cursors', async () => {
  const customer = await newCustomer(server, sandbox);
  const second = await newCustomer(server, sandbox);
  for (let i = 0; i < 5; i++) {
    assert.equal((await createAccount(sandbox, customer.id, 'USD', { ...valid[0][1], accountNumber: `77${i}` })).status, 201);
  }
  assert.equal((await createAccount(sandbox, customer.id, 'MXN', valid[2][1])).status, 201);
  assert.equal((await createAccount(sandbox, second.id, 'USD', valid[0][1])).status, 201);

  const walked = await walkPages(server, sandbox, `/customers/external-accounts?customerId=${customer.id}`, 2);
  assert.equal(walked.items.length, 6);
  assert.equal(new Set(walked.items.map((a) => a.id)).size, 6);
  assert.ok(walked.totals.every((t) => t === 6));
  assert.ok(walked.items.every((a) => a.customerId === customer.id));
  const usd = await call(server, sandbox, 'GET', `/customers/external-accounts?customerId=${customer.id}&currency=USD&limit=100`);
  assert.equal(usd.body.totalCount, 5);
  assert.ok(usd.body.data.every((a) => a.currency === 'USD'));
  const all = await walkPages(server, sandbox, '/customers/external-accounts', 3);
  assert.ok(all.items.some((a) => a.customerId === second.id));
  assert.ok(all.items.every((a) => typeof a.customerId === 'string'));
  const first = await call(server, sandbox, 'GET', `/customers/external-accounts?customerId=${customer.id}&limit=2`);
  assert.equal(first.body.hasMore, true);
  assert.equal(first.body.data.length, 2);

  assertError(await call(server, sandbox, 'GET', '/customers/external-accounts?limit=0'), 400, 'INVALID_INPUT');
  assertError(await call(server, sandbox, 'GET', '/customers/external-accounts?limit=101'), 400, 'INVALID_INPUT');
  assertError(await call(server, sandbox, 'GET', '/customers/external-accounts?cursor=bogus'), 400, 'INVALID_INPUT');
  assertError(await call(server, sandbox, 'GET', '/customers/external-accounts?currency=XYZ'), 400, 'INVALID_CURRENCY');
  const customers = await call(server, sandbox, 'GET', '/customers?limit=1');
  assert.equal(customers.body.hasMore, true);
  assertError(await call(server, sandbox, 'GET', `/customers/external-accounts?cursor=${customers.body.nextCursor}`), 400, 'INVALID_INPUT');

  const platformBefore = await walkPages(server, other, '/platform/external-accounts', 100);
  for (const [currency, accountInfo] of [valid[0], valid[2], valid[18]]) {
    assert.equal((await call(server, other, 'POST', '/platform/external-accounts', { currency, accountInfo, platformAccountId: 'treasury' })).status, 201);
  }
  const platform = await call(server, other, 'GET', '/platform/external-accounts');
  assert.equal(platform.status, 200);
  assert.equal(platform.body.data.length, platformBefore.items.length + 3);
  assert.ok(platform.body.data.every((a) => a.customerId === null));
  assert.ok(platform.body.data.some((a) => a.platformAccountId === 'treasury'));
  const btc = await call(server, other, 'GET', '/platform/external-accounts?currency=BTC');
  assert.ok(btc.body.data.length >= 1 && btc.body.data.every((a) => a.currency === 'BTC'));
  const paged = await walkPages(server, other, '/platform/external-accounts', 1);
  assert.equal(paged.items.length, platform.body.data.length);
});

test('accounts turn ACTIVE asynchronously, each with one ACCOUNT_STATUS event', async () => {
  const customer = await newCustomer(server, sandbox);
  const created = await createAccount(sandbox, customer.id, 'USD', { ...valid[0][1], accountNumber: '31415926' });
  assert.equal(created.body.status, 'PENDING');
  const partial = await createAccount(sandbox, customer.id, 'USD', { ...valid[0][1], accountNumber: '555103' });
  const unmatched = await createAccount(sandbox, customer.id, 'USD', { ...valid[0][1], accountNumber: '555102' });
  const wallet = await createAccount(sandbox, customer.id, 'BTC', valid[18][1]);
  const platformAccount = await call(server, sandbox, 'POST', '/platform/external-accounts', { currency: 'INR', accountInfo: { ...valid[11][1], vpa: 'treasury@oksbi' } });

  const active = await waitActive(sandbox, created.body);
  assert.equal(active.beneficiaryVerificationStatus, 'MATCHED');
  assert.deepEqual(active.beneficiaryVerifiedData, { fullName: 'Ana Souza' });
  assert.ok(active.updatedAt >= created.body.updatedAt);
  assert.equal((await waitActive(sandbox, partial.body)).beneficiaryVerificationStatus, 'PARTIAL_MATCH');
  const notMatched = await waitActive(sandbox, unmatched.body);
  assert.equal(notMatched.beneficiaryVerificationStatus, 'NOT_MATCHED');
  assert.equal(notMatched.beneficiaryVerifiedData, undefined);
  assert.equal((await waitActive(sandbox, wallet.body)).beneficiaryVerificationStatus, 'UNSUPPORTED');
  await waitActive(sandbox, platformAccount.body, '/platform/external-accounts');

  const events = outboxRows(server, 'environment, platform_id', "type = 'ACCOUNT_STATUS'", created.body.id);
  assert.equal(events.length, 1);
  const payload = JSON.parse(events[0].payload);
  assert.equal(payload.accountId, created.body.id);
  assert.equal(payload.status, 'ACTIVE');
  assert.equal(payload.previousStatus, 'PENDING');
  assert.equal(payload.customerId, customer.id);
  assert.equal(payload.platformCustomerId, customer.platformCustomerId);
  assert.equal(payload.account.status, 'ACTIVE');
  assert.equal(payload.account.id, created.body.id);
  assert.equal(events[0].environment, 'sandbox');
  assert.equal(events[0].platform_id, server.platforms[0].platformId);
  const platformEvents = outboxRows(server, 'id', "type = 'ACCOUNT_STATUS'", platformAccount.body.id);
  assert.equal(platformEvents.length, 1);
  assert.equal(JSON.parse(platformEvents[0].payload).customerId, undefined);
});

test('receiver lookup of an external account: ACTIVE only, rates and limits of its currency', async () => {
  const customer = await newCustomer(server, sandbox);
  const mxn = (await createAccount(sandbox, customer.id, 'MXN', valid[3][1])).body;
  assertError(await call(server, sandbox, 'GET', `/receiver/external-account/${mxn.id}`), 400, 'INVALID_RECEIVER');
  await waitActive(sandbox, mxn);

  const config = (await call(server, sandbox, 'GET', '/config')).body;
  const limits = config.supportedCurrencies.find((c) => c.currencyCode === 'MXN');
  const found = await call(server, sandbox, 'GET', `/receiver/external-account/${mxn.id}?customerId=${customer.id}`);
  assert.equal(found.status, 200, found.text);
  assert.equal(found.body.accountId, mxn.id);
  assert.match(found.body.lookupId, /^Lookup:[0-9a-f-]{36}$/);
  assert.equal(found.body.supportedCurrencies.length, 1);
  const entry = found.body.supportedCurrencies[0];
  assert.equal(entry.currency.code, 'MXN');
  assert.equal(entry.currency.decimals, 2);
  assert.ok(entry.estimatedExchangeRate > 1, 'pesos per dollar');
  assert.equal(entry.min, limits.minAmount);
  assert.equal(entry.max, limits.maxAmount);
  const fromEuro = await call(server, sandbox, 'GET', `/receiver/external-account/${mxn.id}?sendingCurrency=EUR&senderUmaAddress=$alice@example.com`);
  assert.equal(fromEuro.status, 200, fromEuro.text);
  assert.notEqual(fromEuro.body.supportedCurrencies[0].estimatedExchangeRate, entry.estimatedExchangeRate);
  assert.notEqual(fromEuro.body.lookupId, found.body.lookupId);
  const sameCurrency = await call(server, sandbox, 'GET', `/receiver/external-account/${mxn.id}?sendingCurrency=MXN`);
  assert.equal(sameCurrency.body.supportedCurrencies[0].estimatedExchangeRate, 1);

  assertError(await call(server, sandbox, 'GET', `/receiver/external-account/${mxn.id}?sendingCurrency=XYZ`), 400, 'INVALID_CURRENCY');
  assertError(await call(server, sandbox, 'GET', `/receiver/external-account/${mxn.id}?customerId=Customer:0190d9d0-0000-7000-8000-000000000000`), 404, 'USER_NOT_FOUND');
  assertError(await call(server, sandbox, 'GET', `/receiver/external-account/${mxn.id}?senderUmaAddress=alice`), 400, 'INVALID_UMA_ADDRESS');
  assertError(await call(server, sandbox, 'GET', `/receiver/external-account/${mxn.id}?customerId=${customer.id}&senderUmaAddress=$a@b.com`), 400, 'INVALID_INPUT');
  assertError(await call(server, sandbox, 'GET', '/receiver/external-account/ExternalAccount:0190d9d0-0000-7000-8000-000000000000'), 404, 'ACCOUNT_NOT_FOUND');

  // NGN is not among the platform's currencies: the account exists but cannot be paid.
  const naira = (await createAccount(sandbox, customer.id, 'NGN', valid[13][1])).body;
  await waitActive(sandbox, naira);
  assertError(await call(server, sandbox, 'GET', `/receiver/external-account/${naira.id}`), 400, 'CURRENCY_NOT_ENABLED');
});

// Every field the interface defines is type-checked whatever the accountType reads: a PIX key on
// a US account, a wallet address object on an IBAN, a beneficiary's e-mail as a number.
test('a known field of the wrong type is 400 naming it, even where the account type ignores it', async () => {
  const customer = await newCustomer(server, sandbox);
  const [currency, usAccount] = valid[0];
  const wrong = [
    ['currency', 840], ['platformAccountId', 7], ['defaultUmaDepositAccount', 'yes'], ['accountInfo', 'US'],
    ['accountInfo.pixKey', 5], ['accountInfo.iban', 5], ['accountInfo.vpa', {}], ['accountInfo.address', { line1: 'x' }],
    ['accountInfo.invoice', 1], ['accountInfo.lightningAddress', false], ['accountInfo.swiftCode', 1],
    ['accountInfo.sortCode', 601613], ['accountInfo.paymentRails', 'ACH'], ['accountInfo.paymentRails[0]', 1],
    ['accountInfo.bankName', 9], ['accountInfo.beneficiary.email', 5], ['accountInfo.beneficiary.legalName', 5],
    ['accountInfo.beneficiary.address', 'Main St'], ['accountInfo.beneficiary.address.city', 1],
  ];
  const count = async () => (await call(server, sandbox, 'GET', `/customers/external-accounts?customerId=${customer.id}`)).body.totalCount;
  for (const [path, value] of wrong) {
    const body = { customerId: customer.id, currency, accountInfo: structuredClone(usAccount) };
    const keys = path.replace(/\[(\d+)\]/g, '.$1').split('.');
    let at = body;
    for (const key of keys.slice(0, -1)) {
      if (at[key] === undefined) at[key] = /^\d+$/.test(keys[keys.indexOf(key) + 1]) ? [] : {};
      at = at[key];
    }
    at[keys.at(-1)] = value;
    const response = await call(server, sandbox, 'POST', '/customers/external-accounts', body);
    assertError(response, 400, 'INVALID_INPUT');
    assert.equal(response.body.details.field, path, response.text);
    assert.ok(response.body.message.startsWith(`${path}: must be`), response.text);
  }
  assert.equal(await count(), 0, 'nothing was written');
});
