// GET /config and PATCH /config: shape, every field's validation, conflicts, cache invalidation,
// and that a refused PATCH writes nothing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startCorridor, stopCorridor, call } from './lib/harness.mjs';
import { expectError, expectStatus, ISO_TIMESTAMP } from './lib/expect.mjs';
import { expectWrongTypes } from './lib/wrong_types.mjs';

let server;
let sandbox;     // platform 0
let production;  // platform 0
let regulated;   // platform 1 (created with --regulated), sandbox

before(async () => {
  server = await startCorridor({ platforms: 3, regulated: [false, true, false] });
  sandbox = server.platforms[0].sandbox;
  production = server.platforms[0].production;
  regulated = server.platforms[1].sandbox;
});
after(async () => { if (server) await stopCorridor(server); });

const getConfig = async (credentials) => expectStatus(await call(server, credentials, 'GET', '/config'), 200);
const patch = (credentials, body) => call(server, credentials, 'PATCH', '/config', body);

const usd = (overrides = {}) => ({
  currencyCode: 'USD', minAmount: 100, maxAmount: 500000,
  enabledTransactionTypes: ['OUTGOING', 'INCOMING'], requiredCounterpartyFields: [], ...overrides,
});

// A refused PATCH must leave the configuration exactly as it was.
async function expectRefused(credentials, body, status, code, field) {
  const before = await getConfig(credentials);
  const response = await patch(credentials, body);
  expectError(response, status, code, field);
  assert.deepEqual(await getConfig(credentials), before, `config changed by a refused PATCH ${JSON.stringify(body)}`);
}

test('GET /config has the PlatformConfig shape', async () => {
  const config = await getConfig(production);
  assert.match(config.id, /^PlatformConfig:[0-9a-f-]{36}$/);
  assert.equal(config.id, server.platforms[0].platformId);
  assert.equal(config.umaDomain, 'platform0.example.test');
  assert.equal(typeof config.proxyUmaSubdomain, 'string');
  assert.ok(config.proxyUmaSubdomain.length > 0);
  assert.equal(config.isRegulatedFinancialInstitution, false);
  assert.match(config.createdAt, ISO_TIMESTAMP);
  assert.match(config.updatedAt, ISO_TIMESTAMP);
  assert.ok(!('webhookEndpoint' in config));

  const defaults = JSON.parse(readFileSync(join(process.env.CORRIDOR_CONF_DIR, 'corridor.json'), 'utf8'))
    .platform_defaults.supported_currencies;
  assert.deepEqual(config.supportedCurrencies.map((c) => c.currencyCode), defaults);
  for (const item of config.supportedCurrencies) {
    assert.ok(Number.isInteger(item.minAmount) && Number.isInteger(item.maxAmount));
    assert.ok(item.minAmount <= item.maxAmount);
    assert.ok(Array.isArray(item.enabledTransactionTypes));
    assert.ok(Array.isArray(item.requiredCounterpartyFields));
    assert.ok(Array.isArray(item.providerRequiredCustomerFields));
    assert.ok(Array.isArray(item.providerRequiredCounterpartyCustomerFields));
  }

  const sandboxConfig = await getConfig(sandbox);
  assert.match(sandboxConfig.id, /^PlatformConfig:/);
  assert.notEqual(sandboxConfig.id, config.id);
  assert.notEqual(sandboxConfig.proxyUmaSubdomain, config.proxyUmaSubdomain);
  assert.equal(sandboxConfig.umaDomain, config.umaDomain);

  const other = await getConfig(server.platforms[2].production);
  assert.notEqual(other.proxyUmaSubdomain, config.proxyUmaSubdomain);
  assert.equal((await getConfig(regulated)).isRegulatedFinancialInstitution, true);
});

