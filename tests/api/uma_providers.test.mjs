// GET /uma-providers: the operator's provider file with each provider's allow-list status for the
// calling platform, the filters countryCode, currencyCode and hasBlockedProviders, pages in both
// sort orders, bad input, and a malformed file stopping start-up.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startCorridor, stopCorridor, call, walkPages, launch, serveFlags } from './lib/harness.mjs';
import { assertError } from './lib/money.mjs';

let server;
let first;   // platform 0 sandbox: allow-listed for "Only For Platform 0"
let second;  // platform 1 sandbox
let shipped; // the shipped conf/uma-providers.json

const usd = { code: 'USD', name: 'United States Dollar', symbol: '$', decimals: 2 };

function providerFile(platformId) {
  return {
    providers: [
      { name: 'Alpha', domain: 'alpha.example', supportedRegions: ['US'], supportedCurrencies: ['USD'], allowListed: true, logoUrl: 'https://alpha.example/logo.png', lei: '984500NWWALLET000108' },
      { name: 'Bravo', domain: 'Bravo.Example', supportedRegions: ['MX', 'US'], supportedCurrencies: ['MXN', 'USD'], allowListed: false },
      { name: 'Only For Platform 0', domain: 'only0.example', supportedRegions: ['BR'], supportedCurrencies: ['BRL'], allowListedPlatforms: [platformId] },
      ...Array.from({ length: 7 }, (_, i) => ({ name: `Filler ${i}`, domain: `filler${i}.example`, supportedRegions: ['GB'], supportedCurrencies: ['GBP'], allowListed: i % 2 === 0 })),
    ],
  };
}

before(async () => {
  shipped = JSON.parse(readFileSync(join(process.env.CORRIDOR_CONF_DIR, 'uma-providers.json'), 'utf8'));
  server = await startCorridor({ platforms: 2 });
  first = server.platforms[0].sandbox;
  second = server.platforms[1].sandbox;
  // The shipped file serves the first start; then a file naming platform 0 replaces it.
  const shippedList = await call(server, first, 'GET', '/uma-providers?limit=100');
  assert.equal(shippedList.status, 200, shippedList.text);
  server.shippedList = shippedList.body;
  server.process.kill('SIGTERM');
  await server.exited;
  const file = join(server.dir, 'providers.json');
  writeFileSync(file, JSON.stringify(providerFile(server.platforms[0].platformId)));
  const config = JSON.parse(readFileSync(server.configPath, 'utf8'));
  config.uma_providers_file = file;
  writeFileSync(server.configPath, JSON.stringify(config));
  await launch(server);
});

after(async () => {
  if (server) await stopCorridor(server);
});

test('the shipped file is served whole, with allow-list statuses and currencies', () => {
  const { data, totalCount, hasMore } = server.shippedList;
  assert.equal(totalCount, shipped.providers.length);
  assert.ok(totalCount >= 5);
  assert.equal(hasMore, false);
  // Newest (last in the file) first by default.
  assert.deepEqual(data.map((p) => p.domain), shipped.providers.map((p) => p.domain).reverse());
  for (const provider of data) {
    const source = shipped.providers.find((p) => p.domain === provider.domain);
    assert.equal(provider.name, source.name);
    assert.equal(provider.allowListStatus, source.allowListed === true);
    assert.deepEqual(provider.supportedRegions, source.supportedRegions);
    assert.deepEqual(provider.supportedCurrencies.map((c) => c.code), source.supportedCurrencies);
    for (const currency of provider.supportedCurrencies) assert.equal(typeof currency.decimals, 'number');
  }
});

test('each provider with its status for the calling platform', async () => {
  const response = await call(server, first, 'GET', '/uma-providers?sortOrder=asc&limit=3');
  assert.equal(response.status, 200, response.text);
  assert.equal(response.body.totalCount, 10);
  assert.equal(response.body.hasMore, true);
  const [alpha, bravo, only0] = response.body.data;
  assert.deepEqual(alpha, {
    name: 'Alpha', domain: 'alpha.example', supportedRegions: ['US'], supportedCurrencies: [usd],
    allowListStatus: true, logoUrl: 'https://alpha.example/logo.png', lei: '984500NWWALLET000108',
  });
  assert.equal(bravo.domain, 'bravo.example', 'domains are normalised');
  assert.equal(bravo.allowListStatus, false);
  assert.ok(!('logoUrl' in bravo) && !('lei' in bravo));
  assert.equal(only0.allowListStatus, true);

  const seenBySecond = await call(server, second, 'GET', '/uma-providers?sortOrder=asc&limit=3');
  assert.equal(seenBySecond.body.data[2].domain, 'only0.example');
  assert.equal(seenBySecond.body.data[2].allowListStatus, false);
});

