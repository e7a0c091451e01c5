// The operator's path, as the README's "Installing" section tells it: `cmake --install` into a
// prefix, the installed configuration with only the keys that section asks for, then migrate,
// platform create, serve from the prefix, a sandbox payment out through a rail, and plugins list.
// And the Debian package: its layout, modes, maintainer scripts and dependencies, and a binary
// extracted from it that finds its rails under its own /usr.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, launch, stopCorridor } from '../api/lib/harness.mjs';
import { balanceOf, eventually, fund, platformAccounts, quoteBody } from '../api/lib/money.mjs';

const build = process.env.CORRIDOR_BUILD_DIR;
assert.ok(build, 'CORRIDOR_BUILD_DIR is not set; run through ctest');
const work = mkdtempSync(join(tmpdir(), 'corridor-install-'));
after(() => rmSync(work, { recursive: true, force: true }));

const mode = (path) => (statSync(path).mode & 0o777).toString(8);

function cli(bin, args, options = {}) {
  const result = spawnSync(bin, args, { encoding: 'utf8', ...options });
  return { code: result.status, out: result.stdout, err: result.stderr };
}

test('an install into a prefix serves a sandbox payment out through its own rails', async () => {
  const prefix = join(work, 'prefix');
  execFileSync('cmake', ['--install', build, '--prefix', prefix, '--component', 'runtime'], { stdio: 'pipe' });
  const bin = join(prefix, 'bin', 'corridor');
  for (const rail of ['sandbox', 'ach', 'pix', 'spark']) {
    assert.ok(existsSync(join(prefix, 'lib', 'corridor', 'rails', `${rail}.so`)), `${rail}.so installed`);
  }
  assert.ok(existsSync(join(prefix, 'share', 'corridor', 'currencies.json')));
  const unit = readFileSync(join(prefix, 'lib', 'systemd', 'system', 'corridor.service'), 'utf8');
  assert.match(unit, new RegExp(`ExecStart=${bin} serve --config ${prefix}/etc/corridor/corridor.json`));
  const configPath = join(prefix, 'etc', 'corridor', 'corridor.json');
  assert.equal(mode(configPath), '640');
  assert.equal(mode(join(prefix, 'var', 'lib', 'corridor')), '700');

  // The README asks for listen and public_base_url; the installed file already names the state
  // folder. Harness-only: port 0, so that parallel test runs never collide on 8080.
  const installed = JSON.parse(readFileSync(configPath, 'utf8'));
  assert.deepEqual(Object.keys(installed).sort(), ['listen', 'public_base_url', 'state_dir']);
  assert.equal(installed.state_dir, join(prefix, 'var', 'lib', 'corridor'));
  // admin_listen likewise, off its default 9464.
  writeFileSync(configPath, JSON.stringify({ ...installed, listen: '127.0.0.1:0', admin_listen: '127.0.0.1:0' }));

  // Run from an unrelated folder: nothing may depend on the working directory.
  const cwd = mkdtempSync(join(work, 'cwd-'));
  const migrated = cli(bin, ['migrate', '--config', configPath], { cwd });
  assert.equal(migrated.code, 0, migrated.err);
  assert.ok(existsSync(join(installed.state_dir, 'corridor.db')), 'the database is in the state folder');
  const created = cli(bin, ['platform', 'create', '--config', configPath, '--name', 'Installed',
    '--uma-domain', 'pay.example.test', '--json'], { cwd });
  assert.equal(created.code, 0, created.err);
  const platform = JSON.parse(created.out);

  const listed = cli(bin, ['plugins', 'list', '--config', configPath, '--json'], { cwd });
  assert.equal(listed.code, 0, listed.err);
  const rails = JSON.parse(listed.out).rails;
  assert.deepEqual(rails.map((rail) => rail.name), ['sandbox'], 'no plugins.rails key: the sandbox rail alone');
  assert.equal(rails[0].file, join(prefix, 'lib', 'corridor', 'rails', 'sandbox.so'));

  const server = await launch({ bin, configPath, dir: work });
  try {
    const sandbox = platform.sandbox;
    const accounts = await platformAccounts(server, sandbox);
    await fund(server, sandbox, accounts.USD.id, 100000);
    const external = await call(server, sandbox, 'POST', '/platform/external-accounts', {
      currency: 'USD',
      accountInfo: {
        accountType: 'US_ACCOUNT', accountNumber: '000123456789', routingNumber: '021000021', accountCategory: 'CHECKING',
        beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Ana Souza', birthDate: '1990-04-01', nationality: 'US' },
      },
    });
    assert.equal(external.status, 201, external.text);
    await eventually(async () => (await call(server, sandbox, 'GET', `/platform/external-accounts/${external.body.id}`)).body?.status === 'ACTIVE');
    const sent = await call(server, sandbox, 'POST', '/transfer-out', {
      source: { accountId: accounts.USD.id }, destination: { accountId: external.body.id }, amount: 2500,
    });
    assert.equal(sent.status, 201, sent.text);
    const done = await eventually(async () => {
      const found = await call(server, sandbox, 'GET', `/transactions/${sent.body.id}`);
      return found.body?.status === 'COMPLETED' ? found.body : null;
    });
    assert.equal(done.status, 'COMPLETED');
    assert.equal(await balanceOf(server, sandbox, accounts.USD), 100000 - 2500);

    // The sandbox prices with the built-in samples; production has no rates until the operator
    // configures them, and says so rather than quoting samples.
    const sandboxQuote = await call(server, sandbox, 'POST', '/quotes', quoteBody(accounts.USD.id, accounts.EUR.id, 1000));
    assert.equal(sandboxQuote.status, 201, sandboxQuote.text);
    const production = platform.production;
    const live = await platformAccounts(server, production);
    const liveQuote = await call(server, production, 'POST', '/quotes', quoteBody(live.USD.id, live.EUR.id, 1000));
    assert.equal(liveQuote.status, 400, liveQuote.text);
    assert.match(liveQuote.body.message, /not configured exchange rates for production/);
    const funding = await call(server, production, 'GET', '/platform/internal-accounts');
    for (const account of funding.body.data) {
      assert.ok(!JSON.stringify(account.fundingPaymentInstructions).includes('Sandbox Bank'),
        'production never shows the sample bank details');
    }
  } finally {
    const stopped = await stopCorridor(server, { keepFiles: true });
    assert.equal(stopped.code, 0, server.stderr);
  }
  assert.match(server.stderr, /no rates_file: production quotes are refused/);
});

