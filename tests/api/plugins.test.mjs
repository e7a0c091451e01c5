// Rail plugins as an operator sees them: `corridor plugins list`, and start-up refusing a plugin it
// cannot load, with the file named.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { startCorridor, stopCorridor, runCli, launch, metricsText } from './lib/harness.mjs';

let server;

before(async () => { server = await startCorridor({ platforms: 0 }); });
after(async () => { if (server) await stopCorridor(server); });

test('plugins list shows the loaded rails, their versions and ABI', () => {
  const listed = JSON.parse(runCli(server, ['plugins', 'list', '--json']));
  assert.equal(listed.hostAbi, '1.3');
  const sandbox = listed.rails.find((rail) => rail.name === 'sandbox');
  assert.ok(sandbox, JSON.stringify(listed));
  assert.equal(sandbox.version, '1.0.0');
  assert.equal(sandbox.abi, '1.3');
  assert.deepEqual(sandbox.capabilities, ['PAYOUT', 'PULL']);
  assert.match(sandbox.file, /sandbox\.so$/);
  assert.ok(sandbox.accountTypes.includes('US_ACCOUNT'));
  assert.ok(sandbox.accountTypes.includes('SPARK_WALLET'));
  const text = runCli(server, ['plugins', 'list']);
  assert.match(text, /^rail ABI 1\.3; plugins from /);
  assert.match(text, /sandbox\s+1\.0\.0\s+ABI 1\.3/);
  assert.match(text, /can: PAYOUT,PULL/);
});

test('/metrics counts calls into each rail hook', async () => {
  let text = '';
  // The payment engine ticks the sandbox rail every 250 ms; wait for the first tick to show.
  for (let i = 0; i < 50 && !/corridor_rail_calls_total\{rail="sandbox",hook="tick"\} [1-9]/.test(text); i++) {
    text = await metricsText(server);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.match(text, /corridor_rail_calls_total\{rail="sandbox",hook="create"\} 1\n/);
  assert.match(text, /corridor_rail_calls_total\{rail="sandbox",hook="tick"\} [1-9]/);
  assert.match(text, /corridor_rail_calls_not_ok_total\{rail="sandbox",hook="tick"\} 0\n/);
  assert.match(text, /corridor_rail_call_seconds_total\{rail="sandbox",hook="initiate"\} 0\.000000\n/);
});

test('plugins list shows a rail that cannot load with its own error, and exits 1', () => {
  // The test plugins' folder first in plugins.dir (a list), the build's plugins after it.
  const config = JSON.parse(readFileSync(server.configPath, 'utf8'));
  const testPlugins = join(process.env.CORRIDOR_BUILD_DIR, 'tests', 'rails', 'plugins');
  config.plugins = { ...config.plugins, dir: [testPlugins, config.plugins.dir], rails: ['sandbox', 'test_good'],
    settings: { test_good: { throw_in_create: true } } };
  const path = join(server.dir, 'list.json');
  writeFileSync(path, JSON.stringify(config));
  let failure;
  try {
    execFileSync(server.bin, ['plugins', 'list', '--config', path], { encoding: 'utf8', stdio: 'pipe' });
  } catch (error) {
    failure = error;
  }
  assert.ok(failure, 'plugins list exits non-zero');
  assert.equal(failure.status, 1);
  assert.match(failure.stdout, /sandbox\s+1\.0\.0\s+ABI 1\.3/);
  assert.match(failure.stdout, /test_good\s+NOT LOADED/);
  assert.ok(failure.stdout.includes('create threw on purpose: the settings name no bank'), failure.stdout);
  assert.ok(failure.stderr.includes('rail test_good [error]: create threw on purpose'), failure.stderr);
  assert.ok(failure.stdout.includes(`plugins from ${testPlugins}, ${config.plugins.dir[1]}`), failure.stdout);
});

// Rewrites the stopped server's configuration, then expects serve to exit with the message.
async function expectStartRefused(change, message) {
  const config = JSON.parse(readFileSync(server.configPath, 'utf8'));
  const saved = structuredClone(config);
  change(config);
  writeFileSync(server.configPath, JSON.stringify(config));
  try {
    await assert.rejects(launch(server), (error) => {
      assert.match(error.message, /server exited with 1/);
      assert.ok(error.message.includes(message), error.message);
      return true;
    });
  } finally {
    writeFileSync(server.configPath, JSON.stringify(saved));
  }
}

test('serve refuses to start with a rail it cannot load, naming the file', async () => {
  await stopCorridor(server, { keepFiles: true });
  const dir = JSON.parse(readFileSync(server.configPath, 'utf8')).plugins.dir;
  await expectStartRefused((c) => { c.plugins.rails = ['sandbox', 'absent']; },
    `rail plugin ${dir}/absent.so: no such file`);
  await expectStartRefused((c) => { c.plugins.sha256 = { sandbox: '0'.repeat(64) }; },
    `rail plugin ${dir}/sandbox.so: its SHA-256 is `);
  await expectStartRefused((c) => { c.plugins.rails = ['../sandbox']; }, 'is not a rail name');
  await expectStartRefused((c) => { c.plugins.settings = { sandbox: { timeout_ms: 'soon' } }; },
    'timeout_ms must be a non-negative integer');
  // The unchanged configuration starts again.
  await launch(server);
});