test('PATCH umaDomain: normalised, validated, and visible in the very next GET', async () => {
  await getConfig(sandbox);  // warm the cache
  const changed = expectStatus(await patch(sandbox, { umaDomain: 'Pay.Platform0-New.EXAMPLE.test' }), 200);
  assert.equal(changed.umaDomain, 'pay.platform0-new.example.test');
  assert.equal((await getConfig(sandbox)).umaDomain, 'pay.platform0-new.example.test');
  // Production of the same platform is a separate configuration.
  assert.equal((await getConfig(production)).umaDomain, 'platform0.example.test');

  for (const domain of ['127.0.0.1:8443', 'localhost:8080', '[::1]:9000', 'pay.platform0.example.test']) {
    const response = expectStatus(await patch(sandbox, { umaDomain: domain }), 200);
    assert.equal(response.umaDomain, domain);
    assert.equal((await getConfig(sandbox)).umaDomain, domain);
  }

  const invalid = ['', ' ', 'not a domain', '-bad.example.test', 'bad-.example.test', 'a..b.test',
    'under_score.example.test', 'host.test:99999', 'host.test:', 'host.test:0', 'https://x.example.test',
    'x.example.test/path', '$user@x.example.test', `${'a'.repeat(64)}.example.test`, '[zz::1]'];
  for (const umaDomain of invalid) await expectRefused(sandbox, { umaDomain }, 400, 'INVALID_INPUT', 'umaDomain');
  for (const umaDomain of [42, true, ['a.test'], { host: 'a.test' }]) {
    await expectRefused(sandbox, { umaDomain }, 400, 'INVALID_INPUT', 'umaDomain');
  }
});

test('a umaDomain used by another platform is 409 UMA_DOMAIN_EXISTS', async () => {
  const taken = 'platform2.example.test';
  await expectRefused(sandbox, { umaDomain: taken }, 409, 'UMA_DOMAIN_EXISTS');
  await expectRefused(sandbox, { umaDomain: taken.toUpperCase() }, 409, 'UMA_DOMAIN_EXISTS');
  await expectRefused(production, { umaDomain: taken }, 409, 'UMA_DOMAIN_EXISTS');
  // Set by PATCH on one platform, then refused for another.
  expectStatus(await patch(server.platforms[1].sandbox, { umaDomain: 'moved.example.test' }), 200);
  await expectRefused(sandbox, { umaDomain: 'moved.example.test' }, 409, 'UMA_DOMAIN_EXISTS');
  // A conflict refuses the whole PATCH: the valid fields beside it are not written either.
  await expectRefused(sandbox, { umaDomain: taken, webhookEndpoint: 'https://hooks.example.test/x' }, 409, 'UMA_DOMAIN_EXISTS');
  // Its own current domain is no conflict.
  const current = (await getConfig(production)).umaDomain;
  expectStatus(await patch(production, { umaDomain: current }), 200);

  // Three platforms racing for one free domain: one wins, the others get 409.
  const racers = server.platforms.map((p) => p.production);
  for (let round = 0; round < 3; round++) {
    const wanted = `race-${round}.example.test`;
    const answers = await Promise.all(racers.flatMap((credentials) => [patch(credentials, { umaDomain: wanted }), patch(credentials, { umaDomain: wanted.toUpperCase() })]));
    const winners = answers.filter((r) => r.status === 200);
    for (const response of answers.filter((r) => r.status !== 200)) expectError(response, 409, 'UMA_DOMAIN_EXISTS');
    const holders = (await Promise.all(racers.map(getConfig))).filter((c) => c.umaDomain === wanted);
    assert.equal(holders.length, 1, answers.map((r) => r.status).join(','));
    assert.ok(winners.length >= 1 && winners.every((r) => r.body.id === holders[0].id));
  }
});