test('without --config a command looks in ./conf, then /etc/corridor, and otherwise stops', () => {
  const bin = join(build, 'corridor');
  const empty = mkdtempSync(join(work, 'empty-'));
  const result = cli(bin, ['migrate'], { cwd: empty });
  if (existsSync('/etc/corridor/corridor.json')) {
    // A machine with the package installed: the system file is the one found.
    assert.doesNotMatch(result.err, /no configuration file/);
  } else {
    assert.equal(result.code, 2, result.err);
    assert.match(result.err, /no configuration file: give --config FILE, or create \.\/conf\/corridor\.json or \/etc\/corridor\/corridor\.json/);
    assert.deepEqual(readdirSync(empty), [], 'no database made in the working folder');
  }
});

test('CORRIDOR_DATABASE names the database instead of the file, and --database wins over both', () => {
  const bin = join(build, 'corridor');
  const folder = mkdtempSync(join(work, 'env-'));
  const configPath = join(folder, 'corridor.json');
  writeFileSync(configPath, JSON.stringify({ database: `sqlite:${join(folder, 'from-file.db')}` }));
  const fromEnv = join(folder, 'from-env.db');
  const viaEnv = cli(bin, ['migrate', '--config', configPath], { env: { ...process.env, CORRIDOR_DATABASE: `sqlite:${fromEnv}` } });
  assert.equal(viaEnv.code, 0, viaEnv.err);
  assert.ok(existsSync(fromEnv), 'the environment named the database');
  assert.ok(!existsSync(join(folder, 'from-file.db')), 'the file\'s database was not used');
  const fromFlag = join(folder, 'from-flag.db');
  const viaFlag = cli(bin, ['migrate', '--config', configPath, '--database', `sqlite:${fromFlag}`],
    { env: { ...process.env, CORRIDOR_DATABASE: `sqlite:${fromEnv}` } });
  assert.equal(viaFlag.code, 0, viaFlag.err);
  assert.ok(existsSync(fromFlag), '--database wins');
  const bad = cli(bin, ['migrate', '--config', configPath], { env: { ...process.env, CORRIDOR_DATABASE: 'mysql://x' } });
  assert.equal(bad.code, 2);
  assert.match(bad.err, /CORRIDOR_DATABASE must be sqlite:PATH or postgresql:\/\/\.\.\./);
});