test('filters: countryCode, currencyCode, hasBlockedProviders, together and with totalCount', async () => {
  const domains = async (query, credentials = first) => {
    const response = await call(server, credentials, 'GET', `/uma-providers?sortOrder=asc&limit=100&${query}`);
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.totalCount, response.body.data.length);
    return response.body.data.map((p) => p.domain);
  };
  assert.deepEqual(await domains('countryCode=US'), ['alpha.example', 'bravo.example']);
  assert.deepEqual(await domains('countryCode=MX'), ['bravo.example']);
  assert.deepEqual(await domains('countryCode=JP'), []);
  assert.deepEqual(await domains('currencyCode=BRL'), ['only0.example']);
  assert.deepEqual(await domains('currencyCode=USD&countryCode=MX'), ['bravo.example']);
  assert.deepEqual(await domains('hasBlockedProviders=false'),
    ['alpha.example', 'only0.example', 'filler0.example', 'filler2.example', 'filler4.example', 'filler6.example']);
  assert.deepEqual(await domains('hasBlockedProviders=false', second),
    ['alpha.example', 'filler0.example', 'filler2.example', 'filler4.example', 'filler6.example']);
  assert.equal((await domains('hasBlockedProviders=true')).length, 10);
  assert.deepEqual(await domains('hasBlockedProviders=false&countryCode=US&currencyCode=USD'), ['alpha.example']);
});

test('pages: every provider once in each order, with and without a filter', async () => {
  const asc = await walkPages(server, first, '/uma-providers?sortOrder=asc', 3);
  assert.equal(asc.items.length, 10);
  assert.deepEqual(asc.totals, [10, 10, 10, 10]);
  const desc = await walkPages(server, first, '/uma-providers', 4);
  assert.deepEqual(desc.items.map((p) => p.domain), asc.items.map((p) => p.domain).reverse());
  const allowed = await walkPages(server, first, '/uma-providers?hasBlockedProviders=false&sortOrder=asc', 2);
  assert.deepEqual(allowed.items.map((p) => p.domain),
    ['alpha.example', 'only0.example', 'filler0.example', 'filler2.example', 'filler4.example', 'filler6.example']);
  assert.deepEqual(allowed.totals, [6, 6, 6]);
  const one = await call(server, first, 'GET', '/uma-providers?limit=10');
  assert.equal(one.body.hasMore, false);
  assert.ok(!('nextCursor' in one.body));
});

test('bad input is refused naming the parameter', async () => {
  const cases = [
    ['limit=0', 'INVALID_INPUT', 'limit'],
    ['limit=101', 'INVALID_INPUT', 'limit'],
    ['limit=ten', 'INVALID_INPUT', 'limit'],
    ['sortOrder=up', 'INVALID_INPUT', 'sortOrder'],
    ['countryCode=USA', 'INVALID_INPUT', 'countryCode'],
    ['countryCode=us', 'INVALID_INPUT', 'countryCode'],
    ['currencyCode=usd', 'INVALID_CURRENCY', 'currencyCode'],
    ['currencyCode=ZZZ', 'INVALID_CURRENCY', 'currencyCode'],
    ['hasBlockedProviders=maybe', 'INVALID_INPUT', 'hasBlockedProviders'],
    ['cursor=garbage', 'INVALID_INPUT', 'cursor'],
    [`cursor=${Buffer.from('uma-provider:gone.example').toString('base64url')}`, 'INVALID_INPUT', 'cursor'],
  ];
  for (const [query, code, field] of cases) {
    const response = await call(server, first, 'GET', `/uma-providers?${query}`);
    assertError(response, 400, code);
    assert.equal(response.body.details?.field, field, query);
  }
  assertError(await call(server, undefined, 'GET', '/uma-providers'), 401, 'UNAUTHORIZED');
});

test('a malformed provider file stops start-up naming the problem', async () => {
  const broken = join(server.dir, 'broken.json');
  const config = JSON.parse(readFileSync(server.configPath, 'utf8'));
  const badPath = join(server.dir, 'bad-config.json');
  for (const [document, message] of [
    [{ providers: [{ name: 'X', domain: 'x.example', supportedCurrencies: ['ZZZ'] }] }, /ZZZ/],
    [{ providers: [{ name: 'X', domain: 'x.example', supportedRegions: ['XX'] }] }, /XX/],
    [{ providers: [{ name: 'X', domain: 'x.example' }, { name: 'Y', domain: 'X.example' }] }, /twice/],
    [{ providers: [{ domain: 'x.example' }] }, /name/],
    [{ providers: [{ name: 'X', domain: 'x.example', lei: '984500NWWALLET000109' }] }, /lei/],
    [{ list: [] }, /providers/],
  ]) {
    writeFileSync(broken, JSON.stringify(document));
    writeFileSync(badPath, JSON.stringify({ ...config, uma_providers_file: broken, listen: '127.0.0.1:0' }));
    let failure;
    try {
      execFileSync(server.bin, ['serve', '--config', badPath, ...serveFlags()], { encoding: 'utf8', stdio: 'pipe', timeout: 20000 });
    } catch (error) {
      failure = error;
    }
    assert.ok(failure, 'serve must refuse to start');
    assert.notEqual(failure.status, 0);
    assert.match(failure.stderr, message);
    assert.match(failure.stderr, /broken\.json/);
  }
});