test('a domain is one platform\'s across environments, even when claimed at the same moment', async () => {
  // One platform's sandbox races another's production: the claim is decided in the database, so
  // exactly one platform ends up holding the domain.
  const racers = server.platforms.map((p, i) => (i % 2 ? p.production : p.sandbox));
  for (let round = 0; round < 4; round++) {
    const wanted = `mixed-${round}.example.test`;
    const answers = await Promise.all(racers.map((credentials) => patch(credentials, { umaDomain: wanted })));
    for (const response of answers.filter((r) => r.status !== 200)) expectError(response, 409, 'UMA_DOMAIN_EXISTS');
    const holders = (await Promise.all(racers.map(getConfig))).filter((c) => c.umaDomain === wanted);
    assert.equal(holders.length, 1, answers.map((r) => r.status).join(','));
  }
  // A domain no environment of its platform uses any more is free for others again.
  const [first, second] = server.platforms;
  expectStatus(await patch(first.sandbox, { umaDomain: 'handed-over.example.test' }), 200);
  await expectRefused(second.production, { umaDomain: 'handed-over.example.test' }, 409, 'UMA_DOMAIN_EXISTS');
  expectStatus(await patch(first.sandbox, { umaDomain: 'next.example.test' }), 200);
  expectStatus(await patch(second.production, { umaDomain: 'handed-over.example.test' }), 200);
});

test('PATCH webhookEndpoint: a URL without credentials, https in production, http allowed in sandbox', async () => {
  await getConfig(production);
  const secure = expectStatus(await patch(production, { webhookEndpoint: 'https://hooks.example.test/corridor?x=1' }), 200);
  assert.equal(secure.webhookEndpoint, 'https://hooks.example.test/corridor?x=1');
  assert.equal((await getConfig(production)).webhookEndpoint, 'https://hooks.example.test/corridor?x=1');

  await expectRefused(production, { webhookEndpoint: 'http://hooks.example.test/corridor' }, 400, 'INVALID_INPUT', 'webhookEndpoint');
  const plain = expectStatus(await patch(sandbox, { webhookEndpoint: 'http://127.0.0.1:9/hook' }), 200);
  assert.equal(plain.webhookEndpoint, 'http://127.0.0.1:9/hook');
  assert.equal((await getConfig(sandbox)).webhookEndpoint, 'http://127.0.0.1:9/hook');

  const invalid = ['', 'not a url', 'hooks.example.test/path', '/relative/path', 'ftp://hooks.example.test/x',
    'https://user:secret@hooks.example.test/x', 'https://user@hooks.example.test/x', 'https://:pw@hooks.example.test/',
    'https:///no-host', 'https://hooks.example.test/#fragment', 'javascript:alert(1)', `https://h.example.test/${'a'.repeat(3000)}`];
  for (const webhookEndpoint of invalid) {
    await expectRefused(production, { webhookEndpoint }, 400, 'INVALID_INPUT', 'webhookEndpoint');
    await expectRefused(sandbox, { webhookEndpoint }, 400, 'INVALID_INPUT', 'webhookEndpoint');
  }
  for (const webhookEndpoint of [7, false, ['https://a.test'], {}]) {
    await expectRefused(production, { webhookEndpoint }, 400, 'INVALID_INPUT', 'webhookEndpoint');
  }
  // null removes it.
  const cleared = expectStatus(await patch(production, { webhookEndpoint: null }), 200);
  assert.ok(!('webhookEndpoint' in cleared));
  assert.ok(!('webhookEndpoint' in await getConfig(production)));
});