test('the Debian package installs the layout under /usr, /etc/corridor and /var/lib/corridor', () => {
  const out = join(work, 'packages');
  execFileSync('cpack', ['-G', 'DEB', '--config', join(build, 'CPackConfig.cmake'), '-B', out], { stdio: 'pipe', cwd: build });
  const debs = readdirSync(out).filter((name) => name.endsWith('.deb'));
  const service = debs.find((name) => name.startsWith('corridor_'));
  assert.ok(service, `the service package among ${debs}`);
  const deb = join(out, service);

  // The rail SDK in its own package, for plugin authors.
  const sdk = debs.find((name) => name.startsWith('corridor-dev_'));
  assert.ok(sdk, `the SDK package among ${debs}`);
  const sdkListing = execFileSync('dpkg-deb', ['-c', join(out, sdk)], { encoding: 'utf8' });
  for (const path of ['./usr/include/corridor/rail_sdk.hpp', './usr/include/corridor/rail_abi.h',
    './usr/share/pkgconfig/corridor-rail-sdk.pc', './usr/share/cmake/CorridorRailSdk/CorridorRailSdkConfig.cmake',
    './usr/include/corridor/rail_sdk/lightning/bolt11.hpp', './usr/include/corridor/rail_sdk/formats/result.hpp',
    './usr/lib/libcorridor_lightning.a', './usr/share/pkgconfig/corridor-lightning.pc']) {
    assert.ok(sdkListing.includes(` ${path}\n`), `${path} in ${sdk}:\n${sdkListing}`);
  }

  const listing = execFileSync('dpkg-deb', ['-c', deb], { encoding: 'utf8' });
  const entries = Object.fromEntries(listing.trim().split('\n').map((line) => {
    const fields = line.split(/\s+/);
    return [fields[5].replace(/^\.\//, '/').replace(/\/$/, ''), fields[0]];
  }));
  for (const [path, perms] of Object.entries({
    '/usr/bin/corridor': '-rwxr-xr-x',
    '/usr/lib/corridor/rails/sandbox.so': '-rw-r--r--',
    '/usr/lib/corridor/rails/spark.so': '-rw-r--r--',
    '/usr/share/corridor/currencies.json': '-rw-r--r--',
    '/usr/lib/systemd/system/corridor.service': '-rw-r--r--',
    '/etc/corridor/corridor.json': '-rw-r-----',
    '/var/lib/corridor': 'drwx------',
  })) {
    assert.ok(entries[path], `${path} in the package:\n${listing}`);
    assert.equal(entries[path], perms, path);
  }

  const control = execFileSync('dpkg-deb', ['-f', deb], { encoding: 'utf8' });
  assert.match(control, /^Package: corridor$/m);
  const depends = control.match(/^Depends: (.*)$/m)?.[1] ?? '';
  for (const library of ['adduser', 'libsoci-core', 'libssl3', 'libsecp256k1', 'libpq5', 'libsqlite3']) {
    assert.match(depends, new RegExp(library), `Depends names ${library}: ${depends}`);
  }
  const scripts = join(work, 'control');
  execFileSync('dpkg-deb', ['-e', deb, scripts]);
  assert.equal(readFileSync(join(scripts, 'conffiles'), 'utf8').trim(), '/etc/corridor/corridor.json');
  const postinst = readFileSync(join(scripts, 'postinst'), 'utf8');
  assert.match(postinst, /adduser --system --group/);
  assert.match(postinst, /install -d -m 0700 -o corridor -g corridor \/var\/lib\/corridor/);
  execFileSync('sh', ['-n', join(scripts, 'postinst')]);

  // The unit as systemd reads it, and the binary from the package finding its own rails.
  const root = join(work, 'root');
  execFileSync('dpkg-deb', ['-x', deb, root]);
  const unit = readFileSync(join(root, 'usr/lib/systemd/system/corridor.service'), 'utf8');
  for (const line of ['User=corridor', 'StateDirectory=corridor', 'StateDirectoryMode=0700', 'NoNewPrivileges=true',
    'ProtectSystem=strict', 'PrivateTmp=true', 'Restart=on-failure', 'ExecReload=/bin/kill -HUP $MAINPID',
    'ExecStart=/usr/bin/corridor serve --config /etc/corridor/corridor.json']) {
    assert.ok(unit.split('\n').includes(line), `unit has ${line}`);
  }
  const installed = JSON.parse(readFileSync(join(root, 'etc/corridor/corridor.json'), 'utf8'));
  assert.equal(installed.state_dir, '/var/lib/corridor');
  const verify = spawnSync('systemd-analyze', ['verify', '--root', root, '/usr/lib/systemd/system/corridor.service'], { encoding: 'utf8' });
  if (verify.error?.code !== 'ENOENT') {
    assert.doesNotMatch(verify.stderr, /corridor\.service:\d+: /, `systemd-analyze verify: ${verify.stderr}`);
  }
  const state = mkdtempSync(join(work, 'deb-state-'));
  const configPath = join(state, 'corridor.json');
  writeFileSync(configPath, JSON.stringify({ ...installed, state_dir: state }));
  const listed = cli(join(root, 'usr/bin/corridor'), ['plugins', 'list', '--config', configPath, '--json']);
  assert.equal(listed.code, 0, listed.err);
  assert.equal(JSON.parse(listed.out).rails[0].file, join(root, 'usr/lib/corridor/rails/sandbox.so'));
});