test('PATCH supportedCurrencies replaces the list', async () => {
  const list = [
    usd({ enabledTransactionTypes: ['OUTGOING'], requiredCounterpartyFields: [{ name: 'FULL_NAME', mandatory: true }, { name: 'BIRTH_DATE', mandatory: false }] }),
    { currencyCode: 'EUR', minAmount: 0, maxAmount: 0, enabledTransactionTypes: [], requiredCounterpartyFields: [{ name: 'COUNTRY_OF_RESIDENCE', mandatory: true }] },
    { currencyCode: 'MXN', minAmount: 1, maxAmount: 9000000000000000, enabledTransactionTypes: ['INCOMING'], requiredCounterpartyFields: [], ignoredExtra: 'x' },
  ];
  await getConfig(sandbox);
  const response = expectStatus(await patch(sandbox, { supportedCurrencies: list }), 200);
  const expected = list.map(({ ignoredExtra, ...item }) => ({ ...item, providerRequiredCustomerFields: [], providerRequiredCounterpartyCustomerFields: [] }));
  assert.deepEqual(response.supportedCurrencies, expected);
  assert.deepEqual((await getConfig(sandbox)).supportedCurrencies, expected);
  // Other fields are untouched by a PATCH that does not name them.
  const before = await getConfig(sandbox);
  const only = expectStatus(await patch(sandbox, { webhookEndpoint: 'https://hooks.example.test/y' }), 200);
  assert.deepEqual(only.supportedCurrencies, before.supportedCurrencies);
  assert.equal(only.umaDomain, before.umaDomain);
  // An empty list is allowed.
  assert.deepEqual(expectStatus(await patch(sandbox, { supportedCurrencies: [] }), 200).supportedCurrencies, []);
  assert.deepEqual((await getConfig(sandbox)).supportedCurrencies, []);
  expectStatus(await patch(sandbox, { supportedCurrencies: list }), 200);
});

test('PATCH supportedCurrencies: every entry is validated and a failure writes nothing', async () => {
  const field = (i, name) => `supportedCurrencies[${i}].${name}`;
  await expectRefused(sandbox, { supportedCurrencies: [usd({ currencyCode: 'XYZ' })] }, 400, 'INVALID_CURRENCY', field(0, 'currencyCode'));
  await expectRefused(sandbox, { supportedCurrencies: [usd(), usd({ currencyCode: 'ABC' })] }, 400, 'INVALID_CURRENCY', field(1, 'currencyCode'));
  await expectRefused(sandbox, { supportedCurrencies: [usd({ currencyCode: 'usd' })] }, 400, 'INVALID_CURRENCY', field(0, 'currencyCode'));
  await expectRefused(sandbox, { supportedCurrencies: [usd({ minAmount: 500001 })] }, 400, 'INVALID_INPUT', field(0, 'minAmount'));
  await expectRefused(sandbox, { supportedCurrencies: [usd({ enabledTransactionTypes: ['SIDEWAYS'] })] }, 400, 'INVALID_INPUT', `${field(0, 'enabledTransactionTypes')}[0]`);
  await expectRefused(sandbox, { supportedCurrencies: [usd({ enabledTransactionTypes: ['OUTGOING', 'outgoing'] })] }, 400, 'INVALID_INPUT', `${field(0, 'enabledTransactionTypes')}[1]`);
  await expectRefused(sandbox, { supportedCurrencies: [usd({ enabledTransactionTypes: ['INCOMING', 'INCOMING'] })] }, 400, 'INVALID_INPUT', `${field(0, 'enabledTransactionTypes')}[1]`);
  await expectRefused(sandbox, { supportedCurrencies: [usd({ enabledTransactionTypes: 'OUTGOING' })] }, 400, 'INVALID_INPUT', field(0, 'enabledTransactionTypes'));
  await expectRefused(sandbox, { supportedCurrencies: [usd(), usd({ currencyCode: 'EUR' }), usd()] }, 400, 'INVALID_INPUT', field(2, 'currencyCode'));
  await expectRefused(sandbox, { supportedCurrencies: [usd({ requiredCounterpartyFields: [{ name: 'SHOE_SIZE', mandatory: true }] })] }, 400, 'INVALID_INPUT', `${field(0, 'requiredCounterpartyFields')}[0].name`);
  await expectRefused(sandbox, { supportedCurrencies: [usd({ requiredCounterpartyFields: [{ name: 'full_name', mandatory: true }] })] }, 400, 'INVALID_INPUT', `${field(0, 'requiredCounterpartyFields')}[0].name`);
  await expectRefused(sandbox, { supportedCurrencies: [usd({ requiredCounterpartyFields: [{ name: 'EMAIL' }] })] }, 400, 'INVALID_INPUT', `${field(0, 'requiredCounterpartyFields')}[0].mandatory`);
  await expectRefused(sandbox, { supportedCurrencies: [usd({ requiredCounterpartyFields: [{ mandatory: true }] })] }, 400, 'INVALID_INPUT', `${field(0, 'requiredCounterpartyFields')}[0].name`);
  await expectRefused(sandbox, { supportedCurrencies: [usd({ requiredCounterpartyFields: [{ name: 'EMAIL', mandatory: 'yes' }] })] }, 400, 'INVALID_INPUT', `${field(0, 'requiredCounterpartyFields')}[0].mandatory`);
  await expectRefused(sandbox, { supportedCurrencies: [usd({ requiredCounterpartyFields: ['EMAIL'] })] }, 400, 'INVALID_INPUT', `${field(0, 'requiredCounterpartyFields')}[0]`);
  await expectRefused(sandbox, { supportedCurrencies: [usd({ requiredCounterpartyFields: [{ name: 'EMAIL', mandatory: true }, { name: 'EMAIL', mandatory: false }] })] }, 400, 'INVALID_INPUT', `${field(0, 'requiredCounterpartyFields')}[1].name`);

  for (const key of ['currencyCode', 'minAmount', 'maxAmount', 'enabledTransactionTypes', 'requiredCounterpartyFields']) {
    const entry = usd();
    delete entry[key];
    await expectRefused(sandbox, { supportedCurrencies: [entry] }, 400, 'INVALID_INPUT', field(0, key));
    await expectRefused(sandbox, { supportedCurrencies: [usd({ [key]: null })] }, 400, 'INVALID_INPUT', field(0, key));
  }
  for (const [name, value] of [['minAmount', -1], ['minAmount', 1.5], ['minAmount', '100'], ['maxAmount', 9000000000000001], ['maxAmount', 1e30], ['minAmount', true]]) {
    await expectRefused(sandbox, { supportedCurrencies: [usd({ [name]: value })] }, 400, 'INVALID_INPUT', field(0, name));
  }
  // Integers beyond int64 and beyond double precision, written as JSON text.
  for (const literal of ['9223372036854775808', '18446744073709551616', '1e30', '-9223372036854775809', '100000000000000000000000000000']) {
    const before = await getConfig(sandbox);
    const body = `{"supportedCurrencies":[{"currencyCode":"USD","minAmount":0,"maxAmount":${literal},"enabledTransactionTypes":[],"requiredCounterpartyFields":[]}]}`;
    expectError(await patch(sandbox, body), 400, 'INVALID_INPUT', field(0, 'maxAmount'));
    assert.deepEqual(await getConfig(sandbox), before);
  }
  await expectRefused(sandbox, { supportedCurrencies: Array.from({ length: 65 }, () => usd()) }, 400, 'INVALID_INPUT', 'supportedCurrencies');
  await expectRefused(sandbox, { supportedCurrencies: {} }, 400, 'INVALID_INPUT', 'supportedCurrencies');
  await expectRefused(sandbox, { supportedCurrencies: 'USD' }, 400, 'INVALID_INPUT', 'supportedCurrencies');
  await expectRefused(sandbox, { supportedCurrencies: ['USD'] }, 400, 'INVALID_INPUT', 'supportedCurrencies[0]');
  // Valid fields beside an invalid one are not written.
  await expectRefused(sandbox, { umaDomain: 'never-written.example.test', webhookEndpoint: 'https://never.example.test/', supportedCurrencies: [usd({ minAmount: 10, maxAmount: 1 })] }, 400, 'INVALID_INPUT', field(0, 'minAmount'));
});

test('isRegulatedFinancialInstitution and proxyUmaSubdomain are refused with 400', async () => {
  for (const value of [true, false]) {
    await expectRefused(sandbox, { isRegulatedFinancialInstitution: value }, 400, 'INVALID_INPUT', 'isRegulatedFinancialInstitution');
    await expectRefused(regulated, { isRegulatedFinancialInstitution: value }, 400, 'INVALID_INPUT', 'isRegulatedFinancialInstitution');
  }
  const current = (await getConfig(sandbox)).proxyUmaSubdomain;
  for (const value of ['mine', current]) {
    await expectRefused(sandbox, { proxyUmaSubdomain: value }, 400, 'INVALID_INPUT', 'proxyUmaSubdomain');
  }
  await expectRefused(production, { webhookEndpoint: 'https://hooks.example.test/z', isRegulatedFinancialInstitution: true }, 400, 'INVALID_INPUT', 'isRegulatedFinancialInstitution');
  assert.equal((await getConfig(regulated)).isRegulatedFinancialInstitution, true);
  assert.equal((await getConfig(sandbox)).isRegulatedFinancialInstitution, false);
});

test('unknown fields are ignored and an empty PATCH changes nothing', async () => {
  const before = await getConfig(production);
  const response = expectStatus(await patch(production, { somethingNew: 1, id: 'PlatformConfig:forged', createdAt: '2000-01-01T00:00:00Z' }), 200);
  assert.equal(response.id, before.id);
  assert.equal(response.createdAt, before.createdAt);
  const empty = expectStatus(await patch(production, {}), 200);
  for (const key of ['id', 'umaDomain', 'proxyUmaSubdomain', 'supportedCurrencies', 'isRegulatedFinancialInstitution', 'createdAt']) {
    assert.deepEqual(empty[key], before[key]);
  }
});

// Every field PATCH /config defines is type-checked, before any value is read: a wrong type is
// named by its path and nothing changes.
test('PATCH /config: a defined field of the wrong type is 400 naming its path, nothing changes', async () => {
  const before = await getConfig(sandbox);
  const valid = {
    umaDomain: before.umaDomain, webhookEndpoint: 'https://hooks.example.test/typed',
    supportedCurrencies: [usd({ requiredCounterpartyFields: [{ name: 'FULL_NAME', mandatory: true }] })],
  };
  await expectWrongTypes((body) => patch(sandbox, body), valid, [
    ['umaDomain', 5], ['umaDomain', ['a.example']], ['webhookEndpoint', 1], ['webhookEndpoint', {}],
    ['supportedCurrencies', 'USD'], ['supportedCurrencies', {}], ['supportedCurrencies[0]', 'USD'],
    ['supportedCurrencies[0].currencyCode', 840], ['supportedCurrencies[0].minAmount', '100'],
    ['supportedCurrencies[0].minAmount', 1.5], ['supportedCurrencies[0].maxAmount', true],
    ['supportedCurrencies[0].enabledTransactionTypes', 'OUTGOING'],
    ['supportedCurrencies[0].enabledTransactionTypes[1]', 1],
    ['supportedCurrencies[0].requiredCounterpartyFields', {}],
    ['supportedCurrencies[0].requiredCounterpartyFields[0]', 'FULL_NAME'],
    ['supportedCurrencies[0].requiredCounterpartyFields[0].name', 3],
    ['supportedCurrencies[0].requiredCounterpartyFields[0].mandatory', 'yes'],
    // Fields only the service sets: a wrong type is still named as a wrong type.
    ['isRegulatedFinancialInstitution', 'no'], ['proxyUmaSubdomain', 7],
  ]);
  assert.deepEqual(await getConfig(sandbox), before);
});

test('every PATCH is visible in the very next GET, on any connection', async () => {
  let previous = await getConfig(sandbox);
  for (let i = 0; i < 12; i++) {
    // Several GETs in parallel keep the cached rendering hot on every core.
    await Promise.all([getConfig(sandbox), getConfig(sandbox), getConfig(sandbox)]);
    const url = `https://hooks.example.test/round/${i}`;
    const patched = expectStatus(await patch(sandbox, { webhookEndpoint: url }), 200);
    const seen = await Promise.all([getConfig(sandbox), getConfig(sandbox), getConfig(sandbox), getConfig(sandbox)]);
    for (const config of seen) {
      assert.equal(config.webhookEndpoint, url);
      assert.deepEqual(config, patched);
    }
    assert.ok(Date.parse(patched.updatedAt) >= Date.parse(previous.updatedAt));
    previous = patched;
  }
});
